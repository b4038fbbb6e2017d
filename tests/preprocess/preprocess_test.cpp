// Tests of the preprocessor: golden source-in/source-out tests for each pass
// and the pipeline, rejections by reason, crash recovery, idempotence and
// thread safety.
#include <algorithm>
#include <filesystem>
#include <future>

#include <gtest/gtest.h>

#include "corpus/preprocess/preprocess.h"
#include "support/files.h"
#include "support/thread_pool.h"
#include "tests/preprocess/golden.h"

namespace clgen::preprocess {
namespace {

using clgen::testing::expect_golden;
using clgen::testing::golden_inputs;

std::string read(const std::string& path) {
  auto r = read_file(path);
  EXPECT_TRUE(r.ok()) << r.status().message();
  return r ? *r : std::string();
}

// Runs `pass` over every input of `sub` and compares with the expected file.
template <typename Pass>
void check_golden(const std::string& sub, Pass pass) {
  std::vector<std::string> inputs = golden_inputs(sub);
  ASSERT_FALSE(inputs.empty()) << sub;
  for (const std::string& in : inputs) {
    SCOPED_TRACE(in);
    std::string actual = pass(read(in));
    expect_golden(in, actual);
  }
}

std::string or_error(const Expected<std::string>& r) {
  return r ? *r : "ERROR: " + r.status().message() + "\n";
}

TEST(Pipeline, PaperExampleMatchesExactly) {
  std::string in = read(clgen::testing::golden_dir("pipeline") + "/paper_example.cl");
  RewriteResult r = rewrite(in);
  ASSERT_EQ(r.status, RewriteStatus::kOk) << r.reason;
  EXPECT_EQ(read(clgen::testing::golden_dir("pipeline") + "/paper_example.expected.cl"), r.text);
  EXPECT_EQ(r.kernels, std::vector<std::string>{"B"});
}

TEST(Pipeline, GoldenFilesRewriteToTheirExpectedText) {
  check_golden("pipeline", [](const std::string& in) {
    RewriteResult r = rewrite(in);
    if (r.status != RewriteStatus::kOk) {
      return std::string(rewrite_status_name(r.status)) + " [" + r.category + "] " + r.reason + "\n";
    }
    return r.text;
  });
}

TEST(Pipeline, RewritingIsIdempotentOnGoldenFiles) {
  for (const std::string& in : golden_inputs("pipeline")) {
    SCOPED_TRACE(in);
    RewriteResult once = rewrite(read(in));
    ASSERT_EQ(once.status, RewriteStatus::kOk) << once.reason;
    RewriteResult twice = rewrite(once.text);
    ASSERT_EQ(twice.status, RewriteStatus::kOk) << twice.reason;
    EXPECT_EQ(once.text, twice.text);
    EXPECT_EQ(canonicalize_qualifiers(once.text), once.text) << "an alias keyword is left";
  }
}

TEST(ExpandPass, GoldenFiles) {
  check_golden("expand", [](const std::string& in) { return or_error(expand_main_file(in)); });
}

TEST(ExpandPass, ShimTextNeverAppearsInTheOutput) {
  CompileOptions o;
  o.shim = true;
  auto out = expand_main_file("__kernel void k(__global float* a) { a[0] = 1; }\n", o);
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(out->find("#ifndef"), std::string::npos);
  EXPECT_EQ(out->find("shim"), std::string::npos);
  EXPECT_NE(out->find("__kernel void k"), std::string::npos);
}

TEST(QualifiersPass, GoldenFiles) {
  check_golden("qualifiers", [](const std::string& in) { return canonicalize_qualifiers(in); });
}

TEST(QualifiersPass, SpellsEveryAliasKeywordCanonically) {
  EXPECT_EQ(canonicalize_qualifiers("kernel global local constant private read_only write_only read_write"),
            "__kernel __global __local __constant __private __read_only __write_only __read_write");
}

TEST(QualifiersPass, ReadsOnlyTheGivenView) {
  std::string_view first_word("kernel global", 6);
  EXPECT_EQ(canonicalize_qualifiers(first_word), "__kernel");
  EXPECT_EQ(canonicalize_qualifiers(""), "");
}

TEST(QualifiersPass, KeepsLiteralsCommentsDirectivesAndLongerNames) {
  std::string text =
      "#pragma OPENCL EXTENSION local : enable\n"
      "// kernel\n/* global */ char* s = \"local\"; char c = 'k'; int global_id, my_local;\n";
  EXPECT_EQ(canonicalize_qualifiers(text), text);
}

TEST(QualifiersPass, LeavesThePaperExampleAsItIs) {
  std::string expected = read(clgen::testing::golden_dir("pipeline") + "/paper_example.expected.cl");
  EXPECT_EQ(canonicalize_qualifiers(expected), expected);
  std::string in = read(clgen::testing::golden_dir("pipeline") + "/paper_example.cl");
  EXPECT_EQ(canonicalize_qualifiers(in), in);
}

TEST(RenamePass, GoldenFiles) {
  check_golden("rename", [](const std::string& in) { return or_error(rename_identifiers(in)); });
}

TEST(RenamePass, KeepsBuiltinsAndKeywords) {
  auto out =
      rename_identifiers("__kernel void k(__global float* x) { int i = get_global_id(0); x[i] = sqrt(fabs(x[i])); }\n");
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(*out, "__kernel void A(__global float* a) { int b = get_global_id(0); a[b] = sqrt(fabs(a[b])); }\n");
}

TEST(RenamePass, SkipsNamesTheInputKeeps) {
  // A struct field called "a" stays, so the first variable becomes "b".
  auto out = rename_identifiers("typedef struct { int a; } S;\n__kernel void k(__global S* s) { s[0].a = 1; }\n");
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_NE(out->find("__global S* b"), std::string::npos) << *out;
  EXPECT_NE(out->find("b[0].a = 1"), std::string::npos) << *out;
}

TEST(RenamePass, NeverNamesAVariableAfterACppOperator) {
  // Past `do` and `if`, the 406th variable (v404) would be `or`, which
  // clang-format spaces as C++'s operator; it becomes `os`.
  std::string body;
  for (int i = 0; i < 410; ++i) body += "  int v" + std::to_string(i) + " = " + std::to_string(i) + ";\n";
  body += "  x[0] = v407 + v408;\n";
  auto out = rename_identifiers("__kernel void k(__global int* x) {\n" + body + "}\n");
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(out->find(" or "), std::string::npos);
  EXPECT_NE(out->find("int os = 404;"), std::string::npos);
  EXPECT_NE(out->find("a[0] = ov + ow;"), std::string::npos);
  auto formatted = format_source(*out);
  ASSERT_TRUE(formatted.ok());
  EXPECT_NE(formatted->find("a[0] = ov + ow;"), std::string::npos);
}

TEST(RenamePass, RenamesNamesInTheArgumentsOfAnUnknownAttribute) {
  // Clang drops an unknown attribute with its arguments, so they are no
  // references in the AST; left as written they name nothing after renaming.
  auto out = rename_identifiers(
      "__constant int c_size = 16;\n"
      "__kernel void k(__global int* x) {\n"
      "  __attribute__((xcl_loop_tripcount(c_size, c_size)))\n"
      "  for (int i = 0; i < c_size; i++) x[i] = i;\n"
      "}\n");
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(*out,
            "__constant int a = 16;\n"
            "__kernel void A(__global int* b) {\n"
            "  __attribute__((xcl_loop_tripcount(a, a)))\n"
            "  for (int c = 0; c < a; c++) b[c] = c;\n"
            "}\n");
}

TEST(RenamePass, GivesAnAttributeArgumentTheDeclarationInScope) {
  // Inside the block the local n shadows the file-scope one; after it the
  // file-scope n is seen again.
  auto out = rename_identifiers(
      "__constant int n = 4;\n"
      "__kernel void k(__global int* x) {\n"
      "  { int n = 8;\n"
      "    __attribute__((xcl_loop_tripcount(n, 1))) for (int i = 0; i < n; i++) x[i] = i; }\n"
      "  __attribute__((xcl_loop_tripcount(n, 1))) for (int i = 0; i < n; i++) x[i] = i;\n"
      "}\n");
  ASSERT_TRUE(out.ok()) << out.status().message();
  EXPECT_EQ(*out,
            "__constant int a = 4;\n"
            "__kernel void A(__global int* b) {\n"
            "  { int c = 8;\n"
            "    __attribute__((xcl_loop_tripcount(c, 1))) for (int d = 0; d < c; d++) b[d] = d; }\n"
            "  __attribute__((xcl_loop_tripcount(a, 1))) for (int e = 0; e < a; e++) b[e] = e;\n"
            "}\n");
}

TEST(Pipeline, AcceptsAKernelWhoseLoopAttributeNamesAConstant) {
  RewriteResult r = rewrite(
      "__constant int c_len = 64;\n"
      "__kernel void vadd(__global int* a, int size) {\n"
      "  __attribute__((xcl_loop_tripcount(c_len, c_len)))\n"
      "  for (int i = 0; i < size; i++) a[i] += 1;\n"
      "}\n");
  EXPECT_EQ(r.status, RewriteStatus::kOk) << r.reason;
}

TEST(FormatPass, GoldenFiles) {
  check_golden("format", [](const std::string& in) { return or_error(format_source(in)); });
}

TEST(FormatPass, PutsALongKernelPrototypeOnOneLine) {
  std::string params;
  for (int i = 0; i < 30; ++i) params += (i ? ",\n  " : "") + std::string("__global float* p") + std::to_string(i);
  auto out = format_source("__kernel void k(" + params + ") { p0[0] = 1; }\n");
  ASSERT_TRUE(out.ok());
  std::string first_line = out->substr(0, out->find('\n'));
  EXPECT_NE(first_line.find("p29) {"), std::string::npos) << first_line;
}

struct RejectCase {
  const char* file;
  const char* category;
};

// Each thread parses the compiler arguments of a mode and options once
// (frontend.cpp): compiles with other options on the same thread must not
// get an earlier compile's invocation.
TEST(Compile, OptionsOfEachCompileHoldWhenCompilesAlternateOnOneThread) {
  // Three undeclared names: 3 errors with a limit of 50, 1 with a limit of 1.
  const std::string three = "__kernel void f(__global int* o) { o[0] = aa + bb + cc; }\n";
  // get_sub_group_size is OpenCL C 2.0's (cl_khr_subgroups): undeclared as 1.2.
  const std::string cl20 = "__kernel void f(__global uint* o) { o[0] = get_sub_group_size(); }\n";
  CompileOptions fifty;
  fifty.check_only = true;
  fifty.error_limit = 50;
  fifty.shim = false;
  CompileOptions one = fifty;
  one.error_limit = 1;
  CompileOptions v12;
  v12.shim = false;
  CompileOptions v20 = v12;
  v20.opencl20 = true;
  for (int round = 0; round < 2; ++round) {
    SCOPED_TRACE(round);
    EXPECT_EQ(compile(three, fifty).errors.size(), 3u);
    EXPECT_EQ(compile(three, one).errors.size(), 1u);
    EXPECT_TRUE(compile(cl20, v20).ok);
    CompileResult as12 = compile(cl20, v12);
    EXPECT_FALSE(as12.ok);
    EXPECT_EQ(as12.category, category::kUndeclaredIdentifier) << as12.reason;
  }
}

TEST(Compile, RejectsEachReasonWithItsCategory) {
  const RejectCase cases[] = {
      {"no_kernel.cl", category::kNoKernel},
      {"only_macros.cl", category::kNoKernel},
      {"undeclared_identifier.cl", category::kUndeclaredIdentifier},
      {"unknown_type_name.cl", category::kUnknownTypeName},
      {"include_not_found.cl", category::kIncludeNotFound},
      {"parse_error.cl", category::kParseError},
      {"semantic_error.cl", category::kSemanticError},
      {"too_few_instructions.cl", category::kTooFewInstructions},
      {"undefined_function.cl", category::kUndefinedFunction},
      {"clang_crash.cl", category::kClangCrash},
  };
  for (const RejectCase& c : cases) {
    SCOPED_TRACE(c.file);
    std::string text = read(clgen::testing::golden_dir("reject") + "/" + c.file);
    CompileResult r = compile(text);
    EXPECT_FALSE(r.ok);
    EXPECT_EQ(r.category, c.category) << r.reason;
    EXPECT_FALSE(r.reason.empty());
    // Without missing-name inference, which would define my_unknown_type_xyz
    // (names_test.cpp tests the rescue).
    CompileOptions no_infer;
    no_infer.infer_names = false;
    RewriteResult w = rewrite(text, no_infer);
    EXPECT_EQ(w.status, RewriteStatus::kRejected);
    EXPECT_EQ(w.category, c.category);
  }
}

TEST(Compile, ReasonIsTheFirstErrorWithItsLocation) {
  CompileResult r = compile("__kernel void k(__global float* a) {\n  a[0] = missing_name;\n}\n", {});
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.reason, "input.cl:2:10: use of undeclared identifier 'missing_name'");
}

TEST(Compile, NamesTheFunctionsATextCallsButNeverDefines) {
  const std::string text =
      "float f(float v);\nfloat g(float v);\n"
      "__kernel void k(__global float* a) { a[0] = f(a[0]) + g(a[1]); }\n";
  CompileResult r = compile(text);
  ASSERT_FALSE(r.ok);
  EXPECT_EQ(r.category, category::kUndefinedFunction);
  EXPECT_EQ(r.reason, "calls 'f', which it declares but never defines (and 1 more such functions)");
  CompileOptions whole_module;
  whole_module.keep_ir = true;
  EXPECT_EQ(compile(text, whole_module).category, category::kUndefinedFunction);
  CompileOptions linkless;
  linkless.require_definitions = false;
  EXPECT_TRUE(compile(text, linkless).ok);
}

TEST(Compile, AcceptsPrototypesDefinedLaterOrNeverCalled) {
  CompileResult r = compile(
      "float f(float v);\nfloat unused(float v);\n"
      "__kernel void k(__global float4* a) { a[0] = native_sin(a[0]) * f(1.0f); }\n"
      "float f(float v) { return v * 2.0f; }\n");
  EXPECT_TRUE(r.ok) << r.reason;
}

TEST(Compile, ABuiltinDeclaredAgainWithoutOverloadableIsTheTextsOwnUndefinedFunction) {
  // Not the header's overloaded builtin but a new function (PoCL refuses to
  // build it: "redeclaration of '_cl_native_sin' must have the 'overloadable'
  // attribute").
  CompileResult r = compile(
      "float4 native_sin(float4 v);\n"
      "__kernel void k(__global float4* a) { a[0] = native_sin(a[0]) * 2.0f; }\n");
  EXPECT_EQ(r.category, category::kUndefinedFunction) << r.reason;
}

TEST(Compile, CountsKernelInstructionsAndNamesKernels) {
  CompileResult r = compile(
      "__kernel void add(__global int* a) { a[get_global_id(0)] += 1; }\n"
      "__kernel void sub(__global int* a) { a[get_global_id(0)] -= 1; }\n");
  ASSERT_TRUE(r.ok) << r.reason;
  EXPECT_EQ(r.kernels, (std::vector<std::string>{"add", "sub"}));
  EXPECT_GE(r.instruction_count, 6);
}

TEST(Compile, ReadsNothingOutsideTheInMemoryFileSystem) {
  CompileResult r = compile("#include </etc/hostname>\n__kernel void k(__global int* a) { a[0] = 1; }\n");
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.category, category::kIncludeNotFound);
}

