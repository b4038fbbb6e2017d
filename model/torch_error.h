// LibTorch's exceptions as one line of an error: c10::Error's text goes on
// with a C++ backtrace ("Exception raised from ..."), which a user never sees.
#pragma once

#include <exception>
#include <string>

#include <c10/util/Exception.h>

namespace clgen::model {

// The first line of `text`.
inline std::string first_line(const std::string& text) { return text.substr(0, text.find('\n')); }

// What `e` says, without a backtrace: its first line.
inline std::string torch_error_text(const std::exception& e) {
  if (const auto* c10 = dynamic_cast<const c10::Error*>(&e)) return first_line(c10->what_without_backtrace());
  return first_line(e.what());
}

}  // namespace clgen::model
