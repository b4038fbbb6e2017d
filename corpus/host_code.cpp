// Host-code string literals: one lexer per language family, literal
// concatenation, the kernel test (host_code.h).
#include "corpus/host_code.h"

#include <algorithm>
#include <cctype>
#include <set>

#include "corpus/string_literals.h"

namespace clgen::corpus {

namespace {

bool ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }
bool space(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v' || c == '\n'; }

void append_code_point(std::string& out, uint32_t cp) {
  if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) cp = 0xFFFD;
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

// What each language's lexer does differently.
struct Traits {
  bool slash_comments = true;         // // and /* */
  bool nested_block = false;          // /* /* */ */ nests (Rust, Kotlin, Scala)
  bool hash_comments = false;         // # to the end of the line (Python, Julia)
  bool julia_block = false;           // #= ... =# (nesting)
  bool adjacent = false;              // "a" "b" is one literal (C, Python)
  char concat = '+';                  // the operator that joins literals (0: none)
  bool single_quote_strings = false;  // 'abc' is a string (Python, JavaScript)
  bool triple = false;                // """...""" (Python, Julia, Java text blocks, Kotlin, Scala)
  bool triple_raw = false;            // triple-quoted strings have no escapes (Kotlin, Scala)
  bool backtick_raw = false;          // Go's `raw`
  bool backtick_template = false;     // JavaScript's `template ${x}`
  bool c = false;                     // C/C++: u8/L/u/U prefixes, R"d(...)d", preprocessor
  bool rust = false;                  // r#"..."#, lifetimes, \ newline skips indentation
  bool python = false;                // r/b/u/f prefixes; unknown escapes keep their backslash
  bool csharp = false;                // @"verbatim" and $"interpolated"
  bool dollar_interpolation = false;  // "$x" and "${x}" interpolate (Julia, Kotlin)
  bool multiline_strings = false;     // a plain "..." may span lines (Rust, Julia)
};

Traits traits_of(HostLanguage l) {
  Traits t;
  switch (l) {
    case HostLanguage::kC: t.c = true, t.adjacent = true, t.concat = 0; break;
    case HostLanguage::kPython:
      t.slash_comments = false, t.hash_comments = true, t.adjacent = true, t.single_quote_strings = true;
      t.triple = true, t.python = true;
      break;
    case HostLanguage::kJava: t.triple = true; break;
    case HostLanguage::kJavaScript: t.single_quote_strings = true, t.backtick_template = true; break;
    case HostLanguage::kRust: t.rust = true, t.nested_block = true, t.concat = 0, t.multiline_strings = true; break;
    case HostLanguage::kGo: t.backtick_raw = true; break;
    case HostLanguage::kJulia:
      t.slash_comments = false, t.hash_comments = true, t.julia_block = true, t.concat = '*', t.triple = true;
      t.dollar_interpolation = true, t.multiline_strings = true;
      break;
    case HostLanguage::kCSharp: t.csharp = true; break;
    case HostLanguage::kKotlin:
      t.nested_block = true, t.triple = true, t.triple_raw = true, t.dollar_interpolation = true;
      break;
    case HostLanguage::kScala: t.nested_block = true, t.triple = true, t.triple_raw = true; break;
  }
  return t;
}

// Decodes the escapes of a literal's body.
std::string decode_escapes(std::string_view b, const Traits& t) {
  std::string out;
  out.reserve(b.size());
  const size_t n = b.size();
  for (size_t i = 0; i < n; ++i) {
    if (b[i] != '\\' || i + 1 >= n) {
      out += b[i];
      continue;
    }
    const char e = b[++i];
    if (auto simple = simple_c_escape(e)) {
      out += *simple;
      continue;
    }
    switch (e) {
      case 'e': out += '\x1b'; break;
      case '\r':
      case '\n': {  // a line continued inside the literal
        if (e == '\r' && i + 1 < n && b[i + 1] == '\n') ++i;
        if (t.rust)
          while (i + 1 < n && space(b[i + 1])) ++i;
        break;
      }
      case 'x': {
        uint32_t v = 0;
        int digits = 0;
        while (i + 1 < n && hex_digit_value(b[i + 1]) >= 0 && digits < (t.c ? 8 : 2))
          v = v * 16 + hex_digit_value(b[++i]), ++digits;
        if (digits == 0) out += t.python ? "\\x" : "x";
        else append_code_point(out, v);
        break;
      }
      case 'u':
      case 'U': {
        uint32_t v = 0;
        if (e == 'u' && i + 1 < n && b[i + 1] == '{') {  // Rust, JavaScript: \u{1F600}
          size_t close = b.find('}', i + 2);
          if (close == std::string_view::npos) {
            out += e;
            break;
          }
          for (size_t k = i + 2; k < close; ++k)
            if (hex_digit_value(b[k]) >= 0) v = v * 16 + hex_digit_value(b[k]);
          i = close;
        } else {
          int want = e == 'u' ? 4 : 8, digits = 0;
          while (digits < want && i + 1 < n && hex_digit_value(b[i + 1]) >= 0)
            v = v * 16 + hex_digit_value(b[++i]), ++digits;
          if (digits == 0) {
            out += t.python ? std::string("\\") + e : std::string(1, e);
            break;
          }
        }
        append_code_point(out, v);
        break;
      }
      default:
        if (e >= '0' && e <= '7' && !t.rust) {
          append_code_point(out, octal_escape(b, i));
        } else if (e == '0') {
          out += '\0';
        } else if (t.python && e != '\\' && e != '\'' && e != '"') {
          out += '\\';  // Python keeps an unknown escape as written
          out += e;
        } else {
          out += e;  // \\ \" \' \? \$ and the rest: the character itself
        }
    }
  }
  return out;
}

// Skips a balanced (...) starting at text[i] == '('; returns the offset after
// its ')' or npos. Literals and comments inside do not count.
size_t skip_parens(std::string_view text, size_t i) {
  int depth = 0;
  const size_t n = text.size();
  while (i < n) {
    const char c = text[i];
    if (c == '(') {
      ++depth;
    } else if (c == ')') {
      if (--depth == 0) return i + 1;
    } else if (c == '"' || c == '\'') {
      size_t e = i + 1;
      while (e < n && text[e] != c && text[e] != '\n') e += text[e] == '\\' ? 2 : 1;
      i = e;
    } else if (c == '/' && i + 1 < n && text[i + 1] == '*') {
      size_t e = text.find("*/", i + 2);
      if (e == std::string_view::npos) return std::string_view::npos;
      i = e + 1;
    } else if (c == '/' && i + 1 < n && text[i + 1] == '/') {
      size_t e = text.find('\n', i);
      if (e == std::string_view::npos) return std::string_view::npos;
      i = e;
    }
    ++i;
  }
  return std::string_view::npos;
}

// Whitespace and comments from `i` on.
size_t skip_blank(std::string_view text, size_t i) {
  const size_t n = text.size();
  while (i < n) {
    if (space(text[i])) {
      ++i;
    } else if (text.compare(i, 2, "/*") == 0) {
      size_t e = text.find("*/", i + 2);
      if (e == std::string_view::npos) return n;
      i = e + 2;
    } else if (text.compare(i, 2, "//") == 0) {
      size_t e = text.find('\n', i);
      if (e == std::string_view::npos) return n;
      i = e + 1;
    } else {
      break;
    }
  }
  return i;
}

// The kernel definition test from the `kernel` word at `at` (just after it).
bool kernel_definition_at(std::string_view text, size_t i) {
  const size_t n = text.size();
  int names = 0;  // identifiers seen: at least a type before the name
  for (int steps = 0; steps < 32; ++steps) {
    i = skip_blank(text, i);
    if (i >= n) return false;
    if (text[i] == '*') {
      ++i;
      continue;
    }
    if (!ident_start(text[i])) return false;
    size_t j = i;
    while (j < n && ident_char(text[j])) ++j;
    std::string_view id = text.substr(i, j - i);
    size_t k = skip_blank(text, j);
    if (k < n && text[k] == '(') {
      size_t close = skip_parens(text, k);
      if (close == std::string_view::npos) return false;
      if (id.substr(0, 11) == "__attribute") {
        i = close;
        continue;
      }
      if (names == 0) return false;
      close = skip_blank(text, close);
      return close < n && text[close] == '{';
    }
    ++names;
    i = j;
  }
  return false;
}

}  // namespace

bool looks_like_kernel(std::string_view text) {
  for (size_t at = text.find("kernel"); at != std::string_view::npos; at = text.find("kernel", at + 6)) {
    size_t begin = at >= 2 && text.compare(at - 2, 2, "__") == 0 ? at - 2 : at;
    if (begin > 0 && ident_char(text[begin - 1])) continue;
    if (at + 6 < text.size() && ident_char(text[at + 6])) continue;
    if (kernel_definition_at(text, at + 6)) return true;
  }
  return false;
}

std::optional<HostLanguage> host_language(std::string_view path) {
  size_t dot = path.rfind('.');
  size_t slash = path.rfind('/');
  if (dot == std::string_view::npos || (slash != std::string_view::npos && dot < slash)) return std::nullopt;
  std::string ext(path.substr(dot + 1));
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  static const std::set<std::string> c = {"c",   "cc",  "cpp", "cxx", "c++", "h", "hh",
                                          "hpp", "hxx", "inl", "ipp", "m",   "mm"};
  if (c.count(ext)) return HostLanguage::kC;
  if (ext == "py" || ext == "pyx" || ext == "pyi") return HostLanguage::kPython;
  if (ext == "java") return HostLanguage::kJava;
  if (ext == "js" || ext == "mjs" || ext == "cjs" || ext == "ts") return HostLanguage::kJavaScript;
  if (ext == "rs") return HostLanguage::kRust;
  if (ext == "go") return HostLanguage::kGo;
  if (ext == "jl") return HostLanguage::kJulia;
  if (ext == "cs") return HostLanguage::kCSharp;
  if (ext == "kt" || ext == "kts") return HostLanguage::kKotlin;
  if (ext == "scala") return HostLanguage::kScala;
  return std::nullopt;
}

namespace {

class Scanner {
 public:
  Scanner(std::string_view code, HostLanguage language) : s_(code), n_(code.size()), t_(traits_of(language)) {}

