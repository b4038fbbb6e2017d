// Tests of decontamination: the C tokenizer, n-gram containment, the
// name-insensitive tokens, the comparison of evaluation kernels normalized by
// the training pipeline (tests/data/decontaminate/kernels) and the table.
#include "corpus/preprocess/decontaminate.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>

#include <gtest/gtest.h>

#include "corpus/preprocess/decontaminated_sql.h"
#include "corpus/preprocess/ngram_index.h"
#include "corpus/preprocess/tokens.h"
#include "support/files.h"
#include "support/sha256.h"

namespace clgen::preprocess {
namespace {

using Tokens = std::vector<std::string>;

std::string fixture(const std::string& rel) {
  auto text = read_file(std::string(CLGEN_TEST_DATA) + "/decontaminate/kernels/" + rel);
  EXPECT_TRUE(text.ok()) << text.status().message();
  return text.ok() ? *text : "";
}

// The training kernels of a file as `clgen corpus preprocess` stores them:
// rewrite_kernels, one text per accepted kernel.
std::vector<TrainingKernel> training_of(const std::string& rel) {
  FileRewriteResult r = rewrite_kernels(fixture(rel));
  EXPECT_EQ(r.status, RewriteStatus::kOk) << rel << ": " << r.reason;
  std::vector<TrainingKernel> out;
  for (const RewriteResult& k : r.kernels) {
    EXPECT_EQ(k.status, RewriteStatus::kOk) << rel << ": " << k.kernel_name << ": " << k.reason;
    out.push_back({sha256_hex(k.text), k.text});
  }
  return out;
}

// The evaluation kernels of a file (or of `text` in its place).
std::vector<EvaluationKernel> evaluation_of(const std::string& rel, std::string text = "") {
  if (text.empty()) text = fixture(rel);
  return evaluation_kernels_of("eval/" + rel, text, rewrite_kernels(text));
}

// --- Tokenizer --------------------------------------------------------------

TEST(CTokens, SplitsIdentifiersNumbersLiteralsAndLongestPunctuators) {
  EXPECT_EQ(c_tokens("a<<=b->c++;"), (Tokens{"a", "<<=", "b", "->", "c", "++", ";"}));
  EXPECT_EQ(c_tokens("x = 1.5e-3f + 0x1F + .5;"), (Tokens{"x", "=", "1.5e-3f", "+", "0x1F", "+", ".5", ";"}));
  EXPECT_EQ(c_tokens("s = \"a b; // no\" + 'c';"), (Tokens{"s", "=", "\"a b; // no\"", "+", "'c'", ";"}));
  EXPECT_EQ(c_tokens("a>>b>=c&&d||e!=f"), (Tokens{"a", ">>", "b", ">=", "c", "&&", "d", "||", "e", "!=", "f"}));
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
  auto whole = ngram_hashes(Tokens{"a", "b", "c", "d", "e"}, 2);  // ab bc cd de
  auto part = ngram_hashes(Tokens{"b", "c", "d"}, 2);             // bc cd
  auto half = ngram_hashes(Tokens{"c", "d", "x"}, 2);             // cd dx: 1 of 2
  EXPECT_DOUBLE_EQ(containment(part, whole), 1.0);
  EXPECT_DOUBLE_EQ(containment(whole, part), 0.5);  // 2 of 4
  EXPECT_DOUBLE_EQ(containment(half, whole), 0.5);
  EXPECT_DOUBLE_EQ(containment({}, whole), 0.0);
}

TEST(NgramIndex, FindsTheTextHoldingMostOfTheQuerysNgrams) {
  auto a = ngram_hashes(Tokens{"a", "b", "c", "d", "e"}, 2);  // ab bc cd de
  auto b = ngram_hashes(Tokens{"c", "d", "x", "y"}, 2);       // cd dx xy
  NgramIndex index({a, b});
  EXPECT_EQ(index.texts(), 2u);
  NgramIndex::Match m = index.match(ngram_hashes(Tokens{"b", "c", "d", "x"}, 2));  // bc cd dx
  EXPECT_EQ(m.ngrams, 3u);
  EXPECT_EQ(m.best_text, 0);  // bc cd against cd dx: a tie at 2, the lower index wins
  EXPECT_DOUBLE_EQ(m.best, 2.0 / 3.0);
  EXPECT_DOUBLE_EQ(m.anywhere, 1.0);
  NgramIndex::Match none = index.match(ngram_hashes(Tokens{"p", "q"}, 2));
  EXPECT_EQ(none.best_text, -1);
  EXPECT_DOUBLE_EQ(none.best, 0.0);
  EXPECT_EQ(index.match({}).ngrams, 0u);
}

// --- Name-insensitive tokens ---------------------------------------------------

TEST(ShapeTokenHashes, MapRenamedNamesToOneClassAndKeepKeywordsBuiltinsAndNumbers) {
  // Normalized text: a, b, A and B are generated names; float, return,
  // max, get_global_id, 2 and the punctuators are not.
  auto one = shape_token_hashes("float A(float a) { return max(a, b) * 2 + get_global_id(0); }", true);
  auto two = shape_token_hashes("float B(float c) { return max(d, c) * 2 + get_global_id(0); }", true);
  EXPECT_EQ(one, two);
  EXPECT_NE(one, shape_token_hashes("float A(float a) { return min(a, b) * 2 + get_global_id(0); }", true));
  EXPECT_NE(one, shape_token_hashes("float A(float a) { return max(a, b) * 3 + get_global_id(0); }", true));
  std::vector<uint64_t> renamed = token_hashes("float A(float a) { return max(a, b); }");
  std::vector<uint64_t> shape = shape_token_hashes("float A(float a) { return max(a, b); }", true);
  // Tokens: float A ( float a ) { return max ( a , b ) ; }: A, a, a, b are the class.
  ASSERT_EQ(shape.size(), renamed.size());
  EXPECT_EQ(shape[1], shape[4]);
  EXPECT_EQ(shape[4], shape[12]);
  EXPECT_EQ(shape[0], renamed[0]);  // float
  EXPECT_EQ(shape[8], renamed[8]);  // max
}

TEST(ShapeTokenHashes, RawTextKeepsOnlyTheIdentifiersTheTrainingTextsKeep) {
  std::vector<TrainingKernel> train = {{"h", "__kernel void A(__global float* a) { a[get_global_id(0)] = 0; }"}};
  std::unordered_set<uint64_t> kept = shape_kept_identifiers(train);
  // Raw: `out` and `zero_it` are names (not kept by training), the rest is kept.
  EXPECT_EQ(
      shape_token_hashes("__kernel void zero_it(__global float* out) { out[get_global_id(0)] = 0; }", false, &kept),
      shape_token_hashes(train[0].text, true));
}

// --- Evaluation kernels through the training pipeline ----------------------------

TEST(EvaluationKernelsOf, GivesEachKernelTheTrainingSetsTextWithOnlyTheHelpersItReaches) {
  std::vector<TrainingKernel> train = training_of("two_kernels.cl");
  std::vector<EvaluationKernel> eval = evaluation_of("two_kernels.cl");
  ASSERT_EQ(train.size(), 2u);
  ASSERT_EQ(eval.size(), 2u);
  EXPECT_EQ(eval[0].kernel, "diffuse_row");
  EXPECT_EQ(eval[1].kernel, "gradient_energy");
  for (size_t i = 0; i < 2; ++i) {
    EXPECT_TRUE(eval[i].normalized) << eval[i].note;
    EXPECT_EQ(eval[i].text, train[i].text);
    // tile_offset, the one helper returning int, is called by neither kernel.
    EXPECT_EQ(eval[i].text.find("int A("), std::string::npos) << eval[i].text;
  }
}

TEST(EvaluationKernelsOf, ARejectedFileIsOneRawEntryNamingWhy) {
  std::vector<EvaluationKernel> eval = evaluation_of("broken.cl", fixture("two_kernels.cl") + "\nint oops(\n");
  ASSERT_EQ(eval.size(), 1u);
  EXPECT_FALSE(eval[0].normalized);
  EXPECT_EQ(eval[0].kernel, "");
  EXPECT_NE(eval[0].note.find("rejected ["), std::string::npos) << eval[0].note;
  EXPECT_EQ(eval[0].text.find("Two kernels"), std::string::npos);  // comment stripped
  EXPECT_NE(eval[0].text.find("__kernel void diffuse_row ( __global const float * in"), std::string::npos)
      << eval[0].text;
}

class FindContamination : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    train_ = new std::vector<TrainingKernel>(training_of("two_kernels.cl"));  // diffuse_row, gradient_energy
    train_->push_back(training_of("unrelated.cl")[0]);  // never in the evaluation sets below but for one test
  }
  static void TearDownTestSuite() { delete train_; }
  // The drop of training kernel `i`, or nullptr when it is kept.
  static const Contamination* drop_of(const std::vector<Contamination>& drops, size_t i) {
    for (const Contamination& d : drops)
      if (d.normalized_sha256 == (*train_)[i].normalized_sha256) return &d;
    return nullptr;
  }
  static double renamed_containment(size_t train, const EvaluationKernel& e) {
    return containment(ngram_hashes(c_tokens((*train_)[train].text), 8), ngram_hashes(c_tokens(e.text), 8));
  }
  static std::vector<TrainingKernel>* train_;
};
std::vector<TrainingKernel>* FindContamination::train_ = nullptr;

