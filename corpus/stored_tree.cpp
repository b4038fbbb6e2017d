// SourceTree over content_origins + content_files of one source at one commit.
#include "corpus/stored_tree.h"

#include <map>

#include "corpus/store.h"

namespace clgen::corpus {

namespace {

struct StoredEntry {
  std::string sha256;
  uint64_t size = 0;
};

class StoredTree : public SourceTree {
 public:
  StoredTree(Database& db, std::map<std::string, StoredEntry> files, std::string name)
      : db_(db), files_(std::move(files)), name_(std::move(name)) {}

  Expected<std::vector<TreeEntry>> list() override {
    std::vector<TreeEntry> out;
    for (const auto& [path, e] : files_) out.push_back({path, e.size, "", ""});
    return out;
  }

  Expected<std::string> read(const std::string& path, uint64_t max_bytes) override {
    auto it = find(path);
    if (it == files_.end()) return not_found(path + ": not stored for " + name_);
    if (it->second.size > max_bytes)
      return invalid_argument(path + ": " + std::to_string(it->second.size) + " bytes, over the limit");
    auto cached = texts_.find(it->second.sha256);
    if (cached != texts_.end()) return cached->second;
    ASSIGN_OR_RETURN(Statement q, db_.prepare("SELECT text FROM content_files WHERE sha256 = ?1"));
    RETURN_IF_ERROR(q.bind(1, std::string_view(it->second.sha256)));
    ASSIGN_OR_RETURN(bool row, q.step());
    if (!row) return not_found(path + ": content " + it->second.sha256 + " missing from content_files");
    std::string text = q.column_text(0);
    if (cached_bytes_ + text.size() <= kCacheBudget) {
      cached_bytes_ += text.size();
      texts_[it->second.sha256] = text;
    }
    return text;
  }

  bool is_file(const std::string& path) override { return find(path) != files_.end(); }

  std::string describe() const override { return name_; }

 private:
  std::map<std::string, StoredEntry>::const_iterator find(const std::string& path) const {
    auto norm = normalize_relative(path);
    return norm ? files_.find(*norm) : files_.end();
  }

  // Texts read, kept for later reads (includes are read by many kernels).
  static constexpr uint64_t kCacheBudget = 64ull << 20;
  Database& db_;
  std::map<std::string, StoredEntry> files_;
  std::string name_;
  std::map<std::string, std::string> texts_;  // sha256 -> text
  uint64_t cached_bytes_ = 0;
};

}  // namespace

Expected<std::unique_ptr<SourceTree>> open_stored_tree(Database& db, int64_t repository_id,
                                                       const std::string& commit) {
  RETURN_IF_ERROR(ensure_corpus_schema(db));  // origins of older stores gain their line columns
  ASSIGN_OR_RETURN(
      Statement q,
      db.prepare(
          "SELECT o.path, o.sha256, c.size FROM content_origins o JOIN content_files c USING (sha256) "
          "WHERE o.repository_id = ?1 AND o.commit_sha = ?2 AND o.line_first IS NULL ORDER BY o.path, c.first_seen, o.sha256"));
  RETURN_IF_ERROR(q.bind(1, repository_id));
  RETURN_IF_ERROR(q.bind(2, std::string_view(commit)));
  std::map<std::string, StoredEntry> files;
  for (;;) {
    ASSIGN_OR_RETURN(bool row, q.step());
    if (!row) break;
    files[q.column_text(0)] = {q.column_text(1), static_cast<uint64_t>(q.column_int(2))};
  }
  std::string name = "stored source " + std::to_string(repository_id) + (commit.empty() ? "" : " at " + commit);
  return std::unique_ptr<SourceTree>(new StoredTree(db, std::move(files), std::move(name)));
}

}  // namespace clgen::corpus
