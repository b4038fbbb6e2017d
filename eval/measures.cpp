// Shape counts, distances between distributions, length matching and coverage.
#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "eval/hashing.h"
#include "eval/realism.h"

namespace clgen::realism {

ShapeCounts shape_counts(const Tokens& tokens) {
  ShapeCounts c;
  c.tokens = long(tokens.size());
  int parens = 0;
  // Braces opened right after `do`: the `while` after their `}` closes a do
  // loop, not a loop of its own. A body without braces (`do x; while (c);`)
  // is taken for a while loop; the rewriter's output keeps the braces.
  std::vector<bool> brace_is_do;
  bool closed_do = false;
  for (size_t i = 0; i < tokens.size(); ++i) {
    const std::string& t = tokens[i];
    bool after_do_close = closed_do;
    closed_do = false;
    if (t == "(") {
      ++parens;
    } else if (t == ")") {
      parens = std::max(0, parens - 1);
    } else if (t == ";") {
      if (parens == 0) ++c.statements;
    } else if (t == "{") {
      brace_is_do.push_back(i > 0 && tokens[i - 1] == "do");
    } else if (t == "}") {
      if (!brace_is_do.empty()) {
        closed_do = brace_is_do.back();
        brace_is_do.pop_back();
      }
    } else if (t == "for" || t == "do") {
      ++c.loops;
      ++c.statements;
    } else if (t == "while") {
      if (!after_do_close) {
        ++c.loops;
        ++c.statements;
      }
    } else if (t == "if") {
      ++c.branches;
      ++c.statements;
    } else if (t == "switch") {
      ++c.statements;
    } else if (t == "case" || t == "?") {
      ++c.branches;
    }
  }
  return c;
}

double auc(const std::vector<double>& positive, const std::vector<double>& negative) {
  if (positive.empty() || negative.empty()) return 0.5;
  // Ranks of all scores together, ties sharing their mean rank.
  std::vector<std::pair<double, bool>> all;
  all.reserve(positive.size() + negative.size());
  for (double s : positive) all.emplace_back(s, true);
  for (double s : negative) all.emplace_back(s, false);
  std::sort(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  double positive_ranks = 0;
  for (size_t i = 0; i < all.size();) {
    size_t j = i;
    while (j < all.size() && all[j].first == all[i].first) ++j;
    double mean_rank = (double(i + 1) + double(j)) / 2;  // ranks i+1..j
    for (size_t k = i; k < j; ++k)
      if (all[k].second) positive_ranks += mean_rank;
    i = j;
  }
  double np = double(positive.size()), nn = double(negative.size());
  double u = positive_ranks - np * (np + 1) / 2;
  return u / (np * nn);
}

std::vector<LengthPair> match_lengths(const std::vector<long>& sample_lengths, const std::vector<long>& human_lengths,
                                      uint64_t seed, double relative, long slack) {
  std::multimap<long, size_t> free;  // length -> human index
  for (size_t i = 0; i < human_lengths.size(); ++i) free.emplace(human_lengths[i], i);
  std::vector<LengthPair> pairs;
  for (size_t s : detail::permutation(sample_lengths.size(), seed)) {
    if (free.empty()) break;
    long len = sample_lengths[s];
    long allowed = std::max(slack, long(std::floor(relative * double(len))));
    auto hi = free.lower_bound(len);
    auto best = free.end();
    if (hi != free.end()) best = hi;
    if (hi != free.begin()) {
      auto lo = std::prev(hi);
      if (best == free.end() || len - lo->first < best->first - len) best = lo;
    }
    if (best == free.end() || std::labs(best->first - len) > allowed) continue;
    pairs.push_back({s, best->second});
    free.erase(best);
  }
  return pairs;
}

double ks_statistic(std::vector<double> a, std::vector<double> b) {
  if (a.empty() || b.empty()) return 0;
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  size_t i = 0, j = 0;
  double d = 0;
  while (i < a.size() && j < b.size()) {
    double x = std::min(a[i], b[j]);
    while (i < a.size() && a[i] <= x) ++i;  // both CDFs step past every copy of x
    while (j < b.size() && b[j] <= x) ++j;
    d = std::max(d, std::fabs(double(i) / double(a.size()) - double(j) / double(b.size())));
  }
  return d;
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

Coverage coverage(const std::vector<std::optional<features::GreweVector>>& samples,
                  const std::vector<std::optional<features::GreweVector>>& humans) {
  std::set<features::GreweVector> sampled;
  for (const auto& s : samples)
    if (s) sampled.insert(*s);
  Coverage c;
  std::set<features::GreweVector> vectors, matched_vectors;
  for (const auto& h : humans) {
    if (!h) continue;
    ++c.humans;
    vectors.insert(*h);
    if (sampled.count(*h)) {
      ++c.matched;
      matched_vectors.insert(*h);
    }
  }
  c.human_vectors = vectors.size();
  c.matched_vectors = matched_vectors.size();
  c.share = c.humans ? double(c.matched) / double(c.humans) : 0;
  return c;
}

}  // namespace clgen::realism
