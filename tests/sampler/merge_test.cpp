// Tests of merging one workspace's samples into another (sampler/merge.h),
// on two SQLite databases filled through the sampler's own store.
#include "sampler/merge.h"

#include <filesystem>

#include <gtest/gtest.h>

#include "sampler/store.h"
#include "support/files.h"

namespace clgen::sampler {
namespace {

namespace fs = std::filesystem;

SampleRow accepted(const std::string& kernel, uint64_t index, const std::string& shard) {
  SampleRow r;
  r.text = "raw " + kernel;
  r.normalized_text = kernel;
  r.normalized_sha256 = "sha-" + kernel;
  r.status = sample_status::kAccepted;
  r.args = "float*";
  r.model_id = "m1";
  r.seed = 5;
  r.sample_index = index;
  r.shard = shard;
  return r;
}

SampleRow rejected(uint64_t index, const std::string& shard) {
  SampleRow r;
  r.text = "broken " + std::to_string(index);
  r.status = sample_status::kRejected;
  r.category = "syntax";
  r.args = "float*";
  r.model_id = "m1";
  r.seed = 5;
  r.sample_index = index;
  r.shard = shard;
  return r;
}

class MergeTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("clgen_merge_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    (void)remove_tree(dir_.string());
    fs::create_directories(dir_);
  }
  void TearDown() override { (void)remove_tree(dir_.string()); }

  Database open(const std::string& name) {
    auto db = Database::open((dir_ / name).string());
    EXPECT_TRUE(db.ok()) << db.status().message();
    return std::move(*db);
  }

  // Merges database `name` into `dest` as `clgen workspace merge` does:
  // attached, in one transaction.
  Expected<SampleMergeCounts> merge(Database& dest, const std::string& name) {
    RETURN_IF_ERROR(dest.exec("ATTACH DATABASE '" + (dir_ / name).string() + "' AS src"));
    Expected<SampleMergeCounts> c = [&]() -> Expected<SampleMergeCounts> {
      ASSIGN_OR_RETURN(auto tx, Transaction::begin(dest));
      ASSIGN_OR_RETURN(auto counts, merge_samples(dest, "src", (dir_ / "kernels").string()));
      RETURN_IF_ERROR(tx.commit());
      return counts;
    }();
    RETURN_IF_ERROR(dest.exec("DETACH DATABASE src"));
    return c;
  }

  static int64_t count(Database& db, const std::string& sql) {
    auto st = db.prepare(sql);
    EXPECT_TRUE(st.ok()) << st.status().message();
    auto row = st->step();
    EXPECT_TRUE(row.ok() && *row);
    return st->column_int(0);
  }

