// Config loading: typed getters, defaults, and errors that name file and key.
#include "support/config.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

namespace clgen {
namespace {

const char* kToml = R"(
name = "tiny"
[model]
layers = 2
hidden = 64
dropout = 0.1
[train]
learning_rate = 2
shuffle = true
)";

TEST(Config, ReadsTypedValuesByDottedKey) {
  auto c = Config::parse(kToml, "tiny.toml");
  ASSERT_TRUE(c.ok()) << c.status().message();
  EXPECT_EQ(*c->get_string("name"), "tiny");
  EXPECT_EQ(*c->get_int("model.layers"), 2);
  EXPECT_DOUBLE_EQ(*c->get_double("model.dropout"), 0.1);
  EXPECT_DOUBLE_EQ(*c->get_double("train.learning_rate"), 2.0);  // integer accepted
  EXPECT_TRUE(*c->get_bool("train.shuffle"));
}

TEST(Config, OptionalKeysFallBackToDefault) {
  auto c = Config::parse(kToml, "tiny.toml");
  ASSERT_TRUE(c.ok());
  EXPECT_EQ(*c->get_int("model.embedding", 32), 32);
  EXPECT_EQ(*c->get_string("vocab.kind", "char"), "char");
}

TEST(Config, MissingRequiredKeyNamesFileAndKey) {
  auto c = Config::parse(kToml, "tiny.toml");
  ASSERT_TRUE(c.ok());
  auto v = c->get_int("model.sequence_length");
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().code(), ErrorCode::kNotFound);
  EXPECT_EQ(v.status().message(), "tiny.toml: missing required key model.sequence_length");
}

TEST(Config, WrongTypeNamesFileKeyAndTypes) {
  auto c = Config::parse(kToml, "tiny.toml");
  ASSERT_TRUE(c.ok());
  auto v = c->get_int("name");
  ASSERT_FALSE(v.ok());
  EXPECT_EQ(v.status().message(), "tiny.toml: name: expected an integer, got a string");
  auto d = c->get_int("model.dropout", 3);  // present with the wrong type: no fallback
  ASSERT_FALSE(d.ok());
  EXPECT_EQ(d.status().message(), "tiny.toml: model.dropout: expected an integer, got a number");
}

TEST(Config, StringListsReadInOrderAndBadElementsAreNamed) {
  auto c = Config::parse("words = [\"test\", \"Driver\"]\nmixed = [\"a\", 2]\nnot_list = \"a\"\n", "l.toml");
  ASSERT_TRUE(c.ok()) << c.status().message();
  auto words = c->get_string_list("words", {});
  ASSERT_TRUE(words.ok()) << words.status().message();
  EXPECT_EQ(*words, (std::vector<std::string>{"test", "Driver"}));
  EXPECT_EQ(*c->get_string_list("absent", {"x"}), std::vector<std::string>{"x"});
  auto mixed = c->get_string_list("mixed", {});
  ASSERT_FALSE(mixed.ok());
  EXPECT_EQ(mixed.status().message(), "l.toml: mixed: element 2: expected a string, got an integer");
  auto scalar = c->get_string_list("not_list", {});
  ASSERT_FALSE(scalar.ok());
  EXPECT_EQ(scalar.status().message(), "l.toml: not_list: expected an array of strings, got a string");
}

TEST(Config, UnknownKeyIsReportedByName) {
  auto c = Config::parse(kToml, "tiny.toml");
  ASSERT_TRUE(c.ok());
  Status s = c->check_known_keys({"name", "model.layers", "model.hidden", "model.dropout",
                                  "train.learning_rate"});
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.message(), "tiny.toml: train.shuffle: unknown key");
}

TEST(Config, SyntaxErrorNamesFileLineAndColumn) {
  auto dir = std::filesystem::temp_directory_path() / ("clgen_cfg_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::string path = (dir / "bad.toml").string();
  std::ofstream(path) << "[model]\nlayers = 2\nhidden = = 3\n";
  auto c = Config::load_file(path);
  std::filesystem::remove_all(dir);
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), ErrorCode::kParse);
  EXPECT_EQ(c.status().message().rfind(path + ":3:", 0), 0u) << c.status().message();
}

TEST(Config, MissingFileIsNotFound) {
  auto c = Config::load_file("/nonexistent/clgen.toml");
  ASSERT_FALSE(c.ok());
  EXPECT_EQ(c.status().code(), ErrorCode::kNotFound);
  EXPECT_NE(c.status().message().find("/nonexistent/clgen.toml"), std::string::npos);
}

}  // namespace
}  // namespace clgen
