// Argument analysis (read/write, address spaces, vector widths), payload
// rules per argument kind, output comparison, statistics and size parsing.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <set>

#include <nlohmann/json.hpp>

#include "driver/args.h"
#include "driver/drive.h"
#include "driver/executor.h"
#include "driver/job.h"
#include "driver/payload.h"
#include "driver/stats.h"
#include "tests/driver/driver_test_util.h"

namespace clgen::driver {
namespace {

using testing::kernel_source;

const ArgInfo& arg(const KernelSignature& k, const std::string& name) {
  for (const auto& a : k.args)
    if (a.name == name) return a;
  ADD_FAILURE() << "no argument " << name;
  static ArgInfo none;
  return none;
}

#define REQUIRE_CLANG() \
  if (!have_clang_analysis()) GTEST_SKIP() << "built without Clang: no source analysis"

TEST(ArgAnalysis, DescribesEveryArgumentKind) {
  REQUIRE_CLANG();
  auto kernels = analyze_kernels(kernel_source("args_mix.cl"));
  ASSERT_TRUE(kernels.ok()) << kernels.status().message();
  ASSERT_EQ(kernels->size(), 1u);
  const KernelSignature& k = kernels->front();
  EXPECT_EQ(k.name, "args_mix");
  ASSERT_EQ(k.args.size(), 8u);
  EXPECT_TRUE(k.supported());

  const ArgInfo& in = arg(k, "in");
  EXPECT_TRUE(in.is_pointer);
  EXPECT_EQ(in.address_space, AddressSpace::kGlobal);
  EXPECT_TRUE(in.is_const);
  EXPECT_EQ(in.kind, ScalarKind::kFloat);
  EXPECT_EQ(in.element_size, 4);
  EXPECT_EQ(in.vector_width, 4);
  EXPECT_TRUE(in.reads);
  EXPECT_FALSE(in.writes);

  const ArgInfo& out = arg(k, "out");
  EXPECT_FALSE(out.reads);
  EXPECT_TRUE(out.writes);

  const ArgInfo& inout = arg(k, "inout");  // +=
  EXPECT_EQ(inout.kind, ScalarKind::kSigned);
  EXPECT_TRUE(inout.reads);
  EXPECT_TRUE(inout.writes);

  const ArgInfo& scratch = arg(k, "scratch");
  EXPECT_EQ(scratch.address_space, AddressSpace::kLocal);
  EXPECT_TRUE(scratch.reads);
  EXPECT_TRUE(scratch.writes);

  const ArgInfo& table = arg(k, "table");
  EXPECT_EQ(table.address_space, AddressSpace::kConstant);
  EXPECT_TRUE(table.reads);
  EXPECT_FALSE(table.writes);

  const ArgInfo& n = arg(k, "n");
  EXPECT_FALSE(n.is_pointer);
  EXPECT_EQ(n.kind, ScalarKind::kSigned);
  EXPECT_EQ(arg(k, "scale").kind, ScalarKind::kFloat);

  const ArgInfo& via_call = arg(k, "written_via_call");  // atomic_add(&p[0], ...)
  EXPECT_EQ(via_call.kind, ScalarKind::kUnsigned);
  EXPECT_TRUE(via_call.reads);
  EXPECT_TRUE(via_call.writes);
}

TEST(ArgAnalysis, RefusesInvalidUtf8AndNonAsciiCodeBeforeClang) {
  if (!have_clang_analysis()) GTEST_SKIP() << "built without Clang: no source analysis";
  // Found by fuzz_kernel_args: such bytes crashed Clang 15's front end
  // (recovered, but the abandoned compiler leaked). Comments may hold them.
  for (const std::string bad : {std::string("__kernel void k(__global float* a\x9c) { a[0] = 1; }\n"),
                                std::string("__kernel void k(__global float* a) { float b\xde\xb4 = a[0]; }\n")}) {
    auto sigs = analyze_kernels(bad);
    ASSERT_FALSE(sigs.ok());
    EXPECT_EQ(sigs.status().code(), ErrorCode::kParse);
    EXPECT_NE(sigs.status().message().find("refused before Clang"), std::string::npos) << sigs.status().message();
  }
  auto ok = analyze_kernels("// \xc3\xa9t\xc3\xa9\n__kernel void k(__global float* a) { a[0] = 1; }\n");
  ASSERT_TRUE(ok.ok()) << ok.status().message();
  EXPECT_EQ(ok->size(), 1u);
}

TEST(ArgAnalysis, VloadReadsVstoreWritesAndPointerArithmeticAccesses) {
  REQUIRE_CLANG();
  auto kernels = analyze_kernels(kernel_source("two_kernels.cl"));
  ASSERT_TRUE(kernels.ok()) << kernels.status().message();
  ASSERT_EQ(kernels->size(), 2u);
  const KernelSignature& scale2 = (*kernels)[0];
  EXPECT_TRUE(arg(scale2, "in").reads);
  EXPECT_FALSE(arg(scale2, "in").writes);
  EXPECT_FALSE(arg(scale2, "out").reads);
  EXPECT_TRUE(arg(scale2, "out").writes);
  const KernelSignature& copy = (*kernels)[1];
  EXPECT_EQ(copy.name, "copy_ptr");
  EXPECT_TRUE(arg(copy, "src").reads);
  EXPECT_FALSE(arg(copy, "src").writes);
  EXPECT_FALSE(arg(copy, "dst").reads);
  EXPECT_TRUE(arg(copy, "dst").writes);
}

TEST(ArgAnalysis, PassingAPointerToAFunctionCountsAsReadAndWrite) {
  REQUIRE_CLANG();
  auto kernels = analyze_kernels(
      "void helper(global float* p) { p[0] = 1.0f; }\n"
      "kernel void k(global float* a, global float* b) { helper(a); b[0] = b[1]; }\n");
  ASSERT_TRUE(kernels.ok()) << kernels.status().message();
  ASSERT_EQ(kernels->size(), 1u);  // helper is not a kernel
  EXPECT_TRUE(arg(kernels->front(), "a").reads);
  EXPECT_TRUE(arg(kernels->front(), "a").writes);
  EXPECT_TRUE(arg(kernels->front(), "b").reads);
  EXPECT_TRUE(arg(kernels->front(), "b").writes);
}

TEST(ArgAnalysis, VectorComponentStoresAreWrites) {
  REQUIRE_CLANG();
  auto kernels = analyze_kernels(
      "kernel void k(global float4* v, global int2* w) { v[0].x = 1.0f; w[1].y++; }\n");
  ASSERT_TRUE(kernels.ok()) << kernels.status().message();
  const KernelSignature& k = kernels->front();
  EXPECT_FALSE(arg(k, "v").reads);
  EXPECT_TRUE(arg(k, "v").writes);
  EXPECT_TRUE(arg(k, "w").reads);
  EXPECT_TRUE(arg(k, "w").writes);
  EXPECT_EQ(arg(k, "w").vector_width, 2);
}

// Structs are fed as their bytes (the size Clang lays out for spir64), void*
// buffers as 64-byte elements, image2d_t as RGBA images whose channel type
// the read/write builtins name, samplers as a sampler; other images stay
// unsupported.
TEST(ArgAnalysis, StructsVoidPointersImagesAndSamplersAreDescribedOneDimensionalImagesAreUnsupported) {
  REQUIRE_CLANG();
  auto kernels = analyze_kernels(kernel_source("struct_arg.cl"));
  ASSERT_TRUE(kernels.ok()) << kernels.status().message();
  ASSERT_TRUE(kernels->front().supported()) << kernels->front().unsupported_reason();
  EXPECT_EQ(arg(kernels->front(), "pairs").record_bytes, 8);  // { float x; int y; }
  EXPECT_EQ(arg(kernels->front(), "pairs").element_stride(), 8);
  EXPECT_TRUE(arg(kernels->front(), "pairs").reads);

  auto untyped = analyze_kernels(kernel_source("void_pointer.cl"));
  ASSERT_TRUE(untyped.ok()) << untyped.status().message();
  ASSERT_TRUE(untyped->front().supported()) << untyped->front().unsupported_reason();
  EXPECT_EQ(arg(untyped->front(), "in").record_bytes, 64) << "a void* buffer is raw bytes";
  EXPECT_TRUE(arg(untyped->front(), "in").reads);

  auto by_value = analyze_kernels(
      "typedef struct { int n; float s; double d; } p_t;\n"
      "kernel void k(p_t p, global float* out) { out[0] = p.n * p.s + p.d; }\n");
  ASSERT_TRUE(by_value.ok()) << by_value.status().message();
  EXPECT_EQ(arg(by_value->front(), "p").record_bytes, 16);  // 4 + 4 + 8

  auto image = analyze_kernels(
      "kernel void k(read_only image2d_t img, sampler_t s, write_only image2d_t o, global float4* out) {\n"
      "  out[0] = read_imagef(img, s, (int2)(0, 0));\n  write_imageui(o, (int2)(0, 0), (uint4)(1));\n}\n");
  ASSERT_TRUE(image.ok()) << image.status().message();
  const KernelSignature& k = image->front();
  ASSERT_TRUE(k.supported()) << k.unsupported_reason();
  EXPECT_TRUE(arg(k, "img").image);
  EXPECT_EQ(arg(k, "img").kind, ScalarKind::kFloat);
  EXPECT_TRUE(arg(k, "img").reads);
  EXPECT_FALSE(arg(k, "img").writes);
  EXPECT_TRUE(arg(k, "s").sampler);
  EXPECT_EQ(arg(k, "o").kind, ScalarKind::kUnsigned) << "write_imageui names the channel type";
  EXPECT_TRUE(arg(k, "o").writes);

  auto volume = analyze_kernels(kernel_source("image3d_arg.cl"));
  ASSERT_TRUE(volume.ok()) << volume.status().message();
  ASSERT_TRUE(volume->front().supported()) << volume->front().unsupported_reason();
  EXPECT_EQ(arg(volume->front(), "vol").image_shape, ImageShape::k3d);
  EXPECT_EQ(arg(volume->front(), "layers").image_shape, ImageShape::k2dArray);
  EXPECT_TRUE(arg(volume->front(), "layers").reads);

  auto line = analyze_kernels(kernel_source("image1d_arg.cl"));
  ASSERT_TRUE(line.ok()) << line.status().message();
  EXPECT_EQ(arg(line->front(), "line").unsupported_reason, "image other than image2d_t, image3d_t and image2d_array_t");
}

TEST(ArgAnalysis, CompileErrorsAreParseErrorsNamingTheProblem) {
  REQUIRE_CLANG();
  auto kernels = analyze_kernels(kernel_source("compile_error.cl"));
  ASSERT_FALSE(kernels.ok());
  EXPECT_EQ(kernels.status().code(), ErrorCode::kParse);
  EXPECT_NE(kernels.status().message().find("undeclared_value"), std::string::npos)
      << kernels.status().message();
}

TEST(ArgAnalysis, FrontEndCrashIsRecoveredAndReported) {
  REQUIRE_CLANG();
  // Clang's own crash trigger: the analysis runs in clgen's process, which
  // must survive it and go on analysing.
  auto crash = analyze_kernels("#pragma clang __debug crash\nkernel void k(global int* a) { a[0] = 1; }\n");
  ASSERT_FALSE(crash.ok());
  EXPECT_EQ(crash.status().code(), ErrorCode::kInternal) << crash.status().message();
  EXPECT_NE(crash.status().message().find("crashed"), std::string::npos) << crash.status().message();
  auto next = analyze_kernels(kernel_source("saxpy.cl"));
  ASSERT_TRUE(next.ok()) << next.status().message();
  EXPECT_EQ(next->front().name, "saxpy");
}

TEST(ArgAnalysis, ParsesDeviceTypeNames) {
  ScalarKind kind;
  int size, width;
  ASSERT_TRUE(parse_element_type("uint4", kind, size, width));
  EXPECT_EQ(kind, ScalarKind::kUnsigned);
  EXPECT_EQ(size, 4);
  EXPECT_EQ(width, 4);
  ASSERT_TRUE(parse_element_type("double", kind, size, width));
  EXPECT_EQ(kind, ScalarKind::kFloat);
  EXPECT_EQ(size, 8);
  EXPECT_FALSE(parse_element_type("half", kind, size, width));
  EXPECT_FALSE(parse_element_type("float5", kind, size, width));
  EXPECT_FALSE(parse_element_type("struct pair", kind, size, width));
}

ArgInfo pointer(AddressSpace space, ScalarKind kind, int size, int width, bool reads, bool writes) {
  ArgInfo a;
  a.name = "p";
  a.is_pointer = true;
  a.address_space = space;
  a.kind = kind;
  a.element_size = size;
  a.vector_width = width;
  a.reads = reads;
  a.writes = writes;
  return a;
}

ArgInfo scalar(ScalarKind kind, int size, int width = 1) {
  ArgInfo a = pointer(AddressSpace::kPrivate, kind, size, width, false, false);
  a.is_pointer = false;
  return a;
}

TEST(Payload, GlobalBuffersHoldSElementsTimesVectorWidth) {
  PayloadOptions o{1000, 1000, 65536, 7};
  auto p = make_payloads({pointer(AddressSpace::kGlobal, ScalarKind::kFloat, 4, 4, true, false),
                          pointer(AddressSpace::kConstant, ScalarKind::kSigned, 2, 1, true, false),
                          pointer(AddressSpace::kGlobal, ScalarKind::kFloat, 4, 3, true, true)},
                         o);
  ASSERT_TRUE(p.ok()) << p.status().message();
  EXPECT_EQ((*p)[0].data.size(), 1000u * 4 * 4);
  EXPECT_EQ((*p)[1].data.size(), 1000u * 2);
  EXPECT_EQ((*p)[2].data.size(), 1000u * 4 * 4);  // float3 occupies four floats
  for (size_t i = 0; i < 4000; ++i) {
    float f;
    std::memcpy(&f, (*p)[0].data.data() + 4 * i, 4);
    ASSERT_GE(f, 0.0f);
    ASSERT_LT(f, 1.0f);
  }
  for (size_t i = 0; i < 1000; ++i) {
    int16_t v;
    std::memcpy(&v, (*p)[1].data.data() + 2 * i, 2);
    ASSERT_GE(v, 0);
    ASSERT_LE(v, 1000);  // integers in [0, S]
  }
}

TEST(Payload, BuffersNeverReadStartZeroed) {
  auto p = make_payloads({pointer(AddressSpace::kGlobal, ScalarKind::kFloat, 4, 1, false, true)},
                         {256, 256, 65536, 1});
  ASSERT_TRUE(p.ok());
  for (uint8_t b : (*p)[0].data) ASSERT_EQ(b, 0);
}

TEST(Payload, LocalBuffersShareFreeLocalMemoryCappedAtS) {
  auto p = make_payloads({pointer(AddressSpace::kLocal, ScalarKind::kFloat, 4, 1, true, true),
                          pointer(AddressSpace::kLocal, ScalarKind::kFloat, 4, 2, true, true)},
                         {1u << 20, 1u << 20, 32768, 1});
  ASSERT_TRUE(p.ok());
  EXPECT_EQ((*p)[0].local_bytes, 16384u);  // half of 32 KiB
  EXPECT_EQ((*p)[1].local_bytes, 16384u);
  EXPECT_TRUE((*p)[0].data.empty());
  auto small = make_payloads({pointer(AddressSpace::kLocal, ScalarKind::kFloat, 4, 1, true, true)},
                             {64, 64, 32768, 1});
  ASSERT_TRUE(small.ok());
  EXPECT_EQ((*small)[0].local_bytes, 64u * 4);
  auto none = make_payloads({pointer(AddressSpace::kLocal, ScalarKind::kFloat, 8, 16, true, true)},
                            {64, 64, 100, 1});
  EXPECT_FALSE(none.ok());
}

TEST(Payload, IntegralScalarsGetSClampedAndFloatScalarsRandom) {
  auto p = make_payloads({scalar(ScalarKind::kSigned, 4), scalar(ScalarKind::kSigned, 1),
                          scalar(ScalarKind::kUnsigned, 8, 2), scalar(ScalarKind::kFloat, 4)},
                         {4096, 4096, 65536, 3});
  ASSERT_TRUE(p.ok());
  int32_t i;
  std::memcpy(&i, (*p)[0].data.data(), 4);
  EXPECT_EQ(i, 4096);
  EXPECT_EQ(static_cast<int8_t>((*p)[1].data[0]), 127);
  uint64_t lanes[2];
  ASSERT_EQ((*p)[2].data.size(), 16u);
  std::memcpy(lanes, (*p)[2].data.data(), 16);
  EXPECT_EQ(lanes[0], 4096u);
  EXPECT_EQ(lanes[1], 4096u);
  float f;
  std::memcpy(&f, (*p)[3].data.data(), 4);
  EXPECT_GE(f, 0.0f);
  EXPECT_LT(f, 1.0f);
}

TEST(Payload, SameSeedSamePayloadOtherSeedDifferent) {
  std::vector<ArgInfo> args = {pointer(AddressSpace::kGlobal, ScalarKind::kFloat, 4, 1, true, true)};
  auto a1 = make_payloads(args, {512, 512, 0, 11});
  auto a2 = make_payloads(args, {512, 512, 0, 11});
  auto b = make_payloads(args, {512, 512, 0, 12});
  EXPECT_EQ((*a1)[0].data, (*a2)[0].data);
  EXPECT_NE((*a1)[0].data, (*b)[0].data);
}

TEST(Compare, FloatsWithinToleranceAndNaNsAreEqual) {
  ArgInfo f = pointer(AddressSpace::kGlobal, ScalarKind::kFloat, 4, 1, true, true);
  auto bytes = [](std::vector<float> v) {
    std::vector<uint8_t> b(v.size() * 4);
    std::memcpy(b.data(), v.data(), b.size());
    return b;
  };
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_TRUE(buffers_equal(f, bytes({1.0f, nan, inf}), bytes({1.000001f, nan, inf})));
  EXPECT_FALSE(buffers_equal(f, bytes({1.0f}), bytes({1.001f})));
  EXPECT_FALSE(buffers_equal(f, bytes({nan}), bytes({0.0f})));
  EXPECT_FALSE(buffers_equal(f, bytes({inf}), bytes({-inf})));
  ArgInfo i = pointer(AddressSpace::kGlobal, ScalarKind::kSigned, 4, 1, true, true);
  EXPECT_FALSE(buffers_equal(i, {1, 0, 0, 0}, {2, 0, 0, 0}));
  EXPECT_TRUE(buffers_equal(i, {1, 0, 0, 0}, {1, 0, 0, 0}));
}

TEST(Stats, MeanMedianAndConfidenceInterval) {
  Summary s = summarize({10, 20, 30, 40});
  EXPECT_DOUBLE_EQ(s.mean, 25);
  EXPECT_DOUBLE_EQ(s.median, 25);
  // sd = 12.91; t(3) = 3.182; 3.182 * 12.91 / 2 = 20.54
  EXPECT_NEAR(s.ci95, 20.54, 0.01);
  EXPECT_DOUBLE_EQ(summarize({5}).ci95, 0);
  EXPECT_DOUBLE_EQ(summarize({3, 1, 2}).median, 2);
}

TEST(PickSources, StoredOrderWithoutASeedAndASeededSampleWithOne) {
  EXPECT_EQ(pick_sources(5, 3, 0), (std::vector<size_t>{0, 1, 2}));
  EXPECT_EQ(pick_sources(2, 0, 0), (std::vector<size_t>{0, 1}));
  std::vector<size_t> a = pick_sources(1000, 300, 7);
  ASSERT_EQ(a.size(), 300u);
  EXPECT_EQ(a, pick_sources(1000, 300, 7));  // reproducible
  EXPECT_NE(a, pick_sources(1000, 300, 8));
  std::set<size_t> distinct(a.begin(), a.end());
  EXPECT_EQ(distinct.size(), 300u);  // without replacement
  // A fair sample reaches past the first 300 stored sources: the chance that
  // all 300 of a random draw fall in the first 300 of 1,000 is nil.
  EXPECT_GT(*std::max_element(a.begin(), a.end()), 299u);
  EXPECT_GT(*distinct.rbegin(), 600u);
}

TEST(Sizes, ParsesSizesAndSweeps) {
  EXPECT_EQ(*parse_size("1024"), (std::vector<uint64_t>{1024}));
  EXPECT_EQ(*parse_size("16,16"), (std::vector<uint64_t>{16, 16}));
  EXPECT_FALSE(parse_size("0").ok());
  EXPECT_FALSE(parse_size("1,2,3,4").ok());
  EXPECT_FALSE(parse_size("12x").ok());
  auto sweep = parse_size_sweep("2^7..2^10");
  ASSERT_TRUE(sweep.ok());
  EXPECT_EQ(*sweep, (std::vector<uint64_t>{128, 256, 512, 1024}));
  EXPECT_EQ(parse_size_sweep("2^7..2^22")->size(), 16u);
  EXPECT_EQ(*parse_size_sweep("100..300"), (std::vector<uint64_t>{128, 256}));
  EXPECT_FALSE(parse_size_sweep("2^7").ok());
}

TEST(Sizes, AutomaticLocalSizeStaysWithinLimitsAndDivides) {
  EXPECT_EQ(automatic_local_size({4096}, 256, {1024}), (std::vector<uint64_t>{256}));
  EXPECT_EQ(automatic_local_size({1000}, 256, {1024}), (std::vector<uint64_t>{8}));
  EXPECT_EQ(automatic_local_size({64, 64}, 256, {1024, 1024}), (std::vector<uint64_t>{16, 16}));
  EXPECT_EQ(automatic_local_size({4096}, 4096, {64}), (std::vector<uint64_t>{64}));
}

TEST(Sizes, LocalSizeSweepListsEveryPowerOfTwoWithinDeviceLimits) {
  DeviceInfo d;
  d.max_work_group_size = 64;
  d.max_work_item_sizes = {64, 64, 64};
  auto one = local_size_sweep({256}, d);
  EXPECT_EQ(one.size(), 7u);  // 1..64
  auto two = local_size_sweep({8, 8}, d);
  EXPECT_EQ(two.size(), 16u);  // 4 x 4 combinations, all products <= 64
  for (const auto& l : two) EXPECT_LE(l[0] * l[1], 64u);
}

TEST(JobJson, RoundTripsJobsAndResults) {
  DriveJob job;
  job.source = "kernel void k() {}";
  job.kernel_name = "k";
  job.args = {pointer(AddressSpace::kLocal, ScalarKind::kUnsigned, 2, 8, true, false)};
  job.global_size = {64, 2};
  job.local_size = {8, 2};
  nlohmann::json j = job;
  DriveJob back = j.get<DriveJob>();
  EXPECT_EQ(back.kernel_name, "k");
  EXPECT_EQ(back.global_size, job.global_size);
  EXPECT_EQ(back.args[0].address_space, AddressSpace::kLocal);
  EXPECT_EQ(back.args[0].vector_width, 8);
  DriveResult r;
  r.outcome = Outcome::kInputInsensitive;
  r.kernel_ns = {1, 2, 3};
  nlohmann::json rj = r;
  EXPECT_EQ(rj["outcome"], "input insensitive");
  EXPECT_EQ(rj.get<DriveResult>().kernel_ns, r.kernel_ns);
}

}  // namespace
}  // namespace clgen::driver
