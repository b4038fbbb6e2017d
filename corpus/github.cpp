// GitHub REST client (search, branch heads), clone cache and the mining loop.
#include "corpus/github.h"

#include <git2.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>
#include <thread>

#include "corpus/git_util.h"
#include "corpus/source_tree.h"
#include "support/interrupt.h"
#include "support/log.h"
#include "support/text.h"

namespace clgen::corpus {

namespace fs = std::filesystem;

std::vector<std::string> default_github_queries() {
  std::vector<std::string> out;
  for (const char* term : {"opencl", "cl", "khronos", "gpu", "gpgpu", "cuda", "amd", "nvidia",
                           "heterogeneous"})
    out.push_back(std::string(term) + " language:OpenCL");
  return out;
}

std::map<std::string, std::string> parse_link_header(std::string_view header) {
  std::map<std::string, std::string> out;
  size_t i = 0;
  while (i < header.size()) {
    size_t lt = header.find('<', i);
    if (lt == std::string_view::npos) break;
    size_t gt = header.find('>', lt);
    if (gt == std::string_view::npos) break;
    std::string url(header.substr(lt + 1, gt - lt - 1));
    size_t end = header.find('<', gt);  // parameters run until the next link
    std::string_view params = header.substr(gt + 1, end == std::string_view::npos ? std::string_view::npos : end - gt - 1);
    size_t rel = params.find("rel=");
    if (rel != std::string_view::npos) {
      size_t v = rel + 4;
      std::string value;
      if (v < params.size() && params[v] == '"') {
        size_t close = params.find('"', v + 1);
        value = std::string(params.substr(v + 1, close == std::string_view::npos ? std::string_view::npos : close - v - 1));
      } else {
        size_t stop = params.find_first_of(";, ", v);
        value = std::string(params.substr(v, stop == std::string_view::npos ? std::string_view::npos : stop - v));
      }
      // A link may carry several space-separated relation types.
      size_t p = 0;
      while (p < value.size()) {
        size_t q = value.find(' ', p);
        if (q == std::string::npos) q = value.size();
        if (q > p) out[value.substr(p, q - p)] = url;
        p = q + 1;
      }
    }
    if (end == std::string_view::npos) break;
    i = end;
  }
  return out;
}

namespace {
std::optional<double> number(const std::string& s) {
  if (s.empty()) return std::nullopt;
  try {
    size_t used = 0;
    double v = std::stod(s, &used);
    if (used != s.size() || !std::isfinite(v)) return std::nullopt;
    return v;
  } catch (...) {
    return std::nullopt;
  }
}
std::string api_message(const std::string& body) {
  auto j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_object() && j.contains("message") && j["message"].is_string()) return j["message"];
  return body.substr(0, 200);
}
}  // namespace

std::optional<RateLimitWait> rate_limit_wait(const HttpResponse& r, std::time_t now) {
  if (r.status != 403 && r.status != 429) return std::nullopt;
  if (auto after = number(r.header("retry-after"))) return RateLimitWait{std::max(0.0, *after), "Retry-After"};
  // RFC 9110 also allows a date; read as a number it would fall through to a guess.
  if (auto date = parse_http_date(r.header("retry-after")))
    return RateLimitWait{std::max(0.0, static_cast<double>(*date - now)), "Retry-After"};
  auto reset = number(r.header("x-ratelimit-reset"));
  if (r.header("x-ratelimit-remaining") == "0" && reset)
    return RateLimitWait{std::max(0.0, *reset - static_cast<double>(now)) + 1, "rate limit reset"};
  // "abuse detection mechanism" is the older wording of a secondary limit.
  std::string body = ascii_lower(r.body);
  if (body.find("rate limit") != std::string::npos || body.find("abuse detection") != std::string::npos ||
      r.status == 429)
    return RateLimitWait{60, "secondary rate limit"};
  return std::nullopt;
}

namespace {
// "scheme://host[:port]" of a URL, lowercased, with default ports made explicit.
std::string origin_of(const std::string& url) {
  size_t scheme_end = url.find("://");
  if (scheme_end == std::string::npos) return "";
  std::string scheme = ascii_lower(url.substr(0, scheme_end));
  size_t host_start = scheme_end + 3;
  size_t host_end = url.find_first_of("/?#", host_start);
  std::string authority = ascii_lower(url.substr(host_start, host_end == std::string::npos ? std::string::npos
                                                                                     : host_end - host_start));
  size_t at = authority.rfind('@');
  if (at != std::string::npos) authority = authority.substr(at + 1);
  if (authority.find(':') == std::string::npos && authority.find(']') == std::string::npos)
    authority += scheme == "https" ? ":443" : scheme == "http" ? ":80" : "";
  return scheme + "://" + authority;
}
}  // namespace

