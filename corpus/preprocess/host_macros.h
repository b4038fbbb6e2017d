// Host macros: what a project's host program passes with `-D` and the text
// itself reveals. Four cases, found without Clang from the text alone, for a
// name Clang reports missing:
//  - the name's definition is in the text but switched off: it sits in the
//    first branch of `#ifdef M` / `#if defined(M)` where nothing defines M
//    (hashcat guards all its includes with `#ifdef KERNEL_STATIC`, which its
//    host passes);
//  - the name is a word pasted with a macro the text only compares in
//    `#if M == N` lines (hashcat's `VTYPE(uchar, VECT_SIZE)` reads
//    `ucharVECT_SIZE` while the host's `-D VECT_SIZE=N` is absent): M gets
//    the smallest N, the first branch of such a chain;
//  - the name is a vector type the text defines by pasting an element-type
//    macro nothing defines (mace's `#define DATA_TYPE4 VEC_DATA_TYPE(DATA_TYPE,
//    4)`): the element type gets the type propose_definition gives its name;
//  - the name is `read_image` or `write_image` pasted with a macro nothing
//    defines (mace's `read_imageCMD_DATA_TYPE`): the macro gets `f`.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace clgen::preprocess {

struct HostMacro {
  std::string name;
  std::string value;   // the `#define`'s replacement text
  std::string params;  // "(a, b)" for a function-like macro, "" otherwise
  bool operator==(const HostMacro& o) const { return name == o.name && value == o.value && params == o.params; }
};

// The host macros that would bring `missing` (a name Clang reports as an
// unknown type or undeclared identifier) into `text`; empty when neither
// case applies. A definition whose switches are all nested positive tests
// of undefined macros gives every one of them; the first such definition in
// the text wins.
std::vector<HostMacro> host_macros_for(std::string_view text, std::string_view missing);

// The same for many names of one text: its directives are read once (an
// inference round asks for up to 50 names of a text of 10,000 lines).
class HostMacros {
 public:
  explicit HostMacros(std::string_view text);
  ~HostMacros();
  std::vector<HostMacro> operator()(std::string_view missing) const;
  struct Line;  // one logical line of the text (host_macros.cpp)

 private:
  std::vector<Line> lines_;
  std::set<std::string> defined_;  // every macro the text #defines
  // A line defines a name only where the name is written in it: the lines
  // joined, one per '\n', and where each starts, so that a lookup finds the
  // lines that name it with one search and reads those and the conditionals,
  // not every line of the text.
  std::string joined_;
  std::vector<size_t> starts_;
  std::vector<size_t> conditionals_;  // the #if/#ifdef/#ifndef/#elif/#else/#endif lines
};

}  // namespace clgen::preprocess
