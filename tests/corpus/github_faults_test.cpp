// `clgen corpus mine-github` under network faults injected by the GitHub
// fixture per request: connections cut mid-body, truncated chunked bodies,
// 429 and secondary rate limits, a git daemon killed mid-clone; and seeded
// random schedules of them, each run ending equal to a fault-free run.
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>

#include "support/sqlite.h"
#include "tests/corpus/github_server.h"

namespace clgen::testing {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

constexpr const char* kAllImported = "4 pages (0 malformed), 8 repositories: 8 imported, 0 unchanged, 0 failed";

// The store with the fixture's git URL (its port differs per server) replaced,
// so stores mined from different servers compare equal.
StoreSnapshot normalized_store(const std::string& ws, const std::string& git_url) {
  StoreSnapshot s = snapshot_store(ws + "/clgen.db");
  for (auto* rows : {&s.contents, &s.origins, &s.skipped, &s.repositories})
    for (auto& row : *rows)
      for (size_t at; (at = row.find(git_url)) != std::string::npos;) row.replace(at, git_url.size(), "git://served/");
  return s;
}

std::string integrity(const std::string& ws) {
  auto db = Database::open(ws + "/clgen.db");
  if (!db.ok()) return db.status().message();
  auto check = db->prepare("PRAGMA integrity_check");
  if (!check.ok()) return check.status().message();
  auto row = check->step();
  return row.ok() && *row ? check->column_text(0) : "no result";
}

double epoch_seconds() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

// Seconds between the first two requests whose target contains `part`.
double gap(const GitHubServer& server, const std::string& part) {
  auto t = server.request_times(part);
  return t.size() < 2 ? -1 : t[1] - t[0];
}

class MineGitHubFaults : public GitHubMiningTest {
 protected:
  // A fault-free run's store, mined once per suite.
  const StoreSnapshot& reference() {
    if (!reference_) {
      TempDir tmp;
      fs::copy(*pristine_ / "served", tmp / "served", fs::copy_options::recursive);
      GitHubServer server(tmp, config());
      CommandResult r = run_with_token(mine_args(tmp / "ws", server.api()));
      EXPECT_EQ(r.exit_code, 0) << r.err;
      reference_ = std::make_unique<StoreSnapshot>(normalized_store(tmp / "ws", server.git()));
    }
    return *reference_;
  }
  // One mine-github run into tmp_/ws with `extra` arguments.
  CommandResult mine_through(const GitHubServer& server, const std::vector<std::string>& extra = {}) {
    std::string ws = tmp_ / "ws";
    auto args = mine_args(ws, server.api());
    args.insert(args.end(), extra.begin(), extra.end());
    return run_with_token(args);
  }
  void expect_reference_store(const GitHubServer& server) {
    std::string ws = tmp_ / "ws";
    EXPECT_TRUE(normalized_store(ws, server.git()) == reference());
    EXPECT_EQ(integrity(ws), "ok");
  }
  // One run through the server's faults that must import every repository
  // into the fault-free run's store; returned for the test's own checks.
  CommandResult mine_completely(const GitHubServer& server) {
    CommandResult r = mine_through(server);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.out.find(kAllImported), std::string::npos) << r.out;
    expect_reference_store(server);
    return r;
  }
  static std::unique_ptr<StoreSnapshot> reference_;
};
std::unique_ptr<StoreSnapshot> MineGitHubFaults::reference_;

json rule(const std::string& kind, const std::string& match) { return {{"kind", kind}, {"match", match}}; }

TEST_F(MineGitHubFaults, ConnectionCutMidBodyIsRetried) {
  GitHubServer server(tmp_, config({{"faults", {rule("cut_body", "&page=2")}}}));
  mine_completely(server);
  EXPECT_EQ(server.search_requests_for_page(2), 2);  // cut, then whole
}

