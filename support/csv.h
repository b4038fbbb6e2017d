// Writing CSV per RFC 4180: the one field quoter and row joiner of the project.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace clgen {

// `s` as a CSV field: unchanged unless it holds a comma, quote or line
// break (CR or LF); then wrapped in quotes with inner quotes doubled.
std::string csv_field(std::string_view s);

// The fields, each passed through csv_field(), joined by commas; no line end.
// A row of one empty field is `""`, so that it is no blank line.
std::string csv_row(const std::vector<std::string>& fields);

}  // namespace clgen
