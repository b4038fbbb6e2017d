// Status / Expected behaviour and the propagation macros.
#include "support/status.h"

#include <gtest/gtest.h>

namespace clgen {
namespace {

Expected<int> parse_positive(int v) {
  if (v <= 0) return invalid_argument("value " + std::to_string(v) + " is not positive");
  return v;
}

Expected<int> doubled(int v) {
  ASSIGN_OR_RETURN(int x, parse_positive(v));
  return 2 * x;
}

Status check_all(const std::vector<int>& values) {
  for (int v : values) RETURN_IF_ERROR_CTX(parse_positive(v).status(), "item " + std::to_string(v));
  return ok_status();
}

TEST(Status, DefaultIsOk) {
  Status s;
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.to_string(), "ok");
}

TEST(Status, ContextIsPrependedToMessageAndKeepsCode) {
  Status s = not_found("x.cl").with_context("reading corpus");
  EXPECT_EQ(s.code(), ErrorCode::kNotFound);
  EXPECT_EQ(s.message(), "reading corpus: x.cl");
  EXPECT_TRUE(ok_status().with_context("ignored").ok());
}

TEST(Expected, HoldsValueOrError) {
  Expected<int> good = 3;
  ASSERT_TRUE(good.ok());
  EXPECT_EQ(*good, 3);
  EXPECT_TRUE(good.status().ok());
  Expected<int> bad = io_error("disk full");
  EXPECT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), ErrorCode::kIo);
}

TEST(Expected, AssignOrReturnPropagatesTheFirstError) {
  EXPECT_EQ(*doubled(4), 8);
  Expected<int> r = doubled(-1);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(r.status().message(), "value -1 is not positive");
}

TEST(Status, ReturnIfErrorStopsAtFailureWithContext) {
  EXPECT_TRUE(check_all({1, 2, 3}).ok());
  Status s = check_all({1, -2, -3});
  EXPECT_EQ(s.message(), "item -2: value -2 is not positive");
}

TEST(Status, EveryCodeHasAName) {
  EXPECT_STREQ(error_code_name(ErrorCode::kDatabase), "database error");
  EXPECT_STREQ(error_code_name(ErrorCode::kUsage), "usage error");
}

}  // namespace
}  // namespace clgen
