// Host macros (see host_macros.h): a line scan of the text's conditional
// directives and of the definitions of one missing name.
#include "corpus/preprocess/host_macros.h"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <optional>
#include <set>

#include "corpus/preprocess/names.h"

namespace clgen::preprocess {

// One logical line: a directive's continuation lines are joined.
struct HostMacros::Line {
  std::string text;
  bool directive = false;
  std::string keyword;  // if, ifdef, define, ... for a directive
  std::string operand;  // the rest of a directive
};

namespace {

using Line = HostMacros::Line;

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::string_view trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return {};
  size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

// The identifier at the start of `s` (after spaces), or "".
std::string_view leading_word(std::string_view s) {
  s = trim(s);
  size_t n = 0;
  while (n < s.size() && ident_char(s[n])) ++n;
  return s.substr(0, n);
}

bool starts_with(std::string_view s, std::string_view p) { return s.substr(0, p.size()) == p; }
bool ends_with(std::string_view s, std::string_view p) {
  return s.size() >= p.size() && s.substr(s.size() - p.size()) == p;
}

// True when `word` occurs in `s` as a whole identifier at `pos`.
bool word_at(std::string_view s, size_t pos, std::string_view word) {
  if (s.compare(pos, word.size(), word) != 0) return false;
  if (pos > 0 && ident_char(s[pos - 1])) return false;
  size_t end = pos + word.size();
  return end >= s.size() || !ident_char(s[end]);
}

// Positions where `word` occurs as a whole identifier in `s`.
std::vector<size_t> word_positions(std::string_view s, std::string_view word) {
  std::vector<size_t> out;
  for (size_t p = s.find(word); p != std::string_view::npos; p = s.find(word, p + 1)) {
    if (word_at(s, p, word)) out.push_back(p);
  }
  return out;
}

std::vector<Line> logical_lines(std::string_view text) {
  std::vector<Line> lines;
  bool in_comment = false;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string line(text.substr(pos, end - pos));
    pos = end + 1;
    while (!line.empty() && line.back() == '\\' && pos <= text.size()) {
      line.pop_back();
      size_t e2 = text.find('\n', pos);
      if (e2 == std::string_view::npos) e2 = text.size();
      line += text.substr(pos, e2 - pos);
      pos = e2 + 1;
    }
    // Block comments: a line starting inside one is not code; a comment
    // opened on a line (and not closed there) hides the lines after it.
    bool was_in_comment = in_comment;
    for (size_t i = 0; i + 1 < line.size(); ++i) {
      if (!in_comment && line[i] == '/' && line[i + 1] == '/') break;
      if (!in_comment && line[i] == '/' && line[i + 1] == '*') in_comment = true, ++i;
      else if (in_comment && line[i] == '*' && line[i + 1] == '/') in_comment = false, ++i;
    }
    Line l;
    l.text = std::move(line);
    std::string_view t = trim(l.text);
    if (!was_in_comment && !t.empty() && t[0] == '#') {
      l.directive = true;
      std::string_view rest = trim(t.substr(1));
      l.keyword = std::string(leading_word(rest));
      l.operand = std::string(trim(rest.substr(l.keyword.size())));
      size_t comment = std::min(l.operand.find("//"), l.operand.find("/*"));
      if (comment != std::string::npos) l.operand = std::string(trim(std::string_view(l.operand).substr(0, comment)));
    }
    if (!was_in_comment || l.directive) lines.push_back(std::move(l));
  }
  return lines;
}

// The macro an `#if` operand tests positively and alone: `defined(M)`,
// `defined M`; nothing for any other condition.
std::string single_defined_test(std::string_view operand) {
  std::string_view s = trim(operand);
  if (!starts_with(s, "defined")) return "";
  s = trim(s.substr(7));
  bool paren = !s.empty() && s[0] == '(';
  if (paren) s = trim(s.substr(1));
  std::string_view m = leading_word(s);
  if (m.empty()) return "";
  s = trim(s.substr(m.size()));
  if (paren) {
    if (s.empty() || s[0] != ')') return "";
    s = trim(s.substr(1));
  }
  return s.empty() ? std::string(m) : "";
}

// True when `line` defines `name`: `#define name`, a typedef ending in
// `name;`, the `} name;` closing a typedef'd struct, `struct/union/enum
// name` followed by its body, or an enumerator on a line of its own
// (`NAME = value,`, `NAME,`, or `NAME` before the closing brace).
bool defines(const Line& line, const Line* next, std::string_view name) {
  if (line.directive) return line.keyword == "define" && leading_word(line.operand) == name;
  std::string_view t = line.text;
  // An enumerator: `NAME = value,` or `NAME,` on a line of its own.
  if (leading_word(t) == name && t.find(';') == std::string_view::npos) {
    std::string_view after = trim(trim(t).substr(name.size()));
    if (starts_with(after, ",") || (starts_with(after, "=") && !starts_with(after, "=="))) return true;
    if (after.empty() && next && starts_with(trim(next->text), "}")) return true;  // the last one
  }
  for (size_t p : word_positions(t, name)) {
    std::string_view after = trim(t.substr(p + name.size()));
    std::string_view before = trim(t.substr(0, p));
    if (starts_with(after, ";") && (t.find("typedef") != std::string_view::npos || ends_with(before, "}"))) return true;
    if (ends_with(before, "struct") || ends_with(before, "union") || ends_with(before, "enum")) {
      if (after.empty() || starts_with(after, "{")) return true;
    }
  }
  return false;
}

// Case 1: the switches of a definition of `missing` that only undefined
// macros keep off: of the definitions with any, the one with the fewest
// (an `#else` branch needs none of its `#if`'s), the first among equals.
// `order`: the lines to read, in text order (the conditionals and every
// line that may define `missing`).
std::vector<HostMacro> switched_off(const std::vector<Line>& lines, const std::vector<size_t>& order,
                                    const std::set<std::string>& defined, std::string_view missing) {
  struct Frame {
    std::string guard;  // the undefined macro the first branch tests; "" for any other condition
    bool first = true;  // still in the first branch
  };
  std::vector<Frame> stack;
  std::vector<HostMacro> best;
  for (size_t i : order) {
    const Line& l = lines[i];
    if (l.directive) {
      const std::string& k = l.keyword;
      if (k == "ifdef" || k == "if") {
        std::string m = k == "ifdef" ? std::string(leading_word(l.operand)) : single_defined_test(l.operand);
        stack.push_back({defined.count(m) ? "" : m});
        continue;
      }
      if (k == "ifndef") {
        stack.push_back({""});
        continue;
      }
      if ((k == "else" || k == "elif") && !stack.empty()) {
        stack.back().first = false;
        continue;
      }
      if (k == "endif" && !stack.empty()) {
        stack.pop_back();
        continue;
      }
    }
    if (!defines(l, i + 1 < lines.size() ? &lines[i + 1] : nullptr, missing)) continue;
    std::vector<HostMacro> guards;
    for (const Frame& f : stack) {
      if (f.first && !f.guard.empty()) guards.push_back({f.guard, "1", ""});
    }
    if (!guards.empty() && (best.empty() || guards.size() < best.size())) best = std::move(guards);
  }
  return best;
}

// Case 2: `missing` is a word pasted with a macro that `#if`/`#elif` lines
// compare for equality with integer literals.
// `conditionals`: the conditional directives' lines.
std::vector<HostMacro> pasted_macro(const std::vector<Line>& lines, const std::vector<size_t>& conditionals,
                                    std::string_view missing) {
  for (size_t i = 1; i + 1 < missing.size(); ++i) {
    char prev = missing[i - 1];
    if (!std::isupper(static_cast<unsigned char>(missing[i])) ||
        !(std::islower(static_cast<unsigned char>(prev)) || std::isdigit(static_cast<unsigned char>(prev)))) {
      continue;
    }
    std::string_view m = missing.substr(i);
    if (!is_macro_style(m)) continue;
    std::optional<long> smallest;
    for (size_t at : conditionals) {
      const Line& l = lines[at];
      if (!l.directive || (l.keyword != "if" && l.keyword != "elif")) continue;
      std::string_view op = l.operand;
      for (size_t p : word_positions(op, m)) {
        std::string_view rest = trim(op.substr(p + m.size()));
        if (!starts_with(rest, "==")) continue;
        rest = trim(rest.substr(2));
        size_t n = 0;
        while (n < rest.size() && std::isdigit(static_cast<unsigned char>(rest[n]))) ++n;
        if (n == 0 || n > 9 || (n < rest.size() && ident_char(rest[n]))) continue;
        long v = std::stol(std::string(rest.substr(0, n)));
        if (!smallest || v < *smallest) smallest = v;
      }
    }
    if (smallest) return {{std::string(m), std::to_string(*smallest), ""}};
  }
  return {};
}

// Case 3: `missing` is a vector type the text defines by pasting an element
// type the host passes: `#define DATA_TYPE4 VEC_DATA_TYPE(DATA_TYPE, 4)`
// leaves `DATA_TYPE4` while DATA_TYPE is undefined. The element type gets
// the definition propose_definition gives a type of its name.
// `candidates`: the lines that may define `missing`, in text order.
std::vector<HostMacro> vector_element_type(const std::vector<Line>& lines, const std::vector<size_t>& candidates,
                                           const std::set<std::string>& defined, std::string_view missing) {
  size_t digits = missing.size();
  while (digits > 0 && std::isdigit(static_cast<unsigned char>(missing[digits - 1]))) --digits;
  std::string_view width = missing.substr(digits), element = missing.substr(0, digits);
  if (width != "2" && width != "3" && width != "4" && width != "8" && width != "16") return {};
  if (!is_macro_style(element) || defined.count(std::string(element))) return {};
  for (size_t at : candidates) {
    const Line& l = lines[at];
    if (!l.directive || l.keyword != "define" || leading_word(l.operand) != missing) continue;
    std::string_view body = std::string_view(l.operand).substr(missing.size());
    if (word_positions(body, element).empty()) continue;
    std::string d = propose_definition(element, NameUse::kType, 0);  // "#define NAME TYPE"
    return {{std::string(element), d.substr(d.rfind(' ') + 1), ""}};
  }
  return {};
}

// Case 4: `missing` is an image builtin pasted with a macro naming its
// element type (mace: `CMD_TYPE(read_image, CMD_DATA_TYPE)` reads
// `read_imageCMD_DATA_TYPE`): the macro gets `f`, the float variant.
std::vector<HostMacro> image_builtin_suffix(const std::set<std::string>& defined, std::string_view missing) {
  for (std::string_view builtin : {"read_image", "write_image"}) {
    if (missing.size() <= builtin.size() || missing.substr(0, builtin.size()) != builtin) continue;
    std::string_view m = missing.substr(builtin.size());
    if (is_macro_style(m) && !defined.count(std::string(m))) return {{std::string(m), "f", ""}};
  }
  return {};
}

bool conditional(const Line& l) {
  const std::string& k = l.keyword;
  return l.directive && (k == "if" || k == "ifdef" || k == "ifndef" || k == "elif" || k == "else" || k == "endif");
}

}  // namespace