TEST(Compile, SurvivesACrashAndKeepsWorking) {
  // Not `__debug crash`: it leaves a Clang timer registered in the abandoned
  // stack frame, which later compiles of this process write through.
  CompileResult crash =
      compile("#pragma clang __debug llvm_fatal_error\n__kernel void k(__global int* a) { a[0] = 1; }\n");
  EXPECT_FALSE(crash.ok);
  EXPECT_EQ(crash.category, category::kClangCrash);
  CompileResult after = compile("__kernel void k(__global int* a) { a[get_global_id(0)] = 1; }\n");
  EXPECT_TRUE(after.ok) << after.reason;
}

TEST(Compile, KeepsIrWhenAsked) {
  CompileOptions o;
  o.keep_ir = true;
  CompileResult r = compile("__kernel void k(__global int* a) { a[get_global_id(0)] = 7; }\n", o);
  ASSERT_TRUE(r.ok) << r.reason;
  EXPECT_NE(r.ir.find("define"), std::string::npos);
  EXPECT_NE(r.ir.find("nvptx64"), std::string::npos);
}

TEST(Compile, StrictModeLowersToPtxWithLibclc) {
  CompileOptions o;
  o.to_ptx = true;
  o.keep_ir = true;
  CompileResult r =
      compile("__kernel void k(__global float* a) { size_t i = get_global_id(0); a[i] = sqrt(a[i]); }\n", o);
  ASSERT_TRUE(r.ok) << r.reason;
  EXPECT_NE(r.ptx.find(".entry k"), std::string::npos) << r.ptx.substr(0, 400);
}

