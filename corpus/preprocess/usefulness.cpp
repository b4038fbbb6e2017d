// The static usefulness check (usefulness.h): a flow-insensitive taint
// analysis per kernel over Clang's AST. Three taints are propagated through
// assignments to variables until nothing changes:
//   item       differs between work-items: get_global_id, get_local_id,
//              get_group_id, the result of an atomic, a call of the
//              program's own functions (not followed, so assumed);
//   loop       changes between loop iterations: variables assigned inside a
//              loop (its condition and increment included);
//   dependent  may depend on the input: a memory read (subscript, `*`,
//              `->`, a builtin given a pointer), item or loop taint.
// An assignment under a condition also takes the condition's taints
// (control dependence: `if (a[i] == 1) r++;` makes r dependent). Then every
// store to __global memory is classified by its address, its value and the
// conditions around it (an early return, break or continue under a
// condition counts for every store: the taints ignore order). Only the
// reachability of a store looks at order: what follows a statement that
// always returns in its block never runs.
#include "corpus/preprocess/usefulness.h"

#include <algorithm>
#include <memory>
#include <optional>
#include <set>
#include <vector>

#include <clang/AST/ASTConsumer.h>
#include <clang/AST/ASTContext.h>
#include <clang/AST/Attr.h>
#include <clang/AST/Expr.h>
#include <clang/AST/Stmt.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendAction.h>
#include <fmt/format.h>

#include "corpus/preprocess/conditions.h"
#include "corpus/preprocess/endless_loop.h"
#include "corpus/preprocess/frontend_internal.h"
#include "corpus/preprocess/index_bounds.h"
#include "corpus/preprocess/uninitialized.h"
#include "support/clang/crash_recovery.h"

namespace clgen::preprocess {
namespace {

using clang::dyn_cast;
using clang::isa;

const clang::Expr* strip(const clang::Expr* e) { return e ? e->IgnoreParenImpCasts() : nullptr; }

std::string callee_name(const clang::CallExpr* call) {
  const clang::FunctionDecl* fn = call->getDirectCallee();
  return fn ? fn->getNameAsString() : "";
}

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

bool is_id_call(const std::string& name) {
  return name == "get_global_id" || name == "get_local_id" || name == "get_group_id";
}
bool is_atomic_call(const std::string& name) { return starts_with(name, "atomic_") || starts_with(name, "atom_"); }
// A function of the program itself (not a builtin): its body is not followed.
bool is_program_function(const clang::CallExpr* call) {
  const clang::FunctionDecl* fn = call->getDirectCallee();
  return !fn || fn->hasBody();
}

bool points_to_global(clang::QualType t) {
  if (const auto* p = t->getAs<clang::PointerType>())
    return p->getPointeeType().getAddressSpace() == clang::LangAS::opencl_global;
  return false;
}

// kSure: differs between work-items for certain (a work-item id, through
// assignments only), what a race needs; kItem may differ (assumed where not
// followed), what keeps a store.
enum Taint { kItem = 0, kLoop = 1, kDependent = 2, kSure = 3 };

// A scalar argument the payload draws at random (floating point; integers
// are the global size in both payloads): an input.
bool is_random_scalar_parameter(const clang::ValueDecl* d) {
  if (!isa<clang::ParmVarDecl>(d)) return false;
  clang::QualType t = d->getType();
  if (const auto* v = t->getAs<clang::VectorType>()) t = v->getElementType();
  return t->isRealFloatingType();
}

class KernelAnalysis {
 public:
  explicit KernelAnalysis(const clang::FunctionDecl* fn) : fn_(fn) {}

