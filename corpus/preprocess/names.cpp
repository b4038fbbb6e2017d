// Missing-name inference (see names.h): use classification, proposed
// definitions and the per-file fallback.
#include "corpus/preprocess/names.h"

#include <cctype>
#include <map>
#include <optional>
#include <set>

#include "corpus/preprocess/host_macros.h"
#include "corpus/preprocess/image_macros.h"
#include "corpus/preprocess/member_types.h"
#include "support/opencl_types.h"

namespace clgen::preprocess {

const char* name_use_name(NameUse use) {
  switch (use) {
    case NameUse::kType: return "type";
    case NameUse::kValue: return "value";
    case NameUse::kArraySize: return "array size";
    case NameUse::kFunctionMacro: return "function-like macro";
    case NameUse::kQualifier: return "qualifier";
    case NameUse::kWorkGroupSize: return "work-group size";
  }
  return "?";
}

namespace {

size_t skip_space_forward(std::string_view t, size_t i) {
  while (i < t.size() && std::isspace(static_cast<unsigned char>(t[i]))) ++i;
  return i;
}

// Index of the last non-space character before `i`, or npos.
size_t skip_space_back(std::string_view t, size_t i) {
  while (i > 0) {
    --i;
    if (!std::isspace(static_cast<unsigned char>(t[i]))) return i;
  }
  return std::string_view::npos;
}

// Top-level arguments of the call whose '(' is at `open`.
int count_arguments(std::string_view t, size_t open) {
  int depth = 0, commas = 0;
  bool any = false;
  for (size_t i = open; i < t.size(); ++i) {
    char c = t[i];
    if (c == '(') ++depth;
    else if (c == ')') {
      if (--depth == 0) return any ? commas + 1 : 0;
    } else if (c == ',' && depth == 1) ++commas;
    else if (depth >= 1 && !std::isspace(static_cast<unsigned char>(c))) any = true;
  }
  return any ? commas + 1 : 0;
}

std::string upper(std::string_view s) {
  std::string u(s);
  for (char& c : u) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return u;
}

bool has(const std::string& u, const char* part) { return u.find(part) != std::string::npos; }

// The identifier starting at `i`, or "".
std::string_view word_at(std::string_view t, size_t i) {
  size_t j = i;
  while (j < t.size() && (std::isalnum(static_cast<unsigned char>(t[j])) || t[j] == '_')) ++j;
  return t.substr(i, j - i);
}

bool declaration_word(std::string_view w) {
  // The vector element types (char .. double) and the other words that can
  // start a declaration; vector types (float4) are left out, as before.
  static const std::set<std::string_view> words = {
      "void", "half", "bool", "unsigned", "signed", "const", "inline", "static", "kernel",
      "__kernel", "global", "__global", "local", "__local", "constant", "__constant", "private",
      "__private", "struct", "typedef", "__attribute__"};
  return cltypes::vector_element_type(w) != nullptr || words.count(w) > 0;
}

}  // namespace

bool is_macro_style(std::string_view name) {
  bool letter = false;
  for (char c : name) {
    if (std::islower(static_cast<unsigned char>(c))) return false;
    letter |= std::isupper(static_cast<unsigned char>(c)) != 0;
  }
  return letter;
}

namespace {

// True when byte `at` of `text` lies inside the parentheses of a
// `reqd_work_group_size(...)` or `work_group_size_hint(...)` attribute.
bool in_work_group_size_attribute(std::string_view text, size_t at) {
  for (std::string_view attr : {"reqd_work_group_size", "work_group_size_hint"}) {
    const size_t from = at > 256 ? at - 256 : 0;  // an attribute's arguments are short
    size_t p = text.substr(from, at - from).rfind(attr);
    if (p == std::string_view::npos) continue;
    p += from;
    int depth = 0;
    for (size_t i = p + attr.size(); i < at; ++i) {
      if (text[i] == '(') ++depth;
      else if (text[i] == ')' && --depth <= 0) break;
    }
    if (depth > 0) return true;
  }
  return false;
}

}  // namespace

NameUse classify_use(std::string_view text, int64_t offset, std::string_view name, bool unknown_type,
                     int* arity) {
  if (offset < 0 || static_cast<size_t>(offset) >= text.size()) {
    return unknown_type ? NameUse::kType : NameUse::kValue;
  }
  size_t end = static_cast<size_t>(offset) + name.size();
  size_t next = skip_space_forward(text, end);
  // "NAME void f(...)", "NAME __kernel ...": a qualifier macro.
  if (next < text.size() && declaration_word(word_at(text, next))) return NameUse::kQualifier;
  if (unknown_type) return NameUse::kType;
  // A cast "(NAME) x" or "(NAME *) x".
  size_t before_name = skip_space_back(text, static_cast<size_t>(offset));
  if (before_name != std::string_view::npos && text[before_name] == '(' && next < text.size()) {
    size_t close = next;
    while (close < text.size() && text[close] == '*') close = skip_space_forward(text, close + 1);
    if (close < text.size() && text[close] == ')') {
      size_t after = skip_space_forward(text, close + 1);
      if (after < text.size() && (std::isalnum(static_cast<unsigned char>(text[after])) ||
                                  text[after] == '_' || text[after] == '(')) {
        return NameUse::kType;
      }
    }
  }
  // "NAME x" or "NAME *x": a type in a declaration.
  if (next < text.size() && (std::isalpha(static_cast<unsigned char>(text[next])) || text[next] == '_')) {
    return NameUse::kType;
  }
  if (next < text.size() && text[next] == '(') {
    if (arity) *arity = count_arguments(text, next);
    return NameUse::kFunctionMacro;
  }
  size_t prev = skip_space_back(text, static_cast<size_t>(offset));
  if (prev != std::string_view::npos && text[prev] == '[') {
    // An array size is a declaration's bound: "type name[SIZE]".
    size_t before = skip_space_back(text, prev);
    if (before != std::string_view::npos &&
        (std::isalnum(static_cast<unsigned char>(text[before])) || text[before] == '_' ||
         text[before] == ']')) {
      size_t close = text.find(']', end);
      size_t semi = text.find_first_of(";=", end);
      bool declaration = close != std::string_view::npos;
      // Subscripts in expressions are values; declarations end in ';' or '=' soon after ']'.
      if (declaration && semi != std::string_view::npos && semi > close) {
        size_t after = skip_space_forward(text, close + 1);
        if (after < text.size() && (text[after] == ';' || text[after] == '[' || text[after] == '=')) {
          // Distinguish "float buf[N];" from "x = a[N];" by the token two back.
          size_t ident_end = before + 1, ident_start = before;
          while (ident_start > 0 && (std::isalnum(static_cast<unsigned char>(text[ident_start - 1])) ||
                                     text[ident_start - 1] == '_')) {
            --ident_start;
          }
          size_t type_end = skip_space_back(text, ident_start);
          if (type_end != std::string_view::npos && ident_end > ident_start &&
              (std::isalnum(static_cast<unsigned char>(text[type_end])) || text[type_end] == '_' ||
               text[type_end] == '*')) {
            return NameUse::kArraySize;
          }
        }
      }
    }
  }
  if (in_work_group_size_attribute(text, static_cast<size_t>(offset))) return NameUse::kWorkGroupSize;
  return NameUse::kValue;
}

std::string propose_definition(std::string_view name, NameUse use, int arity) {
  const std::string n(name);
  const std::string u = upper(n);
  switch (use) {
    case NameUse::kQualifier:
      return "#define " + n + (has(u, "KERNEL") ? " __kernel" : "");
    case NameUse::kType: {
      // Integer aliases by width: u8/u16/u32/u64, i32, s64, uint32_t, ...,
      // also after a library prefix (sph_u32, sph_s64).
      std::string l = n;
      for (char& ch : l) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      const size_t prefix = l.rfind('_', l.size() >= 2 && l.substr(l.size() - 2) == "_t" ? l.size() - 3 : l.npos);
      for (std::string_view a : {std::string_view(l), std::string_view(l).substr(prefix == l.npos ? 0 : prefix + 1)}) {
        const std::string au = upper(std::string(a));
        bool uns = !a.empty() && a[0] == 'u';
        bool sig = !a.empty() && (a[0] == 'i' || a[0] == 's');
        if ((uns || sig) && (has(au, "64") || has(au, "32") || has(au, "16") || has(au, "8")) &&
            a.find_first_not_of("uintsx0123468_t") == std::string_view::npos) {
          const char* w = has(au, "64") ? "long" : has(au, "32") ? "int" : has(au, "16") ? "short" : "char";
          return "#define " + n + " " + (uns ? "u" : "") + w;
        }
      }
      // A vector of its prefix's type: T4, DATA_T4, real2 (bolt's T4 beside T).
      size_t digits = n.size();
      while (digits > 0 && std::isdigit(static_cast<unsigned char>(n[digits - 1]))) --digits;
      const std::string width = n.substr(digits);
      if (digits > 0 && digits < n.size() && n.size() - digits <= 2 &&
          !std::isdigit(static_cast<unsigned char>(n[digits - 1])) && cltypes::is_vector_width(std::stoi(width))) {
        std::string element = propose_definition(n.substr(0, digits), use, arity);
        element = element.substr(element.rfind(' ') + 1);
        if (cltypes::vector_element_type(element) != nullptr) return "#define " + n + " " + element + width;
      }
      const char* t = "float";
      if (has(u, "DOUBLE")) t = "double";
      else if (has(u, "UINT") || has(u, "UNSIGNED")) t = "uint";
      else if (has(u, "INT") || has(u, "INDEX") || has(u, "IDX") || has(u, "SIZE")) t = "int";
      else if (has(u, "HALF")) t = "half";
      return "#define " + n + " " + t;
    }
    case NameUse::kArraySize:
      return "#define " + n + " 64";
    case NameUse::kWorkGroupSize:  // 16 x 16 fits every device's work-group limit
      return "#define " + n + " 16";
    case NameUse::kValue: {
      if (u == "M_PI" || has(u, "PI")) return "#define " + n + " 3.14159265358979323846f";
      if (has(u, "EPS")) return "#define " + n + " 1e-6f";
      return "#define " + n + " 64";
    }
    case NameUse::kFunctionMacro: {
      // A host's conversion to a type it also supplies: CONVERT_DATA_T4(x)
      // is convert_float4(x) when DATA_T4 would be float4.
      if (arity == 1 && n.compare(0, 8, "CONVERT_") == 0 && n.size() > 8) {
        std::string type = propose_definition(n.substr(8), NameUse::kType, 0);
        type = type.substr(type.rfind(' ') + 1);
        size_t digits = type.find_first_of("0123456789");
        if (digits == std::string::npos) digits = type.size();
        const bool width_ok = digits == type.size() || cltypes::vector_width(type.substr(digits)) != 0;
        if (width_ok && cltypes::vector_element_type(type.substr(0, digits)) != nullptr) {
          return "#define " + n + "(a) convert_" + type + "(a)";
        }
      }
      std::string params, first = "0";
      for (int i = 0; i < arity; ++i) {
        std::string p(1, static_cast<char>('a' + i % 26));
        params += (i ? ", " : "") + p;
        if (i == 0) first = "(" + p + ")";
      }
      return "#define " + n + "(" + params + ") " + first;
    }
  }
  return "";
}

bool definable(std::string_view name, NameUse use) {
  switch (use) {
    case NameUse::kType:
    case NameUse::kQualifier:
      return true;
    case NameUse::kValue:
    case NameUse::kArraySize:
      return is_macro_style(name);
    case NameUse::kWorkGroupSize:
      // A host constant of any spelling (QSVEnc's `-D rtgmc_bob_block_x=32`):
      // no variable can stand there.
      return true;
    case NameUse::kFunctionMacro:
      // Only a conversion to a host-supplied type (propose_definition).
      return name.size() > 8 && name.compare(0, 8, "CONVERT_") == 0 && is_macro_style(name);
  }
  return false;
}

CompileOptions inference_check_options(const CompileOptions& options) {
  CompileOptions o = options;
  o.check_only = true;
  o.keep_ir = false;
  o.to_ptx = false;
  o.error_limit = 50;
  return o;
}

Expected<InferredNames> infer_missing_names(std::string_view text, const CompileOptions& options, int max_rounds,
                                            const CompileResult* first_round) {
  const CompileOptions o = inference_check_options(options);
  InferredNames out;
  std::set<std::string> defined;
  std::string first_error;
  for (int round = 1; round <= max_rounds; ++round) {
    const std::string full = out.prelude + std::string(text);
    CompileResult r = round == 1 && first_round ? *first_round : compile(full, o);
    out.rounds = round;
    if (r.ok) return out;
    if (first_error.empty()) first_error = "[" + r.category + "] " + r.reason;
    // Every definable missing name of this round is defined at once: errors
    // after the first may be the parser's reaction to an earlier missing
    // type, and the next round tells.
    // A name that cannot be defined may be a cascade of an earlier missing
    // type (`T x, y;` can leave `y` undeclared): it fails the input only when
    // the round finds nothing else to define.
    size_t before = out.names.size();
    std::string undefinable;
    // Host macros first (host_macros.h): a definition the text has but a
    // macro switches off. A round that adds one defines nothing else, since
    // what it switches on may define the other missing names too.
    // Image macro families (image_macros.h) are host macros too.
    bool host = false;
    std::optional<HostMacros> host_macros;  // the text's directives, read once per round
    std::optional<ImageMacros> image_macros;
    // A name Clang reports many times (hashcat's DGST_R0 in every kernel) is
    // looked up once per round: the answer depends on the text and the name only.
    std::map<std::string, std::vector<HostMacro>> answers;
    for (const CompileError& e : r.errors) {
      if ((e.category != category::kUnknownTypeName && e.category != category::kUndeclaredIdentifier) ||
          e.name.empty() || defined.count(e.name)) {
        continue;
      }
      auto [answer, fresh] = answers.try_emplace(e.name);
      std::vector<HostMacro>& found = answer->second;
      if (fresh) {
        if (!host_macros) host_macros.emplace(full);
        found = (*host_macros)(e.name);
        // The image scan reads the whole text; only a family's name can need it.
        if (found.empty() && ImageMacros::may_define(e.name)) {
          if (!image_macros) image_macros.emplace(full);
          found = (*image_macros)(e.name);
        }
      }
      for (const HostMacro& m : found) {
        if (!defined.insert(m.name).second) continue;
        out.names.push_back(m.name);
        out.prelude += "#define " + m.name + m.params + " " + m.value + "\n";
        host = true;
      }
    }
    if (host) continue;
    for (const CompileError& e : r.errors) {
      bool type = e.category == category::kUnknownTypeName;
      if ((!type && e.category != category::kUndeclaredIdentifier) || e.name.empty()) continue;
      if (defined.count(e.name)) continue;  // its definition did not help: the next check fails
      int arity = 0;
      NameUse use = classify_use(full, e.offset, e.name, type, &arity);
      if (!definable(e.name, use)) {
        if (undefinable.empty()) {
          undefinable = "'" + e.name + "' (used as " + name_use_name(use) + ") cannot be defined";
        }
        continue;
      }
      defined.insert(e.name);
      out.names.push_back(e.name);
      // A type the text uses with members is a struct or a vector
      // (member_types.h), unless its name already makes it a vector (T4).
      std::string definition = propose_definition(e.name, use, arity);
      if (use == NameUse::kType && !std::isdigit(static_cast<unsigned char>(definition.back()))) {
        std::string members = member_type_definition(full, e.name);
        if (!members.empty()) definition = members;
      }
      out.prelude += definition + "\n";
    }
    if (out.names.size() == before) {
      if (!undefinable.empty()) return parse_error("inferring missing names: " + undefinable + "; " + first_error);
      return parse_error("inferring missing names: an error remains that no definition fixes: [" + r.category +
                         "] " + r.reason);
    }
  }
  return parse_error("inferring missing names: still failing after " + std::to_string(max_rounds) +
                     " rounds; " + first_error);
}

}  // namespace clgen::preprocess
