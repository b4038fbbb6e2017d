// Reading a knob table's config keys under its flags.
#include "support/knobs.h"

#include <algorithm>
#include <cstdint>
#include <type_traits>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "support/config.h"

namespace clgen {

namespace {

// A range check of a config value: "<origin>: <key>: <v> is not in [lo, hi]".
template <typename T>
Status in_range(const std::string& where, T v, T lo, T hi) {
  if (!(v >= lo && v <= hi)) return invalid_argument(fmt::format("{}: {} is not in [{}, {}]", where, v, lo, hi));
  return ok_status();
}

Status read_value(const Config& c, const Knob& k, bool& field) {
  ASSIGN_OR_RETURN(bool v, c.get_bool(k.key));
  field = k.key_negates ? !v : v;
  return ok_status();
}

Status read_value(const Config& c, const Knob& k, std::string& field) {
  ASSIGN_OR_RETURN(std::string v, c.get_string(k.key));
  if (!k.choices.empty() && std::find(k.choices.begin(), k.choices.end(), v) == k.choices.end())
    return invalid_argument(
        fmt::format("{}: {}: \"{}\" is not one of {}", c.origin(), k.key, v, fmt::join(k.choices, ", ")));
  field = v;
  return ok_status();
}

Status read_value(const Config& c, const Knob& k, double& field) {
  ASSIGN_OR_RETURN(double v, c.get_double(k.key));
  if (k.range) RETURN_IF_ERROR(in_range(c.origin() + ": " + k.key, v, k.range->lo, k.range->hi));
  field = v;
  return ok_status();
}

// Integer fields: the config's integer, checked in 64 bits before it narrows.
template <typename T>
Status read_value(const Config& c, const Knob& k, T& field) {
  static_assert(std::is_integral_v<T>);
  ASSIGN_OR_RETURN(int64_t v, c.get_int(k.key));
  if (k.range) RETURN_IF_ERROR(in_range(c.origin() + ": " + k.key, v, int64_t(k.range->lo), int64_t(k.range->hi)));
  field = T(v);
  return ok_status();
}

}  // namespace

std::string Knob::flag() const {
  const std::string first = flags.substr(0, flags.find(','));
  return !first.empty() && first[0] == '!' ? first.substr(1) : first;
}

std::vector<std::string> knob_keys(const std::vector<Knob>& knobs) {
  std::vector<std::string> keys;
  for (const Knob& k : knobs)
    if (!k.key.empty()) keys.push_back(k.key);
  return keys;
}

Status apply_config(const Config& config, const std::vector<Knob>& knobs, const std::set<std::string>& flags_given) {
  for (const Knob& k : knobs) {
    if (k.key.empty() || flags_given.count(k.flag()) || !config.has(k.key)) continue;
    RETURN_IF_ERROR(std::visit([&](auto* field) { return read_value(config, k, *field); }, k.field));
  }
  return ok_status();
}

}  // namespace clgen
