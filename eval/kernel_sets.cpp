// Reading the report's kernel sets (kernel_sets.h).
#include "eval/kernel_sets.h"

#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <future>
#include <mutex>
#include <unordered_set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "corpus/preprocess/catalog.h"
#include "corpus/preprocess/local_source.h"
#include "model/store.h"
#include "sampler/catalog.h"
#include "support/files.h"
#include "support/progress.h"
#include "support/sha256.h"
#include "support/thread_pool.h"

namespace clgen::realism {
namespace {

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// POSIX, not std::filesystem: clgen may share its process with LibTorch,
// which interposes some std::filesystem functions (support/files.h).
Status walk(const std::string& path, std::vector<std::string>& out) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return not_found(fmt::format("{}: no such file or directory", path));
  if (!S_ISDIR(st.st_mode)) {
    out.push_back(path);
    return ok_status();
  }
  DIR* dir = ::opendir(path.c_str());
  if (!dir) return io_error(fmt::format("{}: cannot open the directory", path));
  std::vector<std::string> names;
  while (dirent* e = ::readdir(dir)) {
    std::string name = e->d_name;
    if (name != "." && name != "..") names.push_back(name);
  }
  ::closedir(dir);
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    std::string child = path + "/" + name;
    struct stat cs {};
    if (::lstat(child.c_str(), &cs) != 0 || S_ISLNK(cs.st_mode)) continue;  // links are not followed
    if (S_ISDIR(cs.st_mode)) {
      RETURN_IF_ERROR(walk(child, out));
    } else if (S_ISREG(cs.st_mode) && ends_with(name, ".cl")) {
      out.push_back(child);
    }
  }
  return ok_status();
}

// The files of `paths` with the directory each was found under (its include root).
Expected<std::vector<std::pair<std::string, std::string>>> list_files(const std::vector<std::string>& paths) {
  std::vector<std::pair<std::string, std::string>> files;
  for (const std::string& p : paths) {
    std::vector<std::string> found;
    RETURN_IF_ERROR(walk(p, found));
    struct stat st {};
    bool is_dir = ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
    for (auto& f : found) {
      std::string root = is_dir ? p : (f.rfind('/') == std::string::npos ? "." : f.substr(0, f.rfind('/')));
      files.emplace_back(std::move(f), root);
    }
  }
  return files;
}

}  // namespace

bool KernelSet::add(std::string text, std::string origin) {
  if (std::find(texts.begin(), texts.end(), text) != texts.end()) {
    ++duplicates;
    return false;
  }
  texts.push_back(std::move(text));
  origins.push_back(std::move(origin));
  return true;
}

Expected<KernelSet> normalize_files(const std::vector<std::string>& paths, const NormalizeOptions& options) {
  ASSIGN_OR_RETURN(auto files, list_files(paths));
  unsigned n = options.workers ? options.workers : std::max(1u, std::thread::hardware_concurrency());
  // Each file's verdict in order, so the set does not depend on scheduling.
  struct Result {
    Status status;
    preprocess::FileRewriteResult rewrite;
  };
  std::vector<Result> results(files.size());
  {
    preprocess::ClangWorkers workers(options.budget, n);
    std::unique_ptr<Progress> progress;
    if (options.progress) progress = std::make_unique<Progress>("normalize", files.size());
    ThreadPool pool(n);  // after `workers`: its threads end first, and with them the workers they started
    std::vector<std::future<void>> done;
    for (size_t i = 0; i < files.size(); ++i) {
      done.push_back(pool.submit([&, i] {
        Expected<preprocess::LocalSource> src =
            preprocess::read_local_source(files[i].first, {{files[i].second}, {}}, 64 * preprocess::kMaxInputBytes);
        if (!src) {
          results[i].status = src.status();
        } else {
          Expected<preprocess::FileRewriteResult> r = workers.rewrite_kernels(src->text, options.compile);
          if (r) {
            results[i].rewrite = std::move(*r);
          } else {
            results[i].status = r.status();
          }
        }
        if (progress) progress->advance();
      }));
    }
    for (auto& f : done) f.get();
  }
  KernelSet set;
  for (size_t i = 0; i < files.size(); ++i) {
    ++set.files;
    const Result& r = results[i];
    if (!r.status.ok()) {
      // A file that cannot be read is an input error; one that no worker took is a set-up error.
      return r.status.with_context(files[i].first);
    }
    if (r.rewrite.status != preprocess::RewriteStatus::kOk) {
      ++set.rejected;
      continue;
    }
    for (const preprocess::RewriteResult& k : r.rewrite.kernels) {
      if (k.status != preprocess::RewriteStatus::kOk) {
        ++set.rejected;
        continue;
      }
      set.add(k.text, files[i].first + ":" + k.kernel_name);
    }
  }
  return set;
}

Expected<KernelSet> read_files(const std::vector<std::string>& paths) {
  ASSIGN_OR_RETURN(auto files, list_files(paths));
  KernelSet set;
  for (const auto& [path, root] : files) {
    ASSIGN_OR_RETURN(std::string text, read_file(path, preprocess::kMaxInputBytes));
    ++set.files;
    set.add(std::move(text), path);
  }
  return set;
}

