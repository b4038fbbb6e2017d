// Tests of decontamination: the C tokenizer, n-gram containment, the
// comparison on real kernels (tests/data/decontaminate) and the table.
#include "corpus/preprocess/decontaminate.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include <gtest/gtest.h>

#include "corpus/preprocess/decontaminated_sql.h"
#include "corpus/preprocess/tokens.h"
#include "support/files.h"
#include "support/sha256.h"

namespace clgen::preprocess {
namespace {

using Tokens = std::vector<std::string>;

std::string fixture(const std::string& rel) {
  auto text = read_file(std::string(CLGEN_TEST_DATA) + "/decontaminate/" + rel);
  EXPECT_TRUE(text.ok()) << text.status().message();
  return text.ok() ? *text : "";
}

// A training kernel as `clgen corpus preprocess` stores it.
TrainingKernel training(const std::string& rel) {
  RewriteResult r = rewrite(fixture("train/" + rel));
  EXPECT_EQ(r.status, RewriteStatus::kOk) << rel << ": " << r.reason;
  return {sha256_hex(r.text), r.text};
}

EvaluationKernel evaluation(const std::string& rel) {
  return prepare_evaluation_kernel("eval/" + rel, fixture("eval/" + rel));
}

// --- Tokenizer --------------------------------------------------------------

TEST(CTokens, SplitsIdentifiersNumbersLiteralsAndLongestPunctuators) {
  EXPECT_EQ(c_tokens("a<<=b->c++;"), (Tokens{"a", "<<=", "b", "->", "c", "++", ";"}));
  EXPECT_EQ(c_tokens("x = 1.5e-3f + 0x1F + .5;"),
            (Tokens{"x", "=", "1.5e-3f", "+", "0x1F", "+", ".5", ";"}));
  EXPECT_EQ(c_tokens("s = \"a b; // no\" + 'c';"), (Tokens{"s", "=", "\"a b; // no\"", "+", "'c'", ";"}));
  EXPECT_EQ(c_tokens("a>>b>=c&&d||e!=f"),
            (Tokens{"a", ">>", "b", ">=", "c", "&&", "d", "||", "e", "!=", "f"}));
}

TEST(CTokens, DropsWhitespaceCommentsAndLineContinuations) {
  EXPECT_EQ(c_tokens("int  a ;\t// comment ; x\n/* block\n y */ a\\\n= 2;"),
            (Tokens{"int", "a", ";", "a", "=", "2", ";"}));
  EXPECT_EQ(c_tokens("a /* unterminated"), (Tokens{"a"}));
  EXPECT_TRUE(c_tokens("  // only a comment\n").empty());
}

TEST(CTokens, SameCodeWithOtherSpacingGivesTheSameTokens) {
  EXPECT_EQ(c_tokens("a[i*w+c]=v*k;"), c_tokens("a[i * w + c] = v * k;  // note"));
}

// --- N-grams ------------------------------------------------------------------

TEST(NgramHashes, CountsDistinctRunsOfNTokens) {
  // a b a b a: 3-grams "a b a", "b a b", "a b a" -> 2 distinct.
  EXPECT_EQ(ngram_hashes(Tokens{"a", "b", "a", "b", "a"}, 3).size(), 2u);
  // 5 tokens, all different: 5 - 2 + 1 = 4 bigrams.
  EXPECT_EQ(ngram_hashes(Tokens{"a", "b", "c", "d", "e"}, 2).size(), 4u);
  EXPECT_TRUE(ngram_hashes(Tokens{"a", "b"}, 3).empty());  // fewer tokens than n
  EXPECT_TRUE(ngram_hashes(Tokens{"a", "b"}, 0).empty());
  // Order matters: "a b" and "b a" are different bigrams.
  EXPECT_NE(ngram_hashes(Tokens{"a", "b"}, 2), ngram_hashes(Tokens{"b", "a"}, 2));
}

TEST(TokenHashes, GiveTheSameNgramsAndSequenceHashAsTheTokenStrings) {
  const char* text = "__kernel void A(__global float* a) { a[0] = 1.5f; }  // x";
  EXPECT_EQ(token_hashes(text).size(), c_tokens(text).size());
  EXPECT_EQ(ngram_hashes_of(token_hashes(text), 3), ngram_hashes(c_tokens(text), 3));
  EXPECT_EQ(sequence_hash(token_hashes(text)), sequence_hash(c_tokens(text)));
}

TEST(Containment, IsTheFractionOfThePartsNgramsFoundInTheWhole) {
  auto whole = ngram_hashes(Tokens{"a", "b", "c", "d", "e"}, 2);   // ab bc cd de
  auto part = ngram_hashes(Tokens{"b", "c", "d"}, 2);              // bc cd
  auto half = ngram_hashes(Tokens{"c", "d", "x"}, 2);              // cd dx: 1 of 2
  EXPECT_DOUBLE_EQ(containment(part, whole), 1.0);
  EXPECT_DOUBLE_EQ(containment(whole, part), 0.5);           // 2 of 4
  EXPECT_DOUBLE_EQ(containment(half, whole), 0.5);
  EXPECT_DOUBLE_EQ(containment({}, whole), 0.0);
}

// --- The comparison on real kernels ---------------------------------------------

TEST(PrepareEvaluationKernel, NormalizesLikeTheTrainingSetAndFallsBackToRawTokens) {
  EvaluationKernel renamed = evaluation("renamed_scale.CL");
  EXPECT_TRUE(renamed.normalized) << renamed.note;
  // The renamed copy normalizes to the training kernel's text.
  EXPECT_EQ(renamed.text, training("matrix_scale.cl").text);

  EvaluationKernel helpers = evaluation("sub/helpers.clh");  // no kernel: the passes alone
  EXPECT_TRUE(helpers.normalized) << helpers.note;
  EXPECT_EQ(helpers.text.find("square_it"), std::string::npos) << helpers.text;

  EvaluationKernel broken = evaluation("broken.cl");
  EXPECT_FALSE(broken.normalized);
  EXPECT_NE(broken.note.find("rejected"), std::string::npos) << broken.note;
  EXPECT_EQ(broken.text.find("Does not compile"), std::string::npos);  // comment stripped
  EXPECT_NE(broken.text.find("__kernel void broken ( __global float * p )"), std::string::npos) << broken.text;
}

class FindContamination : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    train_ = new std::vector<TrainingKernel>{training("saxpy.cl"), training("matrix_scale.cl"),
                                             training("stencil.cl"), training("pairs_and_prefix.cl"),
                                             training("matmul.cl"), training("transpose.cl")};
    eval_ = new std::vector<EvaluationKernel>{evaluation("saxpy.cl"), evaluation("renamed_scale.CL"),
                                              evaluation("stencil_extra.ocl"), evaluation("reduce_pairs.cl"),
                                              evaluation("histogram.opencl"), evaluation("broken.cl"),
                                              evaluation("sub/helpers.clh")};
  }
  static void TearDownTestSuite() {
    delete train_;
    delete eval_;
  }
  // The drop of training kernel `i`, or nullptr when it is kept.
  static const Contamination* drop_of(const std::vector<Contamination>& drops, size_t i) {
    for (const Contamination& d : drops)
      if (d.normalized_sha256 == (*train_)[i].normalized_sha256) return &d;
    return nullptr;
  }
  static std::vector<TrainingKernel>* train_;
  static std::vector<EvaluationKernel>* eval_;
};
std::vector<TrainingKernel>* FindContamination::train_ = nullptr;
std::vector<EvaluationKernel>* FindContamination::eval_ = nullptr;

