// SQL for the model's tables, and the training set read from the corpus catalog.
#include "model/store.h"

#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <limits>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "corpus/preprocess/catalog.h"
#include "model/feature_prefix.h"
#include "support/files.h"
#include "support/sha256.h"
#include "support/text.h"

namespace clgen::model {

namespace {

std::string this_host() {
  char host[256] = {};
  return gethostname(host, sizeof host - 1) == 0 ? host : "";
}

// Process `pid` as /proc/PID/stat reads: its state letter and start time
// (clock ticks since boot); nullopt when there is no such process.
struct ProcessStat {
  char state = '?';
  int64_t start_ticks = -1;
};
std::optional<ProcessStat> process_stat(int64_t pid) {
  auto text = read_file("/proc/" + std::to_string(pid) + "/stat", 4096);
  if (!text.ok()) return std::nullopt;
  // Fields after the command name (which may hold spaces and parentheses):
  // 3 state ... 22 starttime.
  const size_t name_end = text->rfind(')');
  if (name_end == std::string::npos) return std::nullopt;
  std::istringstream rest(text->substr(name_end + 1));
  ProcessStat s;
  std::string field;
  for (int i = 3; i <= 22 && rest >> field; ++i) {
    if (i == 3) s.state = field[0];
    if (i == 22)
      if (std::optional<uint64_t> ticks = parse_uint64(field)) s.start_ticks = int64_t(*ticks);
  }
  return s;
}

// Whether the process that began a run as (pid, start ticks) on this host
// has ended: it no longer exists, is a zombie, or its pid now names a
// process started at another time.
bool run_process_gone(int64_t pid, std::optional<int64_t> start_ticks) {
  if (pid <= 0 || pid > int64_t(std::numeric_limits<pid_t>::max())) return false;
  if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) return true;
  std::optional<ProcessStat> now = process_stat(pid);
  if (!now) return false;  // alive, but unreadable: assume it is the run
  return now->state == 'Z' || (start_ticks && now->start_ticks >= 0 && now->start_ticks != *start_ticks);
}

}  // namespace

