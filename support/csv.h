// Writing CSV: one field quoted per RFC 4180 when it needs quoting.
#pragma once

#include <string>

namespace clgen {

// `s` as a CSV field: unchanged unless it holds a comma, quote or line
// break; then wrapped in quotes with inner quotes doubled.
std::string csv_field(const std::string& s);

}  // namespace clgen
