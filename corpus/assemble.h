// Reassembly of kernel files from the content store: the store holds each
// file raw and each included file once; the preprocess stage asks for a
// kernel's text with its includes inlined again.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "corpus/inliner.h"
#include "corpus/source_tree.h"
#include "support/sqlite.h"
#include "support/status.h"

namespace clgen::corpus {

// The text of content `sha256` with its includes inlined from the store: one
// kernel origin of the content is taken (lowest repository_id, then path),
// and inline_includes runs over that source's stored files at that commit.
// A store made before raw include storage (texts already inlined) gives the
// stored text back, except where an unresolved directive now resolves.
// kNotFound when the content has no kernel origin; kInvalidArgument when the
// assembled text would exceed options.max_output_bytes.
Expected<std::string> assemble_text(Database& db, const std::string& sha256, const InlineOptions& options = {});

// Assembles many contents (as assemble_text does), keeping each source's
// stored tree, with the include texts it has read (up to 64 MiB per source),
// between calls: the whole snapshot corpus (7,590 kernels) assembles in 10 s
// instead of 86 s. `db` must outlive it.
class Assembler {
 public:
  explicit Assembler(Database& db, InlineOptions options = {}) : db_(db), options_(std::move(options)) {}
  Expected<std::string> assemble(const std::string& sha256);

 private:
  Database& db_;
  InlineOptions options_;
  std::map<std::pair<int64_t, std::string>, std::unique_ptr<SourceTree>> trees_;  // (repository, commit)
};

// The sha256s of the contents with a kernel origin (what preprocess
// processes), sorted.
Expected<std::vector<std::string>> kernel_contents(Database& db);

// What preprocess reads, by sha256: with the corpus tables, the stored
// contents that are kernel files (not headers stored only because a kernel
// includes them), whose texts come from an Assembler; without them (a bare
// content_files table), every stored content, read as stored.
struct KernelFiles {
  bool assemble = false;             // true: texts via Assembler; false: stored_text
  std::vector<std::string> sha256s;  // sorted
};
Expected<KernelFiles> kernel_files(Database& db);

// The text of content `sha256` as stored; kNotFound when it is not stored.
Expected<std::string> stored_text(Database& db, const std::string& sha256);

}  // namespace clgen::corpus
