// Kernel extraction: one text per __kernel function holding the input's
// top-level #pragma lines and only the top-level declarations the kernel
// reaches (called functions, types, file-scope variables, enum constants),
// in source order.
#include <algorithm>
#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <vector>

#include <clang/AST/ASTConsumer.h>
#include <clang/AST/ASTContext.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendAction.h>
#include <clang/Lex/Lexer.h>

#include "corpus/preprocess/frontend_internal.h"
#include "corpus/preprocess/preprocess.h"
#include "support/clang/crash_recovery.h"

namespace clgen::preprocess {
namespace {

using internal::ErrorCollector;
using internal::Mode;

// A piece of the input: the full text of one top-level declaration, or of
// several whose ranges overlap (`int a, b;`, `typedef struct {...} T;`,
// `struct S {...} s;`), with a trailing `;` when the declaration has one.
struct Piece {
  unsigned begin = 0;
  unsigned end = 0;
  std::vector<unsigned> reaches;  // pieces this one refers to
};

// Collects the declarations a piece of code refers to: by name
// (functions, variables, enum constants), by type as written (typedefs,
// structs, unions, enums, also in casts, sizeof and array sizes) and by
// member access (the field's record).
class ReferenceVisitor : public clang::RecursiveASTVisitor<ReferenceVisitor> {
 public:
  bool VisitDeclRefExpr(clang::DeclRefExpr* e) {
    refs.push_back(e->getDecl());
    return true;
  }
  bool VisitMemberExpr(clang::MemberExpr* e) {
    refs.push_back(e->getMemberDecl());
    return true;
  }
  bool VisitTypedefTypeLoc(clang::TypedefTypeLoc tl) {
    refs.push_back(tl.getTypedefNameDecl());
    return true;
  }
  bool VisitTagTypeLoc(clang::TagTypeLoc tl) {
    refs.push_back(tl.getDecl());
    return true;
  }

  std::vector<const clang::Decl*> refs;
};

class ExtractConsumer : public clang::ASTConsumer {
 public:
  ExtractConsumer(clang::CompilerInstance& ci, std::vector<ExtractedKernel>* out, bool* done)
      : ci_(ci), out_(out), done_(done) {}

  bool HandleTopLevelDecl(clang::DeclGroupRef group) override {
    for (clang::Decl* d : group) decls_.push_back(d);
    return true;
  }

  void HandleTranslationUnit(clang::ASTContext& ctx) override {
    if (ci_.getDiagnostics().hasErrorOccurred()) return;
    sm_ = &ctx.getSourceManager();
    lang_ = &ctx.getLangOpts();
    build_pieces();
    // Kernels and the references of every piece.
    std::vector<std::pair<std::string, unsigned>> kernels;  // name, piece
    for (const auto& [d, piece] : decl_piece_) {
      ReferenceVisitor v;
      v.TraverseDecl(const_cast<clang::Decl*>(d));
      for (const clang::Decl* r : v.refs) add_reaches(piece, r);
      if (auto* f = llvm::dyn_cast<clang::FunctionDecl>(d);
          f && f->hasAttr<clang::OpenCLKernelAttr>() && f->doesThisDeclarationHaveABody()) {
        kernels.emplace_back(f->getNameAsString(), piece);
      }
    }
    add_name_uses();
    std::sort(kernels.begin(), kernels.end(),
              [&](const auto& a, const auto& b) { return pieces_[a.second].begin < pieces_[b.second].begin; });

    llvm::StringRef buffer = sm_->getBufferData(sm_->getMainFileID());
    std::vector<unsigned> directives = top_level_directive_lines(buffer);
    for (const auto& [name, root] : kernels) {
      std::vector<bool> keep(pieces_.size(), false);
      std::vector<unsigned> todo = {root};
      keep[root] = true;
      while (!todo.empty()) {
        unsigned p = todo.back();
        todo.pop_back();
        for (unsigned q : pieces_[p].reaches) {
          if (!keep[q]) {
            keep[q] = true;
            todo.push_back(q);
          }
        }
      }
      // Pieces and directive lines, in source order.
      std::vector<std::pair<unsigned, unsigned>> parts;  // [begin, end)
      for (unsigned i = 0; i < pieces_.size(); ++i) {
        if (keep[i]) parts.emplace_back(pieces_[i].begin, pieces_[i].end);
      }
      for (unsigned begin : directives) {
        size_t nl = buffer.find('\n', begin);
        parts.emplace_back(begin, nl == llvm::StringRef::npos ? buffer.size() : nl);
      }
      std::sort(parts.begin(), parts.end());
      ExtractedKernel k;
      k.name = name;
      for (const auto& [b, e] : parts) {
        if (!k.text.empty() && after_blank_line(buffer, b)) k.text += '\n';
        k.text += buffer.substr(b, e - b).str();
        k.text += '\n';
      }
      out_->push_back(std::move(k));
    }
    *done_ = true;
  }

