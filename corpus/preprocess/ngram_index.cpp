#include "corpus/preprocess/ngram_index.h"

#include <algorithm>
#include <unordered_map>
#include <utility>

namespace clgen::preprocess {

NgramIndex::NgramIndex(std::vector<std::vector<uint64_t>> key_sets) : texts_(key_sets.size()) {
  size_t total = 0;
  for (const auto& set : key_sets) total += set.size();
  std::vector<std::pair<uint64_t, uint32_t>> postings;  // (key, text), each text's keys distinct
  postings.reserve(total);
  for (size_t k = 0; k < key_sets.size(); ++k) {
    for (uint64_t key : key_sets[k]) postings.emplace_back(key, uint32_t(k));
    std::vector<uint64_t>().swap(key_sets[k]);  // the peak holds the postings, not both
  }
  std::sort(postings.begin(), postings.end());
  texts_of_.reserve(postings.size());
  for (size_t i = 0; i < postings.size(); ++i) {
    if (i == 0 || postings[i].first != postings[i - 1].first) {
      keys_.push_back(postings[i].first);
      offsets_.push_back(uint32_t(texts_of_.size()));
    }
    texts_of_.push_back(postings[i].second);
  }
  offsets_.push_back(uint32_t(texts_of_.size()));
}

NgramIndex::Match NgramIndex::match(const std::vector<uint64_t>& keys) const {
  Match m;
  m.ngrams = keys.size();
  if (keys.empty()) return m;
  std::unordered_map<uint32_t, uint32_t> hits;  // indexed text -> query n-grams it holds
  size_t found = 0;
  for (uint64_t key : keys) {
    auto it = std::lower_bound(keys_.begin(), keys_.end(), key);
    if (it == keys_.end() || *it != key) continue;
    ++found;
    size_t i = size_t(it - keys_.begin());
    for (uint32_t p = offsets_[i]; p < offsets_[i + 1]; ++p) ++hits[texts_of_[p]];
  }
  uint32_t best = 0;
  for (const auto& [text, count] : hits)
    if (count > best || (count == best && long(text) < m.best_text)) {
      best = count;
      m.best_text = long(text);
    }
  m.best = double(best) / double(keys.size());
  m.anywhere = double(found) / double(keys.size());
  return m;
}

}  // namespace clgen::preprocess
