// Outcome names.
#include "driver/outcome.h"

namespace clgen::driver {

const char* outcome_name(Outcome outcome) {
  switch (outcome) {
    case Outcome::kPass: return "pass";
    case Outcome::kNoOutput: return "no output";
    case Outcome::kInputInsensitive: return "input insensitive";
    case Outcome::kNondeterministic: return "nondeterministic";
    case Outcome::kTimeout: return "timeout";
    case Outcome::kCrash: return "crash";
    case Outcome::kCompileError: return "compile error";
    case Outcome::kUnsupportedArguments: return "unsupported arguments";
    case Outcome::kInvalidLaunchParameters: return "invalid launch parameters";
    case Outcome::kOutOfResources: return "out of resources";
  }
  return "?";
}

Expected<Outcome> parse_outcome(const std::string& name) {
  for (Outcome o : kAllOutcomes)
    if (name == outcome_name(o)) return o;
  return parse_error("unknown outcome '" + name + "'");
}

}  // namespace clgen::driver