TEST_F(FindContamination, DropsBothKernelsOfACopiedFileWithAnUnusedHelper) {
  std::vector<EvaluationKernel> eval = evaluation_of("two_kernels.cl");
  auto drops = find_contamination(*train_, eval, {}, 2);
  ASSERT_EQ(drops.size(), 2u);
  for (size_t i = 0; i < 2; ++i) {
    const Contamination* d = drop_of(drops, i);
    ASSERT_NE(d, nullptr) << i;
    EXPECT_EQ(d->rule, decontamination_rule::kIdentical);
    EXPECT_EQ(d->against, "eval/two_kernels.cl");
    EXPECT_EQ(d->against_kernel, i == 0 ? "diffuse_row" : "gradient_energy");
    EXPECT_DOUBLE_EQ(d->score, 1.0);
  }
}

TEST_F(FindContamination, DropsARenamedCopyOfOneKernel) {
  std::vector<EvaluationKernel> eval = evaluation_of("renamed_copy.cl");
  ASSERT_EQ(eval.size(), 1u);
  auto drops = find_contamination(*train_, eval, {}, 2);
  ASSERT_EQ(drops.size(), 1u);
  const Contamination* d = drop_of(drops, 0);
  ASSERT_NE(d, nullptr);
  // Its helpers come in the training kernel's order: identical once renamed.
  EXPECT_EQ(d->rule, decontamination_rule::kIdentical);
  EXPECT_EQ(d->against_kernel, "blurH");
}