TEST(Compile, StrictModeEmitsPlainInlineHelpers) {
  // C99 inline rules give a plain `inline` helper no body at -O0; the PTX
  // would then call an undefined function.
  CompileOptions o;
  o.to_ptx = true;
  o.keep_ir = true;
  CompileResult r = compile(
      "inline float twice(float x) { return 2.0f * x; }\n"
      "__kernel void k(__global float* a) { size_t i = get_global_id(0); a[i] = twice(a[i]); }\n", o);
  ASSERT_TRUE(r.ok) << r.reason;
  EXPECT_NE(r.ptx.find(".entry k"), std::string::npos) << r.ptx.substr(0, 400);
  EXPECT_NE(r.ptx.find("twice"), std::string::npos) << r.ptx.substr(0, 400);
}

TEST(Compile, StrictModeLowersLocalPointerArguments) {
  CompileOptions o;
  o.to_ptx = true;
  o.keep_ir = true;
  CompileResult r = compile(
      "__kernel void k(__global int* out, __local int* scratch) {\n"
      "  scratch[get_local_id(0)] = 1;\n  barrier(CLK_LOCAL_MEM_FENCE);\n"
      "  out[get_global_id(0)] = scratch[0];\n}\n", o);
  ASSERT_TRUE(r.ok) << r.category << ": " << r.reason;
  EXPECT_NE(r.ptx.find(".ptr .shared"), std::string::npos) << r.ptx.substr(0, 600);
}

