// Reading target feature vectors and measuring how far a kernel is from one.
#include "sampler/targets.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "support/csv.h"
#include "support/files.h"
#include "support/text.h"

namespace clgen::sampler {

Expected<std::vector<Target>> parse_targets_csv(std::string_view text, const std::string& source) {
  std::vector<std::string> header;
  std::array<size_t, 6> column{};
  int file_col = -1, kernel_col = -1;
  std::vector<Target> targets;
  size_t line_no = 0;
  for (size_t pos = 0; pos < text.size();) {
    size_t end = std::min(text.find('\n', pos), text.size());
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    Expected<std::vector<std::string>> fields = csv_line_fields(line);
    if (!fields.ok()) return parse_error(fmt::format("{}: line {}, {}", source, line_no, fields.status().message()));
    if (header.empty()) {
      header = std::move(*fields);
      for (size_t c = 0; c < kGreweColumns.size(); ++c) {
        auto it = std::find(header.begin(), header.end(), kGreweColumns[c]);
        if (it == header.end())
          return invalid_argument(fmt::format("{}: line {}: no column '{}' (the Grewe columns are {})", source, line_no,
                                              kGreweColumns[c], fmt::join(kGreweColumns, ", ")));
        column[c] = size_t(it - header.begin());
      }
      for (size_t c = 0; c < header.size(); ++c) {
        if (header[c] == "file") file_col = int(c);
        if (header[c] == "kernel") kernel_col = int(c);
      }
      continue;
    }
    if (fields->size() != header.size())
      return parse_error(
          fmt::format("{}: line {}: {} fields, the header has {}", source, line_no, fields->size(), header.size()));
    Target t;
    for (size_t c = 0; c < kGreweColumns.size(); ++c) {
      const std::string& v = (*fields)[column[c]];
      // Spaces around a value are allowed (hand-written targets).
      size_t a = v.find_first_not_of(' '), b = v.find_last_not_of(' ');
      std::optional<uint64_t> n =
          a == std::string::npos ? std::nullopt : parse_uint64(std::string_view(v).substr(a, b - a + 1));
      if (!n || *n > uint64_t(1) << 40)
        return parse_error(fmt::format("{}: line {}, column {} ({}): '{}' is not a non-negative integer count", source,
                                       line_no, column[c] + 1, kGreweColumns[c], v));
      t.features[c] = long(*n);
    }
    t.label = file_col >= 0 && kernel_col >= 0 ? (*fields)[size_t(file_col)] + ":" + (*fields)[size_t(kernel_col)]
                                               : fmt::format("{}:{}", source, line_no);
    targets.push_back(std::move(t));
  }
  if (header.empty()) return invalid_argument(fmt::format("{}: empty (no header)", source));
  if (targets.empty()) return invalid_argument(fmt::format("{}: no target rows after the header", source));
  return targets;
}

Expected<std::vector<Target>> read_targets_csv(const std::string& path) {
  ASSIGN_OR_RETURN(std::string text, read_file(path, 1ull << 30));
  return parse_targets_csv(text, path);
}

double feature_distance(const GreweVector& a, const GreweVector& b) {
  double sum = 0;
  for (size_t i = 0; i < a.size(); ++i) sum += std::fabs(std::log1p(double(a[i])) - std::log1p(double(b[i])));
  return sum / double(a.size());
}

std::string grewe_values(const GreweVector& f) { return fmt::format("{}", fmt::join(f, ",")); }

}  // namespace clgen::sampler
