// What the corpus says about identifiers: a minimal lexer over normalized
// kernels and the tables learned from them.
#include <algorithm>

#include "sampler/code_constraint.h"
#include "sampler/constraint_lex.h"
#include "sampler/opencl_words.h"

namespace clgen::sampler {

using namespace constraint_lex;
using opencl::scalar_type;
using opencl::statement_keyword;
using opencl::swizzle;
using opencl::vector_type;

namespace {

// Short keywords of OpenCL C shaped like generated names; every other short
// fixed word (min, dot, ...) is learned from the corpus, where it is called.
const char* const kShortKeywords[] = {"do", "if", "for", "int"};

// A minimal lexer over normalized text: words with the significant token
// before them and whether they follow '.' or '->'.
struct Word {
  std::string text;
  std::string prev;   // previous significant token
  std::string prev2;  // the one before it
  bool field = false;
  bool called = false;        // followed by '('
  bool in_aggregate = false;  // inside a struct, union or enum body
  bool file_level = false;    // outside every bracket (typedefs, prototypes)
  bool in_typedef = false;    // in a typedef statement
  bool before_semicolon = false;
  char next = '\0';     // the next non-space character
  bool member = false;  // declares a struct or union member (`int c00;`)
  int args = -1;        // called: the call's argument count
};

std::vector<Word> lex_words(std::string_view s) {
  std::vector<Word> out;
  std::string prev, prev2;
  bool field_next = false;
  bool tag = false;              // after struct/union/enum (and its name)
  std::vector<bool> aggregates;  // per open '{': a struct, union or enum body
  std::vector<bool> enums;       // ... an enum body
  bool enum_tag = false;
  int parens = 0;
  bool typedef_stmt = false;
  struct Bracket {
    long call = -1;  // the called word it follows (index in out)
    int commas = 0;
    bool empty = true;
  };
  std::vector<Bracket> brackets;
  size_t i = 0;
  while (i < s.size()) {
    char c = s[i];
    const bool closing = c == ')' || c == ']' || c == '}';
    if (!space(c) && !closing && !brackets.empty()) brackets.back().empty = false;
    if (space(c)) {
      ++i;
    } else if (c == '"' || c == '\'') {
      size_t j = i + 1;
      while (j < s.size() && s[j] != c) j += (s[j] == '\\') ? 2 : 1;
      i = j + 1;
      prev2 = prev;
      prev = "\"";
      field_next = false;
    } else if (c == '/' && i + 1 < s.size() && (s[i + 1] == '/' || s[i + 1] == '*')) {
      size_t end = s[i + 1] == '/' ? s.find('\n', i) : s.find("*/", i + 2);
      i = end == std::string_view::npos ? s.size() : end + (s[i + 1] == '/' ? 1 : 2);
    } else if (std::isdigit(static_cast<unsigned char>(c)) ||
               (c == '.' && i + 1 < s.size() && std::isdigit(static_cast<unsigned char>(s[i + 1])))) {
      while (i < s.size() && (ident_char(s[i]) || s[i] == '.')) ++i;
      prev2 = prev;
      prev = "0";
      field_next = false;
    } else if (ident_start(c)) {
      size_t j = i;
      while (j < s.size() && ident_char(s[j])) ++j;
      Word w{std::string(s.substr(i, j - i)),  prev, prev2, field_next, false, !aggregates.empty() && aggregates.back(),
             aggregates.empty() && parens == 0};
      if (w.text == "typedef" && w.file_level) typedef_stmt = true;
      w.in_typedef = typedef_stmt;
      if (w.text == "struct" || w.text == "union" || w.text == "enum") tag = true;
      if (w.text == "enum") enum_tag = true;
      size_t k = j;
      while (k < s.size() && space(s[k])) ++k;
      w.called = k < s.size() && s[k] == '(';
      w.before_semicolon = k < s.size() && s[k] == ';';
      w.next = k < s.size() ? s[k] : '\0';
      w.member = w.in_aggregate && !enums.back() && std::string_view(";,[:").find(w.next) != std::string_view::npos &&
                 (prev == "*" || prev == "," || (!prev.empty() && ident_start(prev[0])));
      prev2 = prev;
      prev = w.text;
      out.push_back(std::move(w));
      field_next = false;
      i = j;
    } else {
      if (c == ';' && aggregates.empty() && parens == 0) typedef_stmt = false;
      if (c == '(') ++parens;
      if (c == ')' && parens > 0) --parens;
      if (c == '{') aggregates.push_back(tag), enums.push_back(tag && enum_tag);
      if (c == '}' && !aggregates.empty()) aggregates.pop_back(), enums.pop_back();
      tag = enum_tag = false;
      if (c == '(' || c == '[' || c == '{') {
        const bool call = c == '(' && !out.empty() && out.back().called && prev == out.back().text;
        brackets.push_back({call ? long(out.size()) - 1 : -1});
      } else if (closing && !brackets.empty()) {
        const Bracket& b = brackets.back();
        if (b.call >= 0) out[size_t(b.call)].args = b.empty ? 0 : b.commas + 1;
        brackets.pop_back();
      } else if (c == ',' && !brackets.empty()) {
        ++brackets.back().commas;
      }
      field_next = c == '.' || (c == '>' && i > 0 && s[i - 1] == '-');
      prev2 = prev;
      prev = std::string(1, c);
      ++i;
    }
  }
  return out;
}

}  // namespace

void ConstraintTables::add_fixed(const std::string& w) {
  if (!fixed_.insert(w).second) return;
  for (size_t n = 1; n <= w.size(); ++n) fixed_prefixes_.insert(w.substr(0, n));
}

void ConstraintTables::add_field(const std::string& w) {
  if (!fields_.insert(w).second) return;
  for (size_t n = 1; n <= w.size(); ++n) field_prefixes_.insert(w.substr(0, n));
}

bool ConstraintTables::follows(const std::string& d, const std::string& w, bool complete) const {
  auto it = after_declarator_.find(d);
  return it != after_declarator_.end() && (complete ? it->second.complete : it->second.prefixes).count(w) > 0;
}

bool ConstraintTables::is_generated_name(const std::string& w) const {
  return (lower_shape(w) || upper_shape(w)) && !is_fixed(w);
}

bool ConstraintTables::is_field(const std::string& w) const { return fields_.count(w) > 0 || swizzle(w, false); }
bool ConstraintTables::is_field_prefix(const std::string& w) const {
  return field_prefixes_.count(w) > 0 || swizzle(w, true);
}

ConstraintTables ConstraintTables::from_corpus(const std::vector<std::string>& texts) {
  ConstraintTables t;
  for (const char* k : kShortKeywords) t.add_fixed(k);
  std::vector<std::vector<Word>> lexed;
  lexed.reserve(texts.size());
  // Fixed words: every word outside '.'/'->' that is not shaped like a
  // generated name, and short lower-case words that are called (builtins:
  // a variable is never called in OpenCL C).
  for (const char* k : {"if", "for", "while", "switch", "return", "sizeof"}) t.called_.insert(k);
  // Struct members are fields, unless a word is also used outside member
  // declarations and '.'/'->' (`int c00;` in a struct is no variable).
  std::unordered_set<std::string> used;
  for (const std::string& text : texts) {
    lexed.push_back(lex_words(text));
    for (const Word& w : lexed.back())
      if (!w.field && !w.member) used.insert(w.text);
  }
  for (const auto& words : lexed) {
    // A short lower-case word a text also uses without calling it is one of
    // its variables, called as an OpenCL C 2.0 block (`b(5)` after
    // `block_t b = ^(int c) {...}`), not a builtin: fixing it would keep
    // every other text from declaring `b`.
    std::unordered_set<std::string> variables;
    for (const Word& w : words)
      if (!w.called && !w.field && lower_shape(w.text)) variables.insert(w.text);
    for (const Word& w : words) {
      if (w.called && !w.field) t.called_.insert(w.text);
      if (!w.called && !w.field) t.uncalled_.insert(w.text);
      if (w.field || (w.member && !used.count(w.text))) {
        t.add_field(w.text);
      } else if (!(lower_shape(w.text) || upper_shape(w.text)) ||
                 (lower_shape(w.text) && w.called && !variables.count(w.text))) {
        t.add_fixed(w.text);
      }
    }
  }
  // Builtins' argument counts (printf is variadic).
  for (const auto& words : lexed)
    for (const Word& w : words)
      if (w.args >= 0 && !w.field && t.called_.count(w.text) && !t.is_generated_name(w.text) &&
          !statement_keyword(w.text) && w.text != "sizeof" && w.text != "printf")
        t.arities_[w.text] |= uint64_t(1) << std::min(63, w.args);
  // User-defined types: tags, and the name a file-level typedef ends with.
  // A typedef of a builtin type's name (`typedef unsigned int uint;`, which
  // OpenCL C accepts as a redefinition) leaves it a builtin: as a user type
  // it would be refused in every text that does not define it.
  for (const auto& words : lexed) {
    for (const Word& w : words) {
      if (t.is_generated_name(w.text) || w.field || scalar_type(w.text) || vector_type(w.text)) continue;
      if (w.prev == "struct" || w.prev == "union" || w.prev == "enum" ||
          (w.in_typedef && w.file_level && w.before_semicolon))
        t.user_types_.insert(w.text);
    }
  }
  // Declarators: the words right before a generated name's first
  // appearance, which in code that compiles is its declaration.
  for (const auto& words : lexed) {
    std::unordered_set<std::string> seen;
    for (const Word& w : words) {
      if (w.field || !t.is_generated_name(w.text) || !seen.insert(w.text).second) continue;
      if (!w.prev.empty() && ident_start(w.prev[0]) && t.is_fixed(w.prev)) t.declarators_.insert(w.prev);
      // `T* e`: T declares pointers.
      if (w.prev == "*" && !w.prev2.empty() && ident_start(w.prev2[0]) && t.is_fixed(w.prev2))
        t.pointer_declarators_.insert(w.prev2);
    }
  }
  // Kept names: fixed words declared as variables (after a type or a
  // pointer's '*', followed by what ends a declarator).
  for (const auto& words : lexed) {
    for (const Word& w : words) {
      if (w.field || w.in_aggregate || w.file_level || !t.is_fixed(w.text) || w.called || t.is_declarator(w.text) ||
          std::string("=;,)[").find(w.next) == std::string::npos || w.next == '\0')
        continue;
      if (t.is_declarator(w.prev) || (w.prev == "*" && t.is_pointer_declarator(w.prev2))) t.kept_names_.insert(w.text);
    }
  }
  for (const auto& words : lexed) {
    for (const Word& w : words) {
      if (w.field || w.in_aggregate || w.file_level || !t.is_fixed(w.text) || !t.is_declarator(w.prev)) continue;
      auto& after = t.after_declarator_[w.prev];
      if (!after.complete.insert(w.text).second) continue;
      for (size_t n = 1; n <= w.text.size(); ++n) after.prefixes.insert(w.text.substr(0, n));
    }
  }
  return t;
}

}  // namespace clgen::sampler
