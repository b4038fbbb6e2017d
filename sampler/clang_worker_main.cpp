// clgen-clang-worker: the process in which clgen's preprocessor and the
// sampler's filter (sampler/clang_filter.h) run Clang on untrusted text,
// under the memory limit and wall-clock deadline their parent (budget.h)
// sets, so a macro bomb costs a worker, never clgen. It links the
// preprocessor, the static features and the filter, and nothing of
// LibTorch, OpenCV or OpenCL, so it starts fast.
//
//   clgen-clang-worker   serve requests on fds 3 and 4 (started by clgen)
#include <malloc.h>
#include <unistd.h>

#include <cstdio>

#include "corpus/preprocess/clang_protocol.h"
#include "corpus/preprocess/pass_times.h"
#include "sampler/clang_filter.h"
#include "support/child_process.h"
#include "support/clang/crash_recovery.h"
#include "support/frames.h"
#include "support/worker_answer.h"

namespace {

using namespace clgen;
using namespace clgen::preprocess;

// A kernel every set-up compiles: the answer to a ping, after the builtin
// header's PCH for the options is built.
constexpr const char* kProbe = "__kernel void probe(__global int* a) { a[get_global_id(0)] = 1; }\n";

bool crashed(const RewriteResult& r) { return r.category == category::kClangCrash; }
bool crashed(const FileRewriteResult& r) {
  if (r.category == category::kClangCrash) return true;
  for (const RewriteResult& k : r.kernels)
    if (crashed(k)) return true;
  return false;
}

// The answer to `request`; `exit_after` when Clang crashed on it (recovered,
// but the process may have leaked or half-updated state: a fresh worker
// takes the next request).
std::string answer(const ClangRequest& request, bool& exit_after) {
  if (request.op == "ping") {
    CompileResult r = compile(kProbe, request.options);
    if (!r.ok) return encode_worker_error(internal_error("the probe kernel does not compile: " + r.reason));
    return encode_worker_answer("pong");
  }
  if (request.op == "rewrite") {
    RewriteResult r = rewrite(request.text, request.options);
    exit_after = crashed(r);
    return encode_worker_answer(r, exit_after);
  }
  if (request.op == "rewrite_kernels") {
    FileRewriteResult r = rewrite_kernels(request.text, request.options);
    exit_after = crashed(r);
    return encode_worker_answer(r, exit_after);
  }
  if (request.op == sampler::kFilterOp) return sampler::answer_filter_request(request.text, request.params, exit_after);
  return encode_worker_error(invalid_argument("unknown Clang worker request '" + request.op + "'"));
}

}  // namespace

int main(int argc, char**) {
  if (!started_as_child(argc, "clgen-clang-worker", "Runs Clang for clgen's preprocessor")) return 2;
  clang_support::exit_on_out_of_memory();  // the memory limit: an exit the parent tells from a crash
  // Keep freed memory for the next request: with glibc's defaults this
  // process returned Clang's heap to the kernel after each one and faulted
  // it in again (about 2.4x the page faults of the same work in clgen, and
  // up to 11% of the sample filter's throughput; docs/BENCHMARKS.md). Retained
  // memory still counts against the memory limit; a worker holds at most
  // what its largest request needed.
  ::mallopt(M_MMAP_THRESHOLD, 32 << 20);  // glibc's largest; larger blocks still come from mmap
  ::mallopt(M_TRIM_THRESHOLD, 256 << 20);
  std::string frame;
  while (read_frame(kChildRequestFd, frame, -1).ok()) {
    Expected<ClangRequest> request = decode_request(frame);
    if (request.ok() && request->op == "exit") break;
    bool exit_after = false;
    std::string reply = request.ok() ? answer(*request, exit_after) : encode_worker_error(request.status());
    if (!write_frame(kChildResponseFd, reply).ok() || exit_after) break;
  }
  write_pass_times();  // CLGEN_PASS_TIMES: CPU by pass, for measurements
  std::fflush(nullptr);
  ::_exit(0);  // skip LLVM's static destructors
}
