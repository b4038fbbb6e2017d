// LLVM's CrashRecoveryContext behind run_with_crash_recovery (crash_recovery.h).
#include "support/clang/crash_recovery.h"

#include <mutex>

#include <llvm/Support/CrashRecoveryContext.h>

namespace clgen::clang_support {

bool run_with_crash_recovery(const std::function<void()>& fn) {
  static std::once_flag once;
  std::call_once(once, [] { llvm::CrashRecoveryContext::Enable(); });
  llvm::CrashRecoveryContext crc;
  return crc.RunSafely(fn);
}

}  // namespace clgen::clang_support
