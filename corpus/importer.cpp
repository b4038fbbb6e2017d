// Tree import: selection, classification, include discovery and batched raw storage.
#include "corpus/importer.h"

#include <fnmatch.h>
#include <stdlib.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <memory>
#include <set>

#include "corpus/archive_tree.h"
#include "corpus/content_check.h"
#include "corpus/encoding.h"
#include "corpus/host_code.h"
#include "corpus/snapshot.h"
#include "corpus/string_literals.h"
#include "support/files.h"
#include "support/interrupt.h"
#include "support/log.h"
#include "support/progress.h"
#include "support/sha256.h"

namespace clgen::corpus {

namespace fs = std::filesystem;

void ImportSummary::add(const ImportSummary& o) {
  candidates += o.candidates;
  accepted += o.accepted;
  includes_stored += o.includes_stored;
  new_contents += o.new_contents;
  bytes_read += o.bytes_read;
  bytes_stored += o.bytes_stored;
  includes_inlined += o.includes_inlined;
  includes_unresolved += o.includes_unresolved;
  includes_refused += o.includes_refused;
  include_cycles += o.include_cycles;
  includes_substituted += o.includes_substituted;
  for (const auto& [k, v] : o.skipped) skipped[k] += v;
  unchanged_sources += o.unchanged_sources;
  transcoded += o.transcoded;
  host_files_read += o.host_files_read;
  host_kernels += o.host_kernels;
  host_templates += o.host_templates;
}

const std::vector<std::string> kSnapshotGlobs = {"*.[cC][lL]", "*.[oO][cC][lL]", "*.[cC][lL][hH]",
                                                 "*.[oO][pP][eE][nN][cC][lL]"};

bool mentions_kernel(const std::string& text) {
  static const std::string word = "kernel";
  auto it = std::search(text.begin(), text.end(), word.begin(), word.end(),
                        [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; });
  return it != text.end();
}

bool matches_globs(const std::string& path, const std::vector<std::string>& globs) {
  size_t slash = path.rfind('/');
  std::string base = slash == std::string::npos ? path : path.substr(slash + 1);
  for (const auto& g : globs) {
    bool whole = g.find('/') != std::string::npos;
    if (fnmatch(g.c_str(), whole ? path.c_str() : base.c_str(), 0) == 0) return true;
  }
  return false;
}

namespace {

std::string language_of(const std::string& path) {
  std::string ext = fs::path(path).extension().string();
  if (ext == ".cl" || ext == ".ocl") return "opencl";
  if (ext == ".cu" || ext == ".cuh") return "cuda";
  if (ext == ".h" || ext == ".hpp") return "header";
  return ext.empty() ? "unknown" : ext.substr(1);
}

class BatchWriter {
 public:
  BatchWriter(Database& db, int64_t source_id, std::string commit, size_t batch_size, ImportSummary& summary)
      : db_(db), source_id_(source_id), commit_(std::move(commit)), batch_size_(batch_size), summary_(summary) {}

  Status add_file(StoredFile f) {
    files_.push_back(std::move(f));
    return maybe_flush();
  }
  Status add_skip(std::string path, std::string reason, std::string detail) {
    ++summary_.skipped[reason];
    skips_.push_back({std::move(path), std::move(reason), std::move(detail)});
    return maybe_flush();
  }
  Status flush() {
    if (files_.empty() && skips_.empty()) return ok_status();
    ASSIGN_OR_RETURN(BatchResult r, store_batch(db_, source_id_, commit_, files_, skips_));
    summary_.new_contents += r.new_contents;
    stored_ += files_.size();
    files_.clear();
    skips_.clear();
    return ok_status();
  }
  size_t stored() const { return stored_; }

 private:
  Status maybe_flush() {
    if (files_.size() + skips_.size() < batch_size_) return ok_status();
    RETURN_IF_ERROR(flush());
    if (interrupted())
      return cancelled("interrupted after storing " + std::to_string(stored_) +
                       " files of this source; rerun to resume");
    return ok_status();
  }

  Database& db_;
  int64_t source_id_;
  std::string commit_;
  size_t batch_size_;
  ImportSummary& summary_;
  std::vector<StoredFile> files_;
  std::vector<SkippedFile> skips_;
  size_t stored_ = 0;
};

// Remembers the include files read while inlining one source: popular
// headers (hashcat's inc_*.cl) are included by thousands of files. Bounded
// by `budget` bytes of cached text; beyond it, reads go to the tree.
class IncludeCache : public SourceTree {
 public:
  IncludeCache(SourceTree& tree, uint64_t budget) : tree_(tree), budget_(budget) {}
  Expected<std::vector<TreeEntry>> list() override { return tree_.list(); }
  Expected<std::string> read(const std::string& path, uint64_t max_bytes) override {
    auto it = texts_.find(path);
    if (it != texts_.end() && it->second.first == max_bytes) return it->second.second;
    auto r = tree_.read(path, max_bytes);
    if (r.ok() && used_ + r->size() <= budget_) {
      used_ += r->size();
      texts_[path] = {max_bytes, *r};
    }
    return r;
  }
  bool is_file(const std::string& path) override {
    auto it = is_file_.find(path);
    if (it != is_file_.end()) return it->second;
    bool f = tree_.is_file(path);
    is_file_[path] = f;
    return f;
  }
  std::string describe() const override { return tree_.describe(); }

