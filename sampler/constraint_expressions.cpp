// Expressions in the code constraint: operand classes and contexts,
// operators, assignments, and the rules for the character after a token.
#include <algorithm>

#include "sampler/code_constraint.h"
#include "sampler/constraint_lex.h"
#include "sampler/opencl_words.h"

namespace clgen::sampler {

using namespace constraint_lex;
using opencl::qualifier_word;
using opencl::statement_keyword;
using opencl::type_width;
using opencl::vector_type;

CodeConstraint::Ctx CodeConstraint::current_ctx() const {
  if (expr_.assign_depth == int(open_.size()) && expr_.assign_ctx != Ctx::kAny) return expr_.assign_ctx;
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
  if (kind_of(lex_.word)) return name_class(lex_.word, tok_.prev == ")", tok_.prev_unary && tok_.prev == "*");
  // Constants (M_PI, true, ...): of a type the constraint does not track.
  if (t_->is_fixed(lex_.word) && !t_->is_called(lex_.word)) return Cls::kUnknown;
  return Cls::kNone;  // builtins count once their call closes
}

CodeConstraint::Cls CodeConstraint::number_class() const { return lex_.number_float ? Cls::kFloat : Cls::kInt; }

void CodeConstraint::record(Cls cls) {
  if (cls == Cls::kNone || cls == Cls::kPtr) return;
  for (size_t i = open_.size(); i-- > 0;) {
    Open& o = open_[i];
    if (o.c == '(' && o.call.group) continue;
    if (o.c == '(' && o.call.classify) (cls == Cls::kInt ? o.call.has_int : o.call.has_float) = true;
    return;
  }
}

bool CodeConstraint::float_operand(const std::string& t) const {
  if (t == "]") return expr_.last_elem == Cls::kFloat;
  if (t == "0") return tok_.last_number_float;
  return name_class(t, false, false) == Cls::kFloat;
}

bool CodeConstraint::operand_end(const std::string& t) const {
  if (t.empty()) return false;
  if (t == ")") return !expr_.last_paren_header && !expr_.last_paren_type;  // `if (d) *a = 0;`, `(int)*a`
  if (t == "0" || t == "\"" || t == "]" || t == kFieldWord) return true;
  return ident_start(t[0]) && !type_word(t) && !statement_keyword(t) && !qualifier_word(t) && t != "sizeof";
}

bool CodeConstraint::operand_ok(char c, const std::string& name, const std::string& before_prev, bool before_unary,
                                bool before_cmp) const {
  const Name* k = kind_of(name);
  if (!k) return true;
  const Ctx ctx = current_ctx();
  // Atomics take int pointers (`atomic_add(&a[e], 1)` with a float* a is
  // ambiguous), but for `atomic_xchg`.
  const bool float_atomic = ctx == Ctx::kAtomic && k->elem == Cls::kFloat && !open_.back().call.float_atomic;
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
    if (before_prev == ")" && expr_.last_paren_group && !expr_.cast_to_pointer) return false;
    if (!before_unary && before_prev.size() == 1 &&
        std::string_view("*/%^-&").find(before_prev[0]) != std::string_view::npos)
      return false;
    // No ordered comparison or shift with a pointer (clang only warns about
    // `e < c`, but no corpus kernel compares its index with a pointer).
    if (c == '<' || c == '>' || (!before_unary && (before_prev == "<" || before_prev == ">")) || before_cmp)
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
      if (ptr) return c == '[' || (c == '-' && k->elem == Cls::kUnknown) || (!open_.empty() && open_.back().call.group);
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
    if (before_prev == "]" && expr_.last_elem_const) return false;
    // Only lvalues are assigned: not `get_global_id(0) = ...` or `1 = ...`.
    if (before_prev == "0" ||
        (before_prev == ")" && !expr_.last_paren_header && (!expr_.last_paren_group || expr_.last_paren_type)))
      return false;
  }
  if (before.size() == 1 && lex_.last == before[0]) {
    const Name* n = kind_of(before_prev);
    bool constant = (n && n->constant) || (before_prev == "]" && expr_.last_elem_const);
    if (constant && ((c == '=' && std::string_view("+-*/%&|^").find(before[0]) != std::string_view::npos) ||
                     ((c == '+' || c == '-') && c == before[0])))
      return false;
  }
  return true;
}

