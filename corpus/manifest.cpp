// MANIFEST.tsv parsing: columns found by header name, errors by file:line.
#include "corpus/manifest.h"

#include <vector>

#include "support/files.h"

namespace clgen::corpus {

namespace {

std::vector<std::string> split_tabs(const std::string& line) {
  std::vector<std::string> out;
  size_t i = 0;
  for (;;) {
    size_t j = line.find('\t', i);
    out.push_back(line.substr(i, j == std::string::npos ? std::string::npos : j - i));
    if (j == std::string::npos) return out;
    i = j + 1;
  }
}

bool parse_count(const std::string& s, int64_t* out) {
  if (s.empty() || s.size() > 18) return false;
  int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
    v = v * 10 + (c - '0');
  }
  *out = v;
  return true;
}

}  // namespace

Expected<std::map<std::string, ManifestRow>> parse_manifest(const std::string& text, const std::string& name) {
  static const char* const kColumns[] = {"repository", "commit", "license", "files_kept", "bytes_kept", "domain"};
  std::map<std::string, ManifestRow> rows;
  std::map<std::string, size_t> column;  // name -> index
  size_t line_no = 0, pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    std::string line = text.substr(pos, end == std::string::npos ? std::string::npos : end - pos);
    pos = end == std::string::npos ? text.size() : end + 1;
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::string where = name + ":" + std::to_string(line_no);
    if (line_no == 1) {
      std::vector<std::string> header = split_tabs(line);
      for (size_t i = 0; i < header.size(); ++i) column[header[i]] = i;
      for (const char* c : kColumns)
        if (!column.count(c)) return parse_error(where + ": header has no column '" + c + "'");
      continue;
    }
    if (line.empty()) continue;
    std::vector<std::string> f = split_tabs(line);
    for (const char* c : kColumns)
      if (column[c] >= f.size())
        return parse_error(where + ": column '" + c + "' missing (" + std::to_string(f.size()) + " fields)");
    ManifestRow row;
    row.repository = f[column["repository"]];
    row.commit = f[column["commit"]];
    row.license = f[column["license"]];
    row.domain = f[column["domain"]];
    size_t slash = row.repository.find('/');
    if (slash == std::string::npos || slash == 0 || slash + 1 == row.repository.size() ||
        row.repository.find('/', slash + 1) != std::string::npos)
      return parse_error(where + ": column 'repository': '" + row.repository + "' is not OWNER/NAME");
    for (const char* c : {"files_kept", "bytes_kept"}) {
      int64_t* target = std::string(c) == "files_kept" ? &row.files_kept : &row.bytes_kept;
      if (!parse_count(f[column[c]], target))
        return parse_error(where + ": column '" + c + "': '" + f[column[c]] + "' is not a count");
    }
    if (rows.count(row.repository))
      return parse_error(where + ": column 'repository': " + row.repository + " is listed twice");
    rows[row.repository] = std::move(row);
  }
  if (line_no == 0) return parse_error(name + ": empty manifest (no header line)");
  return rows;
}

Expected<std::map<std::string, ManifestRow>> read_manifest(const std::string& path) {
  ASSIGN_OR_RETURN(std::string text, read_file(path, 64ull << 20));
  return parse_manifest(text, path);
}

}  // namespace clgen::corpus
