// CLI11 options from a knob table.
#include "cli/knob_flags.h"

#include <type_traits>

#include "cli/command.h"

namespace clgen::cli {

namespace {

// The knob's range as a CLI11 check of a field of type T.
template <typename T>
CLI::Validator range_check(const KnobRange& r) {
  if constexpr (std::is_floating_point_v<T>) return finite_range(r.lo, r.hi);
  else return CLI::Range(T(r.lo), T(r.hi));
}

template <typename T>
void add_check(CLI::Option& option, const Knob& k) {
  switch (k.check) {
    case FlagCheck::kNone: break;
    case FlagCheck::kRange:
      if constexpr (std::is_arithmetic_v<T> && !std::is_same_v<T, bool>) option.check(range_check<T>(*k.range));
      break;
    case FlagCheck::kNonNegative: option.check(CLI::NonNegativeNumber); break;
    case FlagCheck::kPositive: option.check(CLI::PositiveNumber); break;
    case FlagCheck::kChoices: option.check(CLI::IsMember(k.choices)); break;
    case FlagCheck::kNonEmpty: option.check(non_empty()); break;
    case FlagCheck::kExistingFile: option.check(CLI::ExistingFile); break;
  }
}

CLI::Option* add_knob_flag(CLI::App& cmd, const Knob& k) {
  return std::visit(
      [&](auto* field) {
        using T = std::remove_pointer_t<decltype(field)>;
        CLI::Option* option = nullptr;
        if constexpr (std::is_same_v<T, bool>) option = cmd.add_flag(k.flags, *field, k.help);
        else option = cmd.add_option(k.flags, *field, k.help);
        add_check<T>(*option, k);
        return option;
      },
      k.field);
}

}  // namespace

void add_knob_flags(CLI::App& cmd, const std::vector<Knob>& knobs) {
  for (const Knob& k : knobs) {
    CLI::Option* option = add_knob_flag(cmd, k);
    if (k.show_default) option->capture_default_str();
    option->group(k.group);
  }
}

std::set<std::string> given_knob_flags(const CLI::App& cmd, const std::vector<Knob>& knobs) {
  std::set<std::string> given;
  for (const Knob& k : knobs)
    if (cmd.get_option(k.flag())->count() > 0) given.insert(k.flag());
  return given;
}

}  // namespace clgen::cli
