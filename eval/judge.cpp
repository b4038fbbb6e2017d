// The judge: token n-gram TF-IDF features and OpenCV's logistic regression,
// k-fold cross-validated on balanced sets; AUC from the held-out scores.
#include <opencv2/core.hpp>
#include <opencv2/ml.hpp>

#include <algorithm>
#include <cmath>
#include <future>
#include <unordered_map>

#include <fmt/format.h>

#include "eval/hashing.h"
#include "eval/realism.h"
#include "support/thread_pool.h"

namespace clgen::realism {
namespace {

using Counts = std::vector<std::pair<uint64_t, float>>;  // n-gram hash -> count, sorted by hash

Counts ngram_counts(const Tokens& tokens, int max_n) {
  std::vector<uint64_t> h = detail::token_hashes(tokens);
  std::vector<uint64_t> all;
  for (int n = 1; n <= max_n; ++n)
    for (size_t i = 0; i + n <= h.size(); ++i) all.push_back(detail::ngram_hash(h, i, n));
  std::sort(all.begin(), all.end());
  Counts out;
  for (uint64_t key : all) {
    if (!out.empty() && out.back().first == key) {
      out.back().second += 1;
    } else {
      out.emplace_back(key, 1.0f);
    }
  }
  return out;
}

struct Doc {
  const Counts* counts;
  bool positive;
  int fold;
};

// The rows of `docs` over the vocabulary, weighted and L2-normalized.
cv::Mat feature_rows(const std::vector<const Doc*>& docs, const std::unordered_map<uint64_t, int>& column,
                     const std::vector<float>& idf, bool binary) {
  cv::Mat x = cv::Mat::zeros(int(docs.size()), int(idf.size()), CV_32F);
  for (size_t r = 0; r < docs.size(); ++r) {
    float* row = x.ptr<float>(int(r));
    double norm = 0;
    for (const auto& [key, count] : *docs[r]->counts) {
      auto it = column.find(key);
      if (it == column.end()) continue;
      float tf = binary ? 1.0f : 1.0f + std::log(count);
      float v = tf * idf[size_t(it->second)];
      row[it->second] = v;
      norm += double(v) * v;
    }
    if (norm > 0) {
      float inv = float(1 / std::sqrt(norm));
      for (int c = 0; c < x.cols; ++c) row[c] *= inv;
    }
  }
  return x;
}

struct FoldScores {
  std::vector<std::pair<size_t, double>> scores;  // doc index -> score
};

Expected<FoldScores> run_fold(const std::vector<Doc>& docs, int fold, const JudgeOptions& o) {
  std::vector<const Doc*> train, test;
  std::vector<size_t> test_index;
  for (size_t i = 0; i < docs.size(); ++i) {
    if (docs[i].fold == fold) {
      test.push_back(&docs[i]);
      test_index.push_back(i);
    } else {
      train.push_back(&docs[i]);
    }
  }
  // The vocabulary: the training folds' n-grams in at least two kernels, the
  // most frequent by document frequency (ties by hash, so runs agree).
  std::unordered_map<uint64_t, int> df;
  for (const Doc* d : train)
    for (const auto& kv : *d->counts) ++df[kv.first];
  std::vector<std::pair<int, uint64_t>> ranked;
  for (const auto& [key, n] : df)
    if (n >= 2) ranked.emplace_back(n, key);
  std::sort(ranked.begin(), ranked.end(),
            [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
  if (ranked.size() > o.features) ranked.resize(o.features);
  if (ranked.empty()) return invalid_argument("the judge found no n-gram shared by two training kernels");
  std::unordered_map<uint64_t, int> column;
  std::vector<float> idf;
  const double n_train = double(train.size());
  for (const auto& [n, key] : ranked) {
    column.emplace(key, int(idf.size()));
    idf.push_back(float(std::log((1 + n_train) / (1 + n)) + 1));
  }
  // OpenCV's mini-batch descent walks the rows in order: shuffle them.
  std::vector<size_t> order = detail::permutation(train.size(), o.seed * 1000003ULL + uint64_t(fold));
  std::vector<const Doc*> shuffled;
  for (size_t i : order) shuffled.push_back(train[i]);
  // OpenCV scales a step by 1 / (rows in the batch), so a short last batch
  // (one row) takes a step `batch` times too long and diverges: the rows are
  // padded to whole batches with the first rows of the order.
  const int batch = std::max(1, std::min(o.batch, int(shuffled.size())));
  for (size_t i = 0; shuffled.size() % size_t(batch) != 0; ++i) shuffled.push_back(shuffled[i]);
  cv::Mat x = feature_rows(shuffled, column, idf, o.binary);
  cv::Mat y(int(shuffled.size()), 1, CV_32F);
  for (size_t i = 0; i < shuffled.size(); ++i) y.at<float>(int(i)) = shuffled[i]->positive ? 1.0f : 0.0f;

  const int iterations = std::max(1, int(o.epochs * ((shuffled.size() + batch - 1) / batch)));
  cv::Mat theta;
  try {
    cv::Ptr<cv::ml::LogisticRegression> lr = cv::ml::LogisticRegression::create();
    lr->setRegularization(cv::ml::LogisticRegression::REG_L2);
    lr->setTrainMethod(cv::ml::LogisticRegression::MINI_BATCH);
    lr->setMiniBatchSize(batch);
    // OpenCV divides the batch's summed gradient by the batch size twice
    // (once for the mean, once in the step): alpha = rate * batch.
    lr->setLearningRate(o.learning_rate * batch);
    lr->setIterations(iterations);
    lr->setTermCriteria(cv::TermCriteria(cv::TermCriteria::COUNT, iterations, 0.0));
    if (!lr->train(cv::ml::TrainData::create(x, cv::ml::ROW_SAMPLE, y)))
      return internal_error("OpenCV's logistic regression did not train");
    theta = lr->get_learnt_thetas();
  } catch (const cv::Exception& e) {
    return internal_error(fmt::format("OpenCV's logistic regression: {}", e.what()));
  }
  if (theta.rows != 1 || theta.cols != x.cols + 1)
    return internal_error(
        fmt::format("OpenCV's logistic regression gave {}x{} weights for {} features", theta.rows, theta.cols, x.cols));
  // The score: sigmoid(theta_0 + theta . x), the probability of the class
  // labelled 1 (OpenCV maps the sorted labels 0, 1 to classes 0, 1).
  cv::Mat tx = feature_rows(test, column, idf, o.binary);
  FoldScores out;
  for (int r = 0; r < tx.rows; ++r) {
    const float* row = tx.ptr<float>(r);
    double z = theta.at<float>(0, 0);
    for (int c = 0; c < tx.cols; ++c) z += double(theta.at<float>(0, c + 1)) * row[c];
    out.scores.emplace_back(test_index[size_t(r)], 1 / (1 + std::exp(-z)));
  }
  return out;
}

}  // namespace

Expected<JudgeResult> judge(const std::vector<const Tokens*>& positives, const std::vector<const Tokens*>& negatives,
                            const JudgeOptions& o, bool paired) {
  if (o.folds < 2) return invalid_argument("the judge needs at least 2 folds");
  std::vector<const Tokens*> pos, neg;
  std::vector<int> pos_fold, neg_fold;
  if (paired) {
    if (positives.size() != negatives.size()) return invalid_argument("paired judge: the two sides differ in size");
    pos = positives;
    neg = negatives;
    std::vector<size_t> p = detail::permutation(pos.size(), o.seed);
    for (size_t i = 0; i < pos.size(); ++i) pos_fold.push_back(int(p[i] % size_t(o.folds)));
    neg_fold = pos_fold;
  } else {
    size_t n = std::min(positives.size(), negatives.size());
    if (o.max_per_side > 0) n = std::min(n, o.max_per_side);
    std::vector<size_t> pp = detail::permutation(positives.size(), o.seed);
    std::vector<size_t> np = detail::permutation(negatives.size(), o.seed + 1);
    for (size_t i = 0; i < n; ++i) {
      pos.push_back(positives[pp[i]]);
      neg.push_back(negatives[np[i]]);
      pos_fold.push_back(int(i % size_t(o.folds)));
      neg_fold.push_back(int(i % size_t(o.folds)));
    }
  }
  if (pos.size() < size_t(o.folds))
    return invalid_argument(
        fmt::format("the judge needs at least {} kernels a side ({} folds); it has {}", o.folds, o.folds, pos.size()));

  std::vector<Counts> counts;
  counts.reserve(pos.size() + neg.size());
  for (const Tokens* t : pos) counts.push_back(ngram_counts(*t, o.max_n));
  for (const Tokens* t : neg) counts.push_back(ngram_counts(*t, o.max_n));
  std::vector<Doc> docs;
  for (size_t i = 0; i < pos.size(); ++i) docs.push_back({&counts[i], true, pos_fold[i]});
  for (size_t i = 0; i < neg.size(); ++i) docs.push_back({&counts[pos.size() + i], false, neg_fold[i]});

  std::vector<double> score(docs.size(), 0.5);
  JudgeResult r;
  r.per_side = pos.size();
  {
    ThreadPool pool(std::min<unsigned>(unsigned(o.folds), std::max(1u, std::thread::hardware_concurrency())));
    std::vector<std::future<Expected<FoldScores>>> futures;
    for (int f = 0; f < o.folds; ++f) futures.push_back(pool.submit([&docs, f, &o] { return run_fold(docs, f, o); }));
    for (int f = 0; f < o.folds; ++f) {
      Expected<FoldScores> fs = futures[size_t(f)].get();
      if (!fs) return fs.status().with_context(fmt::format("judge fold {}", f + 1));
      std::vector<double> fp, fn;
      for (const auto& [i, s] : fs->scores) {
        score[i] = s;
        (docs[i].positive ? fp : fn).push_back(s);
      }
      r.fold_auc.push_back(auc(fp, fn));
    }
  }
  std::vector<double> sp, sn;
  size_t right = 0, called_human = 0;
  for (size_t i = 0; i < docs.size(); ++i) {
    (docs[i].positive ? sp : sn).push_back(score[i]);
    if (docs[i].positive && score[i] < 0.5) ++called_human;
    if ((score[i] >= 0.5) == docs[i].positive) ++right;
  }
  r.auc = auc(sp, sn);
  r.called_human = double(called_human) / double(sp.size());
  r.accuracy = double(right) / double(docs.size());
  return r;
}

}  // namespace clgen::realism