// Without Content-Length or chunking the cut is invisible to HTTP: only the
// JSON shows it. Skipping the page as malformed would lose its repositories.
TEST_F(MineGitHubFaults, CloseDelimitedBodyCutShortIsRetriedNotSkipped) {
  GitHubServer server(tmp_, config({{"faults", {rule("cut_unframed", "&page=2"), rule("cut_unframed", "/commits/")}}}));
  mine_completely(server);
  EXPECT_EQ(server.search_requests_for_page(2), 2);
  EXPECT_EQ(server.request_times("/repos/alice/kernels/commits/").size(), 2u);  // a cut sha is asked again
}

TEST_F(MineGitHubFaults, TruncatedChunkedResponseIsRetried) {
  GitHubServer server(tmp_, config({{"faults", {rule("chunked_truncated", "&page=3")}}}));
  mine_completely(server);
  EXPECT_EQ(server.search_requests_for_page(3), 2);
}

TEST_F(MineGitHubFaults, TooManyRequestsWaitsForRetryAfter) {
  GitHubServer server(tmp_, config({{"faults", {rule("too_many_requests", "&page=2")}}, {"retry_after", 2}}));
  mine_completely(server);
  EXPECT_GE(gap(server, "&page=2"), 2.0);  // Retry-After: 2, not the 0.1 s retry delay
}

TEST_F(MineGitHubFaults, SecondaryRateLimitWithRetryAfterWaitsThatLong) {
  GitHubServer server(
      tmp_, config({{"faults", {rule("secondary_retry_after", "/repos/bob/dup/commits/")}}, {"retry_after", 2}}));
  CommandResult r = mine_completely(server);
  EXPECT_GE(gap(server, "/repos/bob/dup/commits/"), 2.0);
  EXPECT_NE(r.err.find("Retry-After"), std::string::npos) << r.err;
}

TEST_F(MineGitHubFaults, SecondaryRateLimitWithSpentQuotaWaitsForTheReset) {
  // X-RateLimit-Reset is the fault's time (whole seconds) + 2.
  GitHubServer server(tmp_, config({{"faults", {rule("secondary_reset", "&page=3")}}, {"retry_after", 2}}));
  mine_completely(server);
  auto t = server.request_times("&page=3");
  ASSERT_EQ(t.size(), 2u);
  EXPECT_GE(t[1], std::floor(t[0]) + 2);
}

// GitHub asks for at least a minute when a secondary limit names no time;
// a --max-wait below that ends the run, and a rerun finishes it.
TEST_F(MineGitHubFaults, SecondaryRateLimitWithoutATimeBeyondMaxWaitStopsAndARerunCompletes) {
  GitHubServer server(tmp_, config({{"faults", {rule("secondary_bare", "&page=3")}}}));
  CommandResult r = mine_through(server);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("secondary rate limit"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("exceeds --max-wait"), std::string::npos) << r.err;
  EXPECT_EQ(corpus_stats_json(tmp_ / "ws")["sources"], 4);  // pages 1 and 2

  r = mine_through(server);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("8 repositories: 4 imported, 4 unchanged, 0 failed"), std::string::npos) << r.out;
  expect_reference_store(server);
}

TEST_F(MineGitHubFaults, GitDaemonKilledMidCloneIsRetried) {
  GitHubServer server(tmp_, config({{"faults", {rule("git_kill", "git:/alice/")}}, {"git_down_seconds", 1}}));
  CommandResult r = mine_completely(server);
  EXPECT_EQ(server.request_times("git:/alice/").size(), 2u);  // killed, then whole
  EXPECT_NE(r.err.find("early EOF"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("Connection refused"), std::string::npos) << r.err;  // the daemon was down a while
  for (const auto& entry : fs::recursive_directory_iterator(tmp_ / "ws/clones"))
    EXPECT_EQ(entry.path().string().find(".partial"), std::string::npos) << entry.path();
}

TEST_F(MineGitHubFaults, GitDaemonDownLongerThanTheRetriesFailsOnlyThoseRepositoriesAndARerunImportsThem) {
  GitHubServer server(tmp_, config({{"faults", {rule("git_kill", "git:/alice/")}}, {"git_down_seconds", 3}}));
  CommandResult r = mine_through(server, {"--retries", "2"});  // 0.1 + 0.2 s of backoff: the daemon is still down
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("0 unchanged"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find(", 0 failed"), std::string::npos) << r.out;
  int stored = corpus_stats_json(tmp_ / "ws")["sources"];
  EXPECT_LT(stored, 8);

  double killed = server.request_times("git:/alice/").at(0);
  ASSERT_TRUE(wait_until([&] { return epoch_seconds() > killed + 3.2; }, 10));  // the daemon is back
  r = mine_through(server);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find(std::to_string(8 - stored) + " imported, " + std::to_string(stored) + " unchanged, 0 failed"),
            std::string::npos)
      << r.out;
  expect_reference_store(server);
}