  fs::path dir_;
};

TEST_F(MergeTest, OverlappingShardsLeaveEachKernelAcceptedOnceAndASecondMergeAddsNothing) {
  // Shard 0 accepted kernels A and B, shard 1 accepted B and C; each also
  // rejected one sample.
  {
    Database a = open("a.db");
    ASSERT_TRUE(ensure_sampler_schema(a).ok());
    ASSERT_TRUE(insert_samples(a, {accepted("A", 0, "0/2"), accepted("B", 1, "0/2"), rejected(2, "0/2")}).ok());
    Database b = open("b.db");
    ASSERT_TRUE(ensure_sampler_schema(b).ok());
    ASSERT_TRUE(insert_samples(b, {accepted("B", 0, "1/2"), rejected(1, "1/2"), accepted("C", 2, "1/2")}).ok());
  }
  Database dest = open("dest.db");
  ASSERT_TRUE(ensure_sampler_schema(dest).ok());

  auto first = merge(dest, "a.db");
  ASSERT_TRUE(first.ok()) << first.status().message();
  EXPECT_EQ(3u, first->source);
  EXPECT_EQ(3u, first->added);
  EXPECT_EQ(0u, first->already_present);
  EXPECT_EQ(2u, first->accepted);  // A, B
  EXPECT_EQ(0u, first->duplicates);
  EXPECT_EQ(2u, first->files);

  auto second = merge(dest, "b.db");
  ASSERT_TRUE(second.ok()) << second.status().message();
  EXPECT_EQ(3u, second->added);
  EXPECT_EQ(1u, second->accepted);    // C
  EXPECT_EQ(1u, second->duplicates);  // B was accepted from a.db
  EXPECT_EQ(1u, second->files);

  // Each normalized kernel once; every sample kept, B's second copy as a duplicate.
  EXPECT_EQ(6, count(dest, "SELECT count(*) FROM samples"));
  EXPECT_EQ(3, count(dest, "SELECT count(*) FROM samples WHERE status = 'accepted'"));
  EXPECT_EQ(3, count(dest, "SELECT count(DISTINCT normalized_sha256) FROM samples WHERE status = 'accepted'"));
  EXPECT_EQ(1, count(dest, "SELECT count(*) FROM samples WHERE status = 'duplicate' AND "
                           "normalized_sha256 = 'sha-B' AND shard = '1/2'"));
  EXPECT_EQ(2, count(dest, "SELECT count(*) FROM samples WHERE status = 'rejected'"));
  EXPECT_TRUE(fs::exists(dir_ / "kernels" / "m1" / "sha-C.cl"));

  // Merging both again adds nothing.
  for (const char* name : {"a.db", "b.db"}) {
    auto again = merge(dest, name);
    ASSERT_TRUE(again.ok()) << again.status().message();
    EXPECT_EQ(0u, again->added) << name;
    EXPECT_EQ(3u, again->already_present) << name;
    EXPECT_EQ(0u, again->accepted) << name;
  }
  EXPECT_EQ(6, count(dest, "SELECT count(*) FROM samples"));
  auto check = dest.prepare("PRAGMA integrity_check");
  ASSERT_TRUE(check.ok());
  ASSERT_TRUE(*check->step());
  EXPECT_EQ("ok", check->column_text(0));
}

TEST_F(MergeTest, DirectedSamplesKeepTheirTargetTargetFeaturesAndSteering) {
  {
    Database a = open("a.db");
    ASSERT_TRUE(ensure_sampler_schema(a).ok());
    SampleRow steered = accepted("A", 0, "");
    steered.target = "held-out:0123:A";
    steered.target_features = "3,0,3,0,2,0";
    steered.steering = "held-out";
    ASSERT_TRUE(insert_samples(a, {steered, accepted("B", 1, "")}).ok());
  }
  Database dest = open("dest.db");
  ASSERT_TRUE(ensure_sampler_schema(dest).ok());
  auto c = merge(dest, "a.db");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(2u, c->added);
  EXPECT_EQ(1, count(dest,
                     "SELECT count(*) FROM samples WHERE normalized_sha256 = 'sha-A' AND "
                     "target = 'held-out:0123:A' AND target_features = '3,0,3,0,2,0' AND steering = 'held-out'"));
  // An undirected sample stays without a target.
  EXPECT_EQ(1, count(dest,
                     "SELECT count(*) FROM samples WHERE normalized_sha256 = 'sha-B' AND "
                     "target IS NULL AND target_features IS NULL AND steering IS NULL"));
}

TEST_F(MergeTest, SamplesThatDifferOnlyInShardAreDifferentSamples) {
  // Two shards of one seed can store the same text at the same index.
  {
    Database a = open("a.db");
    ASSERT_TRUE(ensure_sampler_schema(a).ok());
    ASSERT_TRUE(insert_samples(a, {rejected(0, "0/2")}).ok());
    ASSERT_TRUE(a.exec("UPDATE samples SET created_at = '2026-01-01T00:00:00.000Z'").ok());
    Database b = open("b.db");
    ASSERT_TRUE(ensure_sampler_schema(b).ok());
    ASSERT_TRUE(insert_samples(b, {rejected(0, "1/2")}).ok());
    ASSERT_TRUE(b.exec("UPDATE samples SET created_at = '2026-01-01T00:00:00.000Z'").ok());
  }
  Database dest = open("dest.db");
  ASSERT_TRUE(ensure_sampler_schema(dest).ok());
  ASSERT_TRUE(merge(dest, "a.db").ok());
  auto b = merge(dest, "b.db");
  ASSERT_TRUE(b.ok()) << b.status().message();
  EXPECT_EQ(1u, b->added);
  EXPECT_EQ(2, count(dest, "SELECT count(*) FROM samples"));
}

TEST_F(MergeTest, SourceWithoutSamplesTableIsNotFoundAndAddsNothing) {
  {
    Database other = open("other.db");
    ASSERT_TRUE(other.exec("CREATE TABLE unrelated (x)").ok());
  }
  Database dest = open("dest.db");
  ASSERT_TRUE(ensure_sampler_schema(dest).ok());
  auto c = merge(dest, "other.db");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(ErrorCode::kNotFound, c.status().code());
  EXPECT_NE(c.status().message().find("no samples table"), std::string::npos) << c.status().message();
  EXPECT_EQ(0, count(dest, "SELECT count(*) FROM samples"));
}

TEST_F(MergeTest, MergesFromAWorkspaceSampledBeforeShardsExisted) {
  // The samples table as it was before the shard column.
  {
    Database old = open("old.db");
    ASSERT_TRUE(old.exec(R"sql(CREATE TABLE samples (
      id INTEGER PRIMARY KEY AUTOINCREMENT, text TEXT NOT NULL, normalized_text TEXT,
      normalized_sha256 TEXT, status TEXT NOT NULL, category TEXT, reason TEXT,
      args TEXT NOT NULL, model_id TEXT NOT NULL, temperature REAL, top_k INTEGER, top_p REAL,
      seed INTEGER, sample_index INTEGER, tokens INTEGER, sample_seconds REAL,
      filter_seconds REAL, instruction_count INTEGER,
      created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')));
      INSERT INTO samples (text, normalized_text, normalized_sha256, status, args, model_id,
        seed, sample_index) VALUES ('raw A', 'A', 'sha-A', 'accepted', '', 'm0', 1, 0);)sql").ok());
  }
  Database dest = open("dest.db");
  ASSERT_TRUE(ensure_sampler_schema(dest).ok());
  auto c = merge(dest, "old.db");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(1u, c->accepted);
  auto again = merge(dest, "old.db");
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ(0u, again->added);

  // Sampling into the old workspace adds the column first.
  Database old = open("old.db");
  ASSERT_TRUE(ensure_sampler_schema(old).ok());
  ASSERT_TRUE(insert_samples(old, {rejected(1, "0/2")}).ok());
  EXPECT_EQ(1, count(old, "SELECT count(*) FROM samples WHERE shard = '0/2'"));
  EXPECT_EQ(1, count(old, "SELECT count(*) FROM samples WHERE shard IS NULL"));
}

}  // namespace
}  // namespace clgen::sampler
