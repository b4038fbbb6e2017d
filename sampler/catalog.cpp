// Reads of the samples table for other modules (catalog.h).
#include "sampler/catalog.h"

namespace clgen::sampler {

Expected<bool> has_samples(Database& db) { return db.has_table("samples"); }

Expected<std::vector<std::string>> accepted_sample_texts(Database& db) {
  std::vector<std::string> out;
  ASSIGN_OR_RETURN(bool exists, has_samples(db));
  if (!exists) return out;
  ASSIGN_OR_RETURN(Statement st,
                   db.prepare("SELECT normalized_text FROM samples WHERE status='accepted' ORDER BY rowid"));
  while (true) {
    ASSIGN_OR_RETURN(bool row, st.step());
    if (!row) break;
    out.push_back(st.column_text(0));
  }
  return out;
}

Expected<std::optional<std::string>> accepted_sample_text(Database& db, const std::string& normalized_sha256) {
  ASSIGN_OR_RETURN(bool exists, has_samples(db));
  if (!exists) return std::optional<std::string>();
  ASSIGN_OR_RETURN(Statement st, db.prepare("SELECT normalized_text FROM samples WHERE normalized_sha256=?1 AND "
                                            "status='accepted' AND normalized_text IS NOT NULL LIMIT 1"));
  RETURN_IF_ERROR(st.bind(1, std::string_view(normalized_sha256)));
  ASSIGN_OR_RETURN(bool row, st.step());
  if (!row) return std::optional<std::string>();
  return std::optional<std::string>(st.column_text(0));
}

Expected<std::optional<SampleOrigin>> first_accepted_sample(Database& db, const std::string& normalized_sha256) {
  ASSIGN_OR_RETURN(bool exists, has_samples(db));
  if (!exists) return std::optional<SampleOrigin>();
  // Tables of older workspaces lack the directed-sampling columns.
  ASSIGN_OR_RETURN(bool has_target, db.has_column("samples", "target"));
  ASSIGN_OR_RETURN(bool has_steering, db.has_column("samples", "steering"));
  const std::string steering =
      has_steering && has_target ? "COALESCE(steering, CASE WHEN target IS NULL THEN 'undirected' ELSE 'directed' END)"
      : has_target               ? "CASE WHEN target IS NULL THEN 'undirected' ELSE 'directed' END"
                                 : "'undirected'";
  ASSIGN_OR_RETURN(Statement st, db.prepare("SELECT id, model_id, " + steering +
                                            " FROM samples WHERE normalized_sha256=?1 AND "
                                            "status='accepted' ORDER BY id LIMIT 1"));
  RETURN_IF_ERROR(st.bind(1, std::string_view(normalized_sha256)));
  ASSIGN_OR_RETURN(bool row, st.step());
  if (!row) return std::optional<SampleOrigin>();
  return std::optional<SampleOrigin>(SampleOrigin{st.column_int(0), st.column_text(1), st.column_text(2)});
}

}  // namespace clgen::sampler
