// The worker's request loop: one Executor (contexts and programs cached
// between requests) behind the length-prefixed JSON protocol.
#include "driver/serve.h"

#include <nlohmann/json.hpp>

#include "driver/devices.h"
#include "driver/executor.h"
#include "driver/job.h"
#include "driver/protocol.h"

namespace clgen::driver {

namespace {

// Mined sources may hold invalid UTF-8: replaced rather than thrown on.
std::string dump(const nlohmann::json& j) {
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

nlohmann::json error_reply(const Status& st) {
  return {{"ok", false}, {"error", st.message()}, {"code", static_cast<int>(st.code())}};
}

template <typename T>
nlohmann::json reply_for(const Expected<T>& value) {
  return value.ok() ? nlohmann::json{{"ok", true}, {"result", *value}} : error_reply(value.status());
}

}  // namespace

int run_worker(int in_fd, int out_fd) {
  Executor executor;
  std::string frame;
  while (true) {
    Status st = read_frame(in_fd, frame, -1);
    if (!st.ok()) return 0;  // the parent closed the pipe
    nlohmann::json reply;
    try {
      nlohmann::json request = nlohmann::json::parse(frame);
      const std::string op = request.at("op").get<std::string>();
      if (op == "exit") return 0;
      if (op == "ping") {
        reply = {{"ok", true}, {"result", "pong"}};
      } else if (op == "prepare") {
        Status prepared =
            executor.prepare(request.at("platform_index").get<int>(), request.at("device_index").get<int>());
        reply = prepared.ok() ? nlohmann::json{{"ok", true}, {"result", "ready"}} : error_reply(prepared);
      } else if (op == "drive") {
        reply = reply_for(executor.drive(request.at("job").get<DriveJob>()));
      } else if (op == "list") {
        reply = reply_for(executor.list_kernels(
            request.at("source").get<std::string>(), request.at("build_options").get<std::string>(),
            request.at("platform_index").get<int>(), request.at("device_index").get<int>()));
      } else if (op == "devices") {
        Expected<DeviceReport> report = [&]() -> Expected<DeviceReport> {
          ASSIGN_OR_RETURN(auto devices, list_devices());
          return DeviceReport{std::move(devices), icd_loader_version()};
        }();
        reply = reply_for(report);
      } else {
        reply = error_reply(invalid_argument("unknown worker request '" + op + "'"));
      }
    } catch (const std::exception& e) {
      reply = error_reply(invalid_argument(std::string("malformed worker request: ") + e.what()));
    }
    if (executor.poisoned()) reply["exiting"] = true;
    if (!write_frame(out_fd, dump(reply)).ok()) return 1;
    if (executor.poisoned()) return 3;
  }
}

}  // namespace clgen::driver
