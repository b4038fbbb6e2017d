// The workspace of the sampler's end-to-end tests: a `preprocessed` table
// holding the kernels of tests/data/sampler/corpus as accepted, normalized
// texts, which `clgen train` then learns.
#pragma once

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>

#include "support/files.h"
#include "support/sha256.h"
#include "support/sqlite.h"

namespace clgen::testing {

inline std::string slurp_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Creates `db_path` with the corpus (call under ASSERT_NO_FATAL_FAILURE).
inline void write_sampler_corpus(const std::string& db_path) {
  auto db = Database::open(db_path);
  ASSERT_TRUE(db.ok()) << db.status().message();
  ASSERT_TRUE(db->exec("CREATE TABLE IF NOT EXISTS preprocessed(content_sha256 TEXT NOT NULL, "
                       "preprocessor_version TEXT NOT NULL, status TEXT NOT NULL, category TEXT, reason TEXT, "
                       "normalized_text TEXT, normalized_sha256 TEXT, instruction_count INTEGER, "
                       "PRIMARY KEY(content_sha256, preprocessor_version))")
                  .ok());
  auto ins = db->prepare("INSERT INTO preprocessed VALUES(?1, 'test', 'ok', NULL, NULL, ?2, ?1, 10)");
  ASSERT_TRUE(ins.ok());
  for (const auto& e : std::filesystem::directory_iterator(std::string(CLGEN_TEST_DATA) + "/sampler/corpus")) {
    std::string text = slurp_file(e.path());
    std::string sha = sha256_hex(text);
    ins->reset();
    ASSERT_TRUE(ins->bind(1, std::string_view(sha)).ok());
    ASSERT_TRUE(ins->bind(2, std::string_view(text)).ok());
    ASSERT_TRUE(ins->run().ok());
  }
}

// A fresh directory <tmp>/<name>_<pid> holding ws/clgen.db with the corpus
// (call under ASSERT_NO_FATAL_FAILURE).
inline void fresh_corpus_workspace(const std::string& name, std::filesystem::path* root) {
  *root = std::filesystem::temp_directory_path() / (name + "_" + std::to_string(::getpid()));
  (void)remove_tree(root->string());
  std::filesystem::create_directories(*root / "ws");
  ASSERT_NO_FATAL_FAILURE(write_sampler_corpus((*root / "ws" / "clgen.db").string()));
}

}  // namespace clgen::testing
