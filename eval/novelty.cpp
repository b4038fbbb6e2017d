// Novelty: token n-gram containment of samples in the training kernels,
// through an inverted index of hashed n-grams, hashed as the sampler's
// near-copy check hashes them.
#include "corpus/preprocess/tokens.h"
#include "eval/realism.h"

namespace clgen::realism {

namespace {
std::vector<std::vector<uint64_t>> key_sets(const std::vector<const Tokens*>& training, int n) {
  std::vector<std::vector<uint64_t>> sets;
  sets.reserve(training.size());
  for (const Tokens* t : training) sets.push_back(preprocess::ngram_hashes(*t, n));
  return sets;
}
}  // namespace

NgramIndex::NgramIndex(const std::vector<const Tokens*>& training, int n) : n_(n), index_(key_sets(training, n)) {}

NgramIndex::Match NgramIndex::match(const Tokens& query) const {
  preprocess::NgramIndex::Match found = index_.match(preprocess::ngram_hashes(query, n_));
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
