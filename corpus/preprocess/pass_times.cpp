// CPU time by preprocessor pass (pass_times.h).
#include "corpus/preprocess/pass_times.h"

#include <fcntl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <cstdlib>
#include <mutex>

#include <fmt/format.h>

namespace clgen::preprocess {

namespace {

double thread_cpu_seconds() {
  timespec ts{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

std::mutex& totals_mutex() {
  static std::mutex m;
  return m;
}
std::map<std::string, PassTime>& totals() {
  static auto* t = new std::map<std::string, PassTime>;  // never destroyed: the worker exits with _exit
  return *t;
}

thread_local PassTimer* innermost = nullptr;

}  // namespace

PassTimer::PassTimer(const char* pass, bool inclusive)
    : pass_(pass), start_(thread_cpu_seconds()), inclusive_(inclusive) {
  if (inclusive_) return;
  outer_ = innermost;
  innermost = this;
}

PassTimer::~PassTimer() {
  const double spent = thread_cpu_seconds() - start_;
  if (!inclusive_) {
    innermost = outer_;
    if (outer_) outer_->nested_ += spent;
  }
  std::lock_guard<std::mutex> lock(totals_mutex());
  PassTime& t = totals()[pass_];
  t.seconds += spent - nested_;
  ++t.calls;
}

std::map<std::string, PassTime> pass_times() {
  std::lock_guard<std::mutex> lock(totals_mutex());
  return totals();
}

void write_pass_times() {
  const char* path = std::getenv("CLGEN_PASS_TIMES");
  if (!path || !*path) return;
  std::string lines;
  for (const auto& [pass, t] : pass_times()) lines += fmt::format("{} {:.6f} {}\n", pass, t.seconds, t.calls);
  rusage ru{};
  ::getrusage(RUSAGE_SELF, &ru);
  const double process =
      double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e-6;
  lines += fmt::format("process {:.6f} 1\n", process);
  // One write with O_APPEND, so the lines of workers exiting together do not interleave.
  int fd = ::open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return;
  [[maybe_unused]] ssize_t n = ::write(fd, lines.data(), lines.size());
  ::close(fd);
}

}  // namespace clgen::preprocess
