// Version reporting for the support library's dependencies.
#include "support/version.h"

#include <openssl/crypto.h>
#include <sqlite3.h>

#include <fmt/core.h>
#include <spdlog/version.h>
#include <toml++/toml.h>

namespace clgen {

const char* clgen_version() { return CLGEN_VERSION_STRING; }

std::vector<DependencyVersion> support_dependency_versions() {
  return {
      {"SQLite", sqlite3_libversion(), "runtime"},
      {"OpenSSL", OpenSSL_version(OPENSSL_VERSION), "runtime"},
      {"fmt", fmt::format("{}.{}.{}", FMT_VERSION / 10000, FMT_VERSION / 100 % 100,
                          FMT_VERSION % 100), "build"},
      {"spdlog", fmt::format("{}.{}.{}", SPDLOG_VER_MAJOR, SPDLOG_VER_MINOR, SPDLOG_VER_PATCH),
       "build"},
      {"toml++", fmt::format("{}.{}.{}", TOML_LIB_MAJOR, TOML_LIB_MINOR, TOML_LIB_PATCH),
       "build"},
  };
}

}  // namespace clgen
