// The parent <-> Clang worker protocol: requests are a JSON header line
// followed by the raw input bytes (so text that is not UTF-8 reaches the
// worker unchanged); answers are support/worker_answer.h's JSON. Shared by
// budget.cpp (the parent), sampler/clang_worker_main.cpp (the worker) and
// the ops other modules send through ClangWorkers::call (the sampler's
// filter).
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "corpus/preprocess/preprocess.h"
#include "support/status.h"

namespace clgen::preprocess {

// Operations: "ping" (compiles a small kernel with the options, so a worker
// that cannot work under its limits fails at start), "rewrite",
// "rewrite_kernels", "filter_sample" (sampler/clang_filter.h), "exit".
// `params`: the op's own settings (null for preprocess's ops).
std::string encode_request(const std::string& op, const CompileOptions& options, std::string_view text,
                           const nlohmann::json& params = nullptr);

struct ClangRequest {
  std::string op;
  CompileOptions options;
  nlohmann::json params;  // null when the request has none
  std::string text;
};
// Fails (kParse) on a malformed request.
Expected<ClangRequest> decode_request(const std::string& frame);

void to_json(nlohmann::json& j, const RewriteResult& r);
void from_json(const nlohmann::json& j, RewriteResult& r);
void to_json(nlohmann::json& j, const FileRewriteResult& r);
void from_json(const nlohmann::json& j, FileRewriteResult& r);

}  // namespace clgen::preprocess
