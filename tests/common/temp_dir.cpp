// TempDir (temp_dir.h): mkdtemp named after the running test, remove_tree on destruction.
#include "tests/common/temp_dir.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <vector>

#include "support/files.h"

namespace clgen::testing {

TempDir::TempDir() {
  const char* tmp = std::getenv("TMPDIR");
  std::string name = "clgen";
  if (const auto* info = ::testing::UnitTest::GetInstance()->current_test_info())
    name += std::string("-") + info->test_suite_name() + "-" + info->name();
  for (char& c : name)
    if (c == '/') c = '_';  // parameterized test names
  // A file name holds 255 bytes.
  if (name.size() > 120) name.resize(120);
  std::string pattern = std::string(tmp && *tmp ? tmp : "/tmp") + "/" + name + "-XXXXXX";
  std::vector<char> buffer(pattern.begin(), pattern.end());
  buffer.push_back('\0');
  if (::mkdtemp(buffer.data()) == nullptr) {
    ADD_FAILURE() << "cannot create a temporary directory " << pattern;
    return;
  }
  path_ = buffer.data();
}

TempDir::~TempDir() {
  if (!path_.empty()) (void)remove_tree(path_);
}

}  // namespace clgen::testing
