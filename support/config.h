// Typed access to TOML configuration files. Every error names the file and
// the dotted key, e.g. "configs/tiny.toml: model.layers: expected an integer".
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "support/status.h"

namespace toml { inline namespace v3 { class table; } }

namespace clgen {

class Config {
 public:
  // Parses a TOML file; a syntax error names the file, line and column.
  static Expected<Config> load_file(const std::string& path);
  // Parses TOML text; `origin` names it in messages.
  static Expected<Config> parse(const std::string& text, const std::string& origin);

  Config(Config&&) noexcept;
  Config& operator=(Config&&) noexcept;
  ~Config();

  const std::string& origin() const { return origin_; }
  bool has(const std::string& key) const;

  // Required values: kNotFound when absent, kInvalidArgument when of another type.
  Expected<int64_t> get_int(const std::string& key) const;
  Expected<double> get_double(const std::string& key) const;  // integers accepted
  Expected<std::string> get_string(const std::string& key) const;
  Expected<bool> get_bool(const std::string& key) const;

  // Optional values: the default when absent, an error only on a wrong type.
  Expected<int64_t> get_int(const std::string& key, int64_t fallback) const;
  Expected<double> get_double(const std::string& key, double fallback) const;
  Expected<std::string> get_string(const std::string& key, const std::string& fallback) const;
  Expected<bool> get_bool(const std::string& key, bool fallback) const;
  // An array of strings; the fallback when absent, an error naming the key
  // (and the element) on any other type.
  Expected<std::vector<std::string>> get_string_list(const std::string& key,
                                                     const std::vector<std::string>& fallback) const;

  // Fails naming the first key (dotted) that is not in `known`, so typos in a
  // config are caught instead of silently ignored. Tables are descended into.
  Status check_known_keys(const std::vector<std::string>& known) const;
  // ... leaving out the keys of the tables in `other_tables`, which another
  // reader of the same file checks (a model config's [sampler] section).
  Status check_known_keys(const std::vector<std::string>& known, const std::vector<std::string>& other_tables) const;

 private:
  Config(std::unique_ptr<toml::table> table, std::string origin);
  Status key_error(const std::string& key, const std::string& what) const;
  std::unique_ptr<toml::table> table_;
  std::string origin_;
};

}  // namespace clgen
