// The answers of clgen's Clang workers (clgen-clang-worker,
// clgen-analysis-worker), one JSON object per frame: {"ok":true,"result":R}
// or {"ok":false,"error":MESSAGE,"code":ERRORCODE}. Both sides of both
// workers encode and decode them here. Header only: its users link
// nlohmann_json, clgen_support does not.
#pragma once

#include <exception>
#include <string>

#include <nlohmann/json.hpp>

#include "support/status.h"

namespace clgen {

// Worker JSON quotes its input (in Clang's messages), which may not be
// UTF-8: invalid bytes are replaced, not thrown on.
inline std::string dump_worker_json(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// With `exiting`, the answer tells the parent that the worker exits after it
// (it recovered from a Clang crash and a fresh one takes the next request).
inline std::string encode_worker_answer(const nlohmann::json& result, bool exiting = false) {
  nlohmann::json answer = {{"ok", true}, {"result", result}};
  if (exiting) answer["exiting"] = true;
  return dump_worker_json(answer);
}

inline std::string encode_worker_error(const Status& status) {
  return dump_worker_json({{"ok", false}, {"error", status.message()}, {"code", static_cast<int>(status.code())}});
}

// The parsed answer; a discarded value (which every accessor rejects) when it
// is not JSON.
inline nlohmann::json parse_worker_answer(const std::string& answer) {
  return nlohmann::json::parse(answer, nullptr, /*allow_exceptions=*/false);
}

// The result of a parsed answer as Result (by its from_json), or the
// worker's error with its code. An answer of another shape is kInternal
// naming `worker`: a broken worker, never the input's verdict.
template <typename Result>
Expected<Result> worker_result(const nlohmann::json& answer, const std::string& worker) {
  try {
    if (!answer.at("ok").get<bool>())
      return Status(static_cast<ErrorCode>(answer.at("code").get<int>()), answer.at("error").get<std::string>());
    return answer.at("result").get<Result>();
  } catch (const std::exception& e) {
    return internal_error("malformed " + worker + " answer: " + e.what());
  }
}

}  // namespace clgen
