// Every option of every subcommand, as the built clgen lists them (`clgen
// --cli-schema`), given values it must refuse: each refusal is exit code 2
// and one stderr line that starts with "clgen" and names the option, never a
// crash or a backtrace. New options are covered without editing this test;
// options for which one of the values is valid are skipped by name below.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/files.h"
#include "tests/cli/run_command.h"
#include "tests/common/temp_dir.h"

namespace clgen::testing {
namespace {

struct Option {
  std::string name;  // "--runs", or a positional's name
  std::string type;  // CLI11's type name and checks: "INT:POSITIVE", "TEXT:FILE", ...
  bool flag = false;
  bool positional = false;
};

struct Command {
  std::string path;  // "corpus add"
  std::vector<Option> options;
};

const std::vector<Command>& commands() {
  static const std::vector<Command> all = [] {
    std::vector<Command> out;
    CommandResult r = run_clgen({"--cli-schema"});
    auto json = nlohmann::json::parse(r.out, nullptr, /*allow_exceptions=*/false);
    if (r.exit_code != 0 || !json.is_array()) return out;
    for (const auto& c : json) {
      Command cmd;
      for (const auto& w : c.at("path")) cmd.path += (cmd.path.empty() ? "" : " ") + w.get<std::string>();
      for (const auto& o : c.at("options"))
        cmd.options.push_back({o.at("name").get<std::string>(), o.at("type").get<std::string>(),
                               o.at("flag").get<bool>(), o.at("positional").get<bool>()});
      out.push_back(cmd);
    }
    return out;
  }();
  return all;
}

const std::vector<std::string> kNumberValues = {"-1", "0", "1e400", "18446744073709551617", "nan", "inf", ""};
const std::vector<std::string> kPathValues = {"", "/nonexistent/clgen-missing-path"};

// Text options that hold numbers (sizes parsed by the command).
const std::set<std::string> kNumericText = {"drive --gsize", "drive --lsize", "drive --gsize-sweep", "sample --shard"};
// Text options that name inputs which must exist (others are outputs), in
// addition to those CLI11 checks (type "...:FILE").
const std::set<std::string> kInputPathText = {"corpus add PATH",
                                              "corpus add --manifest",
                                              "corpus decontaminate --against",
                                              "predict train --data",
                                              "predict eval --data",
                                              "predict apply --data",
                                              "predict train --folds",
                                              "predict eval --folds",
                                              "predict apply --folds",
                                              "predict apply --model-file",
                                              "features files",
                                              "shim infer paths",
                                              "workspace merge sources",
                                              "sample --config"};

// "COMMAND OPTION" -> the values among the bad ones that it accepts, and why.
struct Skip {
  std::set<std::string> values;
  const char* reason;
};
const std::map<std::string, Skip> kValid = {
    {"drive --seed", {{"0"}, "any 64-bit payload seed"}},
    {"drive --warmup", {{"0"}, "no warm-up runs"}},
    {"drive --limit", {{"0"}, "0 means all sources"}},
    {"drive --shuffle", {{"0"}, "0 means stored order"}},
    {"drive --jobs", {{"0"}, "0 means one per core"}},
    {"drive --memory-limit", {{"0"}, "0 means the default cap"}},
    {"corpus preprocess --threads", {{"0"}, "0 means all cores"}},
    {"corpus decontaminate --threads", {{"0"}, "0 means all cores"}},
    {"corpus mine-github --retries", {{"0"}, "no retries"}},
    {"corpus mine-github --max-wait", {{"0"}, "no waiting: any rate limit is an error"}},
    {"corpus mine-github --retry-delay", {{"0"}, "retry at once"}},
    {"predict eval --seed", {{"0"}, "any 64-bit seed"}},
    {"predict experiment --seed", {{"0"}, "any 64-bit seed"}},
    {"predict experiment --jobs", {{"0"}, "0 means one per core"}},
    {"shim infer --show", {{"0"}, "list no candidates"}},
    {"sample -n", {{"0"}, "0 means no limit"}},
    {"sample --seed", {{"0"}, "any 64-bit seed"}},
    {"eval realism --seed", {{"0"}, "any 64-bit seed"}},
    {"eval realism --max-per-side", {{"0"}, "0 means the smaller side's count"}},
    {"sample --max-samples", {{"0"}, "0 means no limit"}},
    {"sample --filter-threads", {{"0"}, "0 means cores - 1"}},
    {"sample --check-jobs", {{"0"}, "0 means one per core"}},
    {"sample --plain-share", {{"0"}, "every directed restart continues a kernel's prefix"}},
    {"sample --near-share", {{"0"}, "0 leaves every continuation to the round-robin; the default is 0.5"}},
    {"sample --repairs", {{"0"}, "0 means abandon at once (no repair)"}},
    {"sample --backtracks", {{"0"}, "0 turns backtracking off"}},
    {"sample --max-refusals", {{"0"}, "0 never ends a stream for its refusals"}},
    {"sample --correction", {{"0"}, "0 turns the importance correction off"}},
    {"sample --near-copy", {{"0"}, "0 keeps near copies of corpus kernels"}},
    {"sample --resume-errors", {{"0"}, "0 resumes no rejected sample"}},
    {"sample --temperature", {{"0", "18446744073709551617"}, "0 is greedy; any finite temperature is a distribution"}},
    {"sample --top-k", {{"0"}, "0 disables top-k"}},
    {"sample --top-p", {{"0"}, "keeps the single most likely token"}},
    {"sample --time-limit", {{"0"}, "0 means no limit"}},
    {"sample --shard", {{""}, "empty is the documented unsharded default, 0/1"}},
    // cmd_features.cpp reports each unreadable file on its own line and then
    // a summary: two lines by design (several files, some readable).
    {"features files", {{"", "/nonexistent/clgen-missing-path"}, "a per-file report, then a summary line"}},
};

// Arguments that make a command valid apart from the option under test, so
// the refusal is about that option, and nothing slow runs if it is not
// refused: pairs of an option and its value, or one positional value.
// "@FILE" is an existing file, "@DIR" an empty directory.
const std::map<std::string, std::vector<std::vector<std::string>>> kBaseArgs = {
    {"drive", {{"@FILE"}}},
    {"corpus add", {{"@DIR"}}},
    {"corpus mine-github", {{"--api-url", "http://127.0.0.1:9"}, {"--retries", "0"}, {"--max-repos", "1"}}},
    {"corpus decontaminate", {{"--against", "@DIR"}}},
    {"shim infer", {{"@FILE"}}},
    {"predict train", {{"--data", "@FILE"}}},
    {"predict eval", {{"--data", "@FILE"}}},
    {"predict apply", {{"--data", "@FILE"}, {"--model-file", "@FILE"}}},
    {"predict experiment", {{"--data", "@FILE"}}},
};

// Flags that exclude each other: the arguments, and a word the refusal names.
struct Conflict {
  std::vector<std::string> args;
  std::string mention;
};
const std::map<std::string, std::vector<Conflict>> kConflicts = {
    {"drive",
     {{{"@FILE", "--gsize", "64", "--gsize-sweep", "2^6..2^7"}, "--gsize-sweep"},
      {{"@FILE", "--lsize", "4", "--lsize-sweep"}, "--lsize-sweep"},
      {{"@FILE", "--gsize", "64", "--crossover", "2^6..2^9"}, "--crossover"}}},
    {"sample", {{{"--model", "m", "--config", "@FILE"}, "--config"}}},
    {"dataset export",
     {{{"--task", "wgsize", "--cpu", "x"}, "--cpu"},
      {{"--task", "mapping", "--cpu", "x", "--gpu", "y", "--device", "z"}, "--device"}}},
};

std::vector<std::string> split(const std::string& path) {
  std::istringstream in(path);
  std::vector<std::string> out;
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

class BadValues : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    ASSERT_TRUE(write_file_atomic(file_, "kernel void k(global int* a) {}\n").ok());
    ASSERT_EQ(::mkdir(empty_dir_.c_str(), 0755), 0);
  }

