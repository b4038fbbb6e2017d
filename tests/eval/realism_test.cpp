// The realism report's measures (eval/realism.h): the judge on
// sets it must not and must tell apart, AUC, length matching, shape counts,
// distances, coverage and novelty on hand-made sets with hand-derived counts.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "corpus/preprocess/tokens.h"
#include "eval/kernel_sets.h"
#include "eval/realism.h"
#include "support/sha256.h"
#include "support/sqlite.h"

namespace clgen::realism {
namespace {

// Varied kernel-like texts from a fixed seed: a signature, then 2..9
// statements drawn from a few shapes with random names and constants.
std::vector<std::string> generated_kernels(size_t n, uint32_t seed) {
  std::mt19937 g(seed);
  auto pick = [&](int k) { return int(g() % uint32_t(k)); };
  const char* types[] = {"float", "int", "uint", "float4", "double"};
  const char* ops[] = {"+", "-", "*", "/", "^", "&"};
  std::vector<std::string> out;
  for (size_t i = 0; i < n; ++i) {
    std::string t = types[pick(5)];
    std::string s = "__kernel void A(__global " + t + "* a, __global " + t + "* b";
    if (pick(2)) s += ", const int c";
    s += ") {\n  int d = get_global_id(0);\n";
    int stmts = 2 + pick(8);
    for (int k = 0; k < stmts; ++k) {
      std::string v = std::string(1, char('e' + pick(6)));
      std::string num = std::to_string(pick(100));
      switch (pick(7)) {
        case 0: s += "  a[d] = b[d] " + std::string(ops[pick(6)]) + " " + num + ";\n"; break;
        case 1: s += "  " + t + " " + v + " = a[d + " + num + "];\n"; break;
        case 2: s += "  if (d < " + num + ") {\n    b[d] = a[d];\n  }\n"; break;
        case 3:
          s += "  for (int " + v + " = 0; " + v + " < " + num + "; " + v + "++) {\n    a[d] += b[" + v + "];\n  }\n";
          break;
        case 4: s += "  barrier(CLK_GLOBAL_MEM_FENCE);\n"; break;
        case 5: s += "  b[d] = a[d] > " + num + " ? a[d] : b[d];\n"; break;
        default: s += "  while (d > " + num + ") {\n    d -= " + std::to_string(1 + pick(9)) + ";\n  }\n"; break;
      }
    }
    out.push_back(s + "}\n");
  }
  return out;
}

std::vector<Tokens> tokenize(const std::vector<std::string>& texts) {
  std::vector<Tokens> out;
  for (const auto& t : texts) out.push_back(preprocess::c_tokens(t));
  return out;
}

std::vector<const Tokens*> refs(const std::vector<Tokens>& v, size_t begin = 0, size_t end = SIZE_MAX) {
  std::vector<const Tokens*> out;
  for (size_t i = begin; i < std::min(end, v.size()); ++i) out.push_back(&v[i]);
  return out;
}

JudgeOptions small_judge() {
  JudgeOptions o;
  o.features = 500;
  o.epochs = 20;
  return o;
}

TEST(Judge, AucIsNearHalfOnTwoRandomHalvesOfOneSet) {
  // The generator draws every kernel from one distribution, so its two
  // halves differ only by chance: the AUC's standard deviation under the null
  // is sqrt((n1 + n2 + 1) / (12 n1 n2)) = 0.041 for 100 a side; 0.15 is > 3 of them.
  std::vector<Tokens> all = tokenize(generated_kernels(200, 7));
  Expected<JudgeResult> r = judge(refs(all, 0, 100), refs(all, 100), small_judge());
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->per_side, 100u);
  EXPECT_GE(r->auc, 0.35);
  EXPECT_LE(r->auc, 0.65);
  EXPECT_EQ(r->fold_auc.size(), 5u);
}

TEST(Judge, AucIsNearOneAgainstTokenShuffledCopies) {
  // A shuffled copy has the same tokens (the same 1-grams) but almost none of
  // the human 2- and 3-grams, which the judge must find.
  std::vector<Tokens> human = tokenize(generated_kernels(120, 11));
  std::vector<Tokens> shuffled = human;
  std::mt19937 g(3);
  for (Tokens& t : shuffled) std::shuffle(t.begin(), t.end(), g);
  Expected<JudgeResult> r = judge(refs(shuffled), refs(human), small_judge());
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_GE(r->auc, 0.95);
  EXPECT_LE(r->called_human, 0.2);  // shuffled copies scored below 0.5 on their held-out folds
}

TEST(Judge, PairedSidesKeepTheirSizes) {
  std::vector<Tokens> all = tokenize(generated_kernels(60, 5));
  Expected<JudgeResult> r = judge(refs(all, 0, 20), refs(all, 20, 40), small_judge(), /*paired=*/true);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->per_side, 20u);
  EXPECT_FALSE(judge(refs(all, 0, 20), refs(all, 20, 41), small_judge(), true).ok());
}