TEST_F(FindContamination, DropsAnExactCopyAsIdentical) {
  auto drops = find_contamination(*train_, *eval_, {}, 2);
  const Contamination* d = drop_of(drops, 0);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->rule, decontamination_rule::kIdentical);
  EXPECT_EQ(d->against, "eval/saxpy.cl");
  EXPECT_DOUBLE_EQ(d->score, 1.0);
}

TEST_F(FindContamination, DropsARenamedCopyWithOtherSpacingAndComments) {
  auto drops = find_contamination(*train_, *eval_, {}, 2);
  const Contamination* d = drop_of(drops, 1);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->rule, decontamination_rule::kIdentical);  // identical after normalization
  EXPECT_EQ(d->against, "eval/renamed_scale.CL");
}

TEST_F(FindContamination, DropsACopyWithOneExtraStatementByNgramOverlap) {
  auto drops = find_contamination(*train_, *eval_, {}, 2);
  const Contamination* d = drop_of(drops, 2);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->rule, decontamination_rule::kNgramOverlapTrain);
  EXPECT_EQ(d->against, "eval/stencil_extra.ocl");
  // The extra statement sits between two statements the training kernel has
  // back to back: of its 8-grams at most the 7 that span that seam are missing.
  std::vector<uint64_t> grams = ngram_hashes(c_tokens((*train_)[2].text), 8);
  EXPECT_GE(d->score, double(grams.size() - 7) / double(grams.size()));
  EXPECT_LT(d->score, 1.0);
  EXPECT_DOUBLE_EQ(d->score, containment(grams, ngram_hashes(c_tokens((*eval_)[2].text), 8)));
}

