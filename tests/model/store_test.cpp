// The training-corpus query and the model's tables.
#include "model/store.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "model/feature_prefix.h"

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
  ASSERT_TRUE(db->exec("INSERT INTO preprocessed VALUES('c1','1','ok',NULL,NULL,'kernel B','hb',5);"
                       "INSERT INTO preprocessed VALUES('c2','1','ok',NULL,NULL,'kernel A','ha',5);"
                       "INSERT INTO preprocessed VALUES('c3','1','ok',NULL,NULL,'kernel A','ha',5);"
                       "INSERT INTO preprocessed VALUES('c4','1','rejected','x','y','kernel C','hc',1);")
                  .ok());
  auto texts = read_training_texts(*db);
  ASSERT_TRUE(texts.ok()) << texts.status().message();
  EXPECT_EQ(*texts, (std::vector<std::string>{"kernel A", "kernel B"}));
}

TEST(ReadTrainingTexts, MaxCharsKeepsOnlyShortFilesAndSaysWhenNoneIsLeft) {
  auto db = Database::open(":memory:");
  ASSERT_TRUE(db.ok());
  ASSERT_TRUE(create_preprocessed(*db).ok());
  ASSERT_TRUE(db->exec("INSERT INTO preprocessed VALUES('c1','1','ok',NULL,NULL,'kernel B is long','hb',5);"
                       "INSERT INTO preprocessed VALUES('c2','1','ok',NULL,NULL,'kernel A','ha',5);")
                  .ok());
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
  ASSERT_TRUE(db->exec("INSERT INTO preprocessed VALUES('c1','v1','ok',NULL,NULL,'kernel void A','h1',5);"
                       "INSERT INTO preprocessed VALUES('c1','v2','ok',NULL,NULL,'__kernel void A','h2',5);")
                  .ok());
  auto texts = read_training_texts(*db);
  ASSERT_TRUE(texts.ok()) << texts.status().message();
  EXPECT_EQ(*texts, (std::vector<std::string>{"__kernel void A"}));
}

// Kernels "<repo><i>" with sha256 fields that sort as listed.
std::vector<CorpusKernel> kernels_of(const std::vector<std::pair<std::string, int>>& repos) {
  std::vector<CorpusKernel> out;
  int serial = 0;
  for (const auto& [repo, n] : repos)
    for (int i = 0; i < n; ++i, ++serial)
      out.push_back({fmt::format("{:04d}", serial), fmt::format("{}{}", repo, i), repo});
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.sha256 < b.sha256; });
  return out;
}

TEST(SelectTrainingTexts, CapKeepsTheLowestHashesOfEachRepository) {
  TrainingConfig t;
  t.max_kernels_per_repository = 2;
  auto set = select_training_texts(kernels_of({{"big", 5}, {"small", 1}}), t);
  // big0..big4 have hashes 0000..0004, so the cap keeps big0 and big1.
  EXPECT_EQ(set.texts, (std::vector<std::string>{"big0", "big1", "small0"}));
  EXPECT_EQ(set.capped.at("big"), 3);
  EXPECT_EQ(set.capped.count("small"), 0u);
  EXPECT_EQ(set.held_out, 0u);
}

TEST(SelectTrainingTexts, CappedDomainsShareOnePoolOfTheLowestHashesAndOtherDomainsStayWhole) {
  // Hashes 0000.. in the order listed: t1 (2), app (3), t2 (2).
  auto kernels = kernels_of({{"t1", 2}, {"app", 3}, {"t2", 2}});
  for (auto& k : kernels)
    k.domain = k.repository == "app"  ? "image processing"
               : k.repository == "t1" ? "Compiler TEST suite"
                                      : "driver tests";
  TrainingConfig t;
  t.capped_domain_words = {"test"};
  t.max_kernels_in_capped_domains = 3;
  auto set = select_training_texts(kernels, t);
  // The pool t1 + t2 keeps its 3 lowest hashes: t10, t11 and t20.
  EXPECT_EQ(set.texts, (std::vector<std::string>{"t10", "t11", "app0", "app1", "app2", "t20"}));
  EXPECT_EQ(set.domain_capped.at("t2"), 1);
  EXPECT_EQ(set.domain_capped.count("t1"), 0u);
  EXPECT_EQ(set.domain_capped.count("app"), 0u);
  EXPECT_TRUE(set.capped.empty());
}

