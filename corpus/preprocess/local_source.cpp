// read_local_source (local_source.h): the include roots as one SourceTree
// for the corpus inliner, and -D as `#define` lines.
#include "corpus/preprocess/local_source.h"

#include <cctype>
#include <memory>

#include "corpus/encoding.h"
#include "corpus/inliner.h"
#include "corpus/source_tree.h"
#include "support/files.h"

namespace clgen::preprocess {
namespace {

bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Every include root as one tree whose paths are absolute paths without
// their leading '/', so the inliner resolves `..` as the file system does
// (an include may climb from the file's directory into an -I directory).
// A path is read only through a root that lexically contains it, whose
// DirectoryTree then refuses symlinks leading out of that root.
class IncludeRoots : public corpus::SourceTree {
 public:
  // Adds the directory `dir` as a root; returns its tree path.
  Expected<std::string> add(const std::string& dir) {
    auto real = real_path(dir);
    if (!real) return not_found("include directory " + dir + ": no such directory");
    ASSIGN_OR_RETURN(std::unique_ptr<corpus::SourceTree> tree, corpus::open_directory_tree(*real));
    roots_.push_back({tree_path(*real), std::move(tree)});
    return roots_.back().prefix;
  }

  // The tree path of an absolute real path: "/a/b" -> "a/b", "/" -> "".
  static std::string tree_path(const std::string& real) { return real.substr(1); }

  Expected<std::vector<corpus::TreeEntry>> list() override {
    return invalid_argument("include roots are not listed");  // the inliner only reads
  }
  Expected<std::string> read(const std::string& path, uint64_t max_bytes) override {
    for (auto& [root, rest] : routes(path)) {
      if (root->is_file(rest)) return root->read(rest, max_bytes);
    }
    return not_found(path + ": not a file inside the include roots");
  }
  bool is_file(const std::string& path) override {
    for (auto& [root, rest] : routes(path)) {
      if (root->is_file(rest)) return true;
    }
    return false;
  }
  std::string describe() const override { return "include roots"; }

 private:
  struct Root {
    std::string prefix;
    std::unique_ptr<corpus::SourceTree> tree;
  };

  // The roots that contain `path` lexically, each with the path inside it.
  std::vector<std::pair<corpus::SourceTree*, std::string>> routes(const std::string& path) {
    std::vector<std::pair<corpus::SourceTree*, std::string>> out;
    auto norm = corpus::normalize_relative(path);
    if (!norm) return out;
    for (Root& r : roots_) {
      if (r.prefix.empty()) {
        out.emplace_back(r.tree.get(), *norm);
      } else if (norm->size() > r.prefix.size() + 1 && norm->compare(0, r.prefix.size(), r.prefix) == 0 &&
                 (*norm)[r.prefix.size()] == '/') {
        out.emplace_back(r.tree.get(), norm->substr(r.prefix.size() + 1));
      }
    }
    return out;
  }

  std::vector<Root> roots_;
};

// "#define NAME VALUE" for one -D, or "" when it is malformed.
std::string define_line(const std::string& d) {
  size_t eq = d.find('=');
  std::string head = d.substr(0, eq);
  std::string value = eq == std::string::npos ? "1" : d.substr(eq + 1);
  size_t i = 0;
  while (i < head.size() && is_ident_char(head[i])) ++i;
  if (i == 0 || std::isdigit(static_cast<unsigned char>(head[0]))) return "";
  if (i < head.size()) {  // NAME(ARGS)
    if (head[i] != '(' || head.back() != ')') return "";
    for (size_t j = i + 1; j + 1 < head.size(); ++j) {
      char c = head[j];
      if (!is_ident_char(c) && c != ',' && c != ' ' && c != '.') return "";
    }
  }
  if (value.find_first_of("\r\n") != std::string::npos) return "";
  return "#define " + head + " " + value + "\n";
}

}  // namespace

Expected<std::string> define_prelude(const std::vector<std::string>& defines) {
  std::string prelude;
  for (const std::string& d : defines) {
    std::string line = define_line(d);
    if (line.empty()) return invalid_argument("-D " + d + ": expected NAME, NAME=VALUE or NAME(ARGS)=VALUE");
    prelude += line;
  }
  return prelude.empty() ? prelude : prelude + "#line 1\n";
}

Expected<LocalSource> read_local_source(const std::string& path, const LocalSourceOptions& options,
                                        uint64_t max_bytes) {
  ASSIGN_OR_RETURN(std::string text, read_file(path, max_bytes));
  // As the importer stores it: Windows-1252 bytes in comments and literals
  // become UTF-8. Bytes in code stay, and the compile refuses them (invalid_utf8).
  corpus::Utf8Text utf8 = corpus::c_source_as_utf8(text);
  if (utf8.problem.empty()) text = std::move(utf8.text);
  ASSIGN_OR_RETURN(std::string prelude, define_prelude(options.defines));
  auto real = real_path(path);
  if (!real) return not_found(path + ": cannot resolve its directory");
  const std::string dir = corpus::parent_dir(*real);
  IncludeRoots roots;
  RETURN_IF_ERROR(roots.add(dir.empty() ? "/" : dir).status());
  corpus::InlineOptions inline_options;
  inline_options.include_dirs.clear();  // the corpus's guesses (include/, src/, ...) are not clang's
  inline_options.search_parent_dirs = false;
  for (const std::string& d : options.include_dirs) {
    ASSIGN_OR_RETURN(std::string root, roots.add(d));
    inline_options.include_dirs.push_back(std::move(root));
  }
  ASSIGN_OR_RETURN(corpus::InlineResult inlined,
                   corpus::inline_includes(roots, IncludeRoots::tree_path(*real), prelude + text, inline_options));
  if (inlined.too_large)
    return invalid_argument(path + ": with its includes inlined the text exceeds " +
                            std::to_string(inline_options.max_output_bytes) + " bytes");
  LocalSource out;
  out.text = std::move(inlined.text);
  out.inlined = inlined.inlined;
  out.unresolved = std::move(inlined.unresolved_names);
  return out;
}

}  // namespace clgen::preprocess
