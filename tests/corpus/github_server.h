// The GitHub fixture (tests/corpus/github_fixture.py) as a test object, the
// repositories it serves and the `clgen corpus mine-github` runs against it;
// shared by the mining tests and the fault tests.
#pragma once

#include <gtest/gtest.h>
#include <sys/types.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/cli/run_command.h"
#include "tests/corpus/test_util.h"

namespace clgen::testing {

inline constexpr const char* kGitHubToken = "ghp_test_token_never_to_be_stored";

// The fixture process: started with `config` (repos_root set to tmp/served),
// stopped on destruction. Its request log is tmp/requests.jsonl.
class GitHubServer {
 public:
  GitHubServer(const TempDir& tmp, nlohmann::json config);
  ~GitHubServer();
  GitHubServer(const GitHubServer&) = delete;
  GitHubServer& operator=(const GitHubServer&) = delete;
  const std::string& api() const { return api_; }
  const std::string& git() const { return git_; }  // "git://127.0.0.1:PORT/"
  // Every logged request: API requests have "path" and "query"; git
  // connections have "channel": "git" and "path": "git:/OWNER/NAME.git".
  std::vector<nlohmann::json> requests() const;
  std::vector<nlohmann::json> api_requests() const;
  int search_requests_for_page(int page) const;
  // Log times of the API requests (or git connections) whose path contains `part`.
  std::vector<double> request_times(const std::string& part) const;

 private:
  std::string log_;
  pid_t pid_ = -1;
  std::string api_, git_;
};

// Builds the served repositories under `tmp`/served: alice/kernels holds every
// kind of hostile or broken input; bob/dup shares one file with it; six more
// fill pages. Returns the fixture's repository list.
nlohmann::json make_repositories(const TempDir& tmp);

// `clgen corpus mine-github` arguments for workspace `ws` against `api`
// (token from CLGEN_TEST_GITHUB_TOKEN, retry delay 0.1 s, --max-wait 5).
std::vector<std::string> mine_args(const std::string& ws, const std::string& api);

// Runs clgen with the token in the environment.
CommandResult run_with_token(const std::vector<std::string>& args);

// `clgen corpus stats --json` of a workspace.
nlohmann::json corpus_stats_json(const std::string& ws);

// A test whose served repositories (built once per suite) are copied into its
// own temporary directory.
class GitHubMiningTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite();
  static void TearDownTestSuite();
  void SetUp() override;
  // The fixture's configuration: every repository, 2 per page, the token
  // required; `extra` is merged in.
  nlohmann::json config(nlohmann::json extra = nlohmann::json::object()) const;
  TempDir tmp_;
  static TempDir* pristine_;
  static nlohmann::json* repos_;
};

}  // namespace clgen::testing
