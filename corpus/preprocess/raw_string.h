// Whole-file string wrappers: some projects keep each kernel file as a C++
// raw string literal (R"( ... )", R"CLC( ... )CLC") that the host #includes
// into a const char[], or as C declarations of string literals; the OpenCL
// source is their contents.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace clgen::preprocess {

// The contents of `text` when, outside comments and whitespace, it is nothing
// but one or more C++ raw string literals (adjacent ones concatenate, as C++
// joins them); nullopt otherwise (also for an unterminated literal).
std::optional<std::string> raw_string_contents(std::string_view text);

// The contents of `text` when, outside comments and whitespace, it is nothing
// but declarations of character pointers or arrays initialized with string
// literals (`static const char *axpy_kernel = "...";`, clBLAS's kernel
// templates, whose literals span lines as its build script reads them): the
// literals' texts with their escapes (\n, \t, \", \\, \ at a line's end)
// undone, one declaration's after another; nullopt otherwise.
std::optional<std::string> c_string_contents(std::string_view text);

// raw_string_contents(text) or c_string_contents(text) when one applies,
// else `text` unchanged.
std::string strip_raw_string_wrapper(std::string_view text);

}  // namespace clgen::preprocess
