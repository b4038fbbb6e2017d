// Not a test: what a config's corpus selection gives on a workspace, in
// characters of distinct, decontaminated normalized text (each kernel is
// counted once: the corpus holds one row per normalized_sha256).
//
//   selection_bench WORKSPACE/clgen.db CONFIG.toml [KEY=VALUE...]
//
// KEY is one of the selection keys of [training]: max_file_chars,
// max_kernels_per_repository, max_repository_chars, max_repository_share,
// opencl20, default_corpus, host_code, validation_split. Prints the kernels
// and characters selected, those the model trains on (without the held-out
// repositories), the characters by source and the largest repositories'
// shares.
#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "model/config.h"
#include "model/store.h"
#include "support/sqlite.h"

namespace {

using namespace clgen;
using namespace clgen::model;

bool set_key(TrainingConfig& t, const std::string& kv) {
  size_t eq = kv.find('=');
  if (eq == std::string::npos) return false;
  const std::string k = kv.substr(0, eq), v = kv.substr(eq + 1);
  const bool b = v == "true" || v == "1";
  if (k == "max_file_chars") t.max_file_chars = std::stoll(v);
  else if (k == "max_kernels_per_repository") t.max_kernels_per_repository = std::stoll(v);
  else if (k == "max_repository_chars") t.max_repository_chars = std::stoll(v);
  else if (k == "max_repository_share") t.max_repository_share = std::stod(v);
  else if (k == "opencl20") t.opencl20 = b;
  else if (k == "default_corpus") t.default_corpus = b;
  else if (k == "host_code") t.host_code = b;
  else if (k == "validation_split") t.validation_split = v;
  else return false;
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: selection_bench WORKSPACE/clgen.db CONFIG.toml [KEY=VALUE...]\n");
    return 2;
  }
  auto config = load_model_config(argv[2]);
  if (!config) {
    std::fprintf(stderr, "%s\n", config.status().message().c_str());
    return 1;
  }
  TrainingConfig& t = config->training;
  for (int i = 3; i < argc; ++i)
    if (!set_key(t, argv[i])) {
      std::fprintf(stderr, "unknown or malformed KEY=VALUE: %s\n", argv[i]);
      return 2;
    }
  auto db = Database::open(argv[1]);
  if (!db) {
    std::fprintf(stderr, "%s\n", db.status().message().c_str());
    return 1;
  }
  auto kernels = read_corpus_kernels(*db, t.max_file_chars, t.opencl20);
  if (!kernels) {
    std::fprintf(stderr, "%s\n", kernels.status().message().c_str());
    return 1;
  }
  std::map<std::string, const CorpusKernel*> by_hash;
  for (const CorpusKernel& k : *kernels) by_hash[k.sha256] = &k;
  TrainingTexts set = select_training_texts(*kernels, t);
  const size_t training = set.texts.size() - set.held_out;
  long long chars = 0, train_chars = 0, from_default = 0, from_host = 0;
  std::map<std::string, long long> per_repo, per_repo_train;
  for (size_t i = 0; i < set.texts.size(); ++i) {
    const CorpusKernel& k = *by_hash.at(set.sha256[i]);
    const long long n = (long long)k.text.size();
    chars += n;
    per_repo[k.repository] += n;
    if (i < training) {
      train_chars += n;
      per_repo_train[k.repository] += n;
    }
    if (k.repository.rfind("package:", 0) == 0) from_default += n;
    if (k.host_code) from_host += n;
  }
  std::printf(
      "kernels read %zu; selected %zu (%lld chars); training %zu (%lld chars); held out %zu kernels of %zu "
      "repositories\n",
      kernels->size(), set.texts.size(), chars, training, train_chars, set.held_out, set.held_out_repositories.size());
  std::printf("chars by source: default corpus %lld, host code %lld, other %lld\n", from_default, from_host,
              chars - from_default - from_host);
  long long capped = 0;
  for (const auto& m : {set.capped, set.chars_capped, set.share_capped, set.domain_capped})
    for (const auto& [repo, n] : m) capped += n;
  std::printf("kernels left out by caps %lld; share cap %lld chars; left out: default corpus %lld, host code %lld\n",
              capped, (long long)set.share_cap_chars, (long long)set.left_out_default_corpus,
              (long long)set.left_out_host_code);
  std::vector<std::pair<long long, std::string>> top;
  for (const auto& [repo, n] : per_repo_train) top.emplace_back(n, repo);
  std::sort(top.rbegin(), top.rend());
  std::printf("repositories in training %zu; largest shares of the training text:", top.size());
  for (size_t i = 0; i < top.size() && i < 5; ++i)
    std::printf(" %s %.1f%% (of all selected %.1f%%)", top[i].second.c_str(), 100.0 * top[i].first / train_chars,
                100.0 * per_repo[top[i].second] / chars);
  std::printf("\nheld-out repositories:");
  for (const std::string& repo : set.held_out_repositories) std::printf(" %s", repo.c_str());
  std::printf("\n");
  return 0;
}
