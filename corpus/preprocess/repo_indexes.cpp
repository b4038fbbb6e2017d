// RepositoryIndexes: repository indexes read from content_origins (repo_indexes.h).
#include "corpus/preprocess/repo_indexes.h"

#include <vector>

#include "corpus/preprocess/raw_string.h"

namespace clgen::preprocess {

Expected<std::optional<RepositoryIndexes::Origin>> RepositoryIndexes::origin_of(const std::string& sha256) {
  ASSIGN_OR_RETURN(Statement q, db_.prepare("SELECT repository_id, commit_sha, path FROM content_origins "
                                            "WHERE sha256 = ?1 AND role = 'kernel' "
                                            "ORDER BY repository_id, path LIMIT 1"));
  RETURN_IF_ERROR(q.bind(1, std::string_view(sha256)));
  ASSIGN_OR_RETURN(bool row, q.step());
  if (!row) return std::optional<Origin>();
  Origin origin;
  int64_t repository = q.column_int(0);
  std::string commit = q.column_text(1);
  origin.path = q.column_text(2);
  std::shared_ptr<const RepositoryIndex>& index = indexes_[{repository, commit}];
  if (!index) {
    // Kernel and include origins alike; a path stored with several contents
    // (a re-walked directory) reads the newest.
    ASSIGN_OR_RETURN(Statement files,
                     db_.prepare("SELECT o.path, c.text FROM content_origins o JOIN content_files c USING (sha256) "
                                 "WHERE o.repository_id = ?1 AND o.commit_sha = ?2 ORDER BY o.path, o.rowid DESC"));
    RETURN_IF_ERROR(files.bind(1, repository));
    RETURN_IF_ERROR(files.bind(2, std::string_view(commit)));
    std::vector<RepositoryFile> found;
    while (true) {
      ASSIGN_OR_RETURN(bool more, files.step());
      if (!more) break;
      std::string path = files.column_text(0);
      if (!found.empty() && found.back().path == path) continue;
      found.push_back({path, strip_raw_string_wrapper(files.column_text(1)), false});
    }
    index = std::make_shared<const RepositoryIndex>(std::move(found));
  }
  origin.index = index;
  return std::optional<Origin>(std::move(origin));
}

}  // namespace clgen::preprocess
