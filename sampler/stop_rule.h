// The stop rule of a sampling stream: a kernel ends when its brace depth
// returns to zero. Braces inside comments, string and character literals do
// not count. Text is fed incrementally, as the model produces it.
#pragma once

#include <cstddef>
#include <string_view>

namespace clgen::sampler {

class KernelEndDetector {
 public:
  static constexpr size_t kNotEnded = static_cast<size_t>(-1);

  // Feeds more text. Returns the number of characters of `text` up to and
  // including the brace that ended the kernel, or kNotEnded. Once ended,
  // further input is ignored (returns 0).
  size_t feed(std::string_view text);

  // True once a '{' was opened and the depth returned to zero, or a '}'
  // appeared with no '{' open (the text cannot become a kernel).
  bool ended() const { return ended_; }
  int depth() const { return depth_; }
  void reset() { *this = KernelEndDetector(); }

 private:
  enum class State { kCode, kLineComment, kBlockComment, kString, kChar };
  State state_ = State::kCode;
  char prev_ = 0;        // previous character in the current state ('\0' after a transition)
  bool escaped_ = false; // inside a literal, the previous character was a lone backslash
  int depth_ = 0;
  bool ended_ = false;
};

// The whole text up to and including the closing brace of its first
// top-level block, or the empty view when that block does not close.
std::string_view complete_kernel_prefix(std::string_view text);

}  // namespace clgen::sampler
