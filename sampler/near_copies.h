// Near copies of the corpus among new kernels (SampleOptions::near_copy): a
// sample most of whose token n-grams one corpus kernel holds reads as human
// code because it is human code.
#pragma once

#include <memory>
#include <string_view>
#include <utility>

#include "corpus/preprocess/ngram_index.h"
#include "support/sqlite.h"
#include "support/status.h"

namespace clgen::sampler {

class NearCopies {
 public:
  // The index of the workspace's corpus kernels (training_texts), by token
  // kNearCopyNgram-grams. Fails with the database's error.
  static Expected<std::shared_ptr<const NearCopies>> of_corpus(Database& db);
  explicit NearCopies(preprocess::NgramIndex index) : index_(std::move(index)) {}

  // The largest share of `text`'s distinct token n-grams that one corpus
  // kernel holds; 0 when it has fewer than n tokens.
  double containment(std::string_view text) const;
  size_t kernels() const { return index_.texts(); }

 private:
  preprocess::NgramIndex index_;
};

}  // namespace clgen::sampler
