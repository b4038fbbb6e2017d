// Tests of the sampling pipeline (real preprocess filter, SQLite store)
// driven by a model that emits scripted kernels.
#include "sampler/pipeline.h"

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <map>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "corpus/preprocess/preprocess.h"
#include "corpus/preprocess/store.h"
#include "sampler/arg_spec.h"
#include "sampler/store.h"
#include "support/files.h"
#include "support/interrupt.h"
#include "support/sha256.h"
#include "tests/sampler/scripted_model.h"

namespace clgen::sampler {
namespace {

namespace fs = std::filesystem;
using testing::ScriptedModel;

const std::string kArgs = "float*,float*,float*,int";
const std::string kAdd = "\n  int e = get_global_id(0);\n  if (e < d) {\n    c[e] = a[e] + b[e];\n  }\n}";
const std::string kMul = "\n  int e = get_global_id(0);\n  c[e] = a[e] * b[e] * d;\n}";
const std::string kUndeclared = "\n  c[0] = missing_function(a[0]);\n}";
const std::string kEmpty = "\n}";
const std::string kOpen = "\n  if (d) { c[0] = 1;" + std::string(300, ' ');  // cut at max length

class PipelineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("clgen_sampler_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    (void)remove_tree(dir_.string());
    fs::create_directories(dir_);
    auto db = Database::open((dir_ / "clgen.db").string());
    ASSERT_TRUE(db.ok()) << db.status().message();
    db_ = std::make_unique<Database>(std::move(*db));
    clear_interrupt();
  }
  void TearDown() override {
    db_.reset();
    (void)remove_tree(dir_.string());
    clear_interrupt();
  }

  SampleOptions options() {
    SampleOptions o;
    o.args = kArgs;
    o.max_length = 200;
    o.target_accepted = 0;  // each test sets its stop condition
    o.filter_threads = 2;
    o.out_dir = (dir_ / "out").string();
    o.progress = false;
    o.constrain = false;  // scripted texts; the constraint has its own tests
    return o;
  }

  // `body` after kArgs's prototype, normalized, as the workspace's one
  // accepted corpus kernel; its normalized text in `text`.
  void store_corpus_kernel_of(const std::string& body, std::string& text) {
    preprocess::RewriteResult r = preprocess::rewrite(*seed_text(kArgs) + body);
    ASSERT_EQ(preprocess::RewriteStatus::kOk, r.status) << r.reason;
    text = r.text;
    ASSERT_NO_FATAL_FAILURE(store_corpus_kernel(text));
  }

  // `text` as the workspace's one accepted corpus kernel.
  void store_corpus_kernel(const std::string& text) {
    ASSERT_TRUE(preprocess::ensure_preprocess_schema(*db_).ok());
    auto ins = db_->prepare(
        "INSERT INTO preprocessed (content_sha256, preprocessor_version, status, normalized_text, "
        "normalized_sha256) VALUES ('x', 'v', 'ok', ?1, ?2)");
    ASSERT_TRUE(ins.ok());
    ASSERT_TRUE(ins->bind(1, std::string_view(text)).ok());
    const std::string sha = sha256_hex(text);
    ASSERT_TRUE(ins->bind(2, std::string_view(sha)).ok());
    ASSERT_TRUE(ins->run().ok());
  }

  int64_t count(const std::string& where) {
    auto st = db_->prepare("SELECT count(*) FROM samples WHERE " + where);
    EXPECT_TRUE(st.ok());
    auto row = st->step();
    EXPECT_TRUE(row.ok() && *row);
    return st->column_int(0);
  }

