// clgen's own version and the shape in which modules report the versions of
// the libraries they link.
#pragma once

#include <string>
#include <vector>

namespace clgen {

// "0.1.0" (from CMake's project version).
const char* clgen_version();

struct DependencyVersion {
  std::string name;     // e.g. "SQLite"
  std::string version;  // e.g. "3.40.1"
  std::string source;   // "runtime" (asked of the loaded library) or "build" (headers)
};

// Versions of the libraries the support library links: SQLite, OpenSSL,
// fmt, spdlog, toml++.
std::vector<DependencyVersion> support_dependency_versions();

}  // namespace clgen
