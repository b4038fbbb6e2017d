// The feature header of conditioned training: its text, and the header
// distribution a model records for its undirected streams.
#include "model/feature_prefix.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "support/text.h"

namespace clgen::model {

namespace {
constexpr std::array<const char*, 6> kNames = {"comp", "rational", "mem", "localmem", "coalesced", "atomic"};
constexpr std::string_view kStart = "// comp ";
}  // namespace

std::string feature_count_label(long count) {
  if (count <= 16) return std::to_string(std::max(0L, count));
  long bound = 16;
  while (bound <= count / 2) bound *= 2;
  return std::to_string(bound) + "+";
}

std::string feature_header(const FeatureVector& features) {
  std::string out = "//";
  for (size_t i = 0; i < features.size(); ++i)
    out += fmt::format(" {} {}", kNames[i], feature_count_label(features[i]));
  return out + "\n";
}

std::string_view leading_feature_header(std::string_view text) {
  if (text.compare(0, kStart.size(), kStart) != 0) return {};
  const size_t newline = text.find('\n');
  return newline == std::string_view::npos ? std::string_view() : text.substr(0, newline + 1);
}

HeaderCounts count_feature_headers(const std::vector<std::string>& texts) {
  std::map<std::string_view, std::pair<uint64_t, size_t>> seen;  // header -> (count, first text)
  for (size_t i = 0; i < texts.size(); ++i) {
    std::string_view h = leading_feature_header(texts[i]);
    if (h.empty()) continue;
    auto [it, fresh] = seen.emplace(h, std::make_pair(uint64_t(0), i));
    ++it->second.first;
  }
  std::vector<std::tuple<uint64_t, size_t, std::string_view>> order;
  for (const auto& [h, cf] : seen) order.emplace_back(cf.first, cf.second, h);
  std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    return std::get<0>(a) != std::get<0>(b) ? std::get<0>(a) > std::get<0>(b) : std::get<1>(a) < std::get<1>(b);
  });
  HeaderCounts out;
  for (const auto& [n, first, h] : order) out.emplace_back(std::string(h), n);
  return out;
}

std::string header_counts_tsv(const HeaderCounts& counts) {
  std::string out;
  for (const auto& [header, n] : counts)
    out += fmt::format("{}\t{}\n", n, std::string_view(header).substr(0, header.size() - 1));
  return out;
}

Expected<HeaderCounts> parse_header_counts_tsv(std::string_view text, const std::string& origin) {
  HeaderCounts out;
  size_t line = 0;
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view row = text.substr(at, end - at);
    at = end + 1;
    ++line;
    if (row.empty()) continue;
    const size_t tab = row.find('\t');
    std::optional<uint64_t> n = tab == std::string_view::npos ? std::nullopt : parse_uint64(row.substr(0, tab));
    std::string header = tab == std::string_view::npos ? "" : std::string(row.substr(tab + 1)) + "\n";
    if (!n || *n == 0 || leading_feature_header(header).size() != header.size())
      return parse_error(fmt::format(
          "{}: line {}: expected COUNT<tab>// comp ... (a positive count and a feature header)", origin, line));
    out.emplace_back(std::move(header), *n);
  }
  if (out.empty()) return parse_error(origin + ": no feature header");
  return out;
}

}  // namespace clgen::model
