// Image macro families (see image_macros.h): a scan of the text's kernel
// parameters and of the family words and positions it uses for them.
#include "corpus/preprocess/image_macros.h"

#include <cctype>
#include <map>

#include "corpus/preprocess/text_scan.h"

namespace clgen::preprocess {
namespace {

using scan::ident_char;
using scan::skip_space;

struct Word {
  std::string_view text;
  size_t pos;
};

std::vector<Word> words_of(std::string_view t) {
  std::vector<Word> out;
  for (size_t i = 0; i < t.size();) {
    if (!ident_char(t[i]) || std::isdigit(static_cast<unsigned char>(t[i]))) {
      // Skip numbers whole, so that `1e5f` gives no word `e5f`.
      size_t j = i + 1;
      if (std::isdigit(static_cast<unsigned char>(t[i]))) {
        while (j < t.size() && ident_char(t[j])) ++j;
      }
      i = j;
      continue;
    }
    size_t j = i;
    while (j < t.size() && ident_char(t[j])) ++j;
    out.push_back({t.substr(i, j - i), i});
    i = j;
  }
  return out;
}

// The top-level arguments of the parenthesis opened at `open`, trimmed;
// empty when it is not closed.
std::vector<std::string_view> arguments(std::string_view t, size_t open) {
  std::vector<std::string_view> out;
  int depth = 0;
  size_t start = open + 1;
  auto push = [&](size_t end) {
    std::string_view a = t.substr(start, end - start);
    size_t b = a.find_first_not_of(" \t\r\n");
    size_t e = a.find_last_not_of(" \t\r\n");
    out.push_back(b == std::string_view::npos ? std::string_view() : a.substr(b, e - b + 1));
  };
  for (size_t i = open; i < t.size(); ++i) {
    char c = t[i];
    if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      if (--depth == 0) {
        push(i);
        return out;
      }
    } else if (c == ',' && depth == 1) {
      push(i);
      start = i + 1;
    }
  }
  return {};
}

struct Kernels {
  std::set<std::string> params;  // every kernel's parameters: the last word of each
  std::vector<std::string> names;
};

Kernels kernels_of(std::string_view t, const std::vector<Word>& words) {
  Kernels out;
  for (const Word& w : words) {
    if (w.text != "__kernel" && w.text != "kernel") continue;
    // The parameter list is the first '(' after the kernel's name, past any
    // `__attribute__((...))`.
    size_t i = w.pos + w.text.size();
    while (true) {
      size_t open = t.find_first_of("(;{", i);
      if (open == std::string_view::npos || t[open] != '(') break;
      size_t name_end = open;
      while (name_end > i && std::isspace(static_cast<unsigned char>(t[name_end - 1]))) --name_end;
      size_t name_start = name_end;
      while (name_start > i && ident_char(t[name_start - 1])) --name_start;
      std::vector<std::string_view> args = arguments(t, open);
      if (t.substr(name_start, name_end - name_start) == "__attribute__") {
        size_t close = open, depth = 0;
        for (; close < t.size(); ++close) {
          if (t[close] == '(') ++depth;
          else if (t[close] == ')' && --depth == 0) break;
        }
        i = close + 1;
        continue;
      }
      for (std::string_view a : args) {
        size_t bracket = a.find('[');
        if (bracket != std::string_view::npos) a = a.substr(0, bracket);
        size_t e = a.size();
        while (e > 0 && !ident_char(a[e - 1])) --e;
        size_t b = e;
        while (b > 0 && ident_char(a[b - 1])) --b;
        if (e > b) out.params.insert(std::string(a.substr(b, e - b)));
      }
      out.names.emplace_back(t.substr(name_start, name_end - name_start));
      break;
    }
  }
  return out;
}

// One macro of a parameter's family: PREFIX NAME SUFFIX.
struct Member {
  const char* prefix;
  const char* suffix;
};
constexpr Member kMembers[] = {
    {"IMAGE_", "_TYPE"},       {"IMAGE_", "_PIXEL_TYPE"},   {"POS_", "_TYPE"},         {"POS_", "_INSTANCE"},
    {"IMAGE_SIZE_", "_WIDTH"}, {"IMAGE_SIZE_", "_HEIGHT"},  {"IMAGE_SIZE_", "_DEPTH"}, {"READ_", "_IMAGE"},
    {"WRITE_", "_IMAGE"},      {"CONVERT_", "_PIXEL_TYPE"},
};

// The generic forms: the image is their first argument.
struct Generic {
  const char* name;
  const char* params;
  const char* value;
};
constexpr Generic kGenerics[] = {
    {"READ_IMAGE", "(a, b, c)", "READ_##a##_IMAGE(a, b, c)"},
    {"WRITE_IMAGE", "(a, b, c)", "WRITE_##a##_IMAGE(a, b, c)"},
    {"GET_IMAGE_WIDTH", "(a)", "IMAGE_SIZE_##a##_WIDTH"},
    {"GET_IMAGE_HEIGHT", "(a)", "IMAGE_SIZE_##a##_HEIGHT"},
    {"GET_IMAGE_DEPTH", "(a)", "IMAGE_SIZE_##a##_DEPTH"},
};

// What the positions given to an image show: its dimension (0 while none
// tells) and whether one is floating-point (an interpolating read).
struct Positions {
  int dims = 0;
  bool floating = false;
};

// The position type a word names: int2/float2 or int4/float4.
void note_type(std::string_view w, Positions& p) {
  int d = w == "int2" || w == "float2" ? 2 : w == "int4" || w == "float4" ? 3 : 0;
  if (d == 0) return;
  if (p.dims == 0) p.dims = d;
  p.floating |= w[0] == 'f';
}

// Notes what a position argument shows: the vector types written in it, and
// those of the variables it names (the type word before a declaration, or
// the cast of a vector literal assigned to it).
void note_position(std::string_view position, std::string_view text, const std::vector<Word>& words, Positions& p) {
  std::vector<Word> inner = words_of(position);
  for (const Word& w : inner) note_type(w.text, p);
  for (const Word& v : inner) {
    for (size_t k = 1; k < words.size(); ++k) {
      if (words[k].text != v.text) continue;
      const Word& prev = words[k - 1];
      if (skip_space(text, prev.pos + prev.text.size()) == words[k].pos) note_type(prev.text, p);
      size_t eq = skip_space(text, words[k].pos + v.text.size());
      if (eq + 1 < text.size() && text[eq] == '=' && text[eq + 1] != '=' && k + 1 < words.size()) {
        size_t open = skip_space(text, eq + 1);
        if (open < text.size() && text[open] == '(' && skip_space(text, open + 1) == words[k + 1].pos) {
          note_type(words[k + 1].text, p);
        }
      }
    }
  }
}

std::string family_name(const Member& m, const std::string& image) { return m.prefix + image + m.suffix; }

// The family of `image` (dimension 2 or 3), in the order of kMembers;
// `floating`: positions are truncated to integers first.
std::vector<HostMacro> family(const std::string& image, int dims, bool floating) {
  const std::string w = "IMAGE_SIZE_" + image + "_WIDTH", h = "IMAGE_SIZE_" + image + "_HEIGHT",
                    d = "IMAGE_SIZE_" + image + "_DEPTH";
  auto axis = [floating](const std::string& p, const char* lane, const std::string& size) {
    return std::string("clamp(") + (floating ? "(int)" : "") + "(" + p + ")." + lane + ", 0, " + size + " - 1)";
  };
  auto index = [&](const std::string& p) {
    if (dims == 2) return axis(p, "x", w) + " + " + w + " * " + axis(p, "y", h);
    return axis(p, "x", w) + " + " + w + " * (" + axis(p, "y", h) + " + " + h + " * " + axis(p, "z", d) + ")";
  };
  const char* pos = dims == 2 ? "int2" : "int4";
  // Parentheses only where needed, since they reach the training text: the
  // image argument is always a parameter's name, a WRITE is a statement, and
  // a READ keeps its outer pair because callers take `.x`, which would bind
  // before the cast.
  return {
      {family_name(kMembers[0], image), "__global float*", ""},
      {family_name(kMembers[1], image), "float", ""},
      {family_name(kMembers[2], image), pos, ""},
      {family_name(kMembers[3], image), dims == 2 ? "(int2)(x, y)" : "(int4)(x, y, z, w)", "(x, y, z, w)"},
      {w, "(int)get_global_size(0)", ""},
      {h, "(int)get_global_size(1)", ""},
      {d, "(int)get_global_size(2)", ""},
      {family_name(kMembers[7], image), "((float4)(a[" + index("c") + "]))", "(a, b, c)"},
      {family_name(kMembers[8], image), "a[" + index("b") + "] = c", "(a, b, c)"},
      {family_name(kMembers[9], image), "(float)(x)", "(x)"},
  };
}

}  // namespace

