// Linked into every test binary: a crash prints a backtrace (support/crash_trace.h)
// instead of dying silently, which is what tells a crash on the GPU machine apart.
#include "support/crash_trace.h"

namespace {
const bool kInstalled = (clgen::install_crash_trace("clgen test"), true);
}  // namespace