  HostScan run() {
    while (i_ < n_) step();
    flush();
    return std::move(out_);
  }

 private:
  struct Literal {
    std::string text;
    bool templated = false;
  };

  // Moves to `j`, counting the lines passed.
  void advance_to(size_t j) {
    j = std::min(j, n_);
    line_ += std::count(s_.begin() + i_, s_.begin() + j, '\n');
    i_ = j;
  }
  size_t find_or_end(std::string_view what, size_t from) const {
    size_t e = s_.find(what, from);
    return e == std::string_view::npos ? n_ : e;
  }

  void step() {
    const char c = s_[i_];
    const char next = i_ + 1 < n_ ? s_[i_ + 1] : '\0';
    if (space(c) || (t_.c && c == '\\' && (next == '\n' || next == '\r'))) return advance_to(i_ + 1);
    if (t_.slash_comments && c == '/' && next == '/') return skip_line_comment();
    if (t_.slash_comments && c == '/' && next == '*') return skip_block("/*", "*/", t_.nested_block);
    if (t_.julia_block && c == '#' && next == '=') return skip_block("#=", "=#", true);
    if (t_.hash_comments && c == '#') return skip_line_comment();
    if (t_.c && c == '#') {
      read_directive();
      flush();
      return advance_to(i_ + 1);
    }
    if (ident_start(c) || (t_.csharp && (c == '@' || c == '$') && (next == '"' || next == '@' || next == '$')))
      return identifier();
    if (c == '"' || (t_.single_quote_strings && c == '\'')) return string("");
    if (c == '\'') return char_literal();
    if (c == '`' && (t_.backtick_raw || t_.backtick_template)) return backtick();
    if (t_.concat && c == t_.concat && open_ && last_was_literal_) {
      pending_concat_ = true;
      last_was_literal_ = false;
      return advance_to(i_ + 1);
    }
    flush();
    advance_to(i_ + 1);
  }

