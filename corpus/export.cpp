// Corpus export: .cl files named by content hash and a provenance manifest.
#include "corpus/export.h"

#include <filesystem>
#include <nlohmann/json.hpp>

#include "corpus/store.h"
#include "support/csv.h"
#include "support/files.h"
#include "support/interrupt.h"

namespace clgen::corpus {

namespace fs = std::filesystem;

Expected<ExportSummary> export_corpus(Database& db, const std::string& dir) {
  RETURN_IF_ERROR(ensure_corpus_schema(db));
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) return io_error("creating " + dir + ": " + ec.message());
  ExportSummary summary;
  nlohmann::json manifest = nlohmann::json::array();
  std::string csv = "sha256,size,language,source_kind,source,commit,path,role\n";

  ASSIGN_OR_RETURN(Statement files, db.prepare(
      "SELECT sha256, text, size, language FROM content_files ORDER BY sha256"));
  ASSIGN_OR_RETURN(
      Statement origins,
      db.prepare(
          "SELECT r.kind, r.source, o.commit_sha, o.path, o.role, o.line_first, o.line_last FROM content_origins o "
          "JOIN repositories r ON r.id = o.repository_id WHERE o.sha256 = ?1 "
          "ORDER BY r.source, o.path"));
  for (;;) {
    ASSIGN_OR_RETURN(bool row, files.step());
    if (!row) break;
    if (interrupted()) return cancelled("export interrupted; rerun to finish");
    std::string sha = files.column_text(0);
    std::string text = files.column_text(1);
    int64_t size = files.column_int(2);
    std::string language = files.column_text(3);
    RETURN_IF_ERROR(write_file_atomic((fs::path(dir) / (sha + ".cl")).string(), text));
    nlohmann::json entry = {{"sha256", sha}, {"file", sha + ".cl"}, {"size", size},
                            {"language", language}, {"origins", nlohmann::json::array()}};
    origins.reset();
    RETURN_IF_ERROR(origins.bind(1, std::string_view(sha)));
    for (;;) {
      ASSIGN_OR_RETURN(bool o, origins.step());
      if (!o) break;
      entry["origins"].push_back({{"source_kind", origins.column_text(0)},
                                  {"source", origins.column_text(1)},
                                  {"commit", origins.column_text(2)},
                                  {"path", origins.column_text(3)},
                                  {"role", origins.column_text(4)}});
      if (!origins.column_is_null(5))  // a kernel read out of a host file's string literal
        entry["origins"].back()["lines"] = {origins.column_int(5), origins.column_int(6)};
      csv += csv_row({sha, std::to_string(size), language, origins.column_text(0),
                      origins.column_text(1), origins.column_text(2), origins.column_text(3),
                      origins.column_text(4)}) +
             "\n";
      ++summary.origins;
    }
    manifest.push_back(std::move(entry));
    ++summary.files;
    summary.bytes += size;
  }
  RETURN_IF_ERROR(write_file_atomic((fs::path(dir) / "manifest.json").string(), manifest.dump(1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n"));
  RETURN_IF_ERROR(write_file_atomic((fs::path(dir) / "manifest.csv").string(), csv));
  return summary;
}

}  // namespace clgen::corpus
