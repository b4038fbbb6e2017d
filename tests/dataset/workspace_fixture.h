// A small real workspace database for the dataset tests: the corpus,
// preprocess, sampler and driver tables created by their own modules, with
// hand-written kernels and runs stored through the driver's API.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "corpus/preprocess/store.h"
#include "corpus/store.h"
#include "driver/runs.h"
#include "sampler/store.h"
#include "support/sha256.h"
#include "support/sqlite.h"

namespace clgen::dataset::testing {

inline const char* kCpuPlatform = "Portable Computing Language";
inline const char* kCpu = "cpu-haswell-Intel(R) Core(TM) i5";
inline const char* kGpuPlatform = "NVIDIA CUDA";
inline const char* kGpu = "NVIDIA GeForce GTX 1080";

// A corpus kernel: comp 2 (* +), mem 3 (a, a, b), coalesced 3 (a[i] a[i] b[i]).
inline const std::string kCorpusKernel =
    "__kernel void A(__global float* a, __global const float* b, const float c) {\n"
    "  int i = get_global_id(0);\n"
    "  a[i] = a[i] * c + b[i];\n"
    "}\n";
// A sample with two kernels. B1: mem 1, nothing else (the index is a call).
// B2: comp 1 (<<), rational 1 (<), mem 2, coalesced 2 (x[n] twice).
inline const std::string kSampleKernels =
    "__kernel void B1(__global int* x) { x[get_global_id(0)] = 1; }\n"
    "__kernel void B2(__global int* x, int n) { if (n < 3) x[n] = x[n] << 2; }\n";
// A file kernel, known only from kernel_sources. comp 3 (+ + *), mem 2
// (out, n; the reference definitions also count the __local parameter t
// twice: mem 4), localmem 2 (t[l] twice), coalesced 1 (out[g]), atomic 1.
inline const std::string kFileKernel =
    "__kernel void C(__global float* out, __local float* t, __global int* n) {\n"
    "  int g = get_global_id(0), l = get_local_id(0);\n"
    "  t[l] = g + 1;\n"
    "  barrier(CLK_LOCAL_MEM_FENCE);\n"
    "  out[g] = t[l] * 2.0f + 1.0f;\n"
    "  atomic_inc(n);\n"
    "}\n";
inline const std::string kFilePath = "/data/kernels/c.cl";

inline Status add_run(Database& db, const std::string& source, const std::string& kernel,
                      const std::string& origin, const std::string& platform,
                      const std::string& device, const std::string& global,
                      const std::string& requested, const std::string& outcome,
                      std::vector<uint64_t> kernel_ns, std::vector<uint64_t> transfer_ns,
                      std::vector<uint64_t> local, uint64_t bytes = 4096,
                      uint64_t kernel_wg = 256) {
  driver::RunRecord r;
  r.key = {sha256_hex(source), kernel, platform, device, "", global, requested};
  r.origin = origin;
  auto o = driver::parse_outcome(outcome);
  if (!o.ok()) return o.status();
  r.result.outcome = *o;
  r.result.local_size = std::move(local);
  r.result.transferred_bytes = bytes;
  r.result.kernel_ns = std::move(kernel_ns);
  r.result.transfer_ns = std::move(transfer_ns);
  r.result.kernel_work_group_size = kernel_wg;
  return driver::insert_run(db, r);
}

// Tables of every module, one repository with the corpus kernel, one
// accepted sample, and the file kernel's source.
inline void build_sources(Database& db) {
  ASSERT_TRUE(corpus::ensure_corpus_schema(db).ok());
  ASSERT_TRUE(preprocess::ensure_preprocess_schema(db).ok());
  ASSERT_TRUE(sampler::ensure_sampler_schema(db).ok());
  ASSERT_TRUE(driver::ensure_driver_schema(db).ok());
  ASSERT_TRUE(db.exec("INSERT INTO repositories(id, source, kind, owner, name) VALUES "
                      "(7, 'https://github.com/alice/stencils.git', 'github', 'alice', 'stencils');"
                      "INSERT INTO content_files(sha256, text, size, language, first_seen) VALUES "
                      "('c0ffee', 'original text', 13, 'opencl', '2026-11-21');"
                      "INSERT INTO content_origins(sha256, repository_id, commit_sha, path) VALUES "
                      "('c0ffee', 7, 'abc', 'src/a.cl');")
                  .ok());
  auto pre = db.prepare("INSERT INTO preprocessed(content_sha256, preprocessor_version, status, "
                        "normalized_text, normalized_sha256) VALUES ('c0ffee', 'v1', 'ok', ?1, ?2)");
  ASSERT_TRUE(pre.ok());
  ASSERT_TRUE(pre->bind(1, kCorpusKernel).ok() && pre->bind(2, sha256_hex(kCorpusKernel)).ok() &&
              pre->run().ok());
  auto smp = db.prepare("INSERT INTO samples(id, text, normalized_text, normalized_sha256, status, "
                        "args, model_id) VALUES (3, 'raw', ?1, ?2, 'accepted', '{}', 'm42')");
  ASSERT_TRUE(smp.ok());
  ASSERT_TRUE(smp->bind(1, kSampleKernels).ok() && smp->bind(2, sha256_hex(kSampleKernels)).ok() &&
              smp->run().ok());
  ASSERT_TRUE(driver::store_kernel_source(db, sha256_hex(kFileKernel), kFileKernel, kFilePath).ok());
}

// Runs for the mapping export on the two devices (times in ns):
//   A  4096: CPU 2000+500, GPU 100+2000 -> GPU; A 8192 on the CPU only
//   B1 4096: CPU 1000+0,   GPU 5000+1000 -> CPU; B2 4096: GPU output wrong
//   C  64,64 requested 8,8 on both: CPU 300+100, GPU 700+100 -> CPU
//   D  (no source anywhere) 4096 on both
inline void build_mapping_runs(Database& db) {
  auto ok = [](const Status& s) { ASSERT_TRUE(s.ok()) << s.message(); };
  ok(add_run(db, kCorpusKernel, "A", "corpus", kCpuPlatform, kCpu, "4096", "", "pass",
             {1000, 3000}, {400, 600}, {64}, 49152));
  ok(add_run(db, kCorpusKernel, "A", "corpus", kGpuPlatform, kGpu, "4096", "", "pass", {100, 100},
             {2000, 2000}, {256}, 49152));
  ok(add_run(db, kCorpusKernel, "A", "corpus", kCpuPlatform, kCpu, "8192", "", "pass", {10}, {10},
             {64}));
  ok(add_run(db, kSampleKernels, "B1", "samples", kCpuPlatform, kCpu, "4096", "", "pass", {1000},
             {0}, {64}));
  ok(add_run(db, kSampleKernels, "B1", "samples", kGpuPlatform, kGpu, "4096", "", "pass", {5000},
             {1000}, {128}));
  ok(add_run(db, kSampleKernels, "B2", "samples", kCpuPlatform, kCpu, "4096", "", "pass", {10},
             {10}, {64}));
  ok(add_run(db, kSampleKernels, "B2", "samples", kGpuPlatform, kGpu, "4096", "", "nondeterministic",
             {}, {}, {128}));
  ok(add_run(db, kFileKernel, "C", kFilePath, kCpuPlatform, kCpu, "64,64", "8,8", "pass", {300},
             {100}, {8, 8}));
  ok(add_run(db, kFileKernel, "C", kFilePath, kGpuPlatform, kGpu, "64,64", "8,8", "pass", {700},
             {100}, {8, 8}));
  const std::string lost = "__kernel void D(__global int* x) { x[0] = 0; }\n";
  ok(add_run(db, lost, "D", "/gone/d.cl", kCpuPlatform, kCpu, "4096", "", "pass", {1}, {1}, {64}));
  ok(add_run(db, lost, "D", "/gone/d.cl", kGpuPlatform, kGpu, "4096", "", "pass", {1}, {1}, {64}));
}

// Sweeps for the wgsize export:
//   A on the GPU at 4096: 32 -> 0.5 ms, 64 -> 0.25 ms, 128 refused
//   C on the CPU at 64,64: 8,8 -> 0.0003 ms (from the mapping runs), 16,16 -> 0.0002 ms,
//     32,32 refused; C on the GPU at 64,64 has one requested size only (no sweep)
inline void build_sweep_runs(Database& db) {
  auto ok = [](const Status& s) { ASSERT_TRUE(s.ok()) << s.message(); };
  ok(add_run(db, kCorpusKernel, "A", "corpus", kGpuPlatform, kGpu, "4096", "32", "pass", {500000},
             {1}, {32}, 49152, 1024));
  ok(add_run(db, kCorpusKernel, "A", "corpus", kGpuPlatform, kGpu, "4096", "64", "pass", {250000},
             {1}, {64}, 49152, 1024));
  ok(add_run(db, kCorpusKernel, "A", "corpus", kGpuPlatform, kGpu, "4096", "128",
             "invalid launch parameters", {}, {}, {128}, 49152, 1024));
  ok(add_run(db, kFileKernel, "C", kFilePath, kCpuPlatform, kCpu, "64,64", "16,16", "pass", {200},
             {100}, {16, 16}));
  ok(add_run(db, kFileKernel, "C", kFilePath, kCpuPlatform, kCpu, "64,64", "32,32",
             "invalid launch parameters", {}, {}, {32, 32}));
}

}  // namespace clgen::dataset::testing
