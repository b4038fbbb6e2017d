// Tests of the CSV reader: quoting, ragged rows, empty input, numbers.
#include <gtest/gtest.h>

#include "predict/csv.h"

namespace clgen::predict {
namespace {

TEST(Csv, ParsesQuotedFieldsWithCommasQuotesAndNewlines) {
  auto t = parse_csv("a,b,c\r\n1,\"x,y\",\"say \"\"hi\"\"\"\n2,\"two\nlines\",\n", "t.csv");
  ASSERT_TRUE(t.ok()) << t.status().message();
  ASSERT_EQ(t->rows.size(), 2u);
  EXPECT_EQ(t->rows[0][1], "x,y");
  EXPECT_EQ(t->rows[0][2], "say \"hi\"");
  EXPECT_EQ(t->rows[1][1], "two\nlines");
  EXPECT_EQ(t->rows[1][2], "");
  EXPECT_EQ(t->column("c"), 2);
  EXPECT_EQ(t->column("d"), -1);
}

TEST(Csv, RejectsRowsWithTheWrongNumberOfFieldsNamingTheLine) {
  auto t = parse_csv("a,b\n1,2\n3\n", "t.csv");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("t.csv: line 3"), std::string::npos) << t.status().message();
}

TEST(Csv, RejectsEmptyInputAndUnterminatedQuotes) {
  EXPECT_FALSE(parse_csv("", "e.csv").ok());
  EXPECT_FALSE(parse_csv("a\n\"x\n", "q.csv").ok());
}

TEST(Csv, MissingFileIsNotFound) {
  auto t = read_csv("/nonexistent/x.csv");
  ASSERT_FALSE(t.ok());
  EXPECT_NE(t.status().message().find("/nonexistent/x.csv"), std::string::npos);
}

TEST(Csv, ParseNumberRejectsTrailingText) {
  EXPECT_DOUBLE_EQ(*parse_number("2.5e3", "v"), 2500);
  EXPECT_FALSE(parse_number("12abc", "v").ok());
  EXPECT_FALSE(parse_number("", "v").ok());
  EXPECT_FALSE(parse_number("nan", "v").ok());
}

}  // namespace
}  // namespace clgen::predict
