#include "sampler/near_copies.h"

#include <vector>

#include "corpus/preprocess/tokens.h"
#include "sampler/pipeline.h"
#include "sampler/store.h"

namespace clgen::sampler {
namespace {

std::vector<uint64_t> keys_of(std::string_view text) {
  return preprocess::ngram_hashes_of(preprocess::token_hashes(text), kNearCopyNgram);
}

}  // namespace

Expected<std::shared_ptr<const NearCopies>> NearCopies::of_corpus(Database& db) {
  ASSIGN_OR_RETURN(std::vector<std::string> texts, training_texts(db));
  std::vector<std::vector<uint64_t>> sets;
  sets.reserve(texts.size());
  for (std::string& t : texts) {
    sets.push_back(keys_of(t));
    std::string().swap(t);
  }
  return std::make_shared<const NearCopies>(preprocess::NgramIndex(std::move(sets)));
}

double NearCopies::containment(std::string_view text) const { return index_.match(keys_of(text)).best; }

}  // namespace clgen::sampler
