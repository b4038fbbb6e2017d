// A small task runner for the experiments: task(0..n-1) on a few threads,
// the first failure wins, an interrupt (Ctrl-C) cancels what has not started.
#pragma once

#include <cstddef>
#include <functional>

#include "support/status.h"

namespace clgen::predict {

// `requested` threads, or the cores (at most 16) when 0; never more than `tasks`, at least 1.
unsigned experiment_threads(unsigned requested, size_t tasks);

// Runs task(0..n-1) on `threads` threads; returns the first failure, or a
// kCancelled status when interrupted.
Status run_parallel(size_t n, unsigned threads, const std::function<Status(size_t)>& task);

}  // namespace clgen::predict
