// Include inlining: replaces `#include` directives of a source file with the
// files they name, found inside the same SourceTree (and never outside it),
// so a kernel is self-contained. The importer uses it to find the files a
// kernel includes (stored raw, once each); assemble_text re-inlines them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "corpus/source_tree.h"
#include "support/status.h"

namespace clgen::corpus {

struct InlineOptions {
  // Directories searched after the including file's own directory, in order;
  // "" is the repository root.
  std::vector<std::string> include_dirs = {"include", "inc", "includes", "common", "src", "lib", ""};
  // Then the including file's parent folders, nearest first: a build system
  // often passes its kernel folder with -I, so `cl_kernel/image/x.cl` finds
  // `#include <cl_common.h>` in `cl_kernel/` (Paddle-Lite).
  bool search_parent_dirs = true;
  int max_depth = 32;                          // nesting limit
  uint64_t max_include_bytes = 1 << 20;        // an included file larger than this is not inlined
  uint64_t max_output_bytes = 16ull << 20;     // the inlined text may not grow beyond this
  // A missing OpenCL source include (`x.cl`, `x.clh`, `x.ocl`) is read as its
  // header `x.h` when the tree has one: the header declares what the source
  // defines, so an includer that only calls its functions still compiles
  // (hashcat's kernels include `inc_common.cl`, which the snapshot lacks).
  bool header_for_missing_source = true;
  // An include inside a function body that cannot be found (a code fragment
  // the corpus lacks: hashcat's `#include COMPARE_M`, whose file the
  // snapshot does not hold) is written as the statement
  // `(void)"<kMissingFragment> NAME";` instead of the directive, so that the
  // rest of the file still compiles; the preprocessor rejects the kernels
  // whose code holds it (include_not_found) and keeps the others.
  bool mark_missing_fragments = true;
};

// What starts the string literal of a missing fragment's statement.
inline constexpr const char* kMissingFragment = "clgen: missing include";

struct InlineResult {
  std::string text;
  int inlined = 0;     // directives replaced by a file's contents
  int repeated = 0;    // directives dropped: the file was already inlined (once per file)
  int cycles = 0;      // directives dropped: the file includes itself (directly or not)
  int unresolved = 0;  // directives kept as they were: no such file in the tree
  int refused = 0;     // directives kept: absolute paths or `..` escaping the root (never read)
  int substituted = 0;     // missing sources read as their headers (header_for_missing_source)
  bool too_large = false;  // the output would exceed max_output_bytes (text is then incomplete)
  std::vector<std::string> unresolved_names;  // what the unresolved directives named
  // Tree paths of the files inlined, each once, in the order first inlined
  // (what an import stores beside the file so its includes can be re-inlined).
  std::vector<std::string> included_paths;
};

// Inlines the includes of `text`, which is the file at `path` in `tree`.
//
// Resolution: `#include "x.h"` and `#include <x.h>` look for x.h beside the
// including file, then in each of `include_dirs`, then (search_parent_dirs)
// in the including file's parent folders; the first regular file found
// inside the tree wins. A header is inlined once per top-level file
// (like `#pragma once`), except inside a brace-delimited body, where code
// fragments are included on purpose and are inlined each time.
//
// A missing `x.cl` (or `.clh`, `.ocl`) is read as `x.h` found the same way,
// when options.header_for_missing_source allows.
//
// Macro includes: `#include NAME` where NAME was `#define`d earlier as an
// object-like macro is expanded first. Then `#include F(DIR/x.h)` -- a
// function-like macro over a path whose first component is an upper-case
// macro name (hashcat's `M2S(INCLUDE_PATH/inc_vendor.h)`) -- is read as
// `#include "x.h"`: the macro name stands for the kernel directory, which is
// the including file's directory or one of the search directories.
//
// Fails only on I/O errors of the tree other than "not found".
Expected<InlineResult> inline_includes(SourceTree& tree, const std::string& path,
                                       const std::string& text, const InlineOptions& options = {});

}  // namespace clgen::corpus
