// Fuzzes the include inliner over an in-memory tree built from the input:
// NUL-separated files, each "path\ncontents", the first one inlined. The tree
// is naive on purpose: it resolves any path lexically, also one that climbs
// out of the root or is absolute, and serves sentinel files there. So the
// oracle -- no sentinel text in the output, every included path a file of the
// tree -- checks the inliner's own confinement, not the tree's.
#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "corpus/inliner.h"
#include "corpus/source_tree.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

using clgen::Expected;
using clgen::corpus::SourceTree;
using clgen::corpus::TreeEntry;

constexpr std::string_view kSentinel = "OUTSIDE_THE_ROOT_8d1f";
constexpr std::string_view kRoot = "/repo";

using clgen::fuzz::fail;

// `path` joined to the root and normalized lexically; '..' may climb above it.
std::string absolute(const std::string& path) {
  std::filesystem::path p = path.empty() || path[0] != '/' ? std::string(kRoot) + "/" + path : path;
  std::string out = p.lexically_normal().string();
  while (out.size() > 1 && out.back() == '/') out.pop_back();
  return out;
}

class NaiveTree : public SourceTree {
 public:
  explicit NaiveTree(std::map<std::string, std::string> files) : files_(std::move(files)) {}
  Expected<std::vector<TreeEntry>> list() override {
    std::vector<TreeEntry> out;
    for (const auto& [p, text] : files_)
      if (p.rfind(std::string(kRoot) + "/", 0) == 0) out.push_back({p.substr(kRoot.size() + 1), text.size(), "", ""});
    return out;
  }
  Expected<std::string> read(const std::string& path, uint64_t max_bytes) override {
    auto it = files_.find(absolute(path));
    if (it == files_.end()) return clgen::not_found(path);
    if (it->second.size() > max_bytes) return clgen::invalid_argument(path + ": too large");
    return it->second;
  }
  bool is_file(const std::string& path) override { return files_.count(absolute(path)) > 0; }
  std::string describe() const override { return "fuzz tree"; }

 private:
  std::map<std::string, std::string> files_;  // absolute path -> contents
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view in(reinterpret_cast<const char*>(data), size);
  if (in.find(kSentinel) != std::string_view::npos) return 0;
  std::map<std::string, std::string> files;
  // Outside the root: beside it, above it, and where a search directory that climbs would look.
  for (const char* p : {"/secret.h", "/secret.cl", "/include/secret.h", "/etc/passwd", "/repo.h", "/repo2/a.h"})
    files[p] = std::string(kSentinel) + "\n";
  std::string first_path, first_text;
  size_t start = 0;
  for (int n = 0; start <= in.size() && n < 16; ++n) {
    size_t nul = in.find('\0', start);
    std::string_view chunk = in.substr(start, nul == std::string_view::npos ? std::string_view::npos : nul - start);
    size_t eol = chunk.find('\n');
    std::string path(chunk.substr(0, eol));
    std::string text(eol == std::string_view::npos ? std::string_view() : chunk.substr(eol + 1));
    auto norm = clgen::corpus::normalize_relative(path);
    std::string p = norm ? *norm : "f" + std::to_string(n) + ".cl";
    if (n == 0) first_path = p, first_text = text;
    files.emplace(std::string(kRoot) + "/" + p, text);
    if (nul == std::string_view::npos) break;
    start = nul + 1;
  }
  NaiveTree tree(files);
  clgen::corpus::InlineOptions options;
  options.max_output_bytes = 1 << 16;
  auto result = clgen::corpus::inline_includes(tree, first_path, first_text, options);
  if (!result.ok()) fail("an in-memory tree has no I/O errors", result.status().message());
  if (result->text.find(kSentinel) != std::string::npos) fail("text from outside the root", result->text);
  for (const std::string& p : result->included_paths) {
    auto norm = clgen::corpus::normalize_relative(p);
    if (!norm || *norm != p) fail("an included path is not normalized", p);
    if (!files.count(std::string(kRoot) + "/" + p)) fail("an included path is no file of the tree", p);
  }
  if (!result->too_large && result->text.size() > options.max_output_bytes + first_text.size())
    fail("output beyond max_output_bytes", std::to_string(result->text.size()));
  if (result->inlined < 0 || result->repeated < 0 || result->cycles < 0 || result->unresolved < 0 ||
      result->refused < 0 || result->substituted < 0)
    fail("a negative count", "");
  return 0;
}
