// assemble_text: a stored kernel with its stored includes inlined again.
#include "corpus/assemble.h"

#include "corpus/store.h"
#include "corpus/stored_tree.h"

namespace clgen::corpus {

Expected<std::string> assemble_text(Database& db, const std::string& sha256, const InlineOptions& options) {
  RETURN_IF_ERROR(ensure_corpus_schema(db));  // a store made before origins had roles
  return Assembler(db, options).assemble(sha256);
}

Expected<std::string> Assembler::assemble(const std::string& sha256) {
  Database& db = db_;
  const InlineOptions& options = options_;
  ASSIGN_OR_RETURN(Statement q, db.prepare(
      "SELECT o.repository_id, o.commit_sha, o.path, c.text FROM content_origins o JOIN content_files c "
      "USING (sha256) WHERE o.sha256 = ?1 AND o.role = 'kernel' ORDER BY o.repository_id, o.path LIMIT 1"));
  RETURN_IF_ERROR(q.bind(1, std::string_view(sha256)));
  ASSIGN_OR_RETURN(bool row, q.step());
  if (!row) return not_found("assembling " + sha256 + ": no kernel origin in the store");
  int64_t repository_id = q.column_int(0);
  std::string commit = q.column_text(1), path = q.column_text(2), text = q.column_text(3);
  std::unique_ptr<SourceTree>& tree = trees_[{repository_id, commit}];
  if (!tree) {
    ASSIGN_OR_RETURN(tree, open_stored_tree(db, repository_id, commit));
  }
  auto r = inline_includes(*tree, path, text, options);
  if (!r.ok()) return r.status().with_context("assembling " + sha256 + " (" + path + ")");
  if (r->too_large)
    return invalid_argument("assembling " + sha256 + " (" + path + "): over " +
                            std::to_string(options.max_output_bytes) + " bytes after inlining");
  return std::move(r->text);
}

Expected<std::vector<std::string>> kernel_contents(Database& db) {
  RETURN_IF_ERROR(ensure_corpus_schema(db));
  ASSIGN_OR_RETURN(Statement q,
                   db.prepare("SELECT DISTINCT sha256 FROM content_origins WHERE role = 'kernel' ORDER BY sha256"));
  std::vector<std::string> out;
  for (;;) {
    ASSIGN_OR_RETURN(bool row, q.step());
    if (!row) break;
    out.push_back(q.column_text(0));
  }
  return out;
}

Expected<KernelFiles> kernel_files(Database& db) {
  KernelFiles out;
  ASSIGN_OR_RETURN(bool origins, db.has_table("content_origins"));
  ASSIGN_OR_RETURN(bool repositories, db.has_table("repositories"));
  out.assemble = origins && repositories;
  std::string sql = "SELECT c.sha256 FROM content_files c";
  if (out.assemble) {
    RETURN_IF_ERROR(ensure_corpus_schema(db));  // origins get their role column
    sql += " WHERE EXISTS (SELECT 1 FROM content_origins o WHERE o.sha256 = c.sha256 AND o.role = 'kernel')";
  }
  ASSIGN_OR_RETURN(Statement q, db.prepare(sql + " ORDER BY c.sha256"));
  for (;;) {
    ASSIGN_OR_RETURN(bool row, q.step());
    if (!row) break;
    out.sha256s.push_back(q.column_text(0));
  }
  return out;
}

Expected<std::string> stored_text(Database& db, const std::string& sha256) {
  ASSIGN_OR_RETURN(Statement q, db.prepare("SELECT text FROM content_files WHERE sha256 = ?1"));
  RETURN_IF_ERROR(q.bind(1, std::string_view(sha256)));
  ASSIGN_OR_RETURN(bool row, q.step());
  if (!row) return not_found("content " + sha256 + " is not stored");
  return q.column_text(0);
}

}  // namespace clgen::corpus
