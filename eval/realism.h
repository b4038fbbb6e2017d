// The realism report's measures (`clgen eval realism`, docs/EVAL.md): how far a
// set of kernels (samples) lies from human kernels. A judge (a token n-gram
// logistic regression, cross-validated on balanced sets), distributions of
// shape counts and Grewe features with their distances, coverage of the human
// Grewe vectors and novelty against the training text. Works on normalized
// texts and their tokens (preprocess::c_tokens); no Clang or OpenCV types here.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "corpus/preprocess/ngram_index.h"
#include "features/static_features.h"
#include "support/status.h"

namespace clgen::realism {

using Tokens = std::vector<std::string>;

// --- Shape counts ----------------------------------------------------------

// Counts on a kernel's tokens (docs/EVAL.md defines each):
//  statements: `;` outside parentheses (a for header's two do not count), plus
//              every if, for, while (but a do-while's), do and switch;
//  loops:      for, do, and while except the `while` that closes a do body;
//  branches:   if, case and the conditional operator `?`.
struct ShapeCounts {
  long tokens = 0, statements = 0, loops = 0, branches = 0;
};
ShapeCounts shape_counts(const Tokens& tokens);

// --- The judge ---------------------------------------------------------------

struct JudgeOptions {
  int folds = 5;            // k of the k-fold cross-validation
  uint64_t seed = 1;        // the balanced draw, the folds and the row order
  size_t max_per_side = 0;  // kernels drawn per side; 0 = as many as the smaller side has
  int max_n = 3;            // token 1..max_n-grams
  size_t features = 2000;   // n-grams kept: the most frequent by document frequency in the training folds
  bool binary = false;      // false: sublinear TF-IDF ((1 + ln tf) * idf), rows L2-normalized; true: presence * idf
  // OpenCV's mini-batch gradient descent (cv::ml::LogisticRegression, L2).
  int epochs = 30;
  int batch = 32;
  double learning_rate = 2.0;  // per step, on the batch's mean gradient
};

struct JudgeResult {
  size_t per_side = 0;           // kernels per side after balancing
  double auc = 0;                // pooled over the held-out folds' scores (Mann-Whitney)
  std::vector<double> fold_auc;  // each fold's own
  double called_human = 0;       // share of samples scored < 0.5 on their held-out fold
  double accuracy = 0;           // share of both sides on the right side of 0.5
};

// Trains k classifiers, each on k-1 folds of the two sides, scoring the held-out
// fold: the score is the probability of `positives` (samples) against
// `negatives` (human kernels). Each side is first cut to the same size by a
// seeded draw. With `paired` (both sides of equal size, item i of one matched
// with item i of the other) no draw is made and pairs share their fold.
// Fails when a side has fewer kernels than folds, or OpenCV fails.
Expected<JudgeResult> judge(const std::vector<const Tokens*>& positives, const std::vector<const Tokens*>& negatives,
                            const JudgeOptions& options, bool paired = false);

// The area under the ROC curve of `positive` scores against `negative` ones:
// the Mann-Whitney U over n_pos * n_neg, ties counting one half. 0.5 when a side is empty.
double auc(const std::vector<double>& positive, const std::vector<double>& negative);

// --- Length matching -------------------------------------------------------------

struct LengthPair {
  size_t sample = 0, human = 0;  // indices into the two length lists
};
// Pairs each sample (visited in a seeded random order) with the unused human
// kernel nearest in length, if within max(`slack`, `relative` * its length)
// tokens; a sample with none left that near stays unpaired. Each human kernel
// is used at most once.
std::vector<LengthPair> match_lengths(const std::vector<long>& sample_lengths, const std::vector<long>& human_lengths,
                                      uint64_t seed, double relative = 0.05, long slack = 2);

// --- Distributions -----------------------------------------------------------------

// The two-sample Kolmogorov-Smirnov statistic: the largest gap between the
// two empirical CDFs. 0 when either is empty.
double ks_statistic(std::vector<double> a, std::vector<double> b);
// The median (mean of the middle two for an even count); 0 when empty.
double median(std::vector<double> v);

// --- Coverage ------------------------------------------------------------------------

struct Coverage {
  size_t humans = 0;         // human kernels with features
  size_t matched = 0;        // of those, whose vector equals some sample's
  size_t human_vectors = 0;  // distinct human vectors
  size_t matched_vectors = 0;
  double share = 0;  // matched / humans (0 without humans)
};
// Kernels without features (nullopt) count on neither side.
Coverage coverage(const std::vector<std::optional<features::GreweVector>>& samples,
                  const std::vector<std::optional<features::GreweVector>>& humans);

// --- Novelty -----------------------------------------------------------------------

// The distinct token n-grams of every training kernel, hashed, with the
// kernels holding each (an inverted index).
class NgramIndex {
 public:
  NgramIndex(const std::vector<const Tokens*>& training, int n = 8);
  struct Match {
    size_t ngrams = 0;      // distinct n-grams of the query (0: shorter than n tokens)
    double best = 0;        // the most of them one training kernel holds, as a share
    long best_kernel = -1;  // that kernel (index into the training list), -1 when none
    double anywhere = 0;    // share of them found in any training kernel
  };
  Match match(const Tokens& query) const;
  int n() const { return n_; }

 private:
  int n_;
  preprocess::NgramIndex index_;
};

struct Novelty {
  int n = 8;
  double threshold = 0.8;
  size_t samples = 0;
  size_t scored = 0;         // samples with at least n tokens
  size_t near_copies = 0;    // scored samples whose best containment >= threshold
  double share = 0;          // near_copies / scored (0 when none is scored)
  double mean_anywhere = 0;  // mean share of a scored sample's n-grams found anywhere in the training text
  std::vector<double> best;  // per sample (0 for unscored ones)
};
Novelty novelty(const std::vector<const Tokens*>& samples, const NgramIndex& index, double threshold = 0.8);

}  // namespace clgen::realism
