// Fatal-signal backtraces (see crash_trace.h). Only async-signal-safe calls
// run in the handler: write(2), backtrace_symbols_fd, sigaction, raise.
#include "support/crash_trace.h"

#include <execinfo.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <ucontext.h>
#include <string.h>
#include <unistd.h>

#include <atomic>

namespace clgen {

namespace {

const char* g_program = "clgen";
std::atomic<bool> g_installed{false};
constexpr int kSignals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};

void put(const char* s) {
  ssize_t ignored = write(STDERR_FILENO, s, strlen(s));
  (void)ignored;
}

void put_hex(uintptr_t v) {
  char buf[2 + 16 + 1];
  char* p = buf + sizeof buf;
  *--p = '\0';
  do {
    *--p = "0123456789abcdef"[v & 15];
    v >>= 4;
  } while (v);
  *--p = 'x';
  *--p = '0';
  put(p);
}

// Prints the line of /proc/self/maps that contains `addr`: which library (or
// none) the faulting instruction belongs to, even where unwinding stops.
void put_mapping(uintptr_t addr) {
  int fd = open("/proc/self/maps", O_RDONLY);
  if (fd < 0) return;
  char line[512];
  size_t len = 0;
  char c;
  bool found = false;
  while (!found && read(fd, &c, 1) == 1) {
    if (c != '\n') {
      if (len + 1 < sizeof line) line[len++] = c;
      continue;
    }
    line[len] = '\0';
    // "start-end perms offset dev inode path"
    uintptr_t lo = 0, hi = 0;
    const char* q = line;
    for (; *q && *q != '-'; ++q) lo = lo * 16 + uintptr_t(*q <= '9' ? *q - '0' : (*q | 32) - 'a' + 10);
    if (*q == '-') ++q;
    for (; *q && *q != ' '; ++q) hi = hi * 16 + uintptr_t(*q <= '9' ? *q - '0' : (*q | 32) - 'a' + 10);
    if (addr >= lo && addr < hi) {
      put("  in mapping: ");
      put(line);
      put("\n");
      found = true;
    }
    len = 0;
  }
  if (!found) put("  in no mapping\n");
  close(fd);
}

void on_fatal_signal(int sig, siginfo_t* info, void* context) {
  put(g_program);
  put(": fatal signal ");
  put(strsignal(sig));  // glibc's table lookup; does not allocate
#if defined(__x86_64__)
  uintptr_t pc = uintptr_t(static_cast<ucontext_t*>(context)->uc_mcontext.gregs[REG_RIP]);
  put(" at pc ");
  put_hex(pc);
  put(", fault address ");
  put_hex(uintptr_t(info->si_addr));
  put("\n");
  put_mapping(pc);
  if (pc < 4096) {
    // A call through a null (or tiny) function pointer: the caller's return
    // address is the word on top of the stack.
    uintptr_t ret = *reinterpret_cast<uintptr_t*>(
        static_cast<ucontext_t*>(context)->uc_mcontext.gregs[REG_RSP]);
    put("  called from ");
    put_hex(ret);
    put("\n");
    put_mapping(ret);
  }
#else
  (void)info;
  (void)context;
  put("\n");
#endif
  put("backtrace:\n");
  void* frames[64];
  int n = backtrace(frames, 64);
  backtrace_symbols_fd(frames, n, STDERR_FILENO);
  // Die of the same signal with the default action.
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  sigaction(sig, &dfl, nullptr);
  raise(sig);
}

}  // namespace

void install_crash_trace(const char* program) {
  if (g_installed.exchange(true)) return;
  g_program = program;
  // backtrace() loads libgcc_s on first use, which is not safe inside a
  // handler: call it once here.
  void* warm[1];
  backtrace(warm, 1);
  struct sigaction sa {};
  sa.sa_sigaction = on_fatal_signal;
  sigemptyset(&sa.sa_mask);
  sa.sa_flags = SA_SIGINFO | SA_RESETHAND | SA_NODEFER;
  for (int sig : kSignals) sigaction(sig, &sa, nullptr);
}

}  // namespace clgen
