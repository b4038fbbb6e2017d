// The sample filter's Clang part (clang_filter.h), in this process or in a
// clgen-clang-worker, and its request and answer as JSON.
#include "sampler/clang_filter.h"

#include <cctype>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "corpus/preprocess/usefulness.h"
#include "features/static_features.h"
#include "sampler/store.h"
#include "support/worker_answer.h"

namespace clgen::sampler {

void to_json(nlohmann::json& j, const ClangFilterOptions& o) {
  j = {{"prototype", o.prototype}, {"usefulness_check", o.usefulness_check}, {"features", o.features}};
}

void from_json(const nlohmann::json& j, ClangFilterOptions& o) {
  o.prototype = j.at("prototype").get<std::string>();
  o.usefulness_check = j.at("usefulness_check").get<bool>();
  o.features = j.at("features").get<bool>();
}

void to_json(nlohmann::json& j, const ClangFilterVerdict& v) {
  j = {{"status", v.status},
       {"category", v.category},
       {"reason", v.reason},
       {"normalized_text", v.normalized_text},
       {"instruction_count", v.instruction_count}};
  if (v.features) j["features"] = *v.features;
}

void from_json(const nlohmann::json& j, ClangFilterVerdict& v) {
  v.status = j.at("status").get<std::string>();
  v.category = j.at("category").get<std::string>();
  v.reason = j.at("reason").get<std::string>();
  v.normalized_text = j.at("normalized_text").get<std::string>();
  v.instruction_count = j.at("instruction_count").get<int64_t>();
  if (j.contains("features")) v.features = j.at("features").get<GreweVector>();
}

preprocess::ClangBudget default_filter_budget() {
  preprocess::ClangBudget budget;
  budget.time_limit_s = 10;
  return budget;
}

preprocess::CompileOptions strict_sample_options() {
  preprocess::CompileOptions strict;
  strict.infer_names = false;
  strict.opencl20_fallback = false;
  return strict;
}

std::string prototype_shape(std::string_view prototype) {
  // Words and punctuation in order; a word right before ',' or ')' in the
  // parameter list, and the word right before '(', are names.
  std::vector<std::string> words;
  for (size_t i = 0; i < prototype.size();) {
    const char c = prototype[i];
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
      size_t j = i;
      while (j < prototype.size() && (std::isalnum(static_cast<unsigned char>(prototype[j])) || prototype[j] == '_'))
        ++j;
      words.emplace_back(prototype.substr(i, j - i));
      i = j;
    } else {
      if (!std::isspace(static_cast<unsigned char>(c))) words.emplace_back(1, c);
      ++i;
    }
  }
  std::string out;
  int depth = 0;
  for (size_t i = 0; i < words.size(); ++i) {
    const std::string& w = words[i];
    const std::string next = i + 1 < words.size() ? words[i + 1] : "";
    const bool word = std::isalnum(static_cast<unsigned char>(w[0])) || w[0] == '_';
    const bool name = word && ((depth == 0 && next == "(") || (depth == 1 && (next == "," || next == ")")));
    if (w == "(") ++depth;
    if (w == ")") --depth;
    if (name) continue;
    if (!out.empty()) out += ' ';
    out += w;
  }
  return out;
}

namespace {
// The first line of a normalized text that opens a kernel, or "".
std::string kernel_prototype_line(std::string_view text) {
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    if (text.compare(at, 9, "__kernel ") == 0) return std::string(text.substr(at, end - at));
    at = end + 1;
  }
  return "";
}
}  // namespace

ClangFilterVerdict filter_with_clang(std::string_view text, const ClangFilterOptions& options) {
  ClangFilterVerdict v;
  preprocess::RewriteResult r = preprocess::rewrite(text, strict_sample_options());
  v.instruction_count = r.instruction_count;
  v.recovered_crash = r.category == preprocess::category::kClangCrash;
  if (r.status != preprocess::RewriteStatus::kOk) {
    v.status =
        r.status == preprocess::RewriteStatus::kRewriteBug ? sample_status::kRewriteBug : sample_status::kRejected;
    v.category = r.category;
    v.reason = r.reason;
    return v;
  }
  v.normalized_text = std::move(r.text);
  // The rewriter renames in order of appearance, so a kernel after helpers
  // has other names than the prototype: the two compare without names.
  if (!options.prototype.empty()) {
    bool one_kernel = r.kernels.size() == 1;
    bool same =
        one_kernel && prototype_shape(kernel_prototype_line(v.normalized_text)) == prototype_shape(options.prototype);
    if (!one_kernel || !same) {
      v.status = sample_status::kWrongPrototype;
      v.category = "wrong_prototype";
      v.reason = one_kernel ? "the normalized prototype differs from the requested one"
                            : fmt::format("{} kernels instead of one", r.kernels.size());
      return v;
    }
  }
  if (options.usefulness_check) {
    // A failure to parse what just compiled proves nothing: the kernel stays.
    Expected<preprocess::UsefulnessVerdict> useful = preprocess::check_usefulness(v.normalized_text);
    if (useful.status().code() == ErrorCode::kInternal) v.recovered_crash = true;
    if (useful.ok() && !useful->useful) {
      v.status = sample_status::kRejected;
      v.category = useful->category;
      v.reason = useful->reason;
      return v;
    }
  }
  v.status = sample_status::kAccepted;
  if (options.features) {
    // The sampled kernel is the text's first (its seed starts it).
    Expected<std::vector<features::StaticFeatures>> f = features::extract_static_features(v.normalized_text, "sample");
    if (f.ok() && !f->empty()) v.features = features::grewe_vector(f->front());
  }
  return v;
}

Expected<ClangFilterVerdict> filter_with_clang(preprocess::ClangWorkers& workers, std::string_view text,
                                               const ClangFilterOptions& options) {
  if (!workers.budget().isolated) return filter_with_clang(text, options);
  nlohmann::json reply;
  preprocess::ClangWorkers::Verdict ended;
  RETURN_IF_ERROR(workers.call(kFilterOp, text, strict_sample_options(), nlohmann::json(options), reply, ended));
  if (!ended.category.empty()) {
    ClangFilterVerdict v;
    v.status = sample_status::kRejected;
    v.category = ended.category;
    v.reason = ended.reason;
    return v;
  }
  return worker_result<ClangFilterVerdict>(reply, "Clang worker");
}

std::string answer_filter_request(std::string_view text, const nlohmann::json& params, bool& exit_after) {
  ClangFilterOptions options;
  try {
    options = params.get<ClangFilterOptions>();
  } catch (const std::exception& e) {
    return encode_worker_error(parse_error(std::string("malformed filter_sample parameters: ") + e.what()));
  }
  ClangFilterVerdict v = filter_with_clang(text, options);
  exit_after = v.recovered_crash;
  return encode_worker_answer(v, exit_after);
}

}  // namespace clgen::sampler
