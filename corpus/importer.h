// Imports the source files of one SourceTree into the content store:
// select by glob, classify (size, binary, UTF-8, empty), find the files each
// one includes, hash, and store every file raw (an include once per source)
// in batches of one transaction each. Interruptible between batches; a rerun
// stores nothing twice.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "corpus/inliner.h"
#include "corpus/source_tree.h"
#include "corpus/store.h"
#include "support/sqlite.h"

namespace clgen::corpus {

struct ImportOptions {
  // Basename patterns (fnmatch); a pattern with '/' matches the whole relative path.
  std::vector<std::string> globs = {"*.cl", "*.ocl"};
  uint64_t max_file_size = 1 << 20;  // bytes; larger files are skipped as too_large
  uint64_t max_archive_bytes = 1ull << 30;  // an archive whose files add up to more is refused
  size_t batch_size = 200;           // files per transaction
  InlineOptions inline_options;
  // The files are C/C++ headers holding kernels as string literals (Bullet):
  // each literal becomes one content file, named "path:variable".
  bool embedded_literals = false;
  // Read OpenCL kernels out of the string literals of host source files
  // (host_code.h: C, C++, Python, Java, JavaScript, Rust, ...) that the
  // globs do not select; each kernel-like literal is stored as a kernel.
  bool host_code = true;
  uint64_t max_host_file_size = 256 << 10;  // larger host files are not read
  bool progress = true;              // draw a progress line on a terminal
  // Import even a source already completely imported at the same commit or
  // package version (git repositories and packages are otherwise skipped).
  bool reimport = false;
};

struct ImportSummary {
  int64_t candidates = 0;    // files matching the globs
  int64_t accepted = 0;      // stored (new or already known)
  int64_t includes_stored = 0;  // files stored only because accepted files include them
  int64_t new_contents = 0;  // texts not in the store before
  int64_t bytes_read = 0;    // raw bytes of accepted files and the files they include
  int64_t bytes_stored = 0;  // bytes of the texts stored (raw; includes once per source)
  // #include directives of accepted files, as the inliner resolved them.
  int64_t includes_inlined = 0, includes_unresolved = 0, includes_refused = 0, include_cycles = 0;
  int64_t includes_substituted = 0;        // missing sources read as their headers (of includes_inlined)
  std::map<std::string, int64_t> skipped;  // reason -> count
  int64_t unchanged_sources = 0;           // skipped: already imported at this commit/version
  int64_t transcoded = 0;                  // files stored as UTF-8 after reading their stray bytes as Windows-1252
  // Host code: files read (mentioning "kernel", within max_host_file_size),
  // kernel literals stored, and kernel literals left out as templates.
  int64_t host_files_read = 0, host_kernels = 0, host_templates = 0;

  void add(const ImportSummary& o);
};

// Kernel files of a snapshot: .cl .ocl .clh .opencl in any case.
extern const std::vector<std::string> kSnapshotGlobs;

// True when `text` contains "kernel" in any case (`__kernel`, `KERNEL_FQ`
// too); a selected file without it is stored with role include.
bool mentions_kernel(const std::string& text);

// True when `path` (relative) matches one of `globs`.
bool matches_globs(const std::string& path, const std::vector<std::string>& globs);

// Imports `tree` as `source` at `commit` ("" when not applicable). With
// `only_paths`, exactly those relative paths are considered (no glob
// filter; a host source file among them is read for kernel literals).
// Host files the globs do not select are read for kernel literals
// (options.host_code). Each selected file is stored as found, with role kernel (include
// when it does not mention "kernel"); each file it includes, resolved as
// inline_includes resolves it, is stored once with role include. On SIGINT/SIGTERM the current batch is committed and
// kCancelled is returned; the source is marked imported only when every file was handled.
Expected<ImportSummary> import_tree(Database& db, SourceTree& tree, const SourceInfo& source,
                                    const std::string& commit, const ImportOptions& options,
                                    const std::optional<std::vector<std::string>>& only_paths = {});

// `clgen corpus add PATH [--manifest M]`: a git repository (at HEAD), a
// directory, an archive (.tar.xz, .tar.gz, .tgz, .tar, .zip; see snapshot.h)
// or a file. With `manifest`, a directory is read as a snapshot.
Expected<ImportSummary> import_path(Database& db, const std::string& path, const ImportOptions& options,
                                    const std::string& manifest = "");

}  // namespace clgen::corpus