ImageMacros::ImageMacros(std::string_view original) {
  const std::string text = scan::without_comments(original);
  const std::vector<Word> words = words_of(text);
  std::set<std::string_view> used, defined;
  for (size_t k = 0; k < words.size(); ++k) {
    used.insert(words[k].text);
    if (k == 0 || words[k - 1].text != "define") continue;
    size_t hash = words[k - 1].pos;
    while (hash > 0 && (text[hash - 1] == ' ' || text[hash - 1] == '\t')) --hash;
    if (hash > 0 && text[hash - 1] == '#') defined.insert(words[k].text);
  }
  // The images: parameters with a family word in the text or a generic form
  // called on them; each position given to one tells its dimension.
  std::map<std::string, Positions> images;
  const Kernels kernels = kernels_of(text, words);
  const std::set<std::string>& params = kernels.params;
  for (const std::string& p : params) {
    for (const Member& m : kMembers) {
      if (used.count(family_name(m, p))) images.emplace(p, Positions{});
    }
  }
  std::set<std::string> generics_used;
  for (size_t k = 0; k < words.size(); ++k) {
    std::string_view w = words[k].text;
    size_t open = skip_space(text, words[k].pos + w.size());
    if (open >= text.size() || text[open] != '(') continue;
    std::string image;
    size_t position = 0;  // the argument that is a position
    bool generic = false;
    for (const Generic& g : kGenerics) generic |= w == g.name;
    std::vector<std::string_view> args;
    if (generic) {
      args = arguments(text, open);
      if (args.empty() || !params.count(std::string(args[0]))) continue;
      image = std::string(args[0]);
      images.emplace(image, Positions{});
      generics_used.insert(std::string(w));
      position = w == "READ_IMAGE" ? 2 : w == "WRITE_IMAGE" ? 1 : 0;
    } else {
      for (const char* prefix : {"READ_", "WRITE_"}) {
        std::string_view p(prefix);
        if (w.size() > p.size() + 6 && w.substr(0, p.size()) == p && w.substr(w.size() - 6) == "_IMAGE") {
          image = std::string(w.substr(p.size(), w.size() - p.size() - 6));
          position = p == "READ_" ? 2 : 1;
        }
      }
      if (image.empty() || !params.count(image)) continue;
      args = arguments(text, open);
    }
    if (position == 0 || args.size() <= position) continue;
    note_position(args[position], text, words, images[image]);
  }
  // Without a position that tells, a kernel named for 2D images (clij's
  // `_2d` kernels) has them: its POS_NAME_INSTANCE(x, y, z, w) drops z,
  // which such kernels may leave undeclared.
  bool named_2d = false, named_3d = false;
  for (const std::string& name : kernels.names) {
    named_2d |= name.find("2d") != std::string::npos;
    named_3d |= name.find("3d") != std::string::npos;
  }
  const int fallback = named_2d && !named_3d ? 2 : 3;
  for (const auto& [image, positions] : images) {
    const int dims = positions.dims ? positions.dims : fallback;
    for (HostMacro& m : family(image, dims, positions.floating)) {
      if (!defined.count(m.name)) definitions_.push_back(std::move(m));
    }
  }
  for (const Generic& g : kGenerics) {
    if (generics_used.count(g.name) && !defined.count(g.name)) definitions_.push_back({g.name, g.value, g.params});
  }
  for (const HostMacro& m : definitions_) names_.insert(m.name);
}

std::vector<HostMacro> ImageMacros::operator()(std::string_view missing) const {
  if (!names_.count(std::string(missing))) return {};
  return definitions_;
}

bool ImageMacros::may_define(std::string_view missing) {
  for (const Generic& g : kGenerics) {
    if (missing == g.name) return true;
  }
  for (const Member& m : kMembers) {
    const std::string_view prefix(m.prefix), suffix(m.suffix);
    // A family name has a parameter's name (one character at least) between the two.
    if (missing.size() > prefix.size() + suffix.size() && missing.substr(0, prefix.size()) == prefix &&
        missing.substr(missing.size() - suffix.size()) == suffix) {
      return true;
    }
  }
  return false;
}

}  // namespace clgen::preprocess
