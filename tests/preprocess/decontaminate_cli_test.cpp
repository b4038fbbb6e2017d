// End-to-end tests of `clgen corpus decontaminate`: the issue's commands on a
// small snapshot archive (a tar.xz of repository folders and a manifest, made
// here from tests/data/decontaminate), and the training-set reader
// (model/store.h) that must leave the drops out.
#include <algorithm>
#include <filesystem>

#include <gtest/gtest.h>

#include "model/store.h"
#include "support/sha256.h"
#include "support/sqlite.h"
#include "tests/cli/run_command.h"
#include "tests/corpus/test_util.h"

namespace clgen::testing {
namespace {

namespace fs = std::filesystem;

const std::string kData = std::string(CLGEN_TEST_DATA) + "/decontaminate";

// "normalized_sha256|against|against_kernel|rule|at" of every row, sorted.
std::vector<std::string> decontaminated_rows(const std::string& db_path) {
  std::vector<std::string> out;
  auto db = Database::open(db_path);
  if (!db.ok()) return out;
  auto st = db->prepare("SELECT normalized_sha256, against, against_kernel, rule, at FROM decontaminated ORDER BY 1");
  if (!st.ok()) return out;  // no table
  while (*st->step())
    out.push_back(st->column_text(0) + "|" + st->column_text(1) + "|" + st->column_text(2) + "|" + st->column_text(3) +
                  "|" + st->column_text(4));
  return out;
}

// "rule against:against_kernel" recorded for the training kernel `kernel` of
// the file at `path` in the archive, or "kept".
std::string rule_of(const std::string& db_path, const std::string& path, const std::string& kernel) {
  auto db = Database::open(db_path);
  auto st = db->prepare(
      "SELECT d.rule || ' ' || d.against || ':' || d.against_kernel FROM content_origins o JOIN preprocessed p ON "
      "p.content_sha256 = o.sha256 JOIN decontaminated d ON d.normalized_sha256 = p.normalized_sha256 "
      "WHERE o.path = ?1 AND p.kernel = ?2");
  EXPECT_TRUE(st.ok()) << st.status().message();
  EXPECT_TRUE(st->bind(1, path).ok());
  EXPECT_TRUE(st->bind(2, kernel).ok());
  auto row = st->step();
  return row.ok() && *row ? st->column_text(0) : "kept";
}

// A snapshot of two repositories, added and preprocessed as the issue does:
//   alice+kernels/src/two_kernels.cl  diffuse_row, gradient_energy (+ an unused helper)
//   alice+kernels/src/scale_lerp.cl   scale_lerp, whose helper is in lerp.h beside it
//   bob+filters/cl/threshold.cl       row_threshold
class DecontaminateSnapshot : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::path tree = tmp_ / "tree";
    fs::copy(kData + "/archive", tree, fs::copy_options::recursive);
    fs::copy(kData + "/kernels/two_kernels.cl", tree / "alice+kernels/src/two_kernels.cl");
    archive_ = tmp_ / "corpus.tar.xz";
    CommandResult tar = run_command({"/usr/bin/tar", "-cJf", archive_, "-C", tree, "alice+kernels", "bob+filters"});
    ASSERT_EQ(tar.exit_code, 0) << tar.err;
    manifest_ = tmp_ / "MANIFEST.tsv";
    write_text(manifest_,
               "repository\tcommit\tlicense\tfiles_kept\tbytes_kept\tdomain\n"
               "alice/kernels\t0123456789abcdef0123456789abcdef01234567\tMIT\t3\t2500\timage processing\n"
               "bob/filters\tfedcba9876543210fedcba9876543210fedcba98\tMIT\t1\t500\timage processing\n");
    ws_ = tmp_ / "W";
    eval_ = tmp_ / "eval";
    CommandResult add = run_clgen({"--workspace", ws_, "corpus", "add", archive_, "--manifest", manifest_});
    ASSERT_EQ(add.exit_code, 0) << add.err << add.out;
    CommandResult pre = run_clgen({"--workspace", ws_, "-q", "corpus", "preprocess", "-j", "2"});
    ASSERT_EQ(pre.exit_code, 0) << pre.err;
    fs::create_directories(eval_);
  }
  // tar -xJf ARCHIVE -C eval MEMBER...
  void extract(const std::vector<std::string>& members) {
    std::vector<std::string> argv = {"/usr/bin/tar", "-xJf", archive_, "-C", eval_};
    argv.insert(argv.end(), members.begin(), members.end());
    CommandResult tar = run_command(argv);
    ASSERT_EQ(tar.exit_code, 0) << tar.err;
  }
  CommandResult decontaminate(std::vector<std::string> extra = {}) {
    std::vector<std::string> args = {"--workspace", ws_, "corpus", "decontaminate", "--against", eval_};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_clgen(args);
  }
  std::string db() const { return ws_ + "/clgen.db"; }
  std::string root() const { return fs::canonical(eval_).string(); }

