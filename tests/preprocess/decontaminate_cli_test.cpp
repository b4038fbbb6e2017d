// End-to-end tests of `clgen corpus decontaminate` on a workspace built with
// `clgen corpus add` and `clgen corpus preprocess` from tests/data/decontaminate,
// and of the training-set reader (model/store.h) that must leave the drops out.
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

// "normalized_sha256|against|rule|score|at" of every row, sorted.
std::vector<std::string> decontaminated_rows(const std::string& db_path) {
  std::vector<std::string> out;
  auto db = Database::open(db_path);
  if (!db.ok()) return out;
  auto st = db->prepare("SELECT normalized_sha256, against, rule, score, at FROM decontaminated ORDER BY 1");
  if (!st.ok()) return out;  // no table
  while (*st->step())
    out.push_back(st->column_text(0) + "|" + st->column_text(1) + "|" + st->column_text(2) + "|" +
                  std::to_string(st->column_double(3)) + "|" + st->column_text(4));
  return out;
}

// The rule recorded for the training file `train_name` (via its content hash), or "kept".
std::string rule_of(const std::string& db_path, const std::string& train_name) {
  auto db = Database::open(db_path);
  auto st = db->prepare(
      "SELECT d.rule || ' ' || d.against FROM content_origins o JOIN preprocessed p ON p.content_sha256 = o.sha256 "
      "JOIN decontaminated d ON d.normalized_sha256 = p.normalized_sha256 WHERE o.path = ?1");
  EXPECT_TRUE(st.ok()) << st.status().message();
  EXPECT_TRUE(st->bind(1, train_name).ok());
  auto row = st->step();
  return row.ok() && *row ? st->column_text(0) : "kept";
}

class DecontaminateCommand : public ::testing::Test {
 protected:
  void SetUp() override {
    ws_ = tmp_ / "ws";
    eval_ = tmp_ / "eval";
    fs::copy(kData + "/eval", eval_, fs::copy_options::recursive);
    write_text(tmp_ / "outside.cl", "__kernel void A(__global int* a) { a[0] = 1; }\n");
    fs::create_symlink(tmp_ / "outside.cl", eval_ + "/escape.cl");
    CommandResult add = run_clgen({"--workspace", ws_, "corpus", "add", kData + "/train"});
    ASSERT_EQ(add.exit_code, 0) << add.err;
    CommandResult pre = run_clgen({"--workspace", ws_, "-q", "corpus", "preprocess", "-j", "2"});
    ASSERT_EQ(pre.exit_code, 0) << pre.err;
    ASSERT_NE(pre.out.find("7 files processed now: 7 with accepted kernels"), std::string::npos) << pre.out;
  }
  std::string db() const { return ws_ + "/clgen.db"; }

  TempDir tmp_;
  std::string ws_, eval_;
};