 private:
  SourceTree& tree_;
  uint64_t budget_;
  uint64_t used_ = 0;
  std::map<std::string, std::pair<uint64_t, std::string>> texts_;
  std::map<std::string, bool> is_file_;
};

std::string real_or_absolute(const std::string& path) {
  std::optional<std::string> real = real_path(path);
  return real ? *real : fs::absolute(path).lexically_normal().string();
}

// The entries of one tree to import, by how they are read.
struct Selection {
  std::vector<TreeEntry> chosen;  // kernel files (the globs, or the paths asked for)
  std::vector<TreeEntry> hosts;   // host source, scanned for kernel literals
};

// `only_paths` (missing ones become unreadable entries), or else the
// entries the globs match and the host files within the size limit.
Selection select_entries(std::vector<TreeEntry> entries, SourceTree& tree, const ImportOptions& options,
                         const std::optional<std::vector<std::string>>& only_paths) {
  Selection s;
  const bool host_code = options.host_code && !options.embedded_literals;
  auto is_host = [&](const TreeEntry& e) {
    return host_code && e.problem.empty() && host_language(e.path) && !matches_globs(e.path, options.globs);
  };
  if (only_paths) {
    std::map<std::string, TreeEntry> by_path;
    for (auto& e : entries) by_path[e.path] = e;
    for (const auto& p : *only_paths) {
      auto it = by_path.find(p);
      if (it == by_path.end())
        s.chosen.push_back({p, 0, skip_reason::kUnreadable, "not a readable file in " + tree.describe()});
      else if (is_host(it->second)) s.hosts.push_back(it->second);
      else s.chosen.push_back(it->second);
    }
  } else {
    for (auto& e : entries) {
      if (matches_globs(e.path, options.globs)) s.chosen.push_back(std::move(e));
      else if (is_host(e) && e.size <= options.max_host_file_size) s.hosts.push_back(std::move(e));
    }
  }
  return s;
}

// One tree's entries into the store: reading, content checks, include
// inlining and batched storage, counted in `summary`.
class TreeImporter {
 public:
  TreeImporter(Database& db, SourceTree& tree, int64_t source_id, const std::string& commit,
               const ImportOptions& options, const std::vector<TreeEntry>& chosen, ImportSummary& summary)
      : tree_(tree),
        options_(options),
        summary_(summary),
        writer_(db, source_id, commit, std::max<size_t>(1, options.batch_size), summary),
        includes_(tree, 256ull << 20) {
    for (const auto& e : chosen) chosen_paths_.insert(e.path);
  }

  Status import_file(const TreeEntry& e);
  Status import_host_file(const TreeEntry& e);
  Status flush() { return writer_.flush(); }

 private:
  Expected<std::optional<std::string>> read_checked(const TreeEntry& e);
  // Records that `path` is skipped: read_checked's answer for it.
  Expected<std::optional<std::string>> skip(const std::string& path, std::string reason, std::string detail) {
    RETURN_IF_ERROR(writer_.add_skip(path, std::move(reason), std::move(detail)));
    return std::optional<std::string>();
  }
  Status import_embedded(const TreeEntry& e, const std::string& raw);
  Status import_inlined(const TreeEntry& e, std::string raw);
  Status accept(const std::string& path, std::string text, int64_t raw_bytes, const char* role);
  Status store_includes(const std::vector<std::string>& paths);

