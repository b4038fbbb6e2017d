// Shim inference over compile errors (see infer.h).
#include "shim/infer.h"

#include <algorithm>
#include <cctype>
#include <future>
#include <map>
#include <set>
#include <sstream>

#include "support/interrupt.h"
#include "support/thread_pool.h"

namespace clgen::shim {

namespace pp = clgen::preprocess;

const char* use_name(Use use) {
  switch (use) {
    case Use::kType: return "type";
    case Use::kValue: return "value";
    case Use::kArraySize: return "array size";
    case Use::kFunctionMacro: return "function-like macro";
    case Use::kQualifier: return "qualifier";
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

// A plausible definition, from the name and its use.
std::string propose(const Candidate& c) {
  const std::string u = upper(c.name);
  switch (c.use) {
    case Use::kQualifier:
      return "#define " + c.name + (has(u, "KERNEL") ? " __kernel" : "");
    case Use::kType: {
      // Integer aliases by width: u8/u16/u32/u64, i32, s64, uint32_t, ...
      std::string l = c.name;
      for (char& ch : l) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      bool uns = !l.empty() && l[0] == 'u';
      bool sig = !l.empty() && (l[0] == 'i' || l[0] == 's');
      if ((uns || sig) && (has(u, "64") || has(u, "32") || has(u, "16") || has(u, "8")) &&
          l.find_first_not_of("uintsx0123468_t") == std::string::npos) {
        const char* w = has(u, "64") ? "long" : has(u, "32") ? "int" : has(u, "16") ? "short" : "char";
        return "#define " + c.name + " " + (uns ? "u" : "") + w;
      }
      const char* t = "float";
      if (has(u, "DOUBLE")) t = "double";
      else if (has(u, "UINT") || has(u, "UNSIGNED")) t = "uint";
      else if (has(u, "INT") || has(u, "INDEX") || has(u, "IDX") || has(u, "SIZE")) t = "int";
      else if (has(u, "HALF")) t = "half";
      return "#define " + c.name + " " + t;
    }
    case Use::kArraySize:
      return "#define " + c.name + " 64";
    case Use::kValue: {
      if (u == "M_PI" || has(u, "PI")) return "#define " + c.name + " 3.14159265358979323846f";
      if (has(u, "EPS")) return "#define " + c.name + " 1e-6f";
      return "#define " + c.name + " 64";
    }
    case Use::kFunctionMacro: {
      std::string params, first = "0";
      for (int i = 0; i < c.arity; ++i) {
        std::string p(1, static_cast<char>('a' + i % 26));
        params += (i ? ", " : "") + p;
        if (i == 0) first = "(" + p + ")";
      }
      return "#define " + c.name + "(" + params + ") " + first;
    }
  }
  return "";
}

struct FileResult {
  bool compiled = false;
  bool only_names = false;
  // name -> (use, arity) as seen in this file
  std::map<std::string, std::pair<Use, int>> names;
};

FileResult analyse(const std::string& text, const InferOptions& options) {
  pp::CompileOptions co;
  co.header = options.header;
  co.shim = false;
  co.error_limit = options.error_limit;
  pp::CompileResult r = pp::compile(text, co);
  FileResult f;
  if (r.ok) {
    f.compiled = true;
    return f;
  }
  if (r.errors.empty()) return f;  // no kernel, too few instructions, crash
  f.only_names = true;
  for (const pp::CompileError& e : r.errors) {
    bool type = e.category == pp::category::kUnknownTypeName;
    bool name_error = type || e.category == pp::category::kUndeclaredIdentifier ||
                      e.category == pp::category::kImplicitFunction;
    if (!name_error || e.name.empty()) {
      f.only_names = false;
      continue;
    }
    int arity = 0;
    Use use = classify_use(text, e.offset, e.name, type, &arity);
    f.names.emplace(e.name, std::make_pair(use, arity));
  }
  return f;
}

}  // namespace

bool is_macro_style(const std::string& name) {
  bool letter = false;
  for (char c : name) {
    if (std::islower(static_cast<unsigned char>(c))) return false;
    letter |= std::isupper(static_cast<unsigned char>(c)) != 0;
  }
  return letter;
}

// The identifier starting at `i`, or "".
std::string_view word_at(std::string_view t, size_t i) {
  size_t j = i;
  while (j < t.size() && (std::isalnum(static_cast<unsigned char>(t[j])) || t[j] == '_')) ++j;
  return t.substr(i, j - i);
}

bool declaration_word(std::string_view w) {
  static const std::set<std::string_view> words = {
      "void", "char", "uchar", "short", "ushort", "int", "uint", "long", "ulong", "float",
      "double", "half", "bool", "unsigned", "signed", "const", "inline", "static", "kernel",
      "__kernel", "global", "__global", "local", "__local", "constant", "__constant", "private",
      "__private", "struct", "typedef", "__attribute__"};
  return words.count(w) > 0;
}

Use classify_use(std::string_view text, int64_t offset, std::string_view name, bool unknown_type,
                 int* arity) {
  if (offset < 0 || static_cast<size_t>(offset) >= text.size()) {
    return unknown_type ? Use::kType : Use::kValue;
  }
  size_t end = static_cast<size_t>(offset) + name.size();
  size_t next = skip_space_forward(text, end);
  // "NAME void f(...)", "NAME __kernel ...": a qualifier macro.
  if (next < text.size() && declaration_word(word_at(text, next))) return Use::kQualifier;
  if (unknown_type) return Use::kType;
  // A cast "(NAME) x" or "(NAME *) x".
  size_t before_name = skip_space_back(text, static_cast<size_t>(offset));
  if (before_name != std::string_view::npos && text[before_name] == '(' && next < text.size()) {
    size_t close = next;
    while (close < text.size() && text[close] == '*') close = skip_space_forward(text, close + 1);
    if (close < text.size() && text[close] == ')') {
      size_t after = skip_space_forward(text, close + 1);
      if (after < text.size() && (std::isalnum(static_cast<unsigned char>(text[after])) ||
                                  text[after] == '_' || text[after] == '(')) {
        return Use::kType;
      }
    }
  }
  // "NAME x" or "NAME *x": a type in a declaration.
  if (next < text.size() && (std::isalpha(static_cast<unsigned char>(text[next])) || text[next] == '_')) {
    return Use::kType;
  }
  if (next < text.size() && text[next] == '(') {
    if (arity) *arity = count_arguments(text, next);
    return Use::kFunctionMacro;
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
            return Use::kArraySize;
          }
        }
      }
    }
  }
  return Use::kValue;
}

