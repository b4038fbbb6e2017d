// Knob tables: config keys applied under flags, their range and choice
// checks with messages naming the config and key, and the table's keys.
#include "support/knobs.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "support/config.h"

namespace clgen {
namespace {

// Parses TOML text whose origin is "t.toml"; a syntax error fails the test.
Config parse(const std::string& text) {
  auto c = Config::parse(text, "t.toml");
  if (!c.ok()) {
    ADD_FAILURE() << c.status().message();
    return std::move(Config::parse("", "t.toml")).value();
  }
  return std::move(c).value();
}

TEST(Knobs, ConfigKeySetsItsFieldWhenTheFlagWasNotGiven) {
  double top_p = 0.9;
  int top_k = 0;
  std::string begin = "text";
  bool cuts = false;
  size_t length = 10;
  std::vector<Knob> t = {
      Knob("--top-p", top_p, "h", "g").config("sampler.top_p"),
      Knob("--top-k", top_k, "h", "g").config("sampler.top_k"),
      Knob("--begin", begin, "h", "g").config("sampler.begin"),
      Knob("--near-cuts", cuts, "h", "g").config("sampler.near_cuts"),
      Knob("--max-length", length, "h", "g").config("sampler.max_length"),
  };
  Config c = parse(
      "[sampler]\ntop_p = 0.5\ntop_k = 7\nbegin = \"signature\"\nnear_cuts = true\n"
      "max_length = 4096\n");
  Status s = apply_config(c, t, {});
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_DOUBLE_EQ(top_p, 0.5);
  EXPECT_EQ(top_k, 7);
  EXPECT_EQ(begin, "signature");
  EXPECT_TRUE(cuts);
  EXPECT_EQ(length, 4096u);
}

TEST(Knobs, IntegerConfigValueSetsADoubleField) {
  double temperature = 1.0;
  std::vector<Knob> t = {Knob("--temperature", temperature, "h", "g").config("sampler.temperature")};
  Status s = apply_config(parse("[sampler]\ntemperature = 2\n"), t, {});
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_DOUBLE_EQ(temperature, 2.0);
}

TEST(Knobs, GivenFlagWinsOverTheConfigKey) {
  double top_p = 0.3;  // as the flag set it
  int top_k = 0;
  std::vector<Knob> t = {
      Knob("--top-p", top_p, "h", "g").config("sampler.top_p"),
      Knob("--top-k", top_k, "h", "g").config("sampler.top_k"),
  };
  Status s = apply_config(parse("[sampler]\ntop_p = 0.5\ntop_k = 7\n"), t, {"--top-p"});
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_DOUBLE_EQ(top_p, 0.3);
  EXPECT_EQ(top_k, 7);  // its flag was not given
}

TEST(Knobs, GivenFlagWinsEvenWhenTheConfigValueWouldBeRefused) {
  double top_p = 0.3;
  std::vector<Knob> t = {Knob("--top-p", top_p, "h", "g").in_range(0.0, 1.0).config("sampler.top_p")};
  Status s = apply_config(parse("[sampler]\ntop_p = 7.5\n"), t, {"--top-p"});
  EXPECT_TRUE(s.ok()) << s.message();
  EXPECT_DOUBLE_EQ(top_p, 0.3);
}

TEST(Knobs, FlagGivenIsMatchedByTheKnobsFirstFlagNameWithoutBang) {
  bool constrain = true;
  bool cuts = false;
  std::vector<Knob> t = {
      Knob("!--no-constrain", constrain, "h", "g").config("sampler.constrain"),
      Knob("--near-cuts,!--no-near-cuts", cuts, "h", "g").config("sampler.near_cuts"),
  };
  Config c = parse("[sampler]\nconstrain = false\nnear_cuts = true\n");
  Status s = apply_config(c, t, {"--no-constrain", "--near-cuts"});
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_TRUE(constrain);
  EXPECT_FALSE(cuts);
  // The second name of a flag pair does not count as the knob's flag.
  s = apply_config(c, t, {"--no-near-cuts"});
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_TRUE(cuts);
}

TEST(Knobs, FlagIsTheFirstNameWithoutBang) {
  int n = 0;
  bool b = false;
  EXPECT_EQ(Knob("-n", n, "h", "g").flag(), "-n");
  EXPECT_EQ(Knob("!--no-constrain", b, "h", "g").flag(), "--no-constrain");
  EXPECT_EQ(Knob("--near-cuts,!--no-near-cuts", b, "h", "g").flag(), "--near-cuts");
}

TEST(Knobs, AbsentKeyAndKeylessKnobLeaveTheirFieldsUnchanged) {
  double top_p = 0.9;
  int seed = 42;
  std::vector<Knob> t = {
      Knob("--top-p", top_p, "h", "g").config("sampler.top_p"), Knob("--seed", seed, "h", "g"),  // a flag only
  };
  Status s = apply_config(parse("seed = 1\n[sampler]\ntop_k = 3\n"), t, {});
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_DOUBLE_EQ(top_p, 0.9);
  EXPECT_EQ(seed, 42);
}

TEST(Knobs, OutOfRangeDoubleIsRefusedNamingOriginKeyAndRangeAndLeavesTheField) {
  double top_p = 0.9;
  std::vector<Knob> t = {Knob("--top-p", top_p, "h", "g").in_range(0.0, 1.0).config("sampler.top_p")};
  Status s = apply_config(parse("[sampler]\ntop_p = 1.5\n"), t, {});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "t.toml: sampler.top_p: 1.5 is not in [0, 1]");
  EXPECT_DOUBLE_EQ(top_p, 0.9);
}

TEST(Knobs, OutOfRangeIntegerIsRefusedNamingOriginKeyAndRangeAndLeavesTheField) {
  int length = 10;
  std::vector<Knob> t = {Knob("--max-length", length, "h", "g").in_range(1, 100).config("sampler.max_length")};
  Status s = apply_config(parse("[sampler]\nmax_length = 0\n"), t, {});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "t.toml: sampler.max_length: 0 is not in [1, 100]");
  EXPECT_EQ(length, 10);
}

