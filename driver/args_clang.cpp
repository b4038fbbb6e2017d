// Kernel argument analysis with the Clang 15 front end (clgen_clang's
// set-up): parses the source in memory as OpenCL C 1.2 and walks each
// kernel's AST to find how every pointer argument is used, under LLVM's crash
// recovery. Clang stays private to this file.
#include <clang/AST/ASTContext.h>
#include <clang/AST/Expr.h>
#include <clang/AST/ParentMapContext.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Frontend/ASTUnit.h>
#include <clang/Tooling/Tooling.h>

#include <map>
#include <optional>

#include "driver/args.h"
#include "support/clang/builtin_files.h"
#include "support/clang/crash_recovery.h"
#include "support/clang/diagnostics.h"
#include "support/clang/invocation.h"
#include "support/utf8.h"

namespace clgen::driver {

namespace {

// Bytes of one element of a `void*` buffer: room at each index for the
// vector or small struct a kernel casts it to (up to a float16).
constexpr int kVoidElementBytes = 64;

// Fills kind/size/width from a scalar or vector type; false with a reason otherwise.
bool describe_element(clang::QualType type, ArgInfo& arg) {
  type = type.getCanonicalType().getUnqualifiedType();
  int width = 1;
  if (const auto* vec = type->getAs<clang::ExtVectorType>()) {
    width = static_cast<int>(vec->getNumElements());
    type = vec->getElementType().getCanonicalType();
  }
  const auto* builtin = type->getAs<clang::BuiltinType>();
  if (!builtin) {
    arg.unsupported_reason = type->isRecordType() ? "struct or union" : "unsupported type";
    return false;
  }
  ScalarKind kind;
  int size;
  switch (builtin->getKind()) {
    case clang::BuiltinType::Char_S:
    case clang::BuiltinType::SChar: kind = ScalarKind::kSigned; size = 1; break;
    case clang::BuiltinType::Char_U:
    case clang::BuiltinType::UChar: kind = ScalarKind::kUnsigned; size = 1; break;
    case clang::BuiltinType::Short: kind = ScalarKind::kSigned; size = 2; break;
    case clang::BuiltinType::UShort: kind = ScalarKind::kUnsigned; size = 2; break;
    case clang::BuiltinType::Int: kind = ScalarKind::kSigned; size = 4; break;
    case clang::BuiltinType::UInt: kind = ScalarKind::kUnsigned; size = 4; break;
    case clang::BuiltinType::Long: kind = ScalarKind::kSigned; size = 8; break;
    case clang::BuiltinType::ULong: kind = ScalarKind::kUnsigned; size = 8; break;
    case clang::BuiltinType::Float: kind = ScalarKind::kFloat; size = 4; break;
    case clang::BuiltinType::Double: kind = ScalarKind::kFloat; size = 8; break;
    case clang::BuiltinType::Half: arg.unsupported_reason = "half"; return false;
    case clang::BuiltinType::Bool: arg.unsupported_reason = "bool"; return false;
    default: arg.unsupported_reason = "unsupported type"; return false;
  }
  arg.kind = kind;
  arg.element_size = size;
  arg.vector_width = width;
  return true;
}

// A complete struct or union: fed as its bytes on the spir64 target, where
// OpenCL C lays it out as every device does.
bool describe_record(clang::QualType type, const clang::ASTContext& ctx, ArgInfo& arg) {
  const auto* record = type->getAs<clang::RecordType>();
  if (!record || !record->getDecl()->getDefinition()) {
    arg.unsupported_reason = "incomplete struct or union";
    return false;
  }
  const int64_t bytes = ctx.getTypeSizeInChars(type).getQuantity();
  if (bytes <= 0 || bytes > (1 << 16)) {
    arg.unsupported_reason = "struct or union of " + std::to_string(bytes) + " bytes";
    return false;
  }
  arg.kind = ScalarKind::kUnsigned;
  arg.element_size = 1;
  arg.vector_width = 1;
  arg.record_bytes = int(bytes);
  return true;
}

// The shape of an image type the driver feeds; nothing for others (1-D
// images, buffers of images, depth and multisample images).
std::optional<ImageShape> image_shape(clang::QualType type) {
  if (type->isOCLImage2dROType() || type->isOCLImage2dWOType() || type->isOCLImage2dRWType()) return ImageShape::k2d;
  if (type->isOCLImage3dROType() || type->isOCLImage3dWOType() || type->isOCLImage3dRWType()) return ImageShape::k3d;
  if (type->isOCLImage2dArrayROType() || type->isOCLImage2dArrayWOType() || type->isOCLImage2dArrayRWType())
    return ImageShape::k2dArray;
  return std::nullopt;
}

ArgInfo describe_param(const clang::ParmVarDecl* param, const clang::PrintingPolicy& policy,
                       const clang::ASTContext& ctx) {
  ArgInfo arg;
  arg.name = param->getNameAsString();
  clang::QualType type = param->getType();
  arg.type = type.getAsString(policy);
  if (std::optional<ImageShape> shape = image_shape(type)) {
    // RGBA texels of 4-byte channels, float until a builtin call says
    // otherwise (UsageVisitor); the access qualifier says read or write.
    arg.image = true;
    arg.image_shape = *shape;
    arg.kind = ScalarKind::kFloat;
    arg.element_size = 4;
    arg.vector_width = 4;
    arg.address_space = AddressSpace::kGlobal;
    arg.reads = !(type->isOCLImage2dWOType() || type->isOCLImage3dWOType() || type->isOCLImage2dArrayWOType());
    arg.writes = !(type->isOCLImage2dROType() || type->isOCLImage3dROType() || type->isOCLImage2dArrayROType());
  } else if (type->isImageType()) {
    arg.supported = false;
    arg.unsupported_reason = "image other than image2d_t, image3d_t and image2d_array_t";
  } else if (type->isSamplerT()) {
    arg.sampler = true;
  } else if (type->isPipeType()) {
    arg.supported = false;
    arg.unsupported_reason = "pipe";
  } else if (type->isPointerType()) {
    arg.is_pointer = true;
    clang::QualType pointee = type->getPointeeType();
    switch (pointee.getAddressSpace()) {
      case clang::LangAS::opencl_global: arg.address_space = AddressSpace::kGlobal; break;
      case clang::LangAS::opencl_constant: arg.address_space = AddressSpace::kConstant; break;
      case clang::LangAS::opencl_local: arg.address_space = AddressSpace::kLocal; break;
      default: arg.address_space = AddressSpace::kPrivate; break;
    }
    arg.is_const = pointee.isConstQualified() || arg.address_space == AddressSpace::kConstant;
    clang::QualType element = pointee.getCanonicalType();
    const auto* builtin = element->getAs<clang::BuiltinType>();
    if (element->isRecordType()) {
      if (!describe_record(element, ctx, arg)) arg.supported = false;
    } else if (builtin && builtin->getKind() == clang::BuiltinType::Half) {
      arg.kind = ScalarKind::kUnsigned;
      arg.element_size = 2;
      arg.half = true;
    } else if (element->isVoidType()) {
      // An untyped buffer the kernel casts (`(global T*)p`): raw bytes, as
      // many an element as the largest record the driver feeds.
      arg.kind = ScalarKind::kUnsigned;
      arg.element_size = 1;
      arg.vector_width = 1;
      arg.record_bytes = kVoidElementBytes;
      if (arg.address_space == AddressSpace::kPrivate) {
        arg.supported = false;
        arg.unsupported_reason = "private pointer";
      }
    } else if (element->isPointerType()) {
      arg.supported = false;
      arg.unsupported_reason = "pointer to pointer";
    } else if (!describe_element(element, arg)) {
      arg.supported = false;
    } else if (arg.address_space == AddressSpace::kPrivate) {
      arg.supported = false;
      arg.unsupported_reason = "private pointer";
    }
  } else {
    arg.address_space = AddressSpace::kPrivate;
    arg.is_const = type.isConstQualified();
    if (type.getCanonicalType()->isRecordType()) {
      if (!describe_record(type.getCanonicalType(), ctx, arg)) arg.supported = false;
    } else if (!describe_element(type, arg)) {
      arg.supported = false;
    }
  }
  return arg;
}

// Finds how the kernel uses each pointer parameter.
class UsageVisitor : public clang::RecursiveASTVisitor<UsageVisitor> {
 public:
  UsageVisitor(clang::ASTContext& ctx, std::map<const clang::ParmVarDecl*, ArgInfo*> params)
      : ctx_(ctx), params_(std::move(params)) {}