TEST(Judge, RejectsSidesSmallerThanTheFolds) {
  std::vector<Tokens> all = tokenize(generated_kernels(8, 5));
  Expected<JudgeResult> r = judge(refs(all, 0, 4), refs(all, 4), small_judge());  // 4 a side, 5 folds
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("at least 5 kernels a side"), std::string::npos) << r.status().message();
}

TEST(Auc, CountsTiesAsOneHalf) {
  // Pairs (positive, negative): (1,0) 1, (1,2) 0, (2,0) 1, (2,2) 1/2: 2.5 of 4.
  EXPECT_DOUBLE_EQ(auc({1, 2}, {0, 2}), 0.625);
  EXPECT_DOUBLE_EQ(auc({3, 4}, {1, 2}), 1.0);
  EXPECT_DOUBLE_EQ(auc({1, 2}, {3, 4}), 0.0);
  EXPECT_DOUBLE_EQ(auc({}, {1}), 0.5);
}

TEST(MatchLengths, PairsEachSampleWithTheNearestFreeHumanKernelWithinTolerance) {
  // Tolerance max(2, 5% of the sample's length): 10 -> 2, 50 -> 2, 100 -> 5, 300 -> 15.
  // 10 pairs with 12 (2 away), 50 with 49, 100 with 101; 300 has nothing within 15 (200 is 100 away).
  std::vector<LengthPair> p = match_lengths({10, 50, 100, 300}, {12, 49, 200, 101}, 1);
  ASSERT_EQ(p.size(), 3u);
  std::map<size_t, size_t> by_sample;
  for (const auto& x : p) by_sample[x.sample] = x.human;
  EXPECT_EQ(by_sample.at(0), 0u);
  EXPECT_EQ(by_sample.at(1), 1u);
  EXPECT_EQ(by_sample.at(2), 3u);
  EXPECT_EQ(by_sample.count(3), 0u);
}

TEST(MatchLengths, UsesEachHumanKernelOnce) {
  // Two samples of length 10, one human kernel of 10 and one of 13 (3 away: beyond the slack of 2).
  std::vector<LengthPair> p = match_lengths({10, 10}, {10, 13}, 1);
  ASSERT_EQ(p.size(), 1u);
  EXPECT_EQ(p[0].human, 0u);
}

TEST(ShapeCounts, CountsStatementsLoopsAndBranches) {
  std::string text =
      "__kernel void A(__global float* a, const int b) {\n"
      "  int c = get_global_id(0);\n"      // ; -> statement 1
      "  for (int d = 0; d < b; d++) {\n"  // for: statement 2, loop 1 (its ;s are in parentheses)
      "    if (a[d] > 0) {\n"              // if: statement 3, branch 1
      "      a[c] += a[d];\n"              // statement 4
      "    }\n"
      "  }\n"
      "  do {\n"              // do: statement 5, loop 2
      "    c--;\n"            // statement 6
      "  } while (c > 0);\n"  // closes the do: no loop; its ; -> statement 7
      "  while (c < 4) {\n"   // while: statement 8, loop 3
      "    c++;\n"            // statement 9
      "  }\n"
      "  a[c] = c > 1 ? 1.0f : 2.0f;\n"  // statement 10, branch 2 (?)
      "  switch (b) {\n"                 // statement 11
      "    case 1:\n"                    // branch 3
      "      a[0] = 0;\n"                // statement 12
      "  }\n"
      "}\n";
  ShapeCounts c = shape_counts(preprocess::c_tokens(text));
  EXPECT_EQ(c.statements, 12);
  EXPECT_EQ(c.loops, 3);
  EXPECT_EQ(c.branches, 3);
  EXPECT_EQ(c.tokens, long(preprocess::c_tokens(text).size()));
}

TEST(Distributions, KsStatisticIsTheLargestCdfGap) {
  EXPECT_DOUBLE_EQ(ks_statistic({1, 2, 3}, {3, 2, 1}), 0.0);
  EXPECT_DOUBLE_EQ(ks_statistic({1, 2}, {3, 4}), 1.0);
  // At 2: F_a = 2/4, F_b = 0; at 4: 1 against 2/4; never more than 1/2 apart.
  EXPECT_DOUBLE_EQ(ks_statistic({1, 2, 3, 4}, {3, 4, 5, 6}), 0.5);
  // Ties across the sets step both CDFs together: at 1, 1/2 against 1/3.
  EXPECT_NEAR(ks_statistic({1, 2}, {1, 5, 6}), 2.0 / 3.0, 1e-12);  // at 2: 1 against 1/3
  EXPECT_DOUBLE_EQ(median({5, 1, 3}), 3.0);
  EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
}

