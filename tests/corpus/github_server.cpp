// The GitHub fixture process, its served repositories and mine-github runs.
#include "tests/corpus/github_server.h"

#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <fstream>

#include "support/files.h"

namespace clgen::testing {

namespace fs = std::filesystem;
using json = nlohmann::json;

GitHubServer::GitHubServer(const TempDir& tmp, json config) : log_(tmp / "requests.jsonl") {
  config["repos_root"] = tmp / "served";
  write_text(tmp / "fixture.json", config.dump());
  std::error_code ec;
  fs::remove(tmp / "ready.json", ec);
  pid_ = spawn({"/usr/bin/python3", CLGEN_SOURCE_DIR "/tests/corpus/github_fixture.py", "--config",
                tmp / "fixture.json", "--ready", tmp / "ready.json", "--log", log_},
               tmp / "fixture.log");
  bool ready = wait_until([&] { return fs::exists(tmp / "ready.json"); }, 20);
  EXPECT_TRUE(ready) << *read_file(tmp / "fixture.log");
  if (!ready) return;
  json urls = json::parse(*read_file(tmp / "ready.json"));
  api_ = urls["api"];
  git_ = urls["git"];
}

GitHubServer::~GitHubServer() { kill_and_wait(pid_, SIGTERM); }

std::vector<json> GitHubServer::requests() const {
  std::vector<json> out;
  std::ifstream in(log_);
  std::string line;
  while (std::getline(in, line)) out.push_back(json::parse(line));
  return out;
}

std::vector<json> GitHubServer::api_requests() const {
  std::vector<json> out;
  for (auto& r : requests())
    if (!r.contains("channel")) out.push_back(std::move(r));
  return out;
}

int GitHubServer::search_requests_for_page(int page) const {
  int n = 0;
  for (const auto& r : api_requests())
    if (r["path"] == "/search/repositories" && r["query"].value("page", json::array({"1"}))[0] == std::to_string(page))
      ++n;
  return n;
}

std::vector<double> GitHubServer::request_times(const std::string& part) const {
  std::vector<double> out;
  for (const auto& r : requests()) {
    std::string target = r["path"].get<std::string>();
    if (r.contains("query") && r["query"].contains("page"))
      target += "&page=" + r["query"]["page"][0].get<std::string>();
    if (target.find(part) != std::string::npos) out.push_back(r["time"]);
  }
  return out;
}

json make_repositories(const TempDir& tmp) {
  write_text(tmp / "etc-secret.h", "SECRET\n");
  make_git_repo(tmp / "work/alice",
                {{"main.cl",
                  "#include \"inc/nested.h\"\n#include \"missing.h\"\n#include \"../../etc/passwd\"\n"
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
    repos.push_back({{"full_name", full},
                     {"path", full + ".git"},
                     {"default_branch", "master"},
                     {"stars", static_cast<int>(owner.size())},
                     {"forks", 1},
                     {"license", "MIT"}});
  }
  return repos;
}

std::vector<std::string> mine_args(const std::string& ws, const std::string& api) {
  return {"--workspace",   ws,
          "corpus",        "mine-github",
          "--api-url",     api,
          "--query",       "opencl",
          "--token-env",   "CLGEN_TEST_GITHUB_TOKEN",
          "--retry-delay", "0.1",
          "--max-wait",    "5"};
}

CommandResult run_with_token(const std::vector<std::string>& args) {
  setenv("CLGEN_TEST_GITHUB_TOKEN", kGitHubToken, 1);
  CommandResult r = run_clgen(args);
  unsetenv("CLGEN_TEST_GITHUB_TOKEN");
  return r;
}

json corpus_stats_json(const std::string& ws) {
  CommandResult r = run_clgen({"--workspace", ws, "corpus", "stats", "--json"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return json::parse(r.out);
}

TempDir* GitHubMiningTest::pristine_ = nullptr;
json* GitHubMiningTest::repos_ = nullptr;

void GitHubMiningTest::SetUpTestSuite() {
  pristine_ = new TempDir();
  repos_ = new json(make_repositories(*pristine_));
}

void GitHubMiningTest::TearDownTestSuite() {
  delete pristine_;
  delete repos_;
  pristine_ = nullptr;
  repos_ = nullptr;
}

void GitHubMiningTest::SetUp() { fs::copy(*pristine_ / "served", tmp_ / "served", fs::copy_options::recursive); }

json GitHubMiningTest::config(json extra) const {
  json c = {{"repos", *repos_}, {"per_page", 2}, {"token", kGitHubToken}};
  c.update(extra);
  return c;
}

}  // namespace clgen::testing
