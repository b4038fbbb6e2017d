// Reassembly of kernel files from the content store: the store holds each
// file raw and each included file once; the preprocess stage asks for a
// kernel's text with its includes inlined again.
#pragma once

#include <string>
#include <vector>

#include "corpus/inliner.h"
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

// The sha256s of the contents with a kernel origin (what preprocess
// processes), sorted.
Expected<std::vector<std::string>> kernel_contents(Database& db);

}  // namespace clgen::corpus
