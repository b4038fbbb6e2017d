// The project's one error model: Status (ok or an error with a code and a
// message that names what failed and why) and Expected<T> (a value or a Status).
#pragma once

#include <cassert>
#include <string>
#include <utility>
#include <variant>

namespace clgen {

enum class ErrorCode {
  kOk = 0,
  kUsage,            // the command line is wrong (the CLI exits with 2)
  kInvalidArgument,  // bad input: specs, config values, files
  kNotFound,         // a file, row, device or key that does not exist
  kAlreadyExists,
  kIo,               // reading/writing files, sockets, processes
  kDatabase,         // SQLite
  kParse,            // malformed text: TOML, JSON, kernel sources
  kUnavailable,      // a dependency or device is missing at run time
  kTimeout,
  kCancelled,        // interrupted by the user (SIGINT/SIGTERM)
  kInternal,         // a bug: an invariant did not hold
};

// Short lowercase name of a code, e.g. "not found".
const char* error_code_name(ErrorCode code);

class [[nodiscard]] Status {
 public:
  Status() = default;  // ok
  Status(ErrorCode code, std::string message)
      : code_(code), message_(std::move(message)) {}

  static Status ok_status() { return Status(); }

  bool ok() const { return code_ == ErrorCode::kOk; }
  ErrorCode code() const { return code_; }
  const std::string& message() const { return message_; }

  // Returns a copy whose message is "context: message"; ok stays ok. Used to
  // build messages such as "loading config: configs/tiny.toml: ...".
  Status with_context(const std::string& context) const;

  // "message" for errors, "ok" otherwise.
  std::string to_string() const;

 private:
  ErrorCode code_ = ErrorCode::kOk;
  std::string message_;
};

inline Status ok_status() { return Status(); }
Status usage_error(std::string message);
Status invalid_argument(std::string message);
Status not_found(std::string message);
Status io_error(std::string message);
Status database_error(std::string message);
Status parse_error(std::string message);
Status unavailable(std::string message);
Status internal_error(std::string message);
Status cancelled(std::string message);
Status timeout_error(std::string message);

// Expected<T> holds a T or an error Status, never an ok Status.
template <typename T>
class [[nodiscard]] Expected {
 public:
  Expected(T value) : v_(std::move(value)) {}  // NOLINT: implicit by design
  Expected(Status status) : v_(std::move(status)) {  // NOLINT
    assert(!std::get<Status>(v_).ok() && "Expected built from an ok Status");
  }

  bool ok() const { return std::holds_alternative<T>(v_); }
  explicit operator bool() const { return ok(); }

  // The error; ok_status() when a value is held.
  Status status() const { return ok() ? Status() : std::get<Status>(v_); }

  T& value() & { return std::get<T>(v_); }
  const T& value() const& { return std::get<T>(v_); }
  T&& value() && { return std::get<T>(std::move(v_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }

 private:
  std::variant<T, Status> v_;
};

}  // namespace clgen

#define CLGEN_CONCAT_INNER(a, b) a##b
#define CLGEN_CONCAT(a, b) CLGEN_CONCAT_INNER(a, b)

// Returns the Status of `expr` from the enclosing function if it is an error.
#define RETURN_IF_ERROR(expr)                    \
  do {                                           \
    ::clgen::Status _clgen_st = (expr);          \
    if (!_clgen_st.ok()) return _clgen_st;       \
  } while (0)

// Like RETURN_IF_ERROR, adding "context: " in front of the message.
#define RETURN_IF_ERROR_CTX(expr, context)                          \
  do {                                                              \
    ::clgen::Status _clgen_st = (expr);                             \
    if (!_clgen_st.ok()) return _clgen_st.with_context(context);    \
  } while (0)

// ASSIGN_OR_RETURN(auto x, f()): declares x from an Expected or returns its error.
#define ASSIGN_OR_RETURN(lhs, expr) \
  CLGEN_ASSIGN_OR_RETURN_IMPL(CLGEN_CONCAT(_clgen_exp_, __LINE__), lhs, expr)
#define CLGEN_ASSIGN_OR_RETURN_IMPL(tmp, lhs, expr) \
  auto tmp = (expr);                                \
  if (!tmp.ok()) return tmp.status();               \
  lhs = std::move(tmp).value()
