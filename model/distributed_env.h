// Where this process stands in a distributed run: rank, world size and the
// rendezvous address, read from the standard environment that `torchrun` sets
// (RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT) or, where RANK and
// WORLD_SIZE are absent, from Slurm's (SLURM_PROCID, SLURM_NTASKS,
// SLURM_LOCALID). No LibTorch here: the CLI and tests use it alone.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "support/status.h"

namespace clgen::model {

struct DistributedEnv {
  int rank = 0;
  int world_size = 1;
  int local_rank = 0;  // the rank on this host: picks the GPU (cuda:local_rank)
  std::string master_addr = "127.0.0.1";  // host of rank 0's store
  int master_port = 29500;                // torch's default port
  std::string launcher = "none";  // "torchrun" (RANK/WORLD_SIZE), "slurm", "none" (a world of one)
  // torchrun's agent already serves the store at master_addr:master_port
  // (TORCHELASTIC_USE_AGENT_STORE=True): every rank connects as a client and
  // keeps its keys under `store_prefix`, which names the restart attempt.
  bool agent_store = false;
  std::string store_prefix = "clgen";
};

// Looks up one environment variable; nullopt when unset.
using EnvLookup = std::function<std::optional<std::string>(const std::string& name)>;

// Reads the rank environment through `lookup`. Rules:
//  * RANK or WORLD_SIZE set: both are required, 0 <= RANK < WORLD_SIZE;
//    LOCAL_RANK defaults to RANK (one host);
//  * else SLURM_PROCID set: SLURM_NTASKS is required, SLURM_LOCALID defaults to 0;
//  * else a world of one on 127.0.0.1.
// MASTER_ADDR is required when the world has more than one rank; MASTER_PORT
// defaults to 29500. Fails with kInvalidArgument and a one-line message that
// names the variable and says what to set (callers add what they read it for).
Expected<DistributedEnv> distributed_env_from(const EnvLookup& lookup);

// distributed_env_from over the process environment (getenv).
Expected<DistributedEnv> distributed_env();

}  // namespace clgen::model