  TempDir tmp_;
  std::string archive_, manifest_, ws_, eval_;
};

TEST_F(DecontaminateSnapshot, TheIssuesCommandsDropBothKernelsOfACopiedFile) {
  extract({"alice+kernels/src/two_kernels.cl"});
  CommandResult r = decontaminate();
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  const std::string file = root() + "/alice+kernels/src/two_kernels.cl";
  EXPECT_NE(r.out.find("1 OpenCL files, 2 kernels (2 normalized, 0 compared by raw tokens), 0 skipped"),
            std::string::npos)
      << r.out;
  // Per evaluation kernel, each drop with the training kernel's repository, path and the rule.
  EXPECT_NE(r.out.find("evaluation kernel " + file + ":diffuse_row: normalized, dropped 1\n  dropped "),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find(" alice/kernels src/two_kernels.cl:diffuse_row: identical (score 1.000)"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find(" alice/kernels src/two_kernels.cl:gradient_energy: identical (score 1.000)"), std::string::npos)
      << r.out;
  // Four training kernels: two of the copy, scale_lerp and row_threshold stay.
  EXPECT_NE(r.out.find("compared 4 training kernels with 2 evaluation kernels: dropped 2 (identical 2, "
                       "ngram_overlap_train 0, ngram_overlap_eval 0, shape_overlap_train 0, shape_overlap_eval 0), "
                       "kept 2"),
            std::string::npos)
      << r.out;
  EXPECT_EQ(rule_of(db(), "src/two_kernels.cl", "diffuse_row"), "identical " + file + ":diffuse_row");
  EXPECT_EQ(rule_of(db(), "src/two_kernels.cl", "gradient_energy"), "identical " + file + ":gradient_energy");
  EXPECT_EQ(rule_of(db(), "src/scale_lerp.cl", "scale_lerp"), "kept");
  EXPECT_EQ(rule_of(db(), "cl/threshold.cl", "row_threshold"), "kept");
  EXPECT_EQ(decontaminated_rows(db()).size(), 2u);
}

TEST_F(DecontaminateSnapshot, IncludesAreResolvedBesideTheEvaluationFile) {
  extract({"alice+kernels/src/scale_lerp.cl", "alice+kernels/src/lerp.h"});
  CommandResult r = decontaminate();
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_EQ(rule_of(db(), "src/scale_lerp.cl", "scale_lerp"),
            "identical " + root() + "/alice+kernels/src/scale_lerp.cl:scale_lerp");
}

TEST_F(DecontaminateSnapshot, AFileWhoseIncludeIsMissingIsComparedByRawTokensAndSaysWhy) {
  extract({"alice+kernels/src/scale_lerp.cl"});  // without lerp.h
  CommandResult r = decontaminate({"--dry-run"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  EXPECT_NE(r.out.find("1 OpenCL files, 1 kernels (0 normalized, 1 compared by raw tokens)"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("(includes not read: lerp.h)"), std::string::npos) << r.out;
}

TEST_F(DecontaminateSnapshot, RerunLeavesTheSameRows) {
  extract({"alice+kernels/src/two_kernels.cl"});
  ASSERT_EQ(decontaminate().exit_code, 0);
  std::vector<std::string> first = decontaminated_rows(db());
  ASSERT_EQ(first.size(), 2u);
  CommandResult again = decontaminate();
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("(2 kernels left out of training in all)"), std::string::npos) << again.out;
  EXPECT_EQ(decontaminated_rows(db()), first);
}

TEST_F(DecontaminateSnapshot, DryRunPrintsTheDropsAndRecordsNothing) {
  extract({"alice+kernels/src/two_kernels.cl"});
  CommandResult r = decontaminate({"--dry-run"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("dropped 2 ("), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("dry run: nothing recorded"), std::string::npos) << r.out;
  EXPECT_TRUE(decontaminated_rows(db()).empty());
}

TEST_F(DecontaminateSnapshot, TheTrainingSetReaderLeavesTheDropsOut) {
  extract({"alice+kernels/src/two_kernels.cl"});
  auto texts_now = [&] {
    auto database = Database::open(db());
    EXPECT_TRUE(database.ok());
    auto texts = model::read_training_texts(*database);
    EXPECT_TRUE(texts.ok()) << texts.status().message();
    return texts.ok() ? *texts : std::vector<std::string>{};
  };
  ASSERT_EQ(texts_now().size(), 4u);
  ASSERT_EQ(decontaminate().exit_code, 0);
  std::vector<std::string> after = texts_now();
  ASSERT_EQ(after.size(), 2u);
  std::vector<std::string> dropped = decontaminated_rows(db());
  for (const std::string& text : after) {
    std::string hash = sha256_hex(text);
    for (const std::string& row : dropped) EXPECT_NE(row.substr(0, hash.size()), hash) << text;
  }
  // The two kept: row_threshold (the one uchar kernel) and scale_lerp (the one without sqrt or a loop).
  int uchar_kernels = 0, loops = 0;
  for (const std::string& text : after) {
    uchar_kernels += text.find("uchar*") != std::string::npos;
    loops += text.find("for (") != std::string::npos;
  }
  EXPECT_EQ(uchar_kernels, 1);
  EXPECT_EQ(loops, 1);  // row_threshold's; diffuse_row's left with it
}

TEST(DecontaminateErrors, MissingDirectoryFailsWithOneLineNamingIt) {
  TempDir tmp;
  CommandResult r = run_clgen({"--workspace", tmp / "ws", "corpus", "decontaminate", "--against", tmp / "no-such-dir"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find(tmp / "no-such-dir"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

TEST(DecontaminateErrors, WorkspaceWithoutPreprocessedTableSaysToRunPreprocess) {
  TempDir tmp;
  fs::create_directories(tmp / "eval");
  CommandResult r = run_clgen({"--workspace", tmp / "ws", "corpus", "decontaminate", "--against", tmp / "eval"});
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("run `clgen corpus preprocess` first"), std::string::npos) << r.err;
}

TEST(DecontaminateErrors, ThresholdsAndNgramsOutOfRangeAreUsageErrors) {
  TempDir tmp;
  fs::create_directories(tmp / "eval");
  for (std::vector<std::string> bad : {std::vector<std::string>{"--threshold", "1.5"},
                                       {"--ngram", "0"},
                                       {"--shape-threshold", "0"},
                                       {"--shape-ngram", "0"}}) {
    std::vector<std::string> args = {"--workspace", tmp / "ws", "corpus", "decontaminate", "--against", tmp / "eval"};
    args.insert(args.end(), bad.begin(), bad.end());
    CommandResult r = run_clgen(args);
    EXPECT_EQ(r.exit_code, 2) << bad[0] << " " << bad[1] << ": " << r.err;
  }
}

TEST(DecontaminateHelp, StatesTheRule) {
  CommandResult r = run_clgen({"corpus", "decontaminate", "--help"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("--against"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("-I,--include-dir"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("at least 0.8 of its distinct 8-token n-grams occur in one evaluation kernel"),
            std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("0.9 of the 16-token n-grams of name-insensitive tokens"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace clgen::testing
