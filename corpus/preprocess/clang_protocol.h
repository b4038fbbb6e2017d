// The preprocessor's parent <-> Clang worker protocol (private to
// preprocess): requests are a JSON header line followed by the raw input
// bytes (so text that is not UTF-8 reaches the worker unchanged); answers are
// JSON. Shared by budget.cpp (the parent) and clang_worker_main.cpp.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "corpus/preprocess/preprocess.h"
#include "support/status.h"

namespace clgen::preprocess {

// Operations: "ping" (compiles a small kernel with the options, so a worker
// that cannot work under its limits fails at start), "rewrite",
// "rewrite_kernels", "exit".
std::string encode_request(const std::string& op, const CompileOptions& options, std::string_view text);

struct ClangRequest {
  std::string op;
  CompileOptions options;
  std::string text;
};
// Fails (kParse) on a malformed request.
Expected<ClangRequest> decode_request(const std::string& frame);

// Answers: {"ok":true,"result":...} or {"ok":false,"error":...}; with
// `exiting`, the answer says that the worker exits after it.
std::string encode_answer(const nlohmann::json& result, bool exiting = false);
std::string encode_error(const Status& status);

void to_json(nlohmann::json& j, const RewriteResult& r);
void from_json(const nlohmann::json& j, RewriteResult& r);
void to_json(nlohmann::json& j, const FileRewriteResult& r);
void from_json(const nlohmann::json& j, FileRewriteResult& r);

}  // namespace clgen::preprocess
