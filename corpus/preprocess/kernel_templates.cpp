// Kernel templates written out per explicit instantiation (see kernel_templates.h).
#include "corpus/preprocess/kernel_templates.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <vector>

#include "corpus/preprocess/text_scan.h"

namespace clgen::preprocess {
namespace {

struct Token {
  size_t begin, end;
  std::string_view text;
  bool ident;
};

// The tokens of `code` (comments and literal contents blanked): identifiers,
// numbers and single punctuation characters; directive lines are skipped.
// Not c_tokens (tokens.h): the rewrite needs each token's offsets, and
// template brackets need `>>` as two `>`.
std::vector<Token> tokenize(std::string_view code) {
  std::vector<Token> out;
  bool line_start = true;
  for (size_t i = 0; i < code.size();) {
    char c = code[i];
    if (c == '\n') {
      line_start = true;
      ++i;
    } else if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
    } else if (c == '#' && line_start) {
      while (i < code.size() && code[i] != '\n') i += code[i] == '\\' && i + 1 < code.size() ? 2 : 1;
    } else if (scan::ident_char(c)) {
      size_t j = i;
      while (j < code.size() && (scan::ident_char(code[j]) || (!scan::ident_start(c) && code[j] == '.'))) ++j;
      out.push_back({i, j, code.substr(i, j - i), static_cast<bool>(scan::ident_start(c))});
      line_start = false;
      i = j;
    } else {
      out.push_back({i, i + 1, code.substr(i, 1), false});
      line_start = false;
      ++i;
    }
  }
  return out;
}

// The index of the token closing the bracket opened at `open`, or npos.
size_t closing(const std::vector<Token>& t, size_t open) {
  const std::string_view o = t[open].text;
  const std::string_view c = o == "(" ? ")" : o == "{" ? "}" : o == "<" ? ">" : "]";
  int depth = 0;
  for (size_t i = open; i < t.size(); ++i) {
    if (t[i].text == o) ++depth;
    if (t[i].text == c && --depth == 0) return i;
  }
  return std::string::npos;
}

// One parameter's tokens, its name (a trailing identifier after a type) left out.
using Param = std::vector<std::string_view>;

// The tokens between the brackets at `open` and `close`, split at top-level commas.
std::vector<Param> params_of_raw(const std::vector<Token>& t, size_t open, size_t close) {
  std::vector<Param> out(1);
  int depth = 0;
  for (size_t i = open + 1; i < close; ++i) {
    std::string_view s = t[i].text;
    if (s == "(" || s == "[" || s == "<") ++depth;
    if (s == ")" || s == "]" || s == ">") --depth;
    if (depth == 0 && s == ",") out.emplace_back();
    else out.back().push_back(s);
  }
  if (out.size() == 1 && out[0].empty()) out.clear();
  return out;
}

// The parameters between the parentheses at `open` and `close`, each without
// its name and qualifiers.
std::vector<Param> params_of(const std::vector<Token>& t, size_t open, size_t close) {
  std::vector<Param> out = params_of_raw(t, open, close);
  // Qualifiers do not tell types apart here: instantiations may differ from
  // their template in them (`__global float* const x` for `__global T* x`).
  static const char* const kQualifiers[] = {"const", "volatile",   "restrict", "__global",  "global", "__local",
                                            "local", "__constant", "constant", "__private", "private"};
  for (Param& p : out) {
    if (p.size() > 1 && scan::ident_start(p.back()[0])) p.pop_back();
    p.erase(std::remove_if(p.begin(), p.end(),
                           [](std::string_view s) {
                             return std::find(std::begin(kQualifiers), std::end(kQualifiers), s) !=
                                    std::end(kQualifiers);
                           }),
            p.end());
  }
  return out;
}

struct Definition {
  size_t begin = 0, end = 0;  // offsets of `template` and past the closing brace
  size_t head = 0, last = 0;  // token indexes: the first after `template <...>`, the closing brace
  size_t name = 0;            // token index of the function's name
  std::vector<std::string_view> type_params;
  std::vector<Param> params;
};

struct Instantiation {
  size_t begin = 0, end = 0;  // offsets of `template` and past the `;`
  size_t last = 0;            // token index of the `;`
  std::string_view name, mangled;
  std::vector<Param> params;
  std::vector<Param> explicit_types;  // f<float, int>(...)
};

// The first `(` at bracket depth 0 in tokens [from, to), `__attribute__((...))` skipped.
size_t parameter_list(const std::vector<Token>& t, size_t from, size_t to) {
  for (size_t i = from; i < to; ++i) {
    if (t[i].text == "__attribute__" && i + 1 < to && t[i + 1].text == "(") {
      i = closing(t, i + 1);
      if (i == std::string::npos) return i;
    } else if (t[i].text == "(") {
      return i > from && (t[i - 1].ident || t[i - 1].text == ">") ? i : std::string::npos;
    } else if (t[i].text == "{" || t[i].text == ";") {
      return std::string::npos;
    }
  }
  return std::string::npos;
}

// Binds the template's type parameters by matching a template parameter
// against the instantiation's: equal tokens but where the template names a
// type parameter, which takes the instantiation's tokens up to the next one
// the template has.
bool bind(const Param& tpl, const Param& inst, const std::vector<std::string_view>& type_params,
          std::map<std::string_view, std::string>& types) {
  auto is_param = [&](std::string_view s) {
    for (std::string_view p : type_params) {
      if (p == s) return true;
    }
    return false;
  };
  size_t j = 0;
  for (size_t i = 0; i < tpl.size(); ++i) {
    if (!is_param(tpl[i])) {
      if (j >= inst.size() || inst[j] != tpl[i]) return false;
      ++j;
      continue;
    }
    std::string type;
    for (; j < inst.size() && (i + 1 >= tpl.size() || inst[j] != tpl[i + 1]); ++j) {
      type += type.empty() ? "" : " ";
      type += inst[j];
    }
    if (type.empty()) return false;
    auto [it, fresh] = types.emplace(tpl[i], type);
    if (!fresh && it->second != type) return false;
  }
  return j == inst.size();
}

// The template definition whose `template` is token `i`: `template <class
// T, ...>` (type parameters only), then a function with a body. Nothing
// when it is not of that form.
std::optional<Definition> read_definition(const std::vector<Token>& t, size_t i) {
  Definition d;
  d.begin = t[i].begin;
  size_t close = closing(t, i + 1);
  if (close == std::string::npos) return std::nullopt;
  for (size_t k = i + 2; k < close; k += 3) {
    if (k + 1 >= close || (t[k].text != "class" && t[k].text != "typename") || !t[k + 1].ident) {
      return std::nullopt;
    }
    if (k + 2 < close && t[k + 2].text != ",") return std::nullopt;
    d.type_params.push_back(t[k + 1].text);
  }
  if (d.type_params.empty()) return std::nullopt;
  d.head = close + 1;
  size_t open = parameter_list(t, d.head, t.size());
  if (open == std::string::npos) return std::nullopt;
  d.name = open - 1;
  size_t params_end = closing(t, open);
  if (params_end == std::string::npos || params_end + 1 >= t.size() || t[params_end + 1].text != "{") {
    return std::nullopt;
  }
  d.params = params_of(t, open, params_end);
  d.last = closing(t, params_end + 1);
  if (d.last == std::string::npos) return std::nullopt;
  d.end = t[d.last].end;
  return d;
}

// The explicit instantiation whose `template` is token `i`, named by
// `mangled_name(...)` in its attributes. Nothing when it is not of that form.
std::optional<Instantiation> read_instantiation(const std::vector<Token>& t, size_t i) {
  Instantiation in;
  in.begin = t[i].begin;
  size_t semi = i + 1;
  while (semi < t.size() && t[semi].text != ";" && t[semi].text != "{") ++semi;
  if (semi >= t.size() || t[semi].text != ";") return std::nullopt;
  for (size_t k = i + 1; k + 3 < semi; ++k) {
    if (t[k].text == "mangled_name" && t[k + 1].text == "(" && t[k + 2].ident && t[k + 3].text == ")") {
      in.mangled = t[k + 2].text;
    }
  }
  size_t open = parameter_list(t, i + 1, semi);
  if (in.mangled.empty() || open == std::string::npos) return std::nullopt;
  size_t params_end = closing(t, open);
  if (params_end == std::string::npos || params_end > semi) return std::nullopt;
  size_t name = open - 1;
  if (t[name].text == ">") {
    // Explicit template arguments: back to the matching `<`.
    size_t lt = name;
    for (int depth = 0; lt > i; --lt) {
      if (t[lt].text == ">") ++depth;
      if (t[lt].text == "<" && --depth == 0) break;
    }
    if (lt <= i + 1 || !t[lt - 1].ident) return std::nullopt;
    in.explicit_types = params_of_raw(t, lt, name);
    name = lt - 1;
  }
  in.name = t[name].text;
  in.params = params_of(t, open, params_end);
  in.last = semi;
  in.end = t[semi].end;
  return in;
}

// Every template definition and instantiation of the tokens, in order;
// false when a `template` is neither.
bool read_templates(const std::vector<Token>& t, std::vector<Definition>& defs, std::vector<Instantiation>& insts) {
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i].text != "template") continue;
    if (i + 1 < t.size() && t[i + 1].text == "<") {
      std::optional<Definition> d = read_definition(t, i);
      if (!d) return false;
      i = d->last;
      defs.push_back(std::move(*d));
    } else {
      std::optional<Instantiation> in = read_instantiation(t, i);
      if (!in) return false;
      i = in->last;
      insts.push_back(std::move(*in));
    }
  }
  return true;
}

