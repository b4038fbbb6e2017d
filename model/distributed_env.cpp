// Reading and checking the rank environment of torchrun and Slurm.
#include "model/distributed_env.h"

#include <cerrno>
#include <climits>
#include <cstdlib>

#include <fmt/format.h>

namespace clgen::model {

namespace {

// A whole decimal integer in [lo, hi], or nullopt.
std::optional<long> parse_int(const std::string& text, long lo, long hi) {
  if (text.empty()) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  long v = std::strtol(text.c_str(), &end, 10);
  if (errno != 0 || end == text.c_str() || *end != '\0' || v < lo || v > hi) return std::nullopt;
  return v;
}

Status bad(const std::string& message) {
  return invalid_argument(message);
}

// Reads integer variable `name` (required or with `fallback`) in [lo, hi].
Expected<int> int_var(const EnvLookup& lookup, const std::string& name, std::optional<int> fallback,
                      long lo, long hi, const std::string& hint) {
  std::optional<std::string> text = lookup(name);
  if (!text) {
    if (fallback) return *fallback;
    return bad(fmt::format("{} is not set ({})", name, hint));
  }
  std::optional<long> v = parse_int(*text, lo, hi);
  if (!v) return bad(fmt::format("{}=\"{}\" is not an integer in {}..{}", name, *text, lo, hi));
  return int(*v);
}

}  // namespace

Expected<DistributedEnv> distributed_env_from(const EnvLookup& lookup) {
  DistributedEnv env;
  const bool has_rank = lookup("RANK").has_value();
  const bool has_world = lookup("WORLD_SIZE").has_value();
  const long kMaxRanks = 1 << 20;
  if (has_rank || has_world) {
    env.launcher = "torchrun";
    if (!has_rank)
      return bad("WORLD_SIZE is set but RANK is not (set both, or launch with torchrun or srun)");
    if (!has_world)
      return bad("RANK is set but WORLD_SIZE is not (set both, or launch with torchrun or srun)");
    ASSIGN_OR_RETURN(env.world_size, int_var(lookup, "WORLD_SIZE", std::nullopt, 1, kMaxRanks, ""));
    ASSIGN_OR_RETURN(env.rank, int_var(lookup, "RANK", std::nullopt, 0, kMaxRanks, ""));
    ASSIGN_OR_RETURN(env.local_rank, int_var(lookup, "LOCAL_RANK", env.rank, 0, kMaxRanks, ""));
  } else if (lookup("SLURM_PROCID")) {
    env.launcher = "slurm";
    ASSIGN_OR_RETURN(env.world_size,
                     int_var(lookup, "SLURM_NTASKS", std::nullopt, 1, kMaxRanks,
                             "srun sets it with SLURM_PROCID"));
    ASSIGN_OR_RETURN(env.rank, int_var(lookup, "SLURM_PROCID", std::nullopt, 0, kMaxRanks, ""));
    ASSIGN_OR_RETURN(env.local_rank, int_var(lookup, "SLURM_LOCALID", 0, 0, kMaxRanks, ""));
  }
  if (env.rank >= env.world_size)
    return bad(fmt::format("rank {} is not below the world size {} ({})", env.rank,
                           env.world_size, env.launcher == "slurm" ? "SLURM_PROCID, SLURM_NTASKS"
                                                                   : "RANK, WORLD_SIZE"));
  if (std::optional<std::string> addr = lookup("MASTER_ADDR"); addr && !addr->empty()) {
    env.master_addr = *addr;
  } else if (env.world_size > 1) {
    return bad(fmt::format(
        "MASTER_ADDR is not set (the host of rank 0; torchrun sets it, under Slurm export it, "
        "e.g. the first host of $SLURM_JOB_NODELIST)"));
  }
  ASSIGN_OR_RETURN(env.master_port, int_var(lookup, "MASTER_PORT", 29500, 1, 65535, ""));
  if (lookup("TORCHELASTIC_USE_AGENT_STORE").value_or("") == "True") {
    env.agent_store = true;
    env.store_prefix = "clgen/attempt_" + lookup("TORCHELASTIC_RESTART_COUNT").value_or("0");
  }
  return env;
}

Expected<DistributedEnv> distributed_env() {
  return distributed_env_from([](const std::string& name) -> std::optional<std::string> {
    const char* v = std::getenv(name.c_str());
    if (!v) return std::nullopt;
    return std::string(v);
  });
}

}  // namespace clgen::model
