// A command's tuning knobs, each declared once: the flag that sets it, the
// config key that sets it when the flag was not given, its range or choices,
// its help, its --help group and the field it sets. The command line builds
// its flags from such a table (cli/knob_flags.h); apply_config reads a config
// file's keys under them ("config under flags").
#pragma once

#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "support/status.h"

namespace clgen {

class Config;

// The field a knob sets. (long / long long and their unsigned kinds cover
// int64_t, uint64_t and size_t on every platform, without naming a type twice.)
using KnobField =
    std::variant<bool*, int*, unsigned*, long*, unsigned long*, long long*, unsigned long long*, double*, std::string*>;

// What the flag's value is checked against, beyond its type.
enum class FlagCheck {
  kNone,
  kRange,        // the knob's range (floating point: finite)
  kNonNegative,  // >= 0
  kPositive,     // > 0
  kChoices,      // one of the knob's choices
  kNonEmpty,     // not ""
  kExistingFile,
};

struct KnobRange {
  double lo, hi;
};

struct Knob {
  // flags: CLI11's names, e.g. "--top-p", "-n", "!--no-constrain" (a flag
  // that sets false) or "--near-cuts,!--no-near-cuts".
  template <typename T>
  Knob(std::string flags, T& field, std::string help, std::string group)
      : flags(std::move(flags)), field(&field), help(std::move(help)), group(std::move(group)) {}

  // The config key that sets the field unless the flag was given.
  Knob& config(std::string k) {
    key = std::move(k);
    return *this;
  }
  // Values outside [lo, hi] are refused, from the config and the flag alike.
  Knob& in_range(double lo, double hi) {
    range = KnobRange{lo, hi};
    check = FlagCheck::kRange;
    return *this;
  }
  // Config values outside [lo, hi] are refused; the flag keeps its own check.
  Knob& config_range(double lo, double hi) {
    range = KnobRange{lo, hi};
    return *this;
  }
  // A string knob's values, from the config and the flag alike.
  Knob& one_of(std::vector<std::string> values) {
    choices = std::move(values);
    check = FlagCheck::kChoices;
    return *this;
  }
  Knob& checked(FlagCheck c) {
    check = c;
    return *this;
  }
  Knob& default_shown() {
    show_default = true;
    return *this;
  }
  // A bool knob whose config key is the field's negation.
  Knob& key_negated() {
    key_negates = true;
    return *this;
  }

  // The first of the flag's names, without "!": "--no-constrain", "--near-cuts".
  std::string flag() const;

  std::string flags;
  KnobField field;
  std::string help;
  std::string group;  // its --help group
  std::string key;    // dotted, e.g. "sampler.top_p"; "" = a flag only
  FlagCheck check = FlagCheck::kNone;
  std::optional<KnobRange> range;
  std::vector<std::string> choices;
  bool show_default = false;  // --help shows the default
  bool key_negates = false;
};

// The config keys of `knobs` (those that have one).
std::vector<std::string> knob_keys(const std::vector<Knob>& knobs);

// Config under flags: each knob's key present in `config` sets its field,
// in table order, unless the knob's flag() is in `flags_given`. A value
// outside the knob's range or choices, or of the wrong type, fails naming
// the config and the key.
Status apply_config(const Config& config, const std::vector<Knob>& knobs, const std::set<std::string>& flags_given);

}  // namespace clgen
