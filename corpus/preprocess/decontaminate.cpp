// Decontamination of the training set against an evaluation directory: reading
// and normalizing the evaluation files, the n-gram comparison over an inverted
// index, and the `decontaminated` table.
#include "corpus/preprocess/decontaminate.h"

#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <climits>
#include <cstdint>
#include <cctype>
#include <chrono>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <future>
#include <optional>
#include <unordered_map>

#include "corpus/preprocess/catalog.h"
#include "corpus/preprocess/decontaminated_sql.h"
#include "corpus/preprocess/tokens.h"
#include "support/files.h"
#include "support/thread_pool.h"

namespace clgen::preprocess {

std::string decontamination_rule_text(const DecontaminateOptions& o) {
  char threshold[32];
  std::snprintf(threshold, sizeof threshold, "%g", o.threshold);
  std::string n = std::to_string(o.ngram);
  return "Both sides are normalized (expand macros, canonical qualifiers, identifiers renamed, "
         "clang-format) and split into C tokens (identifiers, numbers, literals, punctuators; "
         "whitespace and comments ignored). A training kernel is dropped when (a) identical: its "
         "token sequence equals an evaluation file's, or (b) ngram_overlap_train: at least " +
         std::string(threshold) + " of its distinct " + n +
         "-token n-grams occur in one evaluation file, or (c) ngram_overlap_eval: at least " +
         threshold + " of one evaluation file's n-grams occur in it (it contains the evaluation "
         "kernel). Texts with fewer than " + n +
         " distinct n-grams are compared by (a) only. An evaluation file that does not compile is "
         "compared by its raw tokens.";
}

// --- Evaluation files ---------------------------------------------------------

bool is_opencl_file_name(std::string_view name) {
  size_t dot = name.rfind('.');
  if (dot == std::string_view::npos || dot == 0) return false;
  std::string ext(name.substr(dot + 1));
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext == "cl" || ext == "ocl" || ext == "clh" || ext == "opencl";
}

namespace {

// The raw fallback: comments and whitespace dropped, macros expanded when
// the file preprocesses, qualifiers spelled the canonical way.
std::string raw_token_text(std::string_view text, const CompileOptions& options) {
  Expected<std::string> expanded = expand_main_file(text, options);
  std::string canonical = canonicalize_qualifiers(expanded ? std::string_view(*expanded) : text);
  std::string out;
  for (const std::string& t : c_tokens(canonical)) {
    if (!out.empty()) out += ' ';
    out += t;
  }
  return out;
}

// The rewrite passes without the final compile, for text that compiles but
// has no kernel (a header of helper functions) or too few instructions.
Expected<std::string> rewrite_passes(std::string_view text, const CompileOptions& options) {
  ASSIGN_OR_RETURN(std::string expanded, expand_main_file(text, options));
  ASSIGN_OR_RETURN(std::string renamed, rename_identifiers(canonicalize_qualifiers(expanded), options));
  return format_source(renamed);
}

}  // namespace

EvaluationKernel prepare_evaluation_kernel(std::string path, std::string_view text,
                                           const CompileOptions& options) {
  EvaluationKernel k;
  k.path = std::move(path);
  RewriteResult r = rewrite(text, options);
  if (r.status == RewriteStatus::kOk) {
    k.text = std::move(r.text);
    k.normalized = true;
    return k;
  }
  if (r.status == RewriteStatus::kRejected &&
      (r.category == category::kNoKernel || r.category == category::kTooFewInstructions)) {
    Expected<std::string> passes = rewrite_passes(text, options);
    if (passes) {
      k.text = std::move(*passes);
      k.normalized = true;
      return k;
    }
  }
  k.note = std::string(rewrite_status_name(r.status)) + " [" + r.category + "]: " + r.reason;
  k.text = raw_token_text(text, options);
  return k;
}

namespace {

bool inside(const std::string& root, const std::string& real) {
  return real.size() > root.size() && real.compare(0, root.size(), root) == 0 &&
         (root == "/" || real[root.size()] == '/');
}

// POSIX rather than std::filesystem: clgen may share its process with
// LibTorch, which interposes broken std::filesystem functions (support/files.h).
void list_files(const std::string& root, const std::string& rel, int depth,
                std::vector<std::string>& files, std::vector<std::string>& skipped) {
  std::string dir = rel.empty() ? root : root + "/" + rel;
  DIR* d = ::opendir(dir.c_str());
  if (!d) {
    skipped.push_back(dir + ": " + std::strerror(errno));
    return;
  }
  std::vector<std::string> names;
  while (dirent* e = ::readdir(d)) {
    std::string name = e->d_name;
    if (name != "." && name != "..") names.push_back(std::move(name));
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    std::string child = rel.empty() ? name : rel + "/" + name;
    std::string full = root + "/" + child;
    struct stat st {};
    if (::lstat(full.c_str(), &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) {
      if (depth < 64) list_files(root, child, depth + 1, files, skipped);
      continue;
    }
    if (!is_opencl_file_name(name)) continue;
    if (S_ISLNK(st.st_mode)) {
      auto target = real_path(full);
      struct stat tst {};
      if (!target || !inside(root, *target) || ::stat(target->c_str(), &tst) != 0 || !S_ISREG(tst.st_mode)) {
        skipped.push_back(full + ": symlink leading outside the evaluation directory (not read)");
        continue;
      }
    } else if (!S_ISREG(st.st_mode)) {
      continue;
    }
    files.push_back(child);
  }
}

}  // namespace

namespace {

// The real path of `dir`, or kNotFound naming it.
Expected<std::string> evaluation_root(const std::string& dir) {
  auto root = real_path(dir);
  if (!root) return not_found("evaluation directory " + dir + ": " + std::strerror(errno));
  struct stat st {};
  if (::stat(root->c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return not_found("evaluation directory " + dir + ": not a directory");
  return *root;
}

}  // namespace

Expected<EvaluationSet> read_evaluation_set(const std::string& dir, const ReadEvaluationOptions& options) {
  EvaluationSet set;
  ASSIGN_OR_RETURN(set.root, evaluation_root(dir));
  std::vector<std::string> rels;
  list_files(set.root, "", 0, rels, set.skipped);

  std::vector<std::pair<std::string, std::string>> texts;  // path, text
  for (const std::string& rel : rels) {
    std::string path = set.root + "/" + rel;
    Expected<std::string> text = read_file(path, options.max_file_bytes);
    if (!text) {
      set.skipped.push_back(path + ": " + text.status().message());
      continue;
    }
    if (options.inline_includes) {
      Expected<std::string> inlined = options.inline_includes(rel, *text);
      if (inlined) *text = std::move(*inlined);
    }
    texts.emplace_back(std::move(path), std::move(*text));
  }
  ThreadPool pool(options.threads);
  std::vector<std::future<EvaluationKernel>> futures;
  for (const auto& [path, text] : texts) {
    const std::string* p = &path;
    const std::string* t = &text;
    futures.push_back(pool.submit([p, t, &options] { return prepare_evaluation_kernel(*p, *t, options.compile); }));
  }
  for (auto& f : futures) set.files.push_back(f.get());
  return set;
}

// --- The comparison -------------------------------------------------------------

namespace {

// The inverted index: n-gram hash -> the evaluation files holding it, as one
// flat postings array (grouped by n-gram) behind an open-addressing table.
// Flat arrays rather than a map of vectors: 10,000 kernels make tens of
// millions of lookups, and each is then about one cache miss.
class NgramIndex {
 public:
  explicit NgramIndex(std::vector<std::pair<uint64_t, uint32_t>> pairs) {  // (n-gram, file)
    std::sort(pairs.begin(), pairs.end());
    size_t capacity = 16;
    while (capacity < pairs.size() * 2) capacity *= 2;
    mask_ = capacity - 1;
    slots_.assign(capacity, Slot{0, kEmpty});
    for (size_t i = 0; i < pairs.size();) {
      size_t j = i;
      while (j < pairs.size() && pairs[j].first == pairs[i].first) postings_.push_back(pairs[j++].second);
      size_t slot = pairs[i].first & mask_;
      while (slots_[slot].begin != kEmpty) slot = (slot + 1) & mask_;
      slots_[slot] = Slot{pairs[i].first, static_cast<uint32_t>(ends_.size())};
      ends_.push_back(static_cast<uint32_t>(postings_.size()));
      i = j;
    }
  }

  // Calls f(file) for each file holding `gram`.
  template <typename F>
  void for_each(uint64_t gram, F&& f) const {
    for (size_t slot = gram & mask_; slots_[slot].begin != kEmpty; slot = (slot + 1) & mask_) {
      if (slots_[slot].gram != gram) continue;
      uint32_t k = slots_[slot].begin;
      for (uint32_t p = k == 0 ? 0 : ends_[k - 1]; p < ends_[k]; ++p) f(postings_[p]);
      return;
    }
  }

 private:
  static constexpr uint32_t kEmpty = UINT32_MAX;
  struct Slot {
    uint64_t gram;
    uint32_t begin;  // index into ends_ (the n-gram's number), kEmpty when free
  };
  std::vector<Slot> slots_;
  std::vector<uint32_t> ends_;      // end of each n-gram's postings
  std::vector<uint32_t> postings_;  // file numbers
  size_t mask_ = 0;
};

}  // namespace

std::vector<Contamination> find_contamination(const std::vector<TrainingKernel>& training,
                                              const std::vector<EvaluationKernel>& evaluation,
                                              const DecontaminateOptions& options, unsigned threads) {
  const int n = std::max(1, options.ngram);
  // Only texts with at least n distinct n-grams take part in rules b and c.
  auto long_enough = [n](const std::vector<uint64_t>& grams) { return grams.size() >= static_cast<size_t>(n); };

  std::unordered_multimap<uint64_t, uint32_t> by_sequence;  // token-sequence hash -> file
  std::vector<size_t> eval_grams(evaluation.size(), 0);
  std::vector<std::pair<uint64_t, uint32_t>> pairs;
  for (uint32_t e = 0; e < evaluation.size(); ++e) {
    std::vector<uint64_t> tokens = token_hashes(evaluation[e].text);
    by_sequence.emplace(sequence_hash(tokens), e);
    std::vector<uint64_t> grams = ngram_hashes_of(tokens, n);
    if (!long_enough(grams)) continue;
    eval_grams[e] = grams.size();
    for (uint64_t g : grams) pairs.emplace_back(g, e);
  }
  const NgramIndex index(std::move(pairs));

  auto compare_one = [&](const TrainingKernel& t, std::vector<uint32_t>& counts,
                         std::vector<uint32_t>& touched) -> std::optional<Contamination> {
    std::vector<uint64_t> tokens = token_hashes(t.text);
    auto [lo, hi] = by_sequence.equal_range(sequence_hash(tokens));
    std::optional<uint32_t> identical;
    for (auto it = lo; it != hi; ++it) {  // equal hashes: confirm on the tokens themselves
      if ((!identical || it->second < *identical) && c_tokens(evaluation[it->second].text) == c_tokens(t.text))
        identical = it->second;
    }
    if (identical) return Contamination{t.normalized_sha256, evaluation[*identical].path,
                                        decontamination_rule::kIdentical, 1.0};
    std::vector<uint64_t> grams = ngram_hashes_of(tokens, n);
    if (!long_enough(grams)) return std::nullopt;
    for (uint64_t g : grams) {
      index.for_each(g, [&](uint32_t e) {
        if (counts[e]++ == 0) touched.push_back(e);
      });
    }
    std::optional<Contamination> best;
    std::sort(touched.begin(), touched.end());
    for (uint32_t e : touched) {
      double train_score = static_cast<double>(counts[e]) / static_cast<double>(grams.size());
      double eval_score = static_cast<double>(counts[e]) / static_cast<double>(eval_grams[e]);
      counts[e] = 0;
      const char* rule = decontamination_rule::kNgramOverlapTrain;
      double score = train_score;
      if (eval_score > train_score) {
        rule = decontamination_rule::kNgramOverlapEval;
        score = eval_score;
      }
      if (score >= options.threshold && (!best || score > best->score))
        best = Contamination{t.normalized_sha256, evaluation[e].path, rule, score};
    }
    touched.clear();
    return best;
  };

  std::vector<std::optional<Contamination>> results(training.size());
  ThreadPool pool(threads);
  const size_t chunks = std::max<size_t>(1, std::min<size_t>(training.size(), pool.size() * 4));
  std::vector<std::future<void>> futures;
  for (size_t c = 0; c < chunks; ++c) {
    futures.push_back(pool.submit([&, c] {
      std::vector<uint32_t> counts(evaluation.size(), 0), touched;
      for (size_t i = c; i < training.size(); i += chunks) results[i] = compare_one(training[i], counts, touched);
    }));
  }
  for (auto& f : futures) f.get();
  std::vector<Contamination> out;
  for (auto& r : results) {
    if (r) out.push_back(std::move(*r));
  }
  return out;
}

// --- The table ------------------------------------------------------------------

Status ensure_decontaminated_schema(Database& db) {
  return db.exec(R"sql(
CREATE TABLE IF NOT EXISTS decontaminated (
  normalized_sha256 TEXT NOT NULL PRIMARY KEY,  -- the training kernel left out
  against TEXT NOT NULL,  -- the evaluation file it matched
  rule TEXT NOT NULL,     -- 'identical' | 'ngram_overlap_train' | 'ngram_overlap_eval'
  score REAL NOT NULL,    -- 1 for identical, else the fraction of n-grams shared
  at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now'))  -- first recorded
);
)sql");
}

Expected<std::vector<TrainingKernel>> read_training_kernels(Database& db) {
  ASSIGN_OR_RETURN(bool has_table, has_preprocessed_corpus(db));
  if (!has_table)
    return not_found("no preprocessed corpus in " + db.path() +
                     " (table 'preprocessed' is missing): run `clgen corpus preprocess` first");
  KernelQuery query;
  query.exclude_decontaminated = false;  // a rerun compares the whole corpus again
  ASSIGN_OR_RETURN(std::vector<CatalogKernel> kernels, newest_accepted_kernels(db, query));
  std::vector<TrainingKernel> out;
  for (CatalogKernel& k : kernels)
    if (!k.normalized_sha256.empty()) out.push_back({std::move(k.normalized_sha256), std::move(k.text)});
  return out;
}

Status record_contamination(Database& db, const std::vector<Contamination>& drops) {
  RETURN_IF_ERROR_CTX(ensure_decontaminated_schema(db), "creating the decontaminated table");
  ASSIGN_OR_RETURN(Statement upsert, db.prepare(
      "INSERT INTO decontaminated (normalized_sha256, against, rule, score) VALUES (?1, ?2, ?3, ?4) "
      "ON CONFLICT(normalized_sha256) DO UPDATE SET against = excluded.against, rule = excluded.rule, "
      "score = excluded.score"));
  ASSIGN_OR_RETURN(Transaction tx, Transaction::begin(db));
  for (const Contamination& d : drops) {
    upsert.reset();
    RETURN_IF_ERROR(upsert.bind(1, d.normalized_sha256));
    RETURN_IF_ERROR(upsert.bind(2, d.against));
    RETURN_IF_ERROR(upsert.bind(3, d.rule));
    RETURN_IF_ERROR(upsert.bind(4, d.score));
    RETURN_IF_ERROR_CTX(upsert.run(), "recording the drop of " + d.normalized_sha256);
  }
  return tx.commit();
}

Expected<std::unordered_set<std::string>> decontaminated_hashes(Database& db) {
  std::unordered_set<std::string> out;
  ASSIGN_OR_RETURN(bool has_table, db.has_table(kDecontaminatedTable));
  if (!has_table) return out;
  ASSIGN_OR_RETURN(Statement q, db.prepare("SELECT normalized_sha256 FROM decontaminated"));
  while (true) {
    ASSIGN_OR_RETURN(bool row, q.step());
    if (!row) break;
    out.insert(q.column_text(0));
  }
  return out;
}

Expected<std::vector<std::string>> kernel_origins(Database& db, const std::vector<std::string>& hashes) {
  std::vector<std::string> out(hashes.size());
  if (hashes.empty()) return out;
  ASSIGN_OR_RETURN(auto locations, accepted_kernel_locations(db));
  for (size_t i = 0; i < hashes.size(); ++i) {
    auto it = locations.find(hashes[i]);
    if (it != locations.end()) out[i] = it->second;
  }
  return out;
}

Expected<DecontaminateReport> decontaminate(Database& db, const std::string& dir,
                                            const DecontaminateRunOptions& options) {
  DecontaminateReport report;
  // Both inputs are checked before any file is compiled.
  RETURN_IF_ERROR(evaluation_root(dir).status());
  ASSIGN_OR_RETURN(std::vector<TrainingKernel> training, read_training_kernels(db));
  using Clock = std::chrono::steady_clock;
  auto seconds_since = [](Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); };
  Clock::time_point start = Clock::now();
  ASSIGN_OR_RETURN(report.evaluation, read_evaluation_set(dir, options.read));
  report.evaluation_seconds = seconds_since(start);
  report.compared = training.size();
  start = Clock::now();
  report.drops = find_contamination(training, report.evaluation.files, options.compare, options.read.threads);
  report.compare_seconds = seconds_since(start);
  std::vector<std::string> dropped;
  for (const Contamination& d : report.drops) {
    ++report.by_rule[d.rule];
    dropped.push_back(d.normalized_sha256);
  }
  ASSIGN_OR_RETURN(report.origins, kernel_origins(db, dropped));
  if (options.dry_run) return report;
  RETURN_IF_ERROR_CTX(record_contamination(db, report.drops), "recording decontamination");
  ASSIGN_OR_RETURN(Statement count, db.prepare("SELECT COUNT(*) FROM decontaminated"));
  ASSIGN_OR_RETURN(bool row, count.step());
  report.recorded_total = row ? static_cast<uint64_t>(count.column_int(0)) : 0;
  return report;
}

}  // namespace clgen::preprocess
