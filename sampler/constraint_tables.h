// What the training corpus says about identifiers, for constrained decoding
// (code_constraint.h): fixed words, fields, declarators, called words,
// builtins' argument counts, user types and kept names. `clgen train` learns
// them from the model's training texts and saves them beside the checkpoint;
// `clgen sample` loads them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "support/status.h"

namespace clgen::sampler {
// What the training corpus says about identifiers, learned once per run.
class ConstraintTables {
 public:
  // Learns from normalized kernels (the rewriter's output).
  static ConstraintTables from_corpus(const std::vector<std::string>& normalized_texts);
  // The tables as versioned JSON (sorted, so equal tables give equal text),
  // and back; the prefix sets are derived again on load.
  std::string to_json() const;
  static Expected<ConstraintTables> from_json(std::string_view json);
  bool operator==(const ConstraintTables& other) const;

  // A generated name: lower-case letters, 1-3 of them (variables), or
  // upper-case letters, 1-2 of them (functions), that is not a fixed word.
  bool is_generated_name(const std::string& w) const;
  bool is_fixed(const std::string& w) const { return fixed_.count(w) > 0; }
  bool is_fixed_prefix(const std::string& w) const { return fixed_prefixes_.count(w) > 0; }
  bool is_field(const std::string& w) const;
  bool is_field_prefix(const std::string& w) const;
  // Words after which only a fresh name can follow (types: `int e`).
  bool is_declarator(const std::string& w) const { return declarators_.count(w) > 0; }
  bool is_pointer_declarator(const std::string& w) const { return pointer_declarators_.count(w) > 0; }
  // Names the corpus defines as types (struct, union, enum tags and
  // typedefs): usable only after the text itself defines them.
  bool is_user_type(const std::string& w) const { return user_types_.count(w) > 0; }
  // Variables the rewriter keeps their names (samplers, ...): like generated
  // names, usable only once the text declares them.
  bool is_kept_name(const std::string& w) const { return kept_names_.count(w) > 0; }
  // Words the corpus follows with '(' (builtins, keywords, function-like
  // names): no other word can be.
  bool is_called(const std::string& w) const { return called_.count(w) > 0; }
  // Called words the corpus never writes without '(' (builtins: a bare
  // `fabs` cannot compile).
  bool is_call_only(const std::string& w) const { return called_.count(w) > 0 && !uncalled_.count(w); }
  // Fixed words the corpus writes right after declarator `d` outside struct
  // bodies (`unsigned int`, `const float`, `sampler_t sampler`): the only
  // fixed words a declaration may continue with.
  bool follows(const std::string& d, const std::string& w, bool complete) const;

  // The argument counts the corpus calls builtin `w` with, as a bit mask
  // (bit n: n arguments; bit 63: 63 or more); 0 if it never calls it.
  uint64_t arities(const std::string& w) const {
    auto it = arities_.find(w);
    return it == arities_.end() ? 0 : it->second;
  }

  size_t fixed_words() const { return fixed_.size(); }
  size_t field_words() const { return fields_.size(); }
  size_t declarator_words() const { return declarators_.size(); }

 private:
  void add_fixed(const std::string& w);
  void add_field(const std::string& w);
  std::unordered_set<std::string> fixed_, fixed_prefixes_;
  std::unordered_set<std::string> fields_, field_prefixes_;
  std::unordered_set<std::string> declarators_;
  std::unordered_set<std::string> called_;
  std::unordered_set<std::string> uncalled_;
  std::unordered_set<std::string> pointer_declarators_;
  std::unordered_set<std::string> user_types_;
  std::unordered_set<std::string> kept_names_;
  std::unordered_map<std::string, uint64_t> arities_;
  struct Words {
    std::unordered_set<std::string> complete, prefixes;
  };
  std::unordered_map<std::string, Words> after_declarator_;
};

// The file beside a model's checkpoint that holds the tables learned from
// the model's training texts.
inline constexpr const char* kConstraintTablesFile = "constraint_tables.json";
// Writes `tables` to <model_dir>/constraint_tables.json (atomically).
Status save_constraint_tables(const ConstraintTables& tables, const std::string& model_dir);
// Reads <model_dir>/constraint_tables.json; kNotFound when the model has none
// (it was trained before the tables were saved with it).
Expected<ConstraintTables> load_constraint_tables(const std::string& model_dir);

}  // namespace clgen::sampler
