// A SourceTree over the content store: the files one source had at one
// commit, as stored (kernel and include origins alike), so a kernel's
// includes can be inlined again from the store.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "corpus/source_tree.h"
#include "support/sqlite.h"

namespace clgen::corpus {

// The origins of repository `repository_id` at `commit`, by path (a path
// stored with several contents, as a re-walked directory may, reads the
// newest). The tree reads texts from `db`, which must outlive it, and keeps
// up to 64 MiB of them for later reads.
Expected<std::unique_ptr<SourceTree>> open_stored_tree(Database& db, int64_t repository_id,
                                                       const std::string& commit);

}  // namespace clgen::corpus