  UsefulnessVerdict run() {
    // The assignments once, then propagate until no variable gains a taint.
    collect(fn_->getBody(), false);
    bool changed = true;
    while (changed) {
      changed = false;
      for (const Assignment& a : assignments_) {
        for (int t : {kItem, kLoop, kDependent, kSure}) {
          Taint taint = static_cast<Taint>(t);
          bool tainted = t == kSure ? a.value && has(a.value, taint)
                                    : (a.in_loop && t != kItem) || (a.value && has(a.value, taint)) ||
                                          std::any_of(a.guards.begin(), a.guards.end(),
                                                      [&](const clang::Expr* g) { return has(g, taint); });
          if (tainted && vars_[t].insert(a.var).second) changed = true;
        }
      }
    }
    stores_.clear();
    mark_jump_targets(fn_->getBody());
    classify(fn_->getBody());

    const std::string kernel = fn_->getNameAsString();
    UsefulnessVerdict v;
    if (unknown_store_) return v;
    // overlapping_stores: every work-item stores unconditionally to p[id + j]
    // and to p[id + k], j != k, so work-item i and work-item i + j - k
    // write one location, in no defined order.
    if (!item_exit_)
      for (const Store& a : stores_)
        for (const Store& b : stores_)
          if (a.id_base && a.id_base == b.id_base && a.id_offset < b.id_offset && b.id_offset - a.id_offset < 4096) {
            v.useful = false;
            v.category = "overlapping_stores";
            v.reason = fmt::format(
                "kernel {}: every work-item stores to {}[{}] and to {}[{}] (id: get_global_id(0)), so "
                "neighbouring work-items write one location in no defined order",
                kernel, a.id_base->getNameAsString(), id_plus(a.id_offset), b.id_base->getNameAsString(),
                id_plus(b.id_offset));
            return v;
          }
    if (stores_.empty()) {
      v.useful = false;
      v.category = "no_global_store";
      v.reason = "kernel " + kernel + " never writes __global memory";
      return v;
    }
    // uniform_store_address: every store provably goes wrong for all
    // work-items at one location: a race of different values, or an index
    // that is a bare scalar argument (the payload sets scalars to the global
    // size, one past the buffer). Every work-item writing the same value to
    // one place is kept: it is deterministic and may pass.
    bool all_wrong_at_one_place = true, any_dependent_value = false;
    for (const Store& s : stores_) {
      bool one_place = !s.atomic && !s.varying_address && !s.item_guarded && !item_exit_;
      all_wrong_at_one_place &= one_place && (s.racy_value || s.scalar_index);
      any_dependent_value |= s.dependent_value || s.dependent_guarded || dependent_exit_;
    }
    if (all_wrong_at_one_place) {
      v.useful = false;
      v.category = "uniform_store_address";
      v.reason = fmt::format(
          "kernel {}: all {} __global stores write one location for every work-item (different values, or "
          "an index that is a scalar argument)",
          kernel, stores_.size());
    } else if (!any_dependent_value) {
      v.useful = false;
      v.category = "constant_store_value";
      v.reason =
          fmt::format("kernel {}: all {} __global stores write values that depend on no input, work-item id or loop",
                      kernel, stores_.size());
    } else if (std::all_of(stores_.begin(), stores_.end(),
                           [](const Store& s) { return s.dead || s.self_copy || s.past_end; })) {
      // no_effective_store (checked last, so the earlier versions' verdicts
      // keep their categories): every store copies a location onto itself,
      // sits where control never reaches (`if (e < e)`), or writes past the
      // end of its buffer for every work-item: memory never changes.
      v.useful = false;
      v.category = "no_effective_store";
      v.reason = fmt::format(
          "kernel {}: all {} __global stores copy a location onto itself, cannot be reached, or write past the end "
          "of their buffer for every work-item (S items, S elements, integer scalars S)",
          kernel, stores_.size());
    }
    return v;
  }

 private:
  struct Assignment {
    const clang::VarDecl* var;
    const clang::Expr* value;  // nullptr: tainted only by the loop and guards (++, --)
    bool in_loop;
    std::vector<const clang::Expr*> guards;  // enclosing conditions
  };
  struct Store {
    bool atomic = false;
    bool varying_address = false;    // item or loop taint in the address
    bool item_guarded = false;       // under a condition with item taint
    bool dependent_guarded = false;  // under a condition with dependent taint
    bool dependent_value = false;
    bool racy_value = false;    // the value has item taint
    bool scalar_index = false;  // a[d] with d an integer scalar argument
    bool dead = false;          // under a condition that is always false
    bool self_copy = false;     // a[i] = a[i]
    bool past_end = false;      // a[i] with i >= S for every work-item (index_bounds.h)
    // An unconditional store `p[id + k]` (id: get_global_id(0), directly or
    // through a variable assigned only that): p and k, for overlapping_stores.
    const clang::ValueDecl* id_base = nullptr;
    int64_t id_offset = 0;
  };

