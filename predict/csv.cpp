// CSV parsing: a single pass state machine over the text.
#include "predict/csv.h"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "support/files.h"

namespace clgen::predict {

int CsvTable::column(std::string_view name) const {
  for (size_t i = 0; i < header.size(); ++i)
    if (header[i] == name) return static_cast<int>(i);
  return -1;
}

Expected<int> CsvTable::require_column(std::string_view name, const std::string& source) const {
  int c = column(name);
  if (c < 0) return invalid_argument(fmt::format("{}: no column '{}'", source, name));
  return c;
}

Expected<CsvTable> parse_csv(std::string_view text, const std::string& source) {
  CsvTable table;
  std::vector<std::string> row;
  std::string field;
  bool quoted = false;       // inside a quoted field
  bool field_started = false;
  size_t line = 1, row_line = 1;

  auto end_row = [&]() -> Status {
    bool blank = row.empty() && field.empty() && !field_started;
    if (!blank) {
      row.push_back(std::move(field));
      if (table.header.empty()) {
        table.header = std::move(row);
      } else if (row.size() != table.header.size()) {
        return parse_error(fmt::format("{}: line {}: {} fields, header has {}", source, row_line,
                                       row.size(), table.header.size()));
      } else {
        table.rows.push_back(std::move(row));
      }
    }
    row.clear();
    field.clear();
    field_started = false;
    return ok_status();
  };

  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (quoted) {
      if (c == '"') {
        if (i + 1 < text.size() && text[i + 1] == '"') {
          field += '"';
          ++i;
        } else {
          quoted = false;
        }
      } else {
        if (c == '\n') ++line;
        field += c;
      }
      continue;
    }
    switch (c) {
      case '"':
        if (!field.empty())
          return parse_error(fmt::format("{}: line {}: quote inside an unquoted field", source, line));
        quoted = true;
        field_started = true;
        break;
      case ',':
        row.push_back(std::move(field));
        field.clear();
        field_started = true;
        break;
      case '\r':
        break;
      case '\n':
        RETURN_IF_ERROR(end_row());
        ++line;
        row_line = line;
        break;
      default:
        field += c;
    }
  }
  if (quoted) return parse_error(fmt::format("{}: unterminated quoted field", source));
  RETURN_IF_ERROR(end_row());
  if (table.header.empty()) return invalid_argument(fmt::format("{}: empty CSV (no header)", source));
  return table;
}

Expected<CsvTable> read_csv(const std::string& path) {
  ASSIGN_OR_RETURN(std::string text, read_file(path, 1ull << 30));
  return parse_csv(text, path);
}

Expected<double> parse_number(const std::string& field, const std::string& what) {
  if (field.empty()) return parse_error(fmt::format("{}: empty value", what));
  errno = 0;
  char* end = nullptr;
  double v = std::strtod(field.c_str(), &end);
  if (end != field.c_str() + field.size() || errno == ERANGE || !std::isfinite(v))
    return parse_error(fmt::format("{}: '{}' is not a number", what, field));
  return v;
}

}  // namespace clgen::predict
