// Decontamination of the training set against an evaluation directory: the
// evaluation files through the training set's pipeline, kernel by kernel, the
// n-gram comparison over inverted indexes (renamed and name-insensitive
// tokens), and the `decontaminated` table.
#include "corpus/preprocess/decontaminate.h"

#include <dirent.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <future>
#include <memory>
#include <optional>
#include <unordered_map>

#include "corpus/preprocess/catalog.h"
#include "corpus/preprocess/decontaminated_sql.h"
#include "corpus/preprocess/generated_names.h"
#include "corpus/preprocess/kernel_templates.h"
#include "corpus/preprocess/newest_version.h"
#include "corpus/preprocess/raw_string.h"
#include "corpus/preprocess/tokens.h"
#include "support/files.h"
#include "support/progress.h"
#include "support/thread_pool.h"

namespace clgen::preprocess {

namespace {
std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", v);
  return buf;
}
}  // namespace

std::string decontamination_rule_text(const DecontaminateOptions& o) {
  std::string t = number(o.threshold), n = std::to_string(o.ngram);
  std::string st = number(o.shape_threshold), sn = std::to_string(o.shape_ngram);
  return "Both sides are normalized by the training pipeline, one text per kernel with only what it reaches "
         "(macros expanded, canonical qualifiers, identifiers renamed, clang-format), and split into C tokens "
         "(whitespace and comments ignored). A training kernel is dropped when (a) identical: its token "
         "sequence equals an evaluation kernel's, or (b) ngram_overlap_train: at least " +
         t + " of its distinct " + n +
         "-token n-grams occur in one evaluation kernel, or (c) ngram_overlap_eval: "
         "at least " +
         t +
         " of one evaluation kernel's n-grams occur in it, or (d) shape_overlap_train and "
         "(e) shape_overlap_eval: the same with " +
         st + " of the " + sn +
         "-token n-grams of name-insensitive tokens (every renamed identifier one class; keywords, types, "
         "builtins and numbers kept), where both texts have at least " +
         std::to_string(o.shape_min_ngrams) + " of them. Texts with fewer than " + n +
         " distinct n-grams are compared by (a) only. An evaluation "
         "file, or the kernels of one, that the pipeline rejects is compared by its raw tokens.";
}

// --- Name-insensitive tokens ---------------------------------------------------

namespace {

// Keywords, types and builtins that generated_index() would take for a
// generated name (one to four letters of one case).
bool is_reserved_short_word(std::string_view w) {
  static const std::unordered_set<std::string_view> kWords = {
      "auto", "bool", "case", "char", "do",   "else", "enum", "for",  "goto", "half", "if",   "int",
      "long", "true", "uint", "void", "NULL", "NAN",  "abs",  "acos", "all",  "any",  "asin", "atan",
      "cbrt", "ceil", "clz",  "cos",  "cosh", "dot",  "erf",  "erfc", "exp",  "fabs", "fdim", "fma",
      "fmax", "fmin", "fmod", "log",  "logb", "mad",  "max",  "min",  "mix",  "modf", "nan",  "pow",
      "pown", "powr", "rint", "sign", "sin",  "sinh", "sqrt", "step", "tan",  "tanh"};
  return kWords.count(w) > 0;
}

bool is_identifier(std::string_view t) {
  unsigned char c = t.empty() ? 0 : static_cast<unsigned char>(t[0]);
  return std::isalpha(c) || c == '_' || c == '$';
}

// A renamed identifier of a normalized text.
bool is_generated(std::string_view t) { return generated_index(t) >= 0 && !is_reserved_short_word(t); }

constexpr uint64_t kNameClass = 0x6e616d65636c6173ull;  // the one class of every name

}  // namespace

namespace {

// FNV-1a, as token_hashes() hashes a token (so kept identifiers and kept
// tokens hash alike on both paths).
uint64_t token_hash(std::string_view t) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : t) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

// The shape hashes of `tokens` (one c_tokens pass serves hashing, classes and
// declaration boundaries).
std::vector<uint64_t> shape_of(const std::vector<std::string>& tokens, bool normalized,
                               const std::unordered_set<uint64_t>* kept) {
  std::vector<uint64_t> hashes(tokens.size());
  for (size_t i = 0; i < tokens.size(); ++i) {
    const std::string& t = tokens[i];
    hashes[i] = token_hash(t);
    if (!is_identifier(t)) continue;
    bool name = normalized ? is_generated(t) : (kept ? kept->count(hashes[i]) == 0 : !is_reserved_short_word(t));
    if (name) hashes[i] = kNameClass;
  }
  return hashes;
}

}  // namespace

