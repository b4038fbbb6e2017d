// `clgen corpus mine-github` against real local servers: a Python HTTP server
// speaking GitHub's search API (with injected rate limits, 502s and a
// malformed page) and `git daemon` serving repositories built by the test.
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/files.h"
#include "tests/cli/run_command.h"
#include "tests/corpus/test_util.h"

namespace clgen::testing {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

constexpr const char* kToken = "ghp_test_token_never_to_be_stored";

// The GitHub fixture process and the repositories it serves.
class GitHubServer {
 public:
  GitHubServer(const TempDir& tmp, json config) : tmp_(tmp) {
    config["repos_root"] = tmp / "served";
    write_text(tmp / "fixture.json", config.dump());
    std::error_code ec;
    fs::remove(tmp / "ready.json", ec);
    pid_ = spawn({"/usr/bin/python3", CLGEN_SOURCE_DIR "/tests/corpus/github_fixture.py", "--config",
                  tmp / "fixture.json", "--ready", tmp / "ready.json", "--log", tmp / "requests.jsonl"},
                 tmp / "fixture.log");
    bool ready = wait_until([&] { return fs::exists(tmp / "ready.json"); }, 20);
    EXPECT_TRUE(ready) << *read_file(tmp / "fixture.log");
    if (ready) api_ = json::parse(*read_file(tmp / "ready.json"))["api"];
  }
  ~GitHubServer() { kill_and_wait(pid_, SIGTERM); }
  const std::string& api() const { return api_; }
  std::vector<json> requests() const {
    std::vector<json> out;
    std::ifstream in(tmp_ / "requests.jsonl");
    std::string line;
    while (std::getline(in, line)) out.push_back(json::parse(line));
    return out;
  }
  int search_requests_for_page(int page) const {
    int n = 0;
    for (const auto& r : requests())
      if (r["path"] == "/search/repositories" &&
          r["query"].value("page", json::array({"1"}))[0] == std::to_string(page))
        ++n;
    return n;
  }

