// Whole-file C++ raw-string wrappers: some projects keep each kernel file as
// a C++ raw string literal (R"( ... )", R"CLC( ... )CLC") that the host
// #includes into a const char[]; the OpenCL source is its contents.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace clgen::preprocess {

// The contents of `text` when, outside comments and whitespace, it is nothing
// but one or more C++ raw string literals (adjacent ones concatenate, as C++
// joins them); nullopt otherwise (also for an unterminated literal).
std::optional<std::string> raw_string_contents(std::string_view text);

// raw_string_contents(text) when it applies, else `text` unchanged.
std::string strip_raw_string_wrapper(std::string_view text);

}  // namespace clgen::preprocess
