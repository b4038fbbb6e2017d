// End-to-end tests of `clgen corpus add | stats | export` on real directories
// and git repositories built by the test, including killed and interrupted runs.
#include <gtest/gtest.h>
#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "corpus/assemble.h"
#include "support/files.h"
#include "support/sha256.h"
#include "support/sqlite.h"
#include "tests/cli/run_command.h"
#include "tests/corpus/test_util.h"

namespace clgen::testing {
namespace {

namespace fs = std::filesystem;

nlohmann::json stats_json(const std::string& ws) {
  CommandResult r = run_clgen({"--workspace", ws, "corpus", "stats", "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out, nullptr, false);
}

int64_t count_rows(const std::string& db_path, const std::string& table) {
  auto db = Database::open(db_path);
  if (!db.ok()) return -1;
  auto st = db->prepare("SELECT COUNT(*) FROM " + table);
  if (!st.ok()) return -1;  // table not created yet
  auto row = st->step();
  return row.ok() && *row ? st->column_int(0) : -1;
}

// The text of the content stored for `path` with its stored includes inlined again.
std::string assembled_text_of(const std::string& db_path, const std::string& path) {
  auto db = Database::open(db_path);
  auto st = db->prepare("SELECT sha256 FROM content_origins WHERE path = ?1");
  EXPECT_TRUE(st->bind(1, std::string_view(path)).ok());
  auto row = st->step();
  if (!row.ok() || !*row) return "<not stored>";
  auto text = corpus::assemble_text(*db, st->column_text(0));
  return text.ok() ? *text : "<" + text.status().message() + ">";
}

std::string stored_text_of(const std::string& db_path, const std::string& path_suffix) {
  auto db = Database::open(db_path);
  auto st = db->prepare(
      "SELECT c.text FROM content_files c JOIN content_origins o USING (sha256) WHERE o.path = ?1");
  EXPECT_TRUE(st.ok());
  EXPECT_TRUE(st->bind(1, std::string_view(path_suffix)).ok());
  auto row = st->step();
  return row.ok() && *row ? st->column_text(0) : "<not stored>";
}

// A directory holding one of every kind of bad input next to good kernels.
void make_mixed_directory(const std::string& dir, const std::string& outside) {
  write_text(dir + "/good.cl", "kernel void A(global int* a) { a[0] = 1; }\n");
  write_text(dir + "/copy/good.cl", "kernel void A(global int* a) { a[0] = 1; }\n");
  write_text(dir + "/other.ocl", "kernel void B(global int* a) { a[0] = 2; }\n");
  write_text(dir + "/big.cl", "// " + std::string(5 << 20, 'x') + "\n");
  write_text(dir + "/binary.cl", std::string("kernel\0\x01\x02", 9));
  // Latin-1 in code (a comment's would be read as Windows-1252): still refused.
  write_text(dir + "/latin1.cl", "// caf\xe9\nkernel void C\xe9() {}\n");
  write_text(dir + "/empty.cl", "");
  write_text(dir + "/notes.txt", "not a kernel\n");
  write_text(dir + "/helper.h", "int helper;\n");
  write_text(outside, "kernel void Outside() {}\n");
  fs::create_symlink(outside, dir + "/escape.cl");
}

TEST(CorpusAdd, ImportsADirectoryAndRecordsWhyFilesWereSkipped) {
  TempDir tmp;
  make_mixed_directory(tmp / "src", tmp / "outside.cl");
  std::string ws = tmp / "ws";
  CommandResult r = run_clgen({"--workspace", ws, "corpus", "add", tmp / "src"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json s = stats_json(ws);
  EXPECT_EQ(s["files"], 2) << s.dump();  // good.cl twice (one content) and other.ocl
  EXPECT_EQ(s["origins"], 3);
  EXPECT_EQ(s["sources"], 1);
  EXPECT_EQ(s["skipped"], nlohmann::json({{"binary", 1}, {"empty", 1}, {"invalid_utf8", 1},
                                          {"symlink_outside_root", 1}, {"too_large", 1}}));
  EXPECT_EQ(stored_text_of(ws + "/clgen.db", "escape.cl"), "<not stored>");
}

TEST(CorpusStats, CountsOnlyTheNewestPreprocessorVersion) {
  TempDir tmp;
  std::string ws = tmp / "ws";
  fs::create_directories(ws);
  {
    auto db = Database::open(ws + "/clgen.db");
    ASSERT_TRUE(db.ok()) << db.status().message();
    // Two versions' results for the same files, the older one first.
    ASSERT_TRUE(db->exec(
        "CREATE TABLE preprocessed(content_sha256 TEXT NOT NULL, preprocessor_version TEXT NOT NULL, "
        "status TEXT NOT NULL, category TEXT, reason TEXT, normalized_text TEXT, normalized_sha256 TEXT, "
        "instruction_count INTEGER, PRIMARY KEY(content_sha256, preprocessor_version));"
        "INSERT INTO preprocessed VALUES('a', 'v1', 'rejected', 'parse_error', '', NULL, NULL, 0);"
        "INSERT INTO preprocessed VALUES('b', 'v1', 'rejected', 'parse_error', '', NULL, NULL, 0);"
        "INSERT INTO preprocessed VALUES('a', 'v2', 'ok', NULL, NULL, 'x', 'x', 5);"
        "INSERT INTO preprocessed VALUES('b', 'v2', 'rejected', 'parse_error', '', NULL, NULL, 0);").ok());
  }
  nlohmann::json s = stats_json(ws);
  EXPECT_EQ(s["preprocessed"], nlohmann::json({{"ok", 1}, {"rejected/parse_error", 1}})) << s.dump();
}

TEST(CorpusAdd, GlobWidensAndMaxFileSizeNarrowsTheSelection) {
  TempDir tmp;
  make_mixed_directory(tmp / "src", tmp / "outside.cl");
  std::string ws = tmp / "ws";
  CommandResult r = run_clgen({"--workspace", ws, "corpus", "add", tmp / "src", "--glob", "*.h",
                               "--max-file-size", "6M"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json s = stats_json(ws);
  EXPECT_EQ(s["files"], 4) << s.dump();  // + helper.h + big.cl
  EXPECT_EQ(s["skipped"].count("too_large"), 0u);
}

TEST(CorpusAdd, RerunStoresNothingTwice) {
  TempDir tmp;
  make_mixed_directory(tmp / "src", tmp / "outside.cl");
  std::string ws = tmp / "ws";
  ASSERT_EQ(run_clgen({"--workspace", ws, "corpus", "add", tmp / "src"}).exit_code, 0);
  StoreSnapshot first = snapshot_store(ws + "/clgen.db");
  CommandResult r = run_clgen({"--workspace", ws, "corpus", "add", tmp / "src"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("(0 new"), std::string::npos) << r.out;
  EXPECT_TRUE(first == snapshot_store(ws + "/clgen.db"));
}

TEST(CorpusAdd, ImportsGitRepositoriesAtHeadWithIncludesConfinedToTheRepository) {
  TempDir tmp;
  write_text(tmp / "secret.h", "SECRET OUTSIDE THE REPOSITORY\n");
  std::string repo = tmp / "repo";
  make_git_repo(repo,
                {{"kernels/main.cl",
                  "#include \"nested.h\"\n#include \"missing.h\"\n#include \"../../etc/passwd\"\n"
                  "#include \"cycle_a.h\"\nkernel void A() {}\n"},
                 {"kernels/nested.h", "#include \"inner.h\"\nint nested;\n"},
                 {"include/inner.h", "int inner;\n"},
                 {"kernels/cycle_a.h", "#include \"cycle_b.h\"\nint a;\n"},
                 {"kernels/cycle_b.h", "#include \"cycle_a.h\"\nint b;\n"},
                 {"kernels/uses_link.cl", "#include \"link.h\"\nkernel void B() {}\n"},
                 {"big.cl", std::string(5 << 20, 'y')},
                 {"binary.cl", std::string("\x7f" "ELF\0\0\0", 7)},
                 {"shared.cl", "kernel void Shared() {}\n"}},
                {{"kernels/link.h", "../../secret.h"}, {"escape.cl", "../secret.h"}});
  write_text(repo + "/kernels/main.cl", "work tree edit, not committed\n");
  std::string ws = tmp / "ws";
  CommandResult r = run_clgen({"--workspace", ws, "corpus", "add", repo});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  std::string db = ws + "/clgen.db";
  // Stored raw, from the commit (not the work tree); the includes come back from the store.
  EXPECT_EQ(stored_text_of(db, "kernels/main.cl"),
            "#include \"nested.h\"\n#include \"missing.h\"\n#include \"../../etc/passwd\"\n"
            "#include \"cycle_a.h\"\nkernel void A() {}\n");
  EXPECT_EQ(stored_text_of(db, "include/inner.h"), "int inner;\n");
  EXPECT_EQ(assembled_text_of(db, "kernels/main.cl"),
            "int inner;\nint nested;\n#include \"missing.h\"\n#include \"../../etc/passwd\"\n"
            "int b;\nint a;\nkernel void A() {}\n");
  EXPECT_EQ(assembled_text_of(db, "kernels/uses_link.cl"), "#include \"link.h\"\nkernel void B() {}\n");
  nlohmann::json s = stats_json(ws);
  // Kernels main.cl, uses_link.cl, shared.cl; includes nested.h, inner.h, cycle_a.h, cycle_b.h.
  EXPECT_EQ(s["files"], 7) << s.dump();
  EXPECT_EQ(s["kernel_files"], 3);
  EXPECT_EQ(s["skipped"], nlohmann::json({{"binary", 1}, {"symlink_outside_root", 1}, {"too_large", 1}}));
  EXPECT_EQ(s["by_source"][0]["kind"], "git");
  EXPECT_EQ(s["by_source"][0]["commit"].get<std::string>().size(), 40u);
  EXPECT_NE(r.out.find("1 refused"), std::string::npos) << r.out;
}

TEST(CorpusAdd, StoresADuplicateFileOnceWithBothOrigins) {
  TempDir tmp;
  make_git_repo(tmp / "one", {{"shared.cl", "kernel void S() {}\n"}, {"a.cl", "kernel void A() {}\n"}});
  make_git_repo(tmp / "two", {{"lib/shared.cl", "kernel void S() {}\n"}});
  std::string ws = tmp / "ws";
  CommandResult r = run_clgen({"--workspace", ws, "corpus", "add", tmp / "one", tmp / "two"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json s = stats_json(ws);
  EXPECT_EQ(s["files"], 2);
  EXPECT_EQ(s["origins"], 3);
  EXPECT_EQ(s["sources"], 2);
  StoreSnapshot snap = snapshot_store(ws + "/clgen.db");
  std::string sha = sha256_hex("kernel void S() {}\n");
  int origins_of_shared = 0;
  for (const auto& o : snap.origins) origins_of_shared += o.find(sha) != std::string::npos;
  EXPECT_EQ(origins_of_shared, 2);

  // Git repositories already imported at their HEAD are not read again.
  r = run_clgen({"--workspace", ws, "corpus", "add", tmp / "one"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("unchanged since its last import"), std::string::npos) << r.out;
  EXPECT_TRUE(snap == snapshot_store(ws + "/clgen.db"));
}

TEST(CorpusAdd, ImportsASingleFile) {
  TempDir tmp;
  write_text(tmp / "d/k.kernel", "#include \"h.h\"\nkernel void K() {}\n");
  write_text(tmp / "d/h.h", "int h;\n");
  std::string ws = tmp / "ws";
  CommandResult r = run_clgen({"--workspace", ws, "corpus", "add", tmp / "d/k.kernel"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(stored_text_of(ws + "/clgen.db", "k.kernel"), "#include \"h.h\"\nkernel void K() {}\n");
  EXPECT_EQ(stored_text_of(ws + "/clgen.db", "h.h"), "int h;\n");  // its include, stored beside it
  EXPECT_EQ(assembled_text_of(ws + "/clgen.db", "k.kernel"), "int h;\nkernel void K() {}\n");
}

TEST(CorpusAdd, MissingPathFailsAndKeepsWhatWasStored) {
  TempDir tmp;
  write_text(tmp / "src/a.cl", "kernel void A() {}\n");
  std::string ws = tmp / "ws";
  CommandResult r = run_clgen({"--workspace", ws, "corpus", "add", tmp / "src", tmp / "nope"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("nope"), std::string::npos) << r.err;
  EXPECT_EQ(stats_json(ws)["files"], 1);
}

TEST(CorpusAdd, WithoutPathsIsAUsageError) {
  TempDir tmp;
  CommandResult r = run_clgen({"--workspace", tmp / "ws", "corpus", "add"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(run_clgen({"--workspace", tmp / "ws", "corpus"}).exit_code, 2);
}

TEST(CorpusAdd, UnknownPackageIsAUsageErrorNamingTheKnownOnes) {
  TempDir tmp;
  CommandResult r = run_clgen({"--workspace", tmp / "ws", "corpus", "add", "--package", "no-such-pkg"});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("no-such-pkg"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("hashcat-data"), std::string::npos) << r.err;
}

void make_many_files(const std::string& dir, int n) {
  for (int i = 0; i < n; ++i)
    write_text(dir + "/d" + std::to_string(i % 50) + "/k" + std::to_string(i) + ".cl",
               "kernel void K" + std::to_string(i) + "(global int* a) { a[0] = " + std::to_string(i) + "; }\n");
}

TEST(CorpusAdd, KilledRunResumesToTheSameStoreAsAnUninterruptedRun) {
  TempDir tmp;
  make_many_files(tmp / "src", 3000);
  std::string reference = tmp / "reference";
  ASSERT_EQ(run_clgen({"--workspace", reference, "corpus", "add", tmp / "src"}).exit_code, 0);

  std::string ws = tmp / "ws";
  pid_t pid = spawn({CLGEN_BINARY, "--workspace", ws, "corpus", "add", tmp / "src", "--batch-size", "3"},
                    tmp / "killed.log");
  ASSERT_TRUE(wait_until([&] { return count_rows(ws + "/clgen.db", "content_files") > 0; }, 60));
  kill_and_wait(pid, SIGKILL);
  int64_t at_kill = count_rows(ws + "/clgen.db", "content_files");
  std::printf("killed with %lld of 3000 files stored\n", static_cast<long long>(at_kill));

  CommandResult r = run_clgen({"--workspace", ws, "corpus", "add", tmp / "src"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  StoreSnapshot resumed = snapshot_store(ws + "/clgen.db");
  EXPECT_EQ(resumed.contents.size(), 3000u);
  EXPECT_TRUE(resumed == snapshot_store(reference + "/clgen.db"));
}

TEST(CorpusAdd, SigintStopsAfterACommittedBatch) {
  TempDir tmp;
  make_many_files(tmp / "src", 4000);
  std::string ws = tmp / "ws";
  pid_t pid = spawn({CLGEN_BINARY, "--workspace", ws, "corpus", "add", tmp / "src", "--batch-size", "2"},
                    tmp / "run.log");
  ASSERT_TRUE(wait_until([&] { return count_rows(ws + "/clgen.db", "content_files") > 0; }, 60));
  int code = kill_and_wait(pid, SIGINT);
  auto log = read_file(tmp / "run.log");
  int64_t stored = count_rows(ws + "/clgen.db", "content_files");
  if (code == 0) GTEST_SKIP() << "the import finished before SIGINT arrived";
  EXPECT_EQ(code, 1) << *log;
  EXPECT_NE(log->find("interrupted"), std::string::npos) << *log;
  EXPECT_GT(stored, 0);
  EXPECT_EQ(stored % 2, 0) << "a batch was stored partly";
  // The source is not marked as completely imported.
  EXPECT_EQ(stats_json(ws)["by_source"][0]["complete"], false);
  ASSERT_EQ(run_clgen({"--workspace", ws, "corpus", "add", tmp / "src"}).exit_code, 0);
  EXPECT_EQ(count_rows(ws + "/clgen.db", "content_files"), 4000);
}

TEST(CorpusExport, WritesFilesNamedByTheirHashAndAManifest) {
  TempDir tmp;
  make_git_repo(tmp / "one", {{"shared.cl", "kernel void S() {}\n"}, {"a.cl", "kernel void A() {}\n"}});
  make_git_repo(tmp / "two", {{"shared.cl", "kernel void S() {}\n"}});
  std::string ws = tmp / "ws";
  ASSERT_EQ(run_clgen({"--workspace", ws, "corpus", "add", tmp / "one", tmp / "two"}).exit_code, 0);
  CommandResult r = run_clgen({"--workspace", ws, "corpus", "export", tmp / "out"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  int cl_files = 0;
  for (const auto& e : fs::directory_iterator(tmp / "out")) {
    if (e.path().extension() != ".cl") continue;
    ++cl_files;
    EXPECT_EQ(e.path().stem().string(), sha256_hex(*read_file(e.path().string())));
  }
  EXPECT_EQ(cl_files, 2);
  auto manifest = nlohmann::json::parse(*read_file(tmp / "out/manifest.json"));
  ASSERT_EQ(manifest.size(), 2u);
  std::string shared = sha256_hex("kernel void S() {}\n");
  for (const auto& entry : manifest)
    if (entry["sha256"] == shared) {
      EXPECT_EQ(entry["origins"].size(), 2u);
    }
  std::string csv = *read_file(tmp / "out/manifest.csv");
  EXPECT_EQ(std::count(csv.begin(), csv.end(), '\n'), 4);  // header + 3 origins
}

}  // namespace
}  // namespace clgen::testing

namespace clgen::testing {
namespace {

TEST(CorpusStats, CountsPreprocessedKernelsByStatusWhenThatTableExists) {
  TempDir tmp;
  write_text(tmp / "src/a.cl", "kernel void A() {}\n");
  write_text(tmp / "src/b.cl", "kernel void B() {}\n");
  std::string ws = tmp / "ws";
  ASSERT_EQ(run_clgen({"--workspace", ws, "corpus", "add", tmp / "src"}).exit_code, 0);
  EXPECT_TRUE(stats_json(ws)["preprocessed"].empty());
  {
    auto db = Database::open(ws + "/clgen.db");
    ASSERT_TRUE(db.ok());
    // The preprocess module's table, as its schema contract defines it.
    ASSERT_TRUE(db->exec(R"sql(
      CREATE TABLE preprocessed (content_sha256 TEXT NOT NULL, preprocessor_version TEXT NOT NULL,
        status TEXT NOT NULL, category TEXT, reason TEXT, normalized_text TEXT,
        normalized_sha256 TEXT, instruction_count INTEGER,
        PRIMARY KEY (content_sha256, preprocessor_version));
      INSERT INTO preprocessed (content_sha256, preprocessor_version, status, category)
        SELECT sha256, '1', CASE WHEN text LIKE '%A()%' THEN 'ok' ELSE 'rejected' END,
               CASE WHEN text LIKE '%A()%' THEN NULL ELSE 'no_kernel' END FROM content_files;
    )sql").ok());
  }
  nlohmann::json s = stats_json(ws);
  EXPECT_EQ(s["preprocessed"], nlohmann::json({{"ok", 1}, {"rejected/no_kernel", 1}})) << s.dump();
  CommandResult r = run_clgen({"--workspace", ws, "corpus", "stats"});
  EXPECT_NE(r.out.find("rejected/no_kernel"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace clgen::testing

namespace clgen::testing {
namespace {

TEST(CorpusCli, EverySubcommandHasHelp) {
  CommandResult group = run_clgen({"corpus", "--help"});
  EXPECT_EQ(group.exit_code, 0) << group.err;
  for (const char* cmd : {"add", "mine-github", "stats", "export"}) {
    EXPECT_NE(group.out.find(cmd), std::string::npos) << group.out;
    CommandResult r = run_clgen({"corpus", cmd, "--help"});
    EXPECT_EQ(r.exit_code, 0) << cmd << ": " << r.err;
  }
  EXPECT_EQ(run_clgen({"corpus", "mine-github", "--per-page", "500"}).exit_code, 2);
  EXPECT_EQ(run_clgen({"corpus", "export"}).exit_code, 2);  // DIR is required
}

}  // namespace
}  // namespace clgen::testing
