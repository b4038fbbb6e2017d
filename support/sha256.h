// SHA-256 digests (OpenSSL's EVP API), as lowercase hex: the content keys of
// the corpus, samples and caches.
#pragma once

#include <string>
#include <string_view>

namespace clgen {

// 64 hex characters.
std::string sha256_hex(std::string_view data);

// Incremental hashing for streamed data.
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;
  void update(std::string_view data);
  std::string hex_digest();  // finalizes; the object must not be updated after

 private:
  void* ctx_;  // EVP_MD_CTX*
};

}  // namespace clgen
