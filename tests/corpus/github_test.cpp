// `clgen corpus mine-github` against real local servers: a Python HTTP server
// speaking GitHub's search API (with injected rate limits, 502s and a
// malformed page) and `git daemon` serving repositories built by the test.
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <nlohmann/json.hpp>

#include "support/files.h"
#include "tests/corpus/github_server.h"

namespace clgen::testing {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

class MineGitHub : public GitHubMiningTest {};

TEST_F(MineGitHub, FollowsPagesThroughRateLimitsServerErrorsAndMalformedPages) {
  GitHubServer server(tmp_, config({{"rate_limit_page", 2}, {"rate_limit_reset_in", 1},
                                    {"bad_gateway_page", 3}, {"malformed_page", 4}}));
  std::string ws = tmp_ / "ws";
  CommandResult r = run_with_token(mine_args(ws, server.api()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("4 pages (1 malformed), 6 repositories: 6 imported, 0 unchanged, 0 failed"),
            std::string::npos) << r.out;
  EXPECT_EQ(server.search_requests_for_page(2), 2);  // 403, then after the reset
  EXPECT_EQ(server.search_requests_for_page(3), 2);  // 502, then the retry
  EXPECT_NE(r.err.find("rate limit"), std::string::npos) << r.err;

  json s = corpus_stats_json(ws);
  EXPECT_EQ(s["sources"], 6);
  // Kernels: alice: main.cl, shared.cl; bob: shared.cl (same content), bob.cl; carol, dave, erin, frank:
  // one each. Includes of alice's main.cl, stored once each: inc/nested.h, inc/deeper.h, cycle_a.h, cycle_b.h.
  EXPECT_EQ(s["files"], 11) << s.dump(1);
  EXPECT_EQ(s["kernel_files"], 7);
  EXPECT_EQ(s["origins"], 12);
  EXPECT_EQ(s["skipped"], json({{"binary", 1}, {"symlink_outside_root", 1}, {"too_large", 1}}));
  for (const auto& src : s["by_source"]) {
    EXPECT_EQ(src["kind"], "github");
    EXPECT_EQ(src["complete"], true);
  }
  // The token was sent on every request and stored or printed nowhere.
  for (const auto& req : server.api_requests()) EXPECT_EQ(req["authorization"], std::string("Bearer ") + kGitHubToken);
  std::string db = *read_file(ws + "/clgen.db");
  auto wal = read_file(ws + "/clgen.db-wal");
  EXPECT_EQ(db.find(kGitHubToken), std::string::npos);
  if (wal.ok()) {
    EXPECT_EQ(wal->find(kGitHubToken), std::string::npos);
  }
  EXPECT_EQ(r.out.find(kGitHubToken), std::string::npos);
  EXPECT_EQ(r.err.find(kGitHubToken), std::string::npos);
}

TEST_F(MineGitHub, SkipsRepositoriesAlreadyFetchedAtTheSameCommit) {
  GitHubServer server(tmp_, config());
  std::string ws = tmp_ / "ws";
  ASSERT_EQ(run_with_token(mine_args(ws, server.api())).exit_code, 0);
  StoreSnapshot first = snapshot_store(ws + "/clgen.db");
  CommandResult r = run_with_token(mine_args(ws, server.api()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("8 repositories: 0 imported, 8 unchanged"), std::string::npos) << r.out;
  EXPECT_TRUE(first == snapshot_store(ws + "/clgen.db"));

  // A new commit upstream is fetched and imported again.
  std::string work = tmp_ / "carol-work";
  ASSERT_EQ(run_command({"/usr/bin/git", "clone", "-q", tmp_ / "served/carol/cl.git", work}).exit_code, 0);
  write_text(work + "/new.cl", "kernel void New() {}\n");
  git(work, {"add", "-A"});
  git(work, {"commit", "-q", "-m", "new kernel"});
  git(work, {"push", "-q", "origin", "master"});
  r = run_with_token(mine_args(ws, server.api()));
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("8 repositories: 1 imported, 7 unchanged"), std::string::npos) << r.out;
  EXPECT_EQ(corpus_stats_json(ws)["files"], 14);  // 9 distinct kernels of 8 repositories + new.cl + alice's 4 includes
}

TEST_F(MineGitHub, RetriesARequestThatTimedOut) {
  GitHubServer server(tmp_, config({{"slow_page", 1}, {"slow_seconds", 4}}));
  std::string ws = tmp_ / "ws";
  auto args = mine_args(ws, server.api());
  args.insert(args.end(), {"--timeout", "1", "--max-repos", "2"});
  CommandResult r = run_with_token(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.err.find("timed out"), std::string::npos) << r.err;
  EXPECT_EQ(server.search_requests_for_page(1), 2);
  EXPECT_EQ(corpus_stats_json(ws)["sources"], 2);
}

TEST_F(MineGitHub, MaxReposLimitsTheRun) {
  GitHubServer server(tmp_, config());
  std::string ws = tmp_ / "ws";
  auto args = mine_args(ws, server.api());
  args.insert(args.end(), {"--max-repos", "3"});
  CommandResult r = run_with_token(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(corpus_stats_json(ws)["sources"], 3);
  EXPECT_EQ(server.search_requests_for_page(3), 0);
}

TEST_F(MineGitHub, RateLimitLongerThanMaxWaitFailsAndKeepsEarlierPages) {
  GitHubServer server(tmp_, config({{"rate_limit_page", 2}, {"rate_limit_reset_in", 3600}}));
  std::string ws = tmp_ / "ws";
  CommandResult r = run_with_token(mine_args(ws, server.api()));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("exceeds --max-wait"), std::string::npos) << r.err;
  EXPECT_EQ(corpus_stats_json(ws)["sources"], 2);  // page 1 was imported before the limit
}

TEST_F(MineGitHub, BadTokenIsAClearError) {
  GitHubServer server(tmp_, config());
  std::string ws = tmp_ / "ws";
  CommandResult r = run_clgen(mine_args(ws, server.api()));  // no token in the environment
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("401"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("Bad credentials"), std::string::npos) << r.err;
}

TEST_F(MineGitHub, KilledRunResumesToTheSameStoreAsAnUninterruptedRun) {
  GitHubServer server(tmp_, config({{"slow_page", 2}, {"slow_seconds", 60}}));
  std::string killed_ws = tmp_ / "killed";
  setenv("CLGEN_TEST_GITHUB_TOKEN", kGitHubToken, 1);
  std::vector<std::string> argv = {CLGEN_BINARY};
  for (auto& a : mine_args(killed_ws, server.api())) argv.push_back(a);
  pid_t pid = spawn(argv, tmp_ / "killed.log");
  unsetenv("CLGEN_TEST_GITHUB_TOKEN");
  // Page 1's repositories are imported before page 2 is asked for; the server
  // holds page 2 back, and the miner is killed while it waits.
  ASSERT_TRUE(wait_until([&] { return server.search_requests_for_page(2) > 0; }, 60))
      << *read_file(tmp_ / "killed.log");
  kill_and_wait(pid, SIGKILL);
  EXPECT_EQ(corpus_stats_json(killed_ws)["sources"], 2);

  CommandResult resumed = run_with_token(mine_args(killed_ws, server.api()));
  ASSERT_EQ(resumed.exit_code, 0) << resumed.err;
  EXPECT_NE(resumed.out.find("6 imported, 2 unchanged"), std::string::npos) << resumed.out;

  std::string reference_ws = tmp_ / "reference";
  ASSERT_EQ(run_with_token(mine_args(reference_ws, server.api())).exit_code, 0);
  StoreSnapshot a = snapshot_store(killed_ws + "/clgen.db");
  StoreSnapshot b = snapshot_store(reference_ws + "/clgen.db");
  EXPECT_EQ(a.contents.size(), 13u);  // 9 distinct kernels + alice's 4 includes
  EXPECT_TRUE(a == b);
}

}  // namespace
}  // namespace clgen::testing
