// Resuming rejected samples (SampleOptions::resume_errors): a sample the
// filter rejects for a compile error is drawn again from just before the
// line of that error, so a long text the model got wrong late is not lost
// whole. The filter workers queue such prefixes; the sampling thread starts
// streams from them (BatchSamplerOptions::start) before fresh samples.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

namespace clgen::sampler {

// The lines of `text` before the line a compile error names in `reason`
// ("input.cl:LINE:COLUMN: ...", as the filter reports its first error);
// nullopt when the reason names no line, or when that prefix would not be
// longer than `seed` (nothing to keep) or does not begin with it.
std::optional<std::string> resume_prefix(std::string_view text, std::string_view reason, std::string_view seed);

struct Resume {
  std::string prefix;
  int depth = 1;  // resumes along the chain that led here, this one included
};

// A bounded queue of resumes, shared by the filter workers (push) and the
// sampling thread (pop). Full: a push is dropped and counted, so a run whose
// filter rejects faster than streams restart does not pile up texts.
class ResumeQueue {
 public:
  explicit ResumeQueue(size_t capacity) : capacity_(capacity) {}
  void push(Resume r);
  std::optional<Resume> pop();
  uint64_t queued() const;
  uint64_t dropped() const;

 private:
  mutable std::mutex mu_;
  std::deque<Resume> items_;
  const size_t capacity_;
  uint64_t queued_ = 0, dropped_ = 0;
};

}  // namespace clgen::sampler