// Seeded random faults over every request of a run; the run is repeated in
// the same workspace until it exits 0 with no failed repository. CLGEN_GITHUB_
// FAULT_RUNS and CLGEN_GITHUB_FAULT_SEED widen it (scripts/github-faults.sh).
TEST_F(MineGitHubFaults, RandomFaultSchedulesEndEqualToAFaultFreeRun) {
  const char* runs_env = std::getenv("CLGEN_GITHUB_FAULT_RUNS");
  const char* seed_env = std::getenv("CLGEN_GITHUB_FAULT_SEED");
  int runs = runs_env ? std::atoi(runs_env) : 5;
  int seed = seed_env ? std::atoi(seed_env) : 1;
  std::map<std::string, int> by_kind;
  int reruns = 0, faults = 0;
  for (int run = 0; run < runs; ++run) {
    SCOPED_TRACE("run " + std::to_string(run) + " (fixture seed " + std::to_string(seed * 1000 + run) + ")");
    TempDir tmp;
    fs::copy(*pristine_ / "served", tmp / "served", fs::copy_options::recursive);
    GitHubServer server(tmp, config({{"random_faults", {{"seed", seed * 1000 + run}, {"rate", 0.25}, {"max", 8}}},
                                     {"retry_after", 1}}));
    std::string ws = tmp / "ws";
    CommandResult r;
    int attempts = 0;
    std::string why_reruns;  // the end of each unfinished run's stderr
    while (attempts < 10) {
      r = run_with_token(mine_args(ws, server.api()));
      ++attempts;
      if (r.exit_code == 0 && r.out.find(", 0 failed") != std::string::npos) break;
      std::string err = r.err.substr(0, r.err.find_last_not_of('\n') + 1);
      why_reruns += "\n  rerun after: " + err.substr(err.rfind('\n') + 1, 200);
    }
    reruns += attempts - 1;
    ASSERT_EQ(r.exit_code, 0) << r.err;
    ASSERT_NE(r.out.find(", 0 failed"), std::string::npos) << r.out;
    EXPECT_TRUE(normalized_store(ws, server.git()) == reference());
    EXPECT_EQ(integrity(ws), "ok");
    for (const auto& s : corpus_stats_json(ws)["by_source"]) EXPECT_EQ(s["complete"], true);
    int run_faults = 0;
    for (const auto& req : server.requests())
      if (!req["fault"].is_null()) {
        ++by_kind[req["fault"].get<std::string>()];
        ++run_faults;
      }
    faults += run_faults;
    std::printf("run %d: %d faults, %d mine-github runs%s\n", run, run_faults, attempts, why_reruns.c_str());
    std::fflush(stdout);  // progress while the script's long schedule runs
  }
  std::string summary = "github fault schedule: " + std::to_string(runs) + " runs (seed " + std::to_string(seed) +
                        "), " + std::to_string(reruns) + " reruns, " + std::to_string(faults) + " faults:";
  for (const auto& [kind, n] : by_kind) summary += " " + kind + "=" + std::to_string(n);
  std::printf("%s\n", summary.c_str());
  EXPECT_GT(faults, 0);
}

}  // namespace
}  // namespace clgen::testing
