// The encoded corpus: separators, split, fixed-seed shuffle, cache reuse.
#include "model/encoded_corpus.h"

#include <filesystem>
#include <set>

#include <gtest/gtest.h>

#include "tests/model/test_corpus.h"

namespace clgen::model {
namespace {

using clgen::testing::model_test_kernels;
using clgen::testing::TempDir;

TEST(ShuffledOrder, IsAFixedPermutationForASeed) {
  auto a = shuffled_order(100, 7);
  EXPECT_EQ(a, shuffled_order(100, 7));
  EXPECT_NE(a, shuffled_order(100, 8));
  EXPECT_EQ(std::set<size_t>(a.begin(), a.end()).size(), 100u);
}

TEST(EncodedCorpus, JoinsKernelsWithSeparatorsAndSplitsByFile) {
  TempDir dir;
  auto texts = model_test_kernels();
  auto vocab = train_vocabulary({"char"}, texts, dir.path());
  ASSERT_TRUE(vocab.ok());
  auto ec = encode_corpus(texts, **vocab, 1, 0.25, dir.path() + "/encoded");
  ASSERT_TRUE(ec.ok()) << ec.status().message();
  EXPECT_EQ(ec->train_kernels + ec->valid_kernels, texts.size());
  EXPECT_EQ(ec->valid_kernels, 3u);  // 25% of 12

  size_t total_chars = 0;
  for (const auto& t : texts) total_chars += t.size();
  EXPECT_EQ(ec->train_tokens + ec->valid_tokens, total_chars + texts.size());

  auto train = TokenFile::open(ec->train_path);
  ASSERT_TRUE(train.ok());
  EXPECT_EQ(train->size(), ec->train_tokens);
  // The train stream decodes to its kernels, each ending with a separator.
  std::vector<Token> kernel;
  size_t kernels = 0;
  for (uint64_t i = 0; i < train->size(); ++i) {
    Token t = train->data()[i];
    if (t == (*vocab)->separator()) {
      auto text = (*vocab)->decode(kernel);
      ASSERT_TRUE(text.ok());
      EXPECT_NE(std::find(texts.begin(), texts.end(), *text), texts.end());
      kernel.clear();
      ++kernels;
    } else {
      kernel.push_back(t);
    }
  }
  EXPECT_TRUE(kernel.empty());
  EXPECT_EQ(kernels, ec->train_kernels);
}

TEST(EncodedCorpus, IsCachedByCorpusAndVocabulary) {
  TempDir dir;
  auto texts = model_test_kernels();
  auto vocab = train_vocabulary({"char"}, texts, dir.path());
  ASSERT_TRUE(vocab.ok());
  auto first = encode_corpus(texts, **vocab, 1, 0.1, dir.path() + "/encoded");
  ASSERT_TRUE(first.ok());
  auto mtime = std::filesystem::last_write_time(first->train_path);
  auto again = encode_corpus(texts, **vocab, 1, 0.1, dir.path() + "/encoded");
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->key, first->key);
  EXPECT_EQ(std::filesystem::last_write_time(again->train_path), mtime);

  auto other_seed = encode_corpus(texts, **vocab, 2, 0.1, dir.path() + "/encoded");
  ASSERT_TRUE(other_seed.ok());
  EXPECT_NE(other_seed->key, first->key);
  texts.pop_back();
  auto other_corpus = encode_corpus(texts, **vocab, 1, 0.1, dir.path() + "/encoded");
  ASSERT_TRUE(other_corpus.ok());
  EXPECT_NE(other_corpus->key, first->key);
}

TEST(TokenFile, RejectsTruncatedFiles) {
  TempDir dir;
  std::string path = dir.path() + "/bad.tokens";
  {
    std::ofstream out(path, std::ios::binary);
    out << "abcdef";
  }
  auto f = TokenFile::open(path);
  ASSERT_FALSE(f.ok());
  EXPECT_NE(f.status().message().find("bad.tokens"), std::string::npos);
}

}  // namespace
}  // namespace clgen::model
