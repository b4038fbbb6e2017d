// Fuzzes the `--args` parser: no input crashes it, and a parsed list written
// back as a specification parses to the same list.
#include <cstdint>
#include <string>
#include <string_view>

#include "sampler/arg_spec.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

using clgen::sampler::AddressSpace;
using clgen::sampler::KernelArg;

// `arg` in the specification syntax the parser reads.
std::string spec_item(const KernelArg& arg) {
  std::string s;
  switch (arg.address_space) {
    case AddressSpace::kGlobal: s += "global "; break;
    case AddressSpace::kLocal: s += "local "; break;
    case AddressSpace::kConstant: s += "constant "; break;
    case AddressSpace::kPrivate: s += "private "; break;
    case AddressSpace::kNone: break;
  }
  if (arg.is_const) s += "const ";
  if (arg.is_volatile) s += "volatile ";
  s += arg.type;
  if (arg.pointer) s += arg.is_restrict ? "* restrict" : "*";
  return s;
}

bool same(const KernelArg& a, const KernelArg& b) {
  return a.address_space == b.address_space && a.is_const == b.is_const && a.is_volatile == b.is_volatile &&
         a.is_restrict == b.is_restrict && a.type == b.type && a.pointer == b.pointer;
}

using clgen::fuzz::fail;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view spec(reinterpret_cast<const char*>(data), size);
  auto seed = clgen::sampler::seed_text(spec);
  auto args = clgen::sampler::parse_arg_spec(spec);
  if (!args.ok()) {
    if (args.status().message().empty()) fail("an error without a message", std::string(spec));
    return 0;
  }
  if (!seed.ok()) fail("parsed, but seed_text failed", seed.status().message());
  if (*seed != clgen::sampler::kernel_prototype(*args)) fail("seed_text differs from the prototype", *seed);
  std::string again;
  for (size_t i = 0; i < args->size(); ++i) again += (i ? "," : "") + spec_item((*args)[i]);
  auto reparsed = clgen::sampler::parse_arg_spec(again);
  if (!reparsed.ok()) fail("written back, it no longer parses", again + ": " + reparsed.status().message());
  if (reparsed->size() != args->size()) fail("written back, the count changed", again);
  for (size_t i = 0; i < args->size(); ++i)
    if (!same((*args)[i], (*reparsed)[i])) fail("written back, an argument changed", again);
  return 0;
}
