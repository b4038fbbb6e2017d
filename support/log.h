// Logging through spdlog: one stderr logger for the whole process.
#pragma once

#include <spdlog/spdlog.h>

namespace clgen {

enum class Verbosity { kQuiet, kNormal, kVerbose };

// Configures the process logger (stderr, "[level] message"). Safe to call again.
void init_logging(Verbosity verbosity);

}  // namespace clgen
