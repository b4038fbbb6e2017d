// The training-corpus query and the model's tables.
#include "model/store.h"

#include <gtest/gtest.h>

namespace clgen::model {
namespace {

Status create_preprocessed(Database& db) {
  return db.exec(
      "CREATE TABLE preprocessed(content_sha256 TEXT NOT NULL, preprocessor_version TEXT NOT NULL, "
      "status TEXT NOT NULL, category TEXT, reason TEXT, normalized_text TEXT, "
      "normalized_sha256 TEXT, instruction_count INTEGER, "
      "PRIMARY KEY(content_sha256, preprocessor_version))");
}

TEST(ReadTrainingTexts, MissingTableSaysToRunPreprocess) {
  auto db = Database::open(":memory:");
  ASSERT_TRUE(db.ok());
  auto texts = read_training_texts(*db);
  ASSERT_FALSE(texts.ok());
  EXPECT_EQ(texts.status().code(), ErrorCode::kNotFound);
  EXPECT_NE(texts.status().message().find("clgen corpus preprocess"), std::string::npos);
}

TEST(ReadTrainingTexts, EmptyCorpusSaysToRunPreprocess) {
  auto db = Database::open(":memory:");
  ASSERT_TRUE(db.ok());
  ASSERT_TRUE(create_preprocessed(*db).ok());
  ASSERT_TRUE(db->exec("INSERT INTO preprocessed VALUES('a','1','rejected','compile','x',NULL,NULL,NULL)").ok());
  auto texts = read_training_texts(*db);
  ASSERT_FALSE(texts.ok());
  EXPECT_NE(texts.status().message().find("clgen corpus preprocess"), std::string::npos);
}

TEST(ReadTrainingTexts, ReturnsOkKernelsOncePerNormalizedHashInHashOrder) {
  auto db = Database::open(":memory:");
  ASSERT_TRUE(db.ok());
  ASSERT_TRUE(create_preprocessed(*db).ok());
  ASSERT_TRUE(db->exec(
      "INSERT INTO preprocessed VALUES('c1','1','ok',NULL,NULL,'kernel B','hb',5);"
      "INSERT INTO preprocessed VALUES('c2','1','ok',NULL,NULL,'kernel A','ha',5);"
      "INSERT INTO preprocessed VALUES('c3','1','ok',NULL,NULL,'kernel A','ha',5);"
      "INSERT INTO preprocessed VALUES('c4','1','rejected','x','y','kernel C','hc',1);").ok());
  auto texts = read_training_texts(*db);
  ASSERT_TRUE(texts.ok()) << texts.status().message();
  EXPECT_EQ(*texts, (std::vector<std::string>{"kernel A", "kernel B"}));
}

TEST(ReadTrainingTexts, MaxCharsKeepsOnlyShortFilesAndSaysWhenNoneIsLeft) {
  auto db = Database::open(":memory:");
  ASSERT_TRUE(db.ok());
  ASSERT_TRUE(create_preprocessed(*db).ok());
  ASSERT_TRUE(db->exec(
      "INSERT INTO preprocessed VALUES('c1','1','ok',NULL,NULL,'kernel B is long','hb',5);"
      "INSERT INTO preprocessed VALUES('c2','1','ok',NULL,NULL,'kernel A','ha',5);").ok());
  auto all = read_training_texts(*db, 0);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), 2u);
  auto short_only = read_training_texts(*db, 8);  // "kernel A" is exactly 8 bytes
  ASSERT_TRUE(short_only.ok()) << short_only.status().message();
  EXPECT_EQ(*short_only, (std::vector<std::string>{"kernel A"}));
  auto none = read_training_texts(*db, 3);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("training.max_file_chars = 3"), std::string::npos);
}

TEST(ReadTrainingTexts, UsesOnlyTheNewestPreprocessorVersion) {
  auto db = Database::open(":memory:");
  ASSERT_TRUE(db.ok());
  ASSERT_TRUE(create_preprocessed(*db).ok());
  ASSERT_TRUE(db->exec(
      "INSERT INTO preprocessed VALUES('c1','v1','ok',NULL,NULL,'kernel void A','h1',5);"
      "INSERT INTO preprocessed VALUES('c1','v2','ok',NULL,NULL,'__kernel void A','h2',5);").ok());
  auto texts = read_training_texts(*db);
  ASSERT_TRUE(texts.ok()) << texts.status().message();
  EXPECT_EQ(*texts, (std::vector<std::string>{"__kernel void A"}));
}

TEST(ModelSchema, IsIdempotentAndRecordsEpochs) {
  auto db = Database::open(":memory:");
  ASSERT_TRUE(db.ok());
  ASSERT_TRUE(ensure_model_schema(*db).ok());
  ASSERT_TRUE(ensure_model_schema(*db).ok());
  auto run = begin_training_run(*db, "m1", "cfg", "corpus", "char", 50, "cpu", 0);
  ASSERT_TRUE(run.ok()) << run.status().message();
  EpochRecord e;
  e.epoch = 1;
  e.train_loss = 2.0;
  e.valid_loss = 1.0;
  e.tokens = 100;
  e.seconds = 2;
  ASSERT_TRUE(record_epoch(*db, "m1", *run, e).ok());
  ASSERT_TRUE(finish_training_run(*db, *run, "completed", 1).ok());
  auto q = db->prepare("SELECT valid_perplexity, tokens_per_second FROM training_metrics");
  ASSERT_TRUE(q.ok());
  ASSERT_TRUE(*q->step());
  EXPECT_NEAR(q->column_double(0), 2.718281828, 1e-6);
  EXPECT_DOUBLE_EQ(q->column_double(1), 50.0);
}

}  // namespace
}  // namespace clgen::model