TEST(SelectTrainingTexts, RepositoryEmptiedByTheDomainCapIsNeverHeldOut) {
  auto kernels = kernels_of({{"t1", 2}, {"t2", 1}, {"a", 1}, {"b", 1}, {"c", 1}});
  for (auto& k : kernels) k.domain = k.repository[0] == 't' ? "test suite" : "physics";
  TrainingConfig t;
  t.capped_domain_words = {"test"};
  t.max_kernels_in_capped_domains = 2;  // t1 keeps both, t2 none
  t.validation_split = "repository";
  t.validation_fraction = 0.5;
  auto set = select_training_texts(kernels, t);
  EXPECT_EQ(set.texts.size(), 5u);
  for (const auto& repo : set.held_out_repositories) EXPECT_NE(repo, "t2");
}

TEST(SelectTrainingTexts, RepositorySplitHoldsOutWholeRepositoriesWithinTheShare) {
  TrainingConfig t;
  t.validation_split = "repository";
  t.validation_fraction = 0.3;
  // 10 kernels; the budget is 3, so "huge" (6) can never be held out and
  // at most two of a (2), b (1), c (1) fit.
  auto set = select_training_texts(kernels_of({{"huge", 6}, {"a", 2}, {"b", 1}, {"c", 1}}), t);
  ASSERT_GT(set.held_out, 0u);
  EXPECT_LE(set.held_out, 3u);
  EXPECT_EQ(set.texts.size(), 10u);
  std::set<std::string> held(set.held_out_repositories.begin(), set.held_out_repositories.end());
  EXPECT_EQ(held.count("huge"), 0u);
  // The held-out texts are the last ones and come only from held-out repositories;
  // no training text does.
  for (size_t i = 0; i < set.texts.size(); ++i) {
    std::string repo = set.texts[i].substr(0, set.texts[i].size() - 1);
    EXPECT_EQ(held.count(repo) == 1, i >= set.texts.size() - set.held_out) << set.texts[i];
  }
  EXPECT_EQ(set.training_only().size(), 10u - set.held_out);
}

TEST(SelectTrainingTexts, RepositorySplitKeepsOneRepositoryForTraining) {
  TrainingConfig t;
  t.validation_split = "repository";
  t.validation_fraction = 0.9;
  auto set = select_training_texts(kernels_of({{"a", 1}, {"b", 1}}), t);
  EXPECT_EQ(set.held_out_repositories.size(), 1u);
  EXPECT_EQ(set.held_out, 1u);
}

TEST(ReadCorpusKernels, NamesTheRepositoryOfEachKernel) {
  auto db = Database::open(":memory:");
  ASSERT_TRUE(db.ok());
  ASSERT_TRUE(create_preprocessed(*db).ok());
  ASSERT_TRUE(db->exec("CREATE TABLE repositories(id INTEGER PRIMARY KEY, source TEXT, owner TEXT, name TEXT);"
                       "CREATE TABLE content_origins(sha256 TEXT, repository_id INTEGER, commit_sha TEXT, path TEXT);"
                       "INSERT INTO repositories VALUES(1,'snapshot:o/n','o','n'),(2,'package:p',NULL,NULL);"
                       "INSERT INTO content_origins VALUES('c1',1,'x','a.cl'),('c2',2,'','b.cl');"
                       "INSERT INTO preprocessed VALUES('c1','1','ok',NULL,NULL,'kernel A','h1',5);"
                       "INSERT INTO preprocessed VALUES('c2','1','ok',NULL,NULL,'kernel B','h2',5);")
                  .ok());
  auto kernels = read_corpus_kernels(*db);
  ASSERT_TRUE(kernels.ok()) << kernels.status().message();
  ASSERT_EQ(kernels->size(), 2u);
  EXPECT_EQ((*kernels)[0].repository, "o/n");
  EXPECT_EQ((*kernels)[1].repository, "package:p");
}

TEST(ReadCorpusKernels, NamesTheDomainOfEachKernelsRepository) {
  auto db = Database::open(":memory:");
  ASSERT_TRUE(db.ok());
  ASSERT_TRUE(create_preprocessed(*db).ok());
  ASSERT_TRUE(
      db->exec(
            "CREATE TABLE repositories(id INTEGER PRIMARY KEY, source TEXT, owner TEXT, name TEXT, domain TEXT);"
            "CREATE TABLE content_origins(sha256 TEXT, repository_id INTEGER, commit_sha TEXT, path TEXT);"
            "INSERT INTO repositories VALUES(1,'snapshot:o/n','o','n','compiler test suite'),(2,'package:p',NULL,NULL,NULL);"
            "INSERT INTO content_origins VALUES('c1',1,'x','a.cl'),('c2',2,'','b.cl');"
            "INSERT INTO preprocessed VALUES('c1','1','ok',NULL,NULL,'kernel A','h1',5);"
            "INSERT INTO preprocessed VALUES('c2','1','ok',NULL,NULL,'kernel B','h2',5);")
          .ok());
  auto kernels = read_corpus_kernels(*db);
  ASSERT_TRUE(kernels.ok()) << kernels.status().message();
  ASSERT_EQ(kernels->size(), 2u);
  EXPECT_EQ((*kernels)[0].domain, "compiler test suite");
  EXPECT_EQ((*kernels)[1].domain, "");
}