TEST_F(FindContamination, DropsATrainingFileThatContainsTheEvaluationKernel) {
  auto drops = find_contamination(*train_, *eval_, {}, 2);
  const Contamination* d = drop_of(drops, 3);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->rule, decontamination_rule::kNgramOverlapEval);
  EXPECT_EQ(d->against, "eval/reduce_pairs.cl");
  EXPECT_DOUBLE_EQ(d->score, 1.0);  // every n-gram of the evaluation kernel is in it
  // ... while most of the training file is code of its own (rule b alone keeps it).
  auto train_grams = ngram_hashes(c_tokens((*train_)[3].text), 8);
  auto eval_grams = ngram_hashes(c_tokens((*eval_)[3].text), 8);
  EXPECT_LT(containment(train_grams, eval_grams), 0.8);
}

TEST_F(FindContamination, KeepsUnrelatedKernels) {
  auto drops = find_contamination(*train_, *eval_, {}, 2);
  EXPECT_EQ(drop_of(drops, 4), nullptr);  // matmul
  EXPECT_EQ(drop_of(drops, 5), nullptr);  // transpose
  EXPECT_EQ(drops.size(), 4u);
}

TEST_F(FindContamination, AThresholdAboveTheOverlapKeepsTheNearCopy) {
  DecontaminateOptions strict;
  strict.threshold = 0.99;
  auto drops = find_contamination(*train_, *eval_, strict, 1);
  EXPECT_EQ(drop_of(drops, 2), nullptr);                 // stencil: below 0.99
  ASSERT_NE(drop_of(drops, 3), nullptr);                 // containment 1.0 still drops
  EXPECT_EQ(drop_of(drops, 0)->rule, decontamination_rule::kIdentical);
}

TEST_F(FindContamination, GivesTheSameResultOnOneThreadAndMany) {
  auto one = find_contamination(*train_, *eval_, {}, 1);
  auto many = find_contamination(*train_, *eval_, {}, 4);
  ASSERT_EQ(one.size(), many.size());
  for (size_t i = 0; i < one.size(); ++i) {
    EXPECT_EQ(one[i].normalized_sha256, many[i].normalized_sha256);
    EXPECT_EQ(one[i].against, many[i].against);
    EXPECT_EQ(one[i].rule, many[i].rule);
  }
}

TEST(FindContaminationShort, ComparesTextsWithFewerNgramsThanNByEqualityOnly) {
  // 6 tokens, n = 8: no n-grams at all.
  std::vector<TrainingKernel> train = {{"same", "int a = b ;"}, {"near", "int a = c ;"}};
  std::vector<EvaluationKernel> eval = {{"e.cl", "int  a=b; // same tokens", true, ""}};
  auto drops = find_contamination(train, eval);
  ASSERT_EQ(drops.size(), 1u);
  EXPECT_EQ(drops[0].normalized_sha256, "same");
  EXPECT_EQ(drops[0].rule, decontamination_rule::kIdentical);
}

