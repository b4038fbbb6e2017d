// Progress line implementation.
#include "support/progress.h"

#include <unistd.h>

#include <cinttypes>

#include <fmt/format.h>

namespace clgen {

Progress::Progress(std::string label, uint64_t total, std::FILE* out, int interactive)
    : label_(std::move(label)),
      total_(total),
      out_(out ? out : stderr),
      tty_(interactive >= 0 ? interactive != 0 : isatty(fileno(out ? out : stderr)) != 0),
      start_(Clock::now()),
      last_draw_(start_ - std::chrono::hours(1)) {}

Progress::~Progress() { finish(); }

void Progress::advance(uint64_t n) {
  std::lock_guard<std::mutex> lock(mu_);
  done_ += n;
  if (tty_ && Clock::now() - last_draw_ >= min_interval) draw_locked(false);
}

void Progress::set_extra(std::string extra) {
  std::lock_guard<std::mutex> lock(mu_);
  extra_ = std::move(extra);
}

void Progress::finish() {
  std::lock_guard<std::mutex> lock(mu_);
  if (finished_) return;
  finished_ = true;
  draw_locked(true);
}

uint64_t Progress::done() const {
  std::lock_guard<std::mutex> lock(mu_);
  return done_;
}

double Progress::rate() const {
  std::lock_guard<std::mutex> lock(mu_);
  double secs = std::chrono::duration<double>(Clock::now() - start_).count();
  return secs > 0 ? done_ / secs : 0.0;
}

std::string Progress::line() const {
  std::lock_guard<std::mutex> lock(mu_);
  return line_locked(Clock::now());
}

std::string Progress::format_duration(double s) {
  if (s < 0) s = 0;
  auto secs = static_cast<int64_t>(s + 0.5);
  if (secs < 60) return fmt::format("{}s", secs);
  if (secs < 3600) return fmt::format("{}m{:02}s", secs / 60, secs % 60);
  return fmt::format("{}h{:02}m", secs / 3600, (secs % 3600) / 60);
}

std::string Progress::line_locked(Clock::time_point now) const {
  double secs = std::chrono::duration<double>(now - start_).count();
  double rate = secs > 0 ? done_ / secs : 0.0;
  std::string s = label_ + " " + std::to_string(done_);
  if (total_ > 0) {
    s += fmt::format("/{} ({:.1f}%)", total_, 100.0 * done_ / total_);
  }
  s += fmt::format(" {:.1f}/s", rate);
  if (finished_) {
    s += " in " + format_duration(secs);
  } else if (total_ > 0 && rate > 0 && done_ < total_) {
    s += " ETA " + format_duration((total_ - done_) / rate);
  }
  if (!extra_.empty()) s += " " + extra_;
  return s;
}

void Progress::draw_locked(bool final) {
  last_draw_ = Clock::now();
  std::string s = line_locked(last_draw_);
  if (tty_) {
    // \r + clear-to-end-of-line redraws in place.
    std::fprintf(out_, "\r\033[K%s%s", s.c_str(), final ? "\n" : "");
  } else if (final) {
    std::fprintf(out_, "%s\n", s.c_str());
  }
  std::fflush(out_);
}

}  // namespace clgen
