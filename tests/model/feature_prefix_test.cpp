// Feature-conditioned training: the header's text and buckets, the
// headers file, and the option (the training set's headers and their
// cache: store_test.cpp).
#include "model/feature_prefix.h"

#include <gtest/gtest.h>

#include "model/config.h"

namespace clgen::model {
namespace {

TEST(FeatureHeader, StatesCountsUpTo16ExactlyAndLargerOnesAsTheirPowerOfTwo) {
  EXPECT_EQ("0", feature_count_label(0));
  EXPECT_EQ("16", feature_count_label(16));
  EXPECT_EQ("16+", feature_count_label(17));  // 17..31
  EXPECT_EQ("16+", feature_count_label(31));
  EXPECT_EQ("32+", feature_count_label(32));  // 32..63
  EXPECT_EQ("32+", feature_count_label(63));
  EXPECT_EQ("128+", feature_count_label(156));
  EXPECT_EQ("1024+", feature_count_label(1502));
  EXPECT_EQ("0", feature_count_label(-3));
}

TEST(FeatureHeader, IsOneCommentLineNamingTheSixGreweFeaturesInOrder) {
  EXPECT_EQ("// comp 12 rational 0 mem 3 localmem 0 coalesced 2 atomic 0\n", feature_header({12, 0, 3, 0, 2, 0}));
  EXPECT_EQ("// comp 128+ rational 16+ mem 64+ localmem 0 coalesced 1 atomic 16\n",
            feature_header({156, 17, 64, 0, 1, 16}));
}

TEST(FeatureHeader, IsFoundOnlyAtTheStartOfAText) {
  const std::string h = feature_header({1, 2, 3, 4, 5, 6});
  EXPECT_EQ(h, leading_feature_header(h + "__kernel void A() {}"));
  EXPECT_EQ("", leading_feature_header("__kernel void A() {}\n" + h));
  EXPECT_EQ("", leading_feature_header("// comp 1 rational"));  // no newline: not a whole line
  EXPECT_EQ("", leading_feature_header("// a comment\n"));
}

TEST(FeatureHeader, CountsAreMostFrequentFirstAndRoundTripThroughTheirFile) {
  const std::string a = feature_header({1, 0, 0, 0, 0, 0}), b = feature_header({2, 0, 0, 0, 0, 0});
  HeaderCounts counts = count_feature_headers({b + "x", a + "y", a + "z", "no header", b + "w", a + "v"});
  EXPECT_EQ((HeaderCounts{{a, 3}, {b, 2}}), counts);
  auto back = parse_header_counts_tsv(header_counts_tsv(counts), "h.tsv");
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(counts, *back);
}

TEST(FeatureHeader, ABadLineOfTheHeadersFileFailsNamingIt) {
  auto bad =
      parse_header_counts_tsv("3\t// comp 1 rational 0 mem 0 localmem 0 coalesced 0 atomic 0\nx\t// comp 2\n", "h.tsv");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(std::string::npos, bad.status().message().find("h.tsv: line 2")) << bad.status().message();
  EXPECT_FALSE(parse_header_counts_tsv("", "h.tsv").ok());
}

TEST(FeatureHeader, TheOptionIsReadValidatedAndChangesTheModelIdOnlyWhenSet) {
  auto off = parse_model_config("", "t.toml");
  auto on = parse_model_config("[training]\nfeature_prefix = true\n", "t.toml");
  ASSERT_TRUE(off.ok() && on.ok());
  EXPECT_FALSE(off->training.feature_prefix);
  EXPECT_TRUE(on->training.feature_prefix);
  EXPECT_EQ(std::string::npos, canonical_config(*off).find("feature_prefix"));  // ids of older models stay
  EXPECT_NE(model_id(*off, "c"), model_id(*on, "c"));
  auto bad = parse_model_config("[training]\nfeature_prefix = 1\n", "t.toml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(std::string::npos, bad.status().message().find("training.feature_prefix")) << bad.status().message();
}

}  // namespace
}  // namespace clgen::model
