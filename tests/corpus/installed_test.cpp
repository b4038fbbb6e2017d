// The embedded default corpus read from installed Debian packages: dpkg file
// lists, and Bullet's kernels decoded from C string literals.
#include <gtest/gtest.h>

#include <filesystem>

#include "corpus/installed.h"
#include "corpus/store.h"
#include "support/sqlite.h"

namespace clgen::corpus {
namespace {

const InstalledPackage* find_package(const std::vector<InstalledPackage>& all, const std::string& name) {
  for (const auto& p : all)
    if (p.package == name) return &p;
  return nullptr;
}

TEST(InstalledPackages, ImportsPoclTestsAndDecodesBulletKernels) {
  auto all = default_installed_packages("/nonexistent-workspace");
  const InstalledPackage* pocl = find_package(all, "pocl-tests");
  const InstalledPackage* bullet = find_package(all, "libbullet-dev");
  ASSERT_TRUE(pocl && bullet);
  if (!installed_package_files("pocl-tests", pocl->root).ok() ||
      !installed_package_files("libbullet-dev", bullet->root).ok())
    GTEST_SKIP() << "pocl-tests or libbullet-dev is not installed (scripts/install-deps.sh)";

  auto db = Database::open(":memory:");
  ASSERT_TRUE(db.ok());
  ImportOptions options;
  options.progress = false;
  auto results = import_installed(*db, {*pocl, *bullet}, options);
  ASSERT_TRUE(results.ok()) << results.status().message();
  ASSERT_EQ(results->size(), 2u);
  for (const auto& r : *results) {
    EXPECT_TRUE(r.found) << r.package;
    EXPECT_GT(r.summary.accepted, 10) << r.package;
  }

  // Every Bullet kernel is decoded OpenCL source, not a C string literal.
  auto st = db->prepare(
      "SELECT o.path, c.text FROM content_files c JOIN content_origins o USING (sha256) "
      "JOIN repositories r ON r.id = o.repository_id WHERE r.source = 'package:libbullet-dev'");
  ASSERT_TRUE(st.ok());
  int kernels = 0;
  for (;;) {
    auto row = st->step();
    ASSERT_TRUE(row.ok());
    if (!*row) break;
    std::string path = st->column_text(0), text = st->column_text(1);
    ++kernels;
    EXPECT_NE(path.find("/kernels/"), std::string::npos) << path;
    EXPECT_NE(path.find(".h:"), std::string::npos) << path;  // header:variable
    EXPECT_NE(text.find("__kernel"), std::string::npos) << path;
    EXPECT_EQ(text.find("\\n\""), std::string::npos) << path;
    EXPECT_EQ(text.find("static const char*"), std::string::npos) << path;
  }
  EXPECT_EQ(kernels, results->at(1).summary.accepted);

  // The package version is the source's commit.
  auto stats = corpus_stats(*db);
  ASSERT_TRUE(stats.ok());
  for (const auto& s : stats->by_source) {
    EXPECT_FALSE(s.commit.empty()) << s.key;
    EXPECT_TRUE(s.complete) << s.key;
  }
}

TEST(InstalledPackages, ReportsMissingPackagesWithoutFailing) {
  auto db = Database::open(":memory:");
  ASSERT_TRUE(db.ok());
  InstalledPackage missing{"no-such-package", "/nonexistent/dir", {"*.cl"}, false, ""};
  auto results = import_installed(*db, {missing}, {});
  ASSERT_TRUE(results.ok());
  ASSERT_EQ(results->size(), 1u);
  EXPECT_FALSE(results->at(0).found);
  EXPECT_FALSE(installed_package_files("no-such-package", "/usr").ok());
}

}  // namespace
}  // namespace clgen::corpus

namespace clgen::corpus {
namespace {

TEST(InstalledPackages, DefaultSetLeavesHashcatToAnExplicitPackageChoice) {
  auto known = known_installed_packages("/nonexistent-workspace");
  auto defaults = default_installed_packages("/nonexistent-workspace");
  auto has = [](const std::vector<InstalledPackage>& v, const std::string& name) {
    for (const auto& p : v)
      if (p.package == name) return true;
    return false;
  };
  EXPECT_TRUE(has(known, "hashcat-data"));
  EXPECT_FALSE(has(defaults, "hashcat-data"));
  for (const char* name : {"pocl-tests", "ufo-filters-data", "libbullet-dev", "darktable"})
    EXPECT_TRUE(has(defaults, name)) << name;
  EXPECT_EQ(known.size(), defaults.size() + 1);
}

}  // namespace
}  // namespace clgen::corpus