 private:
  // Offset in the main file of `loc`'s expansion, or -1.
  int64_t offset(clang::SourceLocation loc) const {
    if (loc.isInvalid()) return -1;
    loc = sm_->getExpansionLoc(loc);
    if (!sm_->isInMainFile(loc)) return -1;
    return sm_->getFileOffset(loc);
  }

  // The piece whose range holds `off`, or -1.
  int64_t piece_at(int64_t off) const {
    if (off < 0) return -1;
    auto it = std::upper_bound(pieces_.begin(), pieces_.end(), static_cast<unsigned>(off),
                               [](unsigned o, const Piece& p) { return o < p.begin; });
    if (it == pieces_.begin()) return -1;
    --it;
    return static_cast<unsigned>(off) < it->end ? it - pieces_.begin() : -1;
  }

  // Every top-level declaration written in the input, with its full range;
  // overlapping ranges merge into one piece.
  void build_pieces() {
    struct Range {
      unsigned begin, end;
      const clang::Decl* decl;
    };
    std::vector<Range> ranges;
    for (const clang::Decl* d : decls_) {
      if (d->isImplicit() || llvm::isa<clang::EmptyDecl>(d)) continue;
      clang::SourceRange r = d->getSourceRange();
      int64_t b = offset(r.getBegin());
      if (b < 0) continue;
      // Attributes written before the declaration (__attribute__((...))
      // __kernel void f()) may lie outside its range.
      for (const clang::Attr* a : d->attrs()) {
        int64_t ab = offset(a->getRange().getBegin());
        if (ab >= 0 && ab < b) b = ab;
      }
      clang::SourceLocation last = sm_->getExpansionLoc(r.getEnd());
      int64_t e = offset(clang::Lexer::getLocForEndOfToken(last, 0, *sm_, *lang_));
      if (e < b) continue;
      auto* f = llvm::dyn_cast<clang::FunctionDecl>(d);
      if (!(f && f->doesThisDeclarationHaveABody())) e = through_semicolon(static_cast<unsigned>(e));
      ranges.push_back({static_cast<unsigned>(b), static_cast<unsigned>(e), d});
    }
    std::stable_sort(ranges.begin(), ranges.end(),
                     [](const Range& a, const Range& b) { return a.begin < b.begin; });
    for (const Range& r : ranges) {
      if (!pieces_.empty() && r.begin < pieces_.back().end) {
        pieces_.back().end = std::max(pieces_.back().end, r.end);
      } else {
        pieces_.push_back({r.begin, r.end, {}});
      }
      decl_piece_.emplace_back(r.decl, static_cast<unsigned>(pieces_.size() - 1));
    }
  }

