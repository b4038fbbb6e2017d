// A small RFC 4180 CSV reader for the datasets the models train on (writing: support/csv.h).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "support/status.h"

namespace clgen::predict {

// A parsed CSV file: the header row and the data rows, all as text.
struct CsvTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;

  // Index of the column named `name`, or -1.
  int column(std::string_view name) const;
  // Like column(), but fails naming `source` and the missing column.
  Expected<int> require_column(std::string_view name, const std::string& source) const;
};

// Parses CSV text (quoted fields, "" escapes, CRLF or LF). Every row must
// have as many fields as the header; blank lines are skipped. `source`
// names the input in error messages ("amd.csv: line 7: 12 fields, header has 13").
Expected<CsvTable> parse_csv(std::string_view text, const std::string& source);

// Reads and parses a CSV file; fails if it does not exist or has no header.
Expected<CsvTable> read_csv(const std::string& path);

// Parses a whole field as a finite double, naming `what` on failure.
Expected<double> parse_number(const std::string& field, const std::string& what);

}  // namespace clgen::predict
