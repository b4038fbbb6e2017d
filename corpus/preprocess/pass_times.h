// CPU time by preprocessor pass, for measuring where preprocessing goes.
// Each PassTimer adds the thread CPU time of its scope to its pass,
// exclusive of the timers nested inside it (inference's compile rounds count
// as inference, not as compile). The clock is read twice a scope; nothing is
// written unless CLGEN_PASS_TIMES names a file (see write_pass_times).
#pragma once

#include <map>
#include <string>

namespace clgen::preprocess {

class PassTimer {
 public:
  // `inclusive`: the scope's whole time is recorded under `pass` and nothing
  // is taken from the timers around it (a span such as a second chance,
  // whose passes count under their own names too).
  explicit PassTimer(const char* pass, bool inclusive = false);
  ~PassTimer();
  PassTimer(const PassTimer&) = delete;
  PassTimer& operator=(const PassTimer&) = delete;

 private:
  const char* pass_;
  double start_ = 0;   // thread CPU seconds when the scope began
  double nested_ = 0;  // CPU seconds of the timers inside it
  PassTimer* outer_ = nullptr;
  bool inclusive_ = false;
};

// CPU seconds and scopes by pass, summed over the process's threads so far.
struct PassTime {
  double seconds = 0;
  long long calls = 0;
};
std::map<std::string, PassTime> pass_times();

// When the environment variable CLGEN_PASS_TIMES names a file, appends one
// line per pass ("PASS SECONDS CALLS") and "process SECONDS 1" (the
// process's own user + system CPU time) to it; a no-op otherwise. The Clang
// worker calls it when it exits.
void write_pass_times();

}  // namespace clgen::preprocess