  std::vector<std::string> args(const std::vector<std::string>& extra) {
    std::vector<std::string> out = {"--workspace", dir_ / "ws"};
    for (const auto& w : split(GetParam())) out.push_back(w);
    for (const auto& a : extra) out.push_back(a == "@FILE" ? file_ : a == "@DIR" ? empty_dir_ : a);
    return out;
  }

  // Runs clgen and checks a clean usage error that mentions `mention`.
  void expect_refused(const std::vector<std::string>& extra, const std::string& mention, int code = 2) {
    std::string shown = "clgen";
    for (const auto& a : args(extra)) shown += " '" + a + "'";
    CommandResult r = run_clgen(args(extra));
    // CLI11 checks some inputs itself (ExistingFile): a usage error then.
    if (code == 1 && r.exit_code == 2) code = 2;
    EXPECT_EQ(r.exit_code, code) << shown << "\nstderr: " << r.err;
    std::string err = r.err;
    while (!err.empty() && err.back() == '\n') err.pop_back();
    EXPECT_EQ(err.find('\n'), std::string::npos) << shown << ": more than one line:\n" << r.err;
    EXPECT_EQ(err.rfind("clgen", 0), 0u) << shown << ": " << r.err;
    EXPECT_NE(err.find(mention), std::string::npos) << shown << ": does not name " << mention << ": " << r.err;
  }