  fs::path dir_;
  std::unique_ptr<Database> db_;
};

TEST_F(PipelineTest, StoresEverySampleWithItsVerdict) {
  ScriptedModel model(1, {kAdd, kUndeclared, kAdd, kEmpty, kOpen, kMul});
  SampleOptions o = options();
  o.max_samples = 6;
  auto sum = run_sampling(model, *db_, o);
  ASSERT_TRUE(sum.ok()) << sum.status().message();
  EXPECT_EQ(6u, sum->samples);
  EXPECT_EQ(2u, sum->accepted);
  EXPECT_EQ(2, count("status = 'accepted'"));
  EXPECT_EQ(1, count("status = 'duplicate'"));
  EXPECT_EQ(2, count("status = 'rejected'"));
  EXPECT_EQ(1, count("status = 'rejected' AND category = 'too_few_instructions'"));
  EXPECT_EQ(1, count("status = 'truncated' AND category = 'max_length'"));
  EXPECT_EQ(6, count("args = '" + kArgs + "' AND model_id = 'scripted'"));
  // Every accepted kernel has exactly the requested prototype and a .cl file.
  auto st = db_->prepare("SELECT normalized_text, normalized_sha256 FROM samples WHERE status = 'accepted'");
  ASSERT_TRUE(st.ok());
  std::string prototype = *seed_text(kArgs);
  int files = 0;
  while (*st->step()) {
    std::string text = st->column_text(0);
    EXPECT_EQ(0u, text.find(prototype + "\n")) << text;
    EXPECT_EQ(st->column_text(1), sha256_hex(text));
    auto file = read_file(o.out_dir + "/" + st->column_text(1) + ".cl");
    ASSERT_TRUE(file.ok()) << file.status().message();
    EXPECT_EQ(text, *file);
    ++files;
  }
  EXPECT_EQ(2, files);
  EXPECT_EQ(2, std::distance(fs::directory_iterator(o.out_dir), fs::directory_iterator()));
}

// With several filter workers the store still takes rows in draw order:
// the first draw of a kernel is the accepted one although a later draw of it
// is filtered first (the first draw makes Clang expand a macro to four
// million tokens in an #if that the normalized kernel does not show; with
// one million, a loaded 2-core machine filtered it no slower than the second
// draw, whose thread pays for its first Clang run).
TEST_F(PipelineTest, SeveralFilterWorkersStoreRowsInDrawOrder) {
  std::string slow = "\n#define X0 1";
  for (int i = 1; i <= 22; ++i)
    slow += "\n#define X" + std::to_string(i) + " X" + std::to_string(i - 1) + "+X" + std::to_string(i - 1);
  slow += "\n#if X22\n#endif" + kAdd;
  ScriptedModel model(1, {slow, kAdd});
  SampleOptions o = options();
  o.max_length = 2000;
  o.filter_threads = 2;
  o.max_samples = 2;
  // In this process: a worker's start-up (a few hundred ms, paid by each
  // thread's first sample) would hide which draw is slow to filter.
  o.filter_budget.isolated = false;
  auto sum = run_sampling(model, *db_, o);
  ASSERT_TRUE(sum.ok()) << sum.status().message();
  auto st = db_->prepare("SELECT status, filter_seconds FROM samples ORDER BY sample_index");
  ASSERT_TRUE(st.ok());
  std::vector<std::string> statuses;
  std::vector<double> seconds;
  while (*st->step()) {
    statuses.push_back(st->column_text(0));
    seconds.push_back(st->column_double(1));
  }
  ASSERT_EQ(2u, statuses.size());
  // The second draw's filter ended first (it began a few hundred model steps later).
  ASSERT_GT(seconds[0], 2 * seconds[1]) << "the first draw was not the slow one to filter: " << seconds[0]
                                        << " s against " << seconds[1] << " s";
  EXPECT_EQ((std::vector<std::string>{"accepted", "duplicate"}), statuses);
}

TEST_F(PipelineTest, KeepsOnlySamplesThatCompileAsWrittenInOpenCl12) {
  // Each would pass the corpus preprocessor's second chances: WIDTH by
  // missing-name inference, the OpenCL C 2.0 atomics by the 2.0 retry.
  const std::string kUpperCaseConstant = "\n  int e = get_global_id(0);\n  c[e] = a[e] * WIDTH;\n}";
  const std::string kOpenCl20 =
      "\n  size_t e = get_global_linear_id();\n  c[e] = a[e] + b[e];\n  atomic_work_item_fence(CLK_GLOBAL_MEM_FENCE, "
      "memory_order_relaxed, memory_scope_device);\n}";
  ScriptedModel model(1, {kUpperCaseConstant, kOpenCl20, kAdd});
  SampleOptions o = options();
  o.max_samples = 3;
  auto sum = run_sampling(model, *db_, o);
  ASSERT_TRUE(sum.ok()) << sum.status().message();
  EXPECT_EQ(1, count("status = 'accepted'"));
  EXPECT_EQ(2, count("status = 'rejected' AND category = 'undeclared_identifier'"));
}

TEST_F(PipelineTest, StopsAfterNUniqueAcceptedKernelsAndDedupesAcrossRuns) {
  ScriptedModel model(2, {kAdd, kUndeclared, kAdd, kMul, kAdd});
  SampleOptions o = options();
  o.target_accepted = 1;
  auto first = run_sampling(model, *db_, o);
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_EQ(1u, first->accepted);
  EXPECT_EQ(1, count("status = 'accepted'"));

  // A second run (of another seed: -n counts per seed) knows the first
  // run's kernels: the add kernel is a duplicate now.
  ScriptedModel again(1, {kAdd, kMul});
  o.filter_threads = 1;  // results in sampling order
  o.seed = 1;
  auto second = run_sampling(again, *db_, o);
  ASSERT_TRUE(second.ok()) << second.status().message();
  EXPECT_EQ(1u, second->accepted);
  EXPECT_GE(count("status = 'duplicate'"), 1);
  EXPECT_EQ(2, count("status = 'accepted'"));
}

// -n counts the accepted samples of (model, args, seed, policy) over runs:
// a rerun draws the stored draws again without storing them and stores only
// what is missing; once nothing is missing it samples nothing.
TEST_F(PipelineTest, ARerunOfTheSameSeedStoresOnlyTheMissingAcceptedKernels) {
  const std::string kSub = "\n  int e = get_global_id(0);\n  c[e] = a[e] - b[e] * d;\n}";
  const std::vector<std::string> script = {kAdd, kUndeclared, kMul, kSub};
  SampleOptions o = options();
  o.filter_threads = 1;  // results in sampling order
  o.seed = 5;
  o.target_accepted = 1;
  ScriptedModel first(1, script);
  auto one = run_sampling(first, *db_, o);
  ASSERT_TRUE(one.ok()) << one.status().message();
  ASSERT_EQ(1, count("status = 'accepted'"));  // the add kernel, draw 0

  o.target_accepted = 3;
  ScriptedModel second(1, script);  // the same draws again, as the same seed gives
  auto three = run_sampling(second, *db_, o);
  ASSERT_TRUE(three.ok()) << three.status().message();
  EXPECT_EQ(1u, three->accepted_before);
  EXPECT_EQ(2u, three->accepted);  // mul and sub: 1 + 2 = 3
  EXPECT_GE(three->replayed, 1u);  // draw 0 at least
  EXPECT_EQ(3, count("status = 'accepted' AND seed = 5"));
  EXPECT_EQ(0, count("status = 'duplicate'"));  // the add kernel was not stored again
  EXPECT_EQ(0, count("sample_index IN (SELECT sample_index FROM samples GROUP BY sample_index HAVING count(*) > 1)"));
  const int64_t rows = count("1");
  // A kill between a commit and its .cl files: the rerun writes them.
  auto first_sha = db_->prepare("SELECT normalized_sha256 FROM samples WHERE seed = 5 AND sample_index = 0");
  ASSERT_TRUE(first_sha.ok() && *first_sha->step());
  const std::string add_file = o.out_dir + "/" + first_sha->column_text(0) + ".cl";
  ASSERT_TRUE(fs::remove(add_file));

  ScriptedModel third(1, script);
  auto none = run_sampling(third, *db_, o);
  ASSERT_TRUE(none.ok()) << none.status().message();
  EXPECT_EQ(3u, none->accepted_before);
  EXPECT_EQ(0u, none->samples);
  EXPECT_EQ(0, third.steps);  // not a token drawn
  EXPECT_EQ(rows, count("1"));
  EXPECT_TRUE(fs::exists(add_file));
  EXPECT_EQ(3, std::distance(fs::directory_iterator(o.out_dir), fs::directory_iterator()));
}

// write_file_atomic writes NAME.tmp.PID first: a run killed meanwhile left
// one behind. The next run removes it, but not a live process's.
TEST_F(PipelineTest, ATemporaryFileOfAKilledRunIsRemovedAndALiveProcesssIsKept) {
  SampleOptions o = options();
  o.max_samples = 1;
  fs::create_directories(o.out_dir);
  pid_t child = fork();
  if (child == 0) _exit(0);
  ASSERT_GT(child, 0);
  waitpid(child, nullptr, 0);  // reaped: no process has this pid now
  const std::string dead = o.out_dir + "/k.cl.tmp." + std::to_string(child);
  const std::string live = o.out_dir + "/k.cl.tmp." + std::to_string(::getpid());
  for (const std::string& path : {dead, live}) ASSERT_TRUE(write_file_atomic(path, "half").ok());
  ScriptedModel model(1, {kMul});
  ASSERT_TRUE(run_sampling(model, *db_, o).ok());
  EXPECT_FALSE(fs::exists(dead));
  EXPECT_TRUE(fs::exists(live));
}

TEST_F(PipelineTest, ShardedRunRecordsItsShardAndShardZeroOfOneIsStoredAsUnsharded) {
  SampleOptions o = options();
  o.max_samples = 2;
  o.seed = 9;
  o.shard = Shard{1, 4};
  ScriptedModel model(1, {kAdd, kUndeclared});
  auto sharded = run_sampling(model, *db_, o);
  ASSERT_TRUE(sharded.ok()) << sharded.status().message();
  EXPECT_EQ(2, count("shard = '1/4' AND seed = 9"));

  o.shard = Shard{0, 1};
  ScriptedModel again(1, {kMul});
  ASSERT_TRUE(run_sampling(again, *db_, o).ok());
  EXPECT_EQ(2, count("shard IS NULL AND seed = 9"));

  o.shard = Shard{4, 4};
  ScriptedModel bad(1, {kMul});
  EXPECT_FALSE(run_sampling(bad, *db_, o).ok());
}

TEST_F(PipelineTest, CountsVerbatimCopiesOfTrainingKernels) {
  // The training corpus holds the normalized add kernel.
  std::string add;
  ASSERT_NO_FATAL_FAILURE(store_corpus_kernel_of(kAdd, add));
  const std::string sha = sha256_hex(add);

  ScriptedModel model(2, {kAdd, kMul});
  SampleOptions o = options();
  o.max_samples = 4;
  auto sum = run_sampling(model, *db_, o);
  ASSERT_TRUE(sum.ok()) << sum.status().message();
  EXPECT_EQ(2u, sum->by_status["training_copy"]);
  EXPECT_EQ(1u, sum->accepted);
  EXPECT_FALSE(fs::exists(o.out_dir + "/" + sha + ".cl"));
}

TEST_F(PipelineTest, StoresANearCopyOfACorpusKernelAsSuchUnlessTheCheckIsOff) {
  std::string add;
  ASSERT_NO_FATAL_FAILURE(store_corpus_kernel_of(kAdd, add));
  // The add kernel with one token changed: most of its 8-grams are the corpus kernel's.
  const std::string near = "\n  int e = get_global_id(0);\n  if (e <= d) {\n    c[e] = a[e] + b[e];\n  }\n}";

  ScriptedModel model(1, {near, kMul});
  SampleOptions o = options();
  o.max_samples = 2;
  auto sum = run_sampling(model, *db_, o);
  ASSERT_TRUE(sum.ok()) << sum.status().message();
  EXPECT_EQ(1u, sum->by_status["near_copy"]);
  EXPECT_EQ(1u, sum->accepted);  // the mul kernel shares its prototype, not most of its 8-grams
  EXPECT_EQ(1, count("status = 'near_copy' AND reason LIKE '%of its token 8-grams are in one corpus kernel'"));

  ScriptedModel again(1, {near});
  o.near_copy = 0;
  o.seed = 2;
  o.max_samples = 1;
  sum = run_sampling(again, *db_, o);
  ASSERT_TRUE(sum.ok()) << sum.status().message();
  EXPECT_EQ(1u, sum->accepted);
}

// Raises the interrupt flag on its fifth (re)start, as SIGINT would.
class InterruptingModel : public ScriptedModel {
 public:
  using ScriptedModel::ScriptedModel;
  Status feed(int stream, std::string_view text) override {
    if (starts == 5) request_interrupt();
    return ScriptedModel::feed(stream, text);
  }
};

TEST_F(PipelineTest, InterruptKeepsWhatWasAccepted) {
  InterruptingModel model(1, {kAdd, kMul, kUndeclared});
  SampleOptions o = options();
  o.max_samples = 1000;
  auto sum = run_sampling(model, *db_, o);
  ASSERT_TRUE(sum.ok()) << sum.status().message();
  EXPECT_TRUE(sum->interrupted);
  EXPECT_LT(sum->samples, 1000u);
  EXPECT_EQ(static_cast<int64_t>(sum->accepted), count("status = 'accepted'"));
  EXPECT_EQ(static_cast<std::ptrdiff_t>(sum->accepted),
            std::distance(fs::directory_iterator(o.out_dir), fs::directory_iterator()));
}

// A time limit that is up before the first step: each stream's first
// sample is in flight.
TEST_F(PipelineTest, AtTheTimeLimitTheSamplesInFlightRunToTheirEndAndAreStored) {
  ScriptedModel model(2, {kAdd, kEmpty, kMul});
  SampleOptions o = options();
  o.time_limit = 1e-9;
  auto sum = run_sampling(model, *db_, o);
  ASSERT_TRUE(sum.ok()) << sum.status().message();
  EXPECT_EQ(2u, sum->samples) << "the two samples begun before the limit, and none begun after it";
  EXPECT_EQ(2u, sum->drained);
  EXPECT_EQ(1, count("status = 'accepted'")) << "kAdd, the longer one";
}

// The draws a drained run keeps have the indices they have in a run that
// goes on, so a rerun of the seed skips them and stores the rest as one
// uninterrupted run would.
TEST_F(PipelineTest, ADrainedRunNumbersItsDrawsAsARunThatWentOn) {
  auto rows = [](Database& db) {
    std::map<int64_t, std::string> out;
    auto st = db.prepare("SELECT sample_index, text FROM samples");
    EXPECT_TRUE(st.ok());
    while (true) {
      auto row = st->step();
      if (!row.ok() || !*row) break;
      out[st->column_int(0)] = st->column_text(1);
    }
    return out;
  };
  ScriptedModel drained_model(2, {kAdd, kEmpty, kMul, kEmpty});
  SampleOptions o = options();
  o.time_limit = 1e-9;
  ASSERT_TRUE(run_sampling(drained_model, *db_, o).ok());
  const std::map<int64_t, std::string> drained = rows(*db_);
  ASSERT_EQ(2u, drained.size());
  EXPECT_GT(drained.rbegin()->first, 1) << "kAdd ends after kEmpty's later draws, which take indices";

  auto other = Database::open((dir_ / "other.db").string());
  ASSERT_TRUE(other.ok()) << other.status().message();
  ScriptedModel model(2, {kAdd, kEmpty, kMul, kEmpty});
  SampleOptions full = options();
  full.out_dir.clear();
  full.max_samples = 40;
  ASSERT_TRUE(run_sampling(model, *other, full).ok());
  const std::map<int64_t, std::string> went_on = rows(*other);
  for (const auto& [index, text] : drained) {
    ASSERT_TRUE(went_on.count(index)) << index;
    EXPECT_EQ(went_on.at(index), text) << index;
  }
}

TEST_F(PipelineTest, WithoutTheDrainTheTimeLimitDropsTheSamplesInFlight) {
  ScriptedModel model(2, {kAdd, kEmpty, kMul});
  SampleOptions o = options();
  o.time_limit = 1e-9;
  o.drain = false;
  auto sum = run_sampling(model, *db_, o);
  ASSERT_TRUE(sum.ok()) << sum.status().message();
  EXPECT_EQ(0u, sum->samples);
  EXPECT_EQ(0, count("1"));
}

// The first script calls an undeclared function on its third line; the
// second, read after the replay of the first's two good lines, finishes
// them. From the seed alone the second is a parse error on the first line,
// which leaves nothing to resume.
TEST_F(PipelineTest, ARejectedSampleIsDrawnAgainFromTheLineBeforeItsError) {
  const std::string kept = "\n  int e = get_global_id(0);\n";
  const std::string ending = "  c[e] = a[e] * b[e] * d;\n}";
  ScriptedModel model(1, {kept + "  c[e] = missing_function(a[e]);\n}", std::string(kept.size(), '#') + ending});
  SampleOptions o = options();
  o.max_samples = 40;
  o.resume_errors = 1;
  auto sum = run_sampling(model, *db_, o);
  ASSERT_TRUE(sum.ok()) << sum.status().message();
  EXPECT_GE(sum->resumed, 1u);
  EXPECT_EQ(1u, sum->resumed_accepted) << "one kernel, then its duplicates";
  EXPECT_EQ(1, count("status = 'accepted'"));
  EXPECT_EQ(1, count("status = 'accepted' AND text = '" + *seed_text(kArgs) + kept + ending + "'"));
  EXPECT_EQ(0, count("status = 'accepted' AND text LIKE '%#%'"));
}

TEST_F(PipelineTest, ResumingErrorsIsRefusedWhereItsStartsCannotBeUsed) {
  ScriptedModel model(1, {kAdd});
  SampleOptions o = options();
  o.max_samples = 1;
  o.resume_errors = 1;
  o.whole_text = true;
  auto sum = run_sampling(model, *db_, o);
  ASSERT_FALSE(sum.ok());
  EXPECT_NE(std::string::npos, sum.status().message().find("--args")) << sum.status().message();
}

// A macro bomb as the model might write it: A40 stands for 2^40 additions,
// which Clang would parse for hours.
std::string macro_bomb_body() {
  std::string body = "\n#define A0 1\n";
  for (int i = 1; i <= 40; ++i) body += fmt::format("#define A{} (A{} + A{})\n", i, i - 1, i - 1);
  return body + "  c[get_global_id(0)] = A40;\n}";
}

TEST_F(PipelineTest, AMacroBombSampleIsStoredAsATimeLimitRejectionAndTheNextSampleIsFiltered) {
  ScriptedModel model(1, {macro_bomb_body(), kAdd});
  SampleOptions o = options();
  o.max_length = 4000;
  o.max_samples = 2;
  o.filter_threads = 1;  // the bomb, then the add kernel
  o.filter_budget.time_limit_s = 2;
  auto start = std::chrono::steady_clock::now();
  auto sum = run_sampling(model, *db_, o);
  ASSERT_TRUE(sum.ok()) << sum.status().message();
  // The limit and a replaced worker's start, never the bomb's hours.
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 30.0);
  EXPECT_EQ(2u, sum->samples);
  EXPECT_EQ(1, count("sample_index = 0 AND status = 'rejected' AND category = 'time_limit' AND reason LIKE "
                     "'%2 s time limit%' AND normalized_text IS NULL"));
  EXPECT_EQ(1, count("sample_index = 1 AND status = 'accepted'"));
}

