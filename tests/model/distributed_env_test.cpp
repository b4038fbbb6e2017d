// The rank environment: torchrun's variables, Slurm's fallback, and a
// one-line error for every inconsistent setting.
#include <map>

#include <gtest/gtest.h>

#include "model/distributed_env.h"

namespace clgen::model {
namespace {

Expected<DistributedEnv> from(const std::map<std::string, std::string>& vars) {
  return distributed_env_from([&](const std::string& name) -> std::optional<std::string> {
    auto it = vars.find(name);
    if (it == vars.end()) return std::nullopt;
    return it->second;
  });
}

// The error message of `vars`, or "" when they are accepted.
std::string error_of(const std::map<std::string, std::string>& vars) {
  auto env = from(vars);
  return env.ok() ? "" : env.status().message();
}

TEST(DistributedEnv, ReadsTorchrunVariables) {
  auto env = from({{"RANK", "3"}, {"WORLD_SIZE", "8"}, {"LOCAL_RANK", "1"},
                   {"MASTER_ADDR", "node7"}, {"MASTER_PORT", "1234"}});
  ASSERT_TRUE(env.ok()) << env.status().message();
  EXPECT_EQ(env->rank, 3);
  EXPECT_EQ(env->world_size, 8);
  EXPECT_EQ(env->local_rank, 1);
  EXPECT_EQ(env->master_addr, "node7");
  EXPECT_EQ(env->master_port, 1234);
  EXPECT_EQ(env->launcher, "torchrun");
  EXPECT_FALSE(env->agent_store);
}

TEST(DistributedEnv, DefaultsToAWorldOfOneOnLoopbackWithoutVariables) {
  auto env = from({});
  ASSERT_TRUE(env.ok());
  EXPECT_EQ(env->rank, 0);
  EXPECT_EQ(env->world_size, 1);
  EXPECT_EQ(env->master_addr, "127.0.0.1");
  EXPECT_EQ(env->master_port, 29500);
  EXPECT_EQ(env->launcher, "none");
}

TEST(DistributedEnv, FallsBackToSlurmWhenRankIsAbsent) {
  auto env = from({{"SLURM_PROCID", "5"}, {"SLURM_NTASKS", "16"}, {"SLURM_LOCALID", "1"},
                   {"MASTER_ADDR", "gpu001"}});
  ASSERT_TRUE(env.ok()) << env.status().message();
  EXPECT_EQ(env->rank, 5);
  EXPECT_EQ(env->world_size, 16);
  EXPECT_EQ(env->local_rank, 1);
  EXPECT_EQ(env->launcher, "slurm");
  // RANK wins over Slurm's variables (torchrun started inside an allocation).
  auto both = from({{"SLURM_PROCID", "5"}, {"SLURM_NTASKS", "16"}, {"RANK", "0"},
                    {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "x"}});
  ASSERT_TRUE(both.ok());
  EXPECT_EQ(both->rank, 0);
  EXPECT_EQ(both->world_size, 2);
}

TEST(DistributedEnv, LocalRankDefaultsToRank) {
  auto env = from({{"RANK", "1"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}});
  ASSERT_TRUE(env.ok());
  EXPECT_EQ(env->local_rank, 1);
}

TEST(DistributedEnv, UsesTorchrunsAgentStoreUnderItsRestartAttempt) {
  auto env = from({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"},
                   {"TORCHELASTIC_USE_AGENT_STORE", "True"}, {"TORCHELASTIC_RESTART_COUNT", "2"}});
  ASSERT_TRUE(env.ok());
  EXPECT_TRUE(env->agent_store);
  EXPECT_EQ(env->store_prefix, "clgen/attempt_2");
}

TEST(DistributedEnv, RejectsInconsistentVariablesNamingThem) {
  EXPECT_NE(error_of({{"WORLD_SIZE", "2"}}).find("WORLD_SIZE is set but RANK is not"), std::string::npos);
  EXPECT_NE(error_of({{"RANK", "0"}}).find("RANK is set but WORLD_SIZE is not"), std::string::npos);
  EXPECT_NE(error_of({{"RANK", "2"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}})
                .find("rank 2 is not below the world size 2"),
            std::string::npos);
  EXPECT_NE(error_of({{"RANK", "-1"}, {"WORLD_SIZE", "2"}}).find("RANK=\"-1\""), std::string::npos);
  EXPECT_NE(error_of({{"RANK", "0"}, {"WORLD_SIZE", "two"}}).find("WORLD_SIZE=\"two\""), std::string::npos);
  EXPECT_NE(error_of({{"RANK", "0"}, {"WORLD_SIZE", "0"}}).find("WORLD_SIZE"), std::string::npos);
  EXPECT_NE(error_of({{"RANK", "1"}, {"WORLD_SIZE", "2"}}).find("MASTER_ADDR is not set"), std::string::npos);
  EXPECT_NE(error_of({{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}, {"MASTER_PORT", "70000"}})
                .find("MASTER_PORT"),
            std::string::npos);
  EXPECT_NE(error_of({{"SLURM_PROCID", "0"}}).find("SLURM_NTASKS is not set"), std::string::npos);
  // Every message is one line.
  for (const auto& m : {error_of({{"WORLD_SIZE", "2"}}), error_of({{"RANK", "1"}, {"WORLD_SIZE", "2"}})})
    EXPECT_EQ(m.find('\n'), std::string::npos) << m;
}

}  // namespace
}  // namespace clgen::model
