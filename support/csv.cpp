// CSV field quoting, row joining and one-line record reading (RFC 4180).
#include "support/csv.h"

#include <fmt/format.h>

namespace clgen {

std::string csv_field(std::string_view s) {
  if (s.find_first_of(",\"\n\r") == std::string_view::npos) return std::string(s);
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string csv_row(const std::vector<std::string>& fields) {
  // A lone empty field is quoted: as an empty line, readers skip the row.
  if (fields.size() == 1 && fields[0].empty()) return "\"\"";
  std::string out;
  for (size_t i = 0; i < fields.size(); ++i) {
    if (i > 0) out += ',';
    out += csv_field(fields[i]);
  }
  return out;
}

Expected<std::vector<std::string>> csv_line_fields(std::string_view line) {
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  std::vector<std::string> fields(1);
  size_t i = 0;
  while (i <= line.size()) {
    std::string& f = fields.back();
    if (i < line.size() && line[i] == '"') {
      // A quoted field runs to the quote that is not doubled.
      size_t open = i++;
      while (true) {
        if (i >= line.size())
          return parse_error(fmt::format("column {}: the quoted field is not closed", fields.size()));
        if (line[i] == '"' && i + 1 < line.size() && line[i + 1] == '"') {
          f += '"';
          i += 2;
        } else if (line[i] == '"') {
          ++i;
          break;
        } else {
          f += line[i++];
        }
      }
      if (i < line.size() && line[i] != ',')
        return parse_error(fmt::format("column {}: text after the closing quote of the field opened at character {}",
                                       fields.size(), open + 1));
    } else {
      size_t end = std::min(line.find(',', i), line.size());
      f.assign(line.substr(i, end - i));
      if (f.find('"') != std::string::npos)
        return parse_error(fmt::format("column {}: a quote inside an unquoted field", fields.size()));
      i = end;
    }
    if (i >= line.size()) break;
    ++i;  // the comma
    fields.emplace_back();
  }
  return fields;
}

}  // namespace clgen
