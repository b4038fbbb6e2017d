// Kernels read out of host code's string literals: golden files per
// language (tests/data/host_code/X and X.golden, written by hand), and the
// lexers' corner cases.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "corpus/host_code.h"

namespace clgen::corpus {
namespace {

const std::string kData = CLGEN_TEST_DATA "/host_code/";

std::string read(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  EXPECT_TRUE(in) << path;
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A golden file: per kernel, "@@ lines A-B\n", the text, "\n@@ end\n".
std::vector<HostKernel> read_golden(const std::string& path) {
  std::string g = read(path);
  std::vector<HostKernel> out;
  size_t i = 0;
  while ((i = g.find("@@ lines ", i)) != std::string::npos) {
    size_t eol = g.find('\n', i);
    HostKernel k;
    std::sscanf(g.substr(i + 9, eol - i - 9).c_str(), "%lld-%lld", reinterpret_cast<long long*>(&k.first_line),
                reinterpret_cast<long long*>(&k.last_line));
    size_t end = g.find("\n@@ end\n", eol);
    k.text = g.substr(eol + 1, end - eol - 1);
    out.push_back(k);
    i = end + 8;
  }
  return out;
}

void expect_golden(const std::string& file, HostLanguage language) {
  HostScan scan = extract_host_kernels(read(kData + file), language);
  std::vector<HostKernel> want = read_golden(kData + file + ".golden");
  ASSERT_EQ(scan.kernels.size(), want.size()) << file;
  for (size_t i = 0; i < want.size(); ++i) {
    EXPECT_EQ(scan.kernels[i].text, want[i].text) << file << " kernel " << i;
    EXPECT_EQ(scan.kernels[i].first_line, want[i].first_line) << file << " kernel " << i;
    EXPECT_EQ(scan.kernels[i].last_line, want[i].last_line) << file << " kernel " << i;
  }
}

// Adjacent literals, a raw string, a #define'd literal, escaped quotes and a
// STRINGIFY(...) argument; a prose literal and a '"' character literal give nothing.
TEST(HostCode, ReadsCppConcatenationsRawStringsMacrosAndEscapes) { expect_golden("cpp_kernels.cpp", HostLanguage::kC); }

// A triple-quoted kernel and a parenthesised '...' "..." concatenation; the
// f-string with {name} is no kernel text.
TEST(HostCode, ReadsPythonTripleQuotedAndConcatenatedStrings) { expect_golden("twice.py", HostLanguage::kPython); }

// "..." + "..." over five lines.
TEST(HostCode, ReadsJavaPlusConcatenation) { expect_golden("Saxpy.java", HostLanguage::kJava); }

TEST(HostCode, RecoversNothingFromProseThatMentionsKernel) {
  HostScan scan = extract_host_kernels(read(kData + "prose.cpp"), HostLanguage::kC);
  EXPECT_TRUE(scan.kernels.empty());
  EXPECT_EQ(scan.literals, 4);  // the four messages, each seen and refused
  EXPECT_TRUE(read_golden(kData + "prose.cpp.golden").empty());
}

TEST(HostCode, KernelTestNeedsTypeNameParametersAndBody) {
  EXPECT_TRUE(looks_like_kernel("__kernel void f(__global int* a) { a[0] = 1; }"));
  EXPECT_TRUE(looks_like_kernel("kernel\nvoid f(global int* a)\n/* body */ {}"));
  EXPECT_TRUE(looks_like_kernel("__kernel __attribute__((reqd_work_group_size(64, 1, 1))) void f() {}"));
  EXPECT_FALSE(looks_like_kernel("__kernel void f(__global int* a);"));  // a declaration
  EXPECT_FALSE(looks_like_kernel("run the kernel f(a) { once }"));       // no return type
  EXPECT_FALSE(looks_like_kernel("my_kernel void f() {}"));              // not the word
  EXPECT_FALSE(looks_like_kernel("kernels void f() {}"));
}

TEST(HostCode, ReadsRustRawStringsAndSkipsLifetimes) {
  const std::string code =
      "fn f<'a>(x: &'a str) -> char { 'k' }\n"
      "const SRC: &str = r#\"__kernel void k(__global float* a) { a[0] = \"x\"[0]; }\"#;\n"
      "const ESC: &str = \"__kernel void e(__global int* a) {\\\n    a[0] = 1; }\";\n";
  HostScan scan = extract_host_kernels(code, HostLanguage::kRust);
  ASSERT_EQ(scan.kernels.size(), 2u);
  EXPECT_EQ(scan.kernels[0].text, "__kernel void k(__global float* a) { a[0] = \"x\"[0]; }");
  EXPECT_EQ(scan.kernels[0].first_line, 2);
  // A backslash-newline in a Rust literal also drops the next line's indentation.
  EXPECT_EQ(scan.kernels[1].text, "__kernel void e(__global int* a) {a[0] = 1; }");
  EXPECT_EQ(scan.kernels[1].first_line, 3);
  EXPECT_EQ(scan.kernels[1].last_line, 4);
}

TEST(HostCode, LeavesOutJavaScriptTemplatesButReadsPlainBackticks) {
  const std::string code =
      "const a = `__kernel void k(__global float* a) { a[0] = ${value}; }`;\n"
      "const b = `__kernel void m(__global float* a) { a[0] = 2.0f; }`;\n"
      "const c = '__kernel void n(__global int* a) ' + \"{ a[0] = 3; }\";\n";
  HostScan scan = extract_host_kernels(code, HostLanguage::kJavaScript);
  EXPECT_EQ(scan.templates, 1);
  ASSERT_EQ(scan.kernels.size(), 2u);
  EXPECT_EQ(scan.kernels[0].text, "__kernel void m(__global float* a) { a[0] = 2.0f; }");
  EXPECT_EQ(scan.kernels[1].text, "__kernel void n(__global int* a) { a[0] = 3; }");
}

TEST(HostCode, ReadsGoRawStringsAndSkipsComments) {
  const std::string code =
      "// \"__kernel void c(int a) { }\" in a comment\n"
      "/* and \"__kernel void d(int a) { }\" here */\n"
      "var src = `__kernel void g(__global int* a) { a[0] = '\\n'; }`\n";
  HostScan scan = extract_host_kernels(code, HostLanguage::kGo);
  ASSERT_EQ(scan.kernels.size(), 1u);
  EXPECT_EQ(scan.kernels[0].text, "__kernel void g(__global int* a) { a[0] = '\\n'; }");  // raw: \n as written
  EXPECT_EQ(scan.kernels[0].first_line, 3);
}

TEST(HostCode, UnterminatedLiteralEndsAtTheEndOfTheFile) {
  HostScan scan = extract_host_kernels("x = \"\"\"__kernel void f(int a) { }", HostLanguage::kPython);
  ASSERT_EQ(scan.kernels.size(), 1u);
  EXPECT_EQ(scan.kernels[0].text, "__kernel void f(int a) { }");
}

TEST(HostCode, KnowsHostLanguagesByExtension) {
  EXPECT_EQ(host_language("src/main.CPP"), HostLanguage::kC);
  EXPECT_EQ(host_language("a/b.py"), HostLanguage::kPython);
  EXPECT_EQ(host_language("A.java"), HostLanguage::kJava);
  EXPECT_EQ(host_language("x.rs"), HostLanguage::kRust);
  EXPECT_FALSE(host_language("k.cl").has_value());
  EXPECT_FALSE(host_language("dir.py/README").has_value());
}

}  // namespace
}  // namespace clgen::corpus
