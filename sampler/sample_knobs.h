// `clgen sample`'s flags as one table (support/knobs.h), each bound to a
// field of SampleJobOptions: the command line is built from it, and the
// --config file's [sampler], [directed] and [check] keys are read through it
// unless the key's flag was given.
#pragma once

#include <set>
#include <string>
#include <vector>

#include "sampler/sample_job.h"
#include "support/knobs.h"

namespace clgen {
class Config;
}

namespace clgen::sampler {

// The --help groups. The flags of kTuningGroup are left off --help: each is
// a config key (docs/SAMPLER.md, "Configuration") or documented there.
inline constexpr const char* kInputGroup = "Input and model";
inline constexpr const char* kSamplingGroup = "Sampling";
inline constexpr const char* kCheckingGroup = "Checking";
inline constexpr const char* kDirectedGroup = "Directed sampling";
inline constexpr const char* kLimitsGroup = "Limits";
inline constexpr const char* kTuningGroup = "Tuning";

// Every flag of `clgen sample` that sets a field of `o`, in the order of
// --help, bound to o's fields (so the table must not outlive `o`).
std::vector<Knob> sample_knobs(SampleJobOptions& o);

// Config under flags: the keys of `config`'s [sampler], [directed] and
// [check] sections set o's fields unless their flags are in `flags_given`.
// A config without them (a plain model config) changes nothing; an unknown
// key in those sections, or a value the flag would refuse, fails naming it.
Status apply_sample_config(SampleJobOptions& o, const Config& config, const std::set<std::string>& flags_given);
// ... of the file o.config names, when it names one.
Status apply_sample_config_file(SampleJobOptions& o, const std::set<std::string>& flags_given);

}  // namespace clgen::sampler
