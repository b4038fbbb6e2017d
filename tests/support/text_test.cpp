// Tests of the small text helpers (support/text.h).
#include "support/text.h"

#include <gtest/gtest.h>

namespace clgen {
namespace {

TEST(ParseUint64, ReadsDecimalDigitsUpToTheLargestValue) {
  EXPECT_EQ(parse_uint64("0"), 0u);
  EXPECT_EQ(parse_uint64("4096"), 4096u);
  EXPECT_EQ(parse_uint64("18446744073709551615"), UINT64_MAX);  // 2^64 - 1
}

TEST(ParseUint64, RefusesOverflowSignsSpacesAndEmptyTextWithoutThrowing) {
  EXPECT_EQ(parse_uint64("18446744073709551616"), std::nullopt);  // 2^64
  EXPECT_EQ(parse_uint64("99999999999999999999"), std::nullopt);
  EXPECT_EQ(parse_uint64(""), std::nullopt);
  EXPECT_EQ(parse_uint64("-1"), std::nullopt);
  EXPECT_EQ(parse_uint64("+1"), std::nullopt);
  EXPECT_EQ(parse_uint64(" 1"), std::nullopt);
  EXPECT_EQ(parse_uint64("12x"), std::nullopt);
}

TEST(AsciiLower, LowersLettersOnly) { EXPECT_EQ(ascii_lower("NVIDIA H100-80GB"), "nvidia h100-80gb"); }

}  // namespace
}  // namespace clgen
