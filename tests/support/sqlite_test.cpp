// The SQLite wrapper: WAL mode, statements, and transactions that roll back
// on error so nothing already stored is lost.
#include "support/sqlite.h"

#include <gtest/gtest.h>

#include <filesystem>

namespace clgen {
namespace {

class SqliteTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("clgen_sqlite_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::remove_all(dir_);
    std::filesystem::create_directories(dir_);
    auto db = Database::open((dir_ / "t.db").string());
    ASSERT_TRUE(db.ok()) << db.status().message();
    db_ = std::make_unique<Database>(std::move(*db));
    ASSERT_TRUE(db_->exec("CREATE TABLE kv (k TEXT PRIMARY KEY, v INTEGER NOT NULL)").ok());
  }
  void TearDown() override {
    db_.reset();
    std::filesystem::remove_all(dir_);
  }
  int64_t count() {
    auto st = db_->prepare("SELECT COUNT(*) FROM kv");
    EXPECT_TRUE(st.ok());
    EXPECT_TRUE(*st->step());
    return st->column_int(0);
  }
  Status insert(const std::string& k, int64_t v) {
    ASSIGN_OR_RETURN(auto st, db_->prepare("INSERT INTO kv (k, v) VALUES (?, ?)"));
    RETURN_IF_ERROR(st.bind(1, k));
    RETURN_IF_ERROR(st.bind(2, v));
    return st.run();
  }

  std::filesystem::path dir_;
  std::unique_ptr<Database> db_;
};

TEST_F(SqliteTest, OpensInWalMode) {
  auto st = db_->prepare("PRAGMA journal_mode");
  ASSERT_TRUE(st.ok());
  ASSERT_TRUE(*st->step());
  EXPECT_EQ(st->column_text(0), "wal");
}

TEST_F(SqliteTest, BindsAndReadsBackValues) {
  ASSERT_TRUE(insert("a", 41).ok());
  auto st = db_->prepare("SELECT k, v FROM kv WHERE k = ?");
  ASSERT_TRUE(st.ok());
  ASSERT_TRUE(st->bind(1, std::string_view("a")).ok());
  ASSERT_TRUE(*st->step());
  EXPECT_EQ(st->column_text(0), "a");
  EXPECT_EQ(st->column_int(1), 41);
  EXPECT_FALSE(*st->step());
}

TEST_F(SqliteTest, CommittedTransactionPersists) {
  {
    auto tx = Transaction::begin(*db_);
    ASSERT_TRUE(tx.ok());
    ASSERT_TRUE(insert("a", 1).ok());
    ASSERT_TRUE(insert("b", 2).ok());
    ASSERT_TRUE(tx->commit().ok());
  }
  EXPECT_EQ(count(), 2);
}

// A batch that fails halfway must store nothing of the batch and keep what
// was there before.
TEST_F(SqliteTest, TransactionRolledBackOnErrorKeepsEarlierRows) {
  ASSERT_TRUE(insert("kept", 0).ok());
  auto batch = [&]() -> Status {
    ASSIGN_OR_RETURN(auto tx, Transaction::begin(*db_));
    RETURN_IF_ERROR(insert("x", 1));
    RETURN_IF_ERROR(insert("kept", 2));  // primary-key violation
    return tx.commit();
  };
  Status s = batch();
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), ErrorCode::kDatabase);
  EXPECT_NE(s.message().find("UNIQUE constraint failed"), std::string::npos) << s.message();
  EXPECT_EQ(count(), 1);
}

TEST_F(SqliteTest, PrepareErrorNamesTheSql) {
  auto st = db_->prepare("SELEC nonsense");
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.status().message().find("SELEC nonsense"), std::string::npos);
}

TEST_F(SqliteTest, SecondConnectionSeesCommittedData) {
  ASSERT_TRUE(insert("a", 1).ok());
  auto other = Database::open(db_->path());
  ASSERT_TRUE(other.ok());
  auto st = other->prepare("SELECT v FROM kv WHERE k='a'");
  ASSERT_TRUE(st.ok());
  ASSERT_TRUE(*st->step());
  EXPECT_EQ(st->column_int(0), 1);
}

TEST(Sqlite, OpeningInMissingDirectoryFailsWithPath) {
  auto db = Database::open("/nonexistent-dir-clgen/x.db");
  ASSERT_FALSE(db.ok());
  EXPECT_NE(db.status().message().find("/nonexistent-dir-clgen/x.db"), std::string::npos);
}

}  // namespace
}  // namespace clgen