TEST(FindContaminationShort, NeedsAtLeastNDistinctNgramsOnBothSidesForOverlap) {
  // Training: 10 tokens -> 3 distinct 8-grams (< 8): equality only, even
  // though all its n-grams occur in the longer evaluation text.
  Tokens long_tokens;
  for (int i = 0; i < 30; ++i) long_tokens.push_back("t" + std::to_string(i));
  std::string eval_text, train_text;
  for (int i = 0; i < 30; ++i) eval_text += long_tokens[i] + " ";
  for (int i = 0; i < 10; ++i) train_text += long_tokens[i] + " ";
  std::vector<TrainingKernel> train = {{"short", train_text}, {"long", eval_text + "extra"}};
  std::vector<EvaluationKernel> eval = {{"e.cl", eval_text, true, ""}};
  auto drops = find_contamination(train, eval);
  ASSERT_EQ(drops.size(), 1u);
  EXPECT_EQ(drops[0].normalized_sha256, "long");
  // "long" has 24 distinct 8-grams, 23 of them in the evaluation text (0.958,
  // rule b), and holds all 23 of the evaluation text's (1.0, rule c): c wins.
  EXPECT_EQ(drops[0].rule, decontamination_rule::kNgramOverlapEval);
  EXPECT_DOUBLE_EQ(drops[0].score, 1.0);
}

// --- Evaluation directory -------------------------------------------------------

TEST(ReadEvaluationSet, ReadsOpenCLFilesOfAnyCaseAndSkipsSymlinksLeavingTheDirectory) {
  namespace fs = std::filesystem;
  fs::path tmp = fs::temp_directory_path() / ("clgen-decon-" + std::to_string(::getpid()));
  fs::remove_all(tmp);
  fs::create_directories(tmp / "eval/deep");
  ASSERT_TRUE(write_file_atomic((tmp / "outside.cl").string(), "__kernel void A() {}\n").ok());
  ASSERT_TRUE(write_file_atomic((tmp / "eval/a.CL").string(), fixture("eval/saxpy.cl")).ok());
  ASSERT_TRUE(write_file_atomic((tmp / "eval/deep/b.opencl").string(), fixture("eval/reduce_pairs.cl")).ok());
  ASSERT_TRUE(write_file_atomic((tmp / "eval/notes.txt").string(), "text").ok());
  fs::create_symlink(tmp / "outside.cl", tmp / "eval/escape.cl");
  fs::create_symlink(tmp / "eval/a.CL", tmp / "eval/inside.ocl");

  ReadEvaluationOptions o;
  o.threads = 2;
  auto set = read_evaluation_set((tmp / "eval").string(), o);
  ASSERT_TRUE(set.ok()) << set.status().message();
  std::string root = fs::canonical(tmp / "eval").string();
  ASSERT_EQ(set->files.size(), 3u);
  EXPECT_EQ(set->files[0].path, root + "/a.CL");
  EXPECT_EQ(set->files[1].path, root + "/deep/b.opencl");
  EXPECT_EQ(set->files[2].path, root + "/inside.ocl");  // a link inside the directory
  ASSERT_EQ(set->skipped.size(), 1u);
  EXPECT_NE(set->skipped[0].find("escape.cl: symlink leading outside"), std::string::npos) << set->skipped[0];
  fs::remove_all(tmp);
}

TEST(ReadEvaluationSet, MissingDirectoryIsNotFoundNamingIt) {
  auto set = read_evaluation_set("/nonexistent/eval-dir");
  ASSERT_FALSE(set.ok());
  EXPECT_EQ(set.status().code(), ErrorCode::kNotFound);
  EXPECT_NE(set.status().message().find("/nonexistent/eval-dir"), std::string::npos);
}

