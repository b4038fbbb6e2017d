// The encoded corpus: kernels shuffled by file with a fixed seed, split into
// train/validation, joined with the vocabulary's separator and stored once as
// binary token files in the workspace, keyed by corpus + vocabulary. The
// trainer reads them through memory maps, so a corpus larger than RAM trains.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "model/vocabulary.h"
#include "support/status.h"

namespace clgen::model {

// A read-only memory-mapped file of little-endian int32 tokens.
class TokenFile {
 public:
  static Expected<TokenFile> open(const std::string& path);
  TokenFile(TokenFile&&) noexcept;
  TokenFile& operator=(TokenFile&&) noexcept;
  TokenFile(const TokenFile&) = delete;
  ~TokenFile();

  uint64_t size() const { return count_; }
  const Token* data() const { return data_; }
  const std::string& path() const { return path_; }

 private:
  TokenFile() = default;
  std::string path_;
  const Token* data_ = nullptr;
  uint64_t count_ = 0;
  size_t mapped_bytes_ = 0;
};

struct EncodedCorpus {
  std::string key;         // hash of corpus, vocabulary, seed and split
  std::string train_path;  // token files
  std::string valid_path;
  uint64_t train_tokens = 0;
  uint64_t valid_tokens = 0;
  uint64_t train_kernels = 0;
  uint64_t valid_kernels = 0;
};

// Encodes `texts` (in the given order) under `cache_root`/<key>/, or reuses
// the files already there. The shuffle uses `seed`; `validation_fraction` of
// the kernels (at least one when the fraction is positive and there are two
// or more kernels) go to validation. Every kernel is followed by a separator.
Expected<EncodedCorpus> encode_corpus(const std::vector<std::string>& texts,
                                      const Vocabulary& vocabulary, uint64_t seed,
                                      double validation_fraction, const std::string& cache_root,
                                      size_t held_out = 0);

// The shuffled order of `n` items for `seed`: a Fisher-Yates shuffle over
// splitmix64, identical on every platform and standard library.
std::vector<size_t> shuffled_order(size_t n, uint64_t seed);

}  // namespace clgen::model