TEST_F(FindContamination, DropsACopyWithItsHelpersInAnotherOrderByNameInsensitiveNgrams) {
  std::vector<EvaluationKernel> eval = evaluation_of("reordered_helpers.cl");
  ASSERT_EQ(eval.size(), 1u);
  // Renamed in another order, the texts share few 8-grams: the renamed rules miss it.
  EXPECT_LT(renamed_containment(1, eval[0]), 0.8);
  auto drops = find_contamination(*train_, eval, {}, 2);
  ASSERT_EQ(drops.size(), 1u);
  const Contamination* d = drop_of(drops, 1);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->rule.substr(0, 14), "shape_overlap_") << d->rule;
  EXPECT_GE(d->score, 0.9);
}

TEST_F(FindContamination, DropsACopyWithAHelperAdded) {
  std::vector<EvaluationKernel> eval = evaluation_of("added_helper.cl");
  ASSERT_EQ(eval.size(), 1u);
  EXPECT_LT(renamed_containment(1, eval[0]), 0.8);
  auto drops = find_contamination(*train_, eval, {}, 2);
  ASSERT_EQ(drops.size(), 1u);
  const Contamination* d = drop_of(drops, 1);
  ASSERT_NE(d, nullptr);
  EXPECT_EQ(d->rule.substr(0, 14), "shape_overlap_") << d->rule;
}