TEST_F(PipelineTest, InProcessFilterNeedsNoWorkerAndIsolatedFilterFailsTheRunWithoutOne) {
  ScriptedModel model(1, {kAdd, kMul});
  SampleOptions o = options();
  o.max_samples = 2;
  o.filter_budget.worker_binary = "/nonexistent/clgen-clang-worker";
  o.filter_budget.isolated = false;  // --clang-in-process: the worker is never started
  auto here = run_sampling(model, *db_, o);
  ASSERT_TRUE(here.ok()) << here.status().message();
  EXPECT_EQ(2, count("status = 'accepted'"));

  // Isolated, a worker that cannot start is the run's error: no sample is
  // stored with a verdict it did not get.
  ScriptedModel again(1, {kAdd, kMul});
  o.seed = 1;
  o.filter_budget.isolated = true;
  auto there = run_sampling(again, *db_, o);
  ASSERT_FALSE(there.ok());
  EXPECT_EQ(there.status().code(), ErrorCode::kUnavailable);
  EXPECT_NE(there.status().message().find("filtering samples"), std::string::npos) << there.status().message();
  EXPECT_EQ(0, count("seed = 1"));
}

TEST_F(PipelineTest, BadSpecAndMissingStopConditionAreErrors) {
  ScriptedModel model(1, {kAdd});
  SampleOptions o = options();
  o.max_samples = 1;
  o.args = "float*,flaot";
  auto bad = run_sampling(model, *db_, o);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("argument 2 'flaot'"), std::string::npos);
  o = options();
  auto none = run_sampling(model, *db_, o);
  ASSERT_FALSE(none.ok());
  EXPECT_NE(none.status().message().find("stop condition"), std::string::npos);
}

}  // namespace
}  // namespace clgen::sampler
