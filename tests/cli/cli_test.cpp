// End-to-end tests of the clgen executable: help, usage errors, exit codes,
// version and device listing.
#include <gtest/gtest.h>

#include <cctype>
#include <set>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/cli/run_command.h"

namespace clgen::testing {
namespace {

TEST(Cli, HelpListsSubcommandsAndExitsZero) {
  CommandResult r = run_clgen({"--help"});
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("devices"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("version"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("--workspace"), std::string::npos) << r.out;
}

// The subcommands a --help text lists, each with its description: the lines
// of its "Subcommands:" section (CLI11's help layout: "  NAME  DESCRIPTION").
std::vector<std::pair<std::string, std::string>> listed_subcommands(const std::string& help) {
  std::vector<std::pair<std::string, std::string>> out;
  std::istringstream in(help);
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    std::string lower = line;
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower == "subcommands:") {
      inside = true;
    } else if (inside && (line.empty() || line[0] != ' ')) {
      inside = false;
    } else if (inside && line.compare(0, 3, "   ") == 0 && !out.empty()) {
      // A name too long for the name column puts its description on the next line.
      std::istringstream words(line);
      std::getline(words >> std::ws, out.back().second);
    } else if (inside) {
      std::istringstream words(line);
      std::string name, description;
      words >> name;
      std::getline(words >> std::ws, description);
      out.push_back({name, description});
    }
  }
  return out;
}

// Every subcommand the CLI registers, nested ones ("corpus add") included,
// found by walking the help texts down from `clgen --help`, so that a new
// command is covered without editing this test. Each must answer --help with
// exit code 0, a usage line naming its full path, and a description.
TEST(Cli, EverySubcommandHasHelp) {
  std::vector<std::vector<std::string>> pending = {{}};
  std::set<std::string> checked;
  while (!pending.empty()) {
    std::vector<std::string> path = pending.back();
    pending.pop_back();
    std::string name = "clgen";
    for (const std::string& w : path) name += " " + w;
    std::vector<std::string> args = path;
    args.push_back("--help");
    CommandResult r = run_clgen(args);
    EXPECT_EQ(r.exit_code, 0) << name << " --help: " << r.err;
    EXPECT_NE(r.out.find("Usage: " + name + " "), std::string::npos) << name << " --help:\n" << r.out;
    checked.insert(name);
    for (const auto& [sub, description] : listed_subcommands(r.out)) {
      EXPECT_FALSE(description.empty()) << name << " " << sub << " has no description";
      std::vector<std::string> child = path;
      child.push_back(sub);
      pending.push_back(child);
    }
  }
  // Registered in every build (cli/main.cpp): if these are missing, the walk
  // above read the help layout wrong and checked nothing.
  EXPECT_TRUE(checked.count("clgen devices")) << checked.size() << " commands found";
  EXPECT_TRUE(checked.count("clgen version")) << checked.size() << " commands found";
}

TEST(Cli, UnknownSubcommandExitsTwoWithMessage) {
  CommandResult r = run_clgen({"frobnicate"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("frobnicate"), std::string::npos) << r.err;
}

TEST(Cli, MissingSubcommandExitsTwo) {
  CommandResult r = run_clgen({});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_FALSE(r.err.empty());
}

TEST(Cli, UnknownFlagExitsTwo) {
  CommandResult r = run_clgen({"devices", "--no-such-flag"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--no-such-flag"), std::string::npos) << r.err;
}

TEST(Cli, VersionFlagPrintsVersion) {
  CommandResult r = run_clgen({"--version"});
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.out.find("0.1.0"), std::string::npos) << r.out;
}

TEST(Cli, VersionDepsListsLinkedLibraries) {
  CommandResult r = run_clgen({"version", "--deps"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  for (const char* lib : {"SQLite", "OpenCL ICD loader", "libgit2", "libcurl", "LLVM",
                          "LibTorch", "SentencePiece"}) {
    EXPECT_NE(r.out.find(lib), std::string::npos) << lib << " missing from:\n" << r.out;
  }
}

#ifdef CLGEN_HAVE_OPENCL
TEST(Cli, DevicesFindsPoclCpuDevice) {
  CommandResult r = run_clgen({"devices"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("Portable Computing Language"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("[CPU]"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("max workgroup size"), std::string::npos) << r.out;
}

TEST(Cli, DevicesJsonHasKeyProperties) {
  CommandResult r = run_clgen({"devices", "--json"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto j = nlohmann::json::parse(r.out);
  ASSERT_TRUE(j.is_array());
  bool found_cpu = false;
  for (const auto& d : j) {
    if (d["type"] == "CPU" && d["platform"].get<std::string>().find("Portable") != std::string::npos) {
      found_cpu = true;
      EXPECT_GT(d["compute_units"].get<int>(), 0);
      EXPECT_GT(d["max_work_group_size"].get<int64_t>(), 0);
      EXPECT_GT(d["local_mem_size"].get<int64_t>(), 0);
      EXPECT_GT(d["global_mem_size"].get<int64_t>(), 0);
      EXPECT_NE(d["opencl_c_version"].get<std::string>().find("OpenCL C"), std::string::npos);
    }
  }
  EXPECT_TRUE(found_cpu) << r.out;
}
#endif

}  // namespace
}  // namespace clgen::testing
