// End-to-end tests of `clgen corpus add` on snapshots (OWNER+NAME folders with
// a MANIFEST.tsv) as a directory, a .tar.xz and a .zip, on hostile archive
// entries, and of `corpus stats` grouping by repository, domain and license.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "support/sha256.h"
#include "support/sqlite.h"
#include "tests/cli/run_command.h"
#include "tests/corpus/test_util.h"

namespace clgen::testing {
namespace {

namespace fs = std::filesystem;

using Entries = std::vector<std::pair<std::string, std::string>>;

// Four repositories; dave/four has no manifest row.
const Entries kSnapshot = {
    {"alice+one/kernels/add.cl", "#include \"common.h\"\nkernel void add(global int* a) { a[0] += N; }\n"},
    {"alice+one/kernels/common.h", "#define N 4\n"},
    {"alice+one/kernels/helper.clh", "int twice(int x) { return 2 * x; }\n"},  // no "kernel": a helper
    {"bob+two/src/MUL.CL", "__kernel void mul(__global float* a) { a[0] *= 2; }\n"},
    {"bob+two/src/scale.opencl", "__kernel void scale(__global float* a) { a[0] *= 3; }\n"},
    {"carol+three/k.ocl", "kernel void k() {}\n"},
    {"carol+three/notes.txt", "not a kernel file\n"},
    {"dave+four/x.cl", "kernel void x() {}\n"},
};

// Columns in another order than the snapshot's own: they are found by name.
const char* kManifest =
    "domain\trepository\tlicense\tcommit\tfiles_kept\tbytes_kept\n"
    "cryptography\talice/one\tMIT\taaaa\t3\t100\n"
    "machine learning\tbob/two\tApache-2.0\tbbbb\t2\t100\n"
    "machine learning\tcarol/three\tMIT\tcccc\t1\t20\n";

nlohmann::json stats_json(const std::string& ws) {
  CommandResult r = run_clgen({"--workspace", ws, "corpus", "stats", "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out, nullptr, false);
}

void write_tree(const std::string& dir, const Entries& entries) {
  for (const auto& [path, text] : entries) write_text(dir + "/" + path, text);
}

std::string text_of(const std::string& path) {
  for (const auto& [p, t] : kSnapshot)
    if (p == path) return t;
  return "";
}

int64_t count(const std::string& db_path, const std::string& sql) {
  auto db = Database::open(db_path);
  auto st = db->prepare(sql);
  EXPECT_TRUE(st.ok()) << sql;
  auto row = st->step();
  return row.ok() && *row ? st->column_int(0) : -1;
}

TEST(SnapshotImport, TarXzZipAndDirectoryGiveTheSameStore) {
  TempDir tmp;
  write_text(tmp / "MANIFEST.tsv", kManifest);
  write_tree(tmp / "dir", kSnapshot);
  write_archive(tmp / "snap.tar.xz", "tar.xz", kSnapshot);
  write_archive(tmp / "snap.zip", "zip", kSnapshot);
  std::map<std::string, StoreSnapshot> stores;
  for (const char* input : {"dir", "snap.tar.xz", "snap.zip"}) {
    std::string ws = tmp / (std::string("ws-") + input);
    CommandResult r = run_clgen({"--workspace", ws, "corpus", "add", tmp / input, "--manifest", tmp / "MANIFEST.tsv"});
    ASSERT_EQ(r.exit_code, 0) << input << ": " << r.err;
    EXPECT_NE(r.err.find("dave/four: no row"), std::string::npos) << r.err;
    stores[input] = snapshot_store(ws + "/clgen.db");
  }
  const StoreSnapshot& dir = stores["dir"];
  EXPECT_TRUE(dir == stores["snap.tar.xz"]);
  EXPECT_TRUE(dir == stores["snap.zip"]);

  // Every .cl/.CL/.clh/.ocl/.opencl file and the included common.h, not notes.txt.
  auto origin = [](const std::string& repo, const std::string& commit, const std::string& path,
                   const std::string& folder, const std::string& role) {
    return "snapshot:" + repo + "|" + commit + "|" + path + "|" + sha256_hex(text_of(folder + "/" + path)) + "|" + role;
  };
  std::vector<std::string> expected = {
      origin("alice/one", "aaaa", "kernels/add.cl", "alice+one", "kernel"),
      origin("alice/one", "aaaa", "kernels/common.h", "alice+one", "include"),
      origin("alice/one", "aaaa", "kernels/helper.clh", "alice+one", "include"),
      origin("bob/two", "bbbb", "src/MUL.CL", "bob+two", "kernel"),
      origin("bob/two", "bbbb", "src/scale.opencl", "bob+two", "kernel"),
      origin("carol/three", "cccc", "k.ocl", "carol+three", "kernel"),
      origin("dave/four", "", "x.cl", "dave+four", "kernel"),
  };
  std::sort(expected.begin(), expected.end());
  EXPECT_EQ(dir.origins, expected);
  EXPECT_EQ(dir.repositories,
            (std::vector<std::string>{"snapshot:alice/one|snapshot|aaaa|alice|one|||MIT|cryptography",
                                      "snapshot:bob/two|snapshot|bbbb|bob|two|||Apache-2.0|machine learning",
                                      "snapshot:carol/three|snapshot|cccc|carol|three|||MIT|machine learning",
                                      "snapshot:dave/four|snapshot||dave|four||||"}));
}

TEST(SnapshotImport, ReimportOfTheSameCommitsReadsNothingAgain) {
  TempDir tmp;
  write_text(tmp / "MANIFEST.tsv", kManifest);
  write_archive(tmp / "snap.tar.xz", "tar.xz", kSnapshot);
  std::string ws = tmp / "ws";
  ASSERT_EQ(run_clgen({"--workspace", ws, "corpus", "add", tmp / "snap.tar.xz", "--manifest", tmp / "MANIFEST.tsv"})
                .exit_code, 0);
  StoreSnapshot first = snapshot_store(ws + "/clgen.db");
  CommandResult r = run_clgen({"--workspace", ws, "corpus", "add", tmp / "snap.tar.xz", "--manifest", tmp / "MANIFEST.tsv"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  // Three repositories are unchanged; only dave/four (no commit) is read again: 1 file, 0 new.
  EXPECT_NE(r.out.find("1 files + 0 included files stored (0 new"), std::string::npos) << r.out;
  EXPECT_TRUE(first == snapshot_store(ws + "/clgen.db"));
}

TEST(ArchiveImport, EntriesOutsideTheRootAreRefusedAndNothingOutsideIsRead) {
  TempDir tmp;
  write_text(tmp / "escape.cl", "kernel void OUTSIDE() {}\n");  // where ../escape.cl would land
  std::string absolute = tmp / "absolute.cl";
  const Entries entries = {
      {"o+n/k.cl", "#include \"../../escape.cl\"\nkernel void k() {}\n"},
      {"../escape.cl", "kernel void ESCAPED() {}\n"},
      {absolute, "kernel void ABSOLUTE() {}\n"},
      {"o+n/../../up.cl", "kernel void UP() {}\n"},
  };
  for (const char* format : {"tar.xz", "zip"}) {
    std::string archive = tmp / (std::string("hostile.") + format);
    write_archive(archive, format, entries);
    std::string ws = tmp / (std::string("ws-") + format);
    CommandResult r = run_clgen({"--workspace", ws, "corpus", "add", archive});
    ASSERT_EQ(r.exit_code, 0) << format << ": " << r.err;
    EXPECT_NE(r.out.find("path_outside_root 3"), std::string::npos) << r.out;
    EXPECT_NE(r.err.find("../escape.cl"), std::string::npos) << r.err;  // each refusal is logged
    EXPECT_NE(r.out.find("1 refused"), std::string::npos) << r.out;     // the include of ../../escape.cl
    std::string db = ws + "/clgen.db";
    EXPECT_EQ(count(db, "SELECT COUNT(*) FROM content_origins"), 1) << format;
    // Only o+n/../../up.cl names a repository folder: it is recorded under snapshot:o/n.
    EXPECT_EQ(stats_json(ws)["skipped"], nlohmann::json({{"path_outside_root", 1}})) << format;
    EXPECT_EQ(count(db, "SELECT COUNT(*) FROM content_files WHERE text LIKE '%ESCAPED%' OR text LIKE '%ABSOLUTE%' "
                        "OR text LIKE '%UP()%' OR text LIKE '%OUTSIDE%'"), 0) << format;
    EXPECT_FALSE(fs::exists(absolute)) << "an entry was written to disk";
  }
}

TEST(ArchiveImport, AnArchiveInAnotherLayoutIsOneSource) {
  TempDir tmp;
  write_archive(tmp / "plain.tar.gz", "tar.gz",
                {{"kernels/a.cl", "kernel void a() {}\n"}, {"README", "docs\n"}});
  std::string ws = tmp / "ws";
  CommandResult r = run_clgen({"--workspace", ws, "corpus", "add", tmp / "plain.tar.gz"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json s = stats_json(ws);
  ASSERT_EQ(s["by_source"].size(), 1u) << s.dump();
  EXPECT_EQ(s["by_source"][0]["kind"], "archive");
  EXPECT_EQ(s["by_source"][0]["source"], "archive:" + fs::canonical(tmp / "plain.tar.gz").string());
  EXPECT_EQ(s["files"], 1);
  // Refused entries of a one-source archive are recorded under it.
  write_archive(tmp / "bad.tar.gz", "tar.gz", {{"a.cl", "kernel void a() {}\n"}, {"../b.cl", "kernel void b() {}\n"}});
  ASSERT_EQ(run_clgen({"--workspace", ws, "corpus", "add", tmp / "bad.tar.gz"}).exit_code, 0);
  EXPECT_EQ(stats_json(ws)["skipped"], nlohmann::json({{"path_outside_root", 1}}));
}

TEST(ArchiveImport, AnArchiveUnpackingToMoreThanTheLimitIsRefused) {
  TempDir tmp;
  write_archive(tmp / "big.tar.xz", "tar.xz", {{"o+n/a.cl", "kernel void a() {}\n" + std::string(2000, ' ')}});
  std::string ws = tmp / "ws";
  CommandResult r = run_clgen({"--workspace", ws, "corpus", "add", tmp / "big.tar.xz", "--max-archive-size", "1K"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("unpacks to more than 1024 bytes"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("big.tar.xz"), std::string::npos) << r.err;
}

TEST(ArchiveImport, FilesOverTheSizeLimitAndLinksAreSkippedUnread) {
  TempDir tmp;
  write_text(tmp / "target.cl", "kernel void LINKED() {}\n");
  write_archive(tmp / "a.tar.xz", "tar.xz",
                {{"o+n/small.cl", "kernel void s() {}\n"}, {"o+n/big.cl", "kernel void b() {}\n" + std::string(3000, ' ')}},
                {{"o+n/link.cl", tmp / "target.cl"}, {"o+n/rel.cl", "small.cl"}});
  std::string ws = tmp / "ws";
  CommandResult r = run_clgen({"--workspace", ws, "corpus", "add", tmp / "a.tar.xz", "--max-file-size", "1K"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  nlohmann::json s = stats_json(ws);
  EXPECT_EQ(s["files"], 1) << s.dump();  // small.cl
  // big.cl is over --max-file-size; links are not followed, even inside the archive.
  EXPECT_EQ(s["skipped"], nlohmann::json({{"too_large", 1}, {"unreadable", 2}}));
  EXPECT_EQ(count(ws + "/clgen.db", "SELECT COUNT(*) FROM content_files WHERE text LIKE '%LINKED%'"), 0);
}

TEST(SnapshotImport, MalformedManifestLineFailsNamingFileLineAndColumn) {
  TempDir tmp;
  write_tree(tmp / "dir", kSnapshot);
  std::string manifest = tmp / "MANIFEST.tsv";
  write_text(manifest, std::string(kManifest).replace(std::string(kManifest).find("\t2\t100"), 6, "\tmany\t100"));
  CommandResult r = run_clgen({"--workspace", tmp / "ws", "corpus", "add", tmp / "dir", "--manifest", manifest});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(manifest + ":3: column 'files_kept': 'many'"), std::string::npos) << r.err;
}

TEST(CorpusStats, JsonGroupsByRepositoryDomainAndLicense) {
  TempDir tmp;
  write_text(tmp / "MANIFEST.tsv", kManifest);
  write_tree(tmp / "dir", kSnapshot);
  std::string ws = tmp / "ws";
  ASSERT_EQ(run_clgen({"--workspace", ws, "corpus", "add", tmp / "dir", "--manifest", tmp / "MANIFEST.tsv"}).exit_code, 0);
  nlohmann::json s = stats_json(ws);
  auto size = [](const char* path) { return static_cast<int64_t>(text_of(path).size()); };
  // Machine learning: bob/two (MUL.CL, scale.opencl) and carol/three (k.ocl).
  int64_t ml_bytes = size("bob+two/src/MUL.CL") + size("bob+two/src/scale.opencl") + size("carol+three/k.ocl");
  EXPECT_EQ(s["by_domain"]["machine learning"],
            nlohmann::json({{"repositories", 2}, {"files", 3}, {"bytes", ml_bytes}})) << s.dump();
  EXPECT_EQ(s["by_domain"]["cryptography"]["files"], 3);  // add.cl, common.h, helper.clh
  EXPECT_EQ(s["by_domain"][""]["repositories"], 1);      // dave/four, not in the manifest
  // MIT: alice/one (3 files) and carol/three (1 file).
  EXPECT_EQ(s["by_license"]["MIT"]["repositories"], 2);
  EXPECT_EQ(s["by_license"]["MIT"]["files"], 4);
  EXPECT_EQ(s["by_license"]["Apache-2.0"]["files"], 2);
  EXPECT_EQ(s["kernel_files"], 5);   // add, MUL, scale, k, x
  EXPECT_EQ(s["include_files"], 2);  // common.h, helper.clh
  bool found = false;
  for (const auto& src : s["by_source"])
    if (src["source"] == "snapshot:bob/two") {
      found = true;
      EXPECT_EQ(src["license"], "Apache-2.0");
      EXPECT_EQ(src["domain"], "machine learning");
      EXPECT_EQ(src["files"], 2);
      EXPECT_EQ(src["owner"], "bob");
    }
  EXPECT_TRUE(found) << s.dump();
  CommandResult text = run_clgen({"--workspace", ws, "corpus", "stats"});
  EXPECT_NE(text.out.find("by domain:"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("machine learning"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("by license:"), std::string::npos) << text.out;
}

}  // namespace
}  // namespace clgen::testing
