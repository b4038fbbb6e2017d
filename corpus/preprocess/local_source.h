// A kernel file named on the command line, made self-contained the way the
// corpus importer makes mined files: its `#include`s inlined from the file's
// own directory and the -I directories (never from anywhere else), and -D
// macros defined in front of it. Used by `clgen preprocess` and `clgen features`.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "support/status.h"

namespace clgen::preprocess {

struct LocalSourceOptions {
  // -I: searched, in order, after the including file's directory; with it,
  // the include roots: no include is read from outside them (symlinks
  // included).
  std::vector<std::string> include_dirs;
  // -D: NAME, NAME=VALUE or NAME(ARGS)=VALUE, as clang reads them (NAME alone is NAME=1).
  std::vector<std::string> defines;
};

struct LocalSource {
  // The `#define` lines of the defines and `#line 1` (none without
  // defines), then the file with its includes inlined.
  std::string text;
  int inlined = 0;  // include directives replaced by a file's text
  // What the directives left in place named: missing, or outside the include
  // roots (kept as written, so the compile reports them).
  std::vector<std::string> unresolved;
};

// The `#define` lines of `defines`, then `#line 1` so that the input's lines
// keep their numbers; "" when there are none. Fails naming a malformed define.
Expected<std::string> define_prelude(const std::vector<std::string>& defines);

// Reads `path` (at most `max_bytes`) and inlines its includes with
// corpus::inline_includes: `#include "x.h"` and `<x.h>` are looked up beside
// the including file, then in each include directory; a header is inlined
// once per file (like #pragma once), whatever #if surrounds it, and the
// inliner's limits apply (nesting depth 32, 1 MiB per header, 16 MiB in all). Object-like macros
// of the defines may name an include (`-D HDR="x.h"`, `#include HDR`).
// Fails when the file or an include directory cannot be read, a define is
// malformed, or the inlined text exceeds the limit.
Expected<LocalSource> read_local_source(const std::string& path, const LocalSourceOptions& options, uint64_t max_bytes);

}  // namespace clgen::preprocess
