// The training text budget: caps by characters per repository and by share,
// and the sources a config leaves out (default corpus, host code).
#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "model/config.h"
#include "model/store.h"

namespace clgen::model {
namespace {

struct Spec {
  std::string repository;
  std::vector<int> sizes;  // characters of each kernel, in hash order
  bool host_code = false;
};

// Kernels "<repo><i>" padded with '.' to the given sizes; sha256 fields
// 0000, 0001, ... in the order listed, so each repository's kernels are in
// the hash order of `sizes`.
std::vector<CorpusKernel> kernels_of(const std::vector<Spec>& specs) {
  std::vector<CorpusKernel> out;
  int serial = 0;
  for (const Spec& s : specs)
    for (size_t i = 0; i < s.sizes.size(); ++i, ++serial) {
      std::string text = fmt::format("{}{}", s.repository, i);
      text.resize(size_t(s.sizes[i]), '.');
      out.push_back({fmt::format("{:04d}", serial), text, s.repository, "", s.host_code});
    }
  return out;
}

// The texts' names ("<repo><i>", the padding dropped).
std::vector<std::string> names(const TrainingTexts& set) {
  std::vector<std::string> out;
  for (const std::string& t : set.texts) out.push_back(t.substr(0, t.find('.')));
  return out;
}

TEST(SelectTrainingTexts, MaxRepositoryCharsKeepsTheLowestHashesWhileTheirTotalFits) {
  TrainingConfig t;
  t.max_repository_chars = 9;
  // a: 4 + 4 = 8 fits, a third 4 would make 12; b's one kernel of 10 is over the cap alone.
  auto set = select_training_texts(kernels_of({{"a", {4, 4, 4}}, {"b", {10}}, {"c", {9}}}), t);
  EXPECT_EQ(names(set), (std::vector<std::string>{"a0", "a1", "c0"}));
  EXPECT_EQ(set.chars_capped.at("a"), 1);
  EXPECT_EQ(set.chars_capped.at("b"), 1);
  EXPECT_EQ(set.chars_capped.count("c"), 0u);
}

TEST(SelectTrainingTexts, MaxRepositoryCharsKeepsAPrefixOfTheRepositorysKernels) {
  TrainingConfig t;
  t.max_repository_chars = 10;
  // 6 fits; 6 + 5 = 11 does not, and the 2 after it is left out too (a prefix in
  // hash order, so a repository's pick does not depend on which kernels are small).
  auto set = select_training_texts(kernels_of({{"a", {6, 5, 2}}}), t);
  EXPECT_EQ(names(set), (std::vector<std::string>{"a0"}));
  EXPECT_EQ(set.chars_capped.at("a"), 2);
}

TEST(SelectTrainingTexts, MaxRepositoryShareLowersTheCapUntilNoRepositoryIsAboveTheShare) {
  TrainingConfig t;
  t.max_repository_share = 0.4;
  // big: 10 kernels of 10 (100 chars); r1..r4: one kernel of 10 each (40).
  // cap 100: total 140, big 100 > 0.4 * 140 = 56 -> cap 56
  // cap 56: big keeps 5 (50), total 90, 50 > 36 -> cap 36
  // cap 36: big keeps 3 (30), total 70, 30 > 28 -> cap 28
  // cap 28: big keeps 2 (20), total 60, 20 <= 24: done.
  std::vector<Spec> specs = {{"big", std::vector<int>(10, 10)}, {"r1", {10}}, {"r2", {10}}, {"r3", {10}}, {"r4", {10}}};
  auto set = select_training_texts(kernels_of(specs), t);
  EXPECT_EQ(names(set), (std::vector<std::string>{"big0", "big1", "r10", "r20", "r30", "r40"}));
  EXPECT_EQ(set.share_cap_chars, 28);
  EXPECT_EQ(set.share_capped.at("big"), 8);
  EXPECT_EQ(set.share_capped.size(), 1u);
}

TEST(SelectTrainingTexts, MaxRepositoryShareCutsNothingWhenEveryRepositoryIsWithinIt) {
  TrainingConfig t;
  t.max_repository_share = 0.4;
  // 30 + 30 + 40 = 100: the largest is 40 <= 0.4 * 100.
  auto set = select_training_texts(kernels_of({{"a", {30}}, {"b", {10, 20}}, {"c", {40}}}), t);
  EXPECT_EQ(set.texts.size(), 4u);
  EXPECT_EQ(set.share_cap_chars, 0);
  EXPECT_TRUE(set.share_capped.empty());
}

TEST(SelectTrainingTexts, MaxRepositoryShareComesAfterTheCharacterCap) {
  TrainingConfig t;
  t.max_repository_chars = 30;
  t.max_repository_share = 0.5;
  // The character cap leaves big 3 kernels (30 of 60); with small's 30 the
  // total is 60 and big's 30 is exactly half: the share cap cuts nothing.
  auto set = select_training_texts(kernels_of({{"big", {10, 10, 10, 10, 10, 10}}, {"small", {30}}}), t);
  EXPECT_EQ(names(set), (std::vector<std::string>{"big0", "big1", "big2", "small0"}));
  EXPECT_EQ(set.chars_capped.at("big"), 3);
  EXPECT_TRUE(set.share_capped.empty());
}

TEST(SelectTrainingTexts, RepositoryEmptiedByTheShareCapIsNeverHeldOut) {
  TrainingConfig t;
  t.max_repository_share = 0.3;
  t.validation_split = "repository";
  t.validation_fraction = 0.5;
  // cap 100: total 140, big's 100 > 0.3 * 140 = 42 -> cap 42: big's one kernel no
  // longer fits, total 40, the largest 10 <= 12: done, and big has no kernel left.
  auto set = select_training_texts(kernels_of({{"big", {100}}, {"a", {10}}, {"b", {10}}, {"c", {10}}, {"d", {10}}}), t);
  EXPECT_EQ(set.texts.size(), 4u);
  EXPECT_EQ(set.share_capped.at("big"), 1);
  for (const auto& repo : set.held_out_repositories) EXPECT_NE(repo, "big");
}

TEST(SelectTrainingTexts, ValidationRepositoriesHoldOutExactlyTheNamedOnesTheCorpusHas) {
  TrainingConfig t;
  t.validation_split = "repository";
  t.validation_fraction = 0.1;  // the seed's pick would hold out about a tenth; the list overrides it
  // "o/b" names "snapshot:o/b" without its source kind; "o/x" is not in this corpus.
  t.validation_repositories = {"o/b", "snapshot:o/c", "o/x"};
  auto set = select_training_texts(
      kernels_of(
          {{"snapshot:o/a", {20, 20}}, {"snapshot:o/b", {20}}, {"snapshot:o/c", {20, 20}}, {"snapshot:o/d", {20}}}),
      t);
  EXPECT_EQ(set.held_out_repositories, (std::vector<std::string>{"snapshot:o/b", "snapshot:o/c"}));
  EXPECT_EQ(set.held_out, 3u);  // b's one kernel and c's two
  // Training texts first (a, d), then the held-out ones (b, c).
  EXPECT_EQ(names(set), (std::vector<std::string>{"snapshot:o/a0", "snapshot:o/a1", "snapshot:o/d0", "snapshot:o/b0",
                                                  "snapshot:o/c0", "snapshot:o/c1"}));
}

TEST(TrainingConfig, ValidationRepositoriesNeedTheRepositorySplit) {
  auto c = parse_model_config("[training]\nvalidation_split = \"repository\"\nvalidation_repositories = [\"o/a\"]\n",
                              "t.toml");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->training.validation_repositories, (std::vector<std::string>{"o/a"}));
  auto bad = parse_model_config("[training]\nvalidation_repositories = [\"o/a\"]\n", "t.toml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("training.validation_repositories"), std::string::npos);
}

TEST(SelectTrainingTexts, DefaultCorpusFalseLeavesOutPackageSources) {
  TrainingConfig t;
  auto kernels = kernels_of({{"package:pocl-tests", {5, 5}}, {"o/n", {5}}});
  EXPECT_EQ(select_training_texts(kernels, t).texts.size(), 3u);
  t.default_corpus = false;
  auto set = select_training_texts(kernels, t);
  EXPECT_EQ(names(set), (std::vector<std::string>{"o/n0"}));
  EXPECT_EQ(set.left_out_default_corpus, 2);
}

TEST(SelectTrainingTexts, HostCodeFalseLeavesOutKernelsRecoveredFromHostCode) {
  TrainingConfig t;
  auto kernels = kernels_of({{"a", {5, 5}, true}, {"b", {5}, false}});
  EXPECT_EQ(select_training_texts(kernels, t).texts.size(), 3u);
  t.host_code = false;
  auto set = select_training_texts(kernels, t);
  EXPECT_EQ(names(set), (std::vector<std::string>{"b0"}));
  EXPECT_EQ(set.left_out_host_code, 2);
}

TEST(ReadCorpusKernels, MarksKernelsEveryFileOfWhichIsHostCode) {
  auto db = Database::open(":memory:");
  ASSERT_TRUE(db.ok());
  ASSERT_TRUE(
      db->exec("CREATE TABLE preprocessed(content_sha256 TEXT NOT NULL, preprocessor_version TEXT NOT NULL, "
               "status TEXT NOT NULL, category TEXT, reason TEXT, normalized_text TEXT, "
               "normalized_sha256 TEXT, instruction_count INTEGER, "
               "PRIMARY KEY(content_sha256, preprocessor_version));"
               "CREATE TABLE repositories(id INTEGER PRIMARY KEY, source TEXT, owner TEXT, name TEXT);"
               "CREATE TABLE content_origins(sha256 TEXT, repository_id INTEGER, commit_sha TEXT, path TEXT, "
               "role TEXT NOT NULL DEFAULT 'kernel', line_first INTEGER, line_last INTEGER);"
               "INSERT INTO repositories VALUES(1,'snapshot:o/n','o','n');"
               // c1: read out of two host files (a line range each); c2: a kernel file (no range);
               // c3: a host file and a kernel file.
               "INSERT INTO content_origins VALUES('c1',1,'x','a.cpp','kernel',3,9),('c1',1,'x','b.py','kernel',1,4),"
               "('c2',1,'x','k.cl','kernel',NULL,NULL),('c3',1,'x','c.cpp','kernel',2,5),"
               "('c3',1,'x','c.cl','kernel',NULL,NULL),('c4',1,'x','d.cpp','kernel',7,8);"
               // h1 from c1 only; h2 from c2 only; h3 from c3; h4 from c4 (host) and c2 (a kernel file).
               "INSERT INTO preprocessed VALUES('c1','1','ok',NULL,NULL,'kernel A','h1',5);"
               "INSERT INTO preprocessed VALUES('c2','1','ok',NULL,NULL,'kernel B','h2',5);"
               "INSERT INTO preprocessed VALUES('c3','1','ok',NULL,NULL,'kernel C','h3',5);"
               "INSERT INTO preprocessed VALUES('c4','1','ok',NULL,NULL,'kernel B','h2',5);")
          .ok());
  auto kernels = read_corpus_kernels(*db);
  ASSERT_TRUE(kernels.ok()) << kernels.status().message();
  ASSERT_EQ(kernels->size(), 3u);         // h1, h2, h3
  EXPECT_TRUE((*kernels)[0].host_code);   // h1: every origin of c1 is a host file
  EXPECT_FALSE((*kernels)[1].host_code);  // h2: also extracted from the kernel file c2
  EXPECT_FALSE((*kernels)[2].host_code);  // h3: c3 is also a kernel file
}

TEST(TrainingConfig, ParsesTheBudgetKeysAndNamesABadShare) {
  auto c = parse_model_config(
      "[training]\nmax_repository_chars = 1200000\nmax_repository_share = 0.1\n"
      "default_corpus = false\nhost_code = false\n",
      "t.toml");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->training.max_repository_chars, 1200000);
  EXPECT_DOUBLE_EQ(c->training.max_repository_share, 0.1);
  EXPECT_FALSE(c->training.default_corpus);
  EXPECT_FALSE(c->training.host_code);
  auto bad = parse_model_config("[training]\nmax_repository_share = 1.0\n", "t.toml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("training.max_repository_share"), std::string::npos);
}

TEST(TrainingConfig, BudgetKeysChangeTheModelIdOnlyWhenSet) {
  ModelConfig plain;
  ModelConfig shared = plain;
  shared.training.max_repository_share = 0.1;
  ModelConfig no_host = plain;
  no_host.training.host_code = false;
  EXPECT_EQ(canonical_config(plain).find("share"), std::string::npos);
  EXPECT_NE(canonical_config(plain), canonical_config(shared));
  EXPECT_NE(canonical_config(plain), canonical_config(no_host));
}

}  // namespace
}  // namespace clgen::model
