// Novelty: token n-gram containment of samples in the training kernels,
// through an inverted index of hashed n-grams.
#include <algorithm>

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

namespace {
std::vector<std::vector<uint64_t>> key_sets(const std::vector<const Tokens*>& training, int n) {
  std::vector<std::vector<uint64_t>> sets;
  sets.reserve(training.size());
  for (const Tokens* t : training) sets.push_back(ngram_keys(*t, n));
  return sets;
}
}  // namespace

NgramIndex::NgramIndex(const std::vector<const Tokens*>& training, int n) : n_(n), index_(key_sets(training, n)) {}

NgramIndex::Match NgramIndex::match(const Tokens& query) const {
  preprocess::NgramIndex::Match found = index_.match(ngram_keys(query, n_));
  Match m;
  m.ngrams = found.ngrams;
  m.best = found.best;
  m.best_kernel = found.best_text;
  m.anywhere = found.anywhere;
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