  static std::string id_plus(int64_t k) {
    return k == 0 ? "id" : fmt::format("id {} {}", k < 0 ? '-' : '+', k < 0 ? -k : k);
  }
  // Whether `e` is get_global_id(0), directly or through a variable whose
  // one assignment is its initializer get_global_id(0).
  bool is_global_id0(const clang::Expr* e) const {
    e = strip(e);
    if (const auto* call = dyn_cast<clang::CallExpr>(e)) {
      if (callee_name(call) != "get_global_id" || call->getNumArgs() != 1) return false;
      clang::Expr::EvalResult r;
      return call->getArg(0)->EvaluateAsInt(r, fn_->getASTContext()) && r.Val.getInt() == 0;
    }
    const auto* ref = dyn_cast<clang::DeclRefExpr>(e);
    const auto* var = ref ? dyn_cast<clang::VarDecl>(ref->getDecl()) : nullptr;
    if (!var || vars_[kLoop].count(var)) return false;
    int assigned = 0;
    const clang::Expr* value = nullptr;
    for (const Assignment& a : assignments_)
      if (a.var == var) ++assigned, value = a.value;
    return assigned == 1 && value == var->getInit() && value && is_global_id0(value);
  }
  // `id + k`, `k + id`, `id - k` or `id` with an integer constant k.
  std::optional<int64_t> global_id_offset(const clang::Expr* idx) const {
    idx = strip(idx);
    if (is_global_id0(idx)) return 0;
    const auto* b = dyn_cast<clang::BinaryOperator>(idx);
    if (!b || (b->getOpcode() != clang::BO_Add && b->getOpcode() != clang::BO_Sub)) return std::nullopt;
    clang::Expr::EvalResult r;
    const clang::ASTContext& ctx = fn_->getASTContext();
    if (is_global_id0(b->getLHS()) && b->getRHS()->EvaluateAsInt(r, ctx))
      return b->getOpcode() == clang::BO_Add ? r.Val.getInt().getExtValue() : -r.Val.getInt().getExtValue();
    if (b->getOpcode() == clang::BO_Add && is_global_id0(b->getRHS()) && b->getLHS()->EvaluateAsInt(r, ctx))
      return r.Val.getInt().getExtValue();
    return std::nullopt;
  }

  bool same_expression(const clang::Expr* a, const clang::Expr* b) const {
    return internal::same_expression(a, b, fn_->getASTContext());
  }
  bool always_false(const clang::Expr* e) const { return internal::always_false(e, fn_->getASTContext()); }
  bool always_true(const clang::Expr* e) const { return internal::always_true(e, fn_->getASTContext()); }

  // True when `child` of `s` runs only if an always-false condition holds
  // (the else of an always-true one).
  bool dead_branch(const clang::Stmt* s, const clang::Stmt* child) const {
    if (has_jump_target(child)) return false;  // a goto or a case may land inside
    if (const auto* i = dyn_cast<clang::IfStmt>(s)) {
      return (child == i->getThen() && always_false(i->getCond())) ||
             (child && child == i->getElse() && always_true(i->getCond()));
    }
    if (const auto* w = dyn_cast<clang::WhileStmt>(s)) return child == w->getBody() && always_false(w->getCond());
    if (const auto* f = dyn_cast<clang::ForStmt>(s))
      return (child == f->getBody() || child == f->getInc()) && f->getCond() && always_false(f->getCond());
    return false;
  }

  // True when `s` returns from the kernel whenever it runs: `return`, a
  // block holding such a statement, an `if` whose taken branches all return;
  // never when a goto or a case may land inside it and carry on past it.
  bool always_returns(const clang::Stmt* s) const {
    if (!s || has_jump_target(s)) return false;
    if (isa<clang::ReturnStmt>(s)) return true;
    if (const auto* block = dyn_cast<clang::CompoundStmt>(s))
      return std::any_of(block->body_begin(), block->body_end(),
                         [&](const clang::Stmt* c) { return always_returns(c); });
    if (const auto* i = dyn_cast<clang::IfStmt>(s)) {
      bool then_returns = always_returns(i->getThen()), else_returns = always_returns(i->getElse());
      return (then_returns && else_returns) || (then_returns && always_true(i->getCond())) ||
             (else_returns && always_false(i->getCond()));
    }
    return false;
  }
  // True when a jump may land inside `s`: a label or a case of a switch.
  bool has_jump_target(const clang::Stmt* s) const { return s && jump_targets_.count(s) > 0; }
  // Fills jump_targets_ with `s` and every statement around a label or a
  // case in it, in one walk, so has_jump_target is a lookup. Returns
  // whether `s` holds one.
  bool mark_jump_targets(const clang::Stmt* s) {
    if (!s) return false;
    bool holds = isa<clang::LabelStmt>(s) || isa<clang::SwitchCase>(s);
    for (const clang::Stmt* child : s->children()) holds |= mark_jump_targets(child);
    if (holds) jump_targets_.insert(s);
    return holds;
  }