bool same_origin(const std::string& a, const std::string& b) {
  std::string oa = origin_of(a);
  return !oa.empty() && oa == origin_of(b);
}

bool allowed_clone_url(const std::string& url) {
  std::string l = ascii_lower(url);
  return l.rfind("https://", 0) == 0 || l.rfind("http://", 0) == 0 || l.rfind("git://", 0) == 0;
}

Expected<std::vector<GitHubRepo>> parse_search_page(const std::string& body) {
  auto j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_discarded()) return parse_error("search results are not valid JSON");
  if (!j.is_object() || !j.contains("items") || !j["items"].is_array())
    return parse_error("search results have no 'items' array");
  std::vector<GitHubRepo> out;
  for (const auto& item : j["items"]) {
    if (!item.is_object()) continue;
    auto str = [&](const char* key) {
      return item.contains(key) && item[key].is_string() ? item[key].get<std::string>() : std::string();
    };
    auto num = [&](const char* key) {
      return item.contains(key) && item[key].is_number_integer() ? item[key].get<int64_t>() : int64_t{0};
    };
    GitHubRepo r;
    r.full_name = str("full_name");
    r.name = str("name");
    r.clone_url = str("clone_url");
    r.default_branch = str("default_branch");
    if (item.contains("owner") && item["owner"].is_object() && item["owner"].contains("login") &&
        item["owner"]["login"].is_string())
      r.owner = item["owner"]["login"];
    if (item.contains("license") && item["license"].is_object() && item["license"].contains("spdx_id") &&
        item["license"]["spdx_id"].is_string())
      r.license = item["license"]["spdx_id"];
    r.stars = num("stargazers_count");
    r.forks = num("forks_count");
    if (r.full_name.empty() || r.clone_url.empty()) continue;
    if (r.owner.empty()) r.owner = r.full_name.substr(0, r.full_name.find('/'));
    if (r.name.empty()) r.name = r.full_name.substr(r.full_name.find('/') + 1);
    out.push_back(std::move(r));
  }
  return out;
}

