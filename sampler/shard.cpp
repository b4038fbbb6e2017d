// Parsing --shard I/N and deriving each shard's stream seeds.
#include "sampler/shard.h"

#include <charconv>

#include <fmt/format.h>

#include "sampler/policy.h"

namespace clgen::sampler {

namespace {
constexpr int kMaxShards = 1 << 20;

// A whole decimal number without sign or spaces, or -1.
long parse_count(std::string_view text) {
  long v = -1;
  if (text.empty()) return -1;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || v < 0) return -1;
  return v;
}
}  // namespace

std::string Shard::str() const { return fmt::format("{}/{}", index, count); }

Expected<Shard> parse_shard(std::string_view text) {
  auto bad = [&](const char* why) {
    return invalid_argument(fmt::format("shard \"{}\" {} (expected I/N with 0 <= I < N, e.g. 0/4)",
                                        text, why));
  };
  size_t slash = text.find('/');
  if (slash == std::string_view::npos) return bad("has no '/'");
  long index = parse_count(text.substr(0, slash));
  long count = parse_count(text.substr(slash + 1));
  if (index < 0 || count < 0) return bad("is not two whole numbers");
  if (count == 0) return bad("has no shards (N is 0)");
  if (count > kMaxShards) return bad(fmt::format("has more than {} shards", kMaxShards).c_str());
  if (index >= count) return bad("has I not below N");
  return Shard{int(index), int(count)};
}

uint64_t stream_seed(uint64_t seed, const Shard& shard, uint64_t stream) {
  uint64_t global = stream * uint64_t(shard.count) + uint64_t(shard.index);
  return splitmix64(seed ^ splitmix64(global));
}

}  // namespace clgen::sampler