  void skip_line_comment() {
    size_t e = i_;
    while (e < n_ && !(s_[e] == '\n' &&
                       !(t_.c && e > 0 && (s_[e - 1] == '\\' || (s_[e - 1] == '\r' && e > 1 && s_[e - 2] == '\\')))))
      ++e;
    advance_to(e);
  }

  void skip_block(std::string_view open, std::string_view close, bool nested) {
    size_t e = i_ + 2;
    int depth = 1;
    while (e < n_ && depth > 0) {
      if (s_.compare(e, close.size(), close) == 0) {
        --depth;
        e += close.size();
      } else if (nested && s_.compare(e, open.size(), open) == 0) {
        ++depth;
        e += open.size();
      } else {
        ++e;
      }
    }
    advance_to(e);
  }

  // `#define NAME(x) #x` (or `(...) #__VA_ARGS__`, or `(x) OTHER(x)` where
  // OTHER stringifies) makes NAME(...) a literal of its argument's text.
  void read_directive() {
    size_t j = i_ + 1;
    auto blank = [&] {
      while (j < n_ && (s_[j] == ' ' || s_[j] == '\t')) ++j;
    };
    auto word = [&] {
      size_t b = j;
      if (s_.compare(j, 3, "...") == 0) return j += 3, std::string("...");
      while (j < n_ && ident_char(s_[j])) ++j;
      return std::string(s_.substr(b, j - b));
    };
    blank();
    if (word() != "define") return;
    blank();
    std::string name = word();
    if (name.empty() || j >= n_ || s_[j] != '(') return;
    ++j;
    blank();
    std::string param = word();
    blank();
    if (param.empty() || j >= n_ || s_[j] != ')') return;
    ++j;
    blank();
    const std::string arg = param == "..." ? "__VA_ARGS__" : param;
    if (j < n_ && s_[j] == '#') {
      ++j;
      blank();
      if (word() == arg) stringifiers_.insert(name);
      return;
    }
    std::string inner = word();
    blank();
    if (!stringifiers_.count(inner) || j >= n_ || s_[j] != '(') return;
    ++j;
    blank();
    if (word() == arg) stringifiers_.insert(name);
  }