Expected<KernelSet> read_export(const std::string& path, bool passing_only) {
  ASSIGN_OR_RETURN(std::string data, read_file(path, uint64_t(1) << 30));
  std::vector<std::pair<nlohmann::json, size_t>> items;  // item, line
  size_t first = data.find_first_not_of(" \t\r\n");
  try {
    if (first != std::string::npos && data[first] == '[') {
      nlohmann::json all = nlohmann::json::parse(data);
      for (auto& item : all) items.emplace_back(std::move(item), 0);
    } else {
      size_t line = 0;
      for (size_t start = 0; start < data.size();) {
        size_t end = data.find('\n', start);
        if (end == std::string::npos) end = data.size();
        ++line;
        std::string text = data.substr(start, end - start);
        start = end + 1;
        if (text.find_first_not_of(" \t\r") == std::string::npos) continue;
        try {
          items.emplace_back(nlohmann::json::parse(text), line);
        } catch (const nlohmann::json::exception& e) {
          return parse_error(fmt::format("{}: line {}: {}", path, line, e.what()));
        }
      }
    }
  } catch (const nlohmann::json::exception& e) {
    return parse_error(fmt::format("{}: {}", path, e.what()));
  }
  KernelSet set;
  set.files = 1;
  size_t index = 0;
  for (const auto& [item, line] : items) {
    ++index;
    std::string where = line ? fmt::format("{}: line {}", path, line) : fmt::format("{}: item {}", path, index);
    std::string text;
    if (item.is_string()) {
      if (passing_only) continue;  // no outcome
      text = item.get<std::string>();
    } else if (item.is_object()) {
      const char* key = item.contains("text") ? "text" : item.contains("normalized_text") ? "normalized_text" : nullptr;
      if (!key || !item[key].is_string()) return parse_error(where + ": an object without a \"text\" string");
      if (passing_only && !(item.contains("outcome") && item["outcome"] == "pass")) continue;
      text = item[key].get<std::string>();
    } else {
      return parse_error(where + ": neither a string nor an object");
    }
    set.add(std::move(text), where);
  }
  return set;
}

Expected<KernelSet> accepted_samples(Database& db) {
  ASSIGN_OR_RETURN(std::vector<std::string> texts, sampler::accepted_sample_texts(db));
  KernelSet set;
  for (auto& t : texts) set.add(std::move(t), "accepted");
  return set;
}

Expected<KernelSet> benchmark_grade_files(const std::string& workspace_root) {
  std::string dir = workspace_root + "/benchmark-grade";
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode))
    return not_found(fmt::format("{}: no benchmark-grade kernels (clgen sample --check writes them)", dir));
  ASSIGN_OR_RETURN(KernelSet set, read_files({dir}));
  if (set.texts.empty()) return not_found(fmt::format("{}: no .cl file", dir));
  return set;
}

Expected<HumanSplit> held_out_split(Database& db, const model::TrainingConfig& training) {
  ASSIGN_OR_RETURN(model::TrainingTexts t, model::read_training_set(db, training));
  if (t.held_out == 0)
    return invalid_argument("the config holds out no repositories (validation_split = \"repository\" does)");
  HumanSplit split;
  split.repositories = t.held_out_repositories;
  const size_t first_held = t.texts.size() - t.held_out;
  for (size_t i = 0; i < t.texts.size(); ++i) {
    std::string origin = i < t.sha256.size() ? "corpus:" + t.sha256[i] : "corpus";
    (i < first_held ? split.training : split.held_out).add(t.texts[i], origin);
  }
  return split;
}

Expected<HumanSplit> benchmark_grade_split(Database& db, HumanSplit split) {
  ASSIGN_OR_RETURN(bool has_runs, db.has_table("runs"));
  if (!has_runs)
    return not_found("the workspace has no runs: drive the corpus through the checker first (clgen drive --corpus)");
  std::unordered_set<std::string> passed;
  ASSIGN_OR_RETURN(Statement st, db.prepare("SELECT DISTINCT kernel_sha256 FROM runs WHERE outcome = 'pass'"));
  while (true) {
    ASSIGN_OR_RETURN(bool row, st.step());
    if (!row) break;
    passed.insert(st.column_text(0));
  }
  auto keep = [&passed](KernelSet& set) {
    KernelSet graded;
    graded.files = set.files;
    for (size_t i = 0; i < set.texts.size(); ++i)
      if (passed.count(sha256_hex(set.texts[i]))) graded.add(std::move(set.texts[i]), std::move(set.origins[i]));
    set = std::move(graded);
  };
  keep(split.training);
  keep(split.held_out);
  return split;
}

Expected<KernelSet> corpus_texts(Database& db) {
  KernelSet set;
  ASSIGN_OR_RETURN(bool has, preprocess::has_preprocessed_corpus(db));
  if (!has) return set;
  ASSIGN_OR_RETURN(std::vector<std::string> texts, model::read_training_texts(db));
  for (auto& t : texts) set.add(std::move(t), "corpus");
  return set;
}

}  // namespace clgen::realism
