// Builtin headers (Clang's, libclc's) and libclc's bitcode: where they are, read once per process.
#include "support/clang/builtin_files.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace clgen::clang_support {
namespace {

void add_file(HeaderSet& set, const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    set.error = "cannot read builtin header " + path.string();
    return;
  }
  std::ostringstream ss;
  ss << in.rdbuf();
  set.files.push_back({path.string(), ss.str()});
}

// libclc's locations: configured at build time relative to the LLVM root
// (Debian's layout: <root>/../../include/clc, <root>/../clc/*.bc, also when
// the packages are unpacked under another prefix); the environment variables
// override them at run time.
std::string configured_path(const char* env, const char* built_in) {
  const char* v = std::getenv(env);
  return v && *v ? v : built_in;
}
const std::string& libclc_bitcode_path() {
  static const std::string path = configured_path("CLGEN_LIBCLC_BITCODE", CLGEN_LIBCLC_BITCODE);
  return path;
}

}  // namespace

const char* resource_dir() { return CLGEN_CLANG_RESOURCE_DIR; }

const HeaderSet& clang_headers() {
  static const HeaderSet set = [] {
    HeaderSet s;
    std::filesystem::path dir = std::filesystem::path(resource_dir()) / "include";
    // -fdeclare-opencl-builtins makes -finclude-default-header read only
    // opencl-c-base.h; opencl-c.h (800 KB) is never opened, and the
    // in-memory file system hashes every file's contents on addFile.
    add_file(s, dir / "opencl-c-base.h");
    return s;
  }();
  return set;
}

const std::string& libclc_include_dir() {
  static const std::string dir = configured_path("CLGEN_LIBCLC_INCLUDE_DIR", CLGEN_LIBCLC_INCLUDE_DIR);
  return dir;
}

const HeaderSet& libclc_headers() {
  static const HeaderSet set = [] {
    HeaderSet s;
    std::error_code ec;
    std::filesystem::path root = std::filesystem::path(libclc_include_dir()) / "clc";
    for (std::filesystem::recursive_directory_iterator it(root, ec), end; !ec && it != end;
         it.increment(ec)) {
      if (it->is_regular_file()) add_file(s, it->path());
    }
    if (ec || s.files.empty()) {
      s.error = "cannot read libclc headers under " + root.string() +
                " (set CLGEN_LIBCLC_INCLUDE_DIR to the directory holding clc/clc.h)";
    }
    return s;
  }();
  return set;
}

const std::string& libclc_bitcode(std::string& error) {
  static std::string err;
  static const std::string bc = [] {
    std::ifstream in(libclc_bitcode_path(), std::ios::binary);
    if (!in) {
      err = "cannot read libclc bitcode " + libclc_bitcode_path() +
            " (set CLGEN_LIBCLC_BITCODE to its path)";
      return std::string();
    }
    std::ostringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }();
  error = err;
  return bc;
}

}  // namespace clgen::clang_support
