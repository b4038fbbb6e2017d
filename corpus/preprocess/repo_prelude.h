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

  // The files that define `name`, best first, for the file at `for_path`
  // (never that file itself). Ranked: files with no kernel first (libraries,
  // type headers), then the longest common directory with `for_path`, the
  // smallest, the first path.
  std::vector<const RepositoryFile*> definers(const std::string& name, const std::string& for_path) const;
  const RepositoryFile* file(const std::string& path) const;  // nullptr when not indexed
  size_t size() const { return files_.size(); }

  // The text a host would compile: the `prelude` files, then the file at
  // `path`, with their includes inlined from this index (corpus/inliner.h: a
  // header they share is inlined once). `text` (the file's assembled text)
  // is used as it is when the file is not indexed. Fails when the result
  // would exceed max_bytes.
  Expected<std::string> compose(const std::vector<const RepositoryFile*>& prelude, const std::string& path,
                                std::string_view text, size_t max_bytes) const;
  // The prelude alone, inlined as compose() inlines it.
  Expected<std::string> prelude_text(const std::vector<const RepositoryFile*>& prelude, const std::string& path,
                                     size_t max_bytes) const;
  // True when `f`, with its includes inlined, contains the file at `path`.
  bool includes(const RepositoryFile& f, const std::string& path) const;

 private:
  std::vector<RepositoryFile> files_;                    // sorted by path
  std::map<std::string, std::vector<size_t>> definers_;  // name -> files_ indices
};

// The name a missing-name rejection is about: "'T'" of unknown type names,
// undeclared identifiers and implicit function declarations; "" otherwise.
std::string missing_name(const std::string& category, const std::string& reason);

struct PreludeResult {
  FileRewriteResult result;        // of the combined text, without the prelude's own kernels
  std::vector<std::string> paths;  // the prepended files, in text order
};

// rewrite_kernels (or a worker's) over a text.
using FileRewriter = std::function<Expected<FileRewriteResult>(std::string_view)>;

struct PreludeOptions {
  int max_rounds = 8;                 // rewrites tried after the first rejection
  size_t max_bytes = kMaxInputBytes;  // of the prelude and the file together
};

// The repository prelude of the file `text` at `path`, rejected as `first`:
// while the rejection is for a missing name that the file does not define
// itself and another file of `index` does, the best such file is placed just
// before the first part (a prelude file, or the file) that uses the name, so
// a prelude file's own dependencies come before it, and the composed text
// (RepositoryIndex::compose) is rewritten again. When the file put in last
// brings an error of its own (or leaves its name missing), the next of up to
// three candidates for that name takes its place. Stops at the first
// accepted result (returned, without the kernels whose names appear only in
// prelude files), when nothing is left to try, or after max_rounds rewrites;
// nullopt when no prelude gets the file accepted. Errors: only `rewrite`'s.
Expected<std::optional<PreludeResult>> try_repository_prelude(std::string_view text, const std::string& path,
                                                              const FileRewriteResult& first,
                                                              const RepositoryIndex& index, const FileRewriter& rewrite,
                                                              const PreludeOptions& options = {});

}  // namespace clgen::preprocess
