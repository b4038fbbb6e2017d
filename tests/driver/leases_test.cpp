// Tests of the drive leases (driver/leases.h): two DriveLeases objects on one
// database file stand for two `clgen drive` processes of one workspace.
#include "driver/leases.h"

#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <thread>

#include <gtest/gtest.h>

#include "tests/common/temp_dir.h"

namespace clgen::driver {
namespace {

class LeasesTest : public ::testing::Test {
 protected:
  std::unique_ptr<DriveLeases> open(double ttl = 30) {
    auto l = DriveLeases::open(dir_ / "clgen.db", ttl);
    EXPECT_TRUE(l.ok()) << l.status().message();
    return l.ok() ? std::move(*l) : nullptr;
  }
  // A lease row as another drive left it.
  void add_row(const std::string& item, const std::string& owner, double expires_at) {
    auto db = Database::open(dir_ / "clgen.db");
    auto st = db->prepare("INSERT INTO drive_leases VALUES (?1, ?2, ?3)");
    ASSERT_TRUE(st.ok()) << st.status().message();
    ASSERT_TRUE(st->bind(1, item).ok() && st->bind(2, owner).ok() && st->bind(3, expires_at).ok());
    ASSERT_TRUE(st->run().ok());
  }
  int64_t rows() {
    auto db = Database::open(dir_ / "clgen.db");
    auto st = db->prepare("SELECT COUNT(*) FROM drive_leases");
    EXPECT_TRUE(st.ok() && *st->step());
    return st->column_int(0);
  }
  clgen::testing::TempDir dir_;
};

TEST_F(LeasesTest, ASourceHeldByOneDriveIsRefusedToAnotherUntilReleased) {
  auto a = open(), b = open();
  ASSERT_TRUE(a && b);
  EXPECT_TRUE(*a->try_claim("k1"));
  EXPECT_FALSE(*b->try_claim("k1"));
  EXPECT_TRUE(*b->try_claim("k2"));
  ASSERT_TRUE(a->release("k1").ok());
  EXPECT_TRUE(*b->try_claim("k1"));
}

TEST_F(LeasesTest, ClaimsOfOneItemByOneDriveNestAndTheLeaseEndsWithTheLast) {
  auto a = open(), b = open();
  ASSERT_TRUE(a && b);
  EXPECT_TRUE(*a->try_claim("k"));
  EXPECT_TRUE(*a->try_claim("k"));  // the same source twice in one drive
  ASSERT_TRUE(a->release("k").ok());
  EXPECT_FALSE(*b->try_claim("k"));
  ASSERT_TRUE(a->release("k").ok());
  EXPECT_TRUE(*b->try_claim("k"));
}

TEST_F(LeasesTest, TheLeaseOfADeadDriveIsTakenOverOnceExpired) {
  auto b = open();
  ASSERT_TRUE(b);
  add_row("k", "host:1:1", 0);  // a drive killed while it held k: its row stays, with its last expiry
  EXPECT_TRUE(*b->try_claim("k"));
}

TEST_F(LeasesTest, OpeningRemovesExpiredLeasesOfOtherDrives) {
  ASSERT_TRUE(open());  // creates the table
  add_row("old", "host:1:1", 0);
  add_row("live", "host:2:1", 1e18);
  ASSERT_TRUE(open());
  EXPECT_EQ(1, rows());  // 'live' stays
}

TEST_F(LeasesTest, TheLiveLeaseOfAProcessOfThisHostThatNoLongerExistsIsTakenOverAtOnce) {
  auto b = open();
  ASSERT_TRUE(b);
  pid_t child = fork();
  if (child == 0) _exit(0);
  ASSERT_GT(child, 0);
  waitpid(child, nullptr, 0);  // reaped: the pid names no process now
  char host[256] = {};
  ASSERT_EQ(0, gethostname(host, sizeof host - 1));
  add_row("k", std::string(host) + ":" + std::to_string(child) + ":1", 1e18);  // expires long after the test
  EXPECT_TRUE(*b->try_claim("k"));
  // A live process's lease (this one's) is not taken.
  add_row("k2", std::string(host) + ":" + std::to_string(::getpid()) + ":1", 1e18);
  EXPECT_FALSE(*b->try_claim("k2"));
}

TEST_F(LeasesTest, TheHeartbeatKeepsALeaseLivePastItsTimeToLive) {
  auto a = open(0.6), b = open(0.6);
  ASSERT_TRUE(a && b);
  EXPECT_TRUE(*a->try_claim("k"));
  std::this_thread::sleep_for(std::chrono::milliseconds(1500));  // 2.5 lifetimes, renewed every 0.2 s
  EXPECT_FALSE(*b->try_claim("k"));
}

TEST_F(LeasesTest, ADriveThatEndsReleasesEveryLeaseItHeld) {
  auto b = open();
  {
    auto a = open();
    ASSERT_TRUE(a);
    EXPECT_TRUE(*a->try_claim("k1"));
    EXPECT_TRUE(*a->try_claim("k2"));
    EXPECT_EQ(2, rows());
  }
  EXPECT_EQ(0, rows());
  EXPECT_TRUE(*b->try_claim("k1"));
}

}  // namespace
}  // namespace clgen::driver