 private:
  const TempDir& tmp_;
  pid_t pid_ = -1;
  std::string api_;
};

// Builds the served repositories under `tmp`/served: alice/kernels holds every
// kind of hostile or broken input; bob/dup shares one file with it; the rest
// fill pages. Returns the fixture's repository list.
json make_repositories(const TempDir& tmp) {
  write_text(tmp / "etc-secret.h", "SECRET\n");
  make_git_repo(tmp / "work/alice",
                {{"main.cl", "#include \"inc/nested.h\"\n#include \"missing.h\"\n#include \"../../etc/passwd\"\n"
                             "#include \"cycle_a.h\"\nkernel void A() {}\n"},
                 {"inc/nested.h", "#include \"deeper.h\"\nint nested;\n"},
                 {"inc/deeper.h", "int deeper;\n"},
                 {"cycle_a.h", "#include \"cycle_b.h\"\nint a;\n"},
                 {"cycle_b.h", "#include \"cycle_a.h\"\nint b;\n"},
                 {"big.cl", std::string(5 << 20, 'z')},
                 {"binary.cl", std::string("\0\0\0\x01kernel", 10)},
                 {"shared.cl", "kernel void Shared(global int* a) { a[0] = 7; }\n"}},
                {{"passwd.cl", "../../../../../../etc/passwd"}});
  make_git_repo(tmp / "work/bob", {{"src/shared.cl", "kernel void Shared(global int* a) { a[0] = 7; }\n"},
                                   {"src/bob.cl", "kernel void Bob() {}\n"}});
  std::vector<std::string> names = {"alice/kernels", "bob/dup"};
  for (const char* extra : {"carol", "dave", "erin", "frank", "grace", "heidi"}) {
    make_git_repo(tmp / (std::string("work/") + extra),
                  {{std::string(extra) + ".cl", std::string("kernel void ") + extra + "() {}\n"}});
    names.push_back(std::string(extra) + "/cl");
  }
  json repos = json::array();
  for (const auto& full : names) {
    std::string owner = full.substr(0, full.find('/'));
    std::string bare = tmp / ("served/" + full + ".git");
    fs::create_directories(fs::path(bare).parent_path());
    CommandResult r = run_command({"/usr/bin/git", "clone", "-q", "--bare", tmp / ("work/" + owner), bare});
    EXPECT_EQ(r.exit_code, 0) << r.err;
    repos.push_back({{"full_name", full}, {"path", full + ".git"}, {"default_branch", "master"},
                     {"stars", static_cast<int>(owner.size())}, {"forks", 1}, {"license", "MIT"}});
  }
  return repos;
}

std::vector<std::string> mine_args(const std::string& ws, const std::string& api) {
  return {"--workspace", ws, "corpus", "mine-github", "--api-url", api, "--query", "opencl",
          "--token-env", "CLGEN_TEST_GITHUB_TOKEN", "--retry-delay", "0.1", "--max-wait", "5"};
}

CommandResult run_with_token(const std::vector<std::string>& args) {
  setenv("CLGEN_TEST_GITHUB_TOKEN", kToken, 1);
  CommandResult r = run_clgen(args);
  unsetenv("CLGEN_TEST_GITHUB_TOKEN");
  return r;
}

json stats(const std::string& ws) {
  CommandResult r = run_clgen({"--workspace", ws, "corpus", "stats", "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return json::parse(r.out);
}

class MineGitHub : public ::testing::Test {
 protected:
  // The repositories are built once; each test serves its own copy.
  static void SetUpTestSuite() {
    pristine_ = new TempDir();
    repos_ = new json(make_repositories(*pristine_));
  }
  static void TearDownTestSuite() {
    delete pristine_;
    delete repos_;
  }
  void SetUp() override {
    fs::copy(*pristine_ / "served", tmp_ / "served", fs::copy_options::recursive);
  }
  json config(json extra = json::object()) {
    json c = {{"repos", *repos_}, {"per_page", 2}, {"token", kToken}};
    c.update(extra);
    return c;
  }
  TempDir tmp_;
  static TempDir* pristine_;
  static json* repos_;
};
TempDir* MineGitHub::pristine_ = nullptr;
json* MineGitHub::repos_ = nullptr;

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

  json s = stats(ws);
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
  for (const auto& req : server.requests()) EXPECT_EQ(req["authorization"], std::string("Bearer ") + kToken);
  std::string db = *read_file(ws + "/clgen.db");
  auto wal = read_file(ws + "/clgen.db-wal");
  EXPECT_EQ(db.find(kToken), std::string::npos);
  if (wal.ok()) {
    EXPECT_EQ(wal->find(kToken), std::string::npos);
  }
  EXPECT_EQ(r.out.find(kToken), std::string::npos);
  EXPECT_EQ(r.err.find(kToken), std::string::npos);
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
  EXPECT_EQ(stats(ws)["files"], 14);  // 9 distinct kernels of 8 repositories + new.cl + alice's 4 includes
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
  EXPECT_EQ(stats(ws)["sources"], 2);
}

TEST_F(MineGitHub, MaxReposLimitsTheRun) {
  GitHubServer server(tmp_, config());
  std::string ws = tmp_ / "ws";
  auto args = mine_args(ws, server.api());
  args.insert(args.end(), {"--max-repos", "3"});
  CommandResult r = run_with_token(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(stats(ws)["sources"], 3);
  EXPECT_EQ(server.search_requests_for_page(3), 0);
}

TEST_F(MineGitHub, RateLimitLongerThanMaxWaitFailsAndKeepsEarlierPages) {
  GitHubServer server(tmp_, config({{"rate_limit_page", 2}, {"rate_limit_reset_in", 3600}}));
  std::string ws = tmp_ / "ws";
  CommandResult r = run_with_token(mine_args(ws, server.api()));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("exceeds --max-wait"), std::string::npos) << r.err;
  EXPECT_EQ(stats(ws)["sources"], 2);  // page 1 was imported before the limit
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
  setenv("CLGEN_TEST_GITHUB_TOKEN", kToken, 1);
  std::vector<std::string> argv = {CLGEN_BINARY};
  for (auto& a : mine_args(killed_ws, server.api())) argv.push_back(a);
  pid_t pid = spawn(argv, tmp_ / "killed.log");
  unsetenv("CLGEN_TEST_GITHUB_TOKEN");
  // Page 1's repositories are imported before page 2 is asked for; the server
  // holds page 2 back, and the miner is killed while it waits.
  ASSERT_TRUE(wait_until([&] { return server.search_requests_for_page(2) > 0; }, 60))
      << *read_file(tmp_ / "killed.log");
  kill_and_wait(pid, SIGKILL);
  EXPECT_EQ(stats(killed_ws)["sources"], 2);

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
