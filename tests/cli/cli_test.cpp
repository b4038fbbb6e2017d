// End-to-end tests of the clgen executable: help, usage errors, exit codes,
// version and device listing.
#include <gtest/gtest.h>

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

TEST(Cli, EverySubcommandHasHelp) {
  for (const char* cmd : {"devices", "version"}) {
    CommandResult r = run_clgen({cmd, "--help"});
    EXPECT_EQ(r.exit_code, 0) << cmd << ": " << r.err;
    EXPECT_NE(r.out.find(cmd), std::string::npos) << r.out;
  }
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