TEST(IsOpenclFileName, AcceptsTheFourExtensionsInAnyCase) {
  for (const char* name : {"a.cl", "a.CL", "b.ocl", "c.Clh", "d.OPENCL"}) EXPECT_TRUE(is_opencl_file_name(name)) << name;
  for (const char* name : {"a.c", "a.h", "cl", "a.cl.txt", ".cl"}) EXPECT_FALSE(is_opencl_file_name(name)) << name;
}

// --- The table and the training-set readers ----------------------------------------

Database training_db() {
  auto db = Database::open(":memory:");
  EXPECT_TRUE(db.ok());
  EXPECT_TRUE(db->exec(
      "CREATE TABLE preprocessed(content_sha256 TEXT NOT NULL, preprocessor_version TEXT NOT NULL, "
      "status TEXT NOT NULL, category TEXT, reason TEXT, normalized_text TEXT, normalized_sha256 TEXT, "
      "instruction_count INTEGER, PRIMARY KEY(content_sha256, preprocessor_version));"
      "INSERT INTO preprocessed VALUES('c1', 'v1', 'ok', NULL, NULL, 'old', 'h-old', 5);"
      "INSERT INTO preprocessed VALUES('c1', 'v2', 'ok', NULL, NULL, 'one', 'h1', 5);"
      "INSERT INTO preprocessed VALUES('c2', 'v2', 'ok', NULL, NULL, 'two', 'h2', 5);"
      "INSERT INTO preprocessed VALUES('c3', 'v2', 'ok', NULL, NULL, 'two', 'h2', 5);"
      "INSERT INTO preprocessed VALUES('c4', 'v2', 'rejected', 'parse_error', 'x', NULL, NULL, 0);").ok());
  return std::move(*db);
}

TEST(ReadTrainingKernels, ReadsOneKernelPerHashOfTheNewestVersion) {
  Database db = training_db();
  auto kernels = read_training_kernels(db);
  ASSERT_TRUE(kernels.ok()) << kernels.status().message();
  ASSERT_EQ(kernels->size(), 2u);
  EXPECT_EQ((*kernels)[0].normalized_sha256, "h1");
  EXPECT_EQ((*kernels)[1].text, "two");
}

TEST(ReadTrainingKernels, MissingTableSaysToRunCorpusPreprocess) {
  auto db = Database::open(":memory:");
  ASSERT_TRUE(db.ok());
  auto kernels = read_training_kernels(*db);
  ASSERT_FALSE(kernels.ok());
  EXPECT_EQ(kernels.status().code(), ErrorCode::kNotFound);
  EXPECT_NE(kernels.status().message().find("clgen corpus preprocess"), std::string::npos);
}

std::vector<std::string> rows(Database& db) {
  std::vector<std::string> out;
  auto st = db.prepare("SELECT normalized_sha256, against, rule, score, at FROM decontaminated ORDER BY 1");
  EXPECT_TRUE(st.ok());
  while (*st->step())
    out.push_back(st->column_text(0) + "|" + st->column_text(1) + "|" + st->column_text(2) + "|" +
                  std::to_string(st->column_double(3)) + "|" + st->column_text(4));
  return out;
}

TEST(RecordContamination, IsIdempotentAndKeepsOtherKernelsRows) {
  Database db = training_db();
  std::vector<Contamination> drops = {{"h1", "/eval/a.cl", decontamination_rule::kIdentical, 1.0}};
  ASSERT_TRUE(record_contamination(db, drops).ok());
  std::vector<std::string> first = rows(db);
  ASSERT_EQ(first.size(), 1u);
  ASSERT_TRUE(record_contamination(db, drops).ok());
  EXPECT_EQ(rows(db), first);  // same rows, same `at`
  ASSERT_TRUE(record_contamination(db, {{"h2", "/eval/b.cl", decontamination_rule::kNgramOverlapEval, 0.9}}).ok());
  EXPECT_EQ(rows(db).size(), 2u);
  auto hashes = decontaminated_hashes(db);
  ASSERT_TRUE(hashes.ok());
  EXPECT_EQ(*hashes, (std::unordered_set<std::string>{"h1", "h2"}));
}