TEST(ReadCorpusKernels, WithoutOpenCl20LeavesOutKernelsStoredAsOpenCl20) {
  auto db = Database::open(":memory:");
  ASSERT_TRUE(db.ok());
  ASSERT_TRUE(create_preprocessed(*db).ok());
  ASSERT_TRUE(db->exec("ALTER TABLE preprocessed ADD COLUMN language TEXT NOT NULL DEFAULT 'CL1.2';"
                       "INSERT INTO preprocessed VALUES('c1','1','ok',NULL,NULL,'kernel A','h1',5,'CL1.2');"
                       "INSERT INTO preprocessed VALUES('c2','1','ok',NULL,NULL,'kernel B','h2',5,'CL2.0');")
                  .ok());
  auto all = read_corpus_kernels(*db, 0, true);
  ASSERT_TRUE(all.ok()) << all.status().message();
  EXPECT_EQ(all->size(), 2u);
  auto cl12 = read_corpus_kernels(*db, 0, false);
  ASSERT_TRUE(cl12.ok()) << cl12.status().message();
  ASSERT_EQ(cl12->size(), 1u);
  EXPECT_EQ((*cl12)[0].text, "kernel A");
  // A table from before the column holds only OpenCL C 1.2 kernels: nothing is left out.
  auto old = Database::open(":memory:");
  ASSERT_TRUE(old.ok());
  ASSERT_TRUE(create_preprocessed(*old).ok());
  ASSERT_TRUE(old->exec("INSERT INTO preprocessed VALUES('c1','1','ok',NULL,NULL,'kernel A','h1',5);").ok());
  auto before = read_corpus_kernels(*old, 0, false);
  ASSERT_TRUE(before.ok()) << before.status().message();
  EXPECT_EQ(before->size(), 1u);
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

// A pid no process has now: a child's that exited and was reaped.
int64_t dead_pid() {
  pid_t child = ::fork();
  if (child == 0) ::_exit(0);
  int status = 0;
  ::waitpid(child, &status, 0);
  return child;
}

// Runs killed with SIGKILL leave their rows 'running'; the next run closes
// those whose process is gone, and only those: this process's own run stays,
// and so does a run of another host (its process cannot be looked up here).
TEST(TrainingRuns, NextRunMarksRowsOfEndedProcessesInterruptedAtTheirLastCheckpoint) {
  auto db = Database::open(":memory:");
  ASSERT_TRUE(db.ok());
  ASSERT_TRUE(ensure_model_schema(*db).ok());
  std::map<std::string, int64_t> id;
  for (const std::string m : {"alive", "dead", "dead_checkpointed", "pid_reused", "other_host"}) {
    auto run = begin_training_run(*db, m, "cfg", "corpus", "char", 50, "cpu", m == "dead" ? 2 : 0);
    ASSERT_TRUE(run.ok()) << run.status().message();
    id[m] = *run;
  }
  ASSERT_TRUE(record_checkpoint(*db, "dead_checkpointed", id["dead_checkpointed"], 0, 40, "c.pt", "periodic").ok());
  ASSERT_TRUE(record_checkpoint(*db, "dead_checkpointed", id["dead_checkpointed"], 1, 0, "c.pt", "epoch").ok());
  ASSERT_TRUE(record_checkpoint(*db, "dead_checkpointed", id["dead_checkpointed"], 1, 40, "c.pt", "periodic").ok());
  const int64_t gone = dead_pid();
  ASSERT_TRUE(
      db->exec(fmt::format("UPDATE training_runs SET pid = {} WHERE model_id IN ('dead', 'dead_checkpointed')", gone))
          .ok());
  // This process's pid, but a process started at another time.
  ASSERT_TRUE(db->exec("UPDATE training_runs SET pid_start = pid_start + 1 WHERE model_id = 'pid_reused'").ok());
  ASSERT_TRUE(
      db->exec(fmt::format(
                   "UPDATE training_runs SET host = 'elsewhere.invalid', pid = {} WHERE model_id = 'other_host'", gone))
          .ok());

  auto next = begin_training_run(*db, "next", "cfg", "corpus", "char", 50, "cpu", 0);
  ASSERT_TRUE(next.ok()) << next.status().message();
  auto q = db->prepare(
      "SELECT model_id || ' ' || status || ' ' || COALESCE(end_epoch, '-') || ' ' || "
      "(finished_at IS NULL) FROM training_runs ORDER BY id");
  ASSERT_TRUE(q.ok());
  std::vector<std::string> rows;
  while (*q->step()) rows.push_back(q->column_text(0));
  EXPECT_EQ(rows,
            (std::vector<std::string>{"alive running - 1", "dead interrupted 2 1", "dead_checkpointed interrupted 1 1",
                                      "pid_reused interrupted 0 1", "other_host running - 1", "next running - 1"}));
  auto again = close_stale_training_runs(*db);
  ASSERT_TRUE(again.ok());
  EXPECT_EQ(*again, 0);
}

// A workspace database whose corpus is `texts`, accepted as they are, with
// the normalized hashes "h0", "h1", ...
Database corpus_of(const std::vector<std::string>& texts) {
  auto db = Database::open(":memory:");
  EXPECT_TRUE(db.ok() && create_preprocessed(*db).ok());
  auto ins = db->prepare("INSERT INTO preprocessed VALUES(?1, '1', 'ok', NULL, NULL, ?2, ?1, 5)");
  EXPECT_TRUE(ins.ok());
  for (size_t i = 0; i < texts.size(); ++i) {
    ins->reset();
    EXPECT_TRUE(ins->bind(1, "h" + std::to_string(i)).ok() && ins->bind(2, texts[i]).ok() && ins->run().ok());
  }
  return std::move(*db);
}

// h0: `a[1] * 2.0f` is 1 operator; a is referenced twice (mem 2), both
// times subscripted by an integer literal (coalesced 2). h1 does not compile.
Database corpus_with_two_kernels() {
  return corpus_of({"__kernel void A(__global float* a) {\n  a[0] = a[1] * 2.0f;\n}\n", "__kernel void B( {"});
}

// The model library takes the features from the program (the features
// library sits above it); this one counts as the Grewe extractor would.
std::optional<FeatureVector> two_kernels_features(const std::string& text) {
  if (text.rfind("__kernel void A(", 0) == 0) return FeatureVector{1, 0, 2, 0, 2, 0};
  return std::nullopt;
}

// Installs two_kernels_features for the scope, then none again.
struct WithExtractor {
  WithExtractor() { set_kernel_feature_extractor(two_kernels_features); }
  ~WithExtractor() { set_kernel_feature_extractor(nullptr); }
};

TEST(FeaturePrefixTrainingSet, EveryTextGetsItsKernelsHeaderAndOneWithoutFeaturesGetsNone) {
  WithExtractor extractor;
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
  WithExtractor extractor;
  Database db = corpus_with_two_kernels();
  TrainingConfig t;
  t.feature_prefix = true;
  t.validation_fraction = 0;
  ASSERT_TRUE(read_training_set(db, t).ok());
  // Both kernels are cached, the failure too (NULL features).
  auto rows = db.prepare("SELECT sha256, comp FROM kernel_features ORDER BY sha256");
  ASSERT_TRUE(rows.ok());
  ASSERT_TRUE(*rows->step());
  EXPECT_EQ("h0", rows->column_text(0));
  EXPECT_EQ(1, rows->column_int(1));
  ASSERT_TRUE(*rows->step());
  EXPECT_EQ("h1", rows->column_text(0));
  EXPECT_TRUE(rows->column_is_null(1));
  EXPECT_FALSE(*rows->step());
  // A cached value the extractor would not give shows the cache is read.
  ASSERT_TRUE(db.exec("UPDATE kernel_features SET comp = 40 WHERE sha256 = 'h0'").ok());
  auto again = read_training_set(db, t);
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ("// comp 32+ rational 0 mem 2 localmem 0 coalesced 2 atomic 0\n", again->headers[0]);
  EXPECT_EQ("", again->headers[1]);
}

TEST(FeaturePrefixTrainingSet, WithoutAnExtractorOnlyCachedFeaturesAreRead) {
  Database db = corpus_with_two_kernels();
  TrainingConfig t;
  t.feature_prefix = true;
  t.validation_fraction = 0;
  auto none = read_training_set(db, t);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(ErrorCode::kUnavailable, none.status().code()) << none.status().message();
  // Given explicitly, or once both kernels are cached, none is needed.
  auto given = cached_kernel_features(db, {"h0", "h1"}, {"__kernel void A(", "x"}, two_kernels_features);
  ASSERT_TRUE(given.ok()) << given.status().message();
  EXPECT_EQ((std::vector<std::optional<FeatureVector>>{FeatureVector{1, 0, 2, 0, 2, 0}, std::nullopt}), *given);
  EXPECT_TRUE(read_training_set(db, t).ok());
}

}  // namespace
}  // namespace clgen::model