  // The condition that decides whether (or how often) the children of `s` run.
  static const clang::Expr* condition_of(const clang::Stmt* s) {
    if (const auto* i = dyn_cast<clang::IfStmt>(s)) return i->getCond();
    if (const auto* w = dyn_cast<clang::WhileStmt>(s)) return w->getCond();
    if (const auto* f = dyn_cast<clang::ForStmt>(s)) return f->getCond();
    if (const auto* d = dyn_cast<clang::DoStmt>(s)) return d->getCond();
    if (const auto* sw = dyn_cast<clang::SwitchStmt>(s)) return sw->getCond();
    if (const auto* c = dyn_cast<clang::ConditionalOperator>(s)) return c->getCond();
    if (const auto* b = dyn_cast<clang::BinaryOperator>(s); b && b->isLogicalOp()) return b->getLHS();
    return nullptr;
  }
  bool any_has(Taint t) const {
    return std::any_of(conds_.begin(), conds_.end(), [&](const clang::Expr* c) { return has(c, t); });
  }

  // Whether `e` carries taint `t`.
  bool has(const clang::Stmt* s, Taint t) const {
    if (!s) return false;
    if (const auto* ref = dyn_cast<clang::DeclRefExpr>(s)) {
      if (t == kDependent && is_random_scalar_parameter(ref->getDecl())) return true;
      if (const auto* var = dyn_cast<clang::VarDecl>(ref->getDecl())) return vars_[t].count(var) > 0;
      return false;
    }
    if (const auto* call = dyn_cast<clang::CallExpr>(s)) {
      std::string name = callee_name(call);
      if (t == kSure && is_id_call(name)) return true;
      if ((t == kItem || t == kDependent) && (is_id_call(name) || is_atomic_call(name) || is_program_function(call)))
        return true;
      if (t == kDependent)
        for (const clang::Expr* arg : call->arguments())
          if (strip(arg)->getType()->isPointerType()) return true;  // vload, ...: reads memory
    }
    if (t == kDependent) {
      if (isa<clang::ArraySubscriptExpr>(s)) return true;
      if (const auto* u = dyn_cast<clang::UnaryOperator>(s); u && u->getOpcode() == clang::UO_Deref) return true;
      if (const auto* m = dyn_cast<clang::MemberExpr>(s); m && m->isArrow()) return true;
    }
    for (const clang::Stmt* child : s->children())
      if (has(child, t)) return true;
    return false;
  }

  // The variable an lvalue names when it is a plain variable (or an element
  // of a private array variable), else nullptr.
  static const clang::VarDecl* variable_of(const clang::Expr* lhs) {
    lhs = strip(lhs);
    while (true) {
      if (const auto* sub = dyn_cast<clang::ArraySubscriptExpr>(lhs)) {
        clang::QualType base = strip(sub->getBase())->getType();
        if (!base->isArrayType() && !base->isVectorType()) return nullptr;  // through a pointer
        lhs = strip(sub->getBase());
      } else if (const auto* m = dyn_cast<clang::MemberExpr>(lhs); m && !m->isArrow()) {
        lhs = strip(m->getBase());
      } else if (const auto* v = dyn_cast<clang::ExtVectorElementExpr>(lhs)) {
        lhs = strip(v->getBase());
      } else {
        break;
      }
    }
    if (const auto* ref = dyn_cast<clang::DeclRefExpr>(lhs)) return dyn_cast<clang::VarDecl>(ref->getDecl());
    return nullptr;
  }

  // The pointer expression a memory lvalue goes through (a[i], *p, p->x,
  // a[i].x), or nullptr when it is not a store through a pointer.
  static const clang::Expr* pointer_of(const clang::Expr* lhs) {
    lhs = strip(lhs);
    while (true) {
      if (const auto* m = dyn_cast<clang::MemberExpr>(lhs)) {
        if (m->isArrow()) return strip(m->getBase());
        lhs = strip(m->getBase());
      } else if (const auto* v = dyn_cast<clang::ExtVectorElementExpr>(lhs)) {
        lhs = strip(v->getBase());
      } else if (const auto* sub = dyn_cast<clang::ArraySubscriptExpr>(lhs);
                 sub && strip(sub->getBase())->getType()->isVectorType()) {
        lhs = strip(sub->getBase());  // an element of a vector (`b[c][2]`)
      } else {
        break;
      }
    }
    if (const auto* sub = dyn_cast<clang::ArraySubscriptExpr>(lhs)) {
      const clang::Expr* base = strip(sub->getBase());
      return base->getType()->isPointerType() ? base : nullptr;
    }
    if (const auto* u = dyn_cast<clang::UnaryOperator>(lhs); u && u->getOpcode() == clang::UO_Deref)
      return strip(u->getSubExpr());
    return nullptr;
  }

