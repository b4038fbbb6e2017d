// Tests of kernel extraction (extract_kernels) and the per-kernel rewriter
// (rewrite_kernels): golden source-in/source-out files, every extracted
// kernel compiling alone, per-kernel statuses and idempotence.
#include <algorithm>
#include <filesystem>
#include <future>

#include <gtest/gtest.h>

#include "corpus/inliner.h"
#include "corpus/preprocess/preprocess.h"
#include "support/files.h"
#include "tests/preprocess/golden.h"

namespace clgen::preprocess {
namespace {

using clgen::testing::expect_golden;
using clgen::testing::golden_dir;
using clgen::testing::golden_inputs;

std::string read(const std::string& path) {
  auto r = read_file(path);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r ? *r : std::string();
}

// expand_main_file + extract_kernels, each kernel under a "// kernel: NAME"
// line (the golden files' form).
std::string extract_listing(const std::string& text) {
  Expected<std::string> expanded = expand_main_file(text);
  if (!expanded) return "ERROR: " + expanded.status().message() + "\n";
  Expected<std::vector<ExtractedKernel>> kernels = extract_kernels(*expanded);
  if (!kernels) return "ERROR: " + kernels.status().message() + "\n";
  std::string out;
  for (const ExtractedKernel& k : *kernels) out += "// kernel: " + k.name + "\n" + k.text;
  return out;
}

std::vector<ExtractedKernel> extract_or_fail(const std::string& text) {
  Expected<std::string> expanded = expand_main_file(text);
  EXPECT_TRUE(expanded.ok()) << expanded.status().message();
  if (!expanded) return {};
  Expected<std::vector<ExtractedKernel>> kernels = extract_kernels(*expanded);
  EXPECT_TRUE(kernels.ok()) << kernels.status().message();
  return kernels ? *kernels : std::vector<ExtractedKernel>{};
}

const ExtractedKernel* find(const std::vector<ExtractedKernel>& ks, const std::string& name) {
  for (const ExtractedKernel& k : ks) {
    if (k.name == name) return &k;
  }
  return nullptr;
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(ExtractKernels, GoldenFiles) {
  std::vector<std::string> inputs = golden_inputs("extract");
  ASSERT_FALSE(inputs.empty());
  for (const std::string& in : inputs) {
    SCOPED_TRACE(in);
    std::string actual = extract_listing(read(in));
    expect_golden(in, actual);
  }
}

TEST(ExtractKernels, KeepsWhatTheKernelUsesAndDropsTheRest) {
  std::vector<ExtractedKernel> ks = extract_or_fail(read(golden_dir("extract") + "/uses_and_drops.cl"));
  ASSERT_EQ(ks.size(), 1u);
  const std::string& t = ks[0].text;
  EXPECT_EQ(ks[0].name, "apply");
  EXPECT_TRUE(contains(t, "#pragma OPENCL EXTENSION cl_khr_fp64 : enable\n"));
  EXPECT_TRUE(contains(t, "typedef float real;"));
  EXPECT_TRUE(contains(t, "struct Pair {"));
  EXPECT_TRUE(contains(t, "__constant float weights[3]"));
  EXPECT_TRUE(contains(t, "float weigh(struct Pair p, int i)"));
  EXPECT_TRUE(contains(t, "* 4;")) << "the macro constant, expanded by pass 1";
  EXPECT_FALSE(contains(t, "unused_helper"));
  EXPECT_FALSE(contains(t, "unused_table"));
  EXPECT_FALSE(contains(t, "Unused"));
}

TEST(ExtractKernels, TwoKernelsSharingAHelperEachGetIt) {
  std::vector<ExtractedKernel> ks = extract_or_fail(read(golden_dir("extract") + "/shared_helpers.cl"));
  ASSERT_EQ(ks.size(), 2u);
  EXPECT_EQ(ks[0].name, "first");
  EXPECT_EQ(ks[1].name, "second");
  for (const ExtractedKernel& k : ks) {
    SCOPED_TRACE(k.name);
    // The prototype before the kernels and the definition after them.
    EXPECT_TRUE(contains(k.text, "float twice(float v);\n"));
    EXPECT_TRUE(contains(k.text, "float twice(float v) { return v * 2.0f; }\n"));
  }
  // Only `first` names the enum constant; only `second` the chain of helpers.
  EXPECT_TRUE(contains(ks[0].text, "enum Mode"));
  EXPECT_FALSE(contains(ks[1].text, "enum Mode"));
  EXPECT_FALSE(contains(ks[0].text, "inner"));
  EXPECT_FALSE(contains(ks[0].text, "second"));
  EXPECT_FALSE(contains(ks[1].text, "first"));
}

TEST(ExtractKernels, FollowsAHelperThatCallsAnotherHelper) {
  std::vector<ExtractedKernel> ks = extract_or_fail(read(golden_dir("extract") + "/shared_helpers.cl"));
  const ExtractedKernel* second = find(ks, "second");
  ASSERT_NE(second, nullptr);
  // second -> outer -> inner -> lo (a declaration of two names, kept whole).
  EXPECT_TRUE(contains(second->text, "float outer(float v)"));
  EXPECT_TRUE(contains(second->text, "float inner(float v)"));
  EXPECT_TRUE(contains(second->text, "__constant int lo = 1, hi = 2;\n"));
  EXPECT_TRUE(contains(second->text, "__attribute__((reqd_work_group_size(64, 1, 1)))\n__kernel void second"));
}

TEST(ExtractKernels, KeepsSamplersAndTypesReachedThroughFields) {
  std::vector<ExtractedKernel> ks = extract_or_fail(read(golden_dir("extract") + "/types_and_samplers.cl"));
  const ExtractedKernel* img = find(ks, "img");
  const ExtractedKernel* other = find(ks, "other");
  ASSERT_NE(img, nullptr);
  ASSERT_NE(other, nullptr);
  EXPECT_TRUE(contains(img->text, "__constant sampler_t smp"));
  EXPECT_TRUE(contains(img->text, "struct Inner { int k; };"));
  EXPECT_TRUE(contains(img->text, "union Bits"));
  EXPECT_FALSE(contains(img->text, "Lonely"));
  EXPECT_EQ(other->text, "struct Lonely { int z; };\n\n"
                         "__kernel void other(__global float* x) { x[0] = (float)sizeof(struct Lonely) + "
                         "1.0f; x[1] = 2.0f; }\n");
}

TEST(ExtractKernels, KeepsAConstantNamedOnlyInAnUnknownAttribute) {
  // Clang checks the arguments of an unknown attribute (Xilinx's loop trip
  // count) and drops them, so the use is not in the AST.
  std::string in =
      "__constant int trip = 64;\n"
      "__constant int unused = 1;\n"
      "__kernel void k(__global int* a) {\n"
      "  __attribute__((xcl_loop_tripcount(trip, trip)))\n"
      "  for (int i = 0; i < 64; ++i) a[i] = i;\n"
      "}\n";
  ASSERT_TRUE(compile(in).ok);
  Expected<std::vector<ExtractedKernel>> ks = extract_kernels(in);
  ASSERT_TRUE(ks.ok()) << ks.status().message();
  ASSERT_EQ(ks->size(), 1u);
  EXPECT_EQ((*ks)[0].text, "__constant int trip = 64;\n" + in.substr(in.find("__kernel")));
  EXPECT_TRUE(compile((*ks)[0].text).ok);
}

TEST(ExtractKernels, AFileWithoutKernelsGivesNone) {
  Expected<std::vector<ExtractedKernel>> ks = extract_kernels("float f(float x) { return x; }\n");
  ASSERT_TRUE(ks.ok()) << ks.status().message();
  EXPECT_TRUE(ks->empty());
}

TEST(ExtractKernels, FailsOnTextThatDoesNotParse) {
  EXPECT_FALSE(extract_kernels("__kernel void k(__global int* a) { a[0] = missing; }\n").ok());
}

TEST(ExtractKernels, UsesTheShimOnlyWhenNeeded) {
  // FLOAT_T is a shim type; the extracted text names it as the input did.
  std::string in = "__kernel void k(__global FLOAT_T* a) { a[0] = a[1] + 1; }\n";
  if (!compile(in).used_shim) GTEST_SKIP() << "the shim does not define FLOAT_T";
  Expected<std::vector<ExtractedKernel>> ks = extract_kernels(in);
  ASSERT_TRUE(ks.ok()) << ks.status().message();
  ASSERT_EQ(ks->size(), 1u);
  EXPECT_EQ((*ks)[0].text, in);
  CompileOptions no_shim;
  no_shim.shim = false;
  EXPECT_FALSE(extract_kernels(in, no_shim).ok());
}

// Every kernel extracted from a file that compiles compiles alone.
void expect_extracted_kernels_compile(const std::vector<std::string>& files) {
  CompileOptions check;
  check.check_only = true;
  int files_checked = 0;
  for (const std::string& path : files) {
    SCOPED_TRACE(path);
    std::string text = read(path);
    CompileResult whole = compile(text, check);
    if (!whole.ok) continue;
    CompileOptions opts;
    opts.shim = whole.used_shim;
    Expected<std::string> expanded = expand_main_file(text, opts);
    ASSERT_TRUE(expanded.ok()) << expanded.status().message();
    Expected<std::vector<ExtractedKernel>> ks = extract_kernels(*expanded);
    ASSERT_TRUE(ks.ok()) << ks.status().message();
    for (const ExtractedKernel& k : *ks) {
      CompileResult alone = compile(k.text, check);
      EXPECT_TRUE(alone.ok) << k.name << ": [" << alone.category << "] " << alone.reason << "\n" << k.text;
    }
    ++files_checked;
  }
  EXPECT_GT(files_checked, 0);
}

TEST(ExtractKernels, EveryExtractedGoldenKernelCompilesAlone) {
  std::vector<std::string> files = golden_inputs("extract");
  for (const std::string& f : golden_inputs("pipeline")) files.push_back(f);
  expect_extracted_kernels_compile(files);
}

TEST(ExtractKernels, EveryExtractedInstalledKernelCompilesAlone) {
  std::vector<std::string> files;
  for (const char* dir : {"/usr/share/ufo", "/usr/share/pocl-tests"}) {
    std::error_code ec;
    for (std::filesystem::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->path().extension() == ".cl") files.push_back(it->path().string());
    }
  }
  if (files.empty()) GTEST_SKIP() << "no installed kernels under /usr/share/ufo or /usr/share/pocl-tests";
  std::sort(files.begin(), files.end());
  expect_extracted_kernels_compile(files);
}

TEST(ExtractKernels, IsThreadSafe) {
  std::string in = read(golden_dir("extract") + "/shared_helpers.cl");
  std::string expected = extract_listing(in);
  std::vector<std::future<std::string>> runs;
  for (int i = 0; i < 8; ++i) runs.push_back(std::async(std::launch::async, [&] { return extract_listing(in); }));
  for (auto& r : runs) EXPECT_EQ(r.get(), expected);
}

// --- rewrite_kernels --------------------------------------------------------

TEST(RewriteKernels, GivesEachKernelItsOwnStatus) {
  std::string in =
      "float square(float v) { return v * v; }\n"
      "__kernel void busy(__global float* a) { int i = get_global_id(0); a[i] = square(a[i]) + 1.0f; }\n"
      "__kernel void empty(__global float* a) { }\n";
  FileRewriteResult r = rewrite_kernels(in);
  ASSERT_EQ(r.status, RewriteStatus::kOk) << r.category << " " << r.reason;
  ASSERT_EQ(r.kernels.size(), 2u);
  EXPECT_EQ(r.kernels[0].kernel_name, "busy");
  EXPECT_EQ(r.kernels[0].status, RewriteStatus::kOk) << r.kernels[0].reason;
  EXPECT_EQ(r.kernels[0].kernels, std::vector<std::string>{"B"});  // square is A
  EXPECT_EQ(r.kernels[0].text,
            "float A(float a) {\n  return a * a;\n}\n"
            "__kernel void B(__global float* b) {\n  int c = get_global_id(0);\n  b[c] = A(b[c]) + 1.0f;\n}\n");
  EXPECT_EQ(r.kernels[1].kernel_name, "empty");
  EXPECT_EQ(r.kernels[1].status, RewriteStatus::kRejected);
  EXPECT_EQ(r.kernels[1].category, category::kTooFewInstructions);
}

TEST(RewriteKernels, RejectsOnlyTheKernelsThatCallAnUndefinedFunction) {
  FileRewriteResult r = rewrite_kernels(
      "float elsewhere(float v);\n"
      "__kernel void linked(__global float* a) { int i = get_global_id(0); a[i] = a[i] * 2.0f; }\n"
      "__kernel void unlinked(__global float* a) { int i = get_global_id(0); a[i] = elsewhere(a[i]); }\n");
  ASSERT_EQ(r.status, RewriteStatus::kOk) << r.category << " " << r.reason;
  ASSERT_EQ(r.kernels.size(), 2u);
  EXPECT_EQ(r.kernels[0].status, RewriteStatus::kOk) << r.kernels[0].reason;
  EXPECT_EQ(r.kernels[1].status, RewriteStatus::kRejected);
  EXPECT_EQ(r.kernels[1].category, category::kUndefinedFunction);
  EXPECT_EQ(r.kernels[1].reason, "calls 'A', which it declares but never defines (as renamed)");
}

TEST(RewriteKernels, RejectsAFileThatDoesNotCompileOnce) {
  FileRewriteResult r = rewrite_kernels(
      "__kernel void a(__global int* x) { x[0] = 1; }\n"
      "__kernel void b(__global int* x) { x[0] = missing_name; }\n");
  EXPECT_EQ(r.status, RewriteStatus::kRejected);
  EXPECT_EQ(r.category, category::kUndeclaredIdentifier);
  EXPECT_TRUE(contains(r.reason, "missing_name")) << r.reason;
  EXPECT_TRUE(r.kernels.empty());
  // The same verdict as rewrite().
  RewriteResult whole = rewrite("__kernel void b(__global int* x) { x[0] = missing_name; }\n");
  EXPECT_EQ(whole.category, r.category);
}

TEST(RewriteKernels, RejectsOnlyTheKernelsThatReachAMissingFragment) {
  // The include inliner writes a fragment the corpus lacks as this statement
  // (corpus::kMissingFragment); the helper that holds it taints its callers.
  const std::string missing = std::string("(void)\"") + corpus::kMissingFragment + " inc_comp_multi.cl\";";
  std::string in = "void compare(__global int* x) { " + missing +
                   " x[1] = 2; }\n"
                   "__kernel void init(__global int* x) { x[get_global_id(0)] = 3; }\n"
                   "__kernel void comp(__global int* x) { compare(x); }\n";
  FileRewriteResult r = rewrite_kernels(in);
  ASSERT_EQ(r.status, RewriteStatus::kOk) << r.category << " " << r.reason;
  ASSERT_EQ(r.kernels.size(), 2u);
  EXPECT_EQ(r.kernels[0].status, RewriteStatus::kOk) << r.kernels[0].reason;
  EXPECT_EQ(r.kernels[1].kernel_name, "comp");
  EXPECT_EQ(r.kernels[1].status, RewriteStatus::kRejected);
  EXPECT_EQ(r.kernels[1].category, category::kIncludeNotFound);
  EXPECT_TRUE(contains(r.kernels[1].reason, "inc_comp_multi.cl")) << r.kernels[1].reason;
  // A whole file is rejected when it holds one.
  RewriteResult whole = rewrite(in);
  EXPECT_EQ(whole.category, category::kIncludeNotFound);
}

TEST(RewriteKernels, RejectsAFileWhoseMacrosExpandItPastTheSizeLimit) {
  // 8^7 zeros, stringized: a 4 MiB literal from an input of under 1 KiB.
  std::string in = "#define X1 0 0 0 0 0 0 0 0\n";
  for (int i = 2; i <= 7; ++i) {
    std::string prev = "X" + std::to_string(i - 1);
    in += "#define X" + std::to_string(i);
    for (int j = 0; j < 8; ++j) in += " " + prev;
    in += "\n";
  }
  in +=
      "#define S(x) #x\n#define E(x) S(x)\n__constant char t[] = E(X7);\n"
      "__kernel void k(__global char* a) { a[get_global_id(0)] = t[get_global_id(0)]; }\n";
  FileRewriteResult r = rewrite_kernels(in);
  EXPECT_EQ(r.status, RewriteStatus::kRejected) << r.category << " " << r.reason;
  EXPECT_EQ(r.category, category::kInputTooLarge);
  EXPECT_TRUE(contains(r.reason, "macros expand")) << r.reason;
}

TEST(RewriteKernels, RejectsAFileWithoutKernels) {
  FileRewriteResult r = rewrite_kernels("float f(float x) { return x; }\n");
  EXPECT_EQ(r.status, RewriteStatus::kRejected);
  EXPECT_EQ(r.category, category::kNoKernel);
}

TEST(RewriteKernels, UsesTheShimForAFileThatNeedsIt) {
  std::string in = read(golden_dir("pipeline") + "/shim_types.cl");
  RewriteResult whole = rewrite(in);
  ASSERT_EQ(whole.status, RewriteStatus::kOk) << whole.reason;
  FileRewriteResult r = rewrite_kernels(in);
  ASSERT_EQ(r.status, RewriteStatus::kOk) << r.reason;
  ASSERT_FALSE(r.kernels.empty());
  for (const RewriteResult& k : r.kernels) EXPECT_EQ(k.status, RewriteStatus::kOk) << k.reason;
}

TEST(RewriteKernels, IsIdempotentPerKernel) {
  std::vector<std::string> files = golden_inputs("extract");
  for (const std::string& f : golden_inputs("pipeline")) files.push_back(f);
  int ok = 0;
  for (const std::string& path : files) {
    SCOPED_TRACE(path);
    FileRewriteResult r = rewrite_kernels(read(path));
    ASSERT_EQ(r.status, RewriteStatus::kOk) << r.category << " " << r.reason;
    for (const RewriteResult& k : r.kernels) {
      SCOPED_TRACE(k.kernel_name);
      ASSERT_NE(k.status, RewriteStatus::kRewriteBug) << k.category << " " << k.reason;
      if (k.status != RewriteStatus::kOk) continue;
      ++ok;
      EXPECT_EQ(k.kernels.size(), 1u);
      RewriteResult again = rewrite(k.text);
      ASSERT_EQ(again.status, RewriteStatus::kOk) << again.reason;
      EXPECT_EQ(again.text, k.text);
    }
  }
  EXPECT_GT(ok, 10);
}

TEST(RewriteKernels, OneKernelFileGivesRewritesText) {
  // With a single kernel and nothing unused, the per-kernel text is rewrite()'s.
  std::string in = read(golden_dir("pipeline") + "/paper_example.cl");
  FileRewriteResult r = rewrite_kernels(in);
  ASSERT_EQ(r.status, RewriteStatus::kOk) << r.reason;
  ASSERT_EQ(r.kernels.size(), 1u);
  EXPECT_EQ(r.kernels[0].text, rewrite(in).text);
}

}  // namespace
}  // namespace clgen::preprocess
