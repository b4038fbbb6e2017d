// Vocabularies: exact round trips (char and SentencePiece), save/load, errors.
#include "model/vocabulary.h"

#include <gtest/gtest.h>

#include "tests/model/test_corpus.h"

namespace clgen::model {
namespace {

using clgen::testing::model_test_kernels;
using clgen::testing::TempDir;

TEST(CharVocabulary, RoundTripsEveryCorpusFileExactly) {
  TempDir dir;
  auto texts = model_test_kernels();
  ASSERT_GE(texts.size(), 10u);
  auto vocab = train_vocabulary({"char"}, texts, dir.path());
  ASSERT_TRUE(vocab.ok()) << vocab.status().message();
  for (const auto& t : texts) {
    auto ids = (*vocab)->encode(t);
    ASSERT_TRUE(ids.ok());
    EXPECT_EQ(ids->size(), t.size());
    auto back = (*vocab)->decode(*ids);
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back, t);
  }
}

TEST(CharVocabulary, HasOneTokenPerDistinctByteAndSpecialSymbols) {
  TempDir dir;
  auto vocab = train_vocabulary({"char"}, {"abca", "\n"}, dir.path());
  ASSERT_TRUE(vocab.ok());
  EXPECT_EQ((*vocab)->size(), 3 + 4);  // pad, separator, unknown + a b c \n
  auto ids = (*vocab)->encode("abz");
  ASSERT_TRUE(ids.ok());
  EXPECT_NE((*ids)[0], (*ids)[1]);
  auto unknown = (*vocab)->encode("z");
  EXPECT_EQ((*ids)[2], (*unknown)[0]);
  EXPECT_EQ(*(*vocab)->decode({(*vocab)->separator()}), "");
  EXPECT_FALSE((*vocab)->decode({(*vocab)->size()}).ok());
}

TEST(CharVocabulary, SavedAndLoadedVocabularyEncodesTheSame) {
  TempDir dir;
  auto texts = model_test_kernels();
  auto vocab = train_vocabulary({"char"}, texts, dir.path());
  ASSERT_TRUE(vocab.ok());
  ASSERT_TRUE((*vocab)->save(dir.path() + "/saved").ok());
  auto loaded = load_vocabulary(dir.path() + "/saved");
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_EQ((*loaded)->fingerprint(), (*vocab)->fingerprint());
  EXPECT_EQ(*(*loaded)->encode(texts[0]), *(*vocab)->encode(texts[0]));
}

TEST(Vocabulary, RejectsUnknownTypeAndEmptyCorpus) {
  TempDir dir;
  VocabularyConfig bad;
  bad.type = "word";
  auto v = train_vocabulary(bad, {"x"}, dir.path());
  ASSERT_FALSE(v.ok());
  EXPECT_NE(v.status().message().find("vocabulary.type"), std::string::npos);
  EXPECT_FALSE(train_vocabulary({"char"}, {}, dir.path()).ok());
  auto missing = load_vocabulary(dir.path() + "/nothing-here");
  ASSERT_FALSE(missing.ok());
  EXPECT_NE(missing.status().message().find("vocabulary.json"), std::string::npos);
}

class SentencePieceVocabularyTest : public ::testing::TestWithParam<std::string> {};

TEST_P(SentencePieceVocabularyTest, RoundTripsEveryCorpusFileExactlyAndShortensIt) {
  if (sentencepiece_library_path().empty()) GTEST_SKIP() << "libclgen_sentencepiece not built";
  TempDir dir;
  auto texts = model_test_kernels();
  VocabularyConfig config;
  config.type = "sentencepiece";
  config.algorithm = GetParam();
  config.size = 150;
  auto vocab = train_vocabulary(config, texts, dir.path() + "/work");
  ASSERT_TRUE(vocab.ok()) << vocab.status().message();
  EXPECT_EQ((*vocab)->type(), "sentencepiece");
  size_t chars = 0, tokens = 0;
  for (const auto& t : texts) {
    auto ids = (*vocab)->encode(t);
    ASSERT_TRUE(ids.ok()) << ids.status().message();
    auto back = (*vocab)->decode(*ids);
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back, t);
    chars += t.size();
    tokens += ids->size();
  }
  EXPECT_LT(tokens * 3, chars * 2) << "pieces should be longer than characters on average";

  // Saved and reloaded, it encodes identically.
  ASSERT_TRUE((*vocab)->save(dir.path() + "/saved").ok());
  auto loaded = load_vocabulary(dir.path() + "/saved");
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_EQ(*(*loaded)->encode(texts[2]), *(*vocab)->encode(texts[2]));
  EXPECT_EQ((*loaded)->fingerprint(), (*vocab)->fingerprint());
  EXPECT_EQ(*(*loaded)->decode({(*loaded)->separator()}), "");
}

INSTANTIATE_TEST_SUITE_P(Algorithms, SentencePieceVocabularyTest,
                         ::testing::Values("unigram", "bpe"));

}  // namespace
}  // namespace clgen::model