TEST(Coverage, CountsHumanKernelsWhoseVectorSomeSampleHas) {
  using V = features::GreweVector;
  std::vector<std::optional<V>> samples = {V{1, 0, 2, 0, 2, 0}, V{3, 1, 1, 0, 1, 0}, std::nullopt};
  // Humans: two copies of the first sample's vector (both matched), one vector
  // no sample has, one without features (counted nowhere): 2 of 3 matched,
  // 2 distinct human vectors of which 1 matched.
  std::vector<std::optional<V>> humans = {V{1, 0, 2, 0, 2, 0}, V{1, 0, 2, 0, 2, 0}, V{1, 0, 2, 0, 2, 1}, std::nullopt};
  Coverage c = coverage(samples, humans);
  EXPECT_EQ(c.humans, 3u);
  EXPECT_EQ(c.matched, 2u);
  EXPECT_EQ(c.human_vectors, 2u);
  EXPECT_EQ(c.matched_vectors, 1u);
  EXPECT_DOUBLE_EQ(c.share, 2.0 / 3.0);
}

Tokens words(const std::string& prefix, int from, int to) {
  Tokens t;
  for (int i = from; i < to; ++i) t.push_back(prefix + std::to_string(i));
  return t;
}

TEST(Novelty, CountsSamplesWhoseEightGramsOneTrainingKernelHolds) {
  // Training: t0..t19 (13 distinct 8-grams) and u0..u9.
  std::vector<Tokens> training = {words("t", 0, 20), words("u", 0, 10)};
  NgramIndex index(refs(training), 8);
  Tokens copy = words("t", 0, 20);  // all 13 of its 8-grams in kernel 0: containment 1
  Tokens half = words("t", 0, 15);  // t0..t14 then x0..x4: 13 8-grams, those starting at 0..7 in kernel 0: 8/13
  for (const auto& x : words("x", 0, 5)) half.push_back(x);
  Tokens mixed = words("t", 12, 20);  // t12..t19 (one 8-gram of kernel 0) then u0..u7 (one of kernel 1),
  for (const auto& x : words("u", 0, 8)) mixed.push_back(x);  // 9 8-grams: 2 found anywhere, best 1/9
  Tokens shorter = words("t", 0, 7);                          // 7 tokens: no 8-gram, not scored
  NgramIndex::Match m = index.match(half);
  EXPECT_EQ(m.ngrams, 13u);
  EXPECT_DOUBLE_EQ(m.best, 8.0 / 13.0);
  EXPECT_EQ(m.best_kernel, 0);
  NgramIndex::Match mm = index.match(mixed);
  EXPECT_EQ(mm.ngrams, 9u);
  EXPECT_DOUBLE_EQ(mm.best, 1.0 / 9.0);
  EXPECT_DOUBLE_EQ(mm.anywhere, 2.0 / 9.0);
  Novelty n = novelty({&copy, &half, &mixed, &shorter}, index, 0.8);
  EXPECT_EQ(n.samples, 4u);
  EXPECT_EQ(n.scored, 3u);
  EXPECT_EQ(n.near_copies, 1u);  // only the copy reaches 0.8
  EXPECT_DOUBLE_EQ(n.share, 1.0 / 3.0);
  EXPECT_NEAR(n.mean_anywhere, (1.0 + 8.0 / 13.0 + 2.0 / 9.0) / 3.0, 1e-12);
}

// The benchmark-grade reference: only kernels with a passing run of the
// dynamic checker stay, on both sides of the split.
TEST(BenchmarkGradeSplit, KeepsOnlyKernelsWithAPassingRun) {
  auto db = Database::open(":memory:");
  ASSERT_TRUE(db.ok()) << db.status().message();
  EXPECT_FALSE(benchmark_grade_split(*db, HumanSplit{}).ok()) << "no runs table: nothing says what passed";
  ASSERT_TRUE(db->exec("CREATE TABLE runs (kernel_sha256 TEXT, kernel_name TEXT, outcome TEXT)").ok());
  HumanSplit split;
  for (const char* t : {"train pass", "train fail", "train other kernel passes"}) split.training.add(t, "corpus");
  for (const char* t : {"held pass", "held never driven"}) split.held_out.add(t, "corpus");
  auto run = [&](const std::string& text, const std::string& kernel, const std::string& outcome) {
    auto st = db->prepare("INSERT INTO runs VALUES (?1, ?2, ?3)");
    ASSERT_TRUE(st.ok());
    ASSERT_TRUE(st->bind(1, sha256_hex(text)).ok());
    ASSERT_TRUE(st->bind(2, kernel).ok());
    ASSERT_TRUE(st->bind(3, outcome).ok());
    ASSERT_TRUE(st->step().ok());
  };
  run("train pass", "A", "pass");
  run("train fail", "A", "no output");
  run("train other kernel passes", "A", "crash");
  run("train other kernel passes", "B", "pass");  // a text passes when one of its kernels does
  run("held pass", "A", "pass");
  auto graded = benchmark_grade_split(*db, split);
  ASSERT_TRUE(graded.ok()) << graded.status().message();
  EXPECT_EQ(graded->training.texts, (std::vector<std::string>{"train pass", "train other kernel passes"}));
  EXPECT_EQ(graded->held_out.texts, (std::vector<std::string>{"held pass"}));
}

}  // namespace
}  // namespace clgen::realism
