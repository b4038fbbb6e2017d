// Constrained decoding over normalized OpenCL C, one character at a time:
// the lexer (literals, words, numbers), the layout rules and the entry points.
#include "sampler/code_constraint.h"

#include <algorithm>

#include "sampler/constraint_lex.h"
#include "sampler/opencl_words.h"

namespace clgen::sampler {

using namespace constraint_lex;
using opencl::cxx_operator_word;
using opencl::statement_keyword;

namespace {

// A per-thread buffer for the word being checked plus one character: a
// check is const and runs for every token, so it neither writes the state
// nor allocates (after the buffer has grown once).
std::string& scratch(std::string_view text) {
  thread_local std::string buffer;
  buffer.assign(text);
  return buffer;
}

}  // namespace

CodeConstraint::CodeConstraint(const ConstraintTables* tables) : t_(tables) { refresh_fresh_names(); }

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

void CodeConstraint::apply(char c) {
  const char before = lex_.last;
  step(c);
  lex_.last2 = before;
  if (c == '\n') {
    lex_.column = 0;
    lex_.indenting = true;
  } else {
    ++lex_.column;
    lex_.indenting = lex_.indenting && c == ' ';
  }
}

void CodeConstraint::step(char c) {
  switch (lex_.mode) {
    case Mode::kDirective:
      if (c == '\n') lex_.mode = Mode::kCode;
      lex_.last = c;
      return;
    case Mode::kString:
    case Mode::kChar:
      if (lex_.escaped) {
        lex_.escaped = false;
      } else if (c == '\\') {
        lex_.escaped = true;
      } else if (c == (lex_.mode == Mode::kString ? '"' : '\'')) {
        lex_.mode = Mode::kCode;
        push_token("\"");
      }
      lex_.last = c;
      return;
    case Mode::kNumber:
      if (ident_char(c) || c == '.') {
        if (lex_.number_length == 1 && (c == 'x' || c == 'X')) lex_.number_hex = true;
        else if (!lex_.number_hex && (c == '.' || c == 'e' || c == 'E' || c == 'f' || c == 'F'))
          lex_.number_float = true;
        if (!lex_.number_hex && (c == 'e' || c == 'E')) lex_.number_exp = true;
        ++lex_.number_length;
        lex_.number_dot = lex_.number_dot || c == '.';
        lex_.last = c;
        return;
      }
      lex_.mode = Mode::kCode;
      tok_.last_number_float = lex_.number_float;
      record(number_class());
      push_token("0");
      break;
    case Mode::kWord:
      if (ident_char(c)) {
        lex_.word += c;
        lex_.last = c;
        return;
      }
      finish_word();
      break;
    case Mode::kCode: break;
  }
  step_code(c);
  lex_.last = c;
}

void CodeConstraint::step_code(char c) {
  // A pending end of a braceless loop body: any token but `else` ends it
  // (words decide in finish_word).
  if (stmt_.body_end_pending && !space(c) && !ident_start(c)) end_loop_bodies();
  // Code mode. What follows a loop or switch header is its body.
  if (!space(c) && (stmt_.for_body_pending || stmt_.loop_body_pending || stmt_.switch_body_pending)) {
    const bool brace = c == '{';
    if (stmt_.for_body_pending && !brace) stmt_.single_stmt_scopes.push_back(int(open_.size()));
    if (stmt_.loop_body_pending && !brace) stmt_.single_loop_depth = int(open_.size());
    stmt_.brace_for = brace && stmt_.for_body_pending;
    stmt_.brace_loop = brace && stmt_.loop_body_pending;
    stmt_.brace_switch = brace && stmt_.switch_body_pending;
    stmt_.brace_do = brace && stmt_.do_pending;
    stmt_.for_body_pending = stmt_.loop_body_pending = stmt_.switch_body_pending = stmt_.do_pending = false;
  }
  // The right-hand side of an assignment starts: assigning memory stores.
  if (!space(c) && c != '=' && assignment_token() && in_body()) {
    if (open_.back().expr.memory) fn_.effect += 2;
    end_expression();
  }
  if (ident_start(c)) {
    lex_.mode = Mode::kWord;
    lex_.word_field = tok_.field_next;
    lex_.word_decl = decl_context();
    lex_.word.assign(1, c);
  } else if (std::isdigit(static_cast<unsigned char>(c))) {
    lex_.mode = Mode::kNumber;
    lex_.number_length = 1;
    lex_.number_dot = lex_.last == '.';
    lex_.number_float = lex_.number_dot;
    lex_.number_hex = false;
    // `1e-6f` is lexed as `1e`, `-`, `6f`: the second part continues the
    // exponent.
    lex_.number_exp =
        (lex_.last == '-' || lex_.last == '+') && std::string_view("eEpP").find(lex_.last2) != std::string_view::npos;
    lex_.number_float = lex_.number_float || lex_.number_exp;
    tok_.field_next = false;
  } else if (!space(c)) {
    step_punctuation(c);
  }
}

bool CodeConstraint::check(char c) const {
  switch (lex_.mode) {
    case Mode::kString:
    case Mode::kChar: return c != '\n';  // a literal ends on its line
    case Mode::kDirective: return true;
    case Mode::kNumber:
      // Literals of at most 48 characters (the corpus has 44-digit constants).
      // An 'f' suffix needs a '.' or an exponent (`1f` is no literal).
      if ((c == 'f' || c == 'F') && !lex_.number_hex && !lex_.number_dot && !lex_.number_exp) return false;
      if (ident_char(c)) return lex_.number_length < kMaxNumberLength;
      if (c == '.') return !lex_.number_dot && lex_.number_length < kMaxNumberLength && current_ctx() != Ctx::kInteger;
      return space(c) || code_char_ok(c, "0", tok_.prev, tok_.prev_unary, false, number_class());
    case Mode::kWord: {
      if (stmt_.expect_while) {
        if (ident_char(c) ? lex_.word.size() >= 5 || "while"[lex_.word.size()] != c : lex_.word != "while")
          return false;
      }
      if (ident_char(c)) {
        std::string& prefix = scratch(lex_.word);
        prefix += c;
        return word_ok(prefix, false, lex_.word_field, lex_.word_decl);
      }
      if (!word_ok(lex_.word, true, lex_.word_field, lex_.word_decl)) return false;
      // No space between a builtin and its '(' (statements keep theirs: `if (`).
      const Cls pending = lex_.word_field ? Cls::kNone : word_class();
      if (space(c)) {
        if (!(lex_.word_field || !t_->is_call_only(lex_.word) || statement_keyword(lex_.word) ||
              lex_.word == "sizeof") ||
            (lex_.word == "return" && fn_.returns_void))  // `return;`
          return false;
        // After a declared name a space comes before an operator: one must be
        // possible (`if (e < c ` with a pointer c is a dead end).
        if (lex_.word_field || lex_.word == names_.just_declared || !kind_of(lex_.word) || cxx_operator_word(lex_.word))
          return true;
        for (char op : std::string_view("+-*/%<>=!&|^?:"))
          if (code_char_ok(op, lex_.word, tok_.prev, tok_.prev_unary, tok_.prev_cmp, pending)) return true;
        return false;
      }
      return code_char_ok(c, lex_.word_field ? kFieldWord : lex_.word, tok_.prev, tok_.prev_unary, tok_.prev_cmp,
                          pending);
    }
    case Mode::kCode:
      if (stmt_.expect_while && !space(c) && c != 'w') return false;  // `do {...} while`
      // `!` is a prefix operator: after an operand only `!=` follows it (not
      // `c ! e`), and `!=` only follows an operand (not `(! != f)`).
      if (lex_.last == '!' && tok_.prev == "!" && tok_.prev_unary == (c == '=')) return false;
      if (in_body()) {
        // No bitwise operator or shift takes a floating-point operand (`a[d] |
        // b[d]`, `f << 1`); `||` and `&&` do.
        if (tok_.prev.size() == 1 && lex_.last == tok_.prev[0] && !tok_.prev_joined && !tok_.prev_unary &&
            float_operand(tok_.prev2) &&
            (((tok_.prev == "|" || tok_.prev == "&") && c != tok_.prev[0]) ||
             ((tok_.prev == "<" || tok_.prev == ">") && c == tok_.prev[0])))
          return false;
        // Only an lvalue is assigned: no operator before the assignment at
        // its level (`e >= f &= e`, `d * e + c = h`; `*p`, `e++` and `p->x`
        // are lvalues).
        const Open& o = open_.back();
        if (c == '=' && tok_.prev.size() == 1 && lex_.last == tok_.prev[0] && !tok_.prev_joined &&
            std::string_view("+-*/%&|^").find(lex_.last) != std::string_view::npos && o.expr.binop_prev)
          return false;
        if (c != '=' && lex_.last == '=' && tok_.prev == "=" && !tok_.prev_joined && o.expr.binop) return false;
      }
      // Layout as the rewriter formats it: single spaces between tokens,
      // indentation only at a line start (under 80 columns), no trailing
      // space, at most one empty line, no tabs, and no space before
      // `; , ) ] [`. Without these a refused draw could be redrawn as
      // whitespace again and again. (Aligned initializers, `{0,  2}`, and
      // names that C++ spells operators, `or ;`, are formatted otherwise.)
      if (c == ' ') return lex_.last != ' ' || (lex_.indenting && lex_.column < 80) || tok_.prev == ",";
      if (c == '\n') return lex_.last != ' ' && !(lex_.last == '\n' && lex_.last2 == '\n');
      if (c == '\t' || c == '\r') return false;
      if (lex_.last == ' ' && !(lex_.indenting && c == ';') && !cxx_operator_word(tok_.prev) &&
          (c == ';' || c == ',' || c == ')' || c == ']' || c == '['))
        return false;
      // After an operator an operand comes: not `; , ) ] }` (`e = ;`), and
      // after the space that follows a complete operator not another binary
      // operator (`d = =`). `e++;` and the `*` of a pointer type (`(float*)`)
      // are no such operators.
      if (in_body() && tok_.prev.size() == 1 &&
          std::string_view("=+-*/%<>&|^!~?:").find(tok_.prev[0]) != std::string_view::npos &&
          !((tok_.prev == "+" || tok_.prev == "-") && tok_.prev2 == tok_.prev) &&
          !(tok_.prev == "*" && (type_word(tok_.prev2) || tok_.prev2 == "*")) &&
          !(tok_.prev == ":" && lex_.last != ' ')) {
        if (std::string_view(";,)]}").find(c) != std::string_view::npos) return false;
        if (lex_.last == ' ' && std::string_view("=/%<>|^?:").find(c) != std::string_view::npos) return false;
      }
      // In a body, no operand right after an operand (`c e`, `2 e`).
      if ((ident_start(c) || std::isdigit(static_cast<unsigned char>(c))) && in_body() && operand_end(tok_.prev))
        return false;
      if (ident_start(c)) {
        if (tok_.prev == "return" && fn_.returns_void) return false;  // a void function returns no value
        const std::string& prefix = scratch(std::string_view(&c, 1));
        return assignment_ok(c, tok_.prev, tok_.prev2) && word_ok(prefix, false, tok_.field_next, decl_context());
      }
      return code_char_ok(c, tok_.prev, tok_.prev2, tok_.prev2_unary, tok_.prev2_cmp, Cls::kNone);
  }
  return true;
}

}  // namespace clgen::sampler
