// Token and n-gram hashes shared by the judge and the novelty index (private).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace clgen::realism::detail {

inline uint64_t mix64(uint64_t x) {  // splitmix64's finalizer
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

inline uint64_t token_hash(const std::string& token) {  // FNV-1a
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : token) h = (h ^ c) * 0x100000001b3ULL;
  return h;
}

// The hash of tokens [begin, begin + n) given their hashes; n is mixed in, so
// an n-gram and an m-gram never share a key by construction of the sequence.
inline uint64_t ngram_hash(const std::vector<uint64_t>& hashes, size_t begin, int n) {
  uint64_t h = mix64(uint64_t(n) * 0x9e3779b97f4a7c15ULL);
  for (int i = 0; i < n; ++i) h = mix64(h ^ hashes[begin + i]) + uint64_t(i);
  return h;
}

inline std::vector<uint64_t> token_hashes(const std::vector<std::string>& tokens) {
  std::vector<uint64_t> out;
  out.reserve(tokens.size());
  for (const auto& t : tokens) out.push_back(token_hash(t));
  return out;
}

// Seeded, platform-independent permutation of 0..n-1 (Fisher-Yates over splitmix64).
inline std::vector<size_t> permutation(size_t n, uint64_t seed) {
  std::vector<size_t> p(n);
  for (size_t i = 0; i < n; ++i) p[i] = i;
  uint64_t state = seed;
  for (size_t i = n; i > 1; --i) {
    state += 0x9e3779b97f4a7c15ULL;
    size_t j = size_t(mix64(state) % i);
    std::swap(p[i - 1], p[j]);
  }
  return p;
}

}  // namespace clgen::realism::detail
