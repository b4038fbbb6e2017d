// Vocabularies of the language model behind one interface: `char` (every byte
// of the corpus plus special symbols) and `sentencepiece` (a BPE or unigram
// model trained with SentencePiece). Encode/decode round-trip exactly.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "support/status.h"

namespace clgen::model {

using Token = int32_t;

struct VocabularyConfig {
  std::string type = "char";          // "char" | "sentencepiece"
  std::string algorithm = "unigram";  // sentencepiece only: "unigram" | "bpe"
  int size = 1000;                    // sentencepiece only: number of pieces
};

class Vocabulary {
 public:
  virtual ~Vocabulary() = default;

  virtual std::string type() const = 0;
  // Number of tokens (the model's input and output dimension).
  virtual int size() const = 0;
  // The token that separates kernels in the training stream (end of kernel).
  virtual Token separator() const = 0;

  // Encodes text; characters never seen in training map to an unknown token
  // (char) or to byte pieces (sentencepiece), so encoding does not fail on
  // odd input, but only corpus characters round-trip exactly in `char`.
  virtual Expected<std::vector<Token>> encode(std::string_view text) const = 0;
  // Decodes tokens; the separator decodes to nothing. Fails on ids out of range.
  virtual Expected<std::string> decode(const std::vector<Token>& tokens) const = 0;

  // A short stable digest of the vocabulary's content (part of cache keys).
  virtual std::string fingerprint() const = 0;
  // Saves into directory `dir` (created if missing); `load_vocabulary(dir)` reads it back.
  virtual Status save(const std::string& dir) const = 0;
};

// Builds a vocabulary of `config.type` from the corpus texts. `work_dir` holds
// temporary training files (sentencepiece).
Expected<std::unique_ptr<Vocabulary>> train_vocabulary(const VocabularyConfig& config,
                                                       const std::vector<std::string>& texts,
                                                       const std::string& work_dir);

// Loads a vocabulary saved with Vocabulary::save.
Expected<std::unique_ptr<Vocabulary>> load_vocabulary(const std::string& dir);

// Path of libclgen_sentencepiece: $CLGEN_SENTENCEPIECE_LIBRARY, else next to
// the running executable, else the path from the build. Empty when not found.
std::string sentencepiece_library_path();

}  // namespace clgen::model
