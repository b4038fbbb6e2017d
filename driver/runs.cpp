// `runs` table: schema, lookups, idempotent inserts; CSV rows.
#include "driver/runs.h"

#include <nlohmann/json.hpp>

#include "driver/stats.h"
#include "support/csv.h"

namespace clgen::driver {

Status ensure_driver_schema(Database& db) {
  RETURN_IF_ERROR(db.exec(R"sql(
CREATE TABLE IF NOT EXISTS runs(
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  kernel_sha256 TEXT NOT NULL,         -- sha256 of the whole source text
  kernel_name TEXT NOT NULL,           -- '' when the source does not compile
  origin TEXT NOT NULL,                -- file path, 'samples' or 'corpus'
  platform TEXT NOT NULL,
  device TEXT NOT NULL,
  build_options TEXT NOT NULL,
  global_size TEXT NOT NULL,           -- '4096' or '1024,1024'
  requested_local_size TEXT NOT NULL,  -- '' = chosen automatically
  local_size TEXT NOT NULL,            -- the local size used (or refused)
  outcome TEXT NOT NULL,               -- 'pass', 'no output', ... (driver/outcome.h)
  message TEXT NOT NULL,               -- why, for outcomes other than pass
  transferred_bytes INTEGER NOT NULL,  -- host<->device bytes of one run
  repetitions INTEGER NOT NULL,        -- profiled runs (0 unless pass)
  transfer_ns REAL,                    -- mean over repetitions; NULL unless pass
  transfer_ns_median REAL,
  transfer_ns_ci95 REAL,               -- half-width of the 95% CI of the mean
  kernel_ns REAL,
  kernel_ns_median REAL,
  kernel_ns_ci95 REAL,
  transfer_ns_runs TEXT NOT NULL,      -- JSON array, one per repetition
  kernel_ns_runs TEXT NOT NULL,
  kernel_local_mem INTEGER NOT NULL,   -- CL_KERNEL_LOCAL_MEM_SIZE
  kernel_private_mem INTEGER NOT NULL, -- CL_KERNEL_PRIVATE_MEM_SIZE
  kernel_work_group_size INTEGER NOT NULL,
  seed INTEGER NOT NULL,
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
  UNIQUE(kernel_sha256, kernel_name, platform, device, build_options, global_size,
         requested_local_size));
CREATE INDEX IF NOT EXISTS runs_outcome ON runs(outcome);
-- Added later (scalar_value): see ensure_driver_schema.
CREATE TABLE IF NOT EXISTS kernel_sources(
  sha256 TEXT PRIMARY KEY,             -- = runs.kernel_sha256
  text TEXT NOT NULL,                  -- the driven source text
  origin TEXT NOT NULL                 -- as runs.origin, of its first drive
);
)sql"));
  // The value integer scalar arguments had in the run (DriveResult::scalar_value);
  // NULL for runs stored before it was recorded.
  return db.add_column_if_missing("runs", "scalar_value", "INTEGER");
}

Status store_kernel_source(Database& db, const std::string& sha256, const std::string& text,
                           const std::string& origin) {
  ASSIGN_OR_RETURN(Statement st, db.prepare("INSERT OR IGNORE INTO kernel_sources(sha256, text, "
                                            "origin) VALUES (?1, ?2, ?3)"));
  RETURN_IF_ERROR(st.bind(1, sha256));
  RETURN_IF_ERROR(st.bind(2, text));
  RETURN_IF_ERROR(st.bind(3, origin));
  return st.run();
}

namespace {

Status bind_key(Statement& st, const RunKey& k) {
  RETURN_IF_ERROR(st.bind(1, k.kernel_sha256));
  RETURN_IF_ERROR(st.bind(2, k.kernel_name));
  RETURN_IF_ERROR(st.bind(3, k.platform));
  RETURN_IF_ERROR(st.bind(4, k.device));
  RETURN_IF_ERROR(st.bind(5, k.build_options));
  RETURN_IF_ERROR(st.bind(6, k.global_size));
  return st.bind(7, k.requested_local_size);
}

std::vector<uint64_t> parse_list(const std::string& text) {
  try {
    return nlohmann::json::parse(text).get<std::vector<uint64_t>>();
  } catch (const std::exception&) {
    return {};
  }
}

Status bind_optional(Statement& st, int index, bool present, double value) {
  return present ? st.bind(index, value) : st.bind_null(index);
}

}  // namespace

std::string run_key_id(const RunKey& k) {
  const char sep = '\x1f';
  return k.kernel_sha256 + sep + k.kernel_name + sep + k.platform + sep + k.device + sep +
         k.build_options + sep + k.global_size + sep + k.requested_local_size;
}

namespace {
// run_key_id() -> outcome of the runs `st` (a SELECT of the key columns and
// the outcome) returns.
Expected<std::unordered_map<std::string, Outcome>> outcomes_of(Statement& st) {
  std::unordered_map<std::string, Outcome> out;
  while (true) {
    ASSIGN_OR_RETURN(bool row, st.step());
    if (!row) break;
    RunKey k{st.column_text(0), st.column_text(1), st.column_text(2), st.column_text(3),
             st.column_text(4), st.column_text(5), st.column_text(6)};
    ASSIGN_OR_RETURN(Outcome o, parse_outcome(st.column_text(7)));
    out.emplace(run_key_id(k), o);
  }
  return out;
}

const char* kKeysAndOutcome =
    "SELECT kernel_sha256, kernel_name, platform, device, build_options, global_size, requested_local_size, "
    "outcome FROM runs";
}  // namespace

Expected<std::unordered_map<std::string, Outcome>> stored_run_outcomes(Database& db) {
  ASSIGN_OR_RETURN(Statement st, db.prepare(kKeysAndOutcome));
  return outcomes_of(st);
}

Expected<std::unordered_map<std::string, Outcome>> stored_run_outcomes_of(Database& db,
                                                                          const std::string& kernel_sha256) {
  ASSIGN_OR_RETURN(Statement st, db.prepare(std::string(kKeysAndOutcome) + " WHERE kernel_sha256 = ?1"));
  RETURN_IF_ERROR(st.bind(1, kernel_sha256));
  return outcomes_of(st);
}

Expected<std::optional<RunRecord>> find_run(Database& db, const RunKey& key) {
  ASSIGN_OR_RETURN(Statement st,
                   db.prepare("SELECT origin, seed, outcome, message, local_size, transferred_bytes, "
                              "transfer_ns_runs, kernel_ns_runs, kernel_local_mem, "
                              "kernel_private_mem, kernel_work_group_size, COALESCE(scalar_value, 0) FROM runs WHERE "
                              "kernel_sha256=?1 AND kernel_name=?2 AND platform=?3 AND device=?4 "
                              "AND build_options=?5 AND global_size=?6 AND requested_local_size=?7"));
  RETURN_IF_ERROR(bind_key(st, key));
  ASSIGN_OR_RETURN(bool row, st.step());
  if (!row) return std::optional<RunRecord>();
  RunRecord r;
  r.key = key;
  r.origin = st.column_text(0);
  r.seed = static_cast<uint64_t>(st.column_int(1));
  ASSIGN_OR_RETURN(r.result.outcome, parse_outcome(st.column_text(2)));
  r.result.message = st.column_text(3);
  auto local = parse_size(st.column_text(4));
  if (local.ok()) r.result.local_size = *local;
  r.result.transferred_bytes = static_cast<uint64_t>(st.column_int(5));
  r.result.transfer_ns = parse_list(st.column_text(6));
  r.result.kernel_ns = parse_list(st.column_text(7));
  r.result.kernel_local_mem = static_cast<uint64_t>(st.column_int(8));
  r.result.kernel_private_mem = static_cast<uint64_t>(st.column_int(9));
  r.result.kernel_work_group_size = static_cast<uint64_t>(st.column_int(10));
  r.result.scalar_value = static_cast<uint64_t>(st.column_int(11));
  return std::optional<RunRecord>(std::move(r));
}

Status insert_run(Database& db, const RunRecord& record) {
  ASSIGN_OR_RETURN(Statement st,
                   db.prepare("INSERT OR IGNORE INTO runs(kernel_sha256, kernel_name, platform, device, "
                              "build_options, global_size, requested_local_size, origin, local_size, outcome, "
                              "message, transferred_bytes, repetitions, transfer_ns, transfer_ns_median, "
                              "transfer_ns_ci95, kernel_ns, kernel_ns_median, kernel_ns_ci95, transfer_ns_runs, "
                              "kernel_ns_runs, kernel_local_mem, kernel_private_mem, kernel_work_group_size, seed, "
                              "scalar_value) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, "
                              "?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26)"));
  const DriveResult& r = record.result;
  RETURN_IF_ERROR(bind_key(st, record.key));
  RETURN_IF_ERROR(st.bind(8, record.origin));
  RETURN_IF_ERROR(st.bind(9, format_size(r.local_size)));
  RETURN_IF_ERROR(st.bind(10, outcome_name(r.outcome)));
  RETURN_IF_ERROR(st.bind(11, r.message));
  RETURN_IF_ERROR(st.bind(12, static_cast<int64_t>(r.transferred_bytes)));
  RETURN_IF_ERROR(st.bind(13, static_cast<int64_t>(r.kernel_ns.size())));
  const bool timed = !r.kernel_ns.empty();
  Summary t = summarize(r.transfer_ns), k = summarize(r.kernel_ns);
  RETURN_IF_ERROR(bind_optional(st, 14, timed, t.mean));
  RETURN_IF_ERROR(bind_optional(st, 15, timed, t.median));
  RETURN_IF_ERROR(bind_optional(st, 16, timed, t.ci95));
  RETURN_IF_ERROR(bind_optional(st, 17, timed, k.mean));
  RETURN_IF_ERROR(bind_optional(st, 18, timed, k.median));
  RETURN_IF_ERROR(bind_optional(st, 19, timed, k.ci95));
  RETURN_IF_ERROR(st.bind(20, nlohmann::json(r.transfer_ns).dump()));
  RETURN_IF_ERROR(st.bind(21, nlohmann::json(r.kernel_ns).dump()));
  RETURN_IF_ERROR(st.bind(22, static_cast<int64_t>(r.kernel_local_mem)));
  RETURN_IF_ERROR(st.bind(23, static_cast<int64_t>(r.kernel_private_mem)));
  RETURN_IF_ERROR(st.bind(24, static_cast<int64_t>(r.kernel_work_group_size)));
  RETURN_IF_ERROR(st.bind(25, static_cast<int64_t>(record.seed)));
  RETURN_IF_ERROR(st.bind(26, static_cast<int64_t>(r.scalar_value)));
  return st.run();
}

std::string csv_header() {
  return "instance,device,build_opts,kernel,work_item_local_mem_size,work_item_private_mem_size,"
         "global_size,local_size,outcome,transferred_bytes,transfer_time_ns,kernel_time_ns\n";
}

std::string csv_rows(const RunRecord& record, int instance) {
  const DriveResult& r = record.result;
  std::string prefix =
      csv_row({std::to_string(instance), record.key.device, record.key.build_options,
               record.key.kernel_name, std::to_string(r.kernel_local_mem),
               std::to_string(r.kernel_private_mem), record.key.global_size,
               format_size(r.local_size), outcome_name(r.outcome), std::to_string(r.transferred_bytes)}) +
      ",";
  if (r.kernel_ns.empty()) return prefix + ",\n";
  std::string out;
  for (size_t i = 0; i < r.kernel_ns.size(); ++i) {
    uint64_t transfer = i < r.transfer_ns.size() ? r.transfer_ns[i] : 0;
    out += prefix + std::to_string(transfer) + "," + std::to_string(r.kernel_ns[i]) + "\n";
  }
  return out;
}

}  // namespace clgen::driver
