// The realism report: every measure of realism.h over one set of samples
// against one set of human kernels (and, when known, the training text), as
// JSON, a table and a PNG of the distributions.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "eval/realism.h"
#include "support/status.h"

namespace clgen::realism {

struct ReportInputs {
  std::vector<std::string> samples;   // normalized texts
  std::vector<std::string> humans;    // normalized texts
  std::vector<std::string> training;  // the training text (novelty, the floor); may be empty
  // The floor's other side when not the training text: human kernels of
  // other repositories of the same kind as `humans` (benchmark-grade ones
  // for a benchmark-grade reference).
  std::vector<std::string> floor_reference;
  std::string floor_label;
  std::string samples_label = "samples", humans_label = "human", training_label = "training";
};

struct ReportOptions {
  JudgeOptions judge;
  bool length_matched = true;  // also judge length-matched pairs
  bool floor = true;           // also judge training human kernels against the human set (needs training)
  double length_relative = 0.05;
  long length_slack = 2;
  int novelty_n = 8;
  double novelty_threshold = 0.8;
  unsigned threads = 0;  // for the Grewe features; 0 = one per core
  bool progress = true;
};

struct MetricDistribution {
  std::string metric;
  std::vector<double> samples, humans;  // per kernel (Grewe metrics: kernels with features only)
  double ks = 0, median_samples = 0, median_humans = 0;
};

struct Report {
  size_t samples = 0, humans = 0, training = 0;
  std::string samples_label, humans_label, training_label;
  JudgeResult judge;
  std::optional<JudgeResult> length_matched;  // absent when off, or too few pairs
  size_t length_pairs = 0;
  std::optional<JudgeResult> floor;  // training human kernels (or ReportInputs::floor_reference) vs the human set
  std::string floor_label;
  std::vector<MetricDistribution> distributions;
  size_t samples_without_features = 0, humans_without_features = 0;
  Coverage coverage;
  std::optional<Novelty> novelty;  // absent without training text
  double seconds = 0;
  std::vector<std::string> notes;  // what was left out and why
};

// Fails when either side is empty or the judge fails.
Expected<Report> realism_report(const ReportInputs& inputs, const ReportOptions& options);

std::string report_json(const Report& report);   // pretty-printed
std::string report_table(const Report& report);  // for a terminal
// One PNG: per metric, the two empirical CDFs (samples, human). Fails naming the path.
Status write_plot(const Report& report, const std::string& path);

}  // namespace clgen::realism
