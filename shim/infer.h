// Shim inference: compiles a corpus without the shim, collects the
// identifiers it lacks, classifies how each is used, ranks them by the files
// they would rescue and proposes a definition for each.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "corpus/preprocess/preprocess.h"
#include "support/status.h"

namespace clgen::shim {

// kQualifier: written before a declaration's type ("KERNEL_FQ void f(...)").
enum class Use { kType, kValue, kArraySize, kFunctionMacro, kQualifier };
const char* use_name(Use use);  // "type" | "value" | "array size" | "function-like macro" | "qualifier"

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

// Classifies the use of `name` written at byte `offset` of `text` (exposed for tests).
Use classify_use(std::string_view text, int64_t offset, std::string_view name, bool unknown_type,
                 int* arity);

}  // namespace clgen::shim
