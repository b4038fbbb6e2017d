// Mining OpenCL repositories from GitHub's REST API: repository search with
// Link-header pagination, rate-limit and retry handling, then clone through
// libgit2 into the workspace's clone cache and import like a local repository.
#pragma once

#include <cstdint>
#include <ctime>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "corpus/http.h"
#include "corpus/importer.h"
#include "support/sqlite.h"

namespace clgen::corpus {

// The query terms CLgen searched with; each becomes "TERM language:OpenCL".
std::vector<std::string> default_github_queries();

// Parses an RFC 8288 Link header into rel -> URL ("next", "last", ...).
std::map<std::string, std::string> parse_link_header(std::string_view header);

// How long to wait before retrying a response GitHub refused for rate
// limiting, or nullopt when the response is not a rate-limit refusal:
// 403/429 with Retry-After (seconds or an HTTP-date), or with X-RateLimit-Remaining: 0 and
// X-RateLimit-Reset (epoch seconds), or a secondary-limit message (60 s).
struct RateLimitWait {
  double seconds = 0;
  std::string why;
};
std::optional<RateLimitWait> rate_limit_wait(const HttpResponse& response, std::time_t now);

struct GitHubOptions {
  std::string api_url = "https://api.github.com";
  std::string token;          // from the environment; never logged or stored
  double max_wait_s = 900;    // longest single wait for a rate limit or backoff; longer = error
  int max_retries = 5;        // per request or clone: 5xx, timeouts, cut bodies, dropped connections, rate limits
  double retry_delay_s = 1;   // first backoff; doubles each retry
  int per_page = 100;
  long timeout_s = 60;
};

// A repository from a search result.
struct GitHubRepo {
  std::string full_name, owner, name, clone_url, default_branch, license;
  int64_t stars = 0, forks = 0;
};

// True when both URLs have the same scheme, host and port: the token is only
// ever sent to the API's origin, so Link headers elsewhere are not followed.
bool same_origin(const std::string& a, const std::string& b);

// Clone URLs taken from API responses must be http(s):// or git:// (never
// file:// or local paths, which would import the miner's own disk).
bool allowed_clone_url(const std::string& url);

// The repositories of one search-results page body; kParse on malformed JSON.
Expected<std::vector<GitHubRepo>> parse_search_page(const std::string& body);

// GET against the API with the token, rate limits and retries applied.
class GitHubClient {
 public:
  explicit GitHubClient(GitHubOptions options) : options_(std::move(options)) {
    while (!options_.api_url.empty() && options_.api_url.back() == '/') options_.api_url.pop_back();
  }
  // A 2xx response, or an error naming the URL and the last status. A 2xx
  // whose body `complete` rejects (a body cut short where HTTP could not tell)
  // is retried like a failed request; after the retries it is returned as is.
  Expected<HttpResponse> get(const std::string& url, const std::string& accept = "application/vnd.github+json",
                             const std::function<bool(const std::string&)>& complete = nullptr);
  // The commit id at the tip of `branch`, from /repos/OWNER/NAME/commits/BRANCH.
  Expected<std::string> branch_head(const std::string& full_name, const std::string& branch);
  const GitHubOptions& options() const { return options_; }
  int requests() const { return requests_; }
  // Sleeps before retry number `attempt` + 1: --retry-delay doubled per
  // attempt, at most --max-wait; kCancelled when interrupted.
  Status backoff(int attempt, const std::string& why);

 private:
  double backoff_seconds(int attempt) const;
  Status sleep_for(double seconds, const std::string& why);
  GitHubOptions options_;
  std::time_t pause_until_ = 0;  // set when a response said the quota is spent
  int requests_ = 0;
};

struct MineOptions {
  GitHubOptions github;
  std::vector<std::string> queries;  // empty: default_github_queries()
  int max_repos = 1000;              // repositories considered, over all queries
  std::string clone_dir;             // <workspace>/clones
  ImportOptions import;
};

struct MineSummary {
  int pages = 0, malformed_pages = 0;
  int repos_seen = 0, repos_imported = 0, repos_unchanged = 0, repos_failed = 0;
  ImportSummary files;
};

// Searches, clones and imports. Per-repository clone/import failures are
// logged and counted; API failures that outlast the retries end the run with
// an error (everything imported so far stays stored).
Expected<MineSummary> mine_github(Database& db, const MineOptions& options);

// Clones `url` (bare) into `dest`, or reuses an existing clone whose HEAD is
// `want_commit`; returns the HEAD commit. The clone is made beside `dest` and
// renamed into place, so a killed clone leaves no half repository. Failures
// worth retrying (a refused or dropped connection, a pack cut short) are
// kUnavailable; a refusal by the remote ("repository not exported") kNotFound.
Expected<std::string> clone_repository(const std::string& url, const std::string& dest,
                                       const std::string& want_commit);

}  // namespace clgen::corpus