  bool VisitDeclRefExpr(clang::DeclRefExpr* ref) {
    const auto* parm = llvm::dyn_cast<clang::ParmVarDecl>(ref->getDecl());
    auto it = params_.find(parm);
    if (it == params_.end()) return true;
    if (it->second->image) classify_image_use(ref, *it->second);
    if (!it->second->is_pointer) return true;
    classify_pointer_use(ref, *it->second);
    return true;
  }

 private:
  const clang::Stmt* parent_of(const clang::Stmt* s, bool& is_decl) {
    is_decl = false;
    auto parents = ctx_.getParents(*s);
    if (parents.empty()) return nullptr;
    if (const auto* p = parents[0].get<clang::Stmt>()) return p;
    is_decl = parents[0].get<clang::Decl>() != nullptr;
    return nullptr;
  }

  static const clang::Expr* strip(const clang::Expr* e) { return e->IgnoreParenImpCasts(); }

  // `ptr` is a pointer-valued expression derived from the parameter; follow
  // it up through casts and pointer arithmetic to the access.
  void classify_pointer_use(const clang::Expr* ptr, ArgInfo& arg) {
    const clang::Stmt* cur = ptr;
    while (true) {
      bool is_decl;
      const clang::Stmt* p = parent_of(cur, is_decl);
      if (!p) {  // initialises a variable (alias) or something unknown
        mark_both(arg);
        return;
      }
      if (llvm::isa<clang::ParenExpr>(p) || llvm::isa<clang::ImplicitCastExpr>(p) ||
          llvm::isa<clang::CStyleCastExpr>(p)) {
        cur = p;
        continue;
      }
      if (const auto* bin = llvm::dyn_cast<clang::BinaryOperator>(p)) {
        if (bin->isAdditiveOp() && bin->getType()->isPointerType()) {
          cur = p;
          continue;
        }
        if (bin->isComparisonOp() || bin->isLogicalOp()) return;  // null checks, bounds
        if (bin->getOpcode() == clang::BO_Sub) return;             // pointer difference
        mark_both(arg);  // assigned to an alias, comma, ...
        return;
      }
      if (const auto* sub = llvm::dyn_cast<clang::ArraySubscriptExpr>(p)) {
        if (strip(sub->getBase()) == strip(llvm::cast<clang::Expr>(cur)) ||
            sub->getBase() == cur) {
          classify_access(sub, arg);
        }
        return;  // a pointer used as an index is not an access
      }
      if (const auto* un = llvm::dyn_cast<clang::UnaryOperator>(p)) {
        if (un->getOpcode() == clang::UO_Deref) {
          classify_access(un, arg);
          return;
        }
        if (un->getOpcode() == clang::UO_LNot) return;
        mark_both(arg);  // ++p, &p: the pointer escapes or moves
        return;
      }
      if (const auto* call = llvm::dyn_cast<clang::CallExpr>(p)) {
        classify_call(call, arg);
        return;
      }
      if (llvm::isa<clang::ConditionalOperator>(p)) {
        const auto* cond = llvm::cast<clang::ConditionalOperator>(p);
        if (cond->getCond() == cur) return;
        cur = p;
        continue;
      }
      if (llvm::isa<clang::IfStmt>(p) || llvm::isa<clang::WhileStmt>(p)) return;
      mark_both(arg);
      return;
    }
  }

