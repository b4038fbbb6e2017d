// Length-prefixed frames over pipes, with deadlines (frames.h).
#include "support/frames.h"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <cstring>

namespace clgen {

namespace {

constexpr uint32_t kMaxFrame = 256u << 20;

Status write_all(int fd, const char* data, size_t n) {
  while (n > 0) {
    ssize_t w = ::write(fd, data, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return io_error(std::string("writing to a pipe: ") + std::strerror(errno));
    }
    data += w;
    n -= static_cast<size_t>(w);
  }
  return ok_status();
}

Status read_all(int fd, char* data, size_t n, std::chrono::steady_clock::time_point deadline,
                bool forever) {
  while (n > 0) {
    int wait_ms = -1;
    if (!forever) {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                      deadline - std::chrono::steady_clock::now())
                      .count();
      if (left <= 0) return timeout_error("no answer before the deadline");
      wait_ms = static_cast<int>(std::min<long long>(left, 1000));
    }
    pollfd p{fd, POLLIN, 0};
    int r = ::poll(&p, 1, wait_ms);
    if (r < 0) {
      if (errno == EINTR) continue;
      return io_error(std::string("poll: ") + std::strerror(errno));
    }
    if (r == 0) continue;
    ssize_t got = ::read(fd, data, n);
    if (got < 0) {
      if (errno == EINTR || errno == EAGAIN) continue;
      return io_error(std::string("reading pipe: ") + std::strerror(errno));
    }
    if (got == 0) return io_error("end of stream");
    data += got;
    n -= static_cast<size_t>(got);
  }
  return ok_status();
}

}  // namespace

Status write_frame(int fd, const std::string& payload) {
  if (payload.size() > kMaxFrame) return invalid_argument("message too large for a pipe frame");
  uint32_t n = static_cast<uint32_t>(payload.size());
  unsigned char header[4] = {static_cast<unsigned char>(n), static_cast<unsigned char>(n >> 8),
                             static_cast<unsigned char>(n >> 16), static_cast<unsigned char>(n >> 24)};
  RETURN_IF_ERROR(write_all(fd, reinterpret_cast<const char*>(header), 4));
  return write_all(fd, payload.data(), payload.size());
}

Status read_frame(int fd, std::string& payload, int timeout_ms) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  bool forever = timeout_ms < 0;
  unsigned char header[4];
  RETURN_IF_ERROR(read_all(fd, reinterpret_cast<char*>(header), 4, deadline, forever));
  uint32_t n = header[0] | (header[1] << 8) | (header[2] << 16) | (uint32_t{header[3]} << 24);
  if (n > kMaxFrame) return io_error("frame of " + std::to_string(n) + " bytes is too large");
  payload.assign(n, '\0');
  return read_all(fd, payload.data(), n, deadline, forever);
}

}  // namespace clgen
