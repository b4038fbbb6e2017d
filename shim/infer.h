// Shim inference: compiles a corpus without the shim, collects the
// identifiers it lacks, classifies how each is used, ranks them by the files
// they would rescue and proposes a definition for each.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "corpus/preprocess/names.h"
#include "corpus/preprocess/preprocess.h"
#include "support/status.h"

namespace clgen::shim {

// How a missing name is used (the preprocessor's classification, shared with
// its per-file inference).
using Use = preprocess::NameUse;
inline const char* use_name(Use use) { return preprocess::name_use_name(use); }
using preprocess::classify_use;

struct Candidate {
  std::string name;
  Use use = Use::kValue;   // the most frequent use across files
  int arity = 0;           // arguments, for kFunctionMacro
  uint64_t files = 0;      // failing files that lack this name
  uint64_t rescued = 0;    // of those, files that compile once every accepted entry is defined
  // Goes into the header: types and qualifiers, and values or array sizes
  // with macro-style names (upper case), never function-like macros or
  // lower-case values (a shim `#define i 64` would break the files it meets),
  // and never an entry that rescues no file.
  bool accepted = false;
  std::string definition;  // e.g. "#define WG_SIZE 64"
};

struct InferOptions {
  preprocess::BuiltinHeader header = preprocess::BuiltinHeader::kClang;
  unsigned threads = 0;   // 0 = all cores
  uint64_t min_files = 2;  // a name must be missing in at least this many files
  int error_limit = 50;    // errors collected per file
};

struct InferReport {
  uint64_t files = 0;               // inputs
  uint64_t compiled = 0;            // compiled without the shim
  uint64_t failed = 0;              // did not compile without the shim
  uint64_t only_missing_names = 0;  // failed only for undeclared identifiers / unknown types
  std::vector<Candidate> candidates;  // best first
};

// Runs the inference over `texts`. Fails only when interrupted.
Expected<InferReport> infer(const std::vector<std::string>& texts, const InferOptions& options);

// The shim header for the accepted candidates; `provenance` (how the corpus
// was chosen, the command) is written into its opening comment.
std::string render_header(const InferReport& report, const std::string& provenance);

}  // namespace clgen::shim