// The definition `in` instantiates, with the types its type parameters take
// (the last one before `in` that matches), or nothing.
struct Match {
  const Definition* def = nullptr;
  std::map<std::string_view, std::string> types;
};
std::optional<Match> match_definition(const std::vector<Token>& t, const std::vector<Definition>& defs,
                                      const Instantiation& in) {
  Match m;
  for (const Definition& d : defs) {
    if (d.begin > in.begin || t[d.name].text != in.name || d.params.size() != in.params.size()) continue;
    std::map<std::string_view, std::string> bound;
    bool ok = in.explicit_types.size() <= d.type_params.size();
    for (size_t e = 0; ok && e < in.explicit_types.size(); ++e) {
      std::string type;
      for (std::string_view w : in.explicit_types[e]) type += (type.empty() ? "" : " ") + std::string(w);
      ok = !type.empty();
      bound[d.type_params[e]] = type;
    }
    for (size_t p = 0; ok && p < d.params.size(); ++p) ok = bind(d.params[p], in.params[p], d.type_params, bound);
    if (ok && bound.size() == d.type_params.size()) {
      m.def = &d;
      m.types = std::move(bound);
    }
  }
  if (!m.def) return std::nullopt;
  return m;
}

// The definition's text from after `template <...>` written out for one
// instantiation: its types for the type parameters, `mangled` for its name.
std::string instantiated_text(std::string_view text, const std::vector<Token>& t, const Match& m,
                              std::string_view mangled) {
  const Definition& def = *m.def;
  std::string body;
  size_t at = t[def.head].begin;
  for (size_t k = def.head; k <= def.last; ++k) {
    std::string_view replacement;
    if (k == def.name) replacement = mangled;
    else if (auto it = m.types.find(t[k].text); t[k].ident && it != m.types.end()) replacement = it->second;
    if (replacement.empty()) continue;
    body.append(text.substr(at, t[k].begin - at));
    body.append(replacement);
    at = t[k].end;
  }
  body.append(text.substr(at, def.end - at));
  return body;
}

