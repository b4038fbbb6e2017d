// End to end with the real model: `clgen train` a small character LSTM on a
// handful of normalized kernels, then `clgen sample --args` must produce new
// kernels with exactly the requested prototype, reproducibly for a fixed seed;
// and the `tiny` model of the README's main job on installed kernels.
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>
#include <thread>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "support/csv.h"
#include "support/files.h"
#include "support/sha256.h"
#include "support/sqlite.h"
#include "tests/cli/run_command.h"
#include "tests/sampler/corpus_workspace.h"

namespace clgen {
namespace {

namespace fs = std::filesystem;
using testing::CommandResult;
using testing::run_clgen;

const std::string kArgs = "float*,float*,float*,int";
const std::string kPrototype =
    "__kernel void A(__global float* a, __global float* b, __global float* c, const int d) {";

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Four samples of model `id` in workspace `ws`, seed 3, as JSON.
CommandResult sample_four(const std::string& ws, const std::string& id, const std::string& out) {
  return run_clgen({"--workspace",   ws,    "-q",       "sample", "--model", id,  "--args",       kArgs,
                    "--max-samples", "4",   "-n",       "0",      "--seed",  "3", "--batch-size", "4",
                    "--max-length",  "200", "--device", "cpu",    "--out",   out, "--json"});
}

// One workspace and one trained model shared by the tests of this suite
// (training is the slow part).
class SampleEndToEnd : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ASSERT_NO_FATAL_FAILURE(testing::fresh_corpus_workspace("clgen_sample_e2e", &root_));
    auto r = run_clgen({"--workspace", ws(), "-q", "train", "--config", config(), "--device", "cpu"});
    ASSERT_EQ(0, r.exit_code) << r.out << r.err;
    // The trained workspace before any test samples in it, for tests whose
    // run must not meet the samples other tests stored.
    fs::copy(ws(), trained(), fs::copy_options::recursive);
  }
  static void TearDownTestSuite() { (void)remove_tree(root_.string()); }

