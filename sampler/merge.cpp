// Copying another workspace's samples into this one, deduplicated.
#include "sampler/merge.h"

#include <cctype>
#include <filesystem>
#include <sstream>

#include <fmt/format.h>

#include "sampler/store.h"
#include "support/files.h"

namespace clgen::sampler {

namespace {

// One number from a query.
Expected<uint64_t> count(Database& db, const std::string& sql) {
  ASSIGN_OR_RETURN(auto st, db.prepare(sql));
  ASSIGN_OR_RETURN(bool row, st.step());
  return row ? uint64_t(st.column_int(0)) : 0;
}

bool plain_identifier(const std::string& s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

// The columns copied as they are (the destination numbers rows itself).
constexpr const char* kCopied =
    "text, normalized_text, normalized_sha256, category, args, model_id, temperature, top_k, "
    "top_p, seed, sample_index, tokens, sample_seconds, filter_seconds, instruction_count, "
    "created_at";

// kCopied with each column read from the source row `s`.
std::string from_source() {
  std::istringstream in(kCopied);
  std::string column, out;
  while (std::getline(in, column, ',')) {
    size_t start = column.find_first_not_of(' ');
    out += (out.empty() ? "s." : ", s.") + column.substr(start);
  }
  return out;
}

}  // namespace

Expected<SampleMergeCounts> merge_samples(Database& db, const std::string& schema,
                                          const std::string& kernels_root) {
  if (!plain_identifier(schema))
    return invalid_argument(fmt::format("merging samples: bad schema name \"{}\"", schema));
  {
    ASSIGN_OR_RETURN(auto st, db.prepare(fmt::format(
        "SELECT 1 FROM {}.sqlite_master WHERE type = 'table' AND name = 'samples'", schema)));
    ASSIGN_OR_RETURN(bool has, st.step());
    if (!has) return not_found("it has no samples table");
  }
  // Columns added after the first samples tables (sharding, directed
  // sampling): read from the source where it has them, else NULL.
  auto column_or_null = [&](const char* column) -> Expected<std::string> {
    ASSIGN_OR_RETURN(bool has, db.has_column("samples", column, schema));
    return has ? std::string("s.") + column : std::string("NULL");
  };
  ASSIGN_OR_RETURN(const std::string shard, column_or_null("shard"));
  ASSIGN_OR_RETURN(const std::string target, column_or_null("target"));
  ASSIGN_OR_RETURN(const std::string target_features, column_or_null("target_features"));
  ASSIGN_OR_RETURN(const std::string steering, column_or_null("steering"));
  const std::string src = schema + ".samples";
  // The same sample: what a run stored about it, down to the millisecond it was stored.
  const std::string stored = fmt::format(
      "EXISTS (SELECT 1 FROM main.samples d WHERE d.created_at = s.created_at "
      "AND d.sample_index IS s.sample_index AND d.seed IS s.seed AND d.model_id = s.model_id "
      "AND d.shard IS {} AND d.text = s.text)",
      shard);

  SampleMergeCounts c;
  ASSIGN_OR_RETURN(c.source, count(db, "SELECT count(*) FROM " + src));
  // The rows to add, decided before any is added (one statement reading and
  // writing main.samples would see its own rows or not, as SQLite plans it).
  RETURN_IF_ERROR(db.exec("DROP TABLE IF EXISTS temp.merge_samples"));
  RETURN_IF_ERROR(db.exec(
      "CREATE TEMP TABLE merge_samples (id INTEGER PRIMARY KEY, duplicate INTEGER NOT NULL)"));
  RETURN_IF_ERROR(db.exec(fmt::format(
      "INSERT INTO temp.merge_samples (id, duplicate) SELECT s.id, s.status = 'accepted' AND "
      "EXISTS (SELECT 1 FROM main.samples d WHERE d.status = 'accepted' "
      "AND d.normalized_sha256 = s.normalized_sha256) FROM {} s WHERE NOT {}",
      src, stored)).with_context("choosing the samples to merge"));
  ASSIGN_OR_RETURN(uint64_t to_add, count(db, "SELECT count(*) FROM temp.merge_samples"));
  c.already_present = c.source - to_add;
  ASSIGN_OR_RETURN(c.duplicates,
                   count(db, "SELECT count(*) FROM temp.merge_samples WHERE duplicate"));
  ASSIGN_OR_RETURN(c.accepted, count(db, fmt::format(
      "SELECT count(*) FROM temp.merge_samples n JOIN {} s ON s.id = n.id "
      "WHERE s.status = 'accepted' AND NOT n.duplicate", src)));

  RETURN_IF_ERROR(
      db.exec(fmt::format("INSERT INTO main.samples ({0}, shard, target, target_features, steering, status, reason) "
                          "SELECT {1}, {2}, {4}, {5}, {6}, "
                          "CASE WHEN n.duplicate THEN 'duplicate' ELSE s.status END, "
                          "CASE WHEN n.duplicate THEN 'the same normalized kernel was sampled before (found by "
                          "clgen workspace merge)' ELSE s.reason END "
                          "FROM temp.merge_samples n JOIN {3} s ON s.id = n.id ORDER BY s.id",
                          kCopied, from_source(), shard, src, target, target_features, steering))
          .with_context("copying samples"));
  c.added = uint64_t(db.changes());

  if (!kernels_root.empty()) {
    ASSIGN_OR_RETURN(auto st, db.prepare(fmt::format(
        "SELECT s.model_id, s.normalized_sha256, s.normalized_text FROM temp.merge_samples n "
        "JOIN {} s ON s.id = n.id WHERE s.status = 'accepted' AND NOT n.duplicate "
        "AND s.normalized_text IS NOT NULL", src)));
    while (true) {
      ASSIGN_OR_RETURN(bool row, st.step());
      if (!row) break;
      std::string dir = kernels_root + "/" + st.column_text(0);
      std::error_code ec;
      std::filesystem::create_directories(dir, ec);
      if (ec) return io_error(fmt::format("creating {}: {}", dir, ec.message()));
      RETURN_IF_ERROR(write_file_atomic(dir + "/" + st.column_text(1) + ".cl", st.column_text(2)));
      ++c.files;
    }
  }
  RETURN_IF_ERROR(db.exec("DROP TABLE temp.merge_samples"));
  return c;
}

}  // namespace clgen::sampler