  // A declaration other than a function definition ends with `;`, which
  // its range leaves out, as it does attributes after the declarator
  // (`} T __attribute__((aligned(8)));`): the end moves past the first `;`
  // outside brackets, unless a brace or a directive comes first.
  unsigned through_semicolon(unsigned end) const {
    clang::FileID main = sm_->getMainFileID();
    llvm::StringRef buffer = sm_->getBufferData(main);
    clang::Lexer lexer(sm_->getLocForStartOfFile(main), *lang_, buffer.begin(), buffer.begin() + end,
                       buffer.end());
    int depth = 0;
    clang::Token tok;
    for (bool last = false; !last;) {
      last = lexer.LexFromRawLexer(tok);
      if (tok.isAtStartOfLine() && tok.is(clang::tok::hash)) break;
      if (tok.isOneOf(clang::tok::l_paren, clang::tok::l_square)) ++depth;
      if (tok.isOneOf(clang::tok::r_paren, clang::tok::r_square) && --depth < 0) break;
      if (tok.isOneOf(clang::tok::l_brace, clang::tok::r_brace)) break;
      if (depth == 0 && tok.is(clang::tok::semi)) return sm_->getFileOffset(tok.getEndLoc());
    }
    return end;
  }

  // `from` reaches every piece that declares `d` (all its redeclarations:
  // a prototype and its definition, a forward-declared struct and its body).
  // Declarations inside a piece (fields, enum constants, locals) map to it.
  void add_reaches(unsigned from, const clang::Decl* d) {
    for (const clang::Decl* r : d->redecls()) {
      if (r->isImplicit()) continue;  // lazily declared builtins sit at their use
      int64_t p = piece_at(offset(r->getLocation()));
      if (p < 0 || static_cast<unsigned>(p) == from) continue;
      std::vector<unsigned>& v = pieces_[from].reaches;
      if (std::find(v.begin(), v.end(), p) == v.end()) v.push_back(static_cast<unsigned>(p));
    }
  }

  // Not every use of a file-scope variable or enum constant is in the AST:
  // Sema replaces a constant sampler's uses by its initializer, and the
  // arguments of an unknown attribute (Xilinx's xcl_loop_tripcount(c_size))
  // are checked and then dropped. So a piece that names one as an
  // identifier token reaches it (at worst a shadowed name keeps an unused
  // declaration).
  void add_name_uses() {
    std::unordered_map<std::string, std::vector<const clang::Decl*>> names;
    auto note = [&](const clang::NamedDecl* d) {
      if (d->getIdentifier()) names[d->getName().str()].push_back(d);
    };
    for (const auto& [d, piece] : decl_piece_) {
      if (auto* v = llvm::dyn_cast<clang::VarDecl>(d)) note(v);
      if (auto* e = llvm::dyn_cast<clang::EnumDecl>(d)) {
        for (const clang::EnumConstantDecl* c : e->enumerators()) note(c);
      }
    }
    if (names.empty()) return;
    clang::FileID main = sm_->getMainFileID();
    llvm::StringRef buffer = sm_->getBufferData(main);
    clang::Lexer lexer(sm_->getLocForStartOfFile(main), *lang_, buffer.begin(), buffer.begin(), buffer.end());
    clang::Token tok;
    bool more = true;
    while (more) {
      more = !lexer.LexFromRawLexer(tok);
      if (!tok.is(clang::tok::raw_identifier)) continue;
      auto it = names.find(tok.getRawIdentifier().str());
      if (it == names.end()) continue;
      int64_t p = piece_at(offset(tok.getLocation()));
      if (p < 0) continue;
      for (const clang::Decl* d : it->second) add_reaches(static_cast<unsigned>(p), d);
    }
  }