TEST(Compile, StrictModeBackendAbortIsAPtxError) {
  // libclc's native_cos reaches NVPTX as an fcos it cannot select without
  // fast math: LLVM aborts, the verdict is ptx_error, the process goes on.
  CompileOptions o;
  o.to_ptx = true;
  CompileResult r = compile("__kernel void k(__global float* a) { a[get_global_id(0)] = native_cos(a[0]); }\n", o);
  EXPECT_FALSE(r.ok);
  EXPECT_EQ(r.category, category::kPtxError) << r.reason;
  CompileResult after = compile("__kernel void k(__global float* a) { a[get_global_id(0)] = 2.0f * a[0]; }\n", o);
  EXPECT_TRUE(after.ok) << after.reason;
}

TEST(Compile, LibclcHeaderCompilesPlainKernels) {
  CompileOptions o;
  o.header = BuiltinHeader::kLibclc;
  CompileResult r = compile("__kernel void k(__global float* a) { a[get_global_id(0)] = cos(a[0]); }\n", o);
  EXPECT_TRUE(r.ok) << r.reason;
}

TEST(Compile, ShimIsOnlyAFallback) {
  // A file that defines a name the shim also defines is not broken by it.
  std::string text = "__kernel void k(__global float* a) { int WG_SIZE = 3; a[get_global_id(0)] = WG_SIZE; }\n";
  CompileResult r = compile(text);
  EXPECT_TRUE(r.ok) << r.reason;
  EXPECT_FALSE(r.used_shim);
}