TEST_F(FindContamination, DropsTheKernelsOfARejectedCopyByItsRawTokens) {
  // The copy fails to compile (a stray line), so it is one raw entry; its
  // names are not renamed, but the name-insensitive tokens still match.
  std::vector<EvaluationKernel> eval = evaluation_of("broken.cl", fixture("two_kernels.cl") + "\nint oops(\n");
  ASSERT_EQ(eval.size(), 1u);
  ASSERT_FALSE(eval[0].normalized);
  auto drops = find_contamination(*train_, eval, {}, 2);
  ASSERT_NE(drop_of(drops, 0), nullptr);
  EXPECT_EQ(drop_of(drops, 0)->rule, decontamination_rule::kShapeOverlapTrain);
  EXPECT_EQ(drop_of(drops, 2), nullptr);
}

TEST_F(FindContamination, KeepsAnUnrelatedKernel) {
  std::vector<EvaluationKernel> eval = evaluation_of("unrelated.cl");
  std::vector<TrainingKernel> train(train_->begin(), train_->begin() + 2);
  EXPECT_TRUE(find_contamination(train, eval, {}, 2).empty());
  // ... and the unrelated training kernel stays against all the copies above.
  std::vector<EvaluationKernel> copies;
  for (const char* f : {"two_kernels.cl", "renamed_copy.cl", "reordered_helpers.cl", "added_helper.cl"})
    for (EvaluationKernel& k : evaluation_of(f)) copies.push_back(std::move(k));
  auto drops = find_contamination(*train_, copies, {}, 2);
  EXPECT_EQ(drops.size(), 2u);
  EXPECT_EQ(drop_of(drops, 2), nullptr);
}

TEST_F(FindContamination, AShapeThresholdAboveTheOverlapKeepsTheReorderedCopy) {
  std::vector<EvaluationKernel> eval = evaluation_of("reordered_helpers.cl");
  auto drops = find_contamination(*train_, eval, {}, 1);
  ASSERT_EQ(drops.size(), 1u);
  DecontaminateOptions strict;
  strict.shape_threshold = std::min(1.0, drops[0].score + 1e-9);
  if (drops[0].score < 1.0) {
    strict.shape_threshold = drops[0].score + 1e-6;
    EXPECT_TRUE(find_contamination(*train_, eval, strict, 1).empty());
  }
  DecontaminateOptions no_shape;
  no_shape.shape_min_ngrams = 1 << 20;  // no text is long enough
  EXPECT_TRUE(find_contamination(*train_, eval, no_shape, 1).empty());
}

TEST_F(FindContamination, GivesTheSameResultOnOneThreadAndMany) {
  std::vector<EvaluationKernel> copies;
  for (const char* f : {"two_kernels.cl", "reordered_helpers.cl", "unrelated.cl"})
    for (EvaluationKernel& k : evaluation_of(f)) copies.push_back(std::move(k));
  auto one = find_contamination(*train_, copies, {}, 1);
  auto many = find_contamination(*train_, copies, {}, 4);
  ASSERT_EQ(one.size(), many.size());
  for (size_t i = 0; i < one.size(); ++i) {
    EXPECT_EQ(one[i].normalized_sha256, many[i].normalized_sha256);
    EXPECT_EQ(one[i].against_kernel, many[i].against_kernel);
    EXPECT_EQ(one[i].rule, many[i].rule);
  }
}

TEST(FindContaminationShort, ComparesTextsWithFewerNgramsThanNByEqualityOnly) {
  // 6 tokens, n = 8: no n-grams at all.
  std::vector<TrainingKernel> train = {{"same", "int a = b ;"}, {"near", "int a = c ;"}};
  std::vector<EvaluationKernel> eval = {{"e.cl", "A", "int  a=b; // same tokens", true, ""}};
  auto drops = find_contamination(train, eval);
  ASSERT_EQ(drops.size(), 1u);
  EXPECT_EQ(drops[0].normalized_sha256, "same");
  EXPECT_EQ(drops[0].rule, decontamination_rule::kIdentical);
}

