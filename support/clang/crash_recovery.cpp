// LLVM's CrashRecoveryContext behind run_with_crash_recovery, and the
// out-of-memory exit of worker processes (crash_recovery.h).
#include "support/clang/crash_recovery.h"

#include <unistd.h>

#include <mutex>
#include <new>

#include <llvm/Support/CrashRecoveryContext.h>
#include <llvm/Support/ErrorHandling.h>

#include "support/child_process.h"

namespace clgen::clang_support {

bool run_with_crash_recovery(const std::function<void()>& fn) {
  static std::once_flag once;
  std::call_once(once, [] { llvm::CrashRecoveryContext::Enable(); });
  llvm::CrashRecoveryContext crc;
  return crc.RunSafely(fn);
}

namespace {
[[noreturn]] void out_of_memory() {
  static const char kMessage[] = "clgen: Clang worker out of memory\n";
  (void)!::write(STDERR_FILENO, kMessage, sizeof kMessage - 1);
  ::_exit(kChildOutOfMemoryExit);
}
}  // namespace

void exit_on_out_of_memory() {
  std::set_new_handler(out_of_memory);
  llvm::install_bad_alloc_error_handler([](void*, const char*, bool) { out_of_memory(); });
}

}  // namespace clgen::clang_support
