// Tests of the constraint tables' file: what `clgen train` saves beside the
// checkpoint must load as the tables learned from the same texts.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "sampler/constraint_tables.h"
#include "support/files.h"

namespace clgen::sampler {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kCorpus = {
    "typedef struct {\n  float x;\n} Particle;\n\n"
    "__kernel void A(__global Particle* a, __global float* b, const int c) {\n"
    "  unsigned int d = get_global_id(0);\n  const sampler_t sampleri = 0;\n"
    "  b[d] = fabs(a[d].x) + mad(b[d], 2.0f, 1.0f);\n}\n",
    "__kernel void A(__global int* a, sampler_t b) {\n  unsigned c = 2;\n  a[get_local_id(0)] = min(a[0], 3);\n}\n"};

// A fresh directory under the temporary directory, removed at the end.
class TempDir {
 public:
  TempDir() : path_(fs::temp_directory_path() / ("clgen_tables_" + std::to_string(::getpid()))) {
    (void)remove_tree(path_.string());
    fs::create_directories(path_);
  }
  ~TempDir() { (void)remove_tree(path_.string()); }
  std::string str() const { return path_.string(); }

 private:
  fs::path path_;
};

TEST(ConstraintTablesFile, JsonRoundTripEqualsTheTablesLearnedFromTheCorpus) {
  const ConstraintTables learned = ConstraintTables::from_corpus(kCorpus);
  auto loaded = ConstraintTables::from_json(learned.to_json());
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_TRUE(*loaded == learned);
  // Equality sees a difference: tables of another corpus are not equal.
  EXPECT_FALSE(ConstraintTables::from_corpus({kCorpus[1]}) == learned);
  // And the words the tables hold survive (prefixes are derived again).
  EXPECT_TRUE(loaded->is_fixed_prefix("get_glo"));
  EXPECT_TRUE(loaded->is_field("x"));
  EXPECT_TRUE(loaded->is_user_type("Particle"));
  EXPECT_TRUE(loaded->is_kept_name("sampleri"));
  EXPECT_TRUE(loaded->follows("unsigned", "int", true));
  EXPECT_EQ(uint64_t(1) << 3, loaded->arities("mad"));
}

TEST(ConstraintTablesFile, SavedBesideTheCheckpointAndLoadedBack) {
  TempDir dir;
  const ConstraintTables learned = ConstraintTables::from_corpus(kCorpus);
  ASSERT_TRUE(save_constraint_tables(learned, dir.str()).ok());
  EXPECT_TRUE(fs::exists(fs::path(dir.str()) / kConstraintTablesFile));
  auto loaded = load_constraint_tables(dir.str());
  ASSERT_TRUE(loaded.ok()) << loaded.status().message();
  EXPECT_TRUE(*loaded == learned);
}

TEST(ConstraintTablesFile, AModelWithoutTablesIsNotFound) {
  TempDir dir;
  auto loaded = load_constraint_tables(dir.str());
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(ErrorCode::kNotFound, loaded.status().code());
}

TEST(ConstraintTablesFile, AnotherVersionIsRefusedNamingIt) {
  std::string json = ConstraintTables::from_corpus(kCorpus).to_json();
  const std::string v1 = "\"version\": 1";
  ASSERT_NE(std::string::npos, json.find(v1));
  json.replace(json.find(v1), v1.size(), "\"version\": 2");
  auto loaded = ConstraintTables::from_json(json);
  ASSERT_FALSE(loaded.ok());
  EXPECT_NE(std::string::npos, loaded.status().message().find("version 1 expected, the file has 2"))
      << loaded.status().message();
}

}  // namespace
}  // namespace clgen::sampler