  // Pass 1: every assignment to a variable, and whether it is in a loop.
  void collect(const clang::Stmt* s, bool in_loop) {
    if (!s) return;
    const clang::Expr* condition = condition_of(s);
    if (isa<clang::ForStmt>(s) || isa<clang::WhileStmt>(s) || isa<clang::DoStmt>(s)) {
      const auto* f = dyn_cast<clang::ForStmt>(s);
      if (f) collect(f->getInit(), in_loop);  // runs once
      for (const clang::Stmt* child : s->children()) {
        if (f && child == f->getInit()) continue;
        bool push = condition && child != condition;
        if (push) conds_.push_back(condition);
        collect(child, true);
        if (push) conds_.pop_back();
      }
      return;
    }
    if (const auto* decl = dyn_cast<clang::DeclStmt>(s)) {
      for (const clang::Decl* d : decl->decls())
        if (const auto* var = dyn_cast<clang::VarDecl>(d); var && var->hasInit())
          assignments_.push_back({var, var->getInit(), in_loop, conds_});
    } else if (const auto* bin = dyn_cast<clang::BinaryOperator>(s); bin && bin->isAssignmentOp()) {
      if (const clang::VarDecl* var = variable_of(bin->getLHS())) {
        assignments_.push_back({var, bin->getRHS(), in_loop, conds_});
        // An element of a private array written at a tainted index.
        if (!isa<clang::DeclRefExpr>(strip(bin->getLHS())))
          assignments_.push_back({var, bin->getLHS(), in_loop, conds_});
      }
    } else if (const auto* u = dyn_cast<clang::UnaryOperator>(s); u && u->isIncrementDecrementOp()) {
      if (const clang::VarDecl* var = variable_of(u->getSubExpr()))
        assignments_.push_back({var, nullptr, in_loop, conds_});
    } else if (const auto* u = dyn_cast<clang::UnaryOperator>(s); u && u->getOpcode() == clang::UO_AddrOf) {
      // Written through a pointer we do not follow: assume every taint but
      // the certain one.
      if (const clang::VarDecl* var = variable_of(u->getSubExpr()))
        for (int t : {kItem, kLoop, kDependent}) vars_[t].insert(var);
    }
    for (const clang::Stmt* child : s->children()) {
      bool push = condition && child != condition;
      if (push) conds_.push_back(condition);
      collect(child, in_loop);
      if (push) conds_.pop_back();
    }
  }

  // Pass 2: the __global stores, with the conditions around them.
  void classify(const clang::Stmt* s) {
    if (!s) return;
    if (isa<clang::ReturnStmt>(s) || isa<clang::BreakStmt>(s) || isa<clang::ContinueStmt>(s)) {
      item_exit_ |= any_has(kItem);
      dependent_exit_ |= any_has(kDependent);
    }
    if (const auto* bin = dyn_cast<clang::BinaryOperator>(s); bin && bin->isAssignmentOp()) {
      add_store(bin->getLHS(), bin->getOpcode() == clang::BO_Assign ? bin->getRHS() : nullptr);
    } else if (const auto* u = dyn_cast<clang::UnaryOperator>(s); u && u->isIncrementDecrementOp()) {
      add_store(u->getSubExpr(), nullptr);
    } else if (const auto* call = dyn_cast<clang::CallExpr>(s)) {
      add_call(call);
    }
    if (const auto* block = dyn_cast<clang::CompoundStmt>(s)) {
      // What follows a statement that always returns never runs, unless a
      // jump (goto, a case of a switch) lands there.
      bool after_return = false;
      for (const clang::Stmt* child : block->body()) {
        if (after_return && has_jump_target(child)) after_return = false;
        dead_ += after_return;
        classify(child);
        dead_ -= after_return;
        after_return = after_return || always_returns(child);
      }
      return;
    }
    const clang::Expr* condition = condition_of(s);
    for (const clang::Stmt* child : s->children()) {
      bool push = condition && child != condition;
      bool dead = dead_branch(s, child);
      if (push) conds_.push_back(condition);
      dead_ += dead;
      classify(child);
      dead_ -= dead;
      if (push) conds_.pop_back();
    }
  }

