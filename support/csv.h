// CSV per RFC 4180: the one field quoter and row joiner of the project, and a
// reader of one record held on one line.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "support/status.h"

namespace clgen {

// `s` as a CSV field: unchanged unless it holds a comma, quote or line
// break (CR or LF); then wrapped in quotes with inner quotes doubled.
std::string csv_field(std::string_view s);

// The fields, each passed through csv_field(), joined by commas; no line end.
// A row of one empty field is `""`, so that it is no blank line.
std::string csv_row(const std::vector<std::string>& fields);

// The fields of one record that fits on one line (no line break inside a
// quoted field): what csv_row() writes, read back. Fails naming the 1-based
// column where a quote is misplaced or left open.
Expected<std::vector<std::string>> csv_line_fields(std::string_view line);

}  // namespace clgen
