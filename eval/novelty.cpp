// Novelty: token n-gram containment of samples in the training kernels,
// through an inverted index of hashed n-grams.
#include <algorithm>
#include <unordered_map>

#include "eval/hashing.h"
#include "eval/realism.h"

namespace clgen::realism {

std::vector<uint64_t> ngram_keys(const Tokens& tokens, int n) {
  std::vector<uint64_t> keys;
  if (n < 1 || tokens.size() < size_t(n)) return keys;
  std::vector<uint64_t> h = detail::token_hashes(tokens);
  keys.reserve(h.size() - n + 1);
  for (size_t i = 0; i + n <= h.size(); ++i) keys.push_back(detail::ngram_hash(h, i, n));
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

NgramIndex::NgramIndex(const std::vector<const Tokens*>& training, int n) : n_(n) {
  std::vector<std::pair<uint64_t, uint32_t>> postings;  // (key, kernel), each kernel's keys distinct
  for (size_t k = 0; k < training.size(); ++k)
    for (uint64_t key : ngram_keys(*training[k], n)) postings.emplace_back(key, uint32_t(k));
  std::sort(postings.begin(), postings.end());
  kernels_.reserve(postings.size());
  for (size_t i = 0; i < postings.size(); ++i) {
    if (i == 0 || postings[i].first != postings[i - 1].first) {
      keys_.push_back(postings[i].first);
      offsets_.push_back(uint32_t(kernels_.size()));
    }
    kernels_.push_back(postings[i].second);
  }
  offsets_.push_back(uint32_t(kernels_.size()));
}

NgramIndex::Match NgramIndex::match(const Tokens& query) const {
  Match m;
  std::vector<uint64_t> keys = ngram_keys(query, n_);
  m.ngrams = keys.size();
  if (keys.empty()) return m;
  std::unordered_map<uint32_t, uint32_t> hits;  // training kernel -> query n-grams it holds
  size_t found = 0;
  for (uint64_t key : keys) {
    auto it = std::lower_bound(keys_.begin(), keys_.end(), key);
    if (it == keys_.end() || *it != key) continue;
    ++found;
    size_t i = size_t(it - keys_.begin());
    for (uint32_t p = offsets_[i]; p < offsets_[i + 1]; ++p) ++hits[kernels_[p]];
  }
  uint32_t best = 0;
  for (const auto& [kernel, count] : hits)
    if (count > best || (count == best && long(kernel) < m.best_kernel)) {
      best = count;
      m.best_kernel = long(kernel);
    }
  m.best = double(best) / double(keys.size());
  m.anywhere = double(found) / double(keys.size());
  return m;
}

Novelty novelty(const std::vector<const Tokens*>& samples, const NgramIndex& index, double threshold) {
  Novelty r;
  r.n = index.n();
  r.threshold = threshold;
  r.samples = samples.size();
  double anywhere = 0;
  for (const Tokens* s : samples) {
    NgramIndex::Match m = index.match(*s);
    r.best.push_back(m.best);
    if (m.ngrams == 0) continue;
    ++r.scored;
    anywhere += m.anywhere;
    if (m.best >= threshold) ++r.near_copies;
  }
  if (r.scored) {
    r.share = double(r.near_copies) / double(r.scored);
    r.mean_anywhere = anywhere / double(r.scored);
  }
  return r;
}

}  // namespace clgen::realism