TEST(FindContaminationShort, NeedsAtLeastNDistinctNgramsOnBothSidesForOverlap) {
  // Training: 10 tokens -> 3 distinct 8-grams (< 8): equality only, even
  // though all its n-grams occur in the longer evaluation text. The tokens
  // are identifiers of five letters or more, so the shape tokens keep them,
  // but 30 tokens make 15 shape 16-grams, fewer than 40: no shape rule.
  Tokens long_tokens;
  for (int i = 0; i < 30; ++i) long_tokens.push_back("token" + std::to_string(i));
  std::string eval_text, train_text;
  for (int i = 0; i < 30; ++i) eval_text += long_tokens[i] + " ";
  for (int i = 0; i < 10; ++i) train_text += long_tokens[i] + " ";
  std::vector<TrainingKernel> train = {{"short", train_text}, {"long", eval_text + "extra"}};
  std::vector<EvaluationKernel> eval = {{"e.cl", "A", eval_text, true, ""}};
  auto drops = find_contamination(train, eval);
  ASSERT_EQ(drops.size(), 1u);
  EXPECT_EQ(drops[0].normalized_sha256, "long");
  // "long" has 24 distinct 8-grams, 23 of them in the evaluation text (0.958,
  // rule b), and holds all 23 of the evaluation text's (1.0, rule c): c wins.
  EXPECT_EQ(drops[0].rule, decontamination_rule::kNgramOverlapEval);
  EXPECT_DOUBLE_EQ(drops[0].score, 1.0);
}

// --- Evaluation directory -------------------------------------------------------

TEST(ReadEvaluationSet, NormalizesEveryKernelOfFilesOfAnyCaseAndSkipsSymlinksLeavingTheDirectory) {
  namespace fs = std::filesystem;
  fs::path tmp = fs::temp_directory_path() / ("clgen-decon-" + std::to_string(::getpid()));
  fs::remove_all(tmp);
  fs::create_directories(tmp / "eval/deep");
  ASSERT_TRUE(write_file_atomic((tmp / "outside.cl").string(), "__kernel void A() {}\n").ok());
  ASSERT_TRUE(write_file_atomic((tmp / "eval/a.CL").string(), fixture("two_kernels.cl")).ok());
  // An include beside the file is inlined, as the training set's were.
  ASSERT_TRUE(write_file_atomic((tmp / "eval/deep/helpers.h").string(),
                                "float clamp_unit(const float v) { return v < 0.0f ? 0.0f : (v > 1.0f ? 1.0f : v); }\n"
                                "float weight_of(const float distance, const float falloff) {\n"
                                "  float w = 1.0f / (1.0f + falloff * distance * distance);\n"
                                "  return w > 0.001f ? w : 0.0f;\n}\n")
                  .ok());
  std::string reordered = fixture("reordered_helpers.cl");
  std::string kernel = reordered.substr(reordered.find("__kernel"));
  ASSERT_TRUE(write_file_atomic((tmp / "eval/deep/b.opencl").string(), "#include \"helpers.h\"\n" + kernel).ok());
  ASSERT_TRUE(write_file_atomic((tmp / "eval/notes.txt").string(), "text").ok());
  fs::create_symlink(tmp / "outside.cl", tmp / "eval/escape.cl");
  fs::create_symlink(tmp / "eval/a.CL", tmp / "eval/inside.ocl");

  ReadEvaluationOptions o;
  o.threads = 2;
  o.budget.isolated = false;
  auto set = read_evaluation_set((tmp / "eval").string(), o);
  ASSERT_TRUE(set.ok()) << set.status().message();
  std::string root = fs::canonical(tmp / "eval").string();
  EXPECT_EQ(set->files, 3u);
  ASSERT_EQ(set->kernels.size(), 5u);
  EXPECT_EQ(evaluation_kernel_name(set->kernels[0]), root + "/a.CL:diffuse_row");
  EXPECT_EQ(evaluation_kernel_name(set->kernels[1]), root + "/a.CL:gradient_energy");
  EXPECT_EQ(evaluation_kernel_name(set->kernels[2]), root + "/deep/b.opencl:gradient_energy");
  EXPECT_TRUE(set->kernels[2].normalized) << set->kernels[2].note;
  EXPECT_EQ(evaluation_kernel_name(set->kernels[3]), root + "/inside.ocl:diffuse_row");  // a link inside
  ASSERT_EQ(set->skipped.size(), 1u);
  EXPECT_NE(set->skipped[0].find("escape.cl: symlink leading outside"), std::string::npos) << set->skipped[0];
  // The header's helpers came in through the include: the same kernel as the reordered copy.
  // (Token for token: the inlined header leaves a blank line of its own.)
  EXPECT_EQ(c_tokens(set->kernels[2].text), c_tokens(evaluation_of("reordered_helpers.cl")[0].text));
  fs::remove_all(tmp);
}