TEST_F(DecontaminateCommand, DropsCopiesAndNearCopiesAndRecordsThem) {
  CommandResult r = run_clgen({"--workspace", ws_, "corpus", "decontaminate", "--against", eval_, "-j", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.err << r.out;
  std::string root = fs::canonical(eval_).string();
  // Eight OpenCL files (notes.txt and gather_body.h are not); broken.cl does not compile.
  EXPECT_NE(r.out.find("8 OpenCL files (7 normalized, 1 compared by raw tokens), 1 skipped"), std::string::npos)
      << r.out;
  EXPECT_NE(r.out.find("raw tokens: " + root + "/broken.cl: did not normalize: rejected [parse_error]"),
            std::string::npos) << r.out;
  EXPECT_NE(r.out.find("escape.cl: symlink leading outside"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("rule (threshold 0.8, n = 8): "), std::string::npos) << r.out;
  // Eight training kernels: pairs_and_prefix.cl holds two, and the corpus is stored per kernel.
  EXPECT_NE(r.out.find("compared 8 training kernels with 8 evaluation files: dropped 5 (identical 4, "
                       "ngram_overlap_train 1, ngram_overlap_eval 0), kept 3"),
            std::string::npos) << r.out;
  // Each drop names the training file it came from and the evaluation file.
  EXPECT_NE(r.out.find("(dir:" + fs::canonical(kData + "/train").string() + " saxpy.cl) ~ " + root +
                       "/saxpy.cl: identical (score 1.000)"),
            std::string::npos) << r.out;

  EXPECT_EQ(rule_of(db(), "saxpy.cl"), "identical " + root + "/saxpy.cl");
  EXPECT_EQ(rule_of(db(), "matrix_scale.cl"), "identical " + root + "/renamed_scale.CL");
  EXPECT_EQ(rule_of(db(), "stencil.cl"), "ngram_overlap_train " + root + "/stencil_extra.ocl");
  // Its first kernel, extracted alone, is the evaluation kernel itself; its
  // second (a prefix sum) is not in the evaluation set and stays.
  EXPECT_EQ(rule_of(db(), "pairs_and_prefix.cl"), "identical " + root + "/reduce_pairs.cl");
  // Its kernel is in a header the file includes: found once the include is inlined.
  EXPECT_EQ(rule_of(db(), "gather.cl"), "identical " + root + "/includes/gather.cl");
  EXPECT_EQ(rule_of(db(), "matmul.cl"), "kept");
  EXPECT_EQ(rule_of(db(), "transpose.cl"), "kept");
  EXPECT_EQ(decontaminated_rows(db()).size(), 5u);
}

TEST_F(DecontaminateCommand, RerunLeavesTheSameRows) {
  ASSERT_EQ(run_clgen({"--workspace", ws_, "corpus", "decontaminate", "--against", eval_}).exit_code, 0);
  std::vector<std::string> first = decontaminated_rows(db());
  ASSERT_EQ(first.size(), 5u);
  CommandResult again = run_clgen({"--workspace", ws_, "corpus", "decontaminate", "--against", eval_});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_NE(again.out.find("(5 kernels left out of training in all)"), std::string::npos) << again.out;
  EXPECT_EQ(decontaminated_rows(db()), first);
}

TEST_F(DecontaminateCommand, DryRunPrintsTheDropsAndRecordsNothing) {
  CommandResult r = run_clgen({"--workspace", ws_, "corpus", "decontaminate", "--against", eval_, "--dry-run"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("dropped 5 ("), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("dry run: nothing recorded"), std::string::npos) << r.out;
  EXPECT_TRUE(decontaminated_rows(db()).empty());
}

TEST_F(DecontaminateCommand, TheTrainingSetReaderLeavesTheDropsOut) {
  std::vector<std::string> before, after;
  {
    auto database = Database::open(db());
    ASSERT_TRUE(database.ok());
    auto texts = model::read_training_texts(*database);
    ASSERT_TRUE(texts.ok()) << texts.status().message();
    before = *texts;
  }
  ASSERT_EQ(before.size(), 8u);
  ASSERT_EQ(run_clgen({"--workspace", ws_, "corpus", "decontaminate", "--against", eval_}).exit_code, 0);
  auto database = Database::open(db());
  ASSERT_TRUE(database.ok());
  auto texts = model::read_training_texts(*database);
  ASSERT_TRUE(texts.ok()) << texts.status().message();
  after = *texts;
  ASSERT_EQ(after.size(), 3u);
  std::vector<std::string> dropped = decontaminated_rows(db());
  for (const std::string& text : after) {
    std::string hash = sha256_hex(text);
    for (const std::string& row : dropped) EXPECT_NE(row.substr(0, hash.size()), hash) << text;
  }
  // The two kept kernels: matmul (the one loop) and transpose (the one local barrier).
  int loops = 0, local_barriers = 0;
  for (const std::string& text : after) {
    loops += text.find("for (") != std::string::npos;
    local_barriers += text.find("barrier(CLK_LOCAL_MEM_FENCE)") != std::string::npos;
  }
  EXPECT_EQ(loops, 1);
  EXPECT_EQ(local_barriers, 1);
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

TEST(DecontaminateErrors, ThresholdAndNgramOutOfRangeAreUsageErrors) {
  TempDir tmp;
  fs::create_directories(tmp / "eval");
  for (std::vector<std::string> bad : {std::vector<std::string>{"--threshold", "0"}, {"--threshold", "1.5"},
                                       {"--ngram", "0"}}) {
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
  EXPECT_NE(r.out.find("at least 0.8 of its distinct 8-token n-grams occur in one evaluation file"),
            std::string::npos) << r.out;
}

}  // namespace
}  // namespace clgen::testing
