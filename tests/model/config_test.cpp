// Model configs: the shipped configs parse, bad values are named, the model
// id follows the config and the corpus, learning-rate schedules.
#include "model/config.h"

#include <gtest/gtest.h>

namespace clgen::model {
namespace {

std::string config_path(const std::string& name) {
  return std::string(CLGEN_SOURCE_DIR) + "/configs/" + name + ".toml";
}

TEST(ModelConfig, ShippedConfigsParse) {
  for (const char* name : {"tiny", "paper", "gpu", "github", "github-balanced"}) {
    auto c = load_model_config(config_path(name));
    EXPECT_TRUE(c.ok()) << name << ": " << c.status().message();
  }
  auto paper = load_model_config(config_path("paper"));
  ASSERT_TRUE(paper.ok());
  EXPECT_EQ(paper->network.layers, 3);
  EXPECT_EQ(paper->network.hidden_size, 2048);
  EXPECT_EQ(paper->training.epochs, 50);
  EXPECT_DOUBLE_EQ(paper->training.learning_rate, 0.002);
  EXPECT_EQ(paper->training.lr_schedule, "halve");
  EXPECT_EQ(paper->training.halve_every, 5);
}

TEST(ModelConfig, BuiltInDefaultsAreTheTinyConfig) {
  auto tiny = load_model_config(config_path("tiny"));
  ASSERT_TRUE(tiny.ok()) << tiny.status().message();
  EXPECT_EQ(canonical_config(*tiny), canonical_config(ModelConfig{}));
  EXPECT_EQ(tiny->training.epochs, ModelConfig{}.training.epochs);
}

TEST(ModelConfig, UnknownKeysAndBadValuesAreNamed) {
  auto typo = parse_model_config("[model]\nhiden_size = 3\n", "t.toml");
  ASSERT_FALSE(typo.ok());
  EXPECT_NE(typo.status().message().find("model.hiden_size"), std::string::npos);
  auto bad = parse_model_config("[training]\noptimizer = \"rmsprop\"\n", "t.toml");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("training.optimizer"), std::string::npos);
  EXPECT_FALSE(parse_model_config("[model]\nlayers = 0\n", "t.toml").ok());
  EXPECT_FALSE(parse_model_config("[model]\ndropout = 1.5\n", "t.toml").ok());
}

TEST(ModelConfig, ChangedConfigOrCorpusGivesANewModelIdButEpochsDoNot) {
  ModelConfig a;
  std::string corpus = corpus_hash({"kernel one", "kernel two"});
  std::string id = model_id(a, corpus);
  EXPECT_EQ(id.size(), 16u);
  EXPECT_EQ(id, model_id(a, corpus));

  ModelConfig b = a;
  b.network.hidden_size += 1;
  EXPECT_NE(model_id(b, corpus), id);
  ModelConfig c = a;
  c.vocabulary.type = "sentencepiece";
  EXPECT_NE(model_id(c, corpus), id);
  ModelConfig d = a;
  d.training.seed = 2;
  EXPECT_NE(model_id(d, corpus), id);
  EXPECT_NE(model_id(a, corpus_hash({"kernel one", "kernel 2"})), id);
  EXPECT_NE(model_id(a, corpus_hash({"kernel two", "kernel one"})), id);

  ModelConfig e = a;
  e.training.max_file_chars = a.training.max_file_chars + 1;
  EXPECT_NE(model_id(e, corpus), id);
  // Without the filter the canonical text stays what it was before the key
  // existed, so earlier models keep their ids.
  ModelConfig f = a;
  f.training.max_file_chars = 0;
  EXPECT_EQ(canonical_config(f).find("max_file_chars"), std::string::npos);
  // Leaving the OpenCL C 2.0 kernels out is another corpus; the default keeps ids.
  ModelConfig g = a;
  g.training.opencl20 = false;
  EXPECT_NE(model_id(g, corpus), id);
  EXPECT_EQ(canonical_config(a).find("opencl12"), std::string::npos);

  ModelConfig longer = a;
  longer.training.epochs = 99;  // extending training continues the same model
  EXPECT_EQ(model_id(longer, corpus), id);
}

TEST(ModelConfig, CappedDomainsNeedWordsAndACapAndChangeTheModelId) {
  auto c = parse_model_config("[training]\ncapped_domain_words = [\"test\"]\nmax_kernels_in_capped_domains = 250\n",
                              "t.toml");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->training.capped_domain_words, std::vector<std::string>{"test"});
  EXPECT_EQ(c->training.max_kernels_in_capped_domains, 250);
  // A different corpus selection is a different model.
  EXPECT_NE(model_id(*c, corpus_hash({"k"})), model_id(ModelConfig{}, corpus_hash({"k"})));
  for (const char* bad : {"capped_domain_words = [\"test\"]", "max_kernels_in_capped_domains = 5",
                          "capped_domain_words = [\"\"]\nmax_kernels_in_capped_domains = 5",
                          "capped_domain_words = [\"test\"]\nmax_kernels_in_capped_domains = -1"}) {
    auto r = parse_model_config(std::string("[training]\n") + bad + "\n", "t.toml");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("capped_domain"), std::string::npos) << r.status().message();
  }
}

TEST(ModelConfig, CheckpointIntervalsParseAreRangeCheckedAndKeepTheModelId) {
  auto c = parse_model_config("[training]\ncheckpoint_every_batches = 50\ncheckpoint_every_seconds = 1.5\n", "t.toml");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(c->training.checkpoint_every_batches, 50);
  EXPECT_EQ(c->training.checkpoint_every_seconds, 1.5);
  // They decide when the weights are saved, not what they are.
  EXPECT_EQ(model_id(*c, corpus_hash({"k"})), model_id(ModelConfig{}, corpus_hash({"k"})));
  EXPECT_EQ(ModelConfig{}.training.checkpoint_every_batches, 0);
  EXPECT_EQ(ModelConfig{}.training.checkpoint_every_seconds, 0);
  for (const char* bad : {"checkpoint_every_batches = -1", "checkpoint_every_seconds = -2",
                          "checkpoint_every_seconds = nan", "checkpoint_every_seconds = inf"}) {
    auto r = parse_model_config(std::string("[training]\n") + bad + "\n", "t.toml");
    ASSERT_FALSE(r.ok()) << bad;
    EXPECT_NE(r.status().message().find("training.checkpoint_every_"), std::string::npos) << r.status().message();
  }
}

TEST(ModelConfig, LearningRateSchedules) {
  TrainingConfig t;
  t.learning_rate = 0.002;
  t.lr_schedule = "halve";
  t.halve_every = 5;
  EXPECT_DOUBLE_EQ(learning_rate_at(t, 0), 0.002);
  EXPECT_DOUBLE_EQ(learning_rate_at(t, 4), 0.002);
  EXPECT_DOUBLE_EQ(learning_rate_at(t, 5), 0.001);
  EXPECT_DOUBLE_EQ(learning_rate_at(t, 12), 0.0005);
  t.lr_schedule = "decay";
  t.decay_percent = 10;
  EXPECT_DOUBLE_EQ(learning_rate_at(t, 2), 0.002 * 0.9 * 0.9);
  t.lr_schedule = "constant";
  EXPECT_DOUBLE_EQ(learning_rate_at(t, 40), 0.002);
}

}  // namespace
}  // namespace clgen::model
