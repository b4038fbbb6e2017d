// File helpers.
#include "support/files.h"

#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace clgen {

namespace {
Status errno_status(const std::string& what, const std::string& path, int err) {
  std::string msg = what + " " + path + ": " + std::strerror(err);
  return err == ENOENT ? not_found(msg) : io_error(msg);
}
}  // namespace

Expected<std::string> read_file(const std::string& path, uint64_t max_bytes) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno_status("reading", path, errno);
  struct stat st {};
  if (fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    return errno_status("reading", path, err);
  }
  if (S_ISDIR(st.st_mode)) {
    ::close(fd);
    return invalid_argument("reading " + path + ": is a directory");
  }
  if (static_cast<uint64_t>(st.st_size) > max_bytes) {
    ::close(fd);
    return invalid_argument("reading " + path + ": " + std::to_string(st.st_size) +
                            " bytes exceeds the limit of " + std::to_string(max_bytes));
  }
  std::string data;
  data.reserve(static_cast<size_t>(st.st_size));
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      return errno_status("reading", path, err);
    }
    if (n == 0) break;
    data.append(buf, static_cast<size_t>(n));
    if (data.size() > max_bytes) {  // the file grew while we read it
      ::close(fd);
      return invalid_argument("reading " + path + ": exceeds the limit of " +
                              std::to_string(max_bytes) + " bytes");
    }
  }
  ::close(fd);
  return data;
}

Status write_file_atomic(const std::string& path, std::string_view data) {
  std::string tmp = path + ".tmp." + std::to_string(::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return errno_status("writing", tmp, errno);
  const char* p = data.data();
  size_t left = data.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      int err = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      return errno_status("writing", tmp, err);
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  if (::fsync(fd) != 0 || ::close(fd) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return errno_status("writing", tmp, err);
  }
  if (::rename(tmp.c_str(), path.c_str()) != 0) {
    int err = errno;
    ::unlink(tmp.c_str());
    return errno_status("renaming to", path, err);
  }
  return ok_status();
}

namespace {
int remove_entry(const char* path, const struct stat*, int, struct FTW*) { return ::remove(path); }
}  // namespace

Status remove_tree(const std::string& path) {
  struct stat st;
  if (::lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT) return ok_status();
    return io_error("removing " + path + ": " + std::strerror(errno));
  }
  // Depth first, not following symlinks, not crossing into other file systems.
  if (::nftw(path.c_str(), remove_entry, 32, FTW_DEPTH | FTW_PHYS | FTW_MOUNT) != 0 && errno != ENOENT)
    return io_error("removing " + path + ": " + std::strerror(errno));
  return ok_status();
}

Status remove_file(const std::string& path) {
  if (::unlink(path.c_str()) != 0 && errno != ENOENT)
    return io_error("removing " + path + ": " + std::strerror(errno));
  return ok_status();
}

Status rename_path(const std::string& from, const std::string& to) {
  if (::rename(from.c_str(), to.c_str()) != 0)
    return io_error("renaming " + from + " to " + to + ": " + std::strerror(errno));
  return ok_status();
}

std::optional<std::string> real_path(const std::string& path) {
  char* r = ::realpath(path.c_str(), nullptr);
  if (!r) return std::nullopt;
  std::string out(r);
  ::free(r);
  return out;
}

}  // namespace clgen
