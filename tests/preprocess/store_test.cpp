// Tests of the corpus-wide preprocess run over SQLite.
#include <filesystem>

#include <gtest/gtest.h>

#include "corpus/preprocess/store.h"
#include "support/interrupt.h"
#include "support/sha256.h"
#include "tests/preprocess/corpus_db.h"

namespace clgen::preprocess {
namespace {

using testing::corpus_db;

const std::vector<std::string> kTexts = {
    "__kernel void a(__global int* x) { x[get_global_id(0)] = 1; }\n",
    "__kernel void b(__global int* x) { x[get_global_id(0)] = 2; }\n",
    "__kernel void c(__global int* x) { x[get_global_id(0)] = undeclared_thing; }\n",
    "int no_kernel_here(int x) { return x; }\n",
    "__kernel void d(__global int* y) { y[get_global_id(0)] = 1; }\n",  // same as a when normalized
};

CorpusPreprocessOptions quiet(size_t batch = 2) {
  CorpusPreprocessOptions o;
  o.batch_size = batch;
  o.threads = 2;
  o.progress = false;
  return o;
}

TEST(CorpusPreprocess, StoresOneRowPerKernelAndOnePerRejectedFile) {
  Database db = corpus_db(kTexts);
  auto stats = preprocess_corpus(db, quiet());
  ASSERT_TRUE(stats.ok()) << stats.status().message();
  EXPECT_EQ(stats->processed, 5u);
  EXPECT_EQ(stats->ok, 3u);        // the kernels of a, b and d
  EXPECT_EQ(stats->rejected, 0u);  // no kernel of a compiling file was rejected
  EXPECT_EQ(stats->files_ok, 3u);
  EXPECT_EQ(stats->files_discarded, 2u);
  EXPECT_EQ(stats->files_by_category["rejected/undeclared_identifier"], 1u);
  EXPECT_EQ(stats->files_by_category["rejected/no_kernel"], 1u);

  auto st = db.prepare("SELECT COUNT(DISTINCT normalized_sha256) FROM preprocessed WHERE status='ok'");
  ASSERT_TRUE(st.ok());
  ASSERT_TRUE(*st->step());
  EXPECT_EQ(st->column_int(0), 2);  // a and d normalize to the same text

  auto counts = preprocess_counts(db, stats->version);
  ASSERT_TRUE(counts.ok());
  EXPECT_EQ((*counts)["ok"], 3u);
  EXPECT_EQ((*counts)["rejected/no_kernel"], 1u);
}

TEST(CorpusPreprocess, EachKernelOfAFileGetsItsOwnRowWithOnlyWhatItReaches) {
  Database db = corpus_db({
      "float twice(float v) { return 2.0f * v; }\n"
      "float unused(float v) { return v - 1.0f; }\n"
      "__kernel void first(__global float* x) { x[get_global_id(0)] = twice(x[get_global_id(0)]); }\n"
      "__kernel void second(__global int* y) { y[get_global_id(0)] += 7; }\n"});
  auto stats = preprocess_corpus(db, quiet());
  ASSERT_TRUE(stats.ok()) << stats.status().message();
  EXPECT_EQ(stats->files_ok, 1u);
  EXPECT_EQ(stats->ok, 2u);
  auto st = db.prepare("SELECT kernel, normalized_text FROM preprocessed WHERE status='ok' ORDER BY kernel");
  ASSERT_TRUE(st.ok());
  ASSERT_TRUE(*st->step());
  EXPECT_EQ(st->column_text(0), "first");
  std::string first = st->column_text(1);
  ASSERT_TRUE(*st->step());
  EXPECT_EQ(st->column_text(0), "second");
  std::string second = st->column_text(1);
  // Normalized: the helper is renamed, so count functions by their bodies' operators.
  EXPECT_NE(first.find("2.0f"), std::string::npos) << first;       // the helper first calls
  EXPECT_EQ(first.find("1.0f"), std::string::npos) << first;       // the unused helper is gone
  EXPECT_EQ(first.find("+= 7"), std::string::npos) << first;       // the other kernel is gone
  EXPECT_EQ(second.find("2.0f"), std::string::npos) << second;     // second calls no helper
  EXPECT_NE(second.find("+= 7"), std::string::npos) << second;
}

TEST(CorpusPreprocess, PerFileTablesMoveToPerKernelRowsKeepingTheirResults) {
  auto db = Database::open(":memory:");
  ASSERT_TRUE(db.ok());
  ASSERT_TRUE(db->exec("CREATE TABLE preprocessed (content_sha256 TEXT NOT NULL, preprocessor_version TEXT NOT NULL, "
                       "status TEXT NOT NULL, category TEXT, reason TEXT, normalized_text TEXT, "
                       "normalized_sha256 TEXT, instruction_count INTEGER, "
                       "PRIMARY KEY (content_sha256, preprocessor_version));"
                       "INSERT INTO preprocessed VALUES ('c1', '3-old', 'ok', NULL, NULL, 'text', 'h', 9);")
                  .ok());
  ASSERT_TRUE(ensure_preprocess_schema(*db).ok());
  ASSERT_TRUE(ensure_preprocess_schema(*db).ok());  // idempotent
  auto st = db->prepare("SELECT kernel, status, normalized_text, instruction_count FROM preprocessed");
  ASSERT_TRUE(st.ok());
  ASSERT_TRUE(*st->step());
  EXPECT_EQ(st->column_text(0), "");
  EXPECT_EQ(st->column_text(1), "ok");
  EXPECT_EQ(st->column_text(2), "text");
  EXPECT_EQ(st->column_int(3), 9);
  EXPECT_FALSE(*st->step());
}

TEST(CorpusPreprocess, PerKernelTablesGainTheInferredAndLanguageColumns) {
  auto db = Database::open(":memory:");
  ASSERT_TRUE(db.ok());
  ASSERT_TRUE(db->exec("CREATE TABLE preprocessed (content_sha256 TEXT NOT NULL, preprocessor_version TEXT NOT NULL, "
                       "kernel TEXT NOT NULL DEFAULT '', status TEXT NOT NULL, category TEXT, reason TEXT, "
                       "normalized_text TEXT, normalized_sha256 TEXT, instruction_count INTEGER, "
                       "PRIMARY KEY (content_sha256, preprocessor_version, kernel));"
                       "INSERT INTO preprocessed VALUES ('c1', '4-old', 'k', 'ok', NULL, NULL, 'text', 'h', 9);")
                  .ok());
  ASSERT_TRUE(ensure_preprocess_schema(*db).ok());
  ASSERT_TRUE(ensure_preprocess_schema(*db).ok());  // idempotent
  auto st = db->prepare("SELECT kernel, normalized_text, inferred IS NULL, language FROM preprocessed");
  ASSERT_TRUE(st.ok());
  ASSERT_TRUE(*st->step());
  EXPECT_EQ(st->column_text(0), "k");
  EXPECT_EQ(st->column_text(1), "text");
  EXPECT_EQ(st->column_int(2), 1);  // stored before inference: nothing inferred
  EXPECT_EQ(st->column_text(3), "CL1.2");
}

TEST(CorpusPreprocess, RecordsInferredNamesAndTheOpenCl20Fallback) {
  Database db = corpus_db({
      "__kernel void s(__global PIXEL_T* x) { x[get_global_id(0)] *= SCALE; }\n",
      "__kernel void t(__global atomic_int* n) { atomic_fetch_add_explicit(n, 1, memory_order_relaxed); }\n",
      "__kernel void u(__global float* x) { x[get_global_id(0)] *= 2.0f; }\n",
  });
  auto stats = preprocess_corpus(db, quiet());
  ASSERT_TRUE(stats.ok()) << stats.status().message();
  EXPECT_EQ(stats->files_ok, 3u);
  EXPECT_EQ(stats->files_inferred, 1u);
  EXPECT_EQ(stats->files_opencl20, 1u);
  auto st = db.prepare("SELECT COALESCE(inferred, ''), language FROM preprocessed WHERE status = 'ok' "
                       "ORDER BY language, inferred");
  ASSERT_TRUE(st.ok());
  std::vector<std::pair<std::string, std::string>> rows;
  while (*st->step()) rows.emplace_back(st->column_text(0), st->column_text(1));
  ASSERT_EQ(rows.size(), 3u);
  EXPECT_EQ(rows[0], std::make_pair(std::string(""), std::string("CL1.2")));
  EXPECT_EQ(rows[1], std::make_pair(std::string("#define PIXEL_T float\n#define SCALE 64\n"), std::string("CL1.2")));
  EXPECT_EQ(rows[2], std::make_pair(std::string(""), std::string("CL2.0")));
}

TEST(CorpusPreprocess, SecondRunResumesWithNothingToDo) {
  Database db = corpus_db(kTexts);
  ASSERT_TRUE(preprocess_corpus(db, quiet()).ok());
  auto again = preprocess_corpus(db, quiet());
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(again->pending, 0u);
  EXPECT_EQ(again->processed, 0u);
}

TEST(CorpusPreprocess, InterruptedRunKeepsCommittedBatchesAndResumes) {
  Database db = corpus_db(kTexts);
  request_interrupt();
  auto stopped = preprocess_corpus(db, quiet(1));
  clear_interrupt();
  ASSERT_TRUE(stopped.ok());
  EXPECT_TRUE(stopped->interrupted);
  EXPECT_EQ(stopped->processed, 0u);
  auto resumed = preprocess_corpus(db, quiet(1));
  ASSERT_TRUE(resumed.ok());
  EXPECT_EQ(resumed->processed, 5u);
  EXPECT_FALSE(resumed->interrupted);
}

TEST(CorpusPreprocess, ResultsAreKeyedByPreprocessorVersion) {
  Database db = corpus_db(kTexts);
  ASSERT_TRUE(preprocess_corpus(db, quiet()).ok());
  CorpusPreprocessOptions no_shim = quiet();
  no_shim.compile.shim = false;
  auto other = preprocess_corpus(db, no_shim);
  ASSERT_TRUE(other.ok());
  EXPECT_EQ(other->processed, 5u);
}

TEST(CorpusPreprocess, FailsClearlyWithoutContentFiles) {
  auto db = Database::open(":memory:");
  ASSERT_TRUE(db.ok());
  auto stats = preprocess_corpus(*db, quiet());
  ASSERT_FALSE(stats.ok());
  EXPECT_NE(stats.status().message().find("content_files"), std::string::npos) << stats.status().message();
}

}  // namespace
}  // namespace clgen::preprocess
