// CSV field quoting and row joining follow RFC 4180 (section 2, rules 4-7).
#include "support/csv.h"

#include <gtest/gtest.h>

namespace clgen {
namespace {

TEST(CsvField, PlainTextIsUnchanged) {
  EXPECT_EQ(csv_field("saxpy"), "saxpy");
  EXPECT_EQ(csv_field(""), "");
}

TEST(CsvField, CommasQuotesAndLineBreaksAreQuoted) {
  EXPECT_EQ(csv_field("a,b"), "\"a,b\"");
  EXPECT_EQ(csv_field("two\nlines"), "\"two\nlines\"");
  EXPECT_EQ(csv_field("cr\rlf"), "\"cr\rlf\"");
}

TEST(CsvField, InnerQuotesAreDoubled) {
  // RFC 4180 rule 7: a quote inside a quoted field is written as two quotes.
  EXPECT_EQ(csv_field("say \"hi\""), "\"say \"\"hi\"\"\"");
  EXPECT_EQ(csv_field("a,\"b\""), "\"a,\"\"b\"\"\"");
  EXPECT_EQ(csv_field("\""), "\"\"\"\"");
}

TEST(CsvRow, JoinsQuotedFieldsWithCommas) {
  EXPECT_EQ(csv_row({"1", "a,b", "", "x\"y"}), "1,\"a,b\",,\"x\"\"y\"");
  EXPECT_EQ(csv_row({"only"}), "only");
  EXPECT_EQ(csv_row({}), "");
}

TEST(CsvRow, ALoneEmptyFieldIsQuotedSoTheRowIsNoBlankLine) {
  // Found by fuzz_features_csv: the header `""` of a one-column table was
  // written as an empty line, which the reader (predict/csv.h) skips, so the
  // first data row became the header.
  EXPECT_EQ(csv_row({""}), "\"\"");
  EXPECT_EQ(csv_row({"", ""}), ",");
}

}  // namespace
}  // namespace clgen
