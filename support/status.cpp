// Status helpers.
#include "support/status.h"

namespace clgen {

const char* error_code_name(ErrorCode code) {
  switch (code) {
    case ErrorCode::kOk: return "ok";
    case ErrorCode::kUsage: return "usage error";
    case ErrorCode::kInvalidArgument: return "invalid argument";
    case ErrorCode::kNotFound: return "not found";
    case ErrorCode::kAlreadyExists: return "already exists";
    case ErrorCode::kIo: return "i/o error";
    case ErrorCode::kDatabase: return "database error";
    case ErrorCode::kParse: return "parse error";
    case ErrorCode::kUnavailable: return "unavailable";
    case ErrorCode::kTimeout: return "timeout";
    case ErrorCode::kCancelled: return "cancelled";
    case ErrorCode::kInternal: return "internal error";
  }
  return "unknown";
}

Status Status::with_context(const std::string& context) const {
  if (ok()) return *this;
  return Status(code_, context + ": " + message_);
}

std::string Status::to_string() const { return ok() ? "ok" : message_; }

Status usage_error(std::string m) { return {ErrorCode::kUsage, std::move(m)}; }
Status invalid_argument(std::string m) { return {ErrorCode::kInvalidArgument, std::move(m)}; }
Status not_found(std::string m) { return {ErrorCode::kNotFound, std::move(m)}; }
Status io_error(std::string m) { return {ErrorCode::kIo, std::move(m)}; }
Status database_error(std::string m) { return {ErrorCode::kDatabase, std::move(m)}; }
Status parse_error(std::string m) { return {ErrorCode::kParse, std::move(m)}; }
Status unavailable(std::string m) { return {ErrorCode::kUnavailable, std::move(m)}; }
Status internal_error(std::string m) { return {ErrorCode::kInternal, std::move(m)}; }
Status cancelled(std::string m) { return {ErrorCode::kCancelled, std::move(m)}; }
Status timeout_error(std::string m) { return {ErrorCode::kTimeout, std::move(m)}; }

}  // namespace clgen
