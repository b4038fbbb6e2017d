// Copying another workspace's runs and kernel sources, keyed as stored.
#include "driver/runs_merge.h"

#include <cctype>

#include <fmt/format.h>

namespace clgen::driver {

namespace {

// Every column of `runs` but its row id and the later scalar_value.
constexpr const char* kRunColumns =
    "kernel_sha256, kernel_name, origin, platform, device, build_options, global_size, "
    "requested_local_size, local_size, outcome, message, transferred_bytes, repetitions, "
    "transfer_ns, transfer_ns_median, transfer_ns_ci95, kernel_ns, kernel_ns_median, "
    "kernel_ns_ci95, transfer_ns_runs, kernel_ns_runs, kernel_local_mem, kernel_private_mem, "
    "kernel_work_group_size, seed, created_at";

Expected<bool> has_table(Database& db, const std::string& schema, const char* table) {
  ASSIGN_OR_RETURN(auto st, db.prepare(fmt::format(
      "SELECT 1 FROM {}.sqlite_master WHERE type = 'table' AND name = ?1", schema)));
  RETURN_IF_ERROR(st.bind(1, std::string_view(table)));
  return st.step();
}

}  // namespace

Expected<RunMergeCounts> merge_runs(Database& db, const std::string& schema) {
  for (char c : schema)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_')
      return invalid_argument(fmt::format("merging runs: bad schema name \"{}\"", schema));
  RunMergeCounts c;
  ASSIGN_OR_RETURN(bool has_runs, has_table(db, schema, "runs"));
  if (!has_runs) return c;
  {
    ASSIGN_OR_RETURN(auto st, db.prepare(fmt::format("SELECT count(*) FROM {}.runs", schema)));
    ASSIGN_OR_RETURN(bool row, st.step());
    c.source_runs = row ? uint64_t(st.column_int(0)) : 0;
  }
  // Runs stored before scalar_value was recorded have none (NULL).
  std::string columns = kRunColumns;
  ASSIGN_OR_RETURN(bool has_scalar, db.has_column("runs", "scalar_value", schema));
  if (has_scalar) columns += ", scalar_value";
  // runs' UNIQUE key decides what is already here.
  RETURN_IF_ERROR(db.exec(fmt::format("INSERT OR IGNORE INTO main.runs ({0}) SELECT {0} FROM "
                                      "{1}.runs ORDER BY id",
                                      columns, schema))
                      .with_context("copying runs"));
  c.added_runs = uint64_t(db.changes());
  ASSIGN_OR_RETURN(bool has_sources, has_table(db, schema, "kernel_sources"));
  if (has_sources) {
    RETURN_IF_ERROR(db.exec(fmt::format("INSERT OR IGNORE INTO main.kernel_sources (sha256, text, "
                                        "origin) SELECT sha256, text, origin FROM "
                                        "{}.kernel_sources",
                                        schema))
                        .with_context("copying kernel sources"));
    c.added_sources = uint64_t(db.changes());
  }
  return c;
}

}  // namespace clgen::driver
