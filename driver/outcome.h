// The outcomes of driving one kernel: the dynamic checker's verdicts and the
// ways a kernel can fail to run at all.
#pragma once

#include <string>

#include "support/status.h"

namespace clgen::driver {

enum class Outcome {
  kPass,                     // produced outputs that depend on its inputs, deterministically
  kNoOutput,                 // outputs equal inputs (or no argument is ever written)
  kInputInsensitive,         // outputs of payload A equal those of payload B
  kNondeterministic,         // the same payload gave different outputs
  kTimeout,                  // the worker exceeded its wall-clock limit and was killed
  kCrash,                    // the worker died, or the device reported an execution error
  kCompileError,             // the source does not compile (front end or device)
  kUnsupportedArguments,     // struct pointers, images, samplers, pipes, half, ...
  kInvalidLaunchParameters,  // local size above device/kernel limits, not dividing the global size
  kOutOfResources,           // buffers or local memory do not fit the device
};

// All outcomes in table order.
inline constexpr Outcome kAllOutcomes[] = {
    Outcome::kPass,         Outcome::kNoOutput,
    Outcome::kInputInsensitive, Outcome::kNondeterministic,
    Outcome::kTimeout,      Outcome::kCrash,
    Outcome::kCompileError, Outcome::kUnsupportedArguments,
    Outcome::kInvalidLaunchParameters, Outcome::kOutOfResources};

// "pass", "no output", "input insensitive", "nondeterministic", "timeout",
// "crash", "compile error", "unsupported arguments",
// "invalid launch parameters", "out of resources".
const char* outcome_name(Outcome outcome);
// The inverse of outcome_name; kParse error for an unknown name.
Expected<Outcome> parse_outcome(const std::string& name);

}  // namespace clgen::driver
