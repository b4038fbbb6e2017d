// The repository prelude: a second chance for a kernel file rejected for a
// missing name that another file of the same repository defines. Hosts often
// concatenate a project's shared types and helpers in front of each kernel
// file instead of #including them; this finds such a file through a text-only
// index of what each file of the repository defines, prepends it and tries
// again. Only the file's own repository is searched: mined code is untrusted,
// and a name defined elsewhere means something else there.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "corpus/preprocess/preprocess.h"
#include "support/status.h"

namespace clgen::preprocess {

// The names `text` defines at file scope, read from the text alone (no
// preprocessing, every #if branch counts): #define names; struct, union and
// enum tags, enum constants and typedef names; function definitions;
// variables declared with an initializer or an array size. Sorted, distinct.
std::vector<std::string> defined_names(std::string_view text);

// The identifiers of `text` outside comments and literals. Sorted, distinct.
std::vector<std::string> identifiers(std::string_view text);

// One file of a repository, as the index keeps it.
struct RepositoryFile {
  std::string path;  // repository-relative
  std::string text;  // with any raw-string wrapper stripped (raw_string.h)
  bool has_kernel = false;
};

// What the files of one repository (at one commit) define. Immutable once
// built, so threads may share it.
class RepositoryIndex {
 public:
  explicit RepositoryIndex(std::vector<RepositoryFile> files);

  // The file that best supplies `name` to the file at `for_path`, never that
  // file itself; nullptr when no other file defines it. Ranked: files with
  // no kernel first (libraries, type headers), then the longest common
  // directory with `for_path`, the smallest, the first path.
  const RepositoryFile* definer(const std::string& name, const std::string& for_path) const;
  size_t size() const { return files_.size(); }

 private:
  std::vector<RepositoryFile> files_;  // sorted by path
  std::map<std::string, std::vector<size_t>> definers_;  // name -> files_ indices
};

// The name a missing-name rejection is about: "'T'" of unknown type names,
// undeclared identifiers and implicit function declarations; "" otherwise.
std::string missing_name(const std::string& category, const std::string& reason);

struct PreludeResult {
  FileRewriteResult result;         // of the combined text, without the prelude's own kernels
  std::vector<std::string> paths;   // the prepended files, in text order
};

// rewrite_kernels (or a worker's) over a text.
using FileRewriter = std::function<Expected<FileRewriteResult>(std::string_view)>;

struct PreludeOptions {
  int max_rounds = 8;                    // rewrites tried after the first rejection
  size_t max_bytes = kMaxInputBytes;     // of the prelude and the file together
};

// The repository prelude of the file `text` at `path`, rejected as `first`:
// while the rejection is for a missing name that the text (prelude included)
// does not define and another file of `index` does, that file is placed just
// before the part of the text where the error is (so a prelude file's own
// dependencies come before it) and the combined text is rewritten again.
// Stops at the first accepted result (returned, with the kernels whose names
// appear only in prelude files dropped), at a rejection of another kind, or
// after max_rounds; nullopt when no prelude gets the file accepted. Errors:
// only `rewrite`'s own.
Expected<std::optional<PreludeResult>> try_repository_prelude(std::string_view text, const std::string& path,
                                                              const FileRewriteResult& first,
                                                              const RepositoryIndex& index,
                                                              const FileRewriter& rewrite,
                                                              const PreludeOptions& options = {});

}  // namespace clgen::preprocess