TEST(ExcludeDecontaminatedSql, IsEmptyWithoutTheTableAndLeavesOutRecordedKernels) {
  Database db = training_db();
  auto none = exclude_decontaminated_sql(db);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(*none, "");
  auto empty = decontaminated_hashes(db);
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());

  ASSERT_TRUE(record_contamination(db, {{"h1", "/eval/a.cl", decontamination_rule::kIdentical, 1.0}}).ok());
  auto sql = exclude_decontaminated_sql(db);
  ASSERT_TRUE(sql.ok());
  auto st = db.prepare("SELECT DISTINCT normalized_text FROM preprocessed WHERE status = 'ok' "
                       "AND preprocessor_version = 'v2'" + *sql + " ORDER BY 1");
  ASSERT_TRUE(st.ok()) << st.status().message();
  std::vector<std::string> texts;
  while (*st->step()) texts.push_back(st->column_text(0));
  EXPECT_EQ(texts, (std::vector<std::string>{"two"}));
}

TEST(DecontaminationRuleText, StatesTheThresholdAndN) {
  DecontaminateOptions o;
  o.threshold = 0.75;
  o.ngram = 6;
  std::string text = decontamination_rule_text(o);
  EXPECT_NE(text.find("at least 0.75 of its distinct 6-token n-grams"), std::string::npos) << text;
  EXPECT_NE(text.find("ngram_overlap_eval"), std::string::npos);
}

}  // namespace
}  // namespace clgen::preprocess

namespace clgen::preprocess {
namespace {

// Scale: 10,000 training kernels against 1,000 evaluation files, made from the
// ok kernels of a real workspace (CLGEN_DECON_BENCH_DB=<workspace>/clgen.db)
// with one line dropped and one number changed each, so every kernel has many
// near copies on both sides (long posting lists: the slow case). Run by hand:
// decontaminate_test --gtest_also_run_disabled_tests --gtest_filter='*Scale*'
TEST(DecontaminateScale, DISABLED_TenThousandKernelsAgainstAThousandFilesInSeconds) {
  const char* path = std::getenv("CLGEN_DECON_BENCH_DB");
  if (!path) GTEST_SKIP() << "set CLGEN_DECON_BENCH_DB to a preprocessed workspace database";
  auto db = Database::open(path);
  ASSERT_TRUE(db.ok());
  auto real = read_training_kernels(*db);
  ASSERT_TRUE(real.ok() && !real->empty());
  uint64_t seed = 42;
  auto next = [&seed] { return (seed = seed * 6364136223846793005ull + 1442695040888963407ull) >> 33; };
  auto variant = [&](const std::string& text) {
    std::vector<std::string> lines;
    size_t start = 0;
    while (start < text.size()) {
      size_t end = text.find('\n', start);
      if (end == std::string::npos) end = text.size();
      lines.push_back(text.substr(start, end - start));
      start = end + 1;
    }
    if (lines.size() > 3) lines.erase(lines.begin() + 1 + next() % (lines.size() - 2));
    std::string out;
    for (const std::string& l : lines) out += l + "\n";
    out += "int unique_" + std::to_string(next()) + " = " + std::to_string(next() % 1000) + ";\n";
    return out;
  };
  std::vector<TrainingKernel> train;
  std::vector<EvaluationKernel> eval;
  for (size_t i = 0; i < 10000; ++i) {
    std::string t = variant((*real)[i % real->size()].text);
    train.push_back({sha256_hex(t), t});
  }
  for (size_t i = 0; i < 1000; ++i) eval.push_back({"eval/" + std::to_string(i), variant((*real)[(i * 7) % real->size()].text), true, ""});
  size_t tokens = 0;
  for (const auto& t : train) tokens += c_tokens(t.text).size();
  auto t0 = std::chrono::steady_clock::now();
  auto drops = find_contamination(train, eval);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%zu real kernels, %zu training tokens: %zu of %zu dropped in %.2f s\n", real->size(), tokens,
              drops.size(), train.size(), s);
  EXPECT_LT(s, 30.0);
}

}  // namespace
}  // namespace clgen::preprocess
