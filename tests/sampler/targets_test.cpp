// Tests of the targets CSV reader and the normalized feature distance.
#include "sampler/targets.h"

#include <cmath>

#include <gtest/gtest.h>

namespace clgen::sampler {
namespace {

// The header `clgen features` writes (static, IR and sema columns).
const std::string kFeaturesHeader =
    "file,kernel,comp,rational,mem,localmem,coalesced,atomic,ir_instructions,sema_errors,first_error\n";

TEST(TargetsCsv, ReadsClgenFeaturesOutputAsIs) {
  auto t = parse_targets_csv(kFeaturesHeader +
                                 "a.cl,A,32,4,12,3,8,1,140,0,\n"
                                 "b.cl,B,0,0,1,0,1,0,9,1,\"3:4: error, quoted\"\n",
                             "f.csv");
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(2u, t->size());
  EXPECT_EQ("a.cl:A", (*t)[0].label);
  EXPECT_EQ((GreweVector{32, 4, 12, 3, 8, 1}), (*t)[0].features);
  EXPECT_EQ((GreweVector{0, 0, 1, 0, 1, 0}), (*t)[1].features);
}

TEST(TargetsCsv, TakesTheGreweColumnsInAnyOrderAndLabelsRowsByLineWithoutFileAndKernel) {
  // Line 1 header, line 2 blank (skipped but counted), line 3 the target.
  auto t = parse_targets_csv("atomic,coalesced,localmem,mem,rational,comp\n\n 6, 5,4,3,2,1\n", "t.csv");
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(1u, t->size());
  EXPECT_EQ((GreweVector{1, 2, 3, 4, 5, 6}), (*t)[0].features);
  EXPECT_EQ("t.csv:3", (*t)[0].label);
}

TEST(TargetsCsv, ABadValueNamesItsLineAndColumn) {
  // Line 4 (after a blank line 3), column 5 is `mem`: "1" "x" "2" "3.5" "-1" each fail there.
  for (const std::string bad : {"x", "3.5", "-1", ""}) {
    auto t =
        parse_targets_csv(kFeaturesHeader + "a.cl,A,1,2,3,4,5,6,7,0,\n\nb.cl,B,1,2," + bad + ",4,5,6,7,0,\n", "t.csv");
    ASSERT_FALSE(t.ok()) << bad;
    EXPECT_EQ(ErrorCode::kParse, t.status().code());
    EXPECT_NE(std::string::npos, t.status().message().find("t.csv: line 4, column 5 (mem)")) << t.status().message();
  }
}

TEST(TargetsCsv, ARowOfTheWrongWidthNamesItsLine) {
  auto t = parse_targets_csv("comp,rational,mem,localmem,coalesced,atomic\n1,2,3,4,5,6\n1,2,3\n", "t.csv");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(std::string::npos, t.status().message().find("line 3: 3 fields, the header has 6")) << t.status().message();
}

TEST(TargetsCsv, AnOpenQuoteNamesItsLineAndColumn) {
  auto t = parse_targets_csv("comp,rational,mem,localmem,coalesced,atomic,note\n1,2,3,4,5,6,\"open\n", "t.csv");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(std::string::npos, t.status().message().find("t.csv: line 2, column 7")) << t.status().message();
}

TEST(TargetsCsv, AMissingGreweColumnIsNamed) {
  auto t = parse_targets_csv("comp,rational,mem,localmem,atomic\n1,2,3,4,5\n", "t.csv");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(std::string::npos, t.status().message().find("no column 'coalesced'")) << t.status().message();
}

TEST(TargetsCsv, AHeaderWithoutRowsIsAnError) {
  EXPECT_FALSE(parse_targets_csv("comp,rational,mem,localmem,coalesced,atomic\n", "t.csv").ok());
  EXPECT_FALSE(parse_targets_csv("", "t.csv").ok());
}

TEST(FeatureDistance, IsZeroExactlyWhenEveryFeatureIsEqual) {
  EXPECT_EQ(0.0, feature_distance({1, 2, 3, 4, 5, 6}, {1, 2, 3, 4, 5, 6}));
  EXPECT_GT(feature_distance({1, 2, 3, 4, 5, 6}, {1, 2, 3, 4, 5, 7}), 0.0);
}

TEST(FeatureDistance, IsTheMeanAbsoluteDifferenceOfLog1p) {
  // comp 0 vs 1: |log 1 - log 2| = log 2; mem 3 vs 1: log 4 - log 2 = log 2; mean over 6 = log(2) / 3.
  EXPECT_NEAR(std::log(2.0) / 3, feature_distance({0, 5, 3, 0, 0, 0}, {1, 5, 1, 0, 0, 0}), 1e-12);
  // 1 vs 3 is a factor 2 in 1 + count, 19 vs 79 a factor 4: twice the distance.
  EXPECT_NEAR(feature_distance({1, 0, 0, 0, 0, 0}, {3, 0, 0, 0, 0, 0}) * 2,
              feature_distance({19, 0, 0, 0, 0, 0}, {79, 0, 0, 0, 0, 0}), 1e-12);
}

}  // namespace
}  // namespace clgen::sampler
