// The repository prelude's indexes over the content store: each kernel file's
// origin (the one corpus::Assembler reads it from) and the index of the files
// its repository had at that commit, built once per repository.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>

#include "corpus/preprocess/repo_prelude.h"
#include "support/sqlite.h"
#include "support/status.h"

namespace clgen::preprocess {

class RepositoryIndexes {
 public:
  explicit RepositoryIndexes(Database& db) : db_(db) {}  // `db` must outlive it

  struct Origin {
    std::string path;                              // of the kernel file in its repository
    std::shared_ptr<const RepositoryIndex> index;  // every stored file of that repository and commit
  };
  // The origin of kernel content `sha256` (lowest repository id, then path,
  // as the assembler picks it); nullopt when it has no kernel origin.
  Expected<std::optional<Origin>> origin_of(const std::string& sha256);

 private:
  Database& db_;
  std::map<std::pair<int64_t, std::string>, std::shared_ptr<const RepositoryIndex>> indexes_;
};

}  // namespace clgen::preprocess
