// Process-wide logger set-up.
#include "support/log.h"

#include <spdlog/sinks/stdout_color_sinks.h>

namespace clgen {

void init_logging(Verbosity verbosity) {
  auto logger = spdlog::get("clgen");
  if (!logger) {
    logger = spdlog::stderr_color_mt("clgen");
    spdlog::set_default_logger(logger);
  }
  logger->set_pattern("[%^%l%$] %v");
  switch (verbosity) {
    case Verbosity::kQuiet: logger->set_level(spdlog::level::warn); break;
    case Verbosity::kNormal: logger->set_level(spdlog::level::info); break;
    case Verbosity::kVerbose: logger->set_level(spdlog::level::debug); break;
  }
}

}  // namespace clgen
