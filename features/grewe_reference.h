// Internal to clgen_features: the reference extractor's counting rules
// (GreweDefinitions::kReference) over a parsed translation unit.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "features/static_features.h"

namespace clang {
class ASTContext;
class ExternalSemaSource;
class Sema;
}  // namespace clang

namespace clgen::features {

// Appends a row for every function defined in the main file with a
// parameter whose type spells `__global`, in source order, counted by the
// rules of docs/PREDICT.md ("Reference definitions").
void append_reference_rows(clang::ASTContext& ctx, const std::string& file, std::vector<StaticFeatures>* out);

// The limits macros the reference's OpenCL header defines otherwise than
// Clang's (UINT_MAX is `(2U * INT_MAX + 1)`): a header to -include after
// Clang's, under kReferenceLimitsPath in the compile's file system.
inline constexpr const char* kReferenceLimitsPath = "/clgen/reference-limits.h";
std::string_view reference_limits_header();

// Resolves a call to a function that is neither defined nor declared the way
// the reference's Clang did, with C's implicit declaration `int name()`, so
// the call and its arguments stay in the AST (Clang 15 reports an error and
// drops the statement). Add it to `sema` before parsing; it must outlive the parse.
std::unique_ptr<clang::ExternalSemaSource> implicit_function_declarations(clang::Sema& sema);

}  // namespace clgen::features
