// Brace-depth tracking over code, comments and literals.
#include "sampler/stop_rule.h"

namespace clgen::sampler {

size_t KernelEndDetector::feed(std::string_view text) {
  if (ended_) return 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    switch (state_) {
      case State::kCode:
        if (prev_ == '/' && c == '/') {
          state_ = State::kLineComment;
          c = 0;
        } else if (prev_ == '/' && c == '*') {
          state_ = State::kBlockComment;
          c = 0;  // so "/*/" does not close the comment
        } else if (c == '"') {
          state_ = State::kString;
          escaped_ = false;
        } else if (c == '\'') {
          state_ = State::kChar;
          escaped_ = false;
        } else if (c == '{') {
          ++depth_;
        } else if (c == '}') {
          --depth_;
          if (depth_ == 0 && whole_text_) {
            ++blocks_;
          } else if (depth_ <= 0) {
            ended_ = true;
            return i + 1;
          }
        }
        break;
      case State::kLineComment:
        // A backslash-newline continues a // comment, as in C.
        if (c == '\n' && prev_ != '\\') state_ = State::kCode, c = 0;
        break;
      case State::kBlockComment:
        if (prev_ == '*' && c == '/') state_ = State::kCode, c = 0;
        break;
      case State::kString:
      case State::kChar:
        if (escaped_) {
          escaped_ = false;
        } else if (c == '\\') {
          escaped_ = true;
        } else if ((state_ == State::kString && c == '"') ||
                   (state_ == State::kChar && c == '\'') || c == '\n') {
          // A newline ends an unterminated literal (it is an error in C anyway),
          // so one stray quote cannot hide the rest of the kernel.
          state_ = State::kCode;
          c = 0;
        }
        break;
    }
    prev_ = c;
  }
  return kNotEnded;
}

std::string_view complete_kernel_prefix(std::string_view text) {
  KernelEndDetector d;
  size_t n = d.feed(text);
  if (n == KernelEndDetector::kNotEnded) return {};
  return text.substr(0, n);
}

}  // namespace clgen::sampler
