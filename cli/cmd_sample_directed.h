// `clgen sample`'s directed modes: how the search's outcome is printed
// (summary, --json); the targets and the --target-report are
// sampler/directed_targets.h's.
#pragma once

#include <nlohmann/json.hpp>

#include "sampler/pipeline.h"

namespace clgen::cli {

// The directed summary as JSON ("directed", "baseline" when run, "starts").
nlohmann::json directed_json(const sampler::SampleSummary& sum);
// ... as lines of the text summary.
void print_directed(const sampler::SampleSummary& sum);
}  // namespace clgen::cli