// `text` with the definitions reduced to their line breaks and each
// instantiation replaced by its body (`bodies`, in the order of `insts`).
std::string with_edits(std::string_view text, const std::vector<Definition>& defs,
                       const std::vector<Instantiation>& insts, std::vector<std::string> bodies) {
  struct Edit {
    size_t begin, end;
    std::string with;
  };
  std::vector<Edit> edits;
  for (const Definition& d : defs) {
    std::string lines;
    for (size_t k = d.begin; k < d.end; ++k) {
      if (text[k] == '\n') lines += '\n';
    }
    edits.push_back({d.begin, d.end, std::move(lines)});
  }
  for (size_t k = 0; k < insts.size(); ++k) edits.push_back({insts[k].begin, insts[k].end, std::move(bodies[k])});
  std::sort(edits.begin(), edits.end(), [](const Edit& a, const Edit& b) { return a.begin < b.begin; });
  std::string out;
  size_t at = 0;
  for (const Edit& e : edits) {
    out.append(text.substr(at, e.begin - at));
    out.append(e.with);
    at = e.end;
  }
  out.append(text.substr(at));
  return out;
}

}  // namespace

std::optional<std::string> instantiate_kernel_templates(std::string_view text) {
  if (text.find("mangled_name") == std::string_view::npos) return std::nullopt;
  const std::string code = scan::without_comments(text, true);
  const std::vector<Token> t = tokenize(code);
  std::vector<Definition> defs;
  std::vector<Instantiation> insts;
  if (!read_templates(t, defs, insts) || insts.empty()) return std::nullopt;
  // Each instantiation's definition text, with its types and its name.
  std::vector<std::string> bodies;
  for (const Instantiation& in : insts) {
    std::optional<Match> m = match_definition(t, defs, in);
    if (!m) return std::nullopt;
    bodies.push_back(instantiated_text(text, t, *m, in.mangled));
  }
  return with_edits(text, defs, insts, std::move(bodies));
}

std::string with_kernel_templates_instantiated(std::string_view text) {
  std::optional<std::string> out = instantiate_kernel_templates(text);
  return out ? std::move(*out) : std::string(text);
}

}  // namespace clgen::preprocess
