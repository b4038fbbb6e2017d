// An inverted index of hashed token n-grams: for a query's n-grams, the one
// indexed text holding most of them (near-copy detection in the sampler and
// the realism report's novelty).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace clgen::preprocess {

class NgramIndex {
 public:
  // `key_sets[k]`: text k's distinct n-gram hashes, sorted (as
  // ngram_hashes_of returns them). Each set is released once indexed.
  explicit NgramIndex(std::vector<std::vector<uint64_t>> key_sets);
  struct Match {
    size_t ngrams = 0;    // the query's distinct n-grams (0: shorter than n tokens)
    double best = 0;      // the most of them one indexed text holds, as a share
    long best_text = -1;  // that text (index into key_sets; the lowest on ties), -1 when none
    double anywhere = 0;  // share of them found in any indexed text
  };
  // `keys`: the query's distinct n-gram hashes, sorted.
  Match match(const std::vector<uint64_t>& keys) const;
  size_t texts() const { return texts_; }

 private:
  size_t texts_ = 0;
  std::vector<uint64_t> keys_;     // sorted distinct n-gram hashes
  std::vector<uint32_t> offsets_;  // postings of keys_[i]: texts_of_[offsets_[i], offsets_[i+1])
  std::vector<uint32_t> texts_of_;
};

}  // namespace clgen::preprocess
