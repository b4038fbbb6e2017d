// Summary statistics of repeated timings: mean, median and the half-width of
// a 95% confidence interval of the mean (Student's t).
#pragma once

#include <cstdint>
#include <vector>

namespace clgen::driver {

struct Summary {
  double mean = 0;
  double median = 0;
  double ci95 = 0;  // mean ± ci95; 0 for fewer than two samples
};

Summary summarize(const std::vector<uint64_t>& samples);

}  // namespace clgen::driver