HostMacros::HostMacros(std::string_view text) : lines_(logical_lines(text)) {
  for (size_t i = 0; i < lines_.size(); ++i) {
    const Line& l = lines_[i];
    if (l.directive && l.keyword == "define") defined_.insert(std::string(leading_word(l.operand)));
    if (conditional(l)) conditionals_.push_back(i);
    starts_.push_back(joined_.size());
    joined_ += l.text;  // one physical line: continuations are joined without their newline
    joined_ += '\n';
  }
}

HostMacros::~HostMacros() = default;

std::vector<HostMacro> HostMacros::operator()(std::string_view missing) const {
  if (missing.empty()) return {};
  // Every case defines `missing` on a line that contains it (a match across
  // two lines only adds a line that defines nothing).
  std::vector<size_t> candidates;
  for (size_t p = joined_.find(missing); p != std::string::npos; p = joined_.find(missing, p + 1)) {
    const size_t line = static_cast<size_t>(std::upper_bound(starts_.begin(), starts_.end(), p) - starts_.begin()) - 1;
    if (candidates.empty() || candidates.back() != line) candidates.push_back(line);
  }
  std::vector<size_t> order;
  std::set_union(conditionals_.begin(), conditionals_.end(), candidates.begin(), candidates.end(),
                 std::back_inserter(order));
  std::vector<HostMacro> out = switched_off(lines_, order, defined_, missing);
  if (out.empty()) out = pasted_macro(lines_, conditionals_, missing);
  if (out.empty()) out = vector_element_type(lines_, candidates, defined_, missing);
  if (out.empty()) out = image_builtin_suffix(defined_, missing);
  return out;
}

std::vector<HostMacro> host_macros_for(std::string_view text, std::string_view missing) {
  return HostMacros(text)(missing);
}

}  // namespace clgen::preprocess
