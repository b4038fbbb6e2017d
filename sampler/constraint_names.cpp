// Scopes and names of the code constraint: which words may come where,
// generated and kept names, declarations and their scopes.
#include "corpus/preprocess/generated_names.h"
#include "sampler/code_constraint.h"
#include "sampler/constraint_lex.h"
#include "sampler/opencl_words.h"

namespace clgen::sampler {

using namespace constraint_lex;
using opencl::pointer_qualifier;
using opencl::statement_keyword;
using preprocess::generated_index;
using preprocess::generated_name;

int CodeConstraint::decl_context() const {
  if (t_->is_declarator(tok_.prev)) return open_.empty() ? 1 : 2;
  // `float* e` declares; `d * e` multiplies.
  int d = 0;
  if (tok_.prev == "*") {
    d = (t_->is_declarator(tok_.prev2) || t_->is_pointer_declarator(tok_.prev2) || tok_.prev2 == "*" ||
         (tok_.prev2 == "," && stmt_.decl_depth == int(open_.size())))  // `float *e, *f`
            ? 2
            : 0;
    // At file level (typedefs, prototypes) a typedef's name may follow too.
    return d == 2 && open_.empty() ? 1 : d;
  }
  // `int e, f`: a declaration list, at the declaration's own depth.
  if (tok_.prev == ",") return stmt_.decl_depth == int(open_.size()) ? 2 : 0;
  // After `struct {...}` a variable or a typedef's name; after a file-level
  // `__attribute__((...))` the function's name (`__kernel void
  // __attribute__((reqd_work_group_size(1, 1, 1))) A(`).
  if (tok_.prev.empty() || tok_.prev == kAggregateType) return 1;
  if (open_.empty() && tok_.prev == ")" && expr_.last_paren_attribute) return 1;
  return 0;
}

void CodeConstraint::refresh_fresh_names() {
  std::vector<std::string>& out = names_.fresh;
  out.clear();
  for (long i = names_.max_lower + 1; out.size() < 8; ++i) {
    std::string n = generated_name(size_t(i), false);
    if (n.size() > 3) break;
    if (t_->is_fixed(n)) continue;
    out.push_back(n);
    if (!t_->is_field(n)) break;
  }
}

bool CodeConstraint::generated_ok(const std::string& w, bool complete, int decl) const {
  auto matches = [&](const std::string& name) { return complete ? name == w : name.compare(0, w.size(), w) == 0; };
  if (std::isupper(static_cast<unsigned char>(w[0]))) {
    // Functions: those seen, or a fresh one where a declaration can start
    // outside any block (a kernel body cannot declare functions).
    for (const std::string& n : names_.functions)
      if (matches(n)) return true;
    return decl >= 1 && open_.empty() && matches(generated_name(names_.functions.size(), true));
  }
  // In a body only pointers are __global or __constant (`__global float e`).
  const bool space_ok = !(stmt_.global && in_body() && tok_.prev != "*" && tok_.prev2 != "*");
  if (decl >= 1 && param_name_ok() && space_ok) {
    for (const std::string& n : names_.fresh)
      if (matches(n)) return true;
  }
  if (decl <= 1) {
    auto it = names_.visible.lower_bound(w);
    if (it != names_.visible.end() && matches(it->first)) return true;
  }
  return false;
}

bool CodeConstraint::param_name_ok() const {
  if (!fn_.in_params || open_.size() != 1) return true;
  if (fn_.param_space && !fn_.param_pointer) return false;                       // `__global int a`
  if (fn_.kernel_params && fn_.param_pointer && !fn_.param_space) return false;  // kernel `float* a`
  return true;
}

bool CodeConstraint::word_ok(const std::string& w, bool complete, bool field, int decl) const {
  if (field) return (complete ? t_->is_field(w) : t_->is_field_prefix(w)) && swizzle_fits(w, field_base_width());
  // A cast's type takes no name (`(float2 g)`), only what the corpus
  // continues a type with (`(unsigned int)`).
  if (in_body() && open_.back().c == '(' && !open_.back().for_header && t_->is_declarator(tok_.prev))
    return t_->follows(tok_.prev, w, complete);
  // A struct body declares fields (some never used) and names types.
  if (!open_.empty() && open_.back().body.aggregate) return true;
  if (decl == 2) {
    // After a type only a fresh name, or what the corpus continues a type with.
    if (t_->follows(tok_.prev, w, complete)) return true;
    if (tok_.prev == "*" && pointer_qualifier(w, complete)) return true;
  } else if (complete ? t_->is_fixed(w) : t_->is_fixed_prefix(w)) {
    if (!complete) return true;
    // No declaration in a condition (`if (int h == 0)`).
    if (type_word(w) && !open_.empty() &&
        (open_.back().header == 'i' || open_.back().header == 'w' || open_.back().header == 's'))
      return false;
    // A type name is no operand (`e + uint`).
    if (type_word(w) && tok_.prev.size() == 1 &&
        std::string_view("=+-/%<>|&^?:!~[*").find(tok_.prev[0]) != std::string_view::npos &&
        !(tok_.prev == "*" && decl_context() != 0))
      return false;
    // A call's argument is no type (`mad24(float2)`), but for `sizeof(float)`.
    if (type_word(w) && (tok_.prev == "(" || tok_.prev == ",") && in_body() && open_.back().c == '(' &&
        !open_.back().call.group && !open_.back().for_header && open_.back().header == 0 &&
        !(tok_.prev == "(" && tok_.prev2 == "sizeof"))
      return false;
    // Statement keywords only where a statement can start.
    if (statement_keyword(w)) {
      if (!at_statement_start(tok_.prev)) return false;
      // break and continue only in a loop (break also in a switch), case
      // and default only in a switch.
      bool loop = stmt_.single_loop_depth >= 0, sw = false;
      for (const Open& o : open_) loop = loop || o.body.loop, sw = sw || o.body.is_switch;
      if (w == "break") return loop || sw;
      if (w == "continue") return loop;
      if (w == "case" || w == "default") return sw;
      if (w == "else") return stmt_.else_ok_depth == int(open_.size());
      return true;
    }
    // A kept variable name is used only once declared.
    if (t_->is_kept_name(w) && decl == 0 && !names_.visible.count(w)) return false;
    // A struct or typedef name only once this text defines it (or names it
    // after `struct`, or defines it now at file level).
    if (t_->is_user_type(w) && !names_.defined_types.count(w))
      return tok_.tag || (open_.empty() && tok_.prev != "(") || (!open_.empty() && open_.back().body.aggregate);
    return true;
  }
  if (!(lower_shape(w) || upper_shape(w))) return false;
  return generated_ok(w, complete, decl);
}

const CodeConstraint::Name* CodeConstraint::kind_of(const std::string& name) const {
  auto k = names_.kinds.find(name);
  return k != names_.kinds.end() && names_.visible.count(name) ? &k->second : nullptr;
}

void CodeConstraint::declare(const std::string& w) {
  names_.scopes.back().push_back(w);
  ++names_.visible[w];
}

void CodeConstraint::close_scope() {
  if (names_.scopes.size() <= 1) return;
  for (const std::string& n : names_.scopes.back())
    if (--names_.visible[n] == 0) names_.visible.erase(n);
  names_.scopes.pop_back();
}

void CodeConstraint::finish_word() {
  stmt_.expect_while = false;
  if (stmt_.body_end_pending && !lex_.word_field) {
    if (lex_.word == "else") stmt_.body_end_pending = false;
    else end_loop_bodies();
  }
  lex_.mode = Mode::kCode;
  if (expr_.assign_ctx == Ctx::kPointer && expr_.assign_depth == int(open_.size())) expr_.assign_ctx = Ctx::kAny;
  if (lex_.word == "case" || lex_.word == "default") stmt_.case_label = true;
  bool in_aggregate = !open_.empty() && open_.back().body.aggregate;
  bool declared_now = false;
  if (!lex_.word_field && !in_aggregate && t_->is_generated_name(lex_.word)) {
    if (std::isupper(static_cast<unsigned char>(lex_.word[0]))) {
      names_.functions.insert(lex_.word);
    } else {
      long i = generated_index(lex_.word);
      if (i > names_.max_lower) {
        names_.max_lower = i;
        refresh_fresh_names();
        declared_now = true;
        declare_variable(lex_.word);
      }
    }
  }
  // An operand's class, for the call that classes its operands (pointers
  // count once subscripted, builtins once their call closes).
  if (lex_.word_field)
    record(Cls::kUnknown);  // `p->x`, `v.x`: of a type the constraint does not
                            // track
  if (!lex_.word_field && !in_aggregate && !declared_now) record(word_class());
  if (!lex_.word_field && (lex_.word == "if" || lex_.word == "else")) {
    if_stmt_at(open_.size()) = lex_.word == "if";  // `else if` is an if-statement again; a plain else ends the chain
  }
  if (lex_.word == "const" || lex_.word == "__constant" || lex_.word == "constant") stmt_.const_seen = true;
  if (lex_.word == "do") stmt_.loop_body_pending = stmt_.do_pending = true;
  if (in_body() && open_.back().c == '{') {
    if (lex_.word == "__local" || lex_.word == "local") stmt_.local = true;
    if (lex_.word == "__global" || lex_.word == "global" || lex_.word == "__constant" || lex_.word == "constant")
      stmt_.global = true;
  }
  if (t_->is_user_type(lex_.word) && (tok_.tag || open_.empty())) names_.defined_types.insert(lex_.word);
  if (!lex_.word_field && !in_aggregate && t_->is_kept_name(lex_.word) && lex_.word_decl >= 1 &&
      !names_.visible.count(lex_.word))
    declare(lex_.word);
  if (open_.empty() && (lex_.word == "__kernel" || lex_.word == "kernel")) fn_.saw_kernel = true;
  if (fn_.in_params && open_.size() == 1 &&
      (lex_.word == "__global" || lex_.word == "global" || lex_.word == "__local" || lex_.word == "local" ||
       lex_.word == "__constant" || lex_.word == "constant"))
    fn_.param_space = true;
  if (lex_.word == "struct" || lex_.word == "union" || lex_.word == "enum") tok_.tag = true;
  push_token(lex_.word_field ? kFieldWord : lex_.word);
  tok_.field_next = false;
  lex_.word.clear();
}

}  // namespace clgen::sampler