  static std::string ws() { return (root_ / "ws").string(); }
  static std::string trained() { return (root_ / "ws_trained").string(); }
  // A fresh copy of the trained workspace at root_/NAME.
  static std::string trained_copy(const std::string& name) {
    const std::string copy = (root_ / name).string();
    (void)remove_tree(copy);
    fs::copy(trained(), copy, fs::copy_options::recursive);
    return copy;
  }
  static std::string config() { return std::string(CLGEN_TEST_DATA) + "/sampler/small.toml"; }
  // `clgen --workspace WS -q sample` of the suite's model on the CPU with --args, then `extra`.
  static std::vector<std::string> sample_in(const std::string& ws, const std::vector<std::string>& extra) {
    std::vector<std::string> args = {"--workspace", ws,       "-q",  "sample",   "--config",
                                     config(),      "--args", kArgs, "--device", "cpu"};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  }
  // `clgen sample --json` of the suite's model on the CPU with --args, then
  // `extra`, in workspace `in` (the suite's own by default).
  static CommandResult sample_json(const std::vector<std::string>& extra, const std::string& in = ws()) {
    std::vector<std::string> args = {
        "--workspace", in,         "-q",  "sample",       "--config", config(),         "--args", kArgs,   "-n",
        "0",           "--device", "cpu", "--max-length", "400",      "--max-refusals", "32",     "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_clgen(args);
  }

  // sample_index -> `what` (an SQL expression, default the text) of the
  // samples stored with `seed` in workspace `ws`.
  static std::map<int64_t, std::string> samples_of(const std::string& ws, uint64_t seed,
                                                   const std::string& what = "text") {
    std::map<int64_t, std::string> out;
    auto db = Database::open(ws + "/clgen.db");
    EXPECT_TRUE(db.ok());
    auto st = db->prepare("SELECT sample_index, " + what + " FROM samples WHERE seed = ?1");
    if (!st.ok()) return out;  // no samples table yet
    EXPECT_TRUE(st->bind(1, static_cast<int64_t>(seed)).ok());
    while (*st->step()) {
      EXPECT_EQ(0u, out.count(st->column_int(0))) << "draw " << st->column_int(0) << " stored twice";
      out[st->column_int(0)] = st->column_text(1);
    }
    return out;
  }

  static fs::path root_;
};
fs::path SampleEndToEnd::root_;

TEST_F(SampleEndToEnd, ProducesNewKernelsWithExactlyTheRequestedPrototype) {
  if (HasFatalFailure()) return;
  std::string out = (root_ / "kernels").string();
  auto r = run_clgen({"--workspace", ws(), "-q", "sample", "--config", config(), "--args", kArgs,
                      "-n", "1", "--time-limit", "90", "--seed", "1", "--temperature", "1.0",
                      "--batch-size", "16", "--max-length", "400", "--device", "cpu", "--out", out,
                      "--max-refusals", "32", "--json"});
  ASSERT_EQ(0, r.exit_code) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_GE(j["accepted"].get<int>(), 1) << r.out;
  EXPECT_EQ(out, j["out_dir"].get<std::string>());
  int files = 0;
  for (const auto& e : fs::directory_iterator(out)) {
    std::string text = slurp(e.path());
    EXPECT_EQ(0u, text.find(kPrototype + "\n")) << text;
    EXPECT_EQ(e.path().stem().string(), sha256_hex(text));
    ++files;
  }
  EXPECT_EQ(j["accepted"].get<int>(), files);
  // Accepted kernels are new: none is a training kernel.
  auto db = Database::open(ws() + "/clgen.db");
  ASSERT_TRUE(db.ok());
  auto st = db->prepare(
      "SELECT count(*) FROM samples s JOIN preprocessed p ON s.normalized_sha256 = p.normalized_sha256 "
      "WHERE s.status = 'accepted'");
  ASSERT_TRUE(st.ok());
  ASSERT_TRUE(*st->step());
  EXPECT_EQ(0, st->column_int(0));
}

TEST_F(SampleEndToEnd, SameSeedOnCpuReproducesTheSamples) {
  if (HasFatalFailure()) return;
  // The same seed in a copy of the workspace (in one workspace a rerun of
  // a seed stores nothing again: see SecondRunOfASeedStoresOnlyWhatIsMissing).
  const std::string copy = (root_ / "ws_reproduce").string();
  (void)remove_tree(copy);
  fs::copy(ws(), copy, fs::copy_options::recursive);
  auto sample = [&](const std::string& ws, uint64_t seed) {
    auto r =
        run_clgen(sample_in(ws, {"--max-samples", "12", "-n", "0", "--seed", std::to_string(seed), "--batch-size", "4",
                                 "--max-length", "300", "--out", (root_ / ("seed" + std::to_string(seed))).string()}));
    EXPECT_EQ(0, r.exit_code) << r.err;
  };
  sample(ws(), 7);
  sample(copy, 7);
  sample(ws(), 8);
  auto first = samples_of(ws(), 7);
  auto second = samples_of(copy, 7);
  auto other = samples_of(ws(), 8);
  ASSERT_EQ(12u, first.size());
  EXPECT_EQ(first, second);
  EXPECT_NE(first, other);
  (void)remove_tree(copy);
}

// The filter runs in Clang workers by default (a missing worker fails the
// run), and --clang-in-process stores the same rows as the workers do.
TEST_F(SampleEndToEnd, FilterRunsInClangWorkersAndInProcessStoresTheSameVerdicts) {
  if (HasFatalFailure()) return;
  const std::string copy = (root_ / "ws_in_process").string();
  (void)remove_tree(copy);
  fs::copy(ws(), copy, fs::copy_options::recursive);
  auto sample = [&](const std::string& ws, std::vector<std::string> extra) {
    std::vector<std::string> args = {"--max-samples", "12",  "-n",           "0",
                                     "--seed",        "9",   "--batch-size", "4",
                                     "--max-length",  "300", "--out",        (root_ / "seed9").string()};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_clgen(sample_in(ws, args));
  };
  ::setenv("CLGEN_CLANG_WORKER", "/nonexistent/clgen-clang-worker", 1);
  auto missing = sample(ws(), {});
  auto in_process = sample(copy, {"--clang-in-process"});
  ::unsetenv("CLGEN_CLANG_WORKER");
  EXPECT_EQ(1, missing.exit_code) << missing.err;
  EXPECT_NE(missing.err.find("filtering samples"), std::string::npos) << missing.err;
  EXPECT_NE(missing.err.find("/nonexistent/clgen-clang-worker"), std::string::npos) << missing.err;
  EXPECT_TRUE(samples_of(ws(), 9).empty());
  ASSERT_EQ(0, in_process.exit_code) << in_process.err;
  auto workers = sample(ws(), {});
  ASSERT_EQ(0, workers.exit_code) << workers.err;
  const std::string verdict = "status || '|' || ifnull(category, '') || '|' || ifnull(normalized_text, '')";
  auto here = samples_of(copy, 9, verdict);
  ASSERT_EQ(12u, here.size());
  EXPECT_EQ(samples_of(ws(), 9, verdict), here);
  (void)remove_tree(copy);
}

// Without --seed each run draws a fresh seed: a second run in the same
// workspace stores draws of its own (none replayed), and --resume then takes
// the newest run's seed and meets its stored draws (draw 0 at least).
TEST_F(SampleEndToEnd, SecondRunWithoutSeedMakesNewDraws) {
  if (HasFatalFailure()) return;
  const std::string ws = trained_copy("ws_fresh_seeds");
  auto run = [&](std::vector<std::string> extra) {
    extra.insert(extra.end(), {"--max-samples", "8", "--batch-size", "4", "--out", (root_ / "fresh").string()});
    auto r = sample_json(extra, ws);
    EXPECT_EQ(0, r.exit_code) << r.out << r.err;
    return r.exit_code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json::object();
  };
  auto first = run({}), second = run({});
  ASSERT_TRUE(first.contains("seed") && second.contains("seed"));
  EXPECT_EQ("fresh", second["seed_from"]);
  EXPECT_NE(first["seed"], second["seed"]);
  EXPECT_EQ(0, second["replayed"].get<int>()) << second;
  EXPECT_EQ(8, second["samples"].get<int>()) << second;
  // Both runs' draws are stored: 8 rows under each seed.
  EXPECT_EQ(8u, samples_of(ws, first["seed"].get<uint64_t>()).size());
  EXPECT_EQ(8u, samples_of(ws, second["seed"].get<uint64_t>()).size());
  auto resumed = run({"--resume"});
  EXPECT_EQ(second["seed"], resumed["seed"]);
  EXPECT_EQ("--resume", resumed["seed_from"]);
  EXPECT_GE(resumed["replayed"].get<int>(), 1) << resumed;
  (void)remove_tree(ws);
}

// The suite's model config with `sections` appended (TOML), as a file
// under the suite's root: --config then finds the same model.
std::string config_with(const fs::path& root, const std::string& name, const std::string& sections) {
  const fs::path p = root / (name + ".toml");
  std::ofstream(p) << slurp(std::string(CLGEN_TEST_DATA) + "/sampler/small.toml") << "\n" << sections;
  return p.string();
}

// One sample with --config `config` and `extra` flags; its "options" object.
nlohmann::json options_of(const std::string& ws, const std::string& config, std::vector<std::string> extra) {
  std::vector<std::string> args = {
      "--workspace",   ws,  "-q",           "sample", "--config",     config, "--args",   kArgs, "-n",    "0",
      "--max-samples", "1", "--batch-size", "1",      "--max-length", "50",   "--device", "cpu", "--json"};
  args.insert(args.end(), extra.begin(), extra.end());
  auto r = run_clgen(args);
  EXPECT_EQ(0, r.exit_code) << r.out << r.err;
  return r.exit_code == 0 ? nlohmann::json::parse(r.out)["options"] : nlohmann::json::object();
}

// [sampler] keys set the knobs whose flags left --help (defaults: start
// file, begin text, max_refusals 0, repair_backup 8, backtracks 16, any name); a flag
// given beside the file wins over it; an unknown key fails, naming it.
TEST_F(SampleEndToEnd, ConfigSamplerSectionSetsTheSamplerKnobs) {
  if (HasFatalFailure()) return;
  const std::string config = config_with(root_, "sampler_section",
                                         "[sampler]\nstart = \"zero\"\nbegin = \"signature\"\nmax_refusals = 7\n"
                                         "repairs = 2\ntemperature = 0.6\ncorrection = 0.25\n"
                                         "repair_backup = 5\nbacktracks = 3\nbacktrack_bad_names_only = true\n"
                                         "filter_threads = 1\nusefulness_check = false\ntop_k = 5\ntop_p = 0.9\n"
                                         "max_length = 40\n");
  auto o = options_of(ws(), config, {});
  EXPECT_EQ("zero", o["sampler"]["start"]);
  EXPECT_EQ("signature", o["sampler"]["begin"]);
  EXPECT_EQ(0.6, o["sampler"]["temperature"]);
  EXPECT_EQ(0.25, o["sampler"]["correction"]);
  EXPECT_EQ(7, o["sampler"]["max_refusals"]);
  EXPECT_EQ(2, o["sampler"]["repairs"]);
  EXPECT_EQ(5, o["sampler"]["repair_backup"]);
  EXPECT_EQ(3, o["sampler"]["backtracks"]);
  EXPECT_EQ(true, o["sampler"]["backtrack_bad_names_only"]);
  EXPECT_EQ(1, o["sampler"]["filter_threads"]);
  EXPECT_EQ(false, o["sampler"]["usefulness_check"]);
  EXPECT_EQ(5, o["sampler"]["top_k"]);
  EXPECT_EQ(0.9, o["sampler"]["top_p"]);
  EXPECT_EQ(50, o["sampler"]["max_length"]);  // options_of passes --max-length 50: the flag wins
  auto flags = options_of(ws(), config, {"--max-refusals", "9", "--backtracks", "0"});
  EXPECT_EQ(9, flags["sampler"]["max_refusals"]);
  EXPECT_EQ(0, flags["sampler"]["backtracks"]);
  EXPECT_EQ(5, flags["sampler"]["repair_backup"]);  // still the file's
  auto r = run_clgen({"--workspace", ws(), "-q", "sample", "--config",
                      config_with(root_, "typo", "[sampler]\nmax_refusal = 3\n"), "--max-samples", "1"});
  EXPECT_EQ(1, r.exit_code);
  EXPECT_NE(std::string::npos, r.err.find("sampler.max_refusal")) << r.err;
}

// [directed] keys set the directed search's knobs (defaults: explore 50,
// slice 10 s, split time, near_cuts on, not graded).
TEST_F(SampleEndToEnd, ConfigDirectedSectionSetsTheDirectedKnobs) {
  if (HasFatalFailure()) return;
  const std::string config = config_with(root_, "directed_section",
                                         "[directed]\nexplore_targets = 7\nbaseline_slice = 2.5\n"
                                         "baseline_split = \"streams\"\nplain_share = 0.5\nnear_share = 0.25\n"
                                         "near_cuts = false\n");
  auto o = options_of(ws(), config, {});
  EXPECT_EQ(7, o["directed"]["explore_targets"]);
  EXPECT_EQ(2.5, o["directed"]["baseline_slice"]);
  EXPECT_EQ("streams", o["directed"]["baseline_split"]);
  EXPECT_EQ(0.5, o["directed"]["plain_share"]);
  EXPECT_EQ(0.25, o["directed"]["near_share"]);
  EXPECT_EQ(false, o["directed"]["near_cuts"]);
  // graded_steering is read: without --check and targets it is refused as the flag is.
  auto graded = run_clgen({"--workspace", ws(), "-q", "sample", "--config",
                           config_with(root_, "graded", "[directed]\ngraded_steering = true\n"), "--max-samples", "1"});
  EXPECT_EQ(2, graded.exit_code);
  EXPECT_NE(std::string::npos, graded.err.find("--graded-steering steers")) << graded.err;
  EXPECT_EQ(0.75, options_of(ws(), config, {"--near-share", "0.75"})["directed"]["near_share"]);
  // A value the flag would refuse is refused in the file too.
  auto r = run_clgen({"--workspace", ws(), "-q", "sample", "--config",
                      config_with(root_, "bad_share", "[directed]\nnear_share = 1.5\n"), "--max-samples", "1"});
  EXPECT_EQ(1, r.exit_code);
  EXPECT_NE(std::string::npos, r.err.find("directed.near_share")) << r.err;
}

// [check] keys set the checker's jobs, time-out and retry (defaults 0, 10 s, on).
TEST_F(SampleEndToEnd, ConfigCheckSectionSetsTheCheckerKnobs) {
  if (HasFatalFailure()) return;
  const std::string config =
      config_with(root_, "check_section", "[check]\njobs = 3\ntimeout = 2.5\ntimeout_retry = false\n");
  auto o = options_of(ws(), config, {});
  EXPECT_EQ(3, o["check"]["jobs"]);
  EXPECT_EQ(2.5, o["check"]["timeout"]);
  EXPECT_EQ(false, o["check"]["timeout_retry"]);
  EXPECT_EQ(1, options_of(ws(), config, {"--check-jobs", "1"})["check"]["jobs"]);
}

// -n counts the accepted kernels of (model, args, seed, policy) over runs:
// `-n 6` then `-n 10` with the same seed ends with exactly 10, each draw
// stored once, and a second `-n 10` adds nothing.
TEST_F(SampleEndToEnd, SecondRunOfASeedStoresOnlyWhatIsMissing) {
  if (HasFatalFailure()) return;
  auto accepted = [&] {
    auto db = Database::open(ws() + "/clgen.db");
    EXPECT_TRUE(db.ok());
    auto st = db->prepare("SELECT count(*) FROM samples WHERE seed = 11 AND status = 'accepted'");
    EXPECT_TRUE(st.ok() && *st->step());
    return st->column_int(0);
  };
  auto run = [&](const std::string& n) {
    auto r = run_clgen(sample_in(
        ws(), {"-n", n, "--seed", "11", "--temperature", "1.0", "--batch-size", "8", "--time-limit", "120",
               "--max-length", "400", "--max-refusals", "32", "--out", (root_ / "resume").string(), "--json"}));
    EXPECT_EQ(0, r.exit_code) << r.out << r.err;
    return r.exit_code == 0 ? nlohmann::json::parse(r.out) : nlohmann::json::object();
  };
  run("6");
  ASSERT_EQ(6, accepted());
  auto ten = run("10");
  EXPECT_EQ(6, ten["accepted_before"].get<int>());
  EXPECT_EQ(4, ten["accepted"].get<int>());
  EXPECT_GT(ten["replayed"].get<int>(), 0);
  EXPECT_EQ(10, accepted());
  const size_t rows = samples_of(ws(), 11).size();  // fails on a draw stored twice
  auto again = run("10");
  EXPECT_EQ(0, again["samples"].get<int>());
  EXPECT_EQ(10, accepted());
  EXPECT_EQ(rows, samples_of(ws(), 11).size());
  // Every accepted kernel of the seed has its .cl file, and no other file is there.
  int files = 0;
  for (const auto& e : fs::directory_iterator(root_ / "resume")) {
    EXPECT_EQ(e.path().stem().string(), sha256_hex(slurp(e.path())));
    ++files;
  }
  EXPECT_EQ(10, files);
}

// A run killed (SIGKILL) once it stored some samples, then run again to
// completion, stores the draws, verdicts and .cl files of one uninterrupted
// run (with one filter thread rows arrive in draw order, so both stop at the
// same draw).
TEST_F(SampleEndToEnd, KilledRunRerunToCompletionStoresWhatAnUninterruptedRunStores) {
  if (HasFatalFailure()) return;
  const std::string ref = (root_ / "ws_kill_ref").string(), killed = (root_ / "ws_killed").string();
  for (const std::string& copy : {ref, killed}) {
    (void)remove_tree(copy);
    fs::copy(ws(), copy, fs::copy_options::recursive);
  }
  auto args = [&](const std::string& ws) {
    return sample_in(ws, {"-n", "100", "--seed", "13", "--temperature", "1.0", "--batch-size", "8", "--max-length",
                          "400", "--max-refusals", "32", "--filter-threads", "1", "--out", ws + "/out"});
  };
  auto r = run_clgen(args(ref));
  ASSERT_EQ(0, r.exit_code) << r.err;
  const std::string verdict = "status || ' ' || COALESCE(normalized_sha256, '')";
  const auto reference = samples_of(ref, 13, verdict);

  testing::RunningCommand run = testing::start_clgen(args(killed));
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (samples_of(killed, 13, verdict).empty() && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ::kill(run.pid, SIGKILL);
  EXPECT_EQ(128 + SIGKILL, testing::finish_command(run).exit_code);
  const size_t stored = samples_of(killed, 13, verdict).size();
  ASSERT_GT(stored, 0u);
  ASSERT_LT(stored, reference.size()) << "the run ended before it was killed";

  r = run_clgen(args(killed));
  ASSERT_EQ(0, r.exit_code) << r.err;
  EXPECT_EQ(reference, samples_of(killed, 13, verdict));
  std::set<std::string> ref_files, files;
  for (const auto& e : fs::directory_iterator(ref + "/out")) ref_files.insert(e.path().filename().string());
  for (const auto& e : fs::directory_iterator(killed + "/out")) files.insert(e.path().filename().string());
  EXPECT_EQ(100u, ref_files.size());
  std::vector<std::string> missing, extra;
  std::set_difference(ref_files.begin(), ref_files.end(), files.begin(), files.end(), std::back_inserter(missing));
  std::set_difference(files.begin(), files.end(), ref_files.begin(), ref_files.end(), std::back_inserter(extra));
  EXPECT_TRUE(missing.empty()) << missing.size() << " files missing, e.g. " << missing.front();
  EXPECT_TRUE(extra.empty()) << extra.size() << " files more, e.g. " << extra.front();
  auto db = Database::open(killed + "/clgen.db");
  auto check = db->prepare("PRAGMA integrity_check");
  ASSERT_TRUE(check.ok() && *check->step());
  EXPECT_EQ("ok", check->column_text(0));
}

// Directed sampling toward one corpus kernel's features, with the
// undirected baseline time-sliced in: the summary reports both sides for
// the one target, and every stored sample that was steered records that
// target (its label from `clgen features`'s file and kernel columns).
TEST_F(SampleEndToEnd, DirectedSamplingTowardACorpusKernelReportsBothSidesAndRecordsTheTarget) {
  if (HasFatalFailure()) return;
  const std::string k1 = std::string(CLGEN_TEST_DATA) + "/sampler/corpus/k1.cl";
  const std::string targets = (root_ / "targets.csv").string(), report = (root_ / "report.csv").string();
  auto f = run_clgen({"features", k1, "--out", targets});
  ASSERT_EQ(0, f.exit_code) << f.err;
  const std::string own = trained_copy("ws_graded");
  auto r = sample_json({"--time-limit", "30", "--seed", "4", "--temperature", "1.0", "--batch-size", "16", "--out",
                        (root_ / "directed").string(), "--target-features", targets, "--baseline", "--baseline-slice",
                        "5", "--target-report", report});
  ASSERT_EQ(0, r.exit_code) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.contains("steering")) << r.out;
  EXPECT_EQ(1, j["steering"]["directed"]["targets"].get<int>());
  EXPECT_EQ(1, j["steering"]["baseline"]["targets"].get<int>());
  EXPECT_EQ("time", j["steering"]["baseline_split"]) << r.out;  // the default
  EXPECT_EQ(0.5, j["steering"]["near_share"].get<double>()) << r.out;  // near-first steering by default
  EXPECT_TRUE(j["steering"]["near_cuts"].get<bool>()) << r.out;
  const int kernels = j["steering"]["directed"]["kernels"].get<int>() + j["steering"]["baseline"]["kernels"].get<int>();
  EXPECT_GE(kernels, 1) << r.out;
  // The report: one row per side for the one target.
  std::string csv = slurp(report);
  EXPECT_EQ(3, std::count(csv.begin(), csv.end(), '\n')) << csv;
  EXPECT_NE(std::string::npos, csv.find(k1 + ":A,\"1,1,3,0,3,0\",directed,")) << csv;
  EXPECT_EQ(0u, csv.find("target,target_values,side,distance,nearest_values,nearest_sha256,exact_sha256\n")) << csv;
  // A row's exact matches start with its nearest kernel when that one is at
  // distance 0, and there are none otherwise.
  std::istringstream rows(csv);
  std::string row;
  std::getline(rows, row);
  while (std::getline(rows, row)) {
    auto f =
        csv_line_fields(row);  // target, target_values, side, distance, nearest_values, nearest_sha256, exact_sha256
    ASSERT_TRUE(f.ok() && f->size() == 7) << row;
    const std::string &nearest = (*f)[5], &exact = (*f)[6];
    if ((*f)[3] == "0.000000") {
      EXPECT_EQ(0u, exact.find(nearest)) << row;
    } else {
      EXPECT_TRUE(exact.empty()) << row;
    }
  }
  // k1.cl's features (comp, rational, mem, localmem, coalesced, atomic):
  // `e < d` 1 comparison; `a[e] + b[e]` 1 operator; a, b, c read or written
  // once each, all subscripted by a variable.
  auto db = Database::open(ws() + "/clgen.db");
  ASSERT_TRUE(db.ok());
  auto st = db->prepare("SELECT DISTINCT target, target_features, steering FROM samples WHERE target IS NOT NULL");
  ASSERT_TRUE(st.ok());
  while (*st->step()) {
    EXPECT_EQ(k1 + ":A", st->column_text(0));
    EXPECT_EQ("1,1,3,0,3,0", st->column_text(1));
    EXPECT_EQ("features", st->column_text(2));  // --target-features chose the target
  }
}

// --graded-steering with --check cpu: a kernel counts toward a target only
// once the checker passed it, so every target's nearest kernel in the
// report, and every exact match it lists, on either side, has a passing
// run, and none waits for a verdict once the run is over.
// It samples in its own copy of the trained workspace: kernels that other
// tests stored there would come back as repeats, which this run never checks.
TEST_F(SampleEndToEnd, GradedSteeringReportsOnlyKernelsThatPassedTheChecker) {
  if (HasFatalFailure()) return;
  auto devices = run_clgen({"devices"});
  if (devices.exit_code != 0 || devices.out.find("[CPU]") == std::string::npos)
    GTEST_SKIP() << "no OpenCL CPU device: the dynamic check needs one";
  const std::string k1 = std::string(CLGEN_TEST_DATA) + "/sampler/corpus/k1.cl";
  const std::string targets = (root_ / "graded-targets.csv").string(), report = (root_ / "graded.csv").string();
  auto f = run_clgen({"features", k1, "--out", targets});
  ASSERT_EQ(0, f.exit_code) << f.err;
  const std::string own = trained_copy("ws_graded");
  auto r = sample_json({"--time-limit",
                        "15",
                        "--seed",
                        "6",
                        "--temperature",
                        "1.0",
                        "--batch-size",
                        "16",
                        "--out",
                        (root_ / "graded").string(),
                        "--target-features",
                        targets,
                        "--baseline",
                        "--baseline-slice",
                        "5",
                        "--target-report",
                        report,
                        "--check",
                        "cpu",
                        "--check-jobs",
                        "2",
                        "--check-timeout",
                        "2",
                        "--graded-steering"},
                       own);
  ASSERT_EQ(0, r.exit_code) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_TRUE(j["steering"]["graded"].get<bool>()) << r.out;
  EXPECT_EQ(0, j["steering"]["awaiting_verdict"].get<int>()) << r.out;
  const int benchmark_grade = j["dynamically_valid"].get<int>();
  auto db = Database::open(own + "/clgen.db");
  ASSERT_TRUE(db.ok());
  std::istringstream csv(slurp(report));
  std::string line;
  std::getline(csv, line);  // header
  int reported = 0;
  while (std::getline(csv, line)) {
    auto f = csv_line_fields(line);  // ..., nearest_sha256, exact_sha256 (';'-separated)
    ASSERT_TRUE(f.ok() && f->size() == 7) << line;
    const std::string& sha = (*f)[5];
    if (sha.empty()) continue;  // no kernel on that side
    ++reported;
    std::vector<std::string> shas = {sha};
    std::istringstream listed((*f)[6]);
    for (std::string e; std::getline(listed, e, ';');) shas.push_back(e);
    for (const std::string& h : shas) {
      auto st = db->prepare("SELECT COUNT(*) FROM runs WHERE kernel_sha256 = ?1 AND outcome = 'pass'");
      ASSERT_TRUE(st.ok());
      ASSERT_TRUE(st->bind(1, h).ok());
      ASSERT_TRUE(*st->step());
      EXPECT_EQ(1, st->column_int(0)) << h << " is reported but did not pass";
    }
  }
  // Without a benchmark-grade kernel nothing may be reported.
  EXPECT_EQ(benchmark_grade == 0, reported == 0) << r.out;
}

// --explore takes its targets from the corpus (8 kernels of at least 3
// distinct feature vectors): --explore-targets 2 steers toward 2 of them.
TEST_F(SampleEndToEnd, ExploreSteersTowardTheRequestedNumberOfCorpusFeatureVectors) {
  if (HasFatalFailure()) return;
  auto r = sample_json({"--max-samples", "40", "--seed", "5", "--batch-size", "8", "--out",
                        (root_ / "explore").string(), "--explore", "--explore-targets", "2"});
  ASSERT_EQ(0, r.exit_code) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(2, j["steering"]["directed"]["targets"].get<int>()) << r.out;
  EXPECT_FALSE(j["steering"].contains("baseline"));
}

TEST_F(SampleEndToEnd, ABadTargetsCsvFailsNamingTheLineAndColumnBeforeLoadingTheModel) {
  if (HasFatalFailure()) return;
  const std::string bad = (root_ / "bad.csv").string();
  std::ofstream(bad) << "comp,rational,mem,localmem,coalesced,atomic\n1,2,3,4,5,6\n1,two,3,4,5,6\n";
  auto r = run_clgen({"--workspace", ws(), "-q", "sample", "--model", "no-such-model", "--max-samples", "1",
                      "--target-features", bad});
  EXPECT_NE(0, r.exit_code);
  EXPECT_NE(std::string::npos, r.err.find("line 3, column 2 (rational)")) << r.err;
}

// The one model the suite trained: <ws>/models/<id>.
std::string trained_model_id(const std::string& ws) {
  std::vector<std::string> ids;
  for (const auto& e : fs::directory_iterator(fs::path(ws) / "models"))
    if (e.is_directory()) ids.push_back(e.path().filename().string());
  return ids.size() == 1 ? ids[0] : "";
}

// A copy of the suite's workspace whose corpus is gone: a sampler that
// learned its constraint tables from the corpus would find none.
std::string workspace_without_corpus(const fs::path& root, const std::string& ws, const std::string& name) {
  const fs::path copy = root / name;
  (void)remove_tree(copy.string());
  fs::copy(ws, copy, fs::copy_options::recursive);
  auto db = Database::open((copy / "clgen.db").string());
  EXPECT_TRUE(db.ok());
  EXPECT_TRUE(db->exec("DELETE FROM preprocessed").ok());
  return copy.string();
}

TEST_F(SampleEndToEnd, SamplingUsesTheConstraintTablesSavedAtTraining) {
  if (HasFatalFailure()) return;
  const std::string id = trained_model_id(ws());
  ASSERT_FALSE(id.empty());
  ASSERT_TRUE(fs::exists(fs::path(ws()) / "models" / id / "constraint_tables.json"));
  const std::string ws2 = workspace_without_corpus(root_, ws(), "ws_tables");
  auto r = sample_four(ws2, id, (root_ / "tables_out").string());
  ASSERT_EQ(0, r.exit_code) << r.out << r.err;
  EXPECT_EQ(4, nlohmann::json::parse(r.out)["samples"].get<int>());
  EXPECT_EQ(std::string::npos, r.err.find("no constraint tables")) << r.err;
}

TEST_F(SampleEndToEnd, AModelWithoutSavedTablesLearnsThemFromTheCorpusWithANotice) {
  if (HasFatalFailure()) return;
  const std::string id = trained_model_id(ws());
  ASSERT_FALSE(id.empty());
  const fs::path ws3 = root_ / "ws_old_model";
  (void)remove_tree(ws3.string());
  fs::copy(ws(), ws3, fs::copy_options::recursive);
  fs::remove(ws3 / "models" / id / "constraint_tables.json");
  auto r = sample_four(ws3.string(), id, (root_ / "old_out").string());
  ASSERT_EQ(0, r.exit_code) << r.out << r.err;
  EXPECT_NE(std::string::npos, r.err.find("has no constraint tables")) << r.err;
  // Without the corpus as well, it fails as before, naming the missing corpus.
  const std::string ws4 = workspace_without_corpus(root_, ws3.string(), "ws_old_model_no_corpus");
  r = run_clgen({"--workspace", ws4, "-q", "sample", "--model", id, "--args", kArgs, "--max-samples", "4", "-n", "0",
                 "--device", "cpu", "--out", (root_ / "old_out2").string()});
  EXPECT_NE(0, r.exit_code);
  EXPECT_NE(std::string::npos, r.err.find("preprocessed corpus")) << r.err;
}

// The README's main job in small: the shipped model (model/default/, trained
// by clgen on the kernels that scripts/install-deps.sh installs: pocl-tests,
// ufo-filters) installed into a workspace of that corpus must write at least
// one new kernel with exactly the requested prototype, and with --check cpu
// at least one benchmark-grade kernel and its .cl file. (Training itself is
// pinned by the TrainCommand and training tests.)
TEST(ShippedModelEndToEnd, WritesAnAcceptedKernelWithTheRequestedPrototype) {
  for (const char* dir : {"/usr/share/pocl-tests", "/usr/share/ufo"})
    if (!fs::exists(dir)) GTEST_SKIP() << dir << " is missing: install pocl-tests and ufo-filters-data";
  const std::string package = std::string(CLGEN_SOURCE_DIR) + "/model/default";
  if (!fs::exists(package + "/package.json")) GTEST_SKIP() << package << " holds no model package";
  fs::path root = fs::temp_directory_path() / ("clgen_shipped_e2e_" + std::to_string(::getpid()));
  (void)remove_tree(root.string());
  const std::string ws = (root / "ws").string(), out = (root / "kernels").string();
  for (std::vector<std::string> args :
       {std::vector<std::string>{"corpus", "add", "/usr/share/pocl-tests", "/usr/share/ufo"},
        {"corpus", "preprocess"},
        {"model", "install", package}}) {
    args.insert(args.begin(), {"--workspace", ws, "-q"});
    auto r = run_clgen(args);
    ASSERT_EQ(0, r.exit_code) << args[3] << ": " << r.out << r.err;
  }
  auto r = run_clgen({"--workspace",  ws,    "-q",     "sample", "--args",         kArgs, "-n",           "1",
                      "--time-limit", "300", "--seed", "1",      "--temperature",  "0.5", "--max-length", "1500",
                      "--device",     "cpu", "--out",  out,      "--max-refusals", "32",  "--json"});
  ASSERT_EQ(0, r.exit_code) << r.out << r.err;
  auto j = nlohmann::json::parse(r.out);
  EXPECT_GE(j["accepted"].get<int>(), 1) << r.out;
  for (const auto& e : fs::directory_iterator(out)) EXPECT_EQ(0u, slurp(e.path()).find(kPrototype + "\n"));

  // The README's last step: with --check cpu, -n counts benchmark-grade
  // kernels; each is written to its own folder and has a passing run.
  auto devices = run_clgen({"devices"});
  if (devices.exit_code != 0 || devices.out.find("[CPU]") == std::string::npos) {
    (void)remove_tree(root.string());
    GTEST_SKIP() << "no OpenCL CPU device: the dynamic check needs one";
  }
  const std::string checked = (root / "checked").string(), grade = (root / "grade").string();
  auto c = run_clgen({"--workspace",  ws,    "-q",          "sample", "--args",         kArgs, "-n",           "1",
                      "--time-limit", "300", "--seed",      "2",      "--temperature",  "0.5", "--max-length", "1500",
                      "--device",     "cpu", "--out",       checked,  "--max-refusals", "32",  "--check",      "cpu",
                      "--check-jobs", "2",   "--check-out", grade,    "--json"});
  ASSERT_EQ(0, c.exit_code) << c.out << c.err;
  auto k = nlohmann::json::parse(c.out);
  ASSERT_GE(k["dynamically_valid"].get<int>(), 1) << c.out;
  EXPECT_GT(k["dynamically_valid_per_minute"].get<double>(), 0.0);
  EXPECT_EQ(grade, k["benchmark_grade_dir"].get<std::string>());
  auto db = Database::open(ws + "/clgen.db");
  ASSERT_TRUE(db.ok());
  int written = 0;
  for (const auto& e : fs::directory_iterator(grade)) {
    std::string text = slurp(e.path());
    EXPECT_EQ(e.path().stem().string(), sha256_hex(text));
    EXPECT_TRUE(fs::exists(fs::path(checked) / e.path().filename())) << "not among the accepted kernels";
    auto st = db->prepare("SELECT COUNT(*) FROM runs WHERE kernel_sha256 = ?1 AND outcome = 'pass'");
    ASSERT_TRUE(st.ok());
    ASSERT_TRUE(st->bind(1, e.path().stem().string()).ok());
    ASSERT_TRUE(*st->step());
    EXPECT_EQ(1, st->column_int(0)) << text;
    ++written;
  }
  EXPECT_EQ(k["dynamically_valid"].get<int>(), written);
  (void)remove_tree(root.string());
}

}  // namespace
}  // namespace clgen
