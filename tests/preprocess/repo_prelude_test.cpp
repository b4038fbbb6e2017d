// Tests of the repository prelude (a rejected kernel file gets the files of
// its repository that define its missing names put before it) and of the
// raw-string unwrapping of kernel files, alone and through `corpus preprocess`.
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "corpus/preprocess/raw_string.h"
#include "corpus/preprocess/repo_prelude.h"
#include "corpus/preprocess/store.h"
#include "corpus/store.h"
#include "support/sha256.h"
#include "support/sqlite.h"

namespace clgen::preprocess {
namespace {

// A file of a fixture repository: (repository, path, text).
struct FixtureFile {
  std::string repository, path, text;
};

// A workspace database holding the files as imported kernel files of their
// repositories (one commit each).
Database fixture_db(const std::vector<FixtureFile>& files) {
  auto db = Database::open(":memory:");
  EXPECT_TRUE(db.ok());
  EXPECT_TRUE(corpus::ensure_corpus_schema(*db).ok());
  for (const FixtureFile& f : files) {
    std::string sha = sha256_hex(f.text);
    auto repo =
        db->prepare("INSERT OR IGNORE INTO repositories (source, kind, commit_sha) VALUES (?1, 'snapshot', 'c')");
    EXPECT_TRUE(repo.ok() && repo->bind(1, "snapshot:" + f.repository).ok() && repo->run().ok());
    auto content = db->prepare(
        "INSERT OR IGNORE INTO content_files (sha256, text, size, language, first_seen) "
        "VALUES (?1, ?2, ?3, 'opencl', 'now')");
    EXPECT_TRUE(content.ok() && content->bind(1, sha).ok() && content->bind(2, f.text).ok() &&
                content->bind(3, static_cast<int64_t>(f.text.size())).ok() && content->run().ok());
    auto origin = db->prepare(
        "INSERT INTO content_origins (sha256, repository_id, commit_sha, path, role) "
        "SELECT ?1, id, 'c', ?2, 'kernel' FROM repositories WHERE source = ?3");
    EXPECT_TRUE(origin.ok() && origin->bind(1, sha).ok() && origin->bind(2, f.path).ok() &&
                origin->bind(3, "snapshot:" + f.repository).ok() && origin->run().ok());
  }
  return std::move(*db);
}

CorpusPreprocessOptions quiet(unsigned threads = 2, bool prelude = true) {
  CorpusPreprocessOptions o;
  o.threads = threads;
  o.batch_size = 2;
  o.progress = false;
  o.repository_prelude = prelude;
  return o;
}

// Stored rows of content `text`: "kernel|status|prelude" each.
std::vector<std::string> rows_of(Database& db, const std::string& text) {
  auto st = db.prepare(
      "SELECT kernel, status, COALESCE(prelude, '') FROM preprocessed WHERE content_sha256 = ?1 "
      "ORDER BY kernel");
  EXPECT_TRUE(st.ok());
  EXPECT_TRUE(st->bind(1, sha256_hex(text)).ok());
  std::vector<std::string> out;
  while (*st->step()) out.push_back(st->column_text(0) + "|" + st->column_text(1) + "|" + st->column_text(2));
  return out;
}

// The files as a fixture database after `corpus preprocess` with `options`;
// *stats (when given) receives the run's statistics.
Database preprocessed(const std::vector<FixtureFile>& files, const CorpusPreprocessOptions& options = quiet(),
                      CorpusPreprocessStats* stats = nullptr) {
  Database db = fixture_db(files);
  auto run = preprocess_corpus(db, options);
  EXPECT_TRUE(run.ok()) << run.status().message();
  if (run.ok() && stats) *stats = *run;
  return db;
}

// The rows stored for `text` (rows_of) after `corpus preprocess` of the files.
std::vector<std::string> rows_after(const std::vector<FixtureFile>& files, const std::string& text) {
  Database db = preprocessed(files);
  return rows_of(db, text);
}

// True when the only row stored for `text` is the whole file's rejection.
bool rejected_alone(Database& db, const std::string& text) {
  std::vector<std::string> rows = rows_of(db, text);
  return rows.size() == 1 && rows[0].rfind("|rejected|", 0) == 0;
}

// A complex type used through its members: defining the name as a scalar
// (what missing-name inference would do) cannot make this compile.
const std::string kTypes =
    "typedef struct { float re; float im; } cplx_t;\n"
    "cplx_t cmul(cplx_t a, cplx_t b) { cplx_t c; c.re = a.re * b.re - a.im * b.im; "
    "c.im = a.re * b.im + a.im * b.re; return c; }\n";
const std::string kUser =
    "__kernel void square(__global cplx_t* z) {\n"
    "  int i = get_global_id(0);\n"
    "  z[i] = cmul(z[i], z[i]);\n"
    "  z[i].re += 1.0f;\n"
    "}\n";

TEST(DefinedNames, FindsTypesMacrosFunctionsEnumConstantsAndTablesButNotLocals) {
  std::vector<std::string> names = defined_names(
      "#define WIDTH 16\n"
      "typedef struct point { float x; } point_t;\n"
      "enum mode { FAST, SLOW = 2 };\n"
      "__constant float table[4] = {1, 2, 3, 4};\n"
      "typedef float (*op_fn)(float);\n"
      "// typedef int commented_t;\n"
      "float helper(float v) { float local_v = v; return local_v; }\n");
  std::vector<std::string> expected = {"FAST", "SLOW", "WIDTH", "helper", "mode", "op_fn", "point", "point_t", "table"};
  EXPECT_EQ(names, expected);
}

TEST(MissingName, ReadsTheQuotedNameOfMissingNameRejectionsOnly) {
  EXPECT_EQ(missing_name(category::kUnknownTypeName, "input.cl:3:5: unknown type name 'cplx_t'"), "cplx_t");
  EXPECT_EQ(missing_name(category::kUndeclaredIdentifier, "input.cl:1:2: use of undeclared identifier 'N'"), "N");
  EXPECT_EQ(missing_name(category::kSemanticError, "input.cl:1:2: member reference base type 'float'"), "");
}

TEST(RawString, UnwrapsAWholeFileRawStringBetweenComments) {
  EXPECT_EQ(strip_raw_string_wrapper("// header\nR\"(\n__kernel void k() {}\n)\"\n// End of the raw string\n"),
            "\n__kernel void k() {}\n");
}

TEST(RawString, JoinsAdjacentLiteralsWithADelimiter) {
  EXPECT_EQ(strip_raw_string_wrapper("R\"===(int a;\n)===\"\n\tR\"===(int b; // )\" stays\n)===\"\n"),
            "int a;\nint b; // )\" stays\n");
}

TEST(RawString, LeavesOrdinaryOpenClAlone) {
  const std::string code = "__constant char* s = R\"(x)\";\n__kernel void k() {}\n";
  EXPECT_FALSE(raw_string_contents(code).has_value());
  EXPECT_EQ(strip_raw_string_wrapper(code), code);
  EXPECT_FALSE(raw_string_contents("R\"(never closed\n").has_value());
  EXPECT_FALSE(raw_string_contents("// only a comment\n").has_value());
}

TEST(CString, UnwrapsDeclarationsOfStringLiteralsAndUndoesTheirEscapes) {
  // clBLAS's templates: literals spanning lines, escaped quotes and newlines.
  const std::string file =
      "/* license */\nstatic const char *axpy_kernel = \"\n__kernel void k(__global float* a) {\n"
      "  printf(\\\"%d\\\\n\\\", 1); a[0] = 1;\n}\n\\n\";\n"
      "const char two[] = \"int b;\" \" int c;\";\n";
  EXPECT_EQ(strip_raw_string_wrapper(file),
            "\n__kernel void k(__global float* a) {\n  printf(\"%d\\n\", 1); a[0] = 1;\n}\n\n"
            "int b; int c;\n");
}

TEST(CString, LeavesFilesWithAnythingElseAlone) {
  EXPECT_FALSE(c_string_contents("const char* s = \"x\";\n__kernel void k() {}\n").has_value());
  EXPECT_FALSE(c_string_contents("__constant char s[] = \"x\";\n").has_value());
  EXPECT_FALSE(c_string_contents("static const char *s = \"never closed\n").has_value());
  EXPECT_FALSE(c_string_contents("static const int n = 4;\n").has_value());
}

TEST(RepositoryPrelude, AcceptsAKernelFileOnlyWithTheSiblingThatDefinesItsType) {
  std::vector<FixtureFile> files = {{"o/a", "cl/types.h", kTypes}, {"o/a", "cl/square.cl", kUser}};
  CorpusPreprocessStats off, on;
  Database without = preprocessed(files, quiet(2, false), &off);
  EXPECT_TRUE(rejected_alone(without, kUser));
  Database with = preprocessed(files, quiet(), &on);
  EXPECT_EQ(rows_of(with, kUser), std::vector<std::string>{"square|ok|cl/types.h\n"});
  EXPECT_EQ(on.files_prelude, 1u);
  EXPECT_NE(on.version, off.version);
  // The stored kernel carries the helper it calls, renamed, with the type.
  auto st = with.prepare("SELECT normalized_text FROM preprocessed WHERE kernel = 'square'");
  ASSERT_TRUE(st.ok());
  ASSERT_TRUE(*st->step());
  EXPECT_NE(st->column_text(0).find("float re;"), std::string::npos) << st->column_text(0);
}

TEST(RepositoryPrelude, NeverTakesADefinitionFromAnotherRepository) {
  CorpusPreprocessStats stats;
  Database db = preprocessed({{"o/a", "cl/square.cl", kUser}, {"o/b", "cl/types.h", kTypes}}, quiet(), &stats);
  EXPECT_TRUE(rejected_alone(db, kUser));
  EXPECT_EQ(stats.files_prelude, 0u);
}

TEST(RepositoryPrelude, PutsADefinersOwnDependencyBeforeItAndKeepsOnlyTheFilesKernels) {
  const std::string scalar = "typedef struct { float v; } scalar_t;\n";
  const std::string pair =
      "typedef struct { scalar_t a; scalar_t b; } pair_t;\n"
      "__kernel void pair_kernel(__global pair_t* p) { p[get_global_id(0)].a.v = 3.0f; }\n";
  const std::string user = "__kernel void use(__global pair_t* p) { p[get_global_id(0)].b.v += p[0].a.v; }\n";
  Database db = preprocessed({{"o/a", "inc/scalar.h", scalar}, {"o/a", "k/pair.cl", pair}, {"o/a", "k/use.cl", user}});
  // pair.cl's kernel is pair.cl's (stored under it after its own prelude),
  // not use.cl's.
  EXPECT_EQ(rows_of(db, user), std::vector<std::string>{"use|ok|inc/scalar.h\nk/pair.cl\n"});
  EXPECT_EQ(rows_of(db, pair), std::vector<std::string>{"pair_kernel|ok|inc/scalar.h\n"});
}

TEST(RepositoryPrelude, PrependedFilesBringTheirOwnIncludes) {
  const std::string base = "typedef struct { float v; } base_t;\n";
  const std::string pair = "#include \"inc/base.h\"\ntypedef struct { base_t a; base_t b; } pair_t;\n";
  const std::string user = "__kernel void use(__global pair_t* p) { p[get_global_id(0)].b.v += p[0].a.v; }\n";
  EXPECT_EQ(rows_after({{"o/a", "inc/base.h", base}, {"o/a", "lib/pair.h", pair}, {"o/a", "k/use.cl", user}}, user),
            std::vector<std::string>{"use|ok|lib/pair.h\n"});
}

TEST(RepositoryPrelude, StoresNoKernelOfTheFilesThePreludeIncludes) {
  const std::string types = kTypes + "#include \"extra.cl\"\n";
  const std::string extra = "__kernel void extra_k(__global cplx_t* z) { z[0].im = 0.0f; }\n";
  EXPECT_EQ(
      rows_after({{"o/a", "cl/types.h", types}, {"o/a", "cl/extra.cl", extra}, {"o/a", "cl/square.cl", kUser}}, kUser),
      std::vector<std::string>{"square|ok|cl/types.h\n"});
}

TEST(RepositoryPrelude, NeverUsesAFileThatIncludesTheRejectedFileAsItsPrelude) {
  // all.cl defines the type and then includes square.cl: it is square.cl's
  // includer (where its kernels are compiled), not a dependency.
  // The guard would let the copy inlined through all.cl stand in for the
  // file's own text.
  const std::string square = "#ifndef SQUARE_CL\n#define SQUARE_CL\n" + kUser + "#endif\n";
  const std::string all = kTypes + "#include \"square.cl\"\n";
  Database db = preprocessed({{"o/a", "cl/all.cl", all}, {"o/a", "cl/square.cl", square}});
  EXPECT_TRUE(rejected_alone(db, square));
  EXPECT_EQ(rows_of(db, all), std::vector<std::string>{"square|ok|"});
}

TEST(RepositoryPrelude, TriesTheNextDefinerWhenTheBestOneBringsAnErrorOfItsOwn) {
  // Ranked first (same directory, smaller), but it does not compile.
  const std::string broken = "typedef struct { float re; float im; } cplx_t;\nthis is not C\n";
  EXPECT_EQ(
      rows_after({{"o/a", "cl/broken.h", broken}, {"o/a", "other/types.h", kTypes}, {"o/a", "cl/square.cl", kUser}},
                 kUser),
      std::vector<std::string>{"square|ok|other/types.h\n"});
}

TEST(RepositoryPrelude, UnwrapsRawStringFilesAndTheirDefiners) {
  const std::string common = "// common\nR\"(\n" + kTypes + ")\"\n";
  const std::string user = "// user\nR\"(\n" + kUser + ")\"\n// End of the C++11 raw string literal\n";
  EXPECT_EQ(rows_after({{"o/a", "k/common.opencl", common}, {"o/a", "k/square.opencl", user}}, user),
            std::vector<std::string>{"square|ok|k/common.opencl\n"});
}

TEST(RepositoryPrelude, GivesTheSameRowsWithOneThreadAndWithTwo) {
  const std::string scalar = "typedef struct { float v; } scalar_t;\n#define SCALE 2.0f\n";
  std::vector<FixtureFile> files = {{"o/a", "inc/scalar.h", scalar}, {"o/a", "inc/types.h", kTypes}};
  for (int i = 0; i < 6; ++i) {
    std::string k = "__kernel void k" + std::to_string(i) +
                    "(__global scalar_t* s, __global cplx_t* z) {\n"
                    "  s[get_global_id(0)].v *= SCALE + " +
                    std::to_string(i) +
                    ";\n"
                    "  z[0] = cmul(z[0], z[1]);\n}\n";
    files.push_back({"o/a", "k/k" + std::to_string(i) + ".cl", k});
  }
  auto all_rows = [](Database& db) {
    auto st = db.prepare(
        "SELECT content_sha256, kernel, status, COALESCE(normalized_text, ''), "
        "COALESCE(prelude, '') FROM preprocessed ORDER BY content_sha256, kernel");
    EXPECT_TRUE(st.ok());
    std::vector<std::string> out;
    while (*st->step()) {
      out.push_back(st->column_text(0) + "|" + st->column_text(1) + "|" + st->column_text(2) + "|" +
                    st->column_text(3) + "|" + st->column_text(4));
    }
    return out;
  };
  CorpusPreprocessStats a;
  Database one = preprocessed(files, quiet(1), &a), two = preprocessed(files, quiet(2));
  EXPECT_EQ(a.files_prelude, 6u);  // every kernel file needs both headers
  EXPECT_EQ(all_rows(one), all_rows(two));
}

}  // namespace
}  // namespace clgen::preprocess
