// Calls and types in the code constraint: what a call takes and returns,
// assignments' contexts, and a declared variable's kind from its type.
#include "sampler/code_constraint.h"
#include "sampler/constraint_lex.h"
#include "sampler/opencl_words.h"

namespace clgen::sampler {

using namespace constraint_lex;
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
using opencl::type_width;
using opencl::vector_type;
using opencl::writing_builtin;

void CodeConstraint::open_paren() {
  // A function's parameter list: '(' at file level after its name.
  if (open_.empty() && !tok_.prev.empty() && std::isupper(static_cast<unsigned char>(tok_.prev[0])) &&
      t_->is_generated_name(tok_.prev)) {
    fn_.in_params = true;
    fn_.name = tok_.prev;
    fn_.kernel_params = fn_.saw_kernel;
    fn_.param_space = fn_.param_pointer = false;
    fn_.saw_kernel = false;
    fn_.returns_void = tok_.prev2 == "void";
  }
  Open o{'('};
  o.for_header = tok_.prev == "for";
  if (!tok_.prev.empty() && ident_start(tok_.prev[0]) && tok_.prev != "return" &&
      (t_->is_called(tok_.prev) || std::isupper(static_cast<unsigned char>(tok_.prev[0])))) {
    // A call (or a statement's header): its own context.
    if (float_builtin(tok_.prev) || float_test_builtin(tok_.prev)) {
      o.ctx = Ctx::kFloatCall;
      o.call.classify = true;
      o.call.float_result = float_builtin(tok_.prev);
      o.call.int_result = !o.call.float_result;
    } else if (integer_builtin(tok_.prev)) {
      o.ctx = Ctx::kInteger;
      o.call.int_result = true;
    } else if (image_builtin(tok_.prev)) {
      o.ctx = Ctx::kImage;
    } else if (tok_.prev.compare(0, 7, "atomic_") == 0 || tok_.prev.compare(0, 5, "atom_") == 0) {
      o.ctx = Ctx::kAtomic;
    } else {
      o.call.classify = generic_builtin(tok_.prev);
      o.call.int_result = integer_result(tok_.prev);
    }
    if (writing_builtin(tok_.prev) || std::isupper(static_cast<unsigned char>(tok_.prev[0]))) fn_.effect += 2;
    o.call.float_atomic = tok_.prev == "atomic_xchg" || tok_.prev == "atom_xchg";
    o.call.arities = t_->arities(tok_.prev);
    o.call.attribute = tok_.prev == "__attribute__";
    o.header = tok_.prev == "for"      ? 'f'
               : tok_.prev == "while"  ? 'w'
               : tok_.prev == "switch" ? 's'
               : tok_.prev == "if"     ? 'i'
                                       : 0;
    // printf writes output; a barrier is one call, and control flow
    // around what stays stays too.
    fn_.effect += tok_.prev == "printf" ? 2 : tok_.prev == "barrier" || o.header ? 1 : 0;
    // `(float)get_global_id(0)`: the cast decides the class.
    o.call.cast = tok_.prev2 == ")";
  } else if (tok_.prev == ")" && expr_.cast_width > 1) {
    // A vector literal, `(int2)(d, e)`: numbers (no bare pointer), at most
    // as many elements as the vector has components.
    o.call.vector_literal = expr_.cast_width;
    o.ctx = Ctx::kNumeric;
  } else if (tok_.prev != ")") {
    // Grouping (or a cast's type): the enclosing context goes on.
    // After a cast, `(float)(...)`, anything goes.
    o.call.group = true;
    o.ctx = tok_.prev == "&" && tok_.prev_unary ? Ctx::kAny : current_ctx();  // `&(...)` takes an lvalue
    if (o.ctx == Ctx::kPointer) o.ctx = Ctx::kAny;                            // `p = (float*)c`, `p = (a + e)`
    o.call.after_assign = tok_.prev == "=";
  }
  // A `for` header's declarations live until its body ends.
  if (o.for_header) names_.scopes.emplace_back();
  open_.push_back(o);
}

void CodeConstraint::assign() {
  if (lex_.last == '=' && tok_.prev == "=") {
    // `==`: the first '=' was no assignment.
    expr_.assign_ctx = expr_.saved_ctx, expr_.assign_depth = expr_.saved_depth;
  } else if (lex_.last != '!' && lex_.last != '<' && lex_.last != '>') {
    // An assignment (or `+=`, ...): an arithmetic variable takes no
    // bare pointer.
    static const std::string_view kCompound = "+-*/%&|^";
    const std::string& lhs =
        tok_.prev.size() == 1 && kCompound.find(tok_.prev[0]) != std::string_view::npos ? tok_.prev2 : tok_.prev;
    Ctx ctx = Ctx::kAny;
    expr_.assign_width = 0;
    if (const Name* n = kind_of(lhs)) {
      if (n->kind == Kind::kScalar || n->kind == Kind::kFloat || n->kind == Kind::kVector) {
        ctx = Ctx::kNumeric;
        expr_.assign_width = n->width;
      } else if (n->kind == Kind::kPointer && lhs == tok_.prev &&
                 (lhs == names_.just_declared || !(tok_.prev2 == "*" && tok_.prev2_unary))) {
        ctx = Ctx::kPointer;  // `p = ...`, not `p += ...`
      }
    } else if (lhs == "]" && (expr_.last_elem == Cls::kInt || expr_.last_elem == Cls::kFloat)) {
      ctx = Ctx::kNumeric;
      expr_.assign_width = expr_.last_elem_width;
    }
    expr_.saved_ctx = expr_.assign_ctx, expr_.saved_depth = expr_.assign_depth;
    expr_.assign_ctx = ctx, expr_.assign_depth = int(open_.size());
  }
}

// A declared variable's kind comes from the type before it (or the
// statement's, after ',').
void CodeConstraint::declare_variable(const std::string& w) {
  // A declaration is no statement: a `for` body without braces has
  // ended before it (`for (...) for (...) {...} float e;`).
  close_braceless_scopes(int(open_.size()));
  declare(w);
  // Its kind, from the type before it (or the statement's, after ',').
  std::string type = tok_.prev == "*" ? tok_.prev2 : tok_.prev == "," ? stmt_.type : tok_.prev;
  bool is_const = tok_.prev == "," ? stmt_.constant : stmt_.const_seen;
  // A declaration statement (not a parameter list, whose ',' is
  // followed by a type).
  if ((t_->is_declarator(tok_.prev) || tok_.prev == "*" || tok_.prev == kAggregateType) &&
      (open_.empty() || open_.back().c == '{' || (open_.back().for_header && open_.back().semicolons == 0))) {
    stmt_.type = type;
    stmt_.constant = is_const;
    stmt_.decl_depth = int(open_.size());
  }
  Name n;
  n.kind = tok_.prev == "*"    ? Kind::kPointer
           : float_type(type)  ? Kind::kFloat
           : scalar_type(type) ? Kind::kScalar
           : vector_type(type) ? Kind::kVector
                               : Kind::kOther;
  size_t digit = type.find_first_of("0123456789");
  std::string base = vector_type(type) ? type.substr(0, digit) : type;
  n.elem = float_type(base) ? Cls::kFloat : scalar_type(base) ? Cls::kInt : Cls::kUnknown;
  n.width = type_width(type);
  n.image = type.compare(0, 5, "image") == 0;
  if (tok_.prev2 == "*" && pointer_qualifier(tok_.prev, true)) {
    n.kind = Kind::kPointer;  // `float* const e`: its element type is two
                              // tokens back
    n.elem = Cls::kUnknown;
  } else if (n.kind == Kind::kPointer) {
    n.const_elem = is_const;
  } else if (is_const) {
    names_.pending_const.push_back(w);  // assignable in its own initializer
  }
  names_.kinds[w] = n;
  names_.just_declared = w;
}

bool CodeConstraint::type_word(const std::string& w) const {
  if (w == "unsigned" || w == "signed") return true;
  if (w.empty() || !ident_start(w[0]) || qualifier_word(w)) return false;
  return t_->is_declarator(w) || t_->is_pointer_declarator(w) || t_->is_user_type(w) || scalar_type(w) ||
         vector_type(w) || w == "void" || (w.size() > 2 && w.compare(w.size() - 2, 2, "_t") == 0);
}

}  // namespace clgen::sampler
