// Tests of shim inference: use classification, ranking and the header.
#include <gtest/gtest.h>

#include "corpus/preprocess/preprocess.h"
#include "shim/infer.h"

namespace clgen::shim {
namespace {

Use use_of(const std::string& text, const std::string& name, bool type = false, int* arity = nullptr) {
  return classify_use(text, static_cast<int64_t>(text.find(name)), name, type, arity);
}

TEST(ClassifyUse, RecognisesTypesValuesArraySizesAndFunctionMacros) {
  EXPECT_EQ(use_of("REAL x;", "REAL", true), Use::kType);
  EXPECT_EQ(use_of("int y = N + 1;", "N"), Use::kValue);
  EXPECT_EQ(use_of("__local float tile[TILE];", "TILE"), Use::kArraySize);
  EXPECT_EQ(use_of("x = a[IDX];", "IDX"), Use::kValue);
  int arity = -1;
  EXPECT_EQ(use_of("y = MUL(a, f(b, c));", "MUL", false, &arity), Use::kFunctionMacro);
  EXPECT_EQ(arity, 2);
}

TEST(Infer, RanksNamesByFilesRescuedAndProposesDefinitions) {
  std::vector<std::string> texts = {
      "__kernel void a(__global REAL_T* x) { x[get_global_id(0)] = WIDTH; }\n",
      "__kernel void b(__global REAL_T* x) { x[get_global_id(0)] = 2; }\n",
      "__kernel void c(__global float* x) { __local float t[TILE_SIZE]; t[0] = x[0]; x[1] = t[0] + WIDTH; }\n",
      "__kernel void d(__global float* x) { x[get_global_id(0)] = ONLY_ONCE; }\n",
      "__kernel void e(__global float* x) { x[get_global_id(0)] = 1; }\n",
  };
  InferOptions o;
  o.min_files = 2;
  auto report = infer(texts, o);
  ASSERT_TRUE(report.ok());
  EXPECT_EQ(report->files, 5u);
  EXPECT_EQ(report->compiled, 1u);
  EXPECT_EQ(report->failed, 4u);
  ASSERT_FALSE(report->candidates.empty());
  const Candidate& top = report->candidates.front();
  EXPECT_EQ(top.name, "REAL_T");
  EXPECT_EQ(top.use, Use::kType);
  EXPECT_EQ(top.rescued, 2u);
  EXPECT_EQ(top.definition, "#define REAL_T float");
  bool once_accepted = true;
  for (const Candidate& c : report->candidates) {
    if (c.name == "ONLY_ONCE") once_accepted = c.accepted;
    if (c.name == "TILE_SIZE") {
      EXPECT_EQ(c.use, Use::kArraySize);
    }
  }
  EXPECT_FALSE(once_accepted);

  std::string header = render_header(*report, "Corpus: test.");
  EXPECT_NE(header.find("#ifndef REAL_T\n#define REAL_T float\n#endif"), std::string::npos) << header;
  EXPECT_EQ(header.find("#define ONLY_ONCE"), std::string::npos);
}

TEST(Shim, EmbeddedHeaderIsTheCommittedFile) {
  std::string_view text = preprocess::shim_text();
  EXPECT_NE(text.find("clgen shim infer"), std::string_view::npos);
}

// The type families the GitHub corpus lacks most: C's fixed-width integers
// (host headers), hashcat's u32/u64, and the element types that templated
// kernel sources get from the host's -D (T2, T4; the shim makes every type float).
TEST(Shim, RescuesTheFixedWidthHashcatAndTemplateTypeFamilies) {
  const std::vector<std::string> kernels = {
      "__kernel void k(__global uint8_t* a, __global uint64_t* b, __global uint16_t* c) {\n"
      "  int i = get_global_id(0); b[i] = a[i] + c[i]; }\n",
      "__kernel void k(__global u32* a, __global u64* b) { int i = get_global_id(0); b[i] = a[i] * 3; }\n",
      "__kernel void k(__global T2* a, __global T4* b) { int i = get_global_id(0); a[i] = b[i] * 2; }\n",
  };
  for (const std::string& k : kernels) {
    preprocess::CompileOptions no_shim;
    no_shim.shim = false;
    EXPECT_FALSE(preprocess::compile(k, no_shim).ok) << k;
    preprocess::CompileResult r = preprocess::compile(k);
    EXPECT_TRUE(r.ok) << k << r.reason;
    EXPECT_TRUE(r.used_shim) << k;
  }
}

}  // namespace
}  // namespace clgen::shim
