// The C tokenizer and n-gram hashing of tokens.h.
#include "corpus/preprocess/tokens.h"

#include <algorithm>
#include <array>

namespace clgen::preprocess {

namespace {

bool ident_start(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == '$'; }
bool digit(char c) { return c >= '0' && c <= '9'; }
bool ident_char(char c) { return ident_start(c) || digit(c); }

// Longest first within each length, so the first match is the longest.
constexpr std::array<std::string_view, 23> kPunctuators = {
    "<<=", ">>=", "...", "->", "++", "--", "<<", ">>", "<=", ">=", "==", "!=",
    "&&",  "||",  "*=",  "/=", "%=", "+=", "-=", "&=", "^=", "|=", "##"};

// Where the literal that opens at `i` with `quote` ends (one past the closing
// quote, or the end of the text).
size_t literal_end(std::string_view s, size_t i, char quote) {
  for (++i; i < s.size(); ++i) {
    if (s[i] == '\\') ++i;
    else if (s[i] == quote) return i + 1;
    else if (s[i] == '\n') return i;  // unterminated: stop at the line's end
  }
  return s.size();
}

uint64_t fnv1a(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ull;
  for (unsigned char c : s) h = (h ^ c) * 0x100000001b3ull;
  return h;
}

uint64_t mix(uint64_t x) {  // splitmix64's finalizer
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

}  // namespace

namespace {

// Calls emit(token) for each token of `s`, in order.
template <typename Emit>
void scan_tokens(std::string_view s, Emit&& emit) {
  size_t i = 0;
  while (i < s.size()) {
    char c = s[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v') { ++i; continue; }
    if (c == '\\' && i + 1 < s.size() && (s[i + 1] == '\n' || s[i + 1] == '\r')) { i += 2; continue; }
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
      while (i < s.size() && s[i] != '\n') ++i;
      continue;
    }
    if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
      size_t end = s.find("*/", i + 2);
      i = end == std::string_view::npos ? s.size() : end + 2;
      continue;
    }
    size_t j = i + 1;
    if (ident_start(c)) {
      while (j < s.size() && ident_char(s[j])) ++j;
    } else if (digit(c) || (c == '.' && j < s.size() && digit(s[j]))) {
      // A preprocessing number: digits, letters, '.', and a sign after an exponent.
      while (j < s.size()) {
        char d = s[j];
        if ((d == '+' || d == '-') && (s[j - 1] == 'e' || s[j - 1] == 'E' || s[j - 1] == 'p' || s[j - 1] == 'P')) ++j;
        else if (ident_char(d) || d == '.') ++j;
        else break;
      }
    } else if (c == '"' || c == '\'') {
      j = literal_end(s, i, c);
    } else {
      for (std::string_view p : kPunctuators) {
        if (p[0] == c && s.compare(i, p.size(), p) == 0) {
          j = i + p.size();
          break;
        }
      }
    }
    emit(s.substr(i, j - i));
    i = j;
  }
}

}  // namespace

std::vector<std::string> c_tokens(std::string_view text) {
  std::vector<std::string> out;
  scan_tokens(text, [&out](std::string_view t) { out.emplace_back(t); });
  return out;
}

std::vector<uint64_t> token_hashes(std::string_view text) {
  std::vector<uint64_t> out;
  scan_tokens(text, [&out](std::string_view t) { out.push_back(fnv1a(t)); });
  return out;
}

std::vector<uint64_t> ngram_hashes(const std::vector<std::string>& tokens, int n) {
  std::vector<uint64_t> th(tokens.size());
  for (size_t i = 0; i < tokens.size(); ++i) th[i] = fnv1a(tokens[i]);
  return ngram_hashes_of(th, n);
}

std::vector<uint64_t> ngram_hashes_of(const std::vector<uint64_t>& th, int n) {
  std::vector<uint64_t> out;
  if (n < 1 || th.size() < static_cast<size_t>(n)) return out;
  out.reserve(th.size() - n + 1);
  for (size_t i = 0; i + n <= th.size(); ++i) {
    uint64_t h = static_cast<uint64_t>(n);
    for (int k = 0; k < n; ++k) h = mix(h * 0x9e3779b97f4a7c15ull + th[i + k]);
    out.push_back(h);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

double containment(const std::vector<uint64_t>& part, const std::vector<uint64_t>& whole) {
  if (part.empty()) return 0;
  size_t shared = 0, j = 0;
  for (uint64_t h : part) {
    while (j < whole.size() && whole[j] < h) ++j;
    if (j < whole.size() && whole[j] == h) ++shared;
  }
  return static_cast<double>(shared) / static_cast<double>(part.size());
}

uint64_t sequence_hash(const std::vector<std::string>& tokens) {
  std::vector<uint64_t> th;
  th.reserve(tokens.size());
  for (const std::string& t : tokens) th.push_back(fnv1a(t));
  return sequence_hash(th);
}

uint64_t sequence_hash(const std::vector<uint64_t>& th) {
  uint64_t h = th.size();
  for (uint64_t t : th) h = mix(h * 0x9e3779b97f4a7c15ull + t);
  return h;
}

}  // namespace clgen::preprocess