TEST(Knobs, RangeBoundsAreAccepted) {
  double p = 0.5;
  int k = 5;
  std::vector<Knob> t = {
      Knob("--p", p, "h", "g").in_range(0.0, 1.0).config("s.p"),
      Knob("--k", k, "h", "g").in_range(1, 100).config("s.k"),
  };
  Status s = apply_config(parse("[s]\np = 1.0\nk = 1\n"), t, {});
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_DOUBLE_EQ(p, 1.0);
  EXPECT_EQ(k, 1);
}

TEST(Knobs, NanIsRefusedByARangedDoubleKnob) {
  double p = 0.5;
  std::vector<Knob> t = {Knob("--p", p, "h", "g").in_range(0.0, 1.0).config("s.p")};
  Status s = apply_config(parse("[s]\np = nan\n"), t, {});
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find("t.toml: s.p: "), std::string::npos) << s.message();
  EXPECT_NE(s.message().find("is not in [0, 1]"), std::string::npos) << s.message();
  EXPECT_DOUBLE_EQ(p, 0.5);
}

TEST(Knobs, IntegerRangeIsCheckedBeforeTheValueNarrows) {
  int k = 3;
  unsigned u = 3;
  // 2^32 + 5 would wrap to 5 in 32 bits, inside the range.
  std::vector<Knob> t = {Knob("--k", k, "h", "g").config_range(0, 1 << 30).config("s.k")};
  Status s = apply_config(parse("[s]\nk = 4294967301\n"), t, {});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "t.toml: s.k: 4294967301 is not in [0, 1073741824]");
  EXPECT_EQ(k, 3);
  // A negative value does not become a large unsigned one.
  std::vector<Knob> tu = {Knob("--u", u, "h", "g").config_range(0, 1000).config("s.u")};
  s = apply_config(parse("[s]\nu = -1\n"), tu, {});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "t.toml: s.u: -1 is not in [0, 1000]");
  EXPECT_EQ(u, 3u);
}

TEST(Knobs, ValueOutsideTheChoicesIsRefusedNamingTheChoicesAndLeavesTheField) {
  std::string begin = "text";
  std::vector<Knob> t = {Knob("--begin", begin, "h", "g").one_of({"text", "signature"}).config("sampler.begin")};
  Status s = apply_config(parse("[sampler]\nbegin = \"words\"\n"), t, {});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), ErrorCode::kInvalidArgument);
  EXPECT_EQ(s.message(), "t.toml: sampler.begin: \"words\" is not one of text, signature");
  EXPECT_EQ(begin, "text");
}

