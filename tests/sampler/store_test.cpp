// Tests of the sample store's conflict-safe inserts (sampler/store.h
// store_samples): two connections to one database file stand for two
// `clgen sample` processes of one workspace.
#include "sampler/store.h"

#include <filesystem>

#include <gtest/gtest.h>

#include "support/files.h"

namespace clgen::sampler {
namespace {

namespace fs = std::filesystem;

SampleRow row(const std::string& status, const std::string& kernel, uint64_t seed, uint64_t index) {
  SampleRow r;
  r.text = "raw " + kernel;
  r.status = status;
  if (status == sample_status::kAccepted) {
    r.normalized_text = kernel;
    r.normalized_sha256 = "sha-" + kernel;
  } else {
    r.category = "syntax";
  }
  r.args = "float*";
  r.model_id = "m1";
  r.seed = seed;
  r.sample_index = index;
  return r;
}
SampleRow accepted(const std::string& kernel, uint64_t seed, uint64_t index) {
  return row(sample_status::kAccepted, kernel, seed, index);
}

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("clgen_store_" + std::to_string(::getpid()) + "_" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    (void)remove_tree(dir_.string());
    fs::create_directories(dir_);
    a_ = open();
    b_ = open();
    ASSERT_TRUE(ensure_sampler_schema(*a_).ok());
  }
  void TearDown() override {
    a_.reset();
    b_.reset();
    (void)remove_tree(dir_.string());
  }
  std::unique_ptr<Database> open() {
    auto db = Database::open((dir_ / "clgen.db").string());
    EXPECT_TRUE(db.ok()) << db.status().message();
    return std::make_unique<Database>(std::move(*db));
  }
  int64_t count(const std::string& where) {
    auto st = a_->prepare("SELECT count(*) FROM samples WHERE " + where);
    EXPECT_TRUE(st.ok());
    EXPECT_TRUE(*st->step());
    return st->column_int(0);
  }

  fs::path dir_;
  std::unique_ptr<Database> a_, b_;
};

// The bug of issue #20: the second process's insert failed on
// samples_accepted_unique, after it had written its .cl files.
TEST_F(StoreTest, AKernelAnotherProcessAcceptedFirstIsStoredAsADuplicate) {
  ASSERT_TRUE(store_samples(*a_, {accepted("K", 1, 0)}, 0).ok());
  auto second = store_samples(*b_, {accepted("K", 2, 0), accepted("L", 2, 1)}, 0);
  ASSERT_TRUE(second.ok()) << second.status().message();
  EXPECT_EQ((std::vector<RowFate>{RowFate::kStoredDuplicate, RowFate::kStored}), second->fates);
  EXPECT_EQ(1u, second->accepted_total);  // L; K is seed 1's
  EXPECT_EQ(1, count("status = 'accepted' AND normalized_sha256 = 'sha-K'"));
  EXPECT_EQ(1, count("status = 'duplicate' AND normalized_sha256 = 'sha-K' AND seed = 2"));
  EXPECT_EQ(1, count("status = 'accepted' AND normalized_sha256 = 'sha-L'"));
}

TEST_F(StoreTest, ADrawStoredBeforeIsLeftOutAndAnotherSeedsIsNot) {
  ASSERT_TRUE(store_samples(*a_, {row(sample_status::kRejected, "x", 1, 0)}, 0).ok());
  auto again =
      store_samples(*b_, {row(sample_status::kRejected, "x", 1, 0), row(sample_status::kRejected, "x", 2, 0)}, 0);
  ASSERT_TRUE(again.ok()) << again.status().message();
  EXPECT_EQ((std::vector<RowFate>{RowFate::kAlreadyStored, RowFate::kStored}), again->fates);
  EXPECT_EQ(1, count("seed = 1"));
  EXPECT_EQ(1, count("seed = 2"));
}

TEST_F(StoreTest, NothingMoreIsStoredOnceTheKeyHasItsTargetOfAcceptedSamples) {
  // Another process stored one accepted sample of the key: with a target of
  // 2 this batch may add one more, and nothing after it.
  ASSERT_TRUE(store_samples(*a_, {accepted("A", 1, 0)}, 2).ok());
  auto r = store_samples(*b_,
                         {row(sample_status::kRejected, "x", 1, 1), accepted("B", 1, 2), accepted("C", 1, 3),
                          row(sample_status::kRejected, "y", 1, 4)},
                         2);
  ASSERT_TRUE(r.ok()) << r.status().message();
  EXPECT_EQ((std::vector<RowFate>{RowFate::kStored, RowFate::kStored, RowFate::kOverTarget, RowFate::kOverTarget}),
            r->fates);
  EXPECT_EQ(2u, r->accepted_total);
  EXPECT_EQ(2, count("status = 'accepted'"));
  EXPECT_EQ(3, count("1"));
}

TEST_F(StoreTest, TheDrawKeyIncludesThePolicyAndTheShard) {
  SampleRow hot = accepted("A", 1, 0);
  hot.temperature = 1.5;
  SampleRow shard = accepted("B", 1, 0);
  shard.shard = "1/2";
  ASSERT_TRUE(store_samples(*a_, {hot}, 0).ok());
  ASSERT_TRUE(store_samples(*a_, {shard}, 0).ok());
  EXPECT_EQ(0u, *count_accepted(*a_, draw_key_of(accepted("Z", 1, 0))));
  EXPECT_EQ(1u, *count_accepted(*a_, draw_key_of(hot)));
  EXPECT_EQ(1u, *count_accepted(*a_, draw_key_of(shard)));
  EXPECT_EQ((std::unordered_set<uint64_t>{0}), *stored_sample_indices(*b_, draw_key_of(shard)));
}

}  // namespace
}  // namespace clgen::sampler