Status ensure_model_schema(Database& db) {
  RETURN_IF_ERROR(db.exec(R"sql(
CREATE TABLE IF NOT EXISTS training_runs(
  id INTEGER PRIMARY KEY,
  model_id TEXT NOT NULL,
  config TEXT NOT NULL,
  corpus_sha256 TEXT NOT NULL,
  vocabulary TEXT NOT NULL,
  vocab_size INTEGER NOT NULL,
  device TEXT NOT NULL,
  start_epoch INTEGER NOT NULL,
  end_epoch INTEGER,
  status TEXT NOT NULL,  -- 'running' | 'completed' | 'interrupted' | 'failed'
  started_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),
  finished_at TEXT,      -- NULL while running, and for a run found dead
  host TEXT,             -- the process that runs it: host name, pid and
  pid INTEGER,           -- start time (clock ticks since boot), so that a
  pid_start INTEGER);    -- later run can tell that it died
CREATE INDEX IF NOT EXISTS training_runs_model ON training_runs(model_id);
CREATE TABLE IF NOT EXISTS training_metrics(
  model_id TEXT NOT NULL,
  epoch INTEGER NOT NULL,  -- 1-based
  run_id INTEGER NOT NULL,
  train_loss REAL NOT NULL,
  valid_loss REAL,
  valid_perplexity REAL,
  learning_rate REAL NOT NULL,
  tokens INTEGER NOT NULL,
  seconds REAL NOT NULL,
  tokens_per_second REAL NOT NULL,
  PRIMARY KEY(model_id, epoch));
CREATE TABLE IF NOT EXISTS checkpoints(
  id INTEGER PRIMARY KEY,
  model_id TEXT NOT NULL,
  run_id INTEGER NOT NULL,
  epoch INTEGER NOT NULL,  -- 0-based epoch in progress, or epochs done at a boundary
  batch INTEGER NOT NULL,  -- next batch; 0 at an epoch boundary
  path TEXT NOT NULL,
  reason TEXT NOT NULL,    -- 'epoch' | 'interrupt'
  created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')));
)sql"));
  // Workspaces from before the process columns.
  RETURN_IF_ERROR(db.add_column_if_missing("training_runs", "host", "TEXT"));
  RETURN_IF_ERROR(db.add_column_if_missing("training_runs", "pid", "INTEGER"));
  RETURN_IF_ERROR(db.add_column_if_missing("training_runs", "pid_start", "INTEGER"));
  return ensure_feature_cache_schema(db);
}

Expected<std::vector<CorpusKernel>> read_corpus_kernels(Database& db, int64_t max_chars, bool opencl20) {
  constexpr const char* kHint = "run `clgen corpus preprocess` first";
  ASSIGN_OR_RETURN(bool has_table, preprocess::has_preprocessed_corpus(db));
  if (!has_table)
    return not_found(
        fmt::format("no preprocessed corpus in {} (table 'preprocessed' is missing): {}", db.path(), kHint));
  // Kernels of an evaluation set (`clgen corpus decontaminate`) are left out.
  preprocess::KernelQuery query;
  query.exclude_decontaminated = true;
  query.opencl12_only = !opencl20;
  query.skip_empty = true;
  query.with_repository = true;
  ASSIGN_OR_RETURN(auto catalog, preprocess::newest_accepted_kernels(db, query));
  std::vector<CorpusKernel> kernels;
  for (auto& k : catalog) {
    if (max_chars <= 0 || int64_t(k.text.size()) <= max_chars)
      kernels.push_back({std::move(k.normalized_sha256), std::move(k.text), std::move(k.repository),
                         std::move(k.domain), k.host_code});
  }
  if (kernels.empty() && max_chars > 0)
    return not_found(fmt::format("no preprocessed kernel file in {} is within training.max_file_chars = {}",
                                 db.path(), max_chars));
  if (kernels.empty())
    return not_found(fmt::format("the preprocessed corpus in {} has no kernels with status 'ok': {}",
                                 db.path(), kHint));
  return kernels;
}

Expected<std::vector<std::string>> read_training_texts(Database& db, int64_t max_chars) {
  ASSIGN_OR_RETURN(auto kernels, read_corpus_kernels(db, max_chars));
  std::vector<std::string> texts;
  texts.reserve(kernels.size());
  for (auto& k : kernels) texts.push_back(std::move(k.text));
  return texts;
}

std::vector<std::string> TrainingTexts::training_only() const {
  return {texts.begin(), texts.end() - std::ptrdiff_t(held_out)};
}

std::vector<std::string> TrainingTexts::model_texts() const {
  if (headers.empty()) return texts;
  std::vector<std::string> out;
  out.reserve(texts.size());
  for (size_t i = 0; i < texts.size(); ++i) out.push_back(headers[i] + texts[i]);
  return out;
}

namespace {

// Whether `domain` contains one of `lower_words` (already in lower case), ignoring case.
bool in_capped_domain(const std::string& domain, const std::vector<std::string>& lower_words) {
  const std::string d = ascii_lower(domain);
  for (const std::string& w : lower_words)
    if (d.find(w) != std::string::npos) return true;
  return false;
}

// The default corpus's sources are packages (`corpus add --installed`).
bool from_default_corpus(const std::string& repository) { return repository.rfind("package:", 0) == 0; }

// max_repository_share over the kernels `kept` so far (select_training_texts).
void apply_share_cap(const std::vector<CorpusKernel>& kernels, double share, std::vector<bool>& kept,
                     TrainingTexts& out) {
  // Each repository's kept kernels in hash order, and the running sums of their sizes.
  std::map<std::string, std::vector<size_t>> members;
  std::map<std::string, std::vector<int64_t>> sums;
  for (size_t i = 0; i < kernels.size(); ++i) {
    if (!kept[i]) continue;
    std::vector<int64_t>& s = sums[kernels[i].repository];
    s.push_back((s.empty() ? 0 : s.back()) + int64_t(kernels[i].text.size()));
    members[kernels[i].repository].push_back(i);
  }
  // How many of a repository's kept kernels fit within `cap`, and their characters.
  auto within = [](const std::vector<int64_t>& s, int64_t cap) -> std::pair<size_t, int64_t> {
    size_t n = size_t(std::upper_bound(s.begin(), s.end(), cap) - s.begin());
    return {n, n == 0 ? 0 : s[n - 1]};
  };
  int64_t cap = 0;
  for (const auto& [repo, s] : sums) cap = std::max(cap, s.back());
  bool cut = false;
  while (cap > 0) {
    int64_t total = 0, biggest = 0;
    for (const auto& [repo, s] : sums) {
      const int64_t chars = within(s, cap).second;
      total += chars;
      biggest = std::max(biggest, chars);
    }
    if (double(biggest) <= share * double(total)) break;
    // biggest > share * total, so the next cap is below the current one.
    cap = std::min(cap - 1, int64_t(std::floor(share * double(total))));
    cut = true;
  }
  if (!cut) return;
  out.share_cap_chars = cap;
  for (const auto& [repo, s] : sums) {
    const std::vector<size_t>& idx = members[repo];
    for (size_t j = within(s, cap).first; j < idx.size(); ++j) {
      kept[idx[j]] = false;
      ++out.share_capped[repo];
    }
  }
}

}  // namespace

TrainingTexts select_training_texts(const std::vector<CorpusKernel>& kernels, const TrainingConfig& t) {
  TrainingTexts out;
  // Kernels arrive sorted by sha256, so the first ones of a repository are its lowest hashes.
  std::map<std::string, size_t> kept_per_repository;
  std::map<std::string, int64_t> chars_per_repository;
  std::set<std::string> full;  // repositories that reached max_repository_chars
  std::vector<bool> kept(kernels.size(), false);
  int64_t kept_in_capped_domains = 0;
  std::vector<std::string> capped_words;
  for (const std::string& w : t.capped_domain_words) capped_words.push_back(ascii_lower(w));
  for (size_t i = 0; i < kernels.size(); ++i) {
    const std::string& repo = kernels[i].repository;
    if (!t.default_corpus && from_default_corpus(repo)) {
      ++out.left_out_default_corpus;
      continue;
    }
    if (!t.host_code && kernels[i].host_code) {
      ++out.left_out_host_code;
      continue;
    }
    size_t& n = kept_per_repository[repo];
    if (t.max_kernels_per_repository > 0 && int64_t(n) >= t.max_kernels_per_repository) {
      ++out.capped[repo];
      continue;
    }
    const int64_t size = int64_t(kernels[i].text.size());
    if (t.max_repository_chars > 0 &&
        (full.count(repo) || chars_per_repository[repo] + size > t.max_repository_chars)) {
      full.insert(repo);
      ++out.chars_capped[repo];
      continue;
    }
    if (t.max_kernels_in_capped_domains > 0 && in_capped_domain(kernels[i].domain, capped_words)) {
      if (kept_in_capped_domains >= t.max_kernels_in_capped_domains) {
        ++out.domain_capped[repo];
        continue;
      }
      ++kept_in_capped_domains;
    }
    ++n;
    chars_per_repository[repo] += size;
    kept[i] = true;
  }
  if (t.max_repository_share > 0) {
    apply_share_cap(kernels, t.max_repository_share, kept, out);
    for (const auto& [repo, cut] : out.share_capped) kept_per_repository[repo] -= size_t(cut);
  }
  // A repository whose every kernel was capped away is not one to hold out.
  for (auto it = kept_per_repository.begin(); it != kept_per_repository.end();)
    it = it->second == 0 ? kept_per_repository.erase(it) : std::next(it);
  std::set<std::string> held;
  if (t.validation_split == "repository" && !t.validation_repositories.empty()) {
    const std::set<std::string> named(t.validation_repositories.begin(), t.validation_repositories.end());
    for (const auto& [repo, n] : kept_per_repository) {
      const size_t colon = repo.find(':');  // "snapshot:owner/name" also answers to "owner/name"
      if (named.count(repo) || (colon != std::string::npos && named.count(repo.substr(colon + 1)))) held.insert(repo);
    }
  } else if (t.validation_split == "repository" && t.validation_fraction > 0 && kept_per_repository.size() > 1) {
    size_t total = 0;
    for (const auto& [repo, n] : kept_per_repository) total += n;
    const double budget = t.validation_fraction * double(total);
    std::vector<std::pair<std::string, std::string>> order;  // (hash, repository)
    for (const auto& [repo, n] : kept_per_repository)
      order.emplace_back(sha256_hex(fmt::format("{}:{}", t.seed, repo)), repo);
    std::sort(order.begin(), order.end());
    size_t taken = 0;
    for (const auto& [hash, repo] : order) {
      if (held.size() + 1 >= kept_per_repository.size()) break;
      size_t n = kept_per_repository[repo];
      if (double(taken + n) > budget) continue;
      held.insert(repo);
      taken += n;
    }
  }
  // Training texts in hash order, then the held-out ones in hash order.
  for (size_t i = 0; i < kernels.size(); ++i)
    if (kept[i] && !held.count(kernels[i].repository)) {
      out.texts.push_back(kernels[i].text);
      out.sha256.push_back(kernels[i].sha256);
    }
  for (size_t i = 0; i < kernels.size(); ++i) {
    if (!kept[i] || !held.count(kernels[i].repository)) continue;
    out.texts.push_back(kernels[i].text);
    out.sha256.push_back(kernels[i].sha256);
    ++out.held_out;
  }
  out.held_out_repositories.assign(held.begin(), held.end());
  return out;
}

Expected<TrainingTexts> read_training_set(Database& db, const TrainingConfig& t) {
  ASSIGN_OR_RETURN(auto kernels, read_corpus_kernels(db, t.max_file_chars, t.opencl20));
  TrainingTexts out = select_training_texts(kernels, t);
  if (out.texts.size() == out.held_out)
    return invalid_argument("every kernel of the corpus is held out for validation");
  if (t.feature_prefix) {
    auto features = cached_kernel_features(db, out.sha256, out.texts);
    if (!features.ok()) return features.status().with_context("training.feature_prefix: the kernels' features");
    for (const auto& f : *features) {
      out.headers.push_back(f ? feature_header(*f) : "");
      out.headerless += !f;
    }
  }
  return out;
}

Expected<int> close_stale_training_runs(Database& db) {
  ASSIGN_OR_RETURN(auto q, db.prepare("SELECT id, pid, pid_start FROM training_runs "
                                      "WHERE status = 'running' AND host = ?1 AND pid IS NOT NULL"));
  RETURN_IF_ERROR(q.bind(1, this_host()));
  std::vector<int64_t> gone;
  while (true) {
    ASSIGN_OR_RETURN(bool row, q.step());
    if (!row) break;
    std::optional<int64_t> start;
    if (!q.column_is_null(2)) start = q.column_int(2);
    if (run_process_gone(q.column_int(1), start)) gone.push_back(q.column_int(0));
  }
  // The run got as far as its last recorded checkpoint (the epochs it holds).
  ASSIGN_OR_RETURN(
      auto mark, db.prepare("UPDATE training_runs SET status = 'interrupted', end_epoch = COALESCE("
                            "(SELECT MAX(c.epoch) FROM checkpoints c WHERE c.run_id = training_runs.id), start_epoch) "
                            "WHERE id = ?1 AND status = 'running'"));
  int closed = 0;
  for (int64_t id : gone) {
    mark.reset();
    RETURN_IF_ERROR(mark.bind(1, id));
    RETURN_IF_ERROR(mark.run());
    closed += db.changes();
  }
  return closed;
}

Expected<int64_t> begin_training_run(Database& db, const std::string& model_id,
                                     const std::string& config_text, const std::string& corpus_sha256,
                                     const std::string& vocabulary, int vocab_size,
                                     const std::string& device, int start_epoch) {
  RETURN_IF_ERROR_CTX(close_stale_training_runs(db).status(), "closing the rows of training runs that died");
  ASSIGN_OR_RETURN(
      auto st, db.prepare("INSERT INTO training_runs(model_id, config, corpus_sha256, vocabulary, vocab_size, device, "
                          "start_epoch, status, host, pid, pid_start) VALUES(?,?,?,?,?,?,?,'running',?,?,?)"));
  RETURN_IF_ERROR(st.bind(1, model_id));
  RETURN_IF_ERROR(st.bind(2, config_text));
  RETURN_IF_ERROR(st.bind(3, corpus_sha256));
  RETURN_IF_ERROR(st.bind(4, vocabulary));
  RETURN_IF_ERROR(st.bind(5, int64_t(vocab_size)));
  RETURN_IF_ERROR(st.bind(6, device));
  RETURN_IF_ERROR(st.bind(7, int64_t(start_epoch)));
  RETURN_IF_ERROR(st.bind(8, this_host()));
  RETURN_IF_ERROR(st.bind(9, int64_t(::getpid())));
  std::optional<ProcessStat> self = process_stat(::getpid());
  if (self && self->start_ticks >= 0) RETURN_IF_ERROR(st.bind(10, self->start_ticks));
  else RETURN_IF_ERROR(st.bind_null(10));
  RETURN_IF_ERROR(st.run());
  return db.last_insert_rowid();
}

Status finish_training_run(Database& db, int64_t run_id, const std::string& status, int end_epoch) {
  ASSIGN_OR_RETURN(auto st, db.prepare(
      "UPDATE training_runs SET status=?, end_epoch=?, "
      "finished_at=strftime('%Y-%m-%dT%H:%M:%fZ','now') WHERE id=?"));
  RETURN_IF_ERROR(st.bind(1, status));
  RETURN_IF_ERROR(st.bind(2, int64_t(end_epoch)));
  RETURN_IF_ERROR(st.bind(3, run_id));
  return st.run();
}

Status record_epoch(Database& db, const std::string& model_id, int64_t run_id, const EpochRecord& e) {
  ASSIGN_OR_RETURN(auto st, db.prepare(
      "INSERT OR REPLACE INTO training_metrics(model_id, epoch, run_id, train_loss, valid_loss, "
      "valid_perplexity, learning_rate, tokens, seconds, tokens_per_second) "
      "VALUES(?,?,?,?,?,?,?,?,?,?)"));
  RETURN_IF_ERROR(st.bind(1, model_id));
  RETURN_IF_ERROR(st.bind(2, int64_t(e.epoch)));
  RETURN_IF_ERROR(st.bind(3, run_id));
  RETURN_IF_ERROR(st.bind(4, e.train_loss));
  if (e.valid_loss) {
    RETURN_IF_ERROR(st.bind(5, *e.valid_loss));
    RETURN_IF_ERROR(st.bind(6, std::exp(*e.valid_loss)));
  } else {
    RETURN_IF_ERROR(st.bind_null(5));
    RETURN_IF_ERROR(st.bind_null(6));
  }
  RETURN_IF_ERROR(st.bind(7, e.learning_rate));
  RETURN_IF_ERROR(st.bind(8, int64_t(e.tokens)));
  RETURN_IF_ERROR(st.bind(9, e.seconds));
  RETURN_IF_ERROR(st.bind(10, e.seconds > 0 ? double(e.tokens) / e.seconds : 0.0));
  return st.run();
}

Status record_checkpoint(Database& db, const std::string& model_id, int64_t run_id, int epoch,
                         int batch, const std::string& path, const std::string& reason) {
  ASSIGN_OR_RETURN(auto st, db.prepare(
      "INSERT INTO checkpoints(model_id, run_id, epoch, batch, path, reason) VALUES(?,?,?,?,?,?)"));
  RETURN_IF_ERROR(st.bind(1, model_id));
  RETURN_IF_ERROR(st.bind(2, run_id));
  RETURN_IF_ERROR(st.bind(3, int64_t(epoch)));
  RETURN_IF_ERROR(st.bind(4, int64_t(batch)));
  RETURN_IF_ERROR(st.bind(5, path));
  RETURN_IF_ERROR(st.bind(6, reason));
  return st.run();
}

Status record_checkpoint_once(Database& db, const std::string& model_id, int64_t run_id, int epoch, int batch,
                              const std::string& path, const std::string& reason) {
  ASSIGN_OR_RETURN(auto q, db.prepare("SELECT 1 FROM checkpoints WHERE model_id=? AND epoch=? AND batch=?"));
  RETURN_IF_ERROR(q.bind(1, model_id));
  RETURN_IF_ERROR(q.bind(2, int64_t(epoch)));
  RETURN_IF_ERROR(q.bind(3, int64_t(batch)));
  ASSIGN_OR_RETURN(bool found, q.step());
  if (found) return ok_status();
  return record_checkpoint(db, model_id, run_id, epoch, batch, path, reason);
}

}  // namespace clgen::model
