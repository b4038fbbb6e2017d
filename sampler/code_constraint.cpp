// Constrained decoding over normalized OpenCL C: brackets, identifiers and
// declarations, checked one character at a time.
#include "sampler/code_constraint.h"

#include <algorithm>
#include <cctype>

#include "corpus/preprocess/generated_names.h"
#include "sampler/opencl_words.h"

namespace clgen::sampler {

using opencl::cxx_operator_word;
using opencl::float_builtin;
using opencl::float_test_builtin;
using opencl::float_type;
using opencl::generic_builtin;
using opencl::image_builtin;
using opencl::integer_builtin;
using opencl::integer_result;
using opencl::pointer_qualifier;
using opencl::qualifier_word;
using opencl::scalar_type;
using opencl::statement_keyword;
using opencl::swizzle;
using opencl::type_width;
using opencl::vector_type;
using opencl::writing_builtin;
using preprocess::generated_index;
using preprocess::generated_name;

namespace {

// Operator characters: consecutive ones form one operator (`&&`, `<<=`).
constexpr std::string_view kOperatorChars = "=+-*/%<>&|^!~";

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool space(char c) { return c == ' ' || c == '\n' || c == '\t' || c == '\r'; }

bool all_of(std::string_view w, int (*pred)(int)) {
  if (w.empty()) return false;
  for (char c : w)
    if (!pred(static_cast<unsigned char>(c))) return false;
  return true;
}
bool lower_shape(std::string_view w) { return w.size() <= 3 && all_of(w, ::islower); }
bool upper_shape(std::string_view w) { return w.size() <= 2 && all_of(w, ::isupper); }

constexpr int kMaxNumberLength = 48;

// prev_ after a field name (`.x`): a token that is no word, so no rule about
// names, calls or declarations applies to what follows it.
const char* const kFieldWord = ".field";

bool at_statement_start(const std::string& prev) {
  return prev.empty() || prev == ";" || prev == "{" || prev == "}" || prev == ")" || prev == ":" || prev == "else" ||
         prev == "do";
}

// prev_ after the closing brace of a struct, union or enum body.
const char* const kAggregateType = "}type";

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
    for (const Word& w : words) {
      if (w.called && !w.field) t.called_.insert(w.text);
      if (!w.called && !w.field) t.uncalled_.insert(w.text);
      if (w.field || (w.member && !used.count(w.text))) {
        t.add_field(w.text);
      } else if (!(lower_shape(w.text) || upper_shape(w.text)) || (lower_shape(w.text) && w.called)) {
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
  for (const auto& words : lexed) {
    for (const Word& w : words) {
      if (t.is_generated_name(w.text) || w.field) continue;
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

int CodeConstraint::decl_context() const {
  if (t_->is_declarator(prev_)) return open_.empty() ? 1 : 2;
  // `float* e` declares; `d * e` multiplies.
  int d = 0;
  if (prev_ == "*") {
    d = (t_->is_declarator(prev2_) || t_->is_pointer_declarator(prev2_) || prev2_ == "*" ||
         (prev2_ == "," && stmt_decl_depth_ == int(open_.size())))  // `float *e, *f`
            ? 2
            : 0;
    // At file level (typedefs, prototypes) a typedef's name may follow too.
    return d == 2 && open_.empty() ? 1 : d;
  }
  // `int e, f`: a declaration list, at the declaration's own depth.
  if (prev_ == ",") return stmt_decl_depth_ == int(open_.size()) ? 2 : 0;
  // After `struct {...}` a variable or a typedef's name.
  if (prev_.empty() || prev_ == kAggregateType) return 1;
  return 0;
}

const std::vector<std::string>& CodeConstraint::fresh_lower() const {
  if (fresh_for_ == max_lower_) return fresh_;
  fresh_for_ = max_lower_;
  std::vector<std::string>& out = fresh_;
  out.clear();
  for (long i = max_lower_ + 1; out.size() < 8; ++i) {
    std::string n = generated_name(size_t(i), false);
    if (n.size() > 3) break;
    if (t_->is_fixed(n)) continue;
    out.push_back(n);
    if (!t_->is_field(n)) break;
  }
  return out;
}

bool CodeConstraint::generated_ok(const std::string& w, bool complete, int decl) const {
  auto matches = [&](const std::string& name) { return complete ? name == w : name.compare(0, w.size(), w) == 0; };
  if (std::isupper(static_cast<unsigned char>(w[0]))) {
    // Functions: those seen, or a fresh one where a declaration can start
    // outside any block (a kernel body cannot declare functions).
    for (const std::string& n : upper_)
      if (matches(n)) return true;
    return decl >= 1 && open_.empty() && matches(generated_name(upper_.size(), true));
  }
  // In a body only pointers are __global or __constant (`__global float e`).
  const bool space_ok = !(stmt_global_ && in_body() && prev_ != "*" && prev2_ != "*");
  if (decl >= 1 && param_name_ok() && space_ok) {
    for (const std::string& n : fresh_lower())
      if (matches(n)) return true;
  }
  if (decl <= 1) {
    auto it = visible_.lower_bound(w);
    if (it != visible_.end() && matches(it->first)) return true;
  }
  return false;
}

bool CodeConstraint::param_name_ok() const {
  if (!in_params_ || open_.size() != 1) return true;
  if (param_space_ && !param_pointer_) return false;                    // `__global int a`
  if (kernel_params_ && param_pointer_ && !param_space_) return false;  // kernel `float* a`
  return true;
}

bool CodeConstraint::word_ok(const std::string& w, bool complete, bool field, int decl) const {
  if (field) return complete ? t_->is_field(w) : t_->is_field_prefix(w);
  // A cast's type takes no name (`(float2 g)`), only what the corpus
  // continues a type with (`(unsigned int)`).
  if (in_body() && open_.back().c == '(' && !open_.back().for_header && t_->is_declarator(prev_))
    return t_->follows(prev_, w, complete);
  // A struct body declares fields (some never used) and names types.
  if (!open_.empty() && open_.back().aggregate) return true;
  if (decl == 2) {
    // After a type only a fresh name, or what the corpus continues a type with.
    if (t_->follows(prev_, w, complete)) return true;
    if (prev_ == "*" && pointer_qualifier(w, complete)) return true;
  } else if (complete ? t_->is_fixed(w) : t_->is_fixed_prefix(w)) {
    if (!complete) return true;
    // No declaration in a condition (`if (int h == 0)`).
    if (type_word(w) && !open_.empty() &&
        (open_.back().header == 'i' || open_.back().header == 'w' || open_.back().header == 's'))
      return false;
    // A type name is no operand (`e + uint`).
    if (type_word(w) && prev_.size() == 1 &&
        std::string_view("=+-/%<>|&^?:!~[*").find(prev_[0]) != std::string_view::npos &&
        !(prev_ == "*" && decl_context() != 0))
      return false;
    // A call's argument is no type (`mad24(float2)`), but for `sizeof(float)`.
    if (type_word(w) && (prev_ == "(" || prev_ == ",") && in_body() && open_.back().c == '(' && !open_.back().group &&
        !open_.back().for_header && open_.back().header == 0 && !(prev_ == "(" && prev2_ == "sizeof"))
      return false;
    // Statement keywords only where a statement can start.
    if (statement_keyword(w)) {
      if (!at_statement_start(prev_)) return false;
      // break and continue only in a loop (break also in a switch), case
      // and default only in a switch.
      bool loop = single_loop_depth_ >= 0, sw = false;
      for (const Open& o : open_) loop = loop || o.loop_body, sw = sw || o.switch_body;
      if (w == "break") return loop || sw;
      if (w == "continue") return loop;
      if (w == "case" || w == "default") return sw;
      if (w == "else") return else_ok_depth_ == int(open_.size());
      return true;
    }
    // A kept variable name is used only once declared.
    if (t_->is_kept_name(w) && decl == 0 && !visible_.count(w)) return false;
    // A struct or typedef name only once this text defines it (or names it
    // after `struct`, or defines it now at file level).
    if (t_->is_user_type(w) && !defined_types_.count(w))
      return tag_ || (open_.empty() && prev_ != "(") || (!open_.empty() && open_.back().aggregate);
    return true;
  }
  if (!(lower_shape(w) || upper_shape(w))) return false;
  return generated_ok(w, complete, decl);
}

const CodeConstraint::Name* CodeConstraint::kind_of(const std::string& name) const {
  auto k = kinds_.find(name);
  return k != kinds_.end() && visible_.count(name) ? &k->second : nullptr;
}

CodeConstraint::Ctx CodeConstraint::current_ctx() const {
  if (assign_depth_ == int(open_.size()) && assign_ctx_ != Ctx::kAny) return assign_ctx_;
  if (!open_.empty() && open_.back().c != '{') return open_.back().ctx;
  return Ctx::kAny;
}

CodeConstraint::Cls CodeConstraint::name_class(const std::string& w, bool cast, bool deref) const {
  const Name* k = kind_of(w);
  if (!k || cast) return Cls::kUnknown;
  if (deref) return k->elem;
  switch (k->kind) {
    case Kind::kScalar: return Cls::kInt;
    case Kind::kFloat: return Cls::kFloat;
    case Kind::kVector: return k->elem;
    case Kind::kPointer:
    case Kind::kArray: return Cls::kPtr;
    case Kind::kOther: break;
  }
  return Cls::kUnknown;
}

CodeConstraint::Cls CodeConstraint::word_class() const {
  if (kind_of(word_)) return name_class(word_, prev_ == ")", prev_unary_ && prev_ == "*");
  // Constants (M_PI, true, ...): of a type the constraint does not track.
  if (t_->is_fixed(word_) && !t_->is_called(word_)) return Cls::kUnknown;
  return Cls::kNone;  // builtins count once their call closes
}

CodeConstraint::Cls CodeConstraint::number_class() const { return number_float_ ? Cls::kFloat : Cls::kInt; }

void CodeConstraint::record(Cls cls) {
  if (cls == Cls::kNone || cls == Cls::kPtr) return;
  for (size_t i = open_.size(); i-- > 0;) {
    Open& o = open_[i];
    if (o.c == '(' && o.group) continue;
    if (o.c == '(' && o.classify) (cls == Cls::kInt ? o.has_int : o.has_float) = true;
    return;
  }
}

bool CodeConstraint::float_operand(const std::string& t) const {
  if (t == "]") return last_elem_ == Cls::kFloat;
  if (t == "0") return last_number_float_;
  return name_class(t, false, false) == Cls::kFloat;
}

bool CodeConstraint::operand_end(const std::string& t) const {
  if (t.empty()) return false;
  if (t == ")") return !last_paren_header_ && !last_paren_type_;  // `if (d) *a = 0;`, `(int)*a`
  if (t == "0" || t == "\"" || t == "]" || t == kFieldWord) return true;
  return ident_start(t[0]) && !type_word(t) && !statement_keyword(t) && !qualifier_word(t) && t != "sizeof";
}

bool CodeConstraint::type_word(const std::string& w) const {
  if (w == "unsigned" || w == "signed") return true;
  if (w.empty() || !ident_start(w[0]) || qualifier_word(w)) return false;
  return t_->is_declarator(w) || t_->is_pointer_declarator(w) || t_->is_user_type(w) || scalar_type(w) ||
         vector_type(w) || w == "void" || (w.size() > 2 && w.compare(w.size() - 2, 2, "_t") == 0);
}

bool CodeConstraint::operand_ok(char c, const std::string& name, const std::string& before_prev,
                                bool before_unary) const {
  const Name* k = kind_of(name);
  if (!k) return true;
  const Ctx ctx = current_ctx();
  // Atomics take int pointers (`atomic_add(&a[e], 1)` with a float* a is
  // ambiguous), but for `atomic_xchg`.
  const bool float_atomic = ctx == Ctx::kAtomic && k->elem == Cls::kFloat && !open_.back().float_atomic;
  if (before_unary && before_prev == "&") return !float_atomic;  // &e
  const bool ptr = k->kind == Kind::kPointer || k->kind == Kind::kArray;
  if (before_unary && before_prev == "*") {
    // `*e`: e must be a pointer; its element is the operand (`*a[0]`
    // dereferences the element).
    if (!ptr && k->kind != Kind::kOther) return false;
    if (ptr && c == '[' && k->elem != Cls::kUnknown) return false;
    return !(ctx == Ctx::kInteger && k->elem == Cls::kFloat);
  }
  // A pointer after a cast to a value type (`(float)a`), or as the right
  // operand of `* / % ^ - &` (`d * a`, `d - a`).
  if (ptr && c != '[' && !(c == '-' && k->elem == Cls::kUnknown)) {
    if (before_prev == ")" && last_paren_group_ && !cast_to_pointer_) return false;
    if (!before_unary && before_prev.size() == 1 &&
        std::string_view("*/%^-&").find(before_prev[0]) != std::string_view::npos)
      return false;
    // No ordered comparison or shift with a pointer (clang only warns about
    // `e < c`, but no corpus kernel compares its index with a pointer).
    if (c == '<' || c == '>' || (!before_unary && (before_prev == "<" || before_prev == ">")) || before_cmp_)
      return false;
  }
  if (before_prev == ")") return true;  // other operands of casts: `c[(int)f]`
  // A condition is a scalar (`if (v)` with a vector v is an error).
  if (k->kind == Kind::kVector && c != '.' && c != '[' && !open_.empty() &&
      (open_.back().header == 'i' || open_.back().header == 'w'))
    return false;
  switch (ctx) {
    case Ctx::kImage: return k->image;
    case Ctx::kAtomic:  // `atomic_inc(a)`, `&a[e]`, `a + e`, not `a[e]`
      return (ptr && c != '[' && !float_atomic) || (!before_unary && (before_prev == "+" || before_prev == "-"));
    case Ctx::kAny:
    case Ctx::kPointer: return true;
    case Ctx::kInteger:
      // `c[f]`, `c[a[d]]` with float f and float* a, `c[a + d]`; a
      // comparison makes an integer of anything (`c[f > 0.5f ? 1 : 0]`).
      // (Not '=': `c[e + a = d]` is an assignment.)
      if (std::string_view("<>!?").find(c) != std::string_view::npos) return true;
      if (k->kind == Kind::kFloat) return false;
      if (ptr) return (c == '[' && k->elem != Cls::kFloat) || (c == '-' && k->elem == Cls::kUnknown);
      if (k->kind == Kind::kVector) return k->elem != Cls::kFloat;
      return true;
    case Ctx::kNumeric:
    case Ctx::kFloatCall:
      // `e = a + 1`, `fabs(a)` with a pointer: only `a[..]` (and `p->x`
      // for a struct p); inside parentheses also `(a + d)[0]` and `(0 == a)`.
      if (ptr) return c == '[' || (c == '-' && k->elem == Cls::kUnknown) || (!open_.empty() && open_.back().group);
      return true;
  }
  return true;
}

bool CodeConstraint::assignment_ok(char c, const std::string& before, const std::string& before_prev) const {
  // No assignment to a const variable, or through a pointer to const
  // (`d = 1`, `d += 1`, `d++`, `a[0] = 1`).
  if (before == "=" && c != '=') {
    if (const Name* n = kind_of(before_prev))
      if (n->constant) return false;
    if (before_prev == "]" && last_elem_const_) return false;
    // Only lvalues are assigned: not `get_global_id(0) = ...` or `1 = ...`.
    if (before_prev == "0" || (before_prev == ")" && !last_paren_header_ && (!last_paren_group_ || last_paren_type_)))
      return false;
  }
  if (before.size() == 1 && last_ == before[0]) {
    const Name* n = kind_of(before_prev);
    bool constant = (n && n->constant) || (before_prev == "]" && last_elem_const_);
    if (constant && ((c == '=' && std::string_view("+-*/%&|^").find(before[0]) != std::string_view::npos) ||
                     ((c == '+' || c == '-') && c == before[0])))
      return false;
  }
  return true;
}

bool CodeConstraint::code_char_ok(char c, const std::string& before, const std::string& before_prev, bool before_unary,
                                  Cls pending) const {
  char top = open_.empty() ? 0 : open_.back().c;
  // After a word (a field's token is kFieldWord, which is not one).
  if (!before.empty() && ident_start(before[0])) {
    // A void function returns no value.
    if (before == "return" && fn_void_ && c != ';') return false;
    // A pointer's value starts with a pointer (not `float* g = a[e]`,
    // `= get_global_id(0)`).
    if (current_ctx() == Ctx::kPointer && before != "sizeof") {
      const Name* n = kind_of(before);
      if (!n || (n->kind != Kind::kPointer && n->kind != Kind::kArray) ||
          (c == '[' && n->kind == Kind::kPointer && n->elem != Cls::kUnknown) || c == '.')
        return false;
    }
    // Only functions are called (no variable is: OpenCL C has no function
    // pointers).
    // Nor is the function being defined (no recursion).
    if (c == '(')
      return ((t_->is_called(before) && !kind_of(before)) || std::isupper(static_cast<unsigned char>(before[0]))) &&
             !(in_body() && before == current_fn_);
    // A builtin is only called (a bare `fabs` is an overload set), with no
    // space before its '('.
    if (t_->is_call_only(before)) return false;
    if (const Name* n = kind_of(before)) {
      const Kind k = n->kind;
      if (c == '[') {
        if (before != just_declared_ && (k == Kind::kScalar || k == Kind::kFloat)) return false;
      } else if (c == '.') {
        if (k != Kind::kVector && k != Kind::kOther) return false;
      } else if (before != just_declared_ && before_prev != "*" && before_prev != "&" && before_prev != ")") {
        // Operators a pointer or a floating-point scalar cannot take: `a * 2`,
        // `c[b]` with b a pointer, `f % 2` with f a float; not after `*p`,
        // `&p` or a cast `(int)f`.
        if (k == Kind::kPointer && (c == '*' || c == '/' || c == '%' || c == '^' || c == ']')) return false;
        if (k == Kind::kFloat && (c == '%' || c == '^' || c == ']')) return false;
      }
      if (before != just_declared_ && !operand_ok(c, before, before_prev, before_unary)) return false;
    }
  }
  if ((c == '%' || c == '^') && (before == "]" || before == "0") && float_operand(before)) return false;
  // A floating-point literal is no integer (`c[1.5f]`).
  if (before == "0" && current_ctx() == Ctx::kInteger && std::string_view("<>!?").find(c) == std::string_view::npos &&
      (pending != Cls::kNone ? pending == Cls::kFloat : last_number_float_))
    return false;
  if (!assignment_ok(c, before, before_prev)) return false;
  if (current_ctx() == Ctx::kPointer && before == "=" && c != '(' && c != '&' && c != '=' && c != '0')
    return false;  // `p = 1`, `p = -e` (`p = 0` is null)
  // A __local variable takes no initializer (a pointer to __local may).
  if (c == '=' && stmt_local_ && top == '{' && in_body()) {
    const Name* n = kind_of(before);
    if (before == "]" || (n && n->kind != Kind::kPointer)) return false;
  }
  // No field of a scalar element (`a[e].x` with a float* a).
  if (c == '.' && before == "]" && last_elem_width_ == 1) return false;
  // A vector cast of a whole value has the variable's width (`float4 e =
  // (float2)(...)`).
  if (c == ')' && top == '(' && open_.back().group && open_.back().after_assign && vector_type(before) &&
      assign_depth_ == int(open_.size()) - 1 && assign_width_ > 0 && type_width(before) != assign_width_)
    return false;
  // A floating-point builtin needs a floating-point operand (`fabs(e)` with
  // an int e is ambiguous).
  if (c == ')' && top == '(' && !open_.back().group && open_.back().ctx == Ctx::kFloatCall) {
    bool i = open_.back().has_int || pending == Cls::kInt;
    bool f = open_.back().has_float || pending == Cls::kFloat || pending == Cls::kUnknown;
    if (i && !f) return false;
  }
  if (c == '>' && last_ == '-' && before == "-") {
    if (const Name* n = kind_of(prev2_))  // the name before "->"
      return n->kind == Kind::kPointer || n->kind == Kind::kOther;
  }
  // A type is followed by a name, '*', or the ')' of a cast.
  if (!before.empty() && ident_start(before[0]) && t_->is_declarator(before) &&
      !(top == '{' && open_.back().aggregate) && !open_.empty() && c != '*' && c != ')' && c != '(')
    return false;
  if (std::isdigit(static_cast<unsigned char>(c))) return true;
  switch (c) {
    case ')':
      // A `for` header has its two ';' before it closes; a '?' its ':'; a
      // builtin's call an argument count the corpus uses (`fabs(e, f)`).
      if (top == '(' && open_.back().arities) {
        const int n = std::min(63, before == "(" ? 0 : open_.back().commas + 1);
        if (!((open_.back().arities >> n) & 1)) return false;
      }
      return top == '(' && !(open_.back().for_header && open_.back().semicolons < 2) && open_.back().ternaries == 0;
    case ']': return top == '[' && open_.back().ternaries == 0;
    case ':':
      // Only a '?' or a label (`case 1:`) takes a ':' (not `c[h] = i - 5 : j`).
      return !in_body() || (!open_.empty() && open_.back().ternaries > 0) || case_label_ || before == "default";
    case ',':
      if (top == '(' && open_.back().arities && (open_.back().arities >> std::min(63, open_.back().commas + 2)) == 0)
        return false;  // more arguments than the corpus gives this builtin
      return open_.empty() || open_.back().ternaries == 0;
    case '}':
      // A kernel has an effect that survives dead-code elimination (a
      // store, a call that writes, a loop): else clang keeps fewer than the
      // filter's 3 instructions.
      if (open_.size() == 1 && top == '{' && !open_.back().aggregate && kernel_body_ && effect_ < 2) return false;
      return top == '{';
    case '[': return !in_body() || operand_end(before);   // `a[[]`, `![h]`
    case '~': return !in_body() || !operand_end(before);  // a prefix operator only
    case ';':
      if (!open_.empty() && open_.back().ternaries > 0) return false;
      return top == 0 || top == '{' || (top == '(' && open_.back().for_header && open_.back().semicolons < 2);
    case '/':
    case '*': return last_ != '/';                 // no comments in normalized code
    case '#': return last_ == '\n' || last_ == 0;  // #pragma lines
    case '\\':
    case '`':
    case '@':
    case '$': return false;
    default: return true;
  }
}

bool CodeConstraint::check(char c) const {
  switch (mode_) {
    case Mode::kString:
    case Mode::kChar: return c != '\n';  // a literal ends on its line
    case Mode::kDirective: return true;
    case Mode::kNumber:
      // Literals of at most 48 characters (the corpus has 44-digit constants).
      // An 'f' suffix needs a '.' or an exponent (`1f` is no literal).
      if ((c == 'f' || c == 'F') && !number_hex_ && !number_dot_ && !number_exp_) return false;
      if (ident_char(c)) return number_length_ < kMaxNumberLength;
      if (c == '.') return !number_dot_ && number_length_ < kMaxNumberLength && current_ctx() != Ctx::kInteger;
      return space(c) || code_char_ok(c, "0", prev_, prev_unary_, number_class());
    case Mode::kWord: {
      if (expect_while_) {
        if (ident_char(c) ? word_.size() >= 5 || "while"[word_.size()] != c : word_ != "while") return false;
      }
      if (ident_char(c)) {
        scratch_ = word_;
        scratch_ += c;
        return word_ok(scratch_, false, word_field_, word_decl_);
      }
      if (!word_ok(word_, true, word_field_, word_decl_)) return false;
      // No space between a builtin and its '(' (statements keep theirs: `if (`).
      const Cls pending = word_field_ ? Cls::kNone : word_class();
      before_cmp_ = prev_cmp_;
      if (space(c)) {
        if (!(word_field_ || !t_->is_call_only(word_) || statement_keyword(word_) || word_ == "sizeof") ||
            (word_ == "return" && fn_void_))  // `return;`
          return false;
        // After a declared name a space comes before an operator: one must be
        // possible (`if (e < c ` with a pointer c is a dead end).
        if (word_field_ || word_ == just_declared_ || !kind_of(word_) || cxx_operator_word(word_)) return true;
        for (char op : std::string_view("+-*/%<>=!&|^?:"))
          if (code_char_ok(op, word_, prev_, prev_unary_, pending)) return true;
        return false;
      }
      return code_char_ok(c, word_field_ ? kFieldWord : word_, prev_, prev_unary_, pending);
    }
    case Mode::kCode:
      if (expect_while_ && !space(c) && c != 'w') return false;  // `do {...} while`
      // `!` is a prefix operator: after an operand only `!=` follows it (not
      // `c ! e`), and `!=` only follows an operand (not `(! != f)`).
      if (last_ == '!' && prev_ == "!" && prev_unary_ == (c == '=')) return false;
      if (in_body()) {
        // No bitwise operator or shift takes a floating-point operand (`a[d] |
        // b[d]`, `f << 1`); `||` and `&&` do.
        if (prev_.size() == 1 && last_ == prev_[0] && !prev_joined_ && !prev_unary_ && float_operand(prev2_) &&
            (((prev_ == "|" || prev_ == "&") && c != prev_[0]) || ((prev_ == "<" || prev_ == ">") && c == prev_[0])))
          return false;
        // Only an lvalue is assigned: no operator before the assignment at
        // its level (`e >= f &= e`, `d * e + c = h`; `*p`, `e++` and `p->x`
        // are lvalues).
        const Open& o = open_.back();
        if (c == '=' && prev_.size() == 1 && last_ == prev_[0] && !prev_joined_ &&
            std::string_view("+-*/%&|^").find(last_) != std::string_view::npos && o.binop_prev)
          return false;
        if (c != '=' && last_ == '=' && prev_ == "=" && !prev_joined_ && o.binop) return false;
      }
      // Layout as the rewriter formats it: single spaces between tokens,
      // indentation only at a line start (under 80 columns), no trailing
      // space, at most one empty line, no tabs, and no space before
      // `; , ) ] [`. Without these a refused draw could be redrawn as
      // whitespace again and again. (Aligned initializers, `{0,  2}`, and
      // names that C++ spells operators, `or ;`, are formatted otherwise.)
      if (c == ' ') return last_ != ' ' || (indenting_ && column_ < 80) || prev_ == ",";
      if (c == '\n') return last_ != ' ' && !(last_ == '\n' && last2_ == '\n');
      if (c == '\t' || c == '\r') return false;
      if (last_ == ' ' && !(indenting_ && c == ';') && !cxx_operator_word(prev_) &&
          (c == ';' || c == ',' || c == ')' || c == ']' || c == '['))
        return false;
      // After an operator an operand comes: not `; , ) ] }` (`e = ;`), and
      // after the space that follows a complete operator not another binary
      // operator (`d = =`). `e++;` and the `*` of a pointer type (`(float*)`)
      // are no such operators.
      if (in_body() && prev_.size() == 1 &&
          std::string_view("=+-*/%<>&|^!~?:").find(prev_[0]) != std::string_view::npos &&
          !((prev_ == "+" || prev_ == "-") && prev2_ == prev_) &&
          !(prev_ == "*" && (type_word(prev2_) || prev2_ == "*")) && !(prev_ == ":" && last_ != ' ')) {
        if (std::string_view(";,)]}").find(c) != std::string_view::npos) return false;
        if (last_ == ' ' && std::string_view("=/%<>|^?:").find(c) != std::string_view::npos) return false;
      }
      // In a body, no operand right after an operand (`c e`, `2 e`).
      if ((ident_start(c) || std::isdigit(static_cast<unsigned char>(c))) && in_body() && operand_end(prev_))
        return false;
      if (ident_start(c)) {
        if (prev_ == "return" && fn_void_) return false;  // a void function returns no value
        scratch_.assign(1, c);
        return assignment_ok(c, prev_, prev2_) && word_ok(scratch_, false, field_next_, decl_context());
      }
      before_cmp_ = prev2_cmp_;
      return code_char_ok(c, prev_, prev2_, prev2_unary_, Cls::kNone);
  }
  return true;
}

std::vector<bool>::reference CodeConstraint::if_stmt_at(size_t depth) {
  if (if_stmt_.size() <= depth) if_stmt_.resize(depth + 1, false);
  return if_stmt_[depth];
}

void CodeConstraint::end_statement(int depth) {
  if (depth < 0) return;
  else_ok_depth_ = if_stmt_at(size_t(depth)) ? depth : -1;
  if_stmt_[size_t(depth)] = false;
  else_just_set_ = true;
}

void CodeConstraint::push_token(const std::string& token) {
  if (!else_just_set_ && token != "else") else_ok_depth_ = -1;
  else_just_set_ = false;
  if (token != just_declared_) just_declared_.clear();
  // `*`, `&`, `-`, ... are unary where no operand ends before them.
  bool unary =
      token.size() == 1 && std::string_view("*&-+!~").find(token[0]) != std::string_view::npos && !operand_end(prev_);
  const bool joined = token.size() == 1 && continues_operator(token[0]);
  prev2_joined_ = prev_joined_;
  prev_joined_ = joined;
  prev2_unary_ = prev_unary_;
  prev_unary_ = unary;
  prev2_cmp_ = prev_cmp_;
  prev_cmp_ = token == "=" && (prev_ == "<" || prev_ == ">") && (last_ == '<' || last_ == '>');
  prev2_ = std::move(prev_);
  prev_ = token;
}

bool CodeConstraint::continues_operator(char c) const {
  auto op = [](char x) { return kOperatorChars.find(x) != std::string_view::npos; };
  return prev_.size() == 1 && last_ == prev_[0] && op(last_) && op(c);
}

bool CodeConstraint::assignment_token() const {
  if (prev_ != "=") return false;
  if (!prev_joined_) return true;
  return prev2_.size() == 1 && std::string_view("+-*/%&|^").find(prev2_[0]) != std::string_view::npos && !prev2_joined_;
}

void CodeConstraint::note_operator(char c) {
  if (!in_body()) return;
  // A pointer's value has its first operand once a '(' or '&' starts it.
  if ((c == '(' || c == '&') && assign_ctx_ == Ctx::kPointer && assign_depth_ == int(open_.size()))
    assign_ctx_ = Ctx::kAny;
  Open& o = open_.back();
  const bool joined = continues_operator(c);
  if (c == '=') {
    if (joined && last_ == '=') o.binop = true;  // `==`
    return;
  }
  if (c == '?') {  // the middle operand is a whole expression (`c ? e += 1 : e`)
    end_expression();
    return;
  }
  if (std::string_view("+-*/%<>&|^!~").find(c) == std::string_view::npos) return;
  if (joined) {
    // `->` and `++`, `--` leave an lvalue; `a[e]++` stores.
    if ((c == '>' && last_ == '-') || ((c == '+' || c == '-') && last_ == c)) {
      o.binop = o.binop_prev;
      if (c == '>')
        o.memory = true;
      else if (o.memory)
        effect_ += 2;
    }
    return;  // `&&`, `<<`, ...: the same operator
  }
  o.binop_prev = o.binop;
  if (c == '*' && !operand_end(prev_)) {  // `*p`: an lvalue in memory
    o.memory = true;
    return;
  }
  o.binop = true;
}

void CodeConstraint::end_expression() {
  if (in_body()) open_.back().binop = open_.back().binop_prev = open_.back().memory = false;
}

void CodeConstraint::declare(const std::string& w) {
  scopes_.back().push_back(w);
  ++visible_[w];
}

void CodeConstraint::close_scope() {
  if (scopes_.size() <= 1) return;
  for (const std::string& n : scopes_.back())
    if (--visible_[n] == 0) visible_.erase(n);
  scopes_.pop_back();
}

void CodeConstraint::end_assignments_deeper_than(size_t depth) {
  if (assign_depth_ > int(depth)) assign_depth_ = -1, assign_ctx_ = Ctx::kAny;
  if (saved_depth_ > int(depth)) saved_depth_ = -1, saved_ctx_ = Ctx::kAny;
}

void CodeConstraint::close_braceless_scopes(int from_depth) {
  while (!single_stmt_scopes_.empty() && single_stmt_scopes_.back() >= from_depth) {
    close_scope();
    single_stmt_scopes_.pop_back();
  }
}

void CodeConstraint::end_loop_bodies() {
  body_end_pending_ = false;
  close_braceless_scopes(int(open_.size()));
  if (single_loop_depth_ >= int(open_.size())) single_loop_depth_ = -1;
}

void CodeConstraint::finish_word() {
  expect_while_ = false;
  if (body_end_pending_ && !word_field_) {
    if (word_ == "else")
      body_end_pending_ = false;
    else
      end_loop_bodies();
  }
  mode_ = Mode::kCode;
  if (assign_ctx_ == Ctx::kPointer && assign_depth_ == int(open_.size())) assign_ctx_ = Ctx::kAny;
  if (word_ == "case" || word_ == "default") case_label_ = true;
  bool in_aggregate = !open_.empty() && open_.back().aggregate;
  bool declared_now = false;
  if (!word_field_ && !in_aggregate && t_->is_generated_name(word_)) {
    if (std::isupper(static_cast<unsigned char>(word_[0]))) {
      upper_.insert(word_);
    } else {
      long i = generated_index(word_);
      if (i > max_lower_) {
        max_lower_ = i;
        declared_now = true;
        // A declaration is no statement: a `for` body without braces has
        // ended before it (`for (...) for (...) {...} float e;`).
        close_braceless_scopes(int(open_.size()));
        declare(word_);
        // Its kind, from the type before it (or the statement's, after ',').
        std::string type = prev_ == "*" ? prev2_ : prev_ == "," ? stmt_type_ : prev_;
        bool is_const = prev_ == "," ? stmt_const_ : const_seen_;
        // A declaration statement (not a parameter list, whose ',' is
        // followed by a type).
        if ((t_->is_declarator(prev_) || prev_ == "*" || prev_ == kAggregateType) &&
            (open_.empty() || open_.back().c == '{' || (open_.back().for_header && open_.back().semicolons == 0))) {
          stmt_type_ = type;
          stmt_const_ = is_const;
          stmt_decl_depth_ = int(open_.size());
        }
        Name n;
        n.kind = prev_ == "*"        ? Kind::kPointer
                 : float_type(type)  ? Kind::kFloat
                 : scalar_type(type) ? Kind::kScalar
                 : vector_type(type) ? Kind::kVector
                                     : Kind::kOther;
        size_t digit = type.find_first_of("0123456789");
        std::string base = vector_type(type) ? type.substr(0, digit) : type;
        n.elem = float_type(base) ? Cls::kFloat : scalar_type(base) ? Cls::kInt : Cls::kUnknown;
        n.width = type_width(type);
        n.image = type.compare(0, 5, "image") == 0;
        if (prev2_ == "*" && pointer_qualifier(prev_, true)) {
          n.kind = Kind::kPointer;  // `float* const e`: its element type is two
                                    // tokens back
          n.elem = Cls::kUnknown;
        } else if (n.kind == Kind::kPointer) {
          n.const_elem = is_const;
        } else if (is_const) {
          pending_const_.push_back(word_);  // assignable in its own initializer
        }
        kinds_[word_] = n;
        just_declared_ = word_;
      }
    }
  }
  // An operand's class, for the call that classes its operands (pointers
  // count once subscripted, builtins once their call closes).
  if (word_field_)
    record(Cls::kUnknown);  // `p->x`, `v.x`: of a type the constraint does not
                            // track
  if (!word_field_ && !in_aggregate && !declared_now) record(word_class());
  if (!word_field_ && (word_ == "if" || word_ == "else")) {
    if_stmt_at(open_.size()) = word_ == "if";  // `else if` is an if-statement again; a plain else ends the chain
  }
  if (word_ == "const" || word_ == "__constant" || word_ == "constant") const_seen_ = true;
  if (word_ == "do") loop_body_pending_ = do_pending_ = true;
  if (in_body() && open_.back().c == '{') {
    if (word_ == "__local" || word_ == "local") stmt_local_ = true;
    if (word_ == "__global" || word_ == "global" || word_ == "__constant" || word_ == "constant") stmt_global_ = true;
  }
  if (t_->is_user_type(word_) && (tag_ || open_.empty())) defined_types_.insert(word_);
  if (!word_field_ && !in_aggregate && t_->is_kept_name(word_) && word_decl_ >= 1 && !visible_.count(word_))
    declare(word_);
  if (open_.empty() && (word_ == "__kernel" || word_ == "kernel")) saw_kernel_ = true;
  if (in_params_ && open_.size() == 1 &&
      (word_ == "__global" || word_ == "global" || word_ == "__local" || word_ == "local" || word_ == "__constant" ||
       word_ == "constant"))
    param_space_ = true;
  if (word_ == "struct" || word_ == "union" || word_ == "enum") tag_ = true;
  push_token(word_field_ ? kFieldWord : word_);
  field_next_ = false;
  word_.clear();
}

void CodeConstraint::apply(char c) {
  const char before = last_;
  step(c);
  last2_ = before;
  if (c == '\n') {
    column_ = 0;
    indenting_ = true;
  } else {
    ++column_;
    indenting_ = indenting_ && c == ' ';
  }
}

void CodeConstraint::step(char c) {
  switch (mode_) {
    case Mode::kDirective:
      if (c == '\n') mode_ = Mode::kCode;
      last_ = c;
      return;
    case Mode::kString:
    case Mode::kChar:
      if (escaped_) {
        escaped_ = false;
      } else if (c == '\\') {
        escaped_ = true;
      } else if (c == (mode_ == Mode::kString ? '"' : '\'')) {
        mode_ = Mode::kCode;
        push_token("\"");
      }
      last_ = c;
      return;
    case Mode::kNumber:
      if (ident_char(c) || c == '.') {
        if (number_length_ == 1 && (c == 'x' || c == 'X'))
          number_hex_ = true;
        else if (!number_hex_ && (c == '.' || c == 'e' || c == 'E' || c == 'f' || c == 'F'))
          number_float_ = true;
        if (!number_hex_ && (c == 'e' || c == 'E')) number_exp_ = true;
        ++number_length_;
        number_dot_ = number_dot_ || c == '.';
        last_ = c;
        return;
      }
      mode_ = Mode::kCode;
      last_number_float_ = number_float_;
      record(number_class());
      push_token("0");
      break;
    case Mode::kWord:
      if (ident_char(c)) {
        word_ += c;
        last_ = c;
        return;
      }
      finish_word();
      break;
    case Mode::kCode: break;
  }
  // A pending end of a braceless loop body: any token but `else` ends it
  // (words decide in finish_word).
  if (body_end_pending_ && !space(c) && !ident_start(c)) end_loop_bodies();
  // Code mode. What follows a loop or switch header is its body.
  if (!space(c) && (for_body_pending_ || loop_body_pending_ || switch_body_pending_)) {
    const bool brace = c == '{';
    if (for_body_pending_ && !brace) single_stmt_scopes_.push_back(int(open_.size()));
    if (loop_body_pending_ && !brace) single_loop_depth_ = int(open_.size());
    brace_for_ = brace && for_body_pending_;
    brace_loop_ = brace && loop_body_pending_;
    brace_switch_ = brace && switch_body_pending_;
    brace_do_ = brace && do_pending_;
    for_body_pending_ = loop_body_pending_ = switch_body_pending_ = do_pending_ = false;
  }
  // The right-hand side of an assignment starts: assigning memory stores.
  if (!space(c) && c != '=' && assignment_token() && in_body()) {
    if (open_.back().memory) effect_ += 2;
    end_expression();
  }
  if (ident_start(c)) {
    mode_ = Mode::kWord;
    word_field_ = field_next_;
    word_decl_ = decl_context();
    word_.assign(1, c);
  } else if (std::isdigit(static_cast<unsigned char>(c))) {
    mode_ = Mode::kNumber;
    number_length_ = 1;
    number_dot_ = last_ == '.';
    number_float_ = number_dot_;
    number_hex_ = false;
    // `1e-6f` is lexed as `1e`, `-`, `6f`: the second part continues the
    // exponent.
    number_exp_ = (last_ == '-' || last_ == '+') && std::string_view("eEpP").find(last2_) != std::string_view::npos;
    number_float_ = number_float_ || number_exp_;
    field_next_ = false;
  } else if (!space(c)) {
    bool closed_aggregate = false;
    expect_while_ = false;
    note_operator(c);
    switch (c) {
      case '(': {
        // A function's parameter list: '(' at file level after its name.
        if (open_.empty() && !prev_.empty() && std::isupper(static_cast<unsigned char>(prev_[0])) &&
            t_->is_generated_name(prev_)) {
          in_params_ = true;
          current_fn_ = prev_;
          kernel_params_ = saw_kernel_;
          param_space_ = param_pointer_ = false;
          saw_kernel_ = false;
          fn_void_ = prev2_ == "void";
        }
        Open o{'(', prev_ == "for", false, 0};
        if (!prev_.empty() && ident_start(prev_[0]) && prev_ != "return" &&
            (t_->is_called(prev_) || std::isupper(static_cast<unsigned char>(prev_[0])))) {
          // A call (or a statement's header): its own context.
          if (float_builtin(prev_) || float_test_builtin(prev_)) {
            o.ctx = Ctx::kFloatCall;
            o.classify = true;
            o.float_result = float_builtin(prev_);
            o.int_result = !o.float_result;
          } else if (integer_builtin(prev_)) {
            o.ctx = Ctx::kInteger;
            o.int_result = true;
          } else if (image_builtin(prev_)) {
            o.ctx = Ctx::kImage;
          } else if (prev_.compare(0, 7, "atomic_") == 0 || prev_.compare(0, 5, "atom_") == 0) {
            o.ctx = Ctx::kAtomic;
          } else {
            o.classify = generic_builtin(prev_);
            o.int_result = integer_result(prev_);
          }
          if (writing_builtin(prev_) || std::isupper(static_cast<unsigned char>(prev_[0]))) effect_ += 2;
          o.float_atomic = prev_ == "atomic_xchg" || prev_ == "atom_xchg";
          o.arities = t_->arities(prev_);
          o.header = prev_ == "for" ? 'f' : prev_ == "while" ? 'w' : prev_ == "switch" ? 's' : prev_ == "if" ? 'i' : 0;
          // printf writes output; a barrier is one call, and control flow
          // around what stays stays too.
          effect_ += prev_ == "printf" ? 2 : prev_ == "barrier" || o.header ? 1 : 0;
          // `(float)get_global_id(0)`: the cast decides the class.
          o.cast = prev2_ == ")";
        } else if (prev_ != ")") {
          // Grouping (or a cast's type): the enclosing context goes on.
          // After a cast, `(float)(...)`, anything goes.
          o.group = true;
          o.ctx = prev_ == "&" && prev_unary_ ? Ctx::kAny : current_ctx();  // `&(...)` takes an lvalue
          if (o.ctx == Ctx::kPointer) o.ctx = Ctx::kAny;                    // `p = (float*)c`, `p = (a + e)`
          o.after_assign = prev_ == "=";
        }
        // A `for` header's declarations live until its body ends.
        if (o.for_header) scopes_.emplace_back();
        open_.push_back(o);
        break;
      }
      case ',':
        end_expression();
        if (!open_.empty()) ++open_.back().commas;
        if (in_params_ && open_.size() == 1) param_space_ = param_pointer_ = false;
        if (!open_.empty() && (open_.back().ctx == Ctx::kImage || open_.back().ctx == Ctx::kAtomic))
          open_.back().ctx = Ctx::kAny;  // only the first argument is the image or the pointer
        if (assign_depth_ == int(open_.size())) assign_depth_ = -1, assign_ctx_ = Ctx::kAny;
        break;
      case '=':
        if (last_ == '=' && prev_ == "=") {
          // `==`: the first '=' was no assignment.
          assign_ctx_ = saved_ctx_, assign_depth_ = saved_depth_;
        } else if (last_ != '!' && last_ != '<' && last_ != '>') {
          // An assignment (or `+=`, ...): an arithmetic variable takes no
          // bare pointer.
          static const std::string_view kCompound = "+-*/%&|^";
          const std::string& lhs =
              prev_.size() == 1 && kCompound.find(prev_[0]) != std::string_view::npos ? prev2_ : prev_;
          Ctx ctx = Ctx::kAny;
          assign_width_ = 0;
          if (const Name* n = kind_of(lhs)) {
            if (n->kind == Kind::kScalar || n->kind == Kind::kFloat || n->kind == Kind::kVector) {
              ctx = Ctx::kNumeric;
              assign_width_ = n->width;
            } else if (n->kind == Kind::kPointer && lhs == prev_ &&
                       (lhs == just_declared_ || !(prev2_ == "*" && prev2_unary_))) {
              ctx = Ctx::kPointer;  // `p = ...`, not `p += ...`
            }
          } else if (lhs == "]" && (last_elem_ == Cls::kInt || last_elem_ == Cls::kFloat)) {
            ctx = Ctx::kNumeric;
            assign_width_ = last_elem_width_;
          }
          saved_ctx_ = assign_ctx_, saved_depth_ = assign_depth_;
          assign_ctx_ = ctx, assign_depth_ = int(open_.size());
        }
        break;
      case '*':
        if (in_params_ && open_.size() == 1) param_pointer_ = true;
        if (in_body() && open_.back().c == '{') stmt_local_ = false;  // `__local float* e = ...` points to __local
        break;
      case '?':
        if (!open_.empty()) ++open_.back().ternaries;
        [[fallthrough]];
      case '<':
      case '>':
      case '!':
        // After a comparison the operands are free: `c[f > 0.5f ? 1 : 0]`.
        if (!open_.empty() && open_.back().ctx == Ctx::kInteger && open_.back().c != '{' && c != '!')
          open_.back().ctx = Ctx::kAny;
        break;
      case ':':
        case_label_ = false;
        if (!open_.empty() && open_.back().ternaries > 0) {
          --open_.back().ternaries;
          if (in_body()) open_.back().binop = true;  // `c ? e : f = 1` assigns the conditional
        } else
          end_expression();  // a label
        break;
      case '[': {
        Open o{'[', false, false, 0};
        o.ctx = Ctx::kInteger;
        if (!just_declared_.empty() && prev_ == just_declared_) {
          Name& n = kinds_[just_declared_];
          n.kind = Kind::kArray;
          for (const std::string& p : pending_const_) n.const_elem = n.const_elem || p == just_declared_;
        } else if (const Name* n = kind_of(prev_)) {
          o.elem = n->elem;
          o.elem_const = n->const_elem;
          o.elem_width = n->width;
        }
        open_.push_back(o);
        break;
      }
      case '{': {
        Open o{'{', false, tag_ || (open_.empty() && prev_ != ")"), 0};
        if (open_.empty() && !o.aggregate) {  // a function body
          kernel_body_ = kernel_params_;
          effect_ = 0;
        }
        o.do_body = brace_do_;
        brace_do_ = false;
        o.loop_body = brace_loop_;
        o.switch_body = brace_switch_;
        o.extra_scopes = brace_for_ ? 1 : 0;
        brace_loop_ = brace_switch_ = brace_for_ = false;
        open_.push_back(o);
        scopes_.emplace_back();
        break;
      }
      case ')':
      case ']':
        if (!open_.empty() && open_.back().c == (c == ')' ? '(' : '[')) {
          const Open o = open_.back();
          open_.pop_back();
          end_assignments_deeper_than(open_.size());
          if (c == ')') {
            last_paren_header_ = o.header != 0;
            last_paren_type_ = o.group && (prev_ == "*" || type_word(prev_));  // not `sizeof(float)`
            last_paren_group_ = o.group;
            cast_to_pointer_ = prev_ == "*";
          }
          if (c == ']') {
            if (in_body()) open_.back().memory = true;
            last_elem_ = o.elem;
            last_elem_const_ = o.elem_const;
            last_elem_width_ = o.elem_width;
            record(o.elem);
          } else if (o.header == 'f') {
            for_body_pending_ = loop_body_pending_ = true;
          } else if (o.header == 'w') {
            loop_body_pending_ = true;
          } else if (o.header == 's') {
            switch_body_pending_ = true;
          } else if (!o.group && !o.header) {
            record(o.cast           ? Cls::kUnknown
                   : o.float_result ? Cls::kFloat
                   : o.int_result   ? Cls::kInt
                   : o.classify     ? (o.has_float ? Cls::kFloat
                                       : o.has_int ? Cls::kInt
                                                   : Cls::kUnknown)
                                    : Cls::kUnknown);
          }
        }
        if (open_.empty()) in_params_ = false;
        break;
      case '}':
        if (!open_.empty() && open_.back().c == '{') {
          closed_aggregate = open_.back().aggregate;
          const int extra = open_.back().extra_scopes;
          expect_while_ = open_.back().do_body;
          open_.pop_back();
          end_expression();
          close_scope();
          for (int k = 0; k < extra; ++k) close_scope();
          if (!closed_aggregate && !open_.empty()) end_statement(int(open_.size()));
          end_assignments_deeper_than(open_.size());
          close_braceless_scopes(int(open_.size()) + 1);
          if (single_loop_depth_ > int(open_.size())) single_loop_depth_ = -1;
        }
        break;
      case ';':
        end_expression();
        if (!open_.empty() && open_.back().for_header) ++open_.back().semicolons;
        if (!open_.empty()) open_.back().ternaries = 0;
        if (open_.empty() || open_.back().c == '{') end_statement(int(open_.size()));
        stmt_decl_depth_ = -1;
        if (assign_depth_ == int(open_.size())) assign_depth_ = -1, assign_ctx_ = Ctx::kAny;
        // A loop body without braces ends with its statement, unless an
        // `else` continues it (`for (...) if (x) y; else z;`): decided by the
        // next token.
        if ((!single_stmt_scopes_.empty() && single_stmt_scopes_.back() == int(open_.size())) ||
            single_loop_depth_ == int(open_.size()))
          body_end_pending_ = true;
        break;
      case '"': mode_ = Mode::kString; break;
      case '#': mode_ = Mode::kDirective; break;
      case '\'': mode_ = Mode::kChar; break;
      default: break;
    }
    field_next_ = c == '.' || (c == '>' && last_ == '-');
    tag_ = false;
    if (c == ',' || c == ';' || c == '{' || c == '}' || c == '(' || c == ')' || c == '=') const_seen_ = false;
    if (c == ';' || c == '{' || c == '}') stmt_local_ = stmt_global_ = false;
    // Const names become read-only once their declaration (or parameter
    // list) ends.
    if ((c == ';' || c == '{') && !pending_const_.empty()) {
      for (const std::string& n : pending_const_)
        if (auto it = kinds_.find(n); it != kinds_.end() && it->second.kind != Kind::kArray) it->second.constant = true;
      pending_const_.clear();
    }
    // `struct {...} e;` declares e: the body acts as its type.
    if (c == '{' || c == '}') stmt_decl_depth_ = -1;
    if (open_.empty() && (c == '{' || c == ';')) saw_kernel_ = false;
    if (mode_ == Mode::kCode) push_token(closed_aggregate ? kAggregateType : std::string(1, c));
  }
  last_ = c;
}

bool CodeConstraint::accepts(std::string_view piece) const {
  if (piece.empty()) return true;
  if (!check(piece[0])) return false;  // most refusals, without copying the state
  if (piece.size() == 1) return true;
  CodeConstraint copy = *this;
  for (char c : piece) {
    if (!copy.check(c)) return false;
    copy.apply(c);
  }
  return true;
}

void CodeConstraint::feed(std::string_view piece) {
  for (char c : piece) apply(c);
}

}  // namespace clgen::sampler