Status GitHubClient::sleep_for(double seconds, const std::string& why) {
  if (seconds <= 0) return ok_status();
  spdlog::info("GitHub: waiting {:.1f}s ({})", seconds, why);
  auto until = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (std::chrono::steady_clock::now() < until) {
    if (interrupted()) return cancelled("interrupted while waiting for GitHub (" + why + ")");
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  return ok_status();
}

double GitHubClient::backoff_seconds(int attempt) const {
  return std::min(options_.max_wait_s, options_.retry_delay_s * std::pow(2.0, attempt));
}

Status GitHubClient::backoff(int attempt, const std::string& why) { return sleep_for(backoff_seconds(attempt), why); }

Expected<HttpResponse> GitHubClient::get(const std::string& url, const std::string& accept,
                                         const std::function<bool(const std::string&)>& complete) {
  std::time_t now = std::time(nullptr);
  if (pause_until_ > now) {
    double wait = static_cast<double>(pause_until_ - now) + 1;
    if (wait > options_.max_wait_s)
      return unavailable("GitHub API quota spent until " + std::to_string(pause_until_) + "; waiting " +
                         std::to_string(static_cast<long>(wait)) + "s exceeds --max-wait " +
                         std::to_string(static_cast<long>(options_.max_wait_s)) + "s");
    RETURN_IF_ERROR(sleep_for(wait, "rate limit reset"));
  }
  HttpRequest req;
  req.url = url;
  req.timeout_s = options_.timeout_s;
  req.headers = {"Accept: " + accept, "User-Agent: clgen", "X-GitHub-Api-Version: 2022-11-28"};
  if (!options_.token.empty()) req.headers.push_back("Authorization: Bearer " + options_.token);
  std::string last;
  for (int attempt = 0;; ++attempt) {
    double backoff = backoff_seconds(attempt);
    bool can_retry = attempt < options_.max_retries;
    auto r = http_get(req);
    ++requests_;
    if (!r.ok()) {
      last = r.status().message();
      const std::string prefix = "GET " + url + ": ";
      if (last.rfind(prefix, 0) == 0) last = last.substr(prefix.size());
      if (!can_retry) break;
      spdlog::warn("GitHub: {}; retrying", last);
      RETURN_IF_ERROR(sleep_for(backoff, "backoff after a failed request"));
      continue;
    }
    auto reset = number(r->header("x-ratelimit-reset"));
    if (r->header("x-ratelimit-remaining") == "0" && reset) pause_until_ = static_cast<std::time_t>(*reset);
    if (r->status >= 200 && r->status < 300) {
      // A close-delimited body cut short looks complete to HTTP; only its
      // content tells, and skipping it would lose what it lists.
      if (!complete || complete(r->body) || !can_retry) return std::move(*r);
      last = "HTTP " + std::to_string(r->status) + " with an incomplete body";
      spdlog::warn("GitHub: GET {}: the response body is incomplete; retrying", url);
      RETURN_IF_ERROR(sleep_for(backoff, "backoff after an incomplete response"));
      continue;
    }
    last = "HTTP " + std::to_string(r->status) + ": " + api_message(r->body);
    if (auto wait = rate_limit_wait(*r, std::time(nullptr))) {
      if (wait->seconds > options_.max_wait_s)
        return unavailable("GET " + url + ": rate limited (" + wait->why + "); waiting " +
                           std::to_string(static_cast<long>(wait->seconds)) + "s exceeds --max-wait " +
                           std::to_string(static_cast<long>(options_.max_wait_s)) + "s");
      if (!can_retry) break;
      pause_until_ = 0;
      // Never sooner than asked; refusals that repeat wait exponentially
      // longer, as GitHub asks of clients hitting its secondary limits.
      RETURN_IF_ERROR(sleep_for(std::max(wait->seconds, backoff), wait->why));
      continue;
    }
    if (r->status >= 500 && can_retry) {
      spdlog::warn("GitHub: GET {}: HTTP {}; retrying", url, r->status);
      RETURN_IF_ERROR(sleep_for(backoff, "backoff after HTTP " + std::to_string(r->status)));
      continue;
    }
    return unavailable("GET " + url + ": " + last);
  }
  return unavailable("GET " + url + ": " + last + " (after " + std::to_string(options_.max_retries + 1) +
                     " attempts)");
}

namespace {
// The commit id of a commits/BRANCH response: the bare sha (vnd.github.sha)
// or a JSON object's "sha".
std::optional<std::string> head_sha(const std::string& body) {
  std::string sha = body;
  while (!sha.empty() && std::isspace(static_cast<unsigned char>(sha.back()))) sha.pop_back();
  bool hex = sha.size() == 40 && std::all_of(sha.begin(), sha.end(), [](char c) { return std::isxdigit(static_cast<unsigned char>(c)); });
  if (hex) return ascii_lower(sha);
  auto j = nlohmann::json::parse(body, nullptr, false);
  if (j.is_object() && j.contains("sha") && j["sha"].is_string()) return j["sha"].get<std::string>();
  return std::nullopt;
}
}  // namespace

Expected<std::string> GitHubClient::branch_head(const std::string& full_name, const std::string& branch) {
  ASSIGN_OR_RETURN(HttpResponse r, get(options_.api_url + "/repos/" + full_name + "/commits/" + url_encode(branch),
                                       "application/vnd.github.sha",
                                       [](const std::string& body) { return head_sha(body).has_value(); }));
  auto sha = head_sha(r.body);
  if (!sha) return parse_error("head of " + full_name + "/" + branch + ": unexpected response");
  return *sha;
}

namespace {

// A path component safe to use in the clone cache.
std::string safe_component(const std::string& s) {
  std::string out;
  for (char c : s) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.') ? c : '_';
  if (out.empty() || out == "." || out == "..") out = "_" + out;
  return out;
}

int on_transfer(const git_indexer_progress*, void*) { return interrupted() ? -1 : 0; }

}  // namespace

Expected<std::string> clone_repository(const std::string& url, const std::string& dest,
                                       const std::string& want_commit) {
  ensure_libgit2();
  if (is_git_repository(dest)) {
    auto head = git_head_commit(dest);
    if (head.ok() && !want_commit.empty() && *head == want_commit) return *head;
  }
  std::error_code ec;
  fs::remove_all(dest, ec);
  std::string tmp = dest + ".partial";
  fs::remove_all(tmp, ec);
  fs::create_directories(fs::path(dest).parent_path(), ec);
  git_clone_options opts;
  git_clone_options_init(&opts, GIT_CLONE_OPTIONS_VERSION);
  opts.bare = 1;
  opts.fetch_opts.callbacks.transfer_progress = on_transfer;
  git_repository* repo = nullptr;
  int rc = git_clone(&repo, url.c_str(), tmp.c_str(), &opts);
  if (rc != 0) {
    const git_error* e = git_error_last();
    int klass = e ? e->klass : GIT_ERROR_NONE;
    std::string text = e && e->message ? e->message : "";
    std::string msg = git_error_message("cloning " + url);
    fs::remove_all(tmp, ec);
    if (interrupted()) return cancelled("interrupted while cloning " + url);
    // A server killed mid-pack gives GIT_EEOF; one that is down, an OS error.
    bool transient = rc == GIT_EEOF || klass == GIT_ERROR_OS || klass == GIT_ERROR_NET || klass == GIT_ERROR_SSL ||
                     (klass == GIT_ERROR_HTTP && text.find("status code: 5") != std::string::npos);
    bool refused = text.rfind("remote error", 0) == 0;
    return transient && !refused ? unavailable(msg) : not_found(msg);
  }
  git_repository_free(repo);
  fs::rename(tmp, dest, ec);
  if (ec) return io_error("moving clone into " + dest + ": " + ec.message());
  return git_head_commit(dest);
}

Expected<MineSummary> mine_github(Database& db, const MineOptions& options) {
  RETURN_IF_ERROR(ensure_corpus_schema(db));
  MineSummary summary;
  GitHubClient client(options.github);
  std::vector<std::string> queries = options.queries.empty() ? default_github_queries() : options.queries;
  std::set<std::string> seen;
  std::string api = options.github.api_url;
  while (!api.empty() && api.back() == '/') api.pop_back();

  auto mine_repo = [&](const GitHubRepo& repo) -> Status {
    if (!allowed_clone_url(repo.clone_url))
      return invalid_argument("refusing clone URL '" + repo.clone_url + "' (only http, https and git)");
    SourceInfo source;
    source.key = repo.clone_url;
    source.kind = "github";
    source.clone_url = repo.clone_url;
    source.owner = repo.owner;
    source.name = repo.name;
    source.default_branch = repo.default_branch;
    source.license = repo.license;
    source.stars = repo.stars;
    source.forks = repo.forks;
    ASSIGN_OR_RETURN(std::optional<std::string> stored, imported_commit(db, source.key));
    std::string head;
    if (!repo.default_branch.empty()) {
      auto h = client.branch_head(repo.full_name, repo.default_branch);
      if (h.ok()) head = *h;
      else if (h.status().code() == ErrorCode::kCancelled) return h.status();
      else spdlog::warn("{}: {} (comparing after the clone instead)", repo.full_name, h.status().message());
    }
    if (stored && !head.empty() && *stored == head) {
      ++summary.repos_unchanged;
      return upsert_source(db, source).status();
    }
    std::string dest = options.clone_dir + "/" + safe_component(repo.owner) + "/" +
                       safe_component(repo.name) + ".git";
    auto cloned = clone_repository(repo.clone_url, dest, head);
    for (int attempt = 0;
         !cloned.ok() && cloned.status().code() == ErrorCode::kUnavailable && attempt < options.github.max_retries;
         ++attempt) {
      spdlog::warn("{}: {}; retrying", repo.full_name, cloned.status().message());
      RETURN_IF_ERROR(client.backoff(attempt, "backoff after a failed clone"));
      cloned = clone_repository(repo.clone_url, dest, head);
    }
    if (!cloned.ok()) return cloned.status();
    std::string commit = *cloned;
    if (stored && *stored == commit) {
      ++summary.repos_unchanged;
      return upsert_source(db, source).status();
    }
    ASSIGN_OR_RETURN(auto tree, open_git_tree(dest));
    ASSIGN_OR_RETURN(ImportSummary s, import_tree(db, *tree, source, commit, options.import));
    summary.files.add(s);
    ++summary.repos_imported;
    spdlog::info("{}: {} files stored ({} new), {} skipped", repo.full_name, s.accepted, s.new_contents,
                 s.candidates - s.accepted);
    return ok_status();
  };

  for (const auto& query : queries) {
    std::string url = api + "/search/repositories?q=" + url_encode(query) +
                      "&per_page=" + std::to_string(options.github.per_page);
    while (!url.empty() && summary.repos_seen < options.max_repos) {
      if (interrupted()) return cancelled("interrupted; rerun to resume");
      auto page = client.get(url, "application/vnd.github+json",
                             [](const std::string& body) { return parse_search_page(body).ok(); });
      if (!page.ok()) return page.status().with_context("searching GitHub for '" + query + "'");
      ++summary.pages;
      auto links = parse_link_header(page->header("link"));
      std::string next = links.count("next") ? links["next"] : "";
      if (!next.empty() && !same_origin(next, api)) {
        spdlog::warn("GitHub: not following a Link to another origin: {}", next);
        next.clear();
      }
      auto repos = parse_search_page(page->body);
      if (!repos.ok()) {
        ++summary.malformed_pages;
        spdlog::warn("GitHub: {}: {}; skipping this page", url, repos.status().message());
        url = next;
        continue;
      }
      for (const auto& repo : *repos) {
        if (summary.repos_seen >= options.max_repos) break;
        if (!seen.insert(repo.full_name).second) continue;
        ++summary.repos_seen;
        Status st = mine_repo(repo);
        if (st.code() == ErrorCode::kCancelled || interrupted())
          return st.ok() ? cancelled("interrupted; rerun to resume") : st;
        if (st.code() == ErrorCode::kDatabase) return st.with_context(repo.full_name);
        if (!st.ok()) {
          ++summary.repos_failed;
          spdlog::warn("{}: {}", repo.full_name, st.message());
        }
      }
      url = next;
    }
  }
  return summary;
}

}  // namespace clgen::corpus
