// Resuming rejected samples: the prefix before the error's line, and the queue.
#include "sampler/error_resume.h"

#include <charconv>
#include <system_error>

namespace clgen::sampler {

std::optional<std::string> resume_prefix(std::string_view text, std::string_view reason, std::string_view seed) {
  // "input.cl:LINE:COLUMN:", read without a regex: this runs on every rejection.
  constexpr std::string_view kFile = "input.cl:";
  if (reason.substr(0, kFile.size()) != kFile) return std::nullopt;
  const char* p = reason.data() + kFile.size();
  const char* end = reason.data() + reason.size();
  unsigned long line = 0, column = 0;
  const auto read_line = std::from_chars(p, end, line);
  if (read_line.ec != std::errc() || read_line.ptr == end || *read_line.ptr != ':') return std::nullopt;
  const auto read_column = std::from_chars(read_line.ptr + 1, end, column);
  if (read_column.ec != std::errc() || read_column.ptr == end || *read_column.ptr != ':') return std::nullopt;
  // The offset where `line` begins: after line - 1 newlines.
  size_t at = 0;
  for (unsigned long l = 1; l < line; ++l) {
    const size_t nl = text.find('\n', at);
    if (nl == std::string_view::npos) return std::nullopt;  // no such line
    at = nl + 1;
  }
  if (at <= seed.size() || text.substr(0, seed.size()) != seed) return std::nullopt;
  return std::string(text.substr(0, at));
}

void ResumeQueue::push(Resume r) {
  std::lock_guard<std::mutex> lock(mu_);
  if (items_.size() >= capacity_) {
    ++dropped_;
    return;
  }
  items_.push_back(std::move(r));
  ++queued_;
}

std::optional<Resume> ResumeQueue::pop() {
  std::lock_guard<std::mutex> lock(mu_);
  if (items_.empty()) return std::nullopt;
  Resume r = std::move(items_.front());
  items_.pop_front();
  return r;
}

uint64_t ResumeQueue::queued() const {
  std::lock_guard<std::mutex> lock(mu_);
  return queued_;
}

uint64_t ResumeQueue::dropped() const {
  std::lock_guard<std::mutex> lock(mu_);
  return dropped_;
}

}  // namespace clgen::sampler