  // `lvalue` designates memory the parameter points to.
  void classify_access(const clang::Expr* lvalue, ArgInfo& arg) {
    const clang::Stmt* cur = lvalue;
    while (true) {
      bool is_decl;
      const clang::Stmt* p = parent_of(cur, is_decl);
      if (!p) {
        arg.reads = true;  // initialiser of a local variable
        return;
      }
      if (const auto* cast = llvm::dyn_cast<clang::ImplicitCastExpr>(p)) {
        if (cast->getCastKind() == clang::CK_LValueToRValue) {
          arg.reads = true;
          return;
        }
        cur = p;
        continue;
      }
      if (llvm::isa<clang::ParenExpr>(p) || llvm::isa<clang::ExtVectorElementExpr>(p) ||
          llvm::isa<clang::MemberExpr>(p)) {
        cur = p;
        continue;
      }
      if (const auto* bin = llvm::dyn_cast<clang::BinaryOperator>(p)) {
        if (bin->getLHS() == cur && bin->isAssignmentOp()) {
          arg.writes = true;
          if (bin->isCompoundAssignmentOp()) arg.reads = true;
          return;
        }
        arg.reads = true;
        return;
      }
      if (const auto* un = llvm::dyn_cast<clang::UnaryOperator>(p)) {
        if (un->isIncrementDecrementOp() || un->getOpcode() == clang::UO_AddrOf) {
          mark_both(arg);  // ++a[i]; &a[i] escapes (atomics, vstore, aliases)
          return;
        }
        arg.reads = true;
        return;
      }
      arg.reads = true;
      return;
    }
  }

  // An image passed to read_image{f,i,ui} or write_image{f,i,ui}: the
  // suffix is the channel type the image must have (the last call decides).
  void classify_image_use(const clang::Expr* ref, ArgInfo& arg) {
    const clang::Stmt* cur = ref;
    bool is_decl;
    const clang::Stmt* p = parent_of(cur, is_decl);
    while (p && llvm::isa<clang::ImplicitCastExpr>(p)) p = parent_of(p, is_decl);
    const auto* call = p ? llvm::dyn_cast<clang::CallExpr>(p) : nullptr;
    const auto* fn = call ? call->getDirectCallee() : nullptr;
    if (!fn) return;
    const std::string name = fn->getNameAsString();
    for (const char* prefix : {"read_image", "write_image"}) {
      if (name.rfind(prefix, 0) != 0) continue;
      const std::string suffix = name.substr(std::string(prefix).size());
      if (suffix == "f") arg.kind = ScalarKind::kFloat;
      else if (suffix == "i") arg.kind = ScalarKind::kSigned;
      else if (suffix == "ui") arg.kind = ScalarKind::kUnsigned;
      else if (suffix == "h") {
        arg.supported = false;
        arg.unsupported_reason = "half image";
      }
    }
  }

