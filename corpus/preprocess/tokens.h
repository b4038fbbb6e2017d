// A small C tokenizer and hashed token n-grams, for comparing kernels by the
// code they share (decontamination). No Clang: raw text that does not compile
// tokenizes too.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace clgen::preprocess {

// Splits C/OpenCL text into identifiers (keywords included), numbers
// (1, 0x1F, 1.5e-3f, .5), string and character literals (one token each, with
// their quotes) and punctuators (longest match: "<<=", "->", "++", ...; any
// other byte is a token of its own). Whitespace, // and /* */ comments and
// backslash-newlines are dropped. Never fails; an unterminated comment or
// literal runs to the end of the text.
std::vector<std::string> c_tokens(std::string_view text);

// The tokens of c_tokens(text) as 64-bit hashes, without building strings
// (equal tokens, equal hashes): the fast path of the comparison.
std::vector<uint64_t> token_hashes(std::string_view text);

// The distinct n-grams of `tokens` (runs of n consecutive tokens) as 64-bit
// hashes, sorted ascending. Empty when there are fewer than n tokens or n < 1.
std::vector<uint64_t> ngram_hashes(const std::vector<std::string>& tokens, int n);

// ngram_hashes over token hashes: ngram_hashes_of(token_hashes(text), n) ==
// ngram_hashes(c_tokens(text), n).
std::vector<uint64_t> ngram_hashes_of(const std::vector<uint64_t>& token_hashes, int n);

// The fraction of `part`'s n-grams that occur in `whole` (both sorted and
// distinct, as ngram_hashes returns them): 1.0 when every n-gram of `part`
// is in `whole`. 0 when `part` is empty.
double containment(const std::vector<uint64_t>& part, const std::vector<uint64_t>& whole);

// One hash of a whole token sequence (equal sequences, equal hashes).
uint64_t sequence_hash(const std::vector<std::string>& tokens);
uint64_t sequence_hash(const std::vector<uint64_t>& token_hashes);  // the same over token_hashes

}  // namespace clgen::preprocess
