// Merging the samples of another workspace (e.g. one shard of a sharded run)
// into this one without duplicates: a sample already copied is recognized and
// skipped, and an accepted kernel this workspace already has is stored as a
// duplicate, so each normalized kernel stays accepted once.
#pragma once

#include <cstdint>
#include <string>

#include "support/sqlite.h"
#include "support/status.h"

namespace clgen::sampler {

struct SampleMergeCounts {
  uint64_t source = 0;           // samples in the source
  uint64_t added = 0;            // samples copied into the destination
  uint64_t already_present = 0;  // samples the destination had (an earlier merge): skipped
  uint64_t accepted = 0;         // copied samples that are new unique kernels here
  uint64_t duplicates = 0;       // accepted there, but this workspace had the kernel: stored as duplicate
  uint64_t files = 0;            // .cl files written for the new unique kernels
};

// Copies the samples table of the database attached to `db` as `schema`
// (ATTACH DATABASE ... AS schema; a plain identifier) into `db`'s samples
// table, which must exist (ensure_sampler_schema). Runs inside the caller's
// transaction, so a failure leaves `db` as it was.
//  * A sample is the same sample when text, model_id, seed, shard,
//    sample_index and created_at agree: such rows are skipped, so a second
//    merge of one source adds nothing.
//  * An accepted sample whose normalized kernel is already accepted here is
//    added with status 'duplicate'.
//  * With `kernels_root` set, each new unique kernel is also written to
//    <kernels_root>/<model_id>/<normalized sha256>.cl (as `clgen sample` does).
// Fails with kNotFound when the source has no samples table, or with the
// database's or file system's error.
Expected<SampleMergeCounts> merge_samples(Database& db, const std::string& schema,
                                          const std::string& kernels_root);

}  // namespace clgen::sampler
