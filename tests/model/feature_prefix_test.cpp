// Feature-conditioned training: the header's text and buckets, the headers
// of the training set, and the features cached in the workspace database.
#include "model/feature_prefix.h"

#include <gtest/gtest.h>

#include "model/config.h"
#include "model/store.h"

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
  auto bad = parse_header_counts_tsv("3\t// comp 1 rational 0 mem 0 localmem 0 coalesced 0 atomic 0\nx\t// comp 2\n",
                                     "h.tsv");
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

// A workspace database with two accepted kernels: one that compiles and one
// that does not.
Database corpus_with_two_kernels() {
  auto db = Database::open(":memory:");
  EXPECT_TRUE(db.ok());
  EXPECT_TRUE(db->exec("CREATE TABLE preprocessed(content_sha256 TEXT NOT NULL, preprocessor_version TEXT NOT NULL, "
                       "status TEXT NOT NULL, category TEXT, reason TEXT, normalized_text TEXT, "
                       "normalized_sha256 TEXT, instruction_count INTEGER, "
                       "PRIMARY KEY(content_sha256, preprocessor_version))")
                  .ok());
  // ha: `a[1] * 2.0f` is 1 operator; a is referenced twice (mem 2), both
  // times subscripted by an integer literal (coalesced 2).
  EXPECT_TRUE(db->exec("INSERT INTO preprocessed VALUES('c1','1','ok',NULL,NULL,"
                       "'__kernel void A(__global float* a) {\n  a[0] = a[1] * 2.0f;\n}\n','ha',5);"
                       "INSERT INTO preprocessed VALUES('c2','1','ok',NULL,NULL,'__kernel void B( {','hb',5);")
                  .ok());
  return std::move(*db);
}

TEST(FeaturePrefixTrainingSet, EveryTextGetsItsKernelsHeaderAndOneWithoutFeaturesGetsNone) {
  Database db = corpus_with_two_kernels();
  TrainingConfig t;
  t.feature_prefix = true;
  t.validation_fraction = 0;
  auto set = read_training_set(db, t);
  ASSERT_TRUE(set.ok()) << set.status().message();
  ASSERT_EQ(2u, set->texts.size());
  const std::string header = "// comp 1 rational 0 mem 2 localmem 0 coalesced 2 atomic 0\n";
  EXPECT_EQ((std::vector<std::string>{header, ""}), set->headers);
  EXPECT_EQ(1u, set->headerless);
  EXPECT_EQ(header + set->texts[0], set->model_texts()[0]);
  EXPECT_EQ(set->texts[1], set->model_texts()[1]);
  // The texts themselves (the constraint's corpus, the held-out targets) stay bare.
  EXPECT_EQ(0u, set->texts[0].rfind("__kernel", 0));
}

TEST(FeaturePrefixTrainingSet, WithoutTheOptionTheModelReadsTheBareTexts) {
  Database db = corpus_with_two_kernels();
  TrainingConfig t;
  t.validation_fraction = 0;
  auto set = read_training_set(db, t);
  ASSERT_TRUE(set.ok()) << set.status().message();
  EXPECT_TRUE(set->headers.empty());
  EXPECT_EQ(set->texts, set->model_texts());
  auto has = db.has_table("kernel_features");
  ASSERT_TRUE(has.ok());
  EXPECT_FALSE(*has);  // nothing computed
}

TEST(FeaturePrefixTrainingSet, ASecondReadTakesTheFeaturesFromTheCache) {
  Database db = corpus_with_two_kernels();
  TrainingConfig t;
  t.feature_prefix = true;
  t.validation_fraction = 0;
  ASSERT_TRUE(read_training_set(db, t).ok());
  // Both kernels are cached, the failure too (NULL features).
  auto rows = db.prepare("SELECT sha256, comp FROM kernel_features ORDER BY sha256");
  ASSERT_TRUE(rows.ok());
  ASSERT_TRUE(*rows->step());
  EXPECT_EQ("ha", rows->column_text(0));
  EXPECT_EQ(1, rows->column_int(1));
  ASSERT_TRUE(*rows->step());
  EXPECT_EQ("hb", rows->column_text(0));
  EXPECT_TRUE(rows->column_is_null(1));
  EXPECT_FALSE(*rows->step());
  // A cached value the extractor would not give shows the cache is read.
  ASSERT_TRUE(db.exec("UPDATE kernel_features SET comp = 40 WHERE sha256 = 'ha'").ok());
  auto again = read_training_set(db, t);
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ("// comp 32+ rational 0 mem 2 localmem 0 coalesced 2 atomic 0\n", again->headers[0]);
  EXPECT_EQ("", again->headers[1]);
}

}  // namespace
}  // namespace clgen::model