  // `value` nullptr: a read-modify-write (compound assignment, ++, --),
  // which depends on the memory it reads.
  void add_store(const clang::Expr* lhs, const clang::Expr* value) {
    const clang::Expr* pointer = pointer_of(lhs);
    if (!pointer) return;
    clang::QualType t = pointer->getType();
    if (!t->isPointerType()) return;
    if (!points_to_global(t)) {
      // A store through a pointer of another space is not output; a cast
      // or generic pointer we cannot place counts as unknown.
      clang::LangAS as = t->getPointeeType().getAddressSpace();
      if (as != clang::LangAS::opencl_local && as != clang::LangAS::opencl_private &&
          as != clang::LangAS::opencl_constant && as != clang::LangAS::Default)
        unknown_store_ = true;
      return;
    }
    Store st = guarded_store();
    st.varying_address = has(lhs, kItem) || has(lhs, kLoop);
    st.dependent_value = !value || has(value, kDependent);
    st.racy_value = value && has(value, kSure);
    st.self_copy = value && same_expression(lhs, value);
    st.past_end = past_end(lhs);
    if (const auto* sub = dyn_cast<clang::ArraySubscriptExpr>(strip(lhs)))
      if (const auto* ref = dyn_cast<clang::DeclRefExpr>(strip(sub->getIdx())))
        st.scalar_index = isa<clang::ParmVarDecl>(ref->getDecl()) && ref->getType()->isIntegerType();
    if (const auto* sub = dyn_cast<clang::ArraySubscriptExpr>(strip(lhs)); sub && conds_.empty() && !st.dead)
      if (const auto* base = dyn_cast<clang::DeclRefExpr>(strip(sub->getBase()));
          base && isa<clang::ParmVarDecl>(base->getDecl()))
        if (auto k = global_id_offset(sub->getIdx())) {
          st.id_base = base->getDecl();
          st.id_offset = *k;
        }
    stores_.push_back(st);
  }

  // True when `lhs` (a[i], a[i].x) indexes a buffer argument at an index
  // that is at least S for every work-item under the checker's payload.
  bool past_end(const clang::Expr* lhs) {
    lhs = strip(lhs);
    while (true) {
      if (const auto* m = dyn_cast<clang::MemberExpr>(lhs); m && !m->isArrow()) lhs = strip(m->getBase());
      else if (const auto* v = dyn_cast<clang::ExtVectorElementExpr>(lhs)) lhs = strip(v->getBase());
      else break;
    }
    const auto* sub = dyn_cast<clang::ArraySubscriptExpr>(lhs);
    if (!sub) return false;
    const auto* base = dyn_cast<clang::DeclRefExpr>(strip(sub->getBase()));
    if (!base || !isa<clang::ParmVarDecl>(base->getDecl())) return false;
    if (!bounds_) bounds_ = std::make_unique<internal::IndexBounds>(fn_);
    return bounds_->at_least_s(sub->getIdx());
  }

  Store guarded_store() const {
    Store st;
    st.dead = dead_ > 0;
    st.item_guarded = any_has(kItem);
    st.dependent_guarded = any_has(kDependent);
    return st;
  }

  void add_call(const clang::CallExpr* call) {
    std::string name = callee_name(call);
    if (starts_with(name, "write_image")) {
      unknown_store_ = true;  // an image is output, but not memory the check follows
      return;
    }
    bool global_pointer_arg = false, indirect_arg = false;
    for (const clang::Expr* arg : call->arguments()) {
      clang::QualType t = strip(arg)->getType();
      global_pointer_arg |= points_to_global(t);
      indirect_arg |= t->isPointerType() || t->isRecordType();
    }
    // The program's own function given a pointer or a struct may store
    // through a global pointer it reaches (`s.ptr = a; F(&s);`).
    if (is_program_function(call) && indirect_arg) {
      unknown_store_ = true;
      return;
    }
    if (!global_pointer_arg) return;
    if (is_atomic_call(name)) {
      Store st = guarded_store();
      st.atomic = true;
      st.dependent_value = true;
      stores_.push_back(st);
    } else if (starts_with(name, "vstore") && call->getNumArgs() == 3) {
      Store st = guarded_store();
      st.varying_address = has(call->getArg(1), kItem) || has(call->getArg(1), kLoop) || has(call->getArg(2), kItem) ||
                           has(call->getArg(2), kLoop);
      st.dependent_value = has(call->getArg(0), kDependent);
      st.racy_value = has(call->getArg(0), kSure);
      stores_.push_back(st);
    } else if (is_program_function(call) || starts_with(name, "async_work_group")) {
      unknown_store_ = true;  // may store; not followed
    }
    // Other builtins given a global pointer (vload, prefetch, ...) read it.
  }

