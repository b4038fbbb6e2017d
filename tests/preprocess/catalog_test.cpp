// Tests of the preprocessed-corpus catalog and the corpus provenance it reads,
// on hand-written tables (no Clang: the catalog is SQLite only).
#include <gtest/gtest.h>

#include "corpus/preprocess/catalog.h"
#include "corpus/provenance.h"

namespace clgen::preprocess {
namespace {

Database empty_db() {
  auto db = Database::open(":memory:");
  EXPECT_TRUE(db.ok());
  return std::move(*db);
}

void exec(Database& db, const std::string& sql) { ASSERT_TRUE(db.exec(sql).ok()) << sql; }

// The columns the catalog reads, as the preprocess store creates them.
Database preprocessed_db() {
  Database db = empty_db();
  exec(db,
       "CREATE TABLE preprocessed (content_sha256 TEXT, preprocessor_version TEXT, kernel TEXT, "
       "status TEXT, category TEXT, normalized_text TEXT, normalized_sha256 TEXT, "
       "language TEXT NOT NULL DEFAULT 'CL1.2')");
  return db;
}

void add_row(Database& db, const std::string& content, const std::string& version, const std::string& hash,
             const std::string& text, const std::string& status = "ok", const std::string& language = "CL1.2") {
  exec(db,
       "INSERT INTO preprocessed (content_sha256, preprocessor_version, kernel, status, normalized_text, "
       "normalized_sha256, language) VALUES ('" +
           content + "', '" + version + "', 'k', '" + status + "', '" + text + "', '" + hash + "', '" + language +
           "')");
}

void add_corpus_tables(Database& db) {
  exec(db, "CREATE TABLE repositories (id INTEGER PRIMARY KEY, source TEXT, owner TEXT, name TEXT)");
  exec(db, "CREATE TABLE content_origins (sha256 TEXT, repository_id INTEGER, path TEXT)");
}

// Records `hash` as dropped by decontamination (the columns the catalog reads).
void decontaminate(Database& db, const std::string& hash) {
  exec(db, "CREATE TABLE IF NOT EXISTS decontaminated (normalized_sha256 TEXT PRIMARY KEY)");
  exec(db, "INSERT INTO decontaminated VALUES ('" + hash + "')");
}

// The hashes newest_accepted_kernels returns for `query`, in its order.
std::vector<std::string> hashes(Database& db, const KernelQuery& query = {}) {
  auto kernels = newest_accepted_kernels(db, query);
  EXPECT_TRUE(kernels.ok()) << kernels.status().message();
  std::vector<std::string> out;
  if (kernels.ok())
    for (const auto& k : *kernels) out.push_back(k.normalized_sha256);
  return out;
}

TEST(PreprocessCatalog, ReadsOnlyTheNewestPreprocessorVersion) {
  Database db = preprocessed_db();
  add_row(db, "c1", "v1", "old", "old text");
  add_row(db, "c1", "v2", "new", "new text");  // stored last: v2 is the newest version
  auto kernels = newest_accepted_kernels(db);
  ASSERT_TRUE(kernels.ok()) << kernels.status().message();
  ASSERT_EQ(kernels->size(), 1u);
  EXPECT_EQ((*kernels)[0].normalized_sha256, "new");
  EXPECT_EQ((*kernels)[0].text, "new text");
}

TEST(PreprocessCatalog, LeavesOutRejectedKernels) {
  Database db = preprocessed_db();
  add_row(db, "c1", "v1", "good", "g");
  add_row(db, "c2", "v1", "bad", "b", "rejected");
  EXPECT_EQ(hashes(db), std::vector<std::string>{"good"});
}

TEST(PreprocessCatalog, GivesOneKernelPerHashInHashOrderOrInTheOrderFirstStored) {
  Database db = preprocessed_db();
  add_row(db, "c1", "v1", "b", "B");
  add_row(db, "c2", "v1", "a", "A");
  add_row(db, "c3", "v1", "b", "B");  // the same kernel from another file
  EXPECT_EQ(hashes(db), (std::vector<std::string>{"a", "b"}));
  KernelQuery stored;
  stored.order = KernelQuery::Order::kFirstStored;
  EXPECT_EQ(hashes(db, stored), (std::vector<std::string>{"b", "a"}));
}

TEST(PreprocessCatalog, LeavesOutDecontaminatedKernelsUnlessAskedNotTo) {
  Database db = preprocessed_db();
  add_row(db, "c1", "v1", "kept", "k");
  add_row(db, "c2", "v1", "dropped", "d");
  decontaminate(db, "dropped");
  EXPECT_EQ(hashes(db), std::vector<std::string>{"kept"});
  KernelQuery all;
  all.exclude_decontaminated = false;
  EXPECT_EQ(hashes(db, all), (std::vector<std::string>{"dropped", "kept"}));
}

TEST(PreprocessCatalog, LeavesOutOpenCl20KernelsAndEmptyTextsWhenAsked) {
  Database db = preprocessed_db();
  add_row(db, "c1", "v1", "cl12", "x");
  add_row(db, "c2", "v1", "cl20", "y", "ok", "CL2.0");
  add_row(db, "c3", "v1", "empty", "");
  KernelQuery query;
  query.opencl12_only = true;
  query.skip_empty = true;
  EXPECT_EQ(hashes(db, query), std::vector<std::string>{"cl12"});
}

TEST(PreprocessCatalog, WithoutTheTableReadsNothingAndSaysSo) {
  Database db = empty_db();
  EXPECT_FALSE(*has_preprocessed_corpus(db));
  auto kernels = newest_accepted_kernels(db);
  ASSERT_TRUE(kernels.ok());
  EXPECT_TRUE(kernels->empty());
  EXPECT_TRUE(accepted_kernel_hashes(db)->empty());
  EXPECT_FALSE(accepted_kernel_text(db, "x")->has_value());
  EXPECT_TRUE(newest_result_counts(db)->empty());
}

TEST(PreprocessCatalog, AcceptedHashesSpanEveryVersionAndIgnoreDecontamination) {
  Database db = preprocessed_db();
  add_row(db, "c1", "v1", "old", "o");
  add_row(db, "c1", "v2", "new", "n");
  decontaminate(db, "old");
  auto all = accepted_kernel_hashes(db);
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(*all, (std::unordered_set<std::string>{"old", "new"}));
}

TEST(PreprocessCatalog, KernelRepositoryIsTheLeastOfItsFilesFirstOrigins) {
  Database db = preprocessed_db();
  add_corpus_tables(db);
  // Repository 1 has an owner; 2 is a directory (no owner); 3 comes after 1 by id.
  exec(db,
       "INSERT INTO repositories VALUES (1, 'github:zed/z', 'zed', 'z'), (2, 'dir:/data', NULL, NULL), "
       "(3, 'github:aa/a', 'aa', 'a')");
  // File f1 was found in repositories 3 and 1: its first origin (lowest id) is zed/z.
  exec(db, "INSERT INTO content_origins VALUES ('f1', 3, 'x.cl'), ('f1', 1, 'y.cl'), ('f2', 2, 'k.cl')");
  add_row(db, "f1", "v1", "h", "t");
  add_row(db, "f2", "v1", "h", "t");  // the same kernel, also from dir:/data
  KernelQuery query;
  query.with_repository = true;
  auto kernels = newest_accepted_kernels(db, query);
  ASSERT_TRUE(kernels.ok());
  ASSERT_EQ(kernels->size(), 1u);
  // min("zed/z", "dir:/data") by byte order.
  EXPECT_EQ((*kernels)[0].repository, "dir:/data");
}

TEST(PreprocessCatalog, KernelLocationIsTheLeastSourceAndPathOfAllItsFiles) {
  Database db = preprocessed_db();
  add_corpus_tables(db);
  exec(db, "INSERT INTO repositories VALUES (1, 'dir:/b', NULL, NULL), (2, 'dir:/a', NULL, NULL)");
  exec(db, "INSERT INTO content_origins VALUES ('f1', 1, 'k.cl'), ('f2', 2, 'z.cl'), ('f2', 2, 'm.cl')");
  add_row(db, "f1", "v1", "h", "t");
  add_row(db, "f2", "v1", "h", "t");
  add_row(db, "f3", "v1", "lost", "t");  // a file without origins
  auto locations = accepted_kernel_locations(db);
  ASSERT_TRUE(locations.ok());
  EXPECT_EQ(*locations, (std::map<std::string, std::string>{{"h", "dir:/a m.cl"}}));
}

TEST(CorpusProvenance, NamesTheProgramOwnerSlashNameOnlyWhenBothAreKnown) {
  Database db = empty_db();
  add_corpus_tables(db);
  exec(db, "INSERT INTO repositories VALUES (1, 'github:o/n', 'o', 'n'), (2, 'git:url', 'o', '')");
  exec(db, "INSERT INTO content_origins VALUES ('f1', 1, 'a.cl'), ('f2', 2, 'b.cl')");
  auto f1 = corpus::content_provenance_of(db, "f1");
  auto f2 = corpus::content_provenance_of(db, "f2");
  ASSERT_TRUE(f1.ok() && f1->has_value() && f2.ok() && f2->has_value());
  EXPECT_EQ((*f1)->program, "o/n");
  EXPECT_EQ((*f2)->program, "git:url");  // a name is missing: the source key
  EXPECT_EQ((*f2)->repository, "o/");    // the training set's rule: an owner is enough
  EXPECT_FALSE(corpus::content_provenance_of(db, "unknown")->has_value());
}

TEST(CorpusProvenance, IsEmptyWithoutTheCorpusTables) {
  Database db = empty_db();
  auto all = corpus::content_provenance(db);
  ASSERT_TRUE(all.ok());
  EXPECT_TRUE(all->empty());
}

}  // namespace
}  // namespace clgen::preprocess
