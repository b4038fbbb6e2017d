// SHA-256 against FIPS 180-2 test vectors.
#include "support/sha256.h"

#include <gtest/gtest.h>

namespace clgen {
namespace {

TEST(Sha256, MatchesKnownVectors) {
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(Sha256, IncrementalEqualsOneShot) {
  Sha256 h;
  h.update("ab");
  h.update("c");
  EXPECT_EQ(h.hex_digest(), sha256_hex("abc"));
}

}  // namespace
}  // namespace clgen
