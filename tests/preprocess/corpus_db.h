// A bare corpus for the preprocess store's tests: an in-memory database with
// a content_files table (the columns of the schema contract) holding texts.
#pragma once

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "support/sha256.h"
#include "support/sqlite.h"

namespace clgen::testing {

// Adds `text` to content_files, keyed by its sha256.
inline void add_content(Database& db, const std::string& text) {
  auto st = db.prepare("INSERT INTO content_files (sha256, text, size) VALUES (?, ?, ?)");
  EXPECT_TRUE(st.ok());
  EXPECT_TRUE(st->bind(1, sha256_hex(text)).ok());
  EXPECT_TRUE(st->bind(2, text).ok());
  EXPECT_TRUE(st->bind(3, static_cast<int64_t>(text.size())).ok());
  EXPECT_TRUE(st->run().ok());
}

inline Database corpus_db(const std::vector<std::string>& texts) {
  auto db = Database::open(":memory:");
  EXPECT_TRUE(db.ok());
  EXPECT_TRUE(db->exec("CREATE TABLE content_files (sha256 TEXT PRIMARY KEY, text TEXT NOT NULL, "
                       "size INTEGER, path TEXT)")
                  .ok());
  for (const std::string& t : texts) add_content(*db, t);
  return std::move(*db);
}

}  // namespace clgen::testing
