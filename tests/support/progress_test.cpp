// Progress output: rate and ETA on a terminal, nothing but a summary otherwise.
#include "support/progress.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <thread>

namespace clgen {
namespace {

std::string slurp(std::FILE* f) {
  std::fflush(f);
  std::rewind(f);
  std::string s;
  char buf[512];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) s.append(buf, n);
  return s;
}

TEST(Progress, LineShowsCountPercentRateAndEta) {
  std::FILE* f = std::tmpfile();
  Progress p("import", 100, f, /*interactive=*/0);
  p.advance(10);
  std::this_thread::sleep_for(std::chrono::milliseconds(20));
  std::string line = p.line();
  EXPECT_EQ(line.rfind("import 10/100 (10.0%) ", 0), 0u) << line;
  EXPECT_NE(line.find("/s"), std::string::npos) << line;
  EXPECT_NE(line.find("ETA "), std::string::npos) << line;
  p.finish();
  std::fclose(f);
}

TEST(Progress, NonTerminalPrintsOnlyTheFinalSummary) {
  std::FILE* f = std::tmpfile();
  {
    Progress p("work", 3, f, /*interactive=*/0);
    p.advance();
    p.advance();
    EXPECT_EQ(slurp(f), "");
    p.advance();
  }
  std::string out = slurp(f);
  EXPECT_EQ(out.rfind("work 3/3 (100.0%) ", 0), 0u) << out;
  EXPECT_NE(out.find(" in "), std::string::npos) << out;
  EXPECT_EQ(out.find('\r'), std::string::npos);
  EXPECT_EQ(std::count(out.begin(), out.end(), '\n'), 1);
  std::fclose(f);
}

TEST(Progress, TerminalRedrawsInPlace) {
  std::FILE* f = std::tmpfile();
  {
    Progress p("sample", 0, f, /*interactive=*/1);
    p.min_interval = std::chrono::milliseconds(0);
    p.set_extra("accepted 50%");
    p.advance();
    p.advance();
  }
  std::string out = slurp(f);
  EXPECT_GE(std::count(out.begin(), out.end(), '\r'), 3) << out;
  EXPECT_NE(out.find("accepted 50%"), std::string::npos);
  EXPECT_EQ(out.find("ETA"), std::string::npos) << "no ETA without a total";
  std::fclose(f);
}

TEST(Progress, FormatsDurations) {
  EXPECT_EQ(Progress::format_duration(5), "5s");
  EXPECT_EQ(Progress::format_duration(192), "3m12s");
  EXPECT_EQ(Progress::format_duration(7500), "2h05m");
}

}  // namespace
}  // namespace clgen