bool CodeConstraint::code_char_ok(char c, const std::string& before, const std::string& before_prev, bool before_unary,
                                  bool before_cmp, Cls pending) const {
  const Ctx ctx = current_ctx();
  // After a word (a field's token is kFieldWord, which is not one); a call's
  // '(' is decided by the word alone.
  if (!before.empty() && ident_start(before[0])) {
    if (!word_char_ok(c, before, before_prev, before_unary, before_cmp, ctx)) return false;
    if (c == '(') return true;
  }
  const char top = open_.empty() ? 0 : open_.back().c;
  return value_char_ok(c, before, before_prev, pending, top, ctx) && punct_char_ok(c, before, top);
}

[[gnu::always_inline]] inline bool CodeConstraint::word_char_ok(char c, const std::string& before,
                                                                const std::string& before_prev, bool before_unary,
                                                                bool before_cmp, Ctx ctx) const {
  // A void function returns no value.
  if (before == "return" && fn_.returns_void && c != ';') return false;
  // A pointer's value starts with a pointer (not `float* g = a[e]`,
  // `= get_global_id(0)`).
  if (ctx == Ctx::kPointer && before != "sizeof") {
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
           !(in_body() && before == fn_.name);
  // A builtin is only called (a bare `fabs` is an overload set), with no
  // space before its '('.
  if (t_->is_call_only(before)) return false;
  if (const Name* n = kind_of(before)) {
    const Kind k = n->kind;
    if (c == '[') {
      if (before != names_.just_declared && (k == Kind::kScalar || k == Kind::kFloat)) return false;
    } else if (c == '.') {
      if (k != Kind::kVector && k != Kind::kOther) return false;
    } else if (before != names_.just_declared && before_prev != "*" && before_prev != "&" && before_prev != ")") {
      // Operators a pointer or a floating-point scalar cannot take: `a * 2`,
      // `c[b]` with b a pointer, `f % 2` with f a float; not after `*p`,
      // `&p` or a cast `(int)f`.
      if (k == Kind::kPointer && (c == '*' || c == '/' || c == '%' || c == '^' || c == ']')) return false;
      if (k == Kind::kFloat && (c == '%' || c == '^' || c == ']')) return false;
    }
    if (before != names_.just_declared && !operand_ok(c, before, before_prev, before_unary, before_cmp)) return false;
  }
  return true;
}

[[gnu::always_inline]] inline bool CodeConstraint::value_char_ok(char c, const std::string& before,
                                                                 const std::string& before_prev, Cls pending, char top,
                                                                 Ctx ctx) const {
  if ((c == '%' || c == '^') && (before == "]" || before == "0") && float_operand(before)) return false;
  // A floating-point literal is no integer (`c[1.5f]`).
  if (before == "0" && ctx == Ctx::kInteger && std::string_view("<>!?").find(c) == std::string_view::npos &&
      (pending != Cls::kNone ? pending == Cls::kFloat : tok_.last_number_float))
    return false;
  if (!assignment_ok(c, before, before_prev)) return false;
  if (ctx == Ctx::kPointer && before == "=" && c != '(' && c != '&' && c != '=' && c != '0')
    return false;  // `p = 1`, `p = -e` (`p = 0` is null)
  // A __local variable takes no initializer (a pointer to __local may).
  if (c == '=' && stmt_.local && top == '{' && in_body()) {
    const Name* n = kind_of(before);
    if (before == "]" || (n && n->kind != Kind::kPointer)) return false;
  }
  // No field of a scalar element (`a[e].x` with a float* a), nor of a
  // parenthesized scalar or pointer (`(e).x` with an int e).
  if (c == '.' && before == "]" && expr_.last_elem_width == 1) return false;
  if (c == '.' && before == ")" && !expr_.group_name.empty()) {
    const Name* n = kind_of(expr_.group_name);
    if (n && n->kind != Kind::kVector && n->kind != Kind::kOther) return false;
  }
  // A vector cast of a whole value has the variable's width (`float4 e =
  // (float2)(...)`).
  if (c == ')' && top == '(' && open_.back().call.group && open_.back().call.after_assign && vector_type(before) &&
      expr_.assign_depth == int(open_.size()) - 1 && expr_.assign_width > 0 && type_width(before) != expr_.assign_width)
    return false;
  // A floating-point builtin needs a floating-point operand (`fabs(e)` with
  // an int e is ambiguous).
  if (c == ')' && top == '(' && !open_.back().call.group && open_.back().ctx == Ctx::kFloatCall) {
    bool i = open_.back().call.has_int || pending == Cls::kInt;
    bool f = open_.back().call.has_float || pending == Cls::kFloat || pending == Cls::kUnknown;
    if (i && !f) return false;
  }
  // The name before "->" is a pointer or a struct (punct_char_ok passes any
  // '>', so this verdict is final).
  if (c == '>' && lex_.last == '-' && before == "-") {
    if (const Name* n = kind_of(tok_.prev2)) return n->kind == Kind::kPointer || n->kind == Kind::kOther;
  }
  return true;
}

[[gnu::always_inline]] inline bool CodeConstraint::punct_char_ok(char c, const std::string& before, char top) const {
  // A type is followed by a name, '*', or the ')' of a cast.
  if (!before.empty() && ident_start(before[0]) && t_->is_declarator(before) &&
      !(top == '{' && open_.back().body.aggregate) && !open_.empty() && c != '*' && c != ')' && c != '(')
    return false;
  if (std::isdigit(static_cast<unsigned char>(c))) return true;
  switch (c) {
    case ')':
      // A `for` header has its two ';' before it closes; a '?' its ':'; a
      // builtin's call an argument count the corpus uses (`fabs(e, f)`).
      if (top == '(' && open_.back().call.arities) {
        const int n = std::min(63, before == "(" ? 0 : open_.back().commas + 1);
        if (!((open_.back().call.arities >> n) & 1)) return false;
      }
      return top == '(' && !(open_.back().for_header && open_.back().semicolons < 2) && open_.back().ternaries == 0;
    case ']': return top == '[' && open_.back().ternaries == 0;
    case ':':
      // Only a '?' or a label (`case 1:`) takes a ':' (not `c[h] = i - 5 : j`).
      return !in_body() || (!open_.empty() && open_.back().ternaries > 0) || stmt_.case_label || before == "default";
    case ',':
      if (top == '(' && open_.back().call.arities &&
          (open_.back().call.arities >> std::min(63, open_.back().commas + 2)) == 0)
        return false;  // more arguments than the corpus gives this builtin
      // Each element of a vector literal has a component at least.
      if (top == '(' && open_.back().call.vector_literal > 0 &&
          open_.back().commas + 1 >= open_.back().call.vector_literal)
        return false;
      return open_.empty() || open_.back().ternaries == 0;
    case '}':
      // A kernel has an effect that survives dead-code elimination (a
      // store, a call that writes, a loop): else clang keeps fewer than the
      // filter's 3 instructions.
      if (open_.size() == 1 && top == '{' && !open_.back().body.aggregate && fn_.kernel_body && fn_.effect < 2)
        return false;
      return top == '{';
    case '[': return !in_body() || operand_end(before);   // `a[[]`, `![h]`
    case '~': return !in_body() || !operand_end(before);  // a prefix operator only
    case ';':
      if (!open_.empty() && open_.back().ternaries > 0) return false;
      return top == 0 || top == '{' || (top == '(' && open_.back().for_header && open_.back().semicolons < 2);
    case '/':
    case '*': return lex_.last != '/';                     // no comments in normalized code
    case '#': return lex_.last == '\n' || lex_.last == 0;  // #pragma lines
    case '\\':
    case '`':
    case '@':
    case '$': return false;
    default: return true;
  }
}

int CodeConstraint::field_base_width() const {
  if (tok_.prev != ".") return 0;
  if (tok_.prev2 == "]") return expr_.last_elem_width;
  const Name* n = kind_of(tok_.prev2 == ")" ? expr_.group_name : tok_.prev2);
  return n && n->kind == Kind::kVector ? n->width : 0;
}

void CodeConstraint::push_token(const std::string& token) {
  if (!stmt_.else_just_set && token != "else") stmt_.else_ok_depth = -1;
  stmt_.else_just_set = false;
  if (token != names_.just_declared) names_.just_declared.clear();
  // `*`, `&`, `-`, ... are unary where no operand ends before them.
  bool unary = token.size() == 1 && std::string_view("*&-+!~").find(token[0]) != std::string_view::npos &&
               !operand_end(tok_.prev);
  const bool joined = token.size() == 1 && continues_operator(token[0]);
  tok_.prev2_joined = tok_.prev_joined;
  tok_.prev_joined = joined;
  tok_.prev2_unary = tok_.prev_unary;
  tok_.prev_unary = unary;
  tok_.prev2_cmp = tok_.prev_cmp;
  tok_.prev_cmp = token == "=" && (tok_.prev == "<" || tok_.prev == ">") && (lex_.last == '<' || lex_.last == '>');
  tok_.prev2 = std::move(tok_.prev);
  tok_.prev = token;
}

bool CodeConstraint::continues_operator(char c) const {
  auto op = [](char x) { return kOperatorChars.find(x) != std::string_view::npos; };
  return tok_.prev.size() == 1 && lex_.last == tok_.prev[0] && op(lex_.last) && op(c);
}

bool CodeConstraint::assignment_token() const {
  if (tok_.prev != "=") return false;
  if (!tok_.prev_joined) return true;
  return tok_.prev2.size() == 1 && std::string_view("+-*/%&|^").find(tok_.prev2[0]) != std::string_view::npos &&
         !tok_.prev2_joined;
}

void CodeConstraint::note_operator(char c) {
  if (!in_body()) return;
  // A pointer's value has its first operand once a '(' or '&' starts it.
  if ((c == '(' || c == '&') && expr_.assign_ctx == Ctx::kPointer && expr_.assign_depth == int(open_.size()))
    expr_.assign_ctx = Ctx::kAny;
  Open& o = open_.back();
  const bool joined = continues_operator(c);
  if (c == '=') {
    if (joined && lex_.last == '=') o.expr.binop = true;  // `==`
    return;
  }
  if (c == '?') {  // the middle operand is a whole expression (`c ? e += 1 : e`)
    end_expression();
    return;
  }
  if (std::string_view("+-*/%<>&|^!~").find(c) == std::string_view::npos) return;
  if (joined) {
    // `->` and `++`, `--` leave an lvalue; `a[e]++` stores.
    if ((c == '>' && lex_.last == '-') || ((c == '+' || c == '-') && lex_.last == c)) {
      o.expr.binop = o.expr.binop_prev;
      if (c == '>') o.expr.memory = true;
      else if (o.expr.memory) fn_.effect += 2;
    }
    return;  // `&&`, `<<`, ...: the same operator
  }
  o.expr.binop_prev = o.expr.binop;
  if (c == '*' && !operand_end(tok_.prev)) {  // `*p`: an lvalue in memory
    o.expr.memory = true;
    return;
  }
  o.expr.binop = true;
}

void CodeConstraint::end_expression() {
  if (in_body()) open_.back().expr.binop = open_.back().expr.binop_prev = open_.back().expr.memory = false;
}

}  // namespace clgen::sampler