  void identifier() {
    size_t j = i_;
    while (j < n_ && (ident_char(s_[j]) || (t_.csharp && (s_[j] == '@' || s_[j] == '$')))) ++j;
    const std::string id(s_.substr(i_, j - i_));
    const char after = j < n_ ? s_[j] : '\0';
    if (t_.rust && (id == "r" || id == "br") && (after == '"' || after == '#')) {
      size_t k = j;
      while (k < n_ && s_[k] == '#') ++k;
      if (k < n_ && s_[k] == '"') {
        const std::string close = "\"" + std::string(k - j, '#');
        size_t e = find_or_end(close, k + 1);
        literal(Literal{std::string(s_.substr(k + 1, e - k - 1))}, e + close.size());
        return;
      }
    }
    if (after == '"' || (t_.python && after == '\'')) {
      if (string_prefix(id)) {
        advance_to(j);
        return string(id);
      }
    }
    if (t_.c && stringifiers_.count(id)) {
      size_t k = skip_blank(s_, j);
      if (k < n_ && s_[k] == '(') {
        size_t close = skip_parens(s_, k);
        if (close != std::string_view::npos) {
          std::string_view arg = s_.substr(k + 1, close - k - 2);
          size_t b = arg.find_first_not_of(" \t\r\n"), e = arg.find_last_not_of(" \t\r\n");
          literal(Literal{b == std::string_view::npos ? "" : std::string(arg.substr(b, e - b + 1))}, close);
          return;
        }
      }
    }
    flush();
    advance_to(j);
  }

  bool string_prefix(const std::string& id) const {
    std::string p = id;
    std::transform(p.begin(), p.end(), p.begin(), [](unsigned char c) { return std::tolower(c); });
    if (t_.c)
      return id == "u8" || id == "u" || id == "U" || id == "L" || id == "R" || id == "u8R" || id == "uR" ||
             id == "UR" || id == "LR";
    if (t_.python) return p.size() <= 2 && p.find_first_not_of("rbuf") == std::string::npos;
    if (t_.rust) return id == "b";
    if (t_.csharp) return id == "@" || id == "$" || id == "$@" || id == "@$";
    return id == "raw" || id == "s" || id == "f";  // Julia raw"", Scala s"" f"" raw""
  }

  // A literal opening at i_ (its quote), after `prefix`.
  void string(const std::string& prefix) {
    const char q = s_[i_];
    const bool raw = (t_.python && prefix.find_first_of("rR") != std::string::npos) || prefix == "raw" ||
                     prefix.find('@') != std::string::npos;
    const bool f_string =
        (t_.python && prefix.find_first_of("fF") != std::string::npos) || prefix.find('$') != std::string::npos;
    const bool scala_interpolated = !t_.python && !t_.c && (prefix == "s" || prefix == "f");
    if (t_.c && !prefix.empty() && prefix.back() == 'R') return cpp_raw();
    if (t_.triple && s_.compare(i_, 3, std::string(3, q)) == 0) {
      const std::string close(3, q);
      size_t e = i_ + 3;
      while (e < n_ && s_.compare(e, 3, close) != 0) e += (s_[e] == '\\' && !raw && !t_.triple_raw) ? 2 : 1;
      e = std::min(e, n_);
      std::string_view body = s_.substr(i_ + 3, e - i_ - 3);
      Literal l = finish(body, raw || t_.triple_raw, f_string, scala_interpolated);
      return literal(std::move(l), e + 3);
    }
    size_t e = i_ + 1;
    if (t_.csharp && raw) {  // "" is a quote in a verbatim string
      while (e < n_ && !(s_[e] == '"' && !(e + 1 < n_ && s_[e + 1] == '"'))) e += s_[e] == '"' ? 2 : 1;
      std::string body(s_.substr(i_ + 1, std::min(e, n_) - i_ - 1));
      std::string unq;
      for (size_t k = 0; k < body.size(); ++k) {
        unq += body[k];
        if (body[k] == '"' && k + 1 < body.size() && body[k + 1] == '"') ++k;
      }
      return literal(finish(unq, true, f_string, false), e + 1);
    }
    while (e < n_ && s_[e] != q && (t_.multiline_strings || s_[e] != '\n'))
      e += (s_[e] == '\\' && !(raw && !t_.python)) ? 2 : 1;
    e = std::min(e, n_);
    literal(finish(s_.substr(i_ + 1, e - i_ - 1), raw, f_string, scala_interpolated), e + 1);
  }