TEST(ReadEvaluationSet, MissingDirectoryIsNotFoundNamingIt) {
  auto set = read_evaluation_set("/nonexistent/eval-dir");
  ASSERT_FALSE(set.ok());
  EXPECT_EQ(set.status().code(), ErrorCode::kNotFound);
  EXPECT_NE(set.status().message().find("/nonexistent/eval-dir"), std::string::npos);
}

TEST(IsOpenclFileName, AcceptsTheFourExtensionsInAnyCase) {
  for (const char* name : {"a.cl", "a.CL", "b.ocl", "c.Clh", "d.OPENCL"})
    EXPECT_TRUE(is_opencl_file_name(name)) << name;
  for (const char* name : {"a.c", "a.h", "cl", "a.cl.txt", ".cl"}) EXPECT_FALSE(is_opencl_file_name(name)) << name;
}

// --- The table and the training-set readers ----------------------------------------

Database training_db() {
  auto db = Database::open(":memory:");
  EXPECT_TRUE(db.ok());
  EXPECT_TRUE(
      db->exec(
            "CREATE TABLE preprocessed(content_sha256 TEXT NOT NULL, preprocessor_version TEXT NOT NULL, "
            "kernel TEXT NOT NULL DEFAULT '', status TEXT NOT NULL, category TEXT, reason TEXT, normalized_text TEXT, "
            "normalized_sha256 TEXT, instruction_count INTEGER, PRIMARY KEY(content_sha256, preprocessor_version, kernel));"
            "INSERT INTO preprocessed VALUES('c1', 'v1', 'k', 'ok', NULL, NULL, 'old', 'h-old', 5);"
            "INSERT INTO preprocessed VALUES('c1', 'v2', 'k', 'ok', NULL, NULL, 'one', 'h1', 5);"
            "INSERT INTO preprocessed VALUES('c2', 'v2', 'k2', 'ok', NULL, NULL, 'two', 'h2', 5);"
            "INSERT INTO preprocessed VALUES('c3', 'v2', 'k3', 'ok', NULL, NULL, 'two', 'h2', 5);"
            "INSERT INTO preprocessed VALUES('c4', 'v2', '', 'rejected', 'parse_error', 'x', NULL, NULL, 0);")
          .ok());
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

TEST(TrainingOrigins, NameTheKernelOfTheNewestVersionWithoutCorpusTables) {
  Database db = training_db();
  auto origins = training_origins(db, {"h2", "h1", "unknown"});
  ASSERT_TRUE(origins.ok()) << origins.status().message();
  ASSERT_EQ(origins->size(), 3u);
  EXPECT_EQ((*origins)[0].kernel, "k2");  // of c2 and c3, the least kernel name
  EXPECT_EQ((*origins)[1].kernel, "k");
  EXPECT_EQ((*origins)[1].repository, "");  // no corpus tables
  EXPECT_EQ((*origins)[2].kernel, "");
}

std::vector<std::string> rows(Database& db) {
  std::vector<std::string> out;
  auto st =
      db.prepare("SELECT normalized_sha256, against, against_kernel, rule, score, at FROM decontaminated ORDER BY 1");
  EXPECT_TRUE(st.ok()) << st.status().message();
  if (!st.ok()) return out;
  while (*st->step())
    out.push_back(st->column_text(0) + "|" + st->column_text(1) + "|" + st->column_text(2) + "|" + st->column_text(3) +
                  "|" + std::to_string(st->column_double(4)) + "|" + st->column_text(5));
  return out;
}

TEST(RecordContamination, IsIdempotentAndKeepsOtherKernelsRows) {
  Database db = training_db();
  std::vector<Contamination> drops = {{"h1", "/eval/a.cl", "k_a", decontamination_rule::kIdentical, 1.0}};
  ASSERT_TRUE(record_contamination(db, drops).ok());
  std::vector<std::string> first = rows(db);
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(first[0].substr(0, 30), "h1|/eval/a.cl|k_a|identical|1.");
  ASSERT_TRUE(record_contamination(db, drops).ok());
  EXPECT_EQ(rows(db), first);  // same rows, same `at`
  ASSERT_TRUE(
      record_contamination(db, {{"h2", "/eval/b.cl", "k_b", decontamination_rule::kShapeOverlapEval, 0.9}}).ok());
  EXPECT_EQ(rows(db).size(), 2u);
  auto hashes = decontaminated_hashes(db);
  ASSERT_TRUE(hashes.ok());
  EXPECT_EQ(*hashes, (std::unordered_set<std::string>{"h1", "h2"}));
}

TEST(RecordContamination, ATableWithoutTheKernelColumnGainsItAndKeepsItsRows) {
  Database db = training_db();
  ASSERT_TRUE(db.exec("CREATE TABLE decontaminated (normalized_sha256 TEXT NOT NULL PRIMARY KEY, against TEXT NOT "
                      "NULL, rule TEXT NOT NULL, score REAL NOT NULL, at TEXT NOT NULL DEFAULT 'then');"
                      "INSERT INTO decontaminated (normalized_sha256, against, rule, score) "
                      "VALUES ('h-old', '/eval/old.cl', 'identical', 1);")
                  .ok());
  ASSERT_TRUE(record_contamination(db, {{"h1", "/eval/a.cl", "k_a", decontamination_rule::kIdentical, 1.0}}).ok());
  std::vector<std::string> r = rows(db);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[0], "h-old|/eval/old.cl||identical|1.000000|then");
  EXPECT_EQ(r[1].substr(0, 18), "h1|/eval/a.cl|k_a|");
}