  const clang::FunctionDecl* fn_;
  std::set<const clang::VarDecl*> vars_[4];
  std::vector<Assignment> assignments_;
  std::vector<Store> stores_;
  bool unknown_store_ = false;
  std::unique_ptr<internal::IndexBounds> bounds_;  // built at the first store that needs it
  int dead_ = 0;                           // always-false conditions around the statement visited
  std::set<const clang::Stmt*> jump_targets_;  // statements holding a label or a case (mark_jump_targets)
  std::vector<const clang::Expr*> conds_;  // enclosing conditions of the statement visited
  bool item_exit_ = false;                 // a return, break or continue under an item-tainted condition
  bool dependent_exit_ = false;            // ... under a dependent condition
};

class UsefulnessConsumer : public clang::ASTConsumer {
 public:
  explicit UsefulnessConsumer(std::vector<UsefulnessVerdict>* out) : out_(out) {}
  void HandleTranslationUnit(clang::ASTContext& ctx) override {
    for (const clang::Decl* d : ctx.getTranslationUnitDecl()->decls()) {
      const auto* fn = dyn_cast<clang::FunctionDecl>(d);
      if (!fn || !fn->hasAttr<clang::OpenCLKernelAttr>() || !fn->doesThisDeclarationHaveABody()) continue;
      // An undefined value makes whatever the kernel stores undefined too.
      if (auto read = internal::uninitialized_read(*fn, ctx)) {
        out_->push_back({false, "uninitialized_read", "kernel " + fn->getNameAsString() + ": " + *read});
        continue;
      }
      // A loop that can never end holds the device until the checker's time-out.
      if (auto loop = internal::endless_loop(*fn, ctx)) {
        out_->push_back({false, "endless_loop", "kernel " + fn->getNameAsString() + ": " + *loop});
        continue;
      }
      out_->push_back(KernelAnalysis(fn).run());
    }
  }

 private:
  std::vector<UsefulnessVerdict>* out_;
};

class UsefulnessAction : public clang::ASTFrontendAction {
 public:
  explicit UsefulnessAction(std::vector<UsefulnessVerdict>* out) : out_(out) {}

 protected:
  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance&, llvm::StringRef) override {
    return std::make_unique<UsefulnessConsumer>(out_);
  }

 private:
  std::vector<UsefulnessVerdict>* out_;
};

}  // namespace

Expected<UsefulnessVerdict> check_usefulness(std::string_view text, const CompileOptions& options) {
  if (text.size() > kMaxInputBytes)
    return invalid_argument(
        fmt::format("usefulness check: input of {} bytes exceeds the limit of {}", text.size(), kMaxInputBytes));
  std::vector<UsefulnessVerdict> kernels;
  std::string setup_error, error;
  bool parsed = false;
  bool safe = clang_support::run_with_crash_recovery([&] {
    internal::ErrorCollector errors(1);
    auto ci = internal::make_instance(text, options, internal::Mode::kSyntax, errors, setup_error);
    if (!ci) return;
    UsefulnessAction action(&kernels);
    parsed = ci->ExecuteAction(action) && !ci->getDiagnostics().hasErrorOccurred();
    if (!parsed) error = errors.errors().empty() ? "parsing failed" : errors.errors().front().message;
  });
  if (!safe) return internal_error("usefulness check: Clang crashed");
  if (!setup_error.empty()) return internal_error("usefulness check: " + setup_error);
  if (!parsed) return parse_error("usefulness check: " + error);
  if (kernels.empty()) return UsefulnessVerdict{false, "no_global_store", "the text defines no kernel"};
  for (const UsefulnessVerdict& v : kernels)
    if (v.useful) return v;
  return kernels.front();
}

}  // namespace clgen::preprocess
