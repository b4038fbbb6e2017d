// The constraint tables as a versioned JSON file beside a model's checkpoint.
#include <algorithm>
#include <filesystem>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "sampler/constraint_tables.h"
#include "support/files.h"

namespace clgen::sampler {

namespace {

constexpr const char* kFormat = "clgen-constraint-tables";
constexpr int kVersion = 1;

std::vector<std::string> sorted(const std::unordered_set<std::string>& set) {
  std::vector<std::string> out(set.begin(), set.end());
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::string ConstraintTables::to_json() const {
  nlohmann::ordered_json j;
  j["format"] = kFormat;
  j["version"] = kVersion;
  j["fixed"] = sorted(fixed_);
  j["fields"] = sorted(fields_);
  j["declarators"] = sorted(declarators_);
  j["pointer_declarators"] = sorted(pointer_declarators_);
  j["called"] = sorted(called_);
  j["uncalled"] = sorted(uncalled_);
  j["user_types"] = sorted(user_types_);
  j["kept_names"] = sorted(kept_names_);
  nlohmann::ordered_json arities = nlohmann::ordered_json::object();
  std::vector<std::string> builtins;
  for (const auto& [w, mask] : arities_) builtins.push_back(w);
  std::sort(builtins.begin(), builtins.end());
  for (const std::string& w : builtins) arities[w] = arities_.at(w);
  j["arities"] = arities;
  nlohmann::ordered_json after = nlohmann::ordered_json::object();
  std::vector<std::string> declarators;
  for (const auto& [d, words] : after_declarator_) declarators.push_back(d);
  std::sort(declarators.begin(), declarators.end());
  for (const std::string& d : declarators) after[d] = sorted(after_declarator_.at(d).complete);
  j["after_declarator"] = after;
  return j.dump(1) + "\n";
}

Expected<ConstraintTables> ConstraintTables::from_json(std::string_view text) {
  nlohmann::json j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return parse_error("constraint tables: not a JSON object");
  if (j.value("format", "") != kFormat)
    return parse_error(fmt::format("constraint tables: format is not \"{}\"", kFormat));
  if (!j.contains("version") || !j["version"].is_number_integer() || j["version"].get<int>() != kVersion)
    return parse_error(fmt::format("constraint tables: version {} expected, the file has {}", kVersion,
                                   j.contains("version") ? j["version"].dump() : "none"));
  ConstraintTables t;
  try {
    for (const auto& w : j.at("fixed")) t.add_fixed(w.get<std::string>());
    for (const auto& w : j.at("fields")) t.add_field(w.get<std::string>());
    auto fill = [&](const char* key, std::unordered_set<std::string>& set) {
      for (const auto& w : j.at(key)) set.insert(w.get<std::string>());
    };
    fill("declarators", t.declarators_);
    fill("pointer_declarators", t.pointer_declarators_);
    fill("called", t.called_);
    fill("uncalled", t.uncalled_);
    fill("user_types", t.user_types_);
    fill("kept_names", t.kept_names_);
    for (const auto& [w, mask] : j.at("arities").items()) t.arities_[w] = mask.get<uint64_t>();
    for (const auto& [d, words] : j.at("after_declarator").items()) {
      Words& after = t.after_declarator_[d];
      for (const auto& w : words) {
        const std::string s = w.get<std::string>();
        after.complete.insert(s);
        for (size_t n = 1; n <= s.size(); ++n) after.prefixes.insert(s.substr(0, n));
      }
    }
  } catch (const nlohmann::json::exception& e) {
    return parse_error(fmt::format("constraint tables: {}", e.what()));
  }
  return t;
}

bool ConstraintTables::operator==(const ConstraintTables& o) const {
  auto words_equal = [](const std::unordered_map<std::string, Words>& a,
                        const std::unordered_map<std::string, Words>& b) {
    if (a.size() != b.size()) return false;
    for (const auto& [d, w] : a) {
      auto it = b.find(d);
      if (it == b.end() || it->second.complete != w.complete || it->second.prefixes != w.prefixes) return false;
    }
    return true;
  };
  return fixed_ == o.fixed_ && fixed_prefixes_ == o.fixed_prefixes_ && fields_ == o.fields_ &&
         field_prefixes_ == o.field_prefixes_ && declarators_ == o.declarators_ && called_ == o.called_ &&
         uncalled_ == o.uncalled_ && pointer_declarators_ == o.pointer_declarators_ && user_types_ == o.user_types_ &&
         kept_names_ == o.kept_names_ && arities_ == o.arities_ && words_equal(after_declarator_, o.after_declarator_);
}

Status save_constraint_tables(const ConstraintTables& tables, const std::string& model_dir) {
  const std::string path = model_dir + "/" + kConstraintTablesFile;
  RETURN_IF_ERROR_CTX(write_file_atomic(path, tables.to_json()), "saving the constraint tables");
  return ok_status();
}

Expected<ConstraintTables> load_constraint_tables(const std::string& model_dir) {
  const std::string path = model_dir + "/" + kConstraintTablesFile;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return not_found(path + " does not exist");
  ASSIGN_OR_RETURN(std::string text, read_file(path));
  auto tables = ConstraintTables::from_json(text);
  if (!tables.ok()) return tables.status().with_context(path);
  return tables;
}

}  // namespace clgen::sampler