  Literal finish(std::string_view body, bool raw, bool f_string, bool scala_interpolated) {
    Literal l;
    if (f_string) {  // {{ and }} are braces; a single { substitutes
      std::string b;
      for (size_t k = 0; k < body.size(); ++k) {
        if ((body[k] == '{' || body[k] == '}') && k + 1 < body.size() && body[k + 1] == body[k]) {
          b += body[k++];
        } else {
          if (body[k] == '{') l.templated = true;
          b += body[k];
        }
      }
      l.text = raw ? b : decode_escapes(b, t_);
      return l;
    }
    if (t_.dollar_interpolation || scala_interpolated) {
      for (size_t k = 0; k + 1 < body.size(); ++k) {
        if (body[k] == '\\') ++k;
        else if (body[k] == '$' && (ident_start(body[k + 1]) || body[k + 1] == '{' || body[k + 1] == '('))
          l.templated = true;
      }
    }
    l.text = raw ? std::string(body) : decode_escapes(body, t_);
    return l;
  }

  void cpp_raw() {  // R"delim( ... )delim"
    size_t open = s_.find('(', i_ + 1);
    if (open == std::string_view::npos || open - i_ - 1 > 16) return advance_to(i_ + 1);
    const std::string close = ")" + std::string(s_.substr(i_ + 1, open - i_ - 1)) + "\"";
    size_t e = find_or_end(close, open + 1);
    literal(Literal{std::string(s_.substr(open + 1, e - open - 1))}, e + close.size());
  }

  void backtick() {
    size_t e = i_ + 1;
    while (e < n_ && s_[e] != '`') e += (t_.backtick_template && s_[e] == '\\') ? 2 : 1;
    e = std::min(e, n_);
    std::string_view body = s_.substr(i_ + 1, e - i_ - 1);
    Literal l;
    if (t_.backtick_template) {
      l.templated = body.find("${") != std::string_view::npos;
      l.text = decode_escapes(body, t_);
    } else {
      l.text = std::string(body);
    }
    literal(std::move(l), e + 1);
  }

  // 'x', '\n' and C's 'ab'; a quote that closes nothing nearby (a Rust
  // lifetime, C++'s 1'000) is one character.
  void char_literal() {
    size_t e = i_ + 1;
    if (e < n_ && s_[e] == '\\') {
      e += 2;
      while (e < n_ && s_[e] != '\'' && s_[e] != '\n') ++e;
    } else {
      size_t limit = std::min(n_, i_ + 6);
      while (e < limit && s_[e] != '\'' && s_[e] != '\n') ++e;
      if (e >= limit || s_[e] != '\'') e = i_;
    }
    flush();
    advance_to(e + 1);
  }

  // A literal token ending before `end`: joined to the open one when the
  // language concatenates them, else it starts a new one.
  void literal(Literal l, size_t end) {
    const int64_t first = line_;
    advance_to(end);
    if (open_ && ((t_.adjacent && last_was_literal_) || pending_concat_)) {
      text_ += l.text;
      templated_ = templated_ || l.templated;
    } else {
      flush();
      open_ = true;
      text_ = std::move(l.text);
      templated_ = l.templated;
      first_line_ = first;
    }
    last_line_ = line_;
    last_was_literal_ = true;
    pending_concat_ = false;
  }

  void flush() {
    last_was_literal_ = false;
    pending_concat_ = false;
    if (!open_) return;
    open_ = false;
    ++out_.literals;
    if (!looks_like_kernel(text_)) return;
    if (templated_) {
      ++out_.templates;
      return;
    }
    out_.kernels.push_back({std::move(text_), first_line_, last_line_});
  }

  std::string_view s_;
  size_t n_;
  Traits t_;
  size_t i_ = 0;
  int64_t line_ = 1;
  std::set<std::string> stringifiers_;
  bool open_ = false, last_was_literal_ = false, pending_concat_ = false, templated_ = false;
  std::string text_;
  int64_t first_line_ = 0, last_line_ = 0;
  HostScan out_;
};

}  // namespace

HostScan extract_host_kernels(std::string_view code, HostLanguage language) { return Scanner(code, language).run(); }

}  // namespace clgen::corpus
