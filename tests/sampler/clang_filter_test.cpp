// The sample filter's Clang part under the Clang budget (sampler/clang_filter.h):
// the verdicts in a clgen-clang-worker equal those in this process, and a
// sample that exceeds the budget is a rejection, not a hang.
#include "sampler/clang_filter.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include <gtest/gtest.h>

#include "sampler/arg_spec.h"
#include "sampler/store.h"
#include "support/files.h"

namespace clgen::sampler {
namespace {

namespace fs = std::filesystem;

// The sampled kernels of tests/data/sampler (the e2e corpus) and the model's
// test kernels, in name order.
std::vector<std::string> real_kernels() {
  std::vector<std::string> paths;
  for (const char* dir : {"/sampler/corpus", "/model"})
    for (const auto& e : fs::directory_iterator(std::string(CLGEN_TEST_DATA) + dir))
      if (e.path().extension() == ".cl") paths.push_back(e.path().string());
  std::sort(paths.begin(), paths.end());
  std::vector<std::string> texts;
  for (const std::string& p : paths) {
    auto text = read_file(p);
    EXPECT_TRUE(text.ok()) << p;
    if (text.ok()) texts.push_back(*text);
  }
  return texts;
}

void expect_same(const ClangFilterVerdict& there, const ClangFilterVerdict& here, const std::string& text) {
  EXPECT_EQ(there.status, here.status) << text;
  EXPECT_EQ(there.category, here.category) << text;
  EXPECT_EQ(there.reason, here.reason) << text;
  EXPECT_EQ(there.normalized_text, here.normalized_text) << text;
  EXPECT_EQ(there.instruction_count, here.instruction_count) << text;
  EXPECT_EQ(there.features, here.features) << text;
}

TEST(ClangFilter, VerdictsInAWorkerEqualThoseInThisProcessOnRealKernels) {
  std::vector<std::string> texts = real_kernels();
  ASSERT_GE(texts.size(), 20u);
  // Samples as the model writes them: with --args the seed's prototype, and
  // a body that compiles, one that does not, and one that writes nothing.
  const std::string prototype = *seed_text("float*,float*,float*,int");
  texts.push_back(prototype + "\n  int e = get_global_id(0);\n  c[e] = a[e] + b[e] * d;\n}");
  texts.push_back(prototype + "\n  c[0] = missing_function(a[0]);\n}");
  texts.push_back(prototype + "\n  c[d] = a[d] + b[d];\n}");  // every work-item writes c[d]
  preprocess::ClangWorkers workers(default_filter_budget(), 1);
  std::set<std::string> statuses;
  size_t featured = 0;
  for (bool with_prototype : {false, true}) {
    ClangFilterOptions options;
    options.features = true;
    if (with_prototype) options.prototype = prototype;
    for (const std::string& text : texts) {
      ClangFilterVerdict here = filter_with_clang(text, options);
      auto there = filter_with_clang(workers, text, options);
      ASSERT_TRUE(there.ok()) << there.status().message();
      expect_same(*there, here, text);
      statuses.insert(here.status + "/" + here.category);
      if (here.features) ++featured;
    }
  }
  // Every part of the verdict was compared on some kernel: accepted ones
  // with features, compile rejections, useless kernels, wrong prototypes.
  EXPECT_GE(featured, 10u);
  EXPECT_TRUE(statuses.count(std::string(sample_status::kAccepted) + "/")) << statuses.size();
  EXPECT_TRUE(
      statuses.count(std::string(sample_status::kRejected) + "/" + preprocess::category::kUndeclaredIdentifier));
  EXPECT_TRUE(statuses.count(std::string(sample_status::kRejected) + "/uniform_store_address"));
  EXPECT_TRUE(statuses.count(std::string(sample_status::kWrongPrototype) + "/wrong_prototype"));
  EXPECT_EQ(workers.started(), 1);  // one worker served them all
}

TEST(ClangFilter, PrototypeShapesCompareWithoutNames) {
  EXPECT_EQ(prototype_shape("__kernel void A(__global float* a, const int b) {"),
            prototype_shape("__kernel void C(__global float* d, const int e) {"));
  EXPECT_NE(prototype_shape("__kernel void A(__global float* a, const int b) {"),
            prototype_shape("__kernel void A(__global int* a, const int b) {"));
  EXPECT_NE(prototype_shape("__kernel void A(__global float* a) {"),
            prototype_shape("__kernel void A(__global float* a, const int b) {"));
}

// A whole text with --args: a helper before the kernel takes the first
// names, so the kernel is renamed, and its prototype still matches.
TEST(ClangFilter, AKernelAfterAHelperMatchesTheArgsPrototype) {
  ClangFilterOptions options;
  options.prototype = *seed_text("float*,int");
  const std::string text =
      "float A(float a) { return a * 2.0f; }\n"
      "__kernel void B(__global float* b, const int c) {\n  int d = get_global_id(0);\n"
      "  if (d < c) b[d] = A(b[d]);\n}\n";
  ClangFilterVerdict v = filter_with_clang(text, options);
  EXPECT_EQ(sample_status::kAccepted, v.status) << v.category << ": " << v.reason;
  options.prototype = *seed_text("int*,int");
  EXPECT_EQ(sample_status::kWrongPrototype, filter_with_clang(text, options).status);
}

TEST(ClangFilter, MacroBombIsATimeLimitRejectionAndTheNextSampleIsFiltered) {
  auto bomb = read_file(std::string(CLGEN_TEST_DATA) + "/budget/time_bomb.cl");
  ASSERT_TRUE(bomb.ok());
  preprocess::ClangBudget budget = default_filter_budget();
  budget.time_limit_s = 2;
  preprocess::ClangWorkers workers(budget, 1);
  auto r = filter_with_clang(workers, *bomb, {});
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ(r->status, sample_status::kRejected);
  EXPECT_EQ(r->category, preprocess::category::kTimeLimit);
  EXPECT_NE(r->reason.find("2 s time limit"), std::string::npos) << r->reason;
  EXPECT_TRUE(r->normalized_text.empty());
  auto next = filter_with_clang(workers, "__kernel void k(__global int* a) { a[get_global_id(0)] *= 3; }", {});
  ASSERT_TRUE(next.ok()) << next.status().message();
  EXPECT_EQ(next->status, sample_status::kAccepted) << next->reason;
  EXPECT_EQ(workers.started(), 2);  // the bomb's worker was killed and replaced
}

TEST(ClangFilter, AWorkerThatCannotStartIsAnErrorNotASamplesVerdict) {
  preprocess::ClangBudget budget = default_filter_budget();
  budget.worker_binary = "/nonexistent/clgen-clang-worker";
  preprocess::ClangWorkers workers(budget, 1);
  auto r = filter_with_clang(workers, "__kernel void k(__global int* a) { a[0] = 1; }", {});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kUnavailable);
  EXPECT_NE(r.status().message().find("/nonexistent/clgen-clang-worker"), std::string::npos) << r.status().message();
}

}  // namespace
}  // namespace clgen::sampler