  TempDir dir_;
  std::string file_ = dir_ / "k.cl";
  std::string empty_dir_ = dir_ / "empty";
};

TEST_P(BadValues, EveryNumericAndPathOptionRefusesBadValuesWithOneLineAndExitTwo) {
  const Command* cmd = nullptr;
  for (const auto& c : commands())
    if (c.path == GetParam()) cmd = &c;
  ASSERT_NE(cmd, nullptr);
  auto base = kBaseArgs.count(cmd->path) ? kBaseArgs.at(cmd->path) : std::vector<std::vector<std::string>>{};
  for (const Option& o : cmd->options) {
    if (o.flag || o.name == "--workspace") continue;
    std::string key = cmd->path + " " + o.name;
    const std::string base_type = o.type.substr(0, o.type.find(':'));
    bool number = base_type == "INT" || base_type == "UINT" || base_type == "FLOAT" || kNumericText.count(key);
    bool path = o.type.find(":FILE") != std::string::npos || o.type.find(":DIR") != std::string::npos ||
                kInputPathText.count(key);
    if (!number && !path) continue;
    for (const std::string& value : number ? kNumberValues : kPathValues) {
      if (kValid.count(key) && kValid.at(key).values.count(value)) continue;
      std::vector<std::string> extra;
      if (o.positional) {
        extra = {value};
      } else {
        for (const auto& arg : base)
          if (arg.front() != o.name) extra.insert(extra.end(), arg.begin(), arg.end());
        extra.push_back(o.name);
        extra.push_back(value);
      }
      // A missing input is found when the command runs: exit 1 (a failure,
      // as for every other unreadable input), with a line naming it.
      const bool missing = path && !value.empty();
      expect_refused(extra, missing ? value : o.positional ? "" : o.name, missing ? 1 : 2);
    }
  }
}

TEST_P(BadValues, ConflictingFlagsAreUsageErrors) {
  if (!kConflicts.count(GetParam())) GTEST_SKIP() << "no conflicting flags";
  for (const auto& c : kConflicts.at(GetParam())) expect_refused(c.args, c.mention);
}

std::vector<std::string> command_paths() {
  std::vector<std::string> out;
  for (const auto& c : commands())
    if (!c.path.empty()) out.push_back(c.path);
  return out;
}

std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string name;
  for (char c : info.param) name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return name;
}

INSTANTIATE_TEST_SUITE_P(Cli, BadValues, ::testing::ValuesIn(command_paths()), test_name);

// The walk above must have found commands, or it checked nothing.
TEST(BadValuesSchema, ListsTheDriveCommandAndItsNumericOptions) {
  bool drive_runs = false;
  for (const auto& c : commands())
    for (const auto& o : c.options)
      drive_runs |= c.path == "drive" && o.name == "--runs" && o.type.rfind("INT", 0) == 0;
  EXPECT_TRUE(drive_runs) << commands().size() << " commands listed";
}

}  // namespace
}  // namespace clgen::testing
