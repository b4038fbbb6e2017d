// Reads of uninitialized variables (uninitialized.h).
#include "corpus/preprocess/uninitialized.h"

#include <clang/Analysis/Analyses/UninitializedValues.h>
#include <clang/Analysis/AnalysisDeclContext.h>
#include <clang/Analysis/CFG.h>

namespace clgen::preprocess::internal {
namespace {

class FirstRead : public clang::UninitVariablesHandler {
 public:
  void handleUseOfUninitVariable(const clang::VarDecl* vd, const clang::UninitUse& use) override {
    const clang::UninitUse::Kind kind = use.getKind();
    if (kind == clang::UninitUse::Always || kind == clang::UninitUse::AfterDecl || kind == clang::UninitUse::AfterCall)
      note(vd);
  }
  void handleSelfInit(const clang::VarDecl* vd) override { note(vd); }
  std::optional<std::string> found;

 private:
  void note(const clang::VarDecl* vd) {
    if (!found) found = "variable '" + vd->getNameAsString() + "' is read before it is initialized";
  }
};

}  // namespace

std::optional<std::string> uninitialized_read(const clang::FunctionDecl& fn, clang::ASTContext& ctx) {
  if (!fn.hasBody()) return std::nullopt;
  clang::AnalysisDeclContextManager manager(ctx);
  clang::AnalysisDeclContext* ac = manager.getContext(&fn);
  // The CFG as Sema builds it for -Wuninitialized: every expression is its
  // own element, so each read of a variable is seen where it happens.
  ac->getCFGBuildOptions().setAllAlwaysAdd();
  ac->getCFGBuildOptions().PruneTriviallyFalseEdges = true;
  ac->getCFGBuildOptions().AddInitializers = true;
  const clang::CFG* cfg = ac->getCFG();
  if (!cfg) return std::nullopt;
  FirstRead handler;
  clang::UninitVariablesAnalysisStats stats{};
  clang::runUninitializedVariablesAnalysis(fn, *cfg, *ac, handler, stats);
  return handler.found;
}

}  // namespace clgen::preprocess::internal