std::vector<uint64_t> shape_token_hashes(std::string_view text, bool normalized,
                                         const std::unordered_set<uint64_t>* kept) {
  return shape_of(c_tokens(text), normalized, kept);
}

std::vector<uint64_t> shape_ngram_hashes(std::string_view text, bool normalized, int n,
                                         const std::unordered_set<uint64_t>* kept) {
  std::vector<std::string> tokens = c_tokens(text);
  std::vector<uint64_t> hashes = shape_of(tokens, normalized, kept);
  std::vector<uint64_t> out;
  // Top-level declarations end at a `;` or `}` outside any bracket.
  int depth = 0;
  size_t begin = 0;
  auto flush = [&](size_t end) {
    std::vector<uint64_t> piece(hashes.begin() + begin, hashes.begin() + end);
    std::vector<uint64_t> grams = ngram_hashes_of(piece, n);
    out.insert(out.end(), grams.begin(), grams.end());
    begin = end;
  };
  for (size_t i = 0; i < tokens.size(); ++i) {
    const std::string& t = tokens[i];
    if (t == "{" || t == "(" || t == "[") ++depth;
    else if ((t == "}" || t == ")" || t == "]") && depth > 0) --depth;
    if (depth == 0 && (t == ";" || t == "}")) flush(i + 1);
  }
  flush(tokens.size());
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

std::unordered_set<uint64_t> shape_kept_identifiers(const std::vector<TrainingKernel>& training) {
  std::unordered_set<uint64_t> kept;
  for (const TrainingKernel& k : training) {
    for (const std::string& t : c_tokens(k.text))
      if (is_identifier(t) && !is_generated(t)) kept.insert(token_hash(t));
  }
  return kept;
}

// --- Evaluation kernels ------------------------------------------------------

bool is_opencl_file_name(std::string_view name) {
  size_t dot = name.rfind('.');
  if (dot == std::string_view::npos || dot == 0) return false;
  std::string ext(name.substr(dot + 1));
  for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return ext == "cl" || ext == "ocl" || ext == "clh" || ext == "opencl";
}

std::string evaluation_kernel_name(const EvaluationKernel& k) {
  return k.kernel.empty() ? k.path : k.path + ":" + k.kernel;
}

namespace {

// The raw fallback: comments and whitespace dropped, qualifiers spelled the
// canonical way (a lexer pass; no Clang compile of untrusted text outside
// the budgeted workers).
std::string raw_token_text(std::string_view text) {
  std::string out;
  for (const std::string& t : c_tokens(canonicalize_qualifiers(text))) {
    if (!out.empty()) out += ' ';
    out += t;
  }
  return out;
}

std::string verdict(RewriteStatus status, const std::string& category, const std::string& reason) {
  return std::string(rewrite_status_name(status)) + " [" + category + "]: " + reason;
}

}  // namespace

std::vector<EvaluationKernel> evaluation_kernels_of(const std::string& path, std::string_view text,
                                                    const FileRewriteResult& result) {
  std::vector<EvaluationKernel> out;
  if (result.status != RewriteStatus::kOk) {
    out.push_back({path, "", raw_token_text(text), false, verdict(result.status, result.category, result.reason)});
    return out;
  }
  std::string failed, notes;
  for (const RewriteResult& k : result.kernels) {
    if (k.status == RewriteStatus::kOk) {
      out.push_back({path, k.kernel_name, k.text, true, ""});
      continue;
    }
    failed += (failed.empty() ? "" : ",") + k.kernel_name;
    notes += (notes.empty() ? "" : "; ") + k.kernel_name + ": " + verdict(k.status, k.category, k.reason);
  }
  if (!failed.empty()) out.push_back({path, failed, raw_token_text(text), false, notes});
  return out;
}

namespace {

bool inside(const std::string& root, const std::string& real) {
  return real.size() > root.size() && real.compare(0, root.size(), root) == 0 &&
         (root == "/" || real[root.size()] == '/');
}

// POSIX rather than std::filesystem: clgen may share its process with
// LibTorch, which interposes broken std::filesystem functions (support/files.h).
void list_files(const std::string& root, const std::string& rel, int depth, std::vector<std::string>& files,
                std::vector<std::string>& skipped) {
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

  // Includes beside the file, then the -I directories, then the evaluation
  // directory (a repository's `#include "../common.h"` stays inside it).
  LocalSourceOptions source = options.source;
  source.include_dirs.push_back(set.root);
  struct File {
    std::string path, text, unresolved;
  };
  std::vector<File> files;
  for (const std::string& rel : rels) {
    std::string path = set.root + "/" + rel;
    Expected<LocalSource> local = read_local_source(path, source, options.max_file_bytes);
    if (!local) {
      set.skipped.push_back(path + ": " + local.status().message());
      continue;
    }
    File f{path, with_kernel_templates_instantiated(strip_raw_string_wrapper(local->text)), ""};
    for (const std::string& name : local->unresolved) f.unresolved += (f.unresolved.empty() ? "" : ", ") + name;
    files.push_back(std::move(f));
  }
  set.files = files.size();

  ThreadPool pool(options.threads);
  // After the pool, so it is destroyed first: the workers are stopped while
  // the threads that started them still live (see ClangWorkers).
  ClangWorkers workers(options.budget, pool.size());
  std::optional<Progress> progress;
  if (options.progress) progress.emplace("decontaminate: normalizing evaluation files", files.size());
  std::vector<std::future<Expected<std::vector<EvaluationKernel>>>> futures;
  for (const File& f : files) {
    const File* p = &f;
    futures.push_back(pool.submit([p, &options, &workers, &progress]() -> Expected<std::vector<EvaluationKernel>> {
      ASSIGN_OR_RETURN(FileRewriteResult r, workers.rewrite_kernels(p->text, options.compile));
      std::vector<EvaluationKernel> kernels = evaluation_kernels_of(p->path, p->text, r);
      for (EvaluationKernel& k : kernels)
        if (!k.normalized && !p->unresolved.empty()) k.note += " (includes not read: " + p->unresolved + ")";
      if (progress) progress->advance();
      return kernels;
    }));
  }
  Status failed = ok_status();
  for (auto& f : futures) {
    Expected<std::vector<EvaluationKernel>> kernels = f.get();
    if (!kernels) {
      if (failed.ok()) failed = kernels.status();
      continue;
    }
    for (EvaluationKernel& k : *kernels) set.kernels.push_back(std::move(k));
  }
  if (progress) progress->finish();
  RETURN_IF_ERROR_CTX(failed, "normalizing the evaluation set");
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

namespace {

// One side of a comparison: distinct n-grams of one token stream, and the
// evaluation kernels' index over them.
struct GramSide {
  int n = 1;
  size_t min_grams = 1;  // fewer distinct n-grams: not compared on this side
  double threshold = 1;
  const char* rule_train = nullptr;  // the text is (mostly) in the evaluation kernel
  const char* rule_eval = nullptr;   // the evaluation kernel is (mostly) in the text
};

struct Candidate {
  uint32_t eval = 0;
  const char* rule = nullptr;
  double score = 0;
};

// Counts, for one training kernel's n-grams, the shared n-grams per
// evaluation kernel, and offers each pair's better score to `best`.
void score_side(const NgramIndex& index, const std::vector<size_t>& eval_grams, const GramSide& side,
                const std::vector<uint64_t>& grams, std::vector<uint32_t>& counts, std::vector<uint32_t>& touched,
                std::optional<Candidate>& best) {
  if (grams.size() < side.min_grams) return;
  for (uint64_t g : grams) {
    index.for_each(g, [&](uint32_t e) {
      if (counts[e]++ == 0) touched.push_back(e);
    });
  }
  std::sort(touched.begin(), touched.end());
  for (uint32_t e : touched) {
    double train_score = static_cast<double>(counts[e]) / static_cast<double>(grams.size());
    double eval_score = static_cast<double>(counts[e]) / static_cast<double>(eval_grams[e]);
    counts[e] = 0;
    Candidate c{e, side.rule_train, train_score};
    if (eval_score > train_score) c = Candidate{e, side.rule_eval, eval_score};
    if (c.score >= side.threshold && (!best || c.score > best->score)) best = c;
  }
  touched.clear();
}

}  // namespace

std::vector<Contamination> find_contamination(const std::vector<TrainingKernel>& training,
                                              const std::vector<EvaluationKernel>& evaluation,
                                              const DecontaminateOptions& options, unsigned threads, bool progress) {
  GramSide renamed{std::max(1, options.ngram), 0, options.threshold, decontamination_rule::kNgramOverlapTrain,
                   decontamination_rule::kNgramOverlapEval};
  renamed.min_grams = static_cast<size_t>(renamed.n);
  GramSide shape{std::max(1, options.shape_ngram), std::max<size_t>(1, options.shape_min_ngrams),
                 options.shape_threshold, decontamination_rule::kShapeOverlapTrain,
                 decontamination_rule::kShapeOverlapEval};

  // Raw entries keep the identifiers the training texts keep (builtins, types).
  std::unordered_set<uint64_t> kept;
  if (std::any_of(evaluation.begin(), evaluation.end(), [](const EvaluationKernel& e) { return !e.normalized; }))
    kept = shape_kept_identifiers(training);

  std::unordered_multimap<uint64_t, uint32_t> by_sequence;  // token-sequence hash -> evaluation kernel
  std::vector<size_t> eval_grams(evaluation.size(), 0), eval_shape_grams(evaluation.size(), 0);
  std::vector<std::pair<uint64_t, uint32_t>> pairs, shape_pairs;
  for (uint32_t e = 0; e < evaluation.size(); ++e) {
    std::vector<uint64_t> tokens = token_hashes(evaluation[e].text);
    by_sequence.emplace(sequence_hash(tokens), e);
    std::vector<uint64_t> grams = ngram_hashes_of(tokens, renamed.n);
    if (grams.size() >= renamed.min_grams) {
      eval_grams[e] = grams.size();
      for (uint64_t g : grams) pairs.emplace_back(g, e);
    }
    std::vector<uint64_t> sgrams = shape_ngram_hashes(evaluation[e].text, evaluation[e].normalized, shape.n, &kept);
    if (sgrams.size() >= shape.min_grams) {
      eval_shape_grams[e] = sgrams.size();
      for (uint64_t g : sgrams) shape_pairs.emplace_back(g, e);
    }
  }
  const NgramIndex index(std::move(pairs)), shape_index(std::move(shape_pairs));

  struct Scratch {
    std::vector<uint32_t> counts, touched;
  };
  auto compare_one = [&](const TrainingKernel& t, Scratch& s) -> std::optional<Contamination> {
    std::vector<uint64_t> tokens = token_hashes(t.text);
    auto [lo, hi] = by_sequence.equal_range(sequence_hash(tokens));
    std::optional<uint32_t> identical;
    for (auto it = lo; it != hi; ++it) {  // equal hashes: confirm on the tokens themselves
      if ((!identical || it->second < *identical) && c_tokens(evaluation[it->second].text) == c_tokens(t.text))
        identical = it->second;
    }
    if (identical)
      return Contamination{t.normalized_sha256, evaluation[*identical].path, evaluation[*identical].kernel,
                           decontamination_rule::kIdentical, 1.0};
    std::optional<Candidate> best;
    score_side(index, eval_grams, renamed, ngram_hashes_of(tokens, renamed.n), s.counts, s.touched, best);
    std::optional<Candidate> by_shape;
    score_side(shape_index, eval_shape_grams, shape, shape_ngram_hashes(t.text, true, shape.n), s.counts, s.touched,
               by_shape);
    if (by_shape && (!best || by_shape->score > best->score)) best = by_shape;
    if (!best) return std::nullopt;
    const EvaluationKernel& e = evaluation[best->eval];
    return Contamination{t.normalized_sha256, e.path, e.kernel, best->rule, best->score};
  };

  std::optional<Progress> bar;
  if (progress) bar.emplace("decontaminate: comparing training kernels", training.size());
  std::vector<std::optional<Contamination>> results(training.size());
  ThreadPool pool(threads);
  const size_t chunks = std::max<size_t>(1, std::min<size_t>(training.size(), pool.size() * 4));
  std::vector<std::future<void>> futures;
  for (size_t c = 0; c < chunks; ++c) {
    futures.push_back(pool.submit([&, c] {
      Scratch s;
      s.counts.assign(evaluation.size(), 0);
      for (size_t i = c; i < training.size(); i += chunks) {
        results[i] = compare_one(training[i], s);
        if (bar) bar->advance();
      }
    }));
  }
  for (auto& f : futures) f.get();
  if (bar) bar->finish();
  std::vector<Contamination> out;
  for (auto& r : results) {
    if (r) out.push_back(std::move(*r));
  }
  return out;
}

// --- The table ------------------------------------------------------------------

Status ensure_decontaminated_schema(Database& db) {
  RETURN_IF_ERROR(db.exec(R"sql(
CREATE TABLE IF NOT EXISTS decontaminated (
  normalized_sha256 TEXT NOT NULL PRIMARY KEY,  -- the training kernel left out
  against TEXT NOT NULL,  -- the evaluation file it matched
  rule TEXT NOT NULL,     -- 'identical' | 'ngram_overlap_train' | 'ngram_overlap_eval' | 'shape_overlap_train' | 'shape_overlap_eval'
  score REAL NOT NULL,    -- 1 for identical, else the fraction of n-grams shared
  at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ','now')),  -- first recorded
  against_kernel TEXT NOT NULL DEFAULT ''  -- the evaluation kernel in that file ('' = the whole file)
);
)sql"));
  // Tables made before matches were per kernel gain the column; their rows stay.
  ASSIGN_OR_RETURN(bool has_kernel, db.has_column(kDecontaminatedTable, "against_kernel"));
  if (has_kernel) return ok_status();
  return db.exec("ALTER TABLE decontaminated ADD COLUMN against_kernel TEXT NOT NULL DEFAULT ''");
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
  ASSIGN_OR_RETURN(
      Statement upsert,
      db.prepare("INSERT INTO decontaminated (normalized_sha256, against, rule, score, against_kernel) "
                 "VALUES (?1, ?2, ?3, ?4, ?5) ON CONFLICT(normalized_sha256) DO UPDATE SET against = excluded.against, "
                 "rule = excluded.rule, score = excluded.score, against_kernel = excluded.against_kernel"));
  ASSIGN_OR_RETURN(Transaction tx, Transaction::begin(db));
  for (const Contamination& d : drops) {
    upsert.reset();
    RETURN_IF_ERROR(upsert.bind(1, d.normalized_sha256));
    RETURN_IF_ERROR(upsert.bind(2, d.against));
    RETURN_IF_ERROR(upsert.bind(3, d.rule));
    RETURN_IF_ERROR(upsert.bind(4, d.score));
    RETURN_IF_ERROR(upsert.bind(5, d.against_kernel));
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

Expected<std::vector<TrainingOrigin>> training_origins(Database& db, const std::vector<std::string>& hashes) {
  std::vector<TrainingOrigin> out(hashes.size());
  if (hashes.empty()) return out;
  std::unordered_map<std::string, std::vector<size_t>> wanted;
  for (size_t i = 0; i < hashes.size(); ++i) wanted[hashes[i]].push_back(i);
  ASSIGN_OR_RETURN(bool origins, db.has_table("content_origins"));
  ASSIGN_OR_RETURN(bool repositories, db.has_table("repositories"));
  const std::string newest = std::string(" p.status = 'ok' AND p.preprocessor_version = ") + kNewestVersionSql;
  // One pass over the accepted rows, the first origin of each kernel first.
  std::string sql =
      origins && repositories
          ? "SELECT p.normalized_sha256, p.kernel, CASE WHEN COALESCE(r.owner, '') != '' THEN r.owner || '/' || "
            "r.name ELSE r.source END, o.path FROM preprocessed p LEFT JOIN content_origins o ON o.sha256 = "
            "p.content_sha256 LEFT JOIN repositories r ON r.id = o.repository_id WHERE" +
                newest + " ORDER BY r.id IS NULL, r.id, o.path, p.kernel"
          : "SELECT p.normalized_sha256, p.kernel, NULL, NULL FROM preprocessed p WHERE" + newest +
                " ORDER BY p.kernel";
  ASSIGN_OR_RETURN(Statement st, db.prepare(sql));
  while (true) {
    ASSIGN_OR_RETURN(bool row, st.step());
    if (!row) break;
    auto it = wanted.find(st.column_text(0));
    if (it == wanted.end()) continue;
    for (size_t i : it->second) out[i] = {st.column_text(2), st.column_text(3), st.column_text(1)};
    wanted.erase(it);
    if (wanted.empty()) break;
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
  report.drops = find_contamination(training, report.evaluation.kernels, options.compare, options.read.threads,
                                    options.read.progress);
  report.compare_seconds = seconds_since(start);
  std::vector<std::string> dropped;
  for (const Contamination& d : report.drops) {
    ++report.by_rule[d.rule];
    dropped.push_back(d.normalized_sha256);
  }
  ASSIGN_OR_RETURN(report.origins, training_origins(db, dropped));
  if (options.dry_run) return report;
  RETURN_IF_ERROR_CTX(record_contamination(db, report.drops), "recording decontamination");
  ASSIGN_OR_RETURN(Statement count, db.prepare("SELECT COUNT(*) FROM decontaminated"));
  ASSIGN_OR_RETURN(bool row, count.step());
  report.recorded_total = row ? static_cast<uint64_t>(count.column_int(0)) : 0;
  return report;
}

}  // namespace clgen::preprocess
