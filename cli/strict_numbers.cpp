// Strict parsing of every numeric option: CLI11 2.1 lets "-1" wrap around
// in an unsigned option, reads "" as 0, and lets nan and inf through every
// range check. One check, added to each numeric option of the app, refuses
// them all before CLI11 converts the value.
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <string>

#include "cli/command.h"

namespace clgen::cli {

namespace {

// An empty string when `text` is a number of CLI11 type `type` (INT, UINT,
// FLOAT) that fits 64 bits; otherwise why not.
std::string number_problem(const std::string& type, const std::string& text) {
  if (text.empty()) return "an empty value is not a number";
  if (std::isspace(static_cast<unsigned char>(text.front()))) return "Value '" + text + "' starts with a space";
  errno = 0;
  char* end = nullptr;
  if (type == "UINT") {
    if (text.front() == '-') return "Value " + text + " is negative";
    (void)std::strtoull(text.c_str(), &end, 0);
    if (*end == 0 && errno == ERANGE) return "Value " + text + " does not fit 64 bits";
  } else if (type == "INT") {
    (void)std::strtoll(text.c_str(), &end, 0);
    if (*end == 0 && errno == ERANGE) return "Value " + text + " does not fit 64 bits";
  } else {
    double value = std::strtod(text.c_str(), &end);
    if (*end == 0 && (errno == ERANGE || !std::isfinite(value))) return "Value " + text + " is not a finite number";
  }
  // Other spellings ("0x10", "1K" after a size transform) are CLI11's to judge.
  return "";
}

}  // namespace

void check_numbers_strictly(CLI::App& app) {
  for (CLI::Option* o : app.get_options()) {
    if (o->get_items_expected_max() == 0) continue;  // a flag
    const std::string full = o->get_type_name();
    const std::string type = full.substr(0, full.find(':'));
    if (type != "INT" && type != "UINT" && type != "FLOAT") continue;
    o->check(CLI::Validator([type](std::string& text) { return number_problem(type, text); }, ""));
  }
  for (CLI::App* sub : app.get_subcommands({})) check_numbers_strictly(*sub);
}

}  // namespace clgen::cli