Expected<InferReport> infer(const std::vector<std::string>& texts, const InferOptions& options) {
  ThreadPool pool(options.threads);
  std::vector<std::future<FileResult>> futures;
  futures.reserve(texts.size());
  for (const std::string& t : texts) {
    futures.push_back(pool.submit([&t, &options] {
      return interrupted() ? FileResult{} : analyse(t, options);
    }));
  }
  std::vector<FileResult> files;
  files.reserve(texts.size());
  for (auto& f : futures) files.push_back(f.get());
  if (interrupted()) return cancelled("shim inference interrupted");

  InferReport report;
  report.files = texts.size();
  std::map<std::string, Candidate> by_name;
  std::map<std::string, std::map<std::pair<Use, int>, uint64_t>> uses;
  for (const FileResult& f : files) {
    if (f.compiled) {
      ++report.compiled;
      continue;
    }
    ++report.failed;
    if (!f.only_names || f.names.empty()) continue;
    ++report.only_missing_names;
    for (const auto& [name, use] : f.names) {
      Candidate& c = by_name[name];
      c.name = name;
      ++c.files;
      ++uses[name][use];
    }
  }
  for (auto& [name, c] : by_name) {
    const auto& u = uses[name];
    auto best = std::max_element(u.begin(), u.end(),
                                 [](const auto& a, const auto& b) { return a.second < b.second; });
    c.use = best->first.first;
    c.arity = best->first.second;
    // Any use as a qualifier or type decides: values are the parser's
    // fallback reading of a name it does not know.
    for (Use strong : {Use::kQualifier, Use::kType}) {
      for (const auto& [use, n] : u) {
        if (use.first == strong && c.use != Use::kQualifier) c.use = strong;
      }
    }
    bool kind_ok = c.use == Use::kType || c.use == Use::kQualifier ||
                   ((c.use == Use::kValue || c.use == Use::kArraySize) && is_macro_style(c.name));
    c.accepted = c.files >= options.min_files && kind_ok;
    c.definition = propose(c);
  }
  // A file is rescued when every name it lacks is accepted.
  for (const FileResult& f : files) {
    if (f.compiled || !f.only_names || f.names.empty()) continue;
    bool all = std::all_of(f.names.begin(), f.names.end(),
                           [&](const auto& kv) { return by_name[kv.first].accepted; });
    if (!all) continue;
    for (const auto& kv : f.names) ++by_name[kv.first].rescued;
  }
  // An accepted entry that rescues no file only adds risk: drop it. (No
  // rescued file lacks it, so the other entries' counts stay.)
  for (auto& kv : by_name) {
    if (kv.second.accepted && kv.second.rescued == 0) kv.second.accepted = false;
    report.candidates.push_back(std::move(kv.second));
  }
  std::sort(report.candidates.begin(), report.candidates.end(),
            [](const Candidate& a, const Candidate& b) {
              if (a.rescued != b.rescued) return a.rescued > b.rescued;
              if (a.files != b.files) return a.files > b.files;
              return a.name < b.name;
            });
  return report;
}

std::string render_header(const InferReport& report, const std::string& provenance) {
  std::ostringstream out;
  out << "// The shim: type aliases and constants that isolated OpenCL device code\n"
         "// commonly lacks. Included before every input by the preprocessor, only when\n"
         "// the input fails without it for missing names, so it can never break a file.\n"
         "//\n"
         "// Generated by `clgen shim infer`, then reviewed. " << provenance << "\n"
         "// Inputs: " << report.files << " files, " << report.compiled
      << " compiled without the shim, " << report.failed << " failed, "
      << report.only_missing_names << " of them only for missing names.\n"
         "// Types are macros, so normalized kernels never name the shim.\n"
         "// Each entry: how the name was used, files lacking it, files rescued.\n"
         "#pragma once\n\n";
  for (const Candidate& c : report.candidates) {
    if (!c.accepted) continue;
    out << "// " << use_name(c.use) << ", missing in " << c.files << " files, rescues "
        << c.rescued << "\n#ifndef " << c.name << "\n" << c.definition << "\n#endif\n";
  }
  bool header = false;
  for (const Candidate& c : report.candidates) {
    if (c.accepted || c.files < 2 || c.use != Use::kFunctionMacro) continue;
    if (!header) {
      out << "\n// Proposed but not enabled (function-like macros change semantics):\n";
      header = true;
    }
    out << "// " << c.definition << "  // " << use_name(c.use) << ", missing in " << c.files
        << " files\n";
  }
  return out.str();
}

}  // namespace clgen::shim
