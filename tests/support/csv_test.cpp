// CSV field quoting, row joining and one-line reading follow RFC 4180 (section 2, rules 4-7).
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

TEST(CsvLineFields, ReadsBackWhatCsvRowWrites) {
  const std::vector<std::string> fields = {"1", "a,b", "", "x\"y", "say \"hi\""};
  auto back = csv_line_fields(csv_row(fields));
  ASSERT_TRUE(back.ok()) << back.status().message();
  EXPECT_EQ(fields, *back);
}

TEST(CsvLineFields, EmptyFieldsAndACarriageReturnAtTheEnd) {
  auto f = csv_line_fields(",a,\r");
  ASSERT_TRUE(f.ok());
  EXPECT_EQ((std::vector<std::string>{"", "a", ""}), *f);
}

TEST(CsvLineFields, MisplacedQuotesNameTheirColumn) {
  auto open = csv_line_fields("a,b,\"c");
  ASSERT_FALSE(open.ok());
  EXPECT_NE(std::string::npos, open.status().message().find("column 3")) << open.status().message();
  auto inside = csv_line_fields("a,b\"c");
  ASSERT_FALSE(inside.ok());
  EXPECT_NE(std::string::npos, inside.status().message().find("column 2")) << inside.status().message();
  auto after = csv_line_fields("\"a\"b,c");
  ASSERT_FALSE(after.ok());
  EXPECT_NE(std::string::npos, after.status().message().find("column 1")) << after.status().message();
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
