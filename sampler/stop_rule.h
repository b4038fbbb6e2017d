// The stop rule of a sampling stream. A stream seeded at a kernel signature
// ends when its brace depth returns to zero; a whole text (preamble, helpers,
// kernels) ends at the model's end token instead, and the rule only tracks
// whether the text is closed there. Braces inside comments, string and
// character literals do not count. Text is fed incrementally, as the model
// produces it.
#pragma once

#include <cstddef>
#include <string_view>

namespace clgen::sampler {

class KernelEndDetector {
 public:
  static constexpr size_t kNotEnded = static_cast<size_t>(-1);

  // whole_text: a top-level block that closes does not end the text (only
  // a '}' with none open does); closed() says whether it may end.
  explicit KernelEndDetector(bool whole_text = false) : whole_text_(whole_text) {}

  // Feeds more text. Returns the number of characters of `text` up to and
  // including the brace that ended the kernel, or kNotEnded. Once ended,
  // further input is ignored (returns 0).
  size_t feed(std::string_view text);

  // True once a '{' was opened and the depth returned to zero (not for a
  // whole text), or a '}' appeared with no '{' open (the text cannot become
  // a kernel).
  bool ended() const { return ended_; }
  int depth() const { return depth_; }
  // A whole text that may end here: at least one top-level block closed,
  // none open, no literal or block comment open.
  bool closed() const {
    return !ended_ && depth_ == 0 && blocks_ > 0 && (state_ == State::kCode || state_ == State::kLineComment);
  }
  bool whole_text() const { return whole_text_; }
  void reset() { *this = KernelEndDetector(whole_text_); }

 private:
  enum class State { kCode, kLineComment, kBlockComment, kString, kChar };
  State state_ = State::kCode;
  char prev_ = 0;        // previous character in the current state ('\0' after a transition)
  bool escaped_ = false; // inside a literal, the previous character was a lone backslash
  int depth_ = 0;
  int blocks_ = 0;  // top-level blocks closed
  bool ended_ = false;
  bool whole_text_ = false;
};

// The whole text up to and including the closing brace of its first
// top-level block, or the empty view when that block does not close.
std::string_view complete_kernel_prefix(std::string_view text);

}  // namespace clgen::sampler