TEST(Compile, RejectsOversizedInputUnread) {
  std::string big(kMaxInputBytes + 1, ' ');
  CompileResult r = compile(big);
  EXPECT_EQ(r.category, category::kInputTooLarge);
}

TEST(Compile, RejectsInvalidUtf8WithoutHandingItToClang) {
  // Found by fuzz_rewrite (tests/fuzz/regressions): Clang 15 crashed on
  // these bytes inside an identifier; a truncated sequence, and a byte no
  // sequence starts with.
  for (const std::string text :
       {std::string("i\xdf\x82\xc4"), std::string("__kernel void k(__global float* a\x9c) { a[0] = 1; }\n")}) {
    CompileResult c = compile(text);
    EXPECT_FALSE(c.ok);
    EXPECT_EQ(c.category, category::kInvalidUtf8);
    RewriteResult r = rewrite(text);
    EXPECT_EQ(r.status, RewriteStatus::kRejected);
    EXPECT_EQ(r.category, category::kInvalidUtf8) << r.reason;
    FileRewriteResult k = rewrite_kernels(text);
    EXPECT_EQ(k.status, RewriteStatus::kRejected);
    EXPECT_EQ(k.category, category::kInvalidUtf8) << k.reason;
  }
}

TEST(Compile, RejectsNonAsciiCodeWithoutHandingItToClangButKeepsItInCommentsAndLiterals) {
  // Found by fuzz_rewrite (tests/fuzz/regressions/rewrite-leak-nonascii-identifier.cl):
  // valid UTF-8 letters in an identifier (U+07B4 here) made the expand pass's
  // lexer abandon a compiler, which leaked its whole state, per input.
  const std::string bad = "__kernel void k(__global float* a) { float b\xde\xb4 = 1; a[0] = 2; }\n";
  CompileResult c = compile(bad);
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.category, category::kNonAsciiCode);
  EXPECT_NE(c.reason.find("line 1"), std::string::npos) << c.reason;
  RewriteResult r = rewrite(bad);
  EXPECT_EQ(r.status, RewriteStatus::kRejected);
  EXPECT_EQ(r.category, category::kNonAsciiCode) << r.reason;
  FileRewriteResult k = rewrite_kernels(bad);
  EXPECT_EQ(k.category, category::kNonAsciiCode) << k.reason;
  // The same letters in comments and a string, and a byte-order mark, are fine.
  const std::string fine =
      "\xEF\xBB\xBF// \xde\xb4 \xe2\x82\xac\n/* \xc3\xa9t\xc3\xa9 */\n"
      "__kernel void k(__global float* a, __global float* b) {\n"
      "  // \xe6\xb8\xac\xe8\xa9\xa6\n  a[get_global_id(0)] = b[get_global_id(0)] * 2.0f;\n}\n";
  CompileResult ok = compile(fine);
  EXPECT_TRUE(ok.ok) << ok.reason;
  EXPECT_EQ(rewrite(fine).status, RewriteStatus::kOk);
}

