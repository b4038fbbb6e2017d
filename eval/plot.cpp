// The report's PNG: one panel per metric with the empirical CDFs of the
// samples and the human kernels, drawn with OpenCV's imgproc, written with imgcodecs.
#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "eval/report.h"

namespace clgen::realism {
namespace {

const cv::Scalar kSamples(40, 40, 220);  // BGR: red
const cv::Scalar kHuman(200, 110, 20);   // blue
const cv::Scalar kInk(40, 40, 40);
const cv::Scalar kGrid(225, 225, 225);

// x on a log(1 + v) scale, so counts spanning orders of magnitude stay readable.
double scale(double v) { return std::log1p(std::max(0.0, v)); }

void put(cv::Mat& img, const std::string& text, cv::Point at, double size = 0.4, cv::Scalar color = kInk) {
  cv::putText(img, text, at, cv::FONT_HERSHEY_SIMPLEX, size, color, 1, cv::LINE_AA);
}

void cdf(cv::Mat& img, std::vector<double> v, cv::Rect box, double xmax, cv::Scalar color) {
  if (v.empty()) return;
  std::sort(v.begin(), v.end());
  std::vector<cv::Point> pts;
  auto px = [&](double x) { return box.x + int(std::lround(box.width * (xmax > 0 ? scale(x) / xmax : 0))); };
  auto py = [&](double f) { return box.y + box.height - int(std::lround(box.height * f)); };
  double prev = 0;
  pts.emplace_back(box.x, py(0));
  for (size_t i = 0; i < v.size(); ++i) {
    if (i + 1 < v.size() && v[i + 1] == v[i]) continue;  // one step per distinct value
    double f = double(i + 1) / double(v.size());
    pts.emplace_back(px(v[i]), py(prev));
    pts.emplace_back(px(v[i]), py(f));
    prev = f;
  }
  pts.emplace_back(box.x + box.width, py(1));
  cv::polylines(img, pts, false, color, 2, cv::LINE_AA);
}

}  // namespace

Status write_plot(const Report& r, const std::string& path) {
  const int cols = 5, pw = 300, ph = 230, top = 50;
  const int rows = int((r.distributions.size() + cols - 1) / cols);
  cv::Mat img(top + rows * ph, cols * pw, CV_8UC3, cv::Scalar(255, 255, 255));
  put(img,
      fmt::format("{} ({}) vs {} ({}): empirical CDFs, x on a log(1+x) scale; judge AUC {:.3f}", r.samples_label,
                  r.samples, r.humans_label, r.humans, r.judge.auc),
      {10, 20}, 0.5);
  cv::line(img, {10, 36}, {40, 36}, kSamples, 2);
  put(img, r.samples_label, {46, 40});
  cv::line(img, {200, 36}, {230, 36}, kHuman, 2);
  put(img, r.humans_label, {236, 40});
  for (size_t i = 0; i < r.distributions.size(); ++i) {
    const MetricDistribution& m = r.distributions[i];
    int x0 = int(i % cols) * pw, y0 = top + int(i / cols) * ph;
    cv::Rect box(x0 + 40, y0 + 28, pw - 60, ph - 70);
    for (int g = 0; g <= 4; ++g) {
      int y = box.y + box.height - box.height * g / 4;
      cv::line(img, {box.x, y}, {box.x + box.width, y}, kGrid, 1);
      put(img, fmt::format("{:.2g}", g / 4.0), {x0 + 6, y + 4}, 0.35);
    }
    cv::rectangle(img, box, kInk, 1);
    double vmax = 0;
    for (double v : m.samples) vmax = std::max(vmax, v);
    for (double v : m.humans) vmax = std::max(vmax, v);
    double xmax = scale(vmax);
    cdf(img, m.humans, box, xmax, kHuman);
    cdf(img, m.samples, box, xmax, kSamples);
    put(img, fmt::format("{}  KS {:.2f}", m.metric, m.ks), {box.x, y0 + 18}, 0.45);
    put(img, "0", {box.x - 3, box.y + box.height + 14}, 0.35);
    std::string right = fmt::format("{:g}", vmax);
    put(img, right, {box.x + box.width - 8 * int(right.size()), box.y + box.height + 14}, 0.35);
    put(img, fmt::format("median {:g} / {:g}", m.median_samples, m.median_humans), {box.x, box.y + box.height + 32},
        0.38);
  }
  try {
    if (!cv::imwrite(path, img)) return io_error(fmt::format("{}: OpenCV could not write the PNG", path));
  } catch (const cv::Exception& e) {
    return io_error(fmt::format("{}: {}", path, e.what()));
  }
  return ok_status();
}

}  // namespace clgen::realism
