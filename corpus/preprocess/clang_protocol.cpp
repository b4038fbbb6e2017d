// The Clang worker protocol (clang_protocol.h): options and results as JSON.
#include "corpus/preprocess/clang_protocol.h"

#include "support/worker_answer.h"

namespace clgen::preprocess {

namespace {

nlohmann::json options_json(const CompileOptions& o) {
  return {{"libclc", o.header == BuiltinHeader::kLibclc},
          {"shim", o.shim},
          {"infer_names", o.infer_names},
          {"opencl20", o.opencl20},
          {"opencl20_fallback", o.opencl20_fallback},
          {"to_ptx", o.to_ptx},
          {"keep_ir", o.keep_ir},
          {"min_instructions", o.min_instructions},
          {"check_only", o.check_only},
          {"require_definitions", o.require_definitions},
          {"error_limit", o.error_limit}};
}

CompileOptions options_of(const nlohmann::json& j) {
  CompileOptions o;
  o.header = j.at("libclc").get<bool>() ? BuiltinHeader::kLibclc : BuiltinHeader::kClang;
  o.shim = j.at("shim").get<bool>();
  o.infer_names = j.at("infer_names").get<bool>();
  o.opencl20 = j.at("opencl20").get<bool>();
  o.opencl20_fallback = j.at("opencl20_fallback").get<bool>();
  o.to_ptx = j.at("to_ptx").get<bool>();
  o.keep_ir = j.at("keep_ir").get<bool>();
  o.min_instructions = j.at("min_instructions").get<int>();
  o.check_only = j.at("check_only").get<bool>();
  o.require_definitions = j.at("require_definitions").get<bool>();
  o.error_limit = j.at("error_limit").get<int>();
  return o;
}

RewriteStatus status_of(const std::string& name) {
  if (name == "ok") return RewriteStatus::kOk;
  if (name == "rewrite_bug") return RewriteStatus::kRewriteBug;
  return RewriteStatus::kRejected;
}

}  // namespace

std::string encode_request(const std::string& op, const CompileOptions& options, std::string_view text,
                           const nlohmann::json& params) {
  nlohmann::json header = {{"op", op}, {"options", options_json(options)}};
  if (!params.is_null()) header["params"] = params;
  std::string frame = dump_worker_json(header);
  frame += '\n';
  frame.append(text.data(), text.size());
  return frame;
}

Expected<ClangRequest> decode_request(const std::string& frame) {
  size_t newline = frame.find('\n');
  try {
    nlohmann::json header = nlohmann::json::parse(frame.substr(0, newline));
    ClangRequest r;
    r.op = header.at("op").get<std::string>();
    if (header.contains("options")) r.options = options_of(header.at("options"));
    if (header.contains("params")) r.params = header.at("params");
    if (newline != std::string::npos) r.text = frame.substr(newline + 1);
    return r;
  } catch (const std::exception& e) {
    return parse_error(std::string("malformed Clang worker request: ") + e.what());
  }
}

void to_json(nlohmann::json& j, const RewriteResult& r) {
  j = {{"status", rewrite_status_name(r.status)},
       {"category", r.category},
       {"reason", r.reason},
       {"text", r.text},
       {"kernels", r.kernels},
       {"instruction_count", r.instruction_count},
       {"kernel_name", r.kernel_name},
       {"inferred", r.inferred},
       {"opencl20", r.opencl20}};
}

void from_json(const nlohmann::json& j, RewriteResult& r) {
  r.status = status_of(j.at("status").get<std::string>());
  r.category = j.at("category").get<std::string>();
  r.reason = j.at("reason").get<std::string>();
  r.text = j.at("text").get<std::string>();
  r.kernels = j.at("kernels").get<std::vector<std::string>>();
  r.instruction_count = j.at("instruction_count").get<int64_t>();
  r.kernel_name = j.at("kernel_name").get<std::string>();
  r.inferred = j.at("inferred").get<std::string>();
  r.opencl20 = j.at("opencl20").get<bool>();
}

void to_json(nlohmann::json& j, const FileRewriteResult& r) {
  j = {{"status", rewrite_status_name(r.status)},
       {"category", r.category},
       {"reason", r.reason},
       {"kernels", r.kernels},
       {"inferred", r.inferred},
       {"opencl20", r.opencl20}};
}

void from_json(const nlohmann::json& j, FileRewriteResult& r) {
  r.status = status_of(j.at("status").get<std::string>());
  r.category = j.at("category").get<std::string>();
  r.reason = j.at("reason").get<std::string>();
  r.kernels = j.at("kernels").get<std::vector<RewriteResult>>();
  r.inferred = j.at("inferred").get<std::string>();
  r.opencl20 = j.at("opencl20").get<bool>();
}

}  // namespace clgen::preprocess
