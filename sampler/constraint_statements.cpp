// Statements and brackets in the code constraint: punctuation, scopes of
// bodies, loop and switch bodies, if-else chains.
#include "sampler/code_constraint.h"
#include "sampler/constraint_lex.h"
#include "sampler/opencl_words.h"

namespace clgen::sampler {

using namespace constraint_lex;
using opencl::type_width;
using opencl::vector_type;

void CodeConstraint::step_punctuation(char c) {
  bool closed_aggregate = false;
  stmt_.expect_while = false;
  note_operator(c);
  switch (c) {
    case '(': open_paren(); break;
    case ',': end_comma(); break;
    case '=': assign(); break;
    case '*':
      if (fn_.in_params && open_.size() == 1) fn_.param_pointer = true;
      if (in_body() && open_.back().c == '{') stmt_.local = false;  // `__local float* e = ...` points to __local
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
      stmt_.case_label = false;
      if (!open_.empty() && open_.back().ternaries > 0) {
        --open_.back().ternaries;
        if (in_body()) open_.back().expr.binop = true;  // `c ? e : f = 1` assigns the conditional
      } else end_expression();                          // a label
      break;
    case '[': open_subscript(); break;
    case '{': open_brace(); break;
    case ')':
    case ']': close_bracket(c); break;
    case '}': closed_aggregate = close_brace(); break;
    case ';': end_semicolon(); break;
    case '"': lex_.mode = Mode::kString; break;
    case '#': lex_.mode = Mode::kDirective; break;
    case '\'': lex_.mode = Mode::kChar; break;
    default: break;
  }
  tok_.field_next = c == '.' || (c == '>' && lex_.last == '-');
  tok_.tag = false;
  if (c == ',' || c == ';' || c == '{' || c == '}' || c == '(' || c == ')' || c == '=') stmt_.const_seen = false;
  if (c == ';' || c == '{' || c == '}') stmt_.local = stmt_.global = false;
  // Const names become read-only once their declaration (or parameter
  // list) ends.
  if ((c == ';' || c == '{') && !names_.pending_const.empty()) {
    for (const std::string& n : names_.pending_const)
      if (auto it = names_.kinds.find(n); it != names_.kinds.end() && it->second.kind != Kind::kArray)
        it->second.constant = true;
    names_.pending_const.clear();
  }
  // `struct {...} e;` declares e: the body acts as its type.
  if (c == '{' || c == '}') stmt_.decl_depth = -1;
  if (open_.empty() && (c == '{' || c == ';')) fn_.saw_kernel = false;
  if (lex_.mode == Mode::kCode) push_token(closed_aggregate ? kAggregateType : std::string(1, c));
}

void CodeConstraint::end_comma() {
  end_expression();
  if (!open_.empty()) ++open_.back().commas;
  if (fn_.in_params && open_.size() == 1) fn_.param_space = fn_.param_pointer = false;
  if (!open_.empty() && (open_.back().ctx == Ctx::kImage || open_.back().ctx == Ctx::kAtomic))
    open_.back().ctx = Ctx::kAny;  // only the first argument is the image or the pointer
  if (expr_.assign_depth == int(open_.size())) expr_.assign_depth = -1, expr_.assign_ctx = Ctx::kAny;
}

void CodeConstraint::open_subscript() {
  Open o{'['};
  o.ctx = Ctx::kInteger;
  if (!names_.just_declared.empty() && tok_.prev == names_.just_declared) {
    Name& n = names_.kinds[names_.just_declared];
    n.kind = Kind::kArray;
    for (const std::string& p : names_.pending_const) n.const_elem = n.const_elem || p == names_.just_declared;
  } else if (const Name* n = kind_of(tok_.prev)) {
    o.elem.cls = n->elem;
    o.elem.constant = n->const_elem;
    o.elem.width = n->width;
  }
  open_.push_back(o);
}

void CodeConstraint::open_brace() {
  Open o{'{'};
  o.body.aggregate = tok_.tag || (open_.empty() && tok_.prev != ")");
  if (open_.empty() && !o.body.aggregate) {  // a function body
    fn_.kernel_body = fn_.kernel_params;
    fn_.effect = 0;
  }
  o.body.is_do = stmt_.brace_do;
  stmt_.brace_do = false;
  o.body.loop = stmt_.brace_loop;
  o.body.is_switch = stmt_.brace_switch;
  o.body.extra_scopes = stmt_.brace_for ? 1 : 0;
  stmt_.brace_loop = stmt_.brace_switch = stmt_.brace_for = false;
  open_.push_back(o);
  names_.scopes.emplace_back();
}

void CodeConstraint::close_bracket(char c) {
  if (!open_.empty() && open_.back().c == (c == ')' ? '(' : '[')) {
    const Open o = open_.back();
    open_.pop_back();
    end_assignments_deeper_than(open_.size());
    if (c == ')') {
      expr_.last_paren_header = o.header != 0;
      expr_.last_paren_type = o.call.group && (tok_.prev == "*" || type_word(tok_.prev));  // not `sizeof(float)`
      expr_.last_paren_group = o.call.group;
      expr_.cast_to_pointer = tok_.prev == "*";
      expr_.cast_width = expr_.last_paren_type && vector_type(tok_.prev) ? type_width(tok_.prev) : 0;
      expr_.last_paren_attribute = o.call.attribute;
      expr_.group_name = o.call.group && tok_.prev2 == "(" && kind_of(tok_.prev) ? tok_.prev : "";
    }
    if (c == ']') {
      if (in_body()) open_.back().expr.memory = true;
      expr_.last_elem = o.elem.cls;
      expr_.last_elem_const = o.elem.constant;
      expr_.last_elem_width = o.elem.width;
      record(o.elem.cls);
    } else if (o.header == 'f') {
      stmt_.for_body_pending = stmt_.loop_body_pending = true;
    } else if (o.header == 'w') {
      stmt_.loop_body_pending = true;
    } else if (o.header == 's') {
      stmt_.switch_body_pending = true;
    } else if (!o.call.group && !o.header) {
      record(o.call.cast           ? Cls::kUnknown
             : o.call.float_result ? Cls::kFloat
             : o.call.int_result   ? Cls::kInt
             : o.call.classify     ? (o.call.has_float ? Cls::kFloat
                                      : o.call.has_int ? Cls::kInt
                                                       : Cls::kUnknown)
                                   : Cls::kUnknown);
    }
  }
  if (open_.empty()) fn_.in_params = false;
}

bool CodeConstraint::close_brace() {
  if (!open_.empty() && open_.back().c == '{') {
    const bool closed_aggregate = open_.back().body.aggregate;
    const int extra = open_.back().body.extra_scopes;
    stmt_.expect_while = open_.back().body.is_do;
    open_.pop_back();
    end_expression();
    close_scope();
    for (int k = 0; k < extra; ++k) close_scope();
    if (!closed_aggregate && !open_.empty()) end_statement(int(open_.size()));
    end_assignments_deeper_than(open_.size());
    close_braceless_scopes(int(open_.size()) + 1);
    if (stmt_.single_loop_depth > int(open_.size())) stmt_.single_loop_depth = -1;
    return closed_aggregate;
  }
  return false;
}

void CodeConstraint::end_semicolon() {
  end_expression();
  if (!open_.empty() && open_.back().for_header) ++open_.back().semicolons;
  if (!open_.empty()) open_.back().ternaries = 0;
  if (open_.empty() || open_.back().c == '{') end_statement(int(open_.size()));
  stmt_.decl_depth = -1;
  if (expr_.assign_depth == int(open_.size())) expr_.assign_depth = -1, expr_.assign_ctx = Ctx::kAny;
  // A loop body without braces ends with its statement, unless an
  // `else` continues it (`for (...) if (x) y; else z;`): decided by the
  // next token.
  if ((!stmt_.single_stmt_scopes.empty() && stmt_.single_stmt_scopes.back() == int(open_.size())) ||
      stmt_.single_loop_depth == int(open_.size()))
    stmt_.body_end_pending = true;
}

std::vector<bool>::reference CodeConstraint::if_stmt_at(size_t depth) {
  if (stmt_.if_stmt.size() <= depth) stmt_.if_stmt.resize(depth + 1, false);
  return stmt_.if_stmt[depth];
}

void CodeConstraint::end_statement(int depth) {
  if (depth < 0) return;
  stmt_.else_ok_depth = if_stmt_at(size_t(depth)) ? depth : -1;
  stmt_.if_stmt[size_t(depth)] = false;
  stmt_.else_just_set = true;
}

void CodeConstraint::end_assignments_deeper_than(size_t depth) {
  if (expr_.assign_depth > int(depth)) expr_.assign_depth = -1, expr_.assign_ctx = Ctx::kAny;
  if (expr_.saved_depth > int(depth)) expr_.saved_depth = -1, expr_.saved_ctx = Ctx::kAny;
}

void CodeConstraint::close_braceless_scopes(int from_depth) {
  while (!stmt_.single_stmt_scopes.empty() && stmt_.single_stmt_scopes.back() >= from_depth) {
    close_scope();
    stmt_.single_stmt_scopes.pop_back();
  }
}

void CodeConstraint::end_loop_bodies() {
  stmt_.body_end_pending = false;
  close_braceless_scopes(int(open_.size()));
  if (stmt_.single_loop_depth >= int(open_.size())) stmt_.single_loop_depth = -1;
}

}  // namespace clgen::sampler
