// ChildProcess (support/child_process.h) with shell children: framed
// answers, the wall-clock limit killing the whole process group, deaths
// named, and the CPU backstop raised for every request.
#include <dirent.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "support/child_process.h"

namespace clgen {
namespace {

// A child that echoes every frame back (cat from fd 3 to fd 4).
ChildProcess echo_child() { return ChildProcess({"/bin/sh", "-c", "exec cat <&3 >&4"}, ChildLimits{}, "echo"); }

// The soft RLIMIT_CPU of `pid` as /proc/PID/limits writes it.
std::string soft_cpu_limit(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/limits");
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("Max cpu time", 0) != 0) continue;
    std::istringstream words(line.substr(12));
    std::string soft;
    words >> soft;
    return soft;
  }
  return "";
}

// Processes of process group `group` that still run (zombies aside: an
// orphan's zombie waits for whoever reaps orphans here).
int running_in_group(pid_t group) {
  int n = 0;
  DIR* proc = ::opendir("/proc");
  if (!proc) return -1;
  while (dirent* e = ::readdir(proc)) {
    if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;  // processes only
    std::ifstream in(std::string("/proc/") + e->d_name + "/stat");
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    size_t close = text.rfind(')');
    if (close == std::string::npos) continue;
    std::istringstream fields(text.substr(close + 2));
    char state = 0;
    long ppid = 0, pgrp = 0;
    fields >> state >> ppid >> pgrp;
    if (pgrp == group && state != 'Z') ++n;
  }
  ::closedir(proc);
  return n;
}

TEST(ChildProcess, AnswersFramedRequestsAndIsStartedOnce) {
  ChildProcess child = echo_child();
  std::string answer;
  ASSERT_TRUE(child.call("hello", answer, 10).ok());
  EXPECT_EQ(answer, "hello");
  ASSERT_TRUE(child.call(std::string(100000, 'x'), answer, 10).ok());
  EXPECT_EQ(answer.size(), 100000u);
  EXPECT_EQ(child.started(), 1);
}

TEST(ChildProcess, CpuBackstopGrowsWithEveryRequestWithoutPrivilege) {
  // Raising a hard limit needs CAP_SYS_RESOURCE: each grant must move only
  // the soft limit, or the first grant caps every later request.
  ChildProcess child = echo_child();
  std::string answer;
  ASSERT_TRUE(child.call("a", answer, 1).ok());
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  ASSERT_TRUE(child.call("b", answer, 1000).ok());
  std::string soft = soft_cpu_limit(child.pid());
  ASSERT_NE(soft, "");
  ASSERT_NE(soft, "unlimited");
  EXPECT_GE(std::stoull(soft), 1000ull * cores);  // the second, larger grant took effect
}

TEST(ChildProcess, NoAnswerInTimeKillsTheWholeProcessGroup) {
  // The shell starts a grandchild that would outlive a kill of the shell alone.
  ChildProcess child({"/bin/sh", "-c", "sleep 1000 & wait"}, ChildLimits{}, "sleeper");
  ASSERT_TRUE(child.start().ok());
  const pid_t group = child.pid();
  std::string answer;
  Status st = child.call("anything", answer, 0.3);
  EXPECT_EQ(st.code(), ErrorCode::kTimeout);
  EXPECT_FALSE(child.running());
  ::usleep(200000);
  EXPECT_EQ(running_in_group(group), 0);  // the sleeping grandchild too
}

TEST(ChildProcess, AnswerThatIsNotAFrameEndsTheChildInsteadOfWaitingForIt) {
  // A 4-byte "length" far beyond the frame limit, then the child lives on.
  ChildProcess child({"/bin/sh", "-c", "printf 'zzzz' >&4; sleep 1000"}, ChildLimits{}, "garbler");
  std::string answer;
  auto start = std::chrono::steady_clock::now();
  Status st = child.call("x", answer, 60);
  EXPECT_EQ(st.code(), ErrorCode::kIo);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 10.0);
  EXPECT_FALSE(child.running());
}

TEST(ChildProcess, DeathIsNamedWithItsExitStatus) {
  ChildProcess child({"/bin/sh", "-c", "read -r x <&3; exit 3"}, ChildLimits{}, "quitter");
  std::string answer;
  Status st = child.call("line\n", answer, 10);
  EXPECT_EQ(st.code(), ErrorCode::kIo);
  EXPECT_EQ(st.message(), "quitter exited with status 3");
  EXPECT_TRUE(child.ran_out_of_memory());  // status 3 is kChildOutOfMemoryExit
}

}  // namespace
}  // namespace clgen
