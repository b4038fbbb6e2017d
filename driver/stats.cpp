// Mean, median and t-based 95% confidence interval.
#include "driver/stats.h"

#include <algorithm>
#include <cmath>

namespace clgen::driver {

namespace {
// Two-sided 97.5% quantiles of Student's t for 1..30 degrees of freedom.
constexpr double kT975[] = {12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
                            2.201,  2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
                            2.080,  2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042};
}  // namespace

Summary summarize(const std::vector<uint64_t>& samples) {
  Summary s;
  const size_t n = samples.size();
  if (n == 0) return s;
  double sum = 0;
  for (uint64_t x : samples) sum += static_cast<double>(x);
  s.mean = sum / static_cast<double>(n);
  std::vector<uint64_t> sorted = samples;
  std::sort(sorted.begin(), sorted.end());
  s.median = n % 2 ? static_cast<double>(sorted[n / 2])
                   : (static_cast<double>(sorted[n / 2 - 1]) + static_cast<double>(sorted[n / 2])) / 2;
  if (n < 2) return s;
  double var = 0;
  for (uint64_t x : samples) var += (static_cast<double>(x) - s.mean) * (static_cast<double>(x) - s.mean);
  var /= static_cast<double>(n - 1);
  double t = n - 1 <= 30 ? kT975[n - 2] : 1.960;
  s.ci95 = t * std::sqrt(var / static_cast<double>(n));
  return s;
}

}  // namespace clgen::driver
