// clgen-clang-worker: the process in which clgen's preprocessor runs Clang on
// untrusted text, under the memory limit and wall-clock deadline its parent
// (budget.h) sets, so a macro bomb costs a worker, never clgen. It links the
// preprocessor and nothing of LibTorch, OpenCV or OpenCL, so it starts fast.
//
//   clgen-clang-worker   serve requests on fds 3 and 4 (started by clgen)
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <new>

#include <llvm/Support/ErrorHandling.h>

#include "corpus/preprocess/clang_protocol.h"
#include "support/child_process.h"
#include "support/frames.h"

namespace {

using namespace clgen;
using namespace clgen::preprocess;

// A failed allocation is the memory limit: exit with a status the parent
// reads as such. Without this, LLVM reports "out of memory" as a fatal error,
// which its crash recovery turns into an ordinary clang_crash verdict.
[[noreturn]] void out_of_memory() {
  static const char kMessage[] = "clgen-clang-worker: out of memory\n";
  (void)!::write(STDERR_FILENO, kMessage, sizeof kMessage - 1);
  ::_exit(kClangWorkerOutOfMemoryExit);
}

bool is_pipe(int fd) {
  struct stat st;
  return ::fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode);
}

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
    if (!r.ok) return encode_error(internal_error("the probe kernel does not compile: " + r.reason));
    return encode_answer("pong");
  }
  if (request.op == "rewrite") {
    RewriteResult r = rewrite(request.text, request.options);
    exit_after = crashed(r);
    return encode_answer(r, exit_after);
  }
  if (request.op == "rewrite_kernels") {
    FileRewriteResult r = rewrite_kernels(request.text, request.options);
    exit_after = crashed(r);
    return encode_answer(r, exit_after);
  }
  return encode_error(invalid_argument("unknown Clang worker request '" + request.op + "'"));
}

}  // namespace

int main(int argc, char** argv) {
  (void)argv;
  if (argc != 1 || !is_pipe(kChildRequestFd) || !is_pipe(kChildResponseFd)) {
    std::fprintf(stderr,
                 "usage: clgen-clang-worker\n"
                 "  Runs Clang for clgen's preprocessor: started by clgen with request/answer\n"
                 "  pipes on file descriptors %d and %d.\n",
                 kChildRequestFd, kChildResponseFd);
    return 2;
  }
  std::set_new_handler(out_of_memory);
  llvm::install_bad_alloc_error_handler([](void*, const char*, bool) { out_of_memory(); });
  std::string frame;
  while (read_frame(kChildRequestFd, frame, -1).ok()) {
    Expected<ClangRequest> request = decode_request(frame);
    if (request.ok() && request->op == "exit") break;
    bool exit_after = false;
    std::string reply = request.ok() ? answer(*request, exit_after) : encode_error(request.status());
    if (!write_frame(kChildResponseFd, reply).ok() || exit_after) break;
  }
  std::fflush(nullptr);
  ::_exit(0);  // skip LLVM's static destructors
}