TEST(Compile, IsThreadSafe) {
  std::vector<std::string> inputs;
  for (const std::string& in : golden_inputs("pipeline")) inputs.push_back(read(in));
  std::vector<RewriteResult> serial;
  for (const auto& t : inputs) serial.push_back(rewrite(t));
  ThreadPool pool(4);
  std::vector<std::future<RewriteResult>> futures;
  for (int rep = 0; rep < 3; ++rep) {
    for (const auto& t : inputs) futures.push_back(pool.submit([&t] { return rewrite(t); }));
  }
  for (size_t i = 0; i < futures.size(); ++i) {
    RewriteResult r = futures[i].get();
    EXPECT_EQ(r.text, serial[i % inputs.size()].text);
    EXPECT_EQ(r.status, serial[i % inputs.size()].status);
  }
}

TEST(Version, ChangesWithOptions) {
  CompileOptions a, b;
  b.shim = false;
  EXPECT_NE(preprocessor_version(a), preprocessor_version(b));
  b = a;
  b.header = BuiltinHeader::kLibclc;
  EXPECT_NE(preprocessor_version(a), preprocessor_version(b));
  EXPECT_EQ(preprocessor_version(a), preprocessor_version(CompileOptions{}));
  b = a;
  b.require_definitions = false;
  EXPECT_NE(preprocessor_version(a), preprocessor_version(b));
}

// Idempotence over the installed kernels that the default corpus contains
// (the small pocl and ufo sets, to keep the suite fast).
TEST(Pipeline, RewritingIsIdempotentOnInstalledKernels) {
  std::vector<std::string> files;
  for (const char* dir : {"/usr/share/ufo", "/usr/share/pocl-tests"}) {
    std::error_code ec;
    for (std::filesystem::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
      if (it->path().extension() == ".cl") files.push_back(it->path().string());
    }
  }
  if (files.empty()) GTEST_SKIP() << "no installed kernels under /usr/share/ufo or /usr/share/pocl-tests";
  ThreadPool pool;
  std::vector<std::future<std::string>> checks;
  for (const std::string& f : files) {
    checks.push_back(pool.submit([f] {
      auto text = read_file(f, kMaxInputBytes);
      if (!text) return std::string();
      RewriteResult once = rewrite(*text);
      if (once.status != RewriteStatus::kOk) return std::string();
      RewriteResult twice = rewrite(once.text);
      if (twice.status != RewriteStatus::kOk) return f + ": second rewrite " + twice.reason;
      if (twice.text != once.text) return f + ": not idempotent";
      if (canonicalize_qualifiers(once.text) != once.text) return f + ": an alias keyword is left";
      return std::string();
    }));
  }
  size_t ok = 0;
  for (auto& c : checks) {
    std::string problem = c.get();
    EXPECT_EQ(problem, "");
    ok += problem.empty();
  }
  EXPECT_GT(ok, 0u);
}

}  // namespace
}  // namespace clgen::preprocess
