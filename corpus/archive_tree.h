// Archives (.tar.xz, .tar.gz, .tgz, .tar, .zip) read with libarchive into
// memory under size limits, and SourceTree views of them or of one folder.
// Entries with absolute paths or paths that climb out of the root are refused
// without reading them: archives, like mined code, are untrusted.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "corpus/source_tree.h"
#include "support/status.h"

namespace clgen::corpus {

// Skip reason of an archive entry whose path is absolute or escapes the root.
inline constexpr const char* kPathOutsideRoot = "path_outside_root";

struct ArchiveLimits {
  uint64_t max_file_bytes = 1 << 20;      // larger files are listed but not kept (read: kInvalidArgument)
  uint64_t max_total_bytes = 1ull << 30;  // an archive unpacking to more is refused
};

struct ArchiveFile {
  uint64_t size = 0;
  std::string text;     // empty unless kept
  std::string problem;  // as TreeEntry::problem: "" when readable
  std::string detail;
};

// The regular files of an archive, by normalized path.
struct ArchiveContents {
  std::string archive;                        // path, for messages
  std::map<std::string, ArchiveFile> files;   // normalized relative path -> file
  std::vector<TreeEntry> refused;             // path_outside_root entries, by their raw names; never read
};

// True when `path` ends in .tar.xz, .txz, .tar.gz, .tgz, .tar or .zip (any case).
bool is_archive_path(const std::string& path);

// Reads the archive at `path`. Fails naming the archive when it cannot be
// read or when its files add up to more than `limits.max_total_bytes`.
Expected<std::shared_ptr<const ArchiveContents>> read_archive(const std::string& path,
                                                              const ArchiveLimits& limits = {});

// The files under `folder` ("" = the whole archive), with paths relative to it.
std::unique_ptr<SourceTree> open_archive_tree(std::shared_ptr<const ArchiveContents> contents,
                                              const std::string& folder = "");

// The first path components of the archive's files; a top-level file counts
// as a component too, reported in `top_level_files`.
std::vector<std::string> top_level_folders(const ArchiveContents& contents, std::vector<std::string>* top_level_files);

}  // namespace clgen::corpus
