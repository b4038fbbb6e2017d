// Sharded sampling: which part of a run this process samples (`--shard I/N`),
// and the rule that gives every shard's streams generators no other shard
// of the same run uses.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "support/status.h"

namespace clgen::sampler {

// Shard `index` of `count`; {0, 1} is an unsharded run.
struct Shard {
  int index = 0;  // 0 <= index < count
  int count = 1;  // shards of the run, at least 1

  bool sharded() const { return count > 1; }
  // "I/N", as --shard takes it.
  std::string str() const;
};

// Parses "I/N" (decimal, 0 <= I < N <= 2^20). Fails with kInvalidArgument
// and a one-line message that quotes the text and says what is allowed.
Expected<Shard> parse_shard(std::string_view text);

// The generator seed of stream `stream` of `shard` in a run with base seed
// `seed`. The rule: stream i of shard I/N is stream number g = i*N + I of
// the whole run and draws from Rng(splitmix64(seed ^ splitmix64(g))).
// Because (i, I) -> g is one-to-one for a fixed N and both splitmix64 and
// the XOR with a fixed seed are bijections on 64-bit integers, the N shards
// of one base seed never share a generator; together they draw exactly as
// the streams of one unsharded run with N times the batch size, and shard
// 0/1 is the unsharded run. Returns the seed; does not fail.
uint64_t stream_seed(uint64_t seed, const Shard& shard, uint64_t stream);

}  // namespace clgen::sampler
