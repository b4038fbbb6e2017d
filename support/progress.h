// Progress reporting for long work: count, rate and ETA on one redrawn line
// when the stream is a terminal; silent otherwise but for an optional final
// summary, so logs and pipes are not flooded.
#pragma once

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>

namespace clgen {

class Progress {
 public:
  using Clock = std::chrono::steady_clock;

  // `total` of 0 means unknown (no ETA, no percentage). `out` of nullptr
  // means stderr. `interactive` forces TTY behaviour on or off; by default it
  // is detected with isatty().
  Progress(std::string label, uint64_t total, std::FILE* out = nullptr, int interactive = -1);
  ~Progress();

  // Thread-safe. Redraws at most every `min_interval` on a terminal.
  void advance(uint64_t n = 1);
  void set_extra(std::string extra);  // appended to the line, e.g. "accepted 93%"
  // Prints the final line (also when not a terminal); called by the destructor.
  void finish();

  uint64_t done() const;
  // Items per second since construction.
  double rate() const;
  // The line as it would be drawn now, e.g.
  // "preprocess 120/1000 (12.0%) 40.0/s ETA 22s".
  std::string line() const;

  // Human-readable durations: "45s", "3m12s", "2h05m".
  static std::string format_duration(double seconds);

  std::chrono::milliseconds min_interval{100};

 private:
  std::string line_locked(Clock::time_point now) const;
  void draw_locked(bool final);

  std::string label_;
  uint64_t total_;
  std::FILE* out_;
  bool tty_;
  uint64_t done_ = 0;
  std::string extra_;
  Clock::time_point start_;
  Clock::time_point last_draw_;
  bool finished_ = false;
  mutable std::mutex mu_;
};

}  // namespace clgen