TEST(Knobs, StringKnobWithoutChoicesTakesAnyString) {
  std::string out = "a";
  std::vector<Knob> t = {Knob("--out", out, "h", "g").config("s.out")};
  Status s = apply_config(parse("[s]\nout = \"anything at all\"\n"), t, {});
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_EQ(out, "anything at all");
}

TEST(Knobs, NegatedKeyStoresTheInverse) {
  bool constrain = true;
  bool cuts = true;
  std::vector<Knob> t = {
      Knob("!--no-constrain", constrain, "h", "g").config("sampler.unconstrained").key_negated(),
      Knob("--near-cuts", cuts, "h", "g").config("sampler.near_cuts"),
  };
  Status s = apply_config(parse("[sampler]\nunconstrained = true\nnear_cuts = false\n"), t, {});
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_FALSE(constrain);  // negated: true in the config stores false
  EXPECT_FALSE(cuts);       // not negated: stored as is
  s = apply_config(parse("[sampler]\nunconstrained = false\n"), t, {});
  ASSERT_TRUE(s.ok()) << s.message();
  EXPECT_TRUE(constrain);
}

TEST(Knobs, ConfigRangeChecksTheConfigOnlyAndKeepsTheFlagsCheck) {
  double temperature = 1.0;
  Knob k =
      Knob("--temperature", temperature, "h", "g").checked(FlagCheck::kNonNegative).config("t").config_range(0, 100);
  // The flag keeps its own check; the range is for the config.
  EXPECT_EQ(k.check, FlagCheck::kNonNegative);
  ASSERT_TRUE(k.range.has_value());
  EXPECT_DOUBLE_EQ(k.range->lo, 0.0);
  EXPECT_DOUBLE_EQ(k.range->hi, 100.0);
  std::vector<Knob> t = {k};
  Status s = apply_config(parse("t = 150.0\n"), t, {});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "t.toml: t: 150 is not in [0, 100]");
  EXPECT_DOUBLE_EQ(temperature, 1.0);
}

TEST(Knobs, InRangeAndOneOfSetTheFlagsCheck) {
  double p = 0;
  std::string d;
  int n = 0;
  EXPECT_EQ(Knob("--p", p, "h", "g").in_range(0, 1).check, FlagCheck::kRange);
  EXPECT_EQ(Knob("--d", d, "h", "g").one_of({"cpu", "cuda"}).check, FlagCheck::kChoices);
  EXPECT_EQ(Knob("--n", n, "h", "g").check, FlagCheck::kNone);
  EXPECT_FALSE(Knob("--n", n, "h", "g").range.has_value());
}

TEST(Knobs, WrongTypeIsRefusedNamingTheConfigAndKey) {
  int top_k = 4;
  std::vector<Knob> t = {Knob("--top-k", top_k, "h", "g").config("sampler.top_k")};
  Status s = apply_config(parse("[sampler]\ntop_k = \"many\"\n"), t, {});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message().rfind("t.toml: sampler.top_k: ", 0), 0u) << s.message();
  EXPECT_EQ(top_k, 4);
}

TEST(Knobs, ApplyStopsAtTheFirstRefusedKeyInTableOrder) {
  int a = 0, c = 0;
  double b = 0.5;
  std::vector<Knob> t = {
      Knob("--a", a, "h", "g").config("s.a"),
      Knob("--b", b, "h", "g").in_range(0, 1).config("s.b"),
      Knob("--c", c, "h", "g").config("s.c"),
  };
  Status s = apply_config(parse("[s]\na = 1\nb = 2.5\nc = 3\n"), t, {});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "t.toml: s.b: 2.5 is not in [0, 1]");
  EXPECT_EQ(a, 1);  // before the refused key: applied
  EXPECT_EQ(c, 0);  // after it: not
}

TEST(Knobs, KnobKeysListsTheKeysInTableOrder) {
  int a = 0, b = 0, c = 0, d = 0;
  std::vector<Knob> t = {
      Knob("--a", a, "h", "g").config("z.last_alphabetically"),
      Knob("--b", b, "h", "g"),  // no key: left out
      Knob("--c", c, "h", "g").config("a.first_alphabetically"),
      Knob("--d", d, "h", "g").config("m.middle"),
  };
  EXPECT_EQ(knob_keys(t), (std::vector<std::string>{"z.last_alphabetically", "a.first_alphabetically", "m.middle"}));
  EXPECT_TRUE(knob_keys({}).empty());
}

}  // namespace
}  // namespace clgen
