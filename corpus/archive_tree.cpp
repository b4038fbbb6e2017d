// Archive reading through libarchive, and SourceTree views of the result.
#include "corpus/archive_tree.h"

#include <archive.h>
#include <archive_entry.h>

#include <algorithm>
#include <cctype>
#include <set>

#include "corpus/content_check.h"
#include "support/log.h"

namespace clgen::corpus {

namespace {

struct ArchiveCloser {
  void operator()(archive* a) const { archive_read_free(a); }
};

std::string lower(std::string s) {
  for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

class ArchiveTree : public SourceTree {
 public:
  ArchiveTree(std::shared_ptr<const ArchiveContents> contents, std::string folder)
      : contents_(std::move(contents)), prefix_(folder.empty() ? "" : folder + "/") {}

  Expected<std::vector<TreeEntry>> list() override {
    std::vector<TreeEntry> out;
    for (auto it = contents_->files.lower_bound(prefix_); it != contents_->files.end(); ++it) {
      if (it->first.compare(0, prefix_.size(), prefix_) != 0) break;
      out.push_back({it->first.substr(prefix_.size()), it->second.size, it->second.problem, it->second.detail});
    }
    return out;  // std::map order: sorted
  }

  Expected<std::string> read(const std::string& path, uint64_t max_bytes) override {
    const ArchiveFile* f = find(path);
    if (!f || !f->problem.empty()) return not_found(path + ": not a readable file in " + describe());
    if (f->size > max_bytes) return invalid_argument(path + ": " + std::to_string(f->size) + " bytes, over the limit");
    if (f->text.size() != f->size)
      return invalid_argument(path + ": " + std::to_string(f->size) + " bytes, over the archive's per-file limit");
    return f->text;
  }

  bool is_file(const std::string& path) override {
    const ArchiveFile* f = find(path);
    return f && f->problem.empty();
  }

  std::string describe() const override {
    return "archive " + contents_->archive + (prefix_.empty() ? "" : " folder " + prefix_);
  }

 private:
  const ArchiveFile* find(const std::string& path) const {
    auto norm = normalize_relative(path);
    if (!norm) return nullptr;
    auto it = contents_->files.find(prefix_ + *norm);
    return it == contents_->files.end() ? nullptr : &it->second;
  }

  std::shared_ptr<const ArchiveContents> contents_;
  std::string prefix_;  // "folder/" or ""
};

}  // namespace

bool is_archive_path(const std::string& path) {
  std::string p = lower(path);
  for (const char* ext : {".tar.xz", ".txz", ".tar.gz", ".tgz", ".tar", ".zip"})
    if (ends_with(p, ext)) return true;
  return false;
}

Expected<std::shared_ptr<const ArchiveContents>> read_archive(const std::string& path, const ArchiveLimits& limits) {
  std::unique_ptr<archive, ArchiveCloser> a(archive_read_new());
  if (!a) return internal_error("reading archive " + path + ": libarchive could not allocate a reader");
  archive_read_support_filter_all(a.get());
  archive_read_support_format_tar(a.get());
  archive_read_support_format_gnutar(a.get());
  archive_read_support_format_zip(a.get());
  auto fail = [&](const std::string& what) {
    const char* msg = archive_error_string(a.get());
    return io_error("reading archive " + path + ": " + what + (msg ? std::string(": ") + msg : ""));
  };
  if (archive_read_open_filename(a.get(), path.c_str(), 1 << 16) != ARCHIVE_OK) return fail("cannot open");
  auto out = std::make_shared<ArchiveContents>();
  out->archive = path;
  uint64_t total = 0;
  auto over_total = [&] {
    return invalid_argument("reading archive " + path + ": it unpacks to more than " +
                            std::to_string(limits.max_total_bytes) + " bytes; refused");
  };
  for (;;) {
    archive_entry* entry = nullptr;
    int r = archive_read_next_header(a.get(), &entry);
    if (r == ARCHIVE_EOF) break;
    if (r == ARCHIVE_FATAL) return fail("bad entry header");
    if (r == ARCHIVE_RETRY) continue;
    const char* raw_name = archive_entry_pathname(entry);
    std::string raw = raw_name ? raw_name : "";
    mode_t type = archive_entry_filetype(entry);
    if (type == AE_IFDIR) continue;
    auto norm = normalize_relative(raw);
    if (!norm) {
      spdlog::warn("{}: entry '{}' refused: its path is absolute or leaves the archive root", path, raw);
      out->refused.push_back({raw, 0, kPathOutsideRoot, "absolute path or '..' leaving the archive root"});
      continue;
    }
    ArchiveFile file;
    if (type != AE_IFREG || archive_entry_hardlink(entry)) {
      if (type != AE_IFLNK && !archive_entry_hardlink(entry)) continue;  // devices, fifos: not files
      file.problem = skip_reason::kUnreadable;
      file.detail = "archive link entries are not followed";
      out->files[*norm] = std::move(file);
      continue;
    }
    bool size_known = archive_entry_size_is_set(entry);
    uint64_t declared = size_known ? static_cast<uint64_t>(std::max<la_int64_t>(0, archive_entry_size(entry))) : 0;
    if (size_known && total + declared > limits.max_total_bytes) return over_total();
    if (size_known && declared > limits.max_file_bytes) {
      file.size = declared;  // listed, never unpacked
      total += declared;
      archive_read_data_skip(a.get());
      out->files[*norm] = std::move(file);
      continue;
    }
    // Size unknown (streamed zip) or small: unpack, counting what comes out.
    char buf[1 << 16];
    uint64_t got = 0;
    for (;;) {
      la_ssize_t n = archive_read_data(a.get(), buf, sizeof buf);
      if (n < 0) return fail("unpacking " + raw);
      if (n == 0) break;
      got += static_cast<uint64_t>(n);
      if (total + got > limits.max_total_bytes) return over_total();
      if (got <= limits.max_file_bytes) file.text.append(buf, static_cast<size_t>(n));
    }
    if (got > limits.max_file_bytes) file.text.clear();
    file.size = got;
    total += got;
    out->files[*norm] = std::move(file);
  }
  return std::shared_ptr<const ArchiveContents>(std::move(out));
}

std::unique_ptr<SourceTree> open_archive_tree(std::shared_ptr<const ArchiveContents> contents,
                                              const std::string& folder) {
  return std::make_unique<ArchiveTree>(std::move(contents), folder);
}

std::vector<std::string> top_level_folders(const ArchiveContents& contents, std::vector<std::string>* top_level_files) {
  std::set<std::string> folders;
  for (const auto& [path, file] : contents.files) {
    size_t slash = path.find('/');
    if (slash == std::string::npos) {
      if (top_level_files) top_level_files->push_back(path);
    } else {
      folders.insert(path.substr(0, slash));
    }
  }
  return {folders.begin(), folders.end()};
}

}  // namespace clgen::corpus
