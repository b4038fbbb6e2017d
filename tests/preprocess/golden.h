// Golden-file helpers for the preprocess tests: inputs X.cl beside expected
// X.expected.cl; CLGEN_UPDATE_GOLDEN=1 rewrites the expected files (review them).
#pragma once

#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "support/files.h"

namespace clgen::testing {

inline std::string golden_dir(const std::string& sub) {
  return std::string(CLGEN_TEST_DATA) + "/preprocess/" + sub;
}

// Input files (not *.expected.cl) of a golden directory, sorted.
inline std::vector<std::string> golden_inputs(const std::string& sub) {
  std::vector<std::string> out;
  for (const auto& e : std::filesystem::directory_iterator(golden_dir(sub))) {
    std::string p = e.path().string();
    if (p.size() > 3 && p.compare(p.size() - 3, 3, ".cl") == 0 &&
        p.find(".expected.cl") == std::string::npos) {
      out.push_back(p);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

inline std::string expected_path(const std::string& input) {
  return input.substr(0, input.size() - 3) + ".expected.cl";
}

inline bool update_golden() {
  const char* v = std::getenv("CLGEN_UPDATE_GOLDEN");
  return v && std::string(v) == "1";
}

inline std::string read_or_empty(const std::string& path) {
  auto r = clgen::read_file(path);
  return r ? *r : std::string();
}

}  // namespace clgen::testing
