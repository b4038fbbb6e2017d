// SourceTree over a directory on disk, confined to its root: every read is
// resolved with realpath() and refused unless it stays under the root.
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "corpus/source_tree.h"
#include "support/files.h"

namespace clgen::corpus {

namespace fs = std::filesystem;

std::optional<std::string> normalize_relative(const std::string& path) {
  if (path.empty() || path[0] == '/') return std::nullopt;
  std::vector<std::string> parts;
  size_t i = 0;
  while (i <= path.size()) {
    size_t j = path.find('/', i);
    if (j == std::string::npos) j = path.size();
    std::string part = path.substr(i, j - i);
    if (part == "..") {
      if (parts.empty()) return std::nullopt;
      parts.pop_back();
    } else if (!part.empty() && part != ".") {
      parts.push_back(part);
    }
    i = j + 1;
  }
  if (parts.empty()) return std::nullopt;
  std::string out;
  for (const auto& p : parts) {
    if (!out.empty()) out += '/';
    out += p;
  }
  return out;
}

std::string parent_dir(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? std::string() : path.substr(0, slash);
}

namespace {

class DirectoryTree : public SourceTree {
 public:
  explicit DirectoryTree(std::string root) : root_(std::move(root)) {}

  Expected<std::vector<TreeEntry>> list() override {
    std::vector<TreeEntry> out;
    std::error_code ec;
    fs::recursive_directory_iterator it(root_, fs::directory_options::skip_permission_denied, ec);
    if (ec) return io_error("listing " + root_ + ": " + ec.message());
    for (; it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (ec) return io_error("listing " + root_ + ": " + ec.message());
      const fs::directory_entry& e = *it;
      std::string name = e.path().filename().string();
      if (e.is_directory(ec) && !e.is_symlink(ec) && name == ".git") {
        it.disable_recursion_pending();
        continue;
      }
      // Lexical: fs::relative() would resolve a symlink to its target.
      std::string rel = e.path().lexically_relative(root_).generic_string();
      if (rel.empty() || rel.rfind("..", 0) == 0) continue;
      TreeEntry entry;
      entry.path = rel;
      if (e.is_symlink(ec)) {
        auto target = real_path(e.path().string());
        if (!target || !inside(*target)) {
          entry.problem = "symlink_outside_root";
          entry.detail = "symlink leads outside the source root";
          out.push_back(std::move(entry));
          continue;
        }
        struct stat st {};
        if (::stat(target->c_str(), &st) != 0 || !S_ISREG(st.st_mode)) continue;  // dir link: not descended
        entry.size = static_cast<uint64_t>(st.st_size);
        out.push_back(std::move(entry));
        continue;
      }
      if (!e.is_regular_file(ec)) continue;
      entry.size = e.file_size(ec);
      if (ec) {
        entry.problem = "unreadable";
        entry.detail = ec.message();
      } else if (::access(e.path().c_str(), R_OK) != 0) {
        entry.problem = "unreadable";
        entry.detail = std::strerror(errno);
      }
      out.push_back(std::move(entry));
    }
    std::sort(out.begin(), out.end(),
              [](const TreeEntry& a, const TreeEntry& b) { return a.path < b.path; });
    return out;
  }

  Expected<std::string> read(const std::string& path, uint64_t max_bytes) override {
    auto resolved = resolve(path);
    if (!resolved) return not_found(path + ": not a file inside " + root_);
    return read_file(*resolved, max_bytes);
  }

  bool is_file(const std::string& path) override { return resolve(path).has_value(); }

  std::string describe() const override { return "directory " + root_; }

 private:
  bool inside(const std::string& real) const {
    return real.size() > root_.size() && real.compare(0, root_.size(), root_) == 0 &&
           (root_ == "/" || real[root_.size()] == '/');
  }

  // The real path of a regular file under the root, or nullopt.
  std::optional<std::string> resolve(const std::string& path) const {
    auto norm = normalize_relative(path);
    if (!norm) return std::nullopt;
    auto real = real_path(root_ + "/" + *norm);
    if (!real || !inside(*real)) return std::nullopt;
    struct stat st {};
    if (::stat(real->c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
    return real;
  }

  std::string root_;  // realpath of the root
};

}  // namespace

Expected<std::unique_ptr<SourceTree>> open_directory_tree(const std::string& root) {
  auto real = real_path(root);
  if (!real) return not_found("opening directory " + root + ": " + std::strerror(errno));
  if (!fs::is_directory(*real)) return invalid_argument("opening directory " + root + ": not a directory");
  return std::unique_ptr<SourceTree>(new DirectoryTree(*real));
}

}  // namespace clgen::corpus