  // True when the line holding `offset` starts there (but for blanks) and
  // follows an empty line: the blank line is kept before the part, so the
  // input's layout (and rewrite()'s text for a file of one kernel) stays.
  static bool after_blank_line(llvm::StringRef buffer, size_t offset) {
    // (StringRef::rfind(c, from) looks at the characters before `from`.)
    size_t line = buffer.rfind('\n', offset);
    if (line == llvm::StringRef::npos) return false;
    if (buffer.substr(line + 1, offset - line - 1).find_first_not_of(" \t\r") != llvm::StringRef::npos) return false;
    if (line == 0) return true;
    size_t prev = buffer.rfind('\n', line);
    prev = prev == llvm::StringRef::npos ? 0 : prev + 1;
    return buffer.substr(prev, line - prev).find_first_not_of(" \t\r") == llvm::StringRef::npos;
  }

  // Start offsets of the directive lines (#pragma: the only ones left after
  // pass 1) outside every piece.
  std::vector<unsigned> top_level_directive_lines(llvm::StringRef buffer) const {
    std::vector<unsigned> out;
    size_t pos = 0;
    while (pos < buffer.size()) {
      size_t nl = buffer.find('\n', pos);
      if (nl == llvm::StringRef::npos) nl = buffer.size();
      size_t first = buffer.find_first_not_of(" \t", pos);
      if (first < nl && buffer[first] == '#' && piece_at(static_cast<int64_t>(pos)) < 0 &&
          piece_at(static_cast<int64_t>(first)) < 0) {
        out.push_back(static_cast<unsigned>(pos));
      }
      pos = nl + 1;
    }
    return out;
  }

  clang::CompilerInstance& ci_;
  std::vector<ExtractedKernel>* out_;
  bool* done_;
  const clang::SourceManager* sm_ = nullptr;
  const clang::LangOptions* lang_ = nullptr;
  std::vector<const clang::Decl*> decls_;  // top-level, in parse order
  std::vector<Piece> pieces_;               // in source order, disjoint
  std::vector<std::pair<const clang::Decl*, unsigned>> decl_piece_;
};

class ExtractAction : public clang::ASTFrontendAction {
 public:
  ExtractAction(std::vector<ExtractedKernel>* out, bool* done) : out_(out), done_(done) {}

 protected:
  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance& ci,
                                                        llvm::StringRef) override {
    return std::make_unique<ExtractConsumer>(ci, out_, done_);
  }

 private:
  std::vector<ExtractedKernel>* out_;
  bool* done_;
};

// One parse with the shim or without; a failure names the input's first error.
Expected<std::vector<ExtractedKernel>> extract_once(std::string_view text, const CompileOptions& options) {
  std::vector<ExtractedKernel> out;
  std::string setup_error, error;
  bool done = false;
  bool safe = clang_support::run_with_crash_recovery([&] {
    ErrorCollector errors(1);
    auto ci = internal::make_instance(text, options, Mode::kSyntax, errors, setup_error);
    if (!ci) return;
    ExtractAction action(&out, &done);
    if (!ci->ExecuteAction(action) || ci->getDiagnostics().hasErrorOccurred() || !done) {
      error = errors.errors().empty() ? "parsing failed" : errors.compile_errors().front().message;
      done = false;
    }
  });
  if (!safe) return internal_error("extracting kernels: Clang crashed");
  if (!setup_error.empty()) return internal_error("extracting kernels: " + setup_error);
  if (!done) return parse_error("extracting kernels: " + error);
  return out;
}

}  // namespace

Expected<std::vector<ExtractedKernel>> extract_kernels(std::string_view text, const CompileOptions& options) {
  if (text.size() > kMaxInputBytes) {
    return invalid_argument("extracting kernels: input of " + std::to_string(text.size()) +
                            " bytes exceeds the limit of " + std::to_string(kMaxInputBytes));
  }
  CompileOptions plain = options;
  plain.shim = false;
  Expected<std::vector<ExtractedKernel>> r = extract_once(text, plain);
  if (r || !options.shim) return r;
  Expected<std::vector<ExtractedKernel>> with_shim = extract_once(text, options);
  return with_shim ? with_shim : r;
}

}  // namespace clgen::preprocess
