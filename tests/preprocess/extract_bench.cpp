// extract_bench FILE...: measures kernel extraction on real files (not a
// test; built beside the tests). Per file: does it compile, how many kernels
// are extracted, does each compile alone, what rewrite_kernels makes of it,
// and the bytes of the file (and of its expansion) vs the sum of its
// extracted kernels. `extract_bench --dump FILE` prints one file's kernels;
// `extract_bench --inline REPO/PATH...` first inlines each file's includes
// from its repository (the first path component), as the corpus importer does;
// `--define NAME` (after --inline) puts `#define NAME` before each file. Prints a
// summary with failure categories and one example path each.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "corpus/inliner.h"
#include "corpus/preprocess/preprocess.h"
#include "support/files.h"

namespace pp = clgen::preprocess;

namespace {

// Counts by category, with the first three examples of each.
struct Tally {
  std::map<std::string, int> count;
  std::map<std::string, std::vector<std::string>> examples;
  void add(const std::string& key, const std::string& where) {
    if (count[key]++ < 3) examples[key].push_back(where);
  }
  void print(const char* title) const {
    std::printf("%s\n", title);
    for (const auto& [k, n] : count) {
      std::printf("  %6d  %s\n", n, k.c_str());
      for (const std::string& e : examples.at(k)) std::printf("          e.g. %s\n", e.c_str());
    }
  }
};

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')).substr(0, 160); }

}  // namespace

int main(int argc, char** argv) {
  if (argc == 3 && std::string(argv[1]) == "--dump") {  // the expanded file's extracted kernels
    auto text = clgen::read_file(argv[2], 64 * pp::kMaxInputBytes);
    if (!text) return 1;
    auto expanded = pp::expand_main_file(*text);
    if (!expanded) return std::printf("%s\n", expanded.status().message().c_str()), 1;
    auto ks = pp::extract_kernels(*expanded);
    if (!ks) return std::printf("%s\n", ks.status().message().c_str()), 1;
    for (const auto& k : *ks) std::printf("// kernel: %s\n%s", k.name.c_str(), k.text.c_str());
    return 0;
  }
  pp::CompileOptions check;
  check.check_only = true;
  int first = 1;
  bool inline_includes = argc > 1 && std::string(argv[1]) == "--inline";
  if (inline_includes) first = 2;
  std::string prefix;  // --define NAME: "#define NAME" before each file (hashcat's KERNEL_STATIC)
  while (first + 1 < argc && std::string(argv[first]) == "--define") {
    prefix += std::string("#define ") + argv[first + 1] + "\n";
    first += 2;
  }
  std::map<std::string, std::unique_ptr<clgen::corpus::SourceTree>> trees;
  int files = 0, compiled = 0, with_kernels = 0;
  long kernels = 0, alone_ok = 0, rewritten_ok = 0;
  long bytes_expanded = 0, bytes_files = 0, bytes_extracted = 0, bytes_rewritten = 0, kernel_files_bytes = 0;
  std::vector<double> ratios;  // kernel bytes / expanded file bytes, files of 2+ kernels
  int multi_kernel_files = 0;
  Tally file_rejects, extract_failures, alone_failures, kernel_statuses, file_statuses;
  auto t0 = std::chrono::steady_clock::now();
  for (int i = first; i < argc; ++i) {
    std::string path = argv[i];
    auto text = clgen::read_file(path, 64 * pp::kMaxInputBytes);
    if (!text) continue;
    *text = prefix + *text;
    if (inline_includes) {
      std::string repo = path.substr(0, path.find('/'));
      auto& tree = trees[repo];
      if (!tree) {
        auto t = clgen::corpus::open_directory_tree(repo);
        if (!t) continue;
        tree = std::move(*t);
      }
      auto inlined = clgen::corpus::inline_includes(*tree, path.substr(repo.size() + 1), *text);
      if (!inlined) continue;
      *text = std::move(inlined->text);
    }
    ++files;
    bytes_files += static_cast<long>(text->size());
    pp::CompileResult whole = pp::compile(*text, check);
    if (!whole.ok) {
      file_rejects.add(whole.category, path + ": " + first_line(whole.reason));
    } else {
      ++compiled;
      pp::CompileOptions opts;
      opts.shim = whole.used_shim;
      auto expanded = pp::expand_main_file(*text, opts);
      auto ks = expanded ? pp::extract_kernels(*expanded, opts)
                         : clgen::Expected<std::vector<pp::ExtractedKernel>>(expanded.status());
      if (!ks) {
        extract_failures.add("extract_failed", path + ": " + first_line(ks.status().message()));
      } else {
        if (!ks->empty()) {
          ++with_kernels;
          bytes_expanded += static_cast<long>(expanded->size());
          kernel_files_bytes += static_cast<long>(text->size());
        }
        if (ks->size() > 1) ++multi_kernel_files;
        for (const pp::ExtractedKernel& k : *ks) {
          if (ks->size() > 1) ratios.push_back(static_cast<double>(k.text.size()) / expanded->size());
          ++kernels;
          bytes_extracted += static_cast<long>(k.text.size());
          pp::CompileResult alone = pp::compile(k.text, check);
          if (alone.ok) {
            ++alone_ok;
          } else {
            alone_failures.add(alone.category, path + " " + k.name + ": " + first_line(alone.reason));
          }
        }
      }
    }
    pp::FileRewriteResult r = pp::rewrite_kernels(*text);
    file_statuses.add(std::string(pp::rewrite_status_name(r.status)) +
                          (r.status == pp::RewriteStatus::kOk ? "" : " " + r.category),
                      path + ": " + first_line(r.reason));
    for (const pp::RewriteResult& k : r.kernels) {
      kernel_statuses.add(std::string(pp::rewrite_status_name(k.status)) +
                              (k.status == pp::RewriteStatus::kOk ? "" : " " + k.category),
                          path + " " + k.kernel_name + ": " + first_line(k.reason));
      if (k.status == pp::RewriteStatus::kOk) {
        ++rewritten_ok;
        bytes_rewritten += static_cast<long>(k.text.size());
      }
    }
  }
  double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("files %d, compile %d, with kernels %d; kernels extracted %ld, compile alone %ld, "
              "ok after rewrite_kernels %ld\n",
              files, compiled, with_kernels, kernels, alone_ok, rewritten_ok);
  std::printf("bytes: all files %ld, files with kernels %ld (expanded %ld), extracted kernels %ld "
              "(%.2fx the expanded files), rewritten ok kernels %ld\n",
              bytes_files, kernel_files_bytes, bytes_expanded, bytes_extracted,
              bytes_expanded ? static_cast<double>(bytes_extracted) / bytes_expanded : 0.0, bytes_rewritten);
  std::sort(ratios.begin(), ratios.end());
  if (!ratios.empty()) {
    double sum = 0;
    for (double r : ratios) sum += r;
    std::printf("files of 2+ kernels %d (%zu kernels): kernel text / expanded file text: mean %.2f, "
                "median %.2f, 10th percentile %.2f, 90th %.2f\n",
                multi_kernel_files, ratios.size(), sum / ratios.size(), ratios[ratios.size() / 2],
                ratios[ratios.size() / 10], ratios[ratios.size() * 9 / 10]);
  }
  std::printf("time %.1f s\n", secs);
  file_rejects.print("files rejected by compile (check only):");
  extract_failures.print("extraction failures:");
  alone_failures.print("extracted kernels that do not compile alone:");
  file_statuses.print("rewrite_kernels, per file:");
  kernel_statuses.print("rewrite_kernels, per kernel:");
  return 0;
}
