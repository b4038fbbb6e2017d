// Golden tests of the LLVM-IR kernel features on hand-written kernels. The
// expected counts are derived by hand from how Clang 15 emits OpenCL C at -O0
// (opaque pointers; each subscript = sext of the int index + getelementptr;
// builtins and user functions stay calls), after mem2reg (parameter and local
// stack slots, their loads and stores disappear) and ADCE.
#include "features/ir_features.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>

namespace clgen::features {
namespace {

// Opcode -> count of the one kernel in `source` ("other" included); checks
// that the counts add up to the total.
std::map<std::string, long> counts_of(const std::string& source, long* total) {
  auto rows = extract_ir_features(source);
  EXPECT_TRUE(rows.ok()) << rows.status().message();
  std::map<std::string, long> out;
  if (!rows.ok() || rows->size() != 1) {
    ADD_FAILURE() << "expected one kernel";
    return out;
  }
  const IrFeatures& f = rows->front();
  long sum = 0;
  for (size_t i = 0; i < f.counts.size(); ++i) {
    if (f.counts[i] == 0) continue;
    out[i < ir_opcodes().size() ? ir_opcodes()[i] : "other"] = f.counts[i];
    sum += f.counts[i];
  }
  EXPECT_EQ(sum, f.total);
  *total = f.total;
  return out;
}

TEST(IrFeatures, CountsAVectorAddByOpcode) {
  long total = 0;
  auto c = counts_of(R"(
__kernel void vadd(__global float* a, __global const float* b) {
  int i = get_global_id(0);  // call get_global_id; trunc size_t -> int
  a[i] = a[i] + b[i];        // 3 x (sext, getelementptr); 2 loads; fadd; store
})",
                     &total);  // + ret
  std::map<std::string, long> want = {{"call", 1}, {"trunc", 1}, {"sext", 3}, {"getelementptr", 3},
                                      {"load", 2}, {"fadd", 1},  {"store", 1}, {"ret", 1}};
  EXPECT_EQ(c, want);
  EXPECT_EQ(total, 13);
}

TEST(IrFeatures, CountsBranchesAndComparisons) {
  long total = 0;
  auto c = counts_of(R"(
__kernel void twice(__global int* x, const int n) {
  int i = get_global_id(0);  // call; trunc
  if (i < n)                 // icmp; conditional br
    x[i] = x[i] * 2;         // 2 x (sext, getelementptr); load; mul; store; br to the end
})",
                     &total);  // + ret
  std::map<std::string, long> want = {{"call", 1}, {"trunc", 1}, {"icmp", 1},  {"br", 2},
                                      {"sext", 2}, {"getelementptr", 2}, {"load", 1},
                                      {"mul", 1},  {"store", 1}, {"ret", 1}};
  EXPECT_EQ(c, want);
  EXPECT_EQ(total, 13);
}

TEST(IrFeatures, UserFunctionsAreCallsAndTheirBodiesAreNotCounted) {
  long total = 0;
  auto c = counts_of(R"(
float sq(float v) { return v * v; }  // not a kernel: its fmul is not counted
__kernel void k(__global float* a) {
  a[0] = sq(a[1]);  // getelementptr a+1; load; call sq; getelementptr a+0; store
})",
                     &total);  // + ret
  std::map<std::string, long> want = {{"getelementptr", 2}, {"load", 1}, {"call", 1},
                                      {"store", 1},         {"ret", 1}};
  EXPECT_EQ(c, want);
  EXPECT_EQ(total, 6);
}

TEST(IrFeatures, KernelsKeepSourceOrderAndDensitiesDivideByTheTotal) {
  auto rows = extract_ir_features(
      "__kernel void z(__global int* x) { x[0] = 1; }\n"   // getelementptr; store; ret
      "__kernel void a(__global int* x) { x[1] = 2; }\n");
  ASSERT_TRUE(rows.ok()) << rows.status().message();
  ASSERT_EQ(rows->size(), 2u);
  EXPECT_EQ((*rows)[0].kernel, "z");
  EXPECT_EQ((*rows)[1].kernel, "a");
  EXPECT_EQ((*rows)[0].total, 3);

  const auto& ops = ir_opcodes();
  auto idx = [&](const std::string& op) {
    return static_cast<size_t>(std::find(ops.begin(), ops.end(), op) - ops.begin());
  };
  // Values: total, one count per opcode, other, then one density per opcode, other.
  std::string values = ir_features_csv_values((*rows)[0]);
  std::vector<std::string> fields;
  for (size_t start = 0;;) {
    size_t comma = values.find(',', start);
    fields.push_back(values.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  const size_t n = ops.size() + 1;
  ASSERT_EQ(fields.size(), 1 + 2 * n);
  EXPECT_EQ(fields[0], "3");
  EXPECT_EQ(fields[1 + idx("store")], "1");
  EXPECT_EQ(fields[1 + n + idx("store")], "0.333333");
  EXPECT_EQ(fields[1 + n + idx("fadd")], "0");

  std::string header = ir_features_csv_header();
  EXPECT_EQ(header.rfind("ir_total,ir_ret,ir_br,ir_switch,", 0), 0u) << header;
  EXPECT_EQ(std::count(header.begin(), header.end(), ','), static_cast<long>(2 * n));
  EXPECT_NE(header.find(",ir_other,ir_ret_density,"), std::string::npos);
  EXPECT_EQ(header.substr(header.size() - 17), ",ir_other_density");
  EXPECT_EQ(ir_features_csv_empty(), std::string(2 * n, ','));
}

TEST(IrFeatures, CompileErrorsAndMissingKernelsFail) {
  auto bad = extract_ir_features("__kernel void k(__global int* x) { x[0] = y; }");
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("undeclared identifier"), std::string::npos)
      << bad.status().message();
  auto none = extract_ir_features("int f(int x) { return x + 1; }");
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.status().code(), ErrorCode::kInvalidArgument);
}

}  // namespace
}  // namespace clgen::features
