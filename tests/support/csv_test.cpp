// CSV field quoting follows RFC 4180.
#include "support/csv.h"

#include <gtest/gtest.h>

namespace clgen {
namespace {

TEST(CsvField, PlainTextIsUnchanged) { EXPECT_EQ(csv_field("saxpy"), "saxpy"); }

TEST(CsvField, CommasQuotesAndLineBreaksAreQuoted) {
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_field("two\nlines"), "\"two\nlines\"");
}

}  // namespace
}  // namespace clgen
