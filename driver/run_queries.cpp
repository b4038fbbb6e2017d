// Reads of the runs and kernel_sources tables for other modules (run_queries.h).
#include "driver/run_queries.h"

namespace clgen::driver {

Expected<bool> has_runs(Database& db) { return db.has_table("runs"); }

Expected<std::vector<DeviceRunCount>> run_devices(Database& db) {
  std::vector<DeviceRunCount> out;
  ASSIGN_OR_RETURN(Statement st, db.prepare("SELECT platform, device, COUNT(*), SUM(outcome='pass') FROM runs "
                                            "GROUP BY platform, device ORDER BY platform, device"));
  while (true) {
    ASSIGN_OR_RETURN(bool row, st.step());
    if (!row) break;
    out.push_back({st.column_text(0), st.column_text(1), st.column_int(2), st.column_int(3)});
  }
  return out;
}

Expected<std::vector<PairedRun>> paired_passing_runs(Database& db, const std::string& first_platform,
                                                     const std::string& first_device,
                                                     const std::string& second_platform,
                                                     const std::string& second_device) {
  ASSIGN_OR_RETURN(Statement st,
                   db.prepare("SELECT c.kernel_sha256, c.kernel_name, c.global_size, c.requested_local_size, "
                              "c.origin, c.local_size, g.local_size, g.transferred_bytes, c.kernel_ns, "
                              "g.kernel_ns, c.transfer_ns, g.transfer_ns "
                              "FROM runs c JOIN runs g ON g.kernel_sha256 = c.kernel_sha256 AND "
                              "g.kernel_name = c.kernel_name AND g.global_size = c.global_size AND "
                              "g.requested_local_size = c.requested_local_size AND "
                              "g.build_options = c.build_options "
                              "WHERE c.platform=?1 AND c.device=?2 AND g.platform=?3 AND g.device=?4 AND "
                              "c.outcome='pass' AND g.outcome='pass' AND c.kernel_name != '' AND "
                              "c.kernel_ns IS NOT NULL AND g.kernel_ns IS NOT NULL "
                              "ORDER BY c.kernel_sha256, c.kernel_name, c.build_options, c.global_size, "
                              "c.requested_local_size"));
  RETURN_IF_ERROR(st.bind(1, std::string_view(first_platform)));
  RETURN_IF_ERROR(st.bind(2, std::string_view(first_device)));
  RETURN_IF_ERROR(st.bind(3, std::string_view(second_platform)));
  RETURN_IF_ERROR(st.bind(4, std::string_view(second_device)));
  std::vector<PairedRun> out;
  while (true) {
    ASSIGN_OR_RETURN(bool row, st.step());
    if (!row) break;
    // Columns in the order of PairedRun's fields.
    out.push_back({st.column_text(0), st.column_text(1), st.column_text(2), st.column_text(3), st.column_text(4),
                   st.column_text(5), st.column_text(6), st.column_int(7), st.column_double(8), st.column_double(9),
                   st.column_is_null(10) ? 0 : st.column_double(10), st.column_is_null(11) ? 0 : st.column_double(11)});
  }
  return out;
}

Expected<std::vector<SweepRun>> sweep_runs(Database& db, const std::string* platform, const std::string* device) {
  const bool one_device = platform && device;
  ASSIGN_OR_RETURN(Statement st,
                   db.prepare(std::string("SELECT kernel_sha256, kernel_name, platform, device, build_options, "
                                          "global_size, requested_local_size, outcome, kernel_ns, "
                                          "kernel_work_group_size, origin FROM runs WHERE kernel_name != '' AND "
                                          "requested_local_size != ''") +
                              (one_device ? " AND platform=?1 AND device=?2" : "") +
                              " ORDER BY kernel_sha256, kernel_name, platform, device, build_options, global_size"));
  if (one_device) {
    RETURN_IF_ERROR(st.bind(1, std::string_view(*platform)));
    RETURN_IF_ERROR(st.bind(2, std::string_view(*device)));
  }
  std::vector<SweepRun> out;
  while (true) {
    ASSIGN_OR_RETURN(bool row, st.step());
    if (!row) break;
    // Columns in the order of SweepRun's fields.
    out.push_back({st.column_text(0), st.column_text(1), st.column_text(2), st.column_text(3), st.column_text(4),
                   st.column_text(5), st.column_text(6), st.column_text(7),
                   st.column_is_null(8) ? std::nullopt : std::optional<double>(st.column_double(8)), st.column_int(9),
                   st.column_text(10)});
  }
  return out;
}

Expected<std::optional<std::string>> kernel_source_text(Database& db, const std::string& sha256) {
  ASSIGN_OR_RETURN(bool exists, db.has_table("kernel_sources"));
  if (!exists) return std::optional<std::string>();
  ASSIGN_OR_RETURN(Statement st, db.prepare("SELECT text FROM kernel_sources WHERE sha256=?1"));
  RETURN_IF_ERROR(st.bind(1, std::string_view(sha256)));
  ASSIGN_OR_RETURN(bool row, st.step());
  if (!row) return std::optional<std::string>();
  return std::optional<std::string>(st.column_text(0));
}

}  // namespace clgen::driver
