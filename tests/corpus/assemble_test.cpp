// Raw include storage and reassembly: an include stored once however many
// kernels use it, assemble_text giving what the inliner gives on the tree,
// older stores migrated, and the snapshot manifest parser.
#include <gtest/gtest.h>

#include "corpus/assemble.h"
#include "corpus/importer.h"
#include "corpus/manifest.h"
#include "corpus/store.h"
#include "support/sha256.h"
#include "support/sqlite.h"
#include "tests/corpus/test_util.h"

namespace clgen::corpus {
namespace {

using clgen::testing::TempDir;
using clgen::testing::write_text;

std::vector<std::string> column(Database& db, const std::string& sql) {
  std::vector<std::string> out;
  auto st = db.prepare(sql);
  EXPECT_TRUE(st.ok()) << sql;
  while (st.ok()) {
    auto row = st->step();
    if (!row.ok() || !*row) break;
    out.push_back(st->column_text(0));
  }
  return out;
}

// What the inliner makes of `path` in the directory `root` (the old stored text).
std::string inlined(const std::string& root, const std::string& path) {
  auto tree = open_directory_tree(root);
  auto text = (*tree)->read(path, 1 << 20);
  auto r = inline_includes(**tree, path, *text);
  EXPECT_TRUE(r.ok());
  return r->text;
}

TEST(RawIncludeStorage, AnIncludeSharedByTwoKernelsIsStoredOnceAndAssemblesAsTheInlinerDid) {
  TempDir tmp;
  const std::string a = "#include \"common.h\"\nkernel void A(global int* x) { x[0] = N; }\n";
  const std::string b = "#include \"common.h\"\nkernel void B(global int* x) { x[0] = twice(N); }\n";
  const std::string common = "#include \"inner.h\"\n#define N 4\n";
  const std::string inner = "int twice(int v) { return 2 * v; }\n";
  write_text(tmp / "src/a.cl", a);
  write_text(tmp / "src/b.cl", b);
  write_text(tmp / "src/common.h", common);
  write_text(tmp / "src/include/inner.h", inner);  // found through the include directories
  auto db = Database::open(":memory:");
  ASSERT_TRUE(db.ok());
  ImportOptions options;
  options.progress = false;
  auto s = import_path(*db, tmp / "src", options);
  ASSERT_TRUE(s.ok()) << s.status().message();
  EXPECT_EQ(s->accepted, 2);
  EXPECT_EQ(s->includes_stored, 2);  // common.h and inner.h, once each for both kernels
  EXPECT_EQ(s->includes_inlined, 4);  // common.h + inner.h, per kernel
  EXPECT_EQ(s->bytes_stored, static_cast<int64_t>(a.size() + b.size() + common.size() + inner.size()));

  // Four raw contents; the kernels are stored as written, not inlined.
  std::vector<std::string> shas = {sha256_hex(a), sha256_hex(b), sha256_hex(common), sha256_hex(inner)};
  std::sort(shas.begin(), shas.end());
  EXPECT_EQ(column(*db, "SELECT sha256 FROM content_files ORDER BY sha256"), shas);
  EXPECT_EQ(column(*db, "SELECT path || ':' || role FROM content_origins ORDER BY path"),
            (std::vector<std::string>{"a.cl:kernel", "b.cl:kernel", "common.h:include", "include/inner.h:include"}));
  std::vector<std::string> kernels = {sha256_hex(a), sha256_hex(b)};
  std::sort(kernels.begin(), kernels.end());
  EXPECT_EQ(*kernel_contents(*db), kernels);

  auto assembled_a = assemble_text(*db, sha256_hex(a));
  ASSERT_TRUE(assembled_a.ok()) << assembled_a.status().message();
  EXPECT_EQ(*assembled_a, inlined(tmp / "src", "a.cl"));
  EXPECT_EQ(*assembled_a, inner + "#define N 4\nkernel void A(global int* x) { x[0] = N; }\n");
  EXPECT_EQ(*assemble_text(*db, sha256_hex(b)), inlined(tmp / "src", "b.cl"));
  EXPECT_EQ(assemble_text(*db, sha256_hex(common)).status().code(), ErrorCode::kNotFound);  // not a kernel
  // An Assembler reuses the stored tree and its texts: same results.
  Assembler assembler(*db);
  EXPECT_EQ(*assembler.assemble(sha256_hex(a)), *assembled_a);
  EXPECT_EQ(*assembler.assemble(sha256_hex(b)), inlined(tmp / "src", "b.cl"));
}

TEST(RawIncludeStorage, AFileIncludedByOneKernelAndSelectedItselfIsAKernel) {
  TempDir tmp;
  write_text(tmp / "src/main.cl", "#include \"lib.cl\"\nkernel void M() { f(); }\n");
  write_text(tmp / "src/lib.cl", "void f() {}\nkernel void L() {}\n");
  auto db = Database::open(":memory:");
  ImportOptions options;
  options.progress = false;
  ASSERT_TRUE(import_path(*db, tmp / "src", options).ok());
  EXPECT_EQ(column(*db, "SELECT path || ':' || role FROM content_origins ORDER BY path"),
            (std::vector<std::string>{"lib.cl:kernel", "main.cl:kernel"}));
}

TEST(StoreMigration, AnOlderStoreGainsRolesAndDomainsAndAssemblesToItsStoredText) {
  auto db = Database::open(":memory:");
  ASSERT_TRUE(db.ok());
  // The schema before snapshots: no repositories.domain, no content_origins.role.
  ASSERT_TRUE(db->exec(R"sql(
    CREATE TABLE repositories (id INTEGER PRIMARY KEY, source TEXT NOT NULL UNIQUE, kind TEXT NOT NULL,
      clone_url TEXT, owner TEXT, name TEXT, default_branch TEXT, commit_sha TEXT, stars INTEGER,
      forks INTEGER, license TEXT, fetched_at TEXT);
    CREATE TABLE content_files (sha256 TEXT PRIMARY KEY, text TEXT NOT NULL, size INTEGER NOT NULL,
      language TEXT NOT NULL, first_seen TEXT NOT NULL);
    CREATE TABLE content_origins (sha256 TEXT NOT NULL, repository_id INTEGER NOT NULL, commit_sha TEXT NOT NULL,
      path TEXT NOT NULL, PRIMARY KEY (sha256, repository_id, commit_sha, path));
    INSERT INTO repositories (id, source, kind) VALUES (1, 'dir:/old', 'directory');
    INSERT INTO content_origins VALUES ('s1', 1, '', 'k.cl');
  )sql").ok());
  // Already inlined when stored, with one include left unresolved.
  const std::string legacy = "int h;\n#include \"missing.h\"\nkernel void K() {}\n";
  auto insert = db->prepare("INSERT INTO content_files VALUES ('s1', ?1, 45, 'opencl', 't')");
  ASSERT_TRUE(insert->bind(1, std::string_view(legacy)).ok());
  ASSERT_TRUE(insert->run().ok());
  ASSERT_TRUE(ensure_corpus_schema(*db).ok());
  EXPECT_EQ(column(*db, "SELECT role FROM content_origins"), std::vector<std::string>{"kernel"});
  EXPECT_EQ(column(*db, "SELECT COALESCE(domain, 'null') FROM repositories"), std::vector<std::string>{"null"});
  auto text = assemble_text(*db, "s1");
  ASSERT_TRUE(text.ok()) << text.status().message();
  EXPECT_EQ(*text, legacy);
}

TEST(Manifest, FindsColumnsByHeaderName) {
  auto rows = parse_manifest("bytes_kept\tdomain\tlicense\tcommit\trepository\tfiles_kept\textra\n"
                             "10\tml\tMIT\tabc\to/n\t2\tx\n", "M.tsv");
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  ASSERT_EQ(rows->count("o/n"), 1u);
  const ManifestRow& r = rows->at("o/n");
  EXPECT_EQ(r.commit, "abc");
  EXPECT_EQ(r.license, "MIT");
  EXPECT_EQ(r.domain, "ml");
  EXPECT_EQ(r.files_kept, 2);
  EXPECT_EQ(r.bytes_kept, 10);
}

TEST(Manifest, MalformedLinesAreErrorsNamingFileLineAndColumn) {
  const std::string header = "repository\tcommit\tlicense\tfiles_kept\tbytes_kept\tdomain\n";
  auto bad_count = parse_manifest(header + "o/n\tc\tMIT\t1\t2\td\no/m\tc\tMIT\tx\t2\td\n", "M.tsv");
  EXPECT_EQ(bad_count.status().code(), ErrorCode::kParse);
  EXPECT_EQ(bad_count.status().message().rfind("M.tsv:3: column 'files_kept'", 0), 0u) << bad_count.status().message();
  auto short_row = parse_manifest(header + "o/n\tc\tMIT\n", "M.tsv");
  EXPECT_EQ(short_row.status().message().rfind("M.tsv:2: column 'files_kept' missing", 0), 0u)
      << short_row.status().message();
  auto bad_repo = parse_manifest(header + "noslash\tc\tMIT\t1\t2\td\n", "M.tsv");
  EXPECT_EQ(bad_repo.status().message().rfind("M.tsv:2: column 'repository'", 0), 0u) << bad_repo.status().message();
  auto no_column = parse_manifest("repository\tcommit\n", "M.tsv");
  EXPECT_EQ(no_column.status().message().rfind("M.tsv:1: header has no column 'license'", 0), 0u)
      << no_column.status().message();
}

}  // namespace
}  // namespace clgen::corpus