  void classify_call(const clang::CallExpr* call, ArgInfo& arg) {
    std::string callee;
    if (const auto* fn = call->getDirectCallee()) callee = fn->getNameAsString();
    if (callee.rfind("vload", 0) == 0) {
      arg.reads = true;
    } else if (callee.rfind("vstore", 0) == 0) {
      arg.writes = true;
    } else if (callee == "prefetch") {
      // a hint, no access
    } else {
      mark_both(arg);  // atomics, user functions, async copies: conservatively both
    }
  }

  static void mark_both(ArgInfo& arg) {
    arg.reads = true;
    arg.writes = true;
  }

  clang::ASTContext& ctx_;
  std::map<const clang::ParmVarDecl*, ArgInfo*> params_;
};

class KernelVisitor : public clang::RecursiveASTVisitor<KernelVisitor> {
 public:
  explicit KernelVisitor(clang::ASTContext& ctx) : ctx_(ctx) {}

  bool VisitFunctionDecl(clang::FunctionDecl* fn) {
    if (!fn->hasAttr<clang::OpenCLKernelAttr>() || !fn->doesThisDeclarationHaveABody()) return true;
    KernelSignature sig;
    sig.name = fn->getNameAsString();
    clang::PrintingPolicy policy(ctx_.getLangOpts());
    for (const clang::ParmVarDecl* param : fn->parameters()) sig.args.push_back(describe_param(param, policy, ctx_));
    std::map<const clang::ParmVarDecl*, ArgInfo*> params;
    for (size_t i = 0; i < sig.args.size(); ++i) params[fn->getParamDecl(i)] = &sig.args[i];
    UsageVisitor usage(ctx_, params);
    usage.TraverseStmt(fn->getBody());
    for (auto& a : sig.args) {
      if (a.is_const && a.writes) a.writes = false;  // only reachable through casts away from const
    }
    kernels.push_back(std::move(sig));
    return true;
  }

  std::vector<KernelSignature> kernels;

 private:
  clang::ASTContext& ctx_;
};

}  // namespace

bool have_clang_analysis() { return true; }

namespace {

Expected<std::vector<KernelSignature>> analyze_unsafe(const std::string& source) {
  std::vector<std::string> args = {"--target=spir64-unknown-unknown"};
  for (std::string& a : clang_support::opencl_args(clang_support::OpenClStd::kCL12, clang_support::ArgStyle::kDriver))
    args.push_back(std::move(a));
  args.push_back("-w");
  // Clang's OpenCL header from memory (the copy every compile shares), not read again from disk.
  clang::tooling::FileContentMappings header;
  for (const clang_support::HeaderFile& h : clang_support::clang_headers().files) header.emplace_back(h.path, h.text);
  clang_support::ErrorCollector errors(clang_support::ErrorCollector::Options{5});
  std::unique_ptr<clang::ASTUnit> unit = clang::tooling::buildASTFromCodeWithArgs(
      source, args, "kernel.cl", "clgen", std::make_shared<clang::PCHContainerOperations>(),
      clang::tooling::getClangStripDependencyFileAdjuster(), header, &errors);
  if (!unit || errors.getNumErrors() > 0) {
    std::string message = "kernel does not compile";
    for (const auto& e : errors.errors()) message += "; " + clang_support::line_column_message(e);
    return parse_error(message);
  }
  KernelVisitor visitor(unit->getASTContext());
  visitor.TraverseDecl(unit->getASTContext().getTranslationUnitDecl());
  return std::move(visitor.kernels);
}

}  // namespace

Expected<std::vector<KernelSignature>> analyze_kernels(const std::string& source) {
  // Clang 15's lexer crashes on some non-ASCII identifier bytes and on
  // invalid UTF-8 (docs/FUZZING.md): such input never reaches it.
  if (std::string why = clang_input_problem(source); !why.empty())
    return parse_error("kernel source refused before Clang: " + why);
  Expected<std::vector<KernelSignature>> result = std::vector<KernelSignature>();
  // The source is untrusted and the analysis runs in the parent: a front-end
  // crash must become an outcome, not a dead clgen.
  if (!clang_support::run_with_crash_recovery([&] { result = analyze_unsafe(source); }))
    return internal_error("the Clang front end crashed while analysing the kernel's arguments");
  return result;
}

}  // namespace clgen::driver
