// JSON form of jobs and results, and size strings.
#include "driver/job.h"

#include <optional>

#include <nlohmann/json.hpp>

#include "support/text.h"

namespace clgen::driver {

void to_json(nlohmann::json& j, const ArgInfo& a) {
  j = {{"name", a.name},
       {"type", a.type},
       {"is_pointer", a.is_pointer},
       {"address_space", address_space_name(a.address_space)},
       {"is_const", a.is_const},
       {"kind", static_cast<int>(a.kind)},
       {"element_size", a.element_size},
       {"vector_width", a.vector_width},
       {"reads", a.reads},
       {"writes", a.writes},
       {"supported", a.supported},
       {"unsupported_reason", a.unsupported_reason},
       {"record_bytes", a.record_bytes},
       {"half", a.half},
       {"image", a.image},
       {"image_shape", static_cast<int>(a.image_shape)},
       {"sampler", a.sampler}};
}

void from_json(const nlohmann::json& j, ArgInfo& a) {
  a.name = j.at("name").get<std::string>();
  a.type = j.at("type").get<std::string>();
  a.is_pointer = j.at("is_pointer").get<bool>();
  auto space = parse_address_space(j.at("address_space").get<std::string>());
  if (!space.ok()) throw nlohmann::json::other_error::create(501, space.status().message(), &j);
  a.address_space = *space;
  a.is_const = j.at("is_const").get<bool>();
  a.kind = static_cast<ScalarKind>(j.at("kind").get<int>());
  a.element_size = j.at("element_size").get<int>();
  a.vector_width = j.at("vector_width").get<int>();
  a.reads = j.at("reads").get<bool>();
  a.writes = j.at("writes").get<bool>();
  a.supported = j.at("supported").get<bool>();
  a.unsupported_reason = j.at("unsupported_reason").get<std::string>();
  a.record_bytes = j.value("record_bytes", 0);
  a.half = j.value("half", false);
  a.image = j.value("image", false);
  a.image_shape = static_cast<ImageShape>(j.value("image_shape", 0));
  a.sampler = j.value("sampler", false);
}

void to_json(nlohmann::json& j, const KernelSignature& k) {
  j = {{"name", k.name}, {"args", k.args}};
}

void from_json(const nlohmann::json& j, KernelSignature& k) {
  k.name = j.at("name").get<std::string>();
  k.args = j.at("args").get<std::vector<ArgInfo>>();
}

void to_json(nlohmann::json& j, const DriveJob& job) {
  j = {{"source", job.source},
       {"kernel_name", job.kernel_name},
       {"args", job.args},
       {"args_from_device", job.args_from_device},
       {"platform_index", job.platform_index},
       {"device_index", job.device_index},
       {"global_size", job.global_size},
       {"local_size", job.local_size},
       {"runs", job.runs},
       {"warmup", job.warmup},
       {"seed", job.seed},
       {"build_options", job.build_options},
       {"check", job.check},
       {"scalar_fallback", job.scalar_fallback},
       {"integer_scalars_one", job.integer_scalars_one}};
}

void from_json(const nlohmann::json& j, DriveJob& job) {
  job.source = j.at("source").get<std::string>();
  job.kernel_name = j.at("kernel_name").get<std::string>();
  job.args = j.at("args").get<std::vector<ArgInfo>>();
  job.args_from_device = j.at("args_from_device").get<bool>();
  job.platform_index = j.at("platform_index").get<int>();
  job.device_index = j.at("device_index").get<int>();
  job.global_size = j.at("global_size").get<std::vector<uint64_t>>();
  job.local_size = j.at("local_size").get<std::vector<uint64_t>>();
  job.runs = j.at("runs").get<int>();
  job.warmup = j.at("warmup").get<int>();
  job.seed = j.at("seed").get<uint64_t>();
  job.build_options = j.at("build_options").get<std::string>();
  job.check = j.at("check").get<bool>();
  job.scalar_fallback = j.value("scalar_fallback", true);
  job.integer_scalars_one = j.value("integer_scalars_one", false);
}

void to_json(nlohmann::json& j, const DriveResult& r) {
  j = {{"outcome", outcome_name(r.outcome)},
       {"message", r.message},
       {"local_size", r.local_size},
       {"transferred_bytes", r.transferred_bytes},
       {"transfer_ns", r.transfer_ns},
       {"kernel_ns", r.kernel_ns},
       {"kernel_local_mem", r.kernel_local_mem},
       {"kernel_private_mem", r.kernel_private_mem},
       {"kernel_work_group_size", r.kernel_work_group_size},
       {"scalar_value", r.scalar_value}};
}

void from_json(const nlohmann::json& j, DriveResult& r) {
  auto outcome = parse_outcome(j.at("outcome").get<std::string>());
  if (!outcome.ok())
    throw nlohmann::json::other_error::create(501, outcome.status().message(), &j);
  r.outcome = *outcome;
  r.message = j.at("message").get<std::string>();
  r.local_size = j.at("local_size").get<std::vector<uint64_t>>();
  r.transferred_bytes = j.at("transferred_bytes").get<uint64_t>();
  r.transfer_ns = j.at("transfer_ns").get<std::vector<uint64_t>>();
  r.kernel_ns = j.at("kernel_ns").get<std::vector<uint64_t>>();
  r.kernel_local_mem = j.at("kernel_local_mem").get<uint64_t>();
  r.kernel_private_mem = j.at("kernel_private_mem").get<uint64_t>();
  r.kernel_work_group_size = j.at("kernel_work_group_size").get<uint64_t>();
  r.scalar_value = j.value("scalar_value", uint64_t{0});
}

std::string format_size(const std::vector<uint64_t>& size) {
  std::string s;
  for (size_t i = 0; i < size.size(); ++i) s += (i ? "," : "") + std::to_string(size[i]);
  return s;
}

Expected<std::vector<uint64_t>> parse_size(const std::string& text) {
  std::vector<uint64_t> out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t comma = text.find(',', start);
    std::string part = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    std::optional<uint64_t> parsed = parse_uint64(part);
    if (!parsed) {
      return invalid_argument("size '" + text +
                              "': expected 1 to 3 positive integers (below 2^64) separated by commas");
    }
    uint64_t v = *parsed;
    if (v == 0) return invalid_argument("size '" + text + "': sizes must be positive");
    out.push_back(v);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (out.empty() || out.size() > 3)
    return invalid_argument("size '" + text + "': expected 1 to 3 dimensions");
  return out;
}

std::vector<uint64_t> automatic_local_size(const std::vector<uint64_t>& global, uint64_t limit,
                                           const std::vector<uint64_t>& max_items) {
  std::vector<uint64_t> local(global.size(), 1);
  uint64_t product = 1;
  bool grew = true;
  while (grew) {
    grew = false;
    for (size_t d = 0; d < global.size(); ++d) {
      uint64_t next = local[d] * 2;
      uint64_t item_limit = d < max_items.size() ? max_items[d] : UINT64_MAX;
      if (global[d] % next == 0 && next <= item_limit && product * 2 <= limit) {
        local[d] = next;
        product *= 2;
        grew = true;
      }
    }
  }
  return local;
}

}  // namespace clgen::driver
