// Static kernel features of Grewe et al. (CGO'13) counted on the Clang AST of
// OpenCL C 1.2 code: compute and comparison operators, global/local memory
// accesses, atomics, coalesced accesses. Two sets of definitions: the
// reference extractor's (the published device-mapping datasets) and clgen's
// own (every count tied to kernel parameters). Clang stays inside the .cpp files.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "support/status.h"

namespace clgen::features {

// The counts below as GreweDefinitions::kClgen defines them; kReference
// differs in mem, coalesced, atomic, calls and rows (see grewe_reference.h
// and docs/PREDICT.md).
struct StaticFeatures {
  std::string file;    // as given to extract_static_features()
  std::string kernel;  // the function's name (a __kernel; kReference: any function with a __global parameter)
  // + - * / % << >> & | ^ <<= >>=; exp/log/sqrt calls count 15; calls to
  // user-defined functions add the callee's counts (every feature below too).
  long comp = 0;
  long rational = 0;   // < > <= >= == !=
  long mem = 0;        // references to __global pointer parameters
  long localmem = 0;   // subscripts of __local arrays or pointers
  long coalesced = 0;  // those of the `mem` references that are subscripts (p[idx]) whose index is a
                       // variable, an integer literal, or x+0/x+1/x*0/x*1 style (+/* with a 0 or 1 literal)
  long atomic = 0;     // calls to atomic built-ins (atomic_*, atom_*)
  // With FeatureOptions::recover_from_errors: true when Clang reported an
  // error and the counts above come from its recovered AST; the first error
  // as "LINE:COL: message" (empty when none).
  bool sema_errors = false;
  std::string first_error;
};

// The six Grewe counts in the order targets, samples and training headers use
// (comp, rational, mem, localmem, coalesced, atomic).
using GreweVector = std::array<long, 6>;
inline GreweVector grewe_vector(const StaticFeatures& f) {
  return {f.comp, f.rational, f.mem, f.localmem, f.coalesced, f.atomic};
}

// Which definitions of the six counts extract_static_features() uses.
enum class GreweDefinitions {
  // clgen's own: mem and coalesced count only __global pointer parameters
  // (coalesced <= mem), atom_* counts as atomic, any user function's counts
  // are added at a call, one row per __kernel.
  kClgen,
  // The reference Clang-based extractor behind the published CGO'13/CGO'17/
  // PACT'17 datasets (docs/PREDICT.md lists its rules): coalesced also counts
  // subscripts of local __global pointers, only atomic_* counts, only
  // functions defined earlier add their counts, and every function with a
  // __global parameter is a row.
  kReference,
};

// "clgen" or "reference".
const char* grewe_definitions_name(GreweDefinitions d);
// The definitions named `name` ("clgen" or "reference"); kInvalidArgument
// naming the value and the choices otherwise.
Expected<GreweDefinitions> parse_grewe_definitions(std::string_view name);

struct FeatureOptions {
  GreweDefinitions definitions = GreweDefinitions::kClgen;
  // Count the kernels of code that does not compile on the AST Clang
  // recovers (as reference Clang-based extractors do) instead of failing;
  // rows then carry sema_errors and first_error. Still fails when the
  // recovered AST has no kernel with a body.
  bool recover_from_errors = false;
};

// Parses `source` in memory as OpenCL C 1.2 with Clang's default OpenCL
// header and returns the features of every kernel defined in it (with
// kReference: of every function with a __global parameter), in source order.
// Fails with kParse, quoting Clang's first error, when the code does not
// compile (unless options.recover_from_errors), and with kInvalidArgument
// when it defines no kernel (no such function).
Expected<std::vector<StaticFeatures>> extract_static_features(std::string_view source, const std::string& file,
                                                              const FeatureOptions& options = {});

// "file,kernel,comp,rational,mem,localmem,coalesced,atomic"
std::string static_features_csv_header();
std::string static_features_csv_row(const StaticFeatures& f);

// "sema_errors,first_error": the last columns of `clgen features` (after
// the IR columns, so earlier columns keep their places); sema_errors is 0 or 1.
std::string sema_errors_csv_header();
std::string sema_errors_csv_values(const StaticFeatures& f);

}  // namespace clgen::features