TEST(ExcludeDecontaminatedSql, IsEmptyWithoutTheTableAndLeavesOutRecordedKernels) {
  Database db = training_db();
  auto none = exclude_decontaminated_sql(db);
  ASSERT_TRUE(none.ok());
  EXPECT_EQ(*none, "");
  auto empty = decontaminated_hashes(db);
  ASSERT_TRUE(empty.ok());
  EXPECT_TRUE(empty->empty());

  ASSERT_TRUE(record_contamination(db, {{"h1", "/eval/a.cl", "k", decontamination_rule::kIdentical, 1.0}}).ok());
  auto sql = exclude_decontaminated_sql(db);
  ASSERT_TRUE(sql.ok());
  auto st = db.prepare(
      "SELECT DISTINCT normalized_text FROM preprocessed WHERE status = 'ok' "
      "AND preprocessor_version = 'v2'" +
      *sql + " ORDER BY 1");
  ASSERT_TRUE(st.ok()) << st.status().message();
  std::vector<std::string> texts;
  while (*st->step()) texts.push_back(st->column_text(0));
  EXPECT_EQ(texts, (std::vector<std::string>{"two"}));
}

TEST(DecontaminationRuleText, StatesBothThresholdsAndNs) {
  DecontaminateOptions o;
  o.threshold = 0.75;
  o.ngram = 6;
  o.shape_threshold = 0.95;
  o.shape_ngram = 12;
  o.shape_min_ngrams = 30;
  std::string text = decontamination_rule_text(o);
  EXPECT_NE(text.find("at least 0.75 of its distinct 6-token n-grams"), std::string::npos) << text;
  EXPECT_NE(text.find("0.95 of the 12-token n-grams of name-insensitive tokens"), std::string::npos) << text;
  EXPECT_NE(text.find("at least 30 of them"), std::string::npos) << text;
  EXPECT_NE(text.find("shape_overlap_eval"), std::string::npos);
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
  for (size_t i = 0; i < 1000; ++i)
    eval.push_back({"eval/" + std::to_string(i), "k", variant((*real)[(i * 7) % real->size()].text), true, ""});
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
