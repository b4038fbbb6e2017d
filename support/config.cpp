// TOML config loading through toml++.
#include "support/config.h"

#include <algorithm>

// Debian's shared toml++ is built with exceptions: parse errors are caught
// here and become Status values.
#include <toml++/toml.h>

namespace clgen {

namespace {

std::string position(const toml::parse_error& err) {
  return std::to_string(err.source().begin.line) + ":" +
         std::to_string(err.source().begin.column);
}

const char* type_name(toml::node_type t) {
  switch (t) {
    case toml::node_type::table: return "a table";
    case toml::node_type::array: return "an array";
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a number";
    case toml::node_type::boolean: return "a boolean";
    default: return "a date/time";
  }
}

void collect_keys(const toml::table& table, const std::string& prefix,
                  std::vector<std::string>& out) {
  for (auto&& [k, node] : table) {
    std::string key = prefix.empty() ? std::string(k.str()) : prefix + "." + std::string(k.str());
    if (const toml::table* sub = node.as_table()) {
      collect_keys(*sub, key, out);
    } else {
      out.push_back(key);
    }
  }
}

}  // namespace

Config::Config(std::unique_ptr<toml::table> table, std::string origin)
    : table_(std::move(table)), origin_(std::move(origin)) {}
Config::Config(Config&&) noexcept = default;
Config& Config::operator=(Config&&) noexcept = default;
Config::~Config() = default;

Expected<Config> Config::load_file(const std::string& path) {
  try {
    return Config(std::make_unique<toml::table>(toml::parse_file(path)), path);
  } catch (const toml::parse_error& err) {
    // toml++ reports an unreadable file as a parse error without a position.
    if (err.source().begin.line == 0)
      return not_found(path + ": " + std::string(err.description()));
    return parse_error(path + ":" + position(err) + ": " + std::string(err.description()));
  }
}

Expected<Config> Config::parse(const std::string& text, const std::string& origin) {
  try {
    return Config(std::make_unique<toml::table>(toml::parse(text, origin)), origin);
  } catch (const toml::parse_error& err) {
    return parse_error(origin + ":" + position(err) + ": " + std::string(err.description()));
  }
}

Status Config::key_error(const std::string& key, const std::string& what) const {
  return invalid_argument(origin_ + ": " + key + ": " + what);
}

bool Config::has(const std::string& key) const {
  return static_cast<bool>(table_->at_path(key));
}

namespace {
// Reads `key` as TOML type T; errors name the origin and key.
template <typename T>
Expected<T> get_typed(const toml::table& table, const std::string& origin,
                      const std::string& key, const char* what) {
  toml::node_view<const toml::node> node = table.at_path(key);
  if (!node) return not_found(origin + ": missing required key " + key);
  if (node.is<T>()) return *node.value<T>();
  return invalid_argument(origin + ": " + key + ": expected " + what + ", got " +
                          type_name(node.type()));
}
}  // namespace

Expected<int64_t> Config::get_int(const std::string& key) const {
  return get_typed<int64_t>(*table_, origin_, key, "an integer");
}
Expected<std::string> Config::get_string(const std::string& key) const {
  return get_typed<std::string>(*table_, origin_, key, "a string");
}
Expected<bool> Config::get_bool(const std::string& key) const {
  return get_typed<bool>(*table_, origin_, key, "a boolean");
}
Expected<int64_t> Config::get_int(const std::string& key, int64_t fallback) const {
  if (!has(key)) return fallback;
  return get_int(key);
}
Expected<std::string> Config::get_string(const std::string& key,
                                         const std::string& fallback) const {
  if (!has(key)) return fallback;
  return get_string(key);
}
Expected<bool> Config::get_bool(const std::string& key, bool fallback) const {
  if (!has(key)) return fallback;
  return get_bool(key);
}

Expected<std::vector<std::string>> Config::get_string_list(const std::string& key,
                                                           const std::vector<std::string>& fallback) const {
  if (!has(key)) return fallback;
  const toml::array* array = std::as_const(*table_).at_path(key).as_array();
  if (!array)
    return key_error(key, std::string("expected an array of strings, got ") + type_name(table_->at_path(key).type()));
  std::vector<std::string> out;
  for (size_t i = 0; i < array->size(); ++i) {
    const toml::node& element = *array->get(i);
    if (!element.is_string())
      return key_error(key,
                       "element " + std::to_string(i + 1) + ": expected a string, got " + type_name(element.type()));
    out.push_back(*element.value<std::string>());
  }
  return out;
}

Expected<double> Config::get_double(const std::string& key) const {
  toml::node_view<const toml::node> node = std::as_const(*table_).at_path(key);
  if (!node) return not_found(origin_ + ": missing required key " + key);
  if (node.is_floating_point()) return *node.value<double>();
  if (node.is_integer()) return static_cast<double>(*node.value<int64_t>());
  return key_error(key, std::string("expected a number, got ") + type_name(node.type()));
}

Expected<double> Config::get_double(const std::string& key, double fallback) const {
  if (!has(key)) return fallback;
  return get_double(key);
}

Status Config::check_known_keys(const std::vector<std::string>& known) const { return check_known_keys(known, {}); }

Status Config::check_known_keys(const std::vector<std::string>& known,
                                const std::vector<std::string>& other_tables) const {
  std::vector<std::string> keys;
  collect_keys(*table_, "", keys);
  for (const std::string& k : keys) {
    const std::string table = k.substr(0, k.find('.'));
    if (k.find('.') != std::string::npos &&
        std::find(other_tables.begin(), other_tables.end(), table) != other_tables.end())
      continue;
    if (std::find(known.begin(), known.end(), k) == known.end())
      return key_error(k, "unknown key");
  }
  return ok_status();
}

}  // namespace clgen
