// The driver's results in the workspace database (`runs`, keyed by kernel,
// device and sizes so a resumed drive skips what is stored) and their
// cldrive-compatible CSV form.
#pragma once

#include <optional>
#include <string>
#include <unordered_map>

#include "driver/job.h"
#include "support/sqlite.h"

namespace clgen::driver {

// What identifies one run; a stored key is never driven again.
struct RunKey {
  std::string kernel_sha256;   // sha256 of the whole source text
  std::string kernel_name;     // "" when the source does not compile
  std::string platform;
  std::string device;
  std::string build_options;
  std::string global_size;     // format_size(), e.g. "4096" or "1024,1024"
  std::string requested_local_size;  // "" = automatic
};

struct RunRecord {
  RunKey key;
  std::string origin;  // a file path, "samples" or "corpus"
  uint64_t seed = 0;
  DriveResult result;
};

// Creates `runs` and `kernel_sources` if needed (CREATE TABLE IF NOT EXISTS).
Status ensure_driver_schema(Database& db);

// Keeps the text of a driven source under its sha256 (= runs.kernel_sha256),
// so datasets can compute static features of any driven kernel, including
// file arguments; a second store of the same sha256 changes nothing.
Status store_kernel_source(Database& db, const std::string& sha256, const std::string& text,
                           const std::string& origin);

// A string that identifies a RunKey (its fields joined by an unprintable
// separator).
std::string run_key_id(const RunKey& key);

// run_key_id() -> outcome of every stored run: what a drive skips.
Expected<std::unordered_map<std::string, Outcome>> stored_run_outcomes(Database& db);
// The same for the runs of one source (kernel_sha256) only.
Expected<std::unordered_map<std::string, Outcome>> stored_run_outcomes_of(Database& db,
                                                                          const std::string& kernel_sha256);

// The stored run for `key`, if any.
Expected<std::optional<RunRecord>> find_run(Database& db, const RunKey& key);

// Stores a run; a second insert of the same key changes nothing.
Status insert_run(Database& db, const RunRecord& record);

// CSV with the columns instance, device, build_opts, kernel,
// work_item_local_mem_size, work_item_private_mem_size, global_size,
// local_size, outcome, transferred_bytes, transfer_time_ns, kernel_time_ns:
// one row per profiled repetition of a passing run, one row with empty times
// for any other outcome. `instance` numbers the runs from 0.
std::string csv_header();
std::string csv_rows(const RunRecord& record, int instance);

}  // namespace clgen::driver