  SourceTree& tree_;
  const ImportOptions& options_;
  ImportSummary& summary_;
  BatchWriter writer_;
  IncludeCache includes_;
  std::set<std::string> chosen_paths_, stored_includes_;
};

Status TreeImporter::accept(const std::string& path, std::string text, int64_t raw_bytes, const char* role) {
  summary_.bytes_read += raw_bytes;
  summary_.bytes_stored += static_cast<int64_t>(text.size());
  std::string sha = sha256_hex(text);
  return writer_.add_file({std::move(sha), std::move(text), path, language_of(path), role});
}

// Files reached through #include, each stored once per source (a selected
// file is stored in its own right instead).
Status TreeImporter::store_includes(const std::vector<std::string>& paths) {
  for (const auto& p : paths) {
    if (chosen_paths_.count(p) || !stored_includes_.insert(p).second) continue;
    auto text = includes_.read(p, options_.inline_options.max_include_bytes);
    if (!text.ok()) return text.status().with_context("reading included " + p + " again");
    ++summary_.includes_stored;
    int64_t n = static_cast<int64_t>(text->size());
    // Stray Windows-1252 bytes in comments and literals become UTF-8; a
    // header with such bytes in code is stored as found (preprocess refuses it).
    Utf8Text utf8 = c_source_as_utf8(*text);
    if (utf8.problem.empty() && utf8.transcoded) {
      ++summary_.transcoded;
      *text = std::move(utf8.text);
    }
    RETURN_IF_ERROR(accept(p, std::move(*text), n, origin_role::kInclude));
  }
  return ok_status();
}

// The text of a selected entry as UTF-8, or nothing when it is skipped (the
// skip is recorded): a problem of the listing, too large, unreadable,
// binary or empty, or not text.
Expected<std::optional<std::string>> TreeImporter::read_checked(const TreeEntry& e) {
  if (!e.problem.empty()) return skip(e.path, e.problem, e.detail);
  if (e.size > options_.max_file_size) return skip(e.path, skip_reason::kTooLarge, std::to_string(e.size) + " bytes");
  auto raw = tree_.read(e.path, options_.max_file_size);
  if (!raw.ok()) {
    ErrorCode code = raw.status().code();
    const char* reason = code == ErrorCode::kInvalidArgument ? skip_reason::kTooLarge : skip_reason::kUnreadable;
    return skip(e.path, reason, raw.status().message());
  }
  if (std::string problem = binary_or_empty(*raw); !problem.empty()) return skip(e.path, problem, "");
  Utf8Text utf8 = c_source_as_utf8(*raw);
  if (!utf8.problem.empty()) return skip(e.path, skip_reason::kInvalidUtf8, utf8.problem);
  if (utf8.transcoded) {
    ++summary_.transcoded;
    *raw = std::move(utf8.text);
  }
  return std::optional<std::string>(std::move(*raw));
}

// The kernels a header embeds as string literals, each at `path:NAME`.
Status TreeImporter::import_embedded(const TreeEntry& e, const std::string& raw) {
  auto sources = decode_string_literal_sources(raw);
  if (!sources.ok() || sources->empty())
    return writer_.add_skip(e.path, skip_reason::kNoSource, sources.ok() ? "" : sources.status().message());
  int64_t raw_bytes = static_cast<int64_t>(raw.size());  // counted once per header
  for (auto& s : *sources) {
    std::string problem = content_problem(s.text);
    std::string path = e.path + ":" + s.name;
    if (!problem.empty()) {
      RETURN_IF_ERROR(writer_.add_skip(path, problem, "decoded string literal"));
      continue;
    }
    ++summary_.accepted;
    RETURN_IF_ERROR(accept(path, std::move(s.text), raw_bytes, origin_role::kKernel));
    raw_bytes = 0;
  }
  return ok_status();
}

// A kernel file with its includes inlined; the included files are stored too.
Status TreeImporter::import_inlined(const TreeEntry& e, std::string raw) {
  ASSIGN_OR_RETURN(InlineResult inl, inline_includes(includes_, e.path, raw, options_.inline_options));
  summary_.includes_inlined += inl.inlined;
  summary_.includes_unresolved += inl.unresolved;
  summary_.includes_refused += inl.refused;
  summary_.include_cycles += inl.cycles;
  summary_.includes_substituted += inl.substituted;
  if (inl.too_large) {
    return writer_.add_skip(
        e.path, skip_reason::kTooLargeInlined,
        "over " + std::to_string(options_.inline_options.max_output_bytes) + " bytes after inlining");
  }
  ++summary_.accepted;
  const char* role = mentions_kernel(raw) ? origin_role::kKernel : origin_role::kInclude;
  int64_t n = static_cast<int64_t>(raw.size());
  RETURN_IF_ERROR(accept(e.path, std::move(raw), n, role));
  return store_includes(inl.included_paths);
}

Status TreeImporter::import_file(const TreeEntry& e) {
  ASSIGN_OR_RETURN(std::optional<std::string> raw, read_checked(e));
  if (!raw) return ok_status();
  if (options_.embedded_literals) return import_embedded(e, *raw);
  return import_inlined(e, std::move(*raw));
}

// A host file is read and scanned once; its kernel literals are stored as
// kernels at the host file's path with their lines. A host file without one
// leaves no row (most C and Java files of a repository).
Status TreeImporter::import_host_file(const TreeEntry& e) {
  auto raw = tree_.read(e.path, options_.max_host_file_size);
  if (!raw.ok() || !binary_or_empty(*raw).empty() || !mentions_kernel(*raw)) return ok_status();
  ++summary_.host_files_read;
  summary_.bytes_read += static_cast<int64_t>(raw->size());
  std::string code = is_valid_utf8(*raw) ? std::move(*raw) : windows1252_to_utf8(*raw);
  HostScan scan = extract_host_kernels(code, *host_language(e.path));
  summary_.host_templates += scan.templates;
  for (HostKernel& k : scan.kernels) {
    if (!binary_or_empty(k.text).empty() || k.text.size() > options_.max_file_size) continue;
    ++summary_.host_kernels;
    ++summary_.accepted;
    summary_.bytes_stored += static_cast<int64_t>(k.text.size());
    std::string sha = sha256_hex(k.text);
    StoredFile f{std::move(sha), std::move(k.text), e.path, "opencl", origin_role::kKernel};
    f.line_first = k.first_line;
    f.line_last = k.last_line;
    RETURN_IF_ERROR(writer_.add_file(std::move(f)));
  }
  return ok_status();
}

}  // namespace

Expected<ImportSummary> import_tree(Database& db, SourceTree& tree, const SourceInfo& source, const std::string& commit,
                                    const ImportOptions& options,
                                    const std::optional<std::vector<std::string>>& only_paths) {
  ImportSummary summary;
  RETURN_IF_ERROR(ensure_corpus_schema(db));
  if (!commit.empty() && !options.reimport) {
    ASSIGN_OR_RETURN(std::optional<std::string> done, imported_commit(db, source.key));
    if (done && *done == commit) {
      summary.unchanged_sources = 1;
      return summary;
    }
  }
  ASSIGN_OR_RETURN(int64_t source_id, upsert_source(db, source));
  ASSIGN_OR_RETURN(std::vector<TreeEntry> entries, tree.list());
  const Selection selected = select_entries(std::move(entries), tree, options, only_paths);
  summary.candidates = static_cast<int64_t>(selected.chosen.size());
  Progress progress("import " + (source.name.empty() ? source.key : source.name),
                    selected.chosen.size() + selected.hosts.size(), nullptr, options.progress ? -1 : 0);
  TreeImporter importer(db, tree, source_id, commit, options, selected.chosen, summary);
  for (const TreeEntry& e : selected.chosen) {
    progress.advance();
    RETURN_IF_ERROR(importer.import_file(e));
  }
  for (const TreeEntry& e : selected.hosts) {
    progress.advance();
    RETURN_IF_ERROR(importer.import_host_file(e));
  }
  RETURN_IF_ERROR(importer.flush());
  progress.finish();
  RETURN_IF_ERROR(mark_source_imported(db, source_id, commit));
  return summary;
}

Expected<ImportSummary> import_path(Database& db, const std::string& path, const ImportOptions& options,
                                    const std::string& manifest) {
  std::error_code ec;
  fs::file_status st = fs::status(path, ec);
  if (ec || !fs::exists(st)) return not_found("adding " + path + ": no such file or directory");
  std::string real = real_or_absolute(path);
  if (fs::is_regular_file(st) && is_archive_path(real)) return import_archive(db, real, options, manifest);
  if (fs::is_directory(st) && !manifest.empty()) return import_snapshot_directory(db, real, options, manifest);
  if (!manifest.empty())
    return usage_error("adding " + path + ": --manifest applies to archives and snapshot directories only");
  SourceInfo source;
  source.name = fs::path(real).filename().string();
  if (fs::is_directory(st) && is_git_repository(real)) {
    ASSIGN_OR_RETURN(auto tree, open_git_tree(real));
    ASSIGN_OR_RETURN(std::string commit, git_head_commit(real));
    source.key = "git:" + real;
    source.kind = "git";
    source.clone_url = real;
    auto r = import_tree(db, *tree, source, commit, options);
    if (!r.ok()) return r.status().with_context("adding " + path);
    return r;
  }
  if (fs::is_directory(st)) {
    ASSIGN_OR_RETURN(auto tree, open_directory_tree(real));
    source.key = "dir:" + real;
    source.kind = "directory";
    auto r = import_tree(db, *tree, source, "", options);
    if (!r.ok()) return r.status().with_context("adding " + path);
    return r;
  }
  // A single file: its directory bounds what its includes may read.
  ASSIGN_OR_RETURN(auto tree, open_directory_tree(fs::path(real).parent_path().string()));
  source.key = "file:" + real;
  source.kind = "file";
  auto r = import_tree(db, *tree, source, "", options, std::vector<std::string>{fs::path(real).filename().string()});
  if (!r.ok()) return r.status().with_context("adding " + path);
  return r;
}

}  // namespace clgen::corpus
