// A last-resort report for fatal signals: on SIGSEGV, SIGBUS, SIGILL, SIGFPE or
// SIGABRT print the signal and a raw backtrace to stderr, then die of the same
// signal (so exit statuses and core dumps stay what they were). Diagnoses
// crashes on machines without a debugger, such as the GPU machine.
#pragma once

namespace clgen {

// Installs the handlers once per process (later calls do nothing).
void install_crash_trace(const char* program);

}  // namespace clgen
