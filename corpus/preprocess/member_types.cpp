// Member types (see member_types.h): the variables of a missing type and the
// members the text uses on them, found by a word scan.
#include "corpus/preprocess/member_types.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <set>

#include "corpus/preprocess/text_scan.h"

namespace clgen::preprocess {
namespace {

using scan::ident_char;
using scan::skip_space;
using scan::word_at;

// Words that may stand between a type and the variable it declares.
bool declarator_word(std::string_view w) {
  static const std::set<std::string_view> words = {"const",    "volatile",   "restrict", "__restrict",
                                                   "global",   "__global",   "local",    "__local",
                                                   "constant", "__constant", "private",  "__private"};
  return words.count(w) > 0;
}

// The variables declared with type `name`: after `name`, past `*`, `&` and
// qualifiers, the next word, then after each top-level ',' of a local
// declaration (`T R, G, B;`).
std::set<std::string> variables_of(std::string_view t, std::string_view name) {
  std::set<std::string> out;
  for (size_t p = t.find(name); p != std::string_view::npos; p = t.find(name, p + 1)) {
    if ((p > 0 && ident_char(t[p - 1])) || (p + name.size() < t.size() && ident_char(t[p + name.size()]))) continue;
    size_t i = p + name.size();
    while (true) {
      i = skip_space(t, i);
      if (i < t.size() && (t[i] == '*' || t[i] == '&')) {
        ++i;
        continue;
      }
      std::string_view w = word_at(t, i);
      if (w.empty()) break;
      i += w.size();
      if (declarator_word(w)) continue;
      out.insert(std::string(w));
      // `T a, b;`: the names after commas up to ';' (not in a parameter list,
      // where the next type follows the comma).
      size_t next = skip_space(t, i);
      while (next < t.size() && t[next] == ',') {
        size_t j = skip_space(t, next + 1);
        std::string_view v = word_at(t, j);
        size_t after = skip_space(t, j + v.size());
        if (v.empty() || after >= t.size() || (t[after] != ',' && t[after] != ';')) break;
        out.insert(std::string(v));
        next = after;
      }
      break;
    }
  }
  return out;
}

// The vector width a member name needs when it names lanes (`x`, `zw`,
// `s7`, `sA`, `lo`, `even`, ...); 0 when it is no lane name.
int lane_width(const std::string& m) {
  if (m == "lo" || m == "hi" || m == "even" || m == "odd") return 4;
  if (m.find_first_not_of("xyzw") == std::string::npos) {
    if (m.size() > 4) return 0;
    return m.find_first_of("zw") != std::string::npos ? 4 : 2;
  }
  if (m.size() < 2 || (m[0] != 's' && m[0] != 'S')) return 0;
  int highest = 0;
  for (size_t i = 1; i < m.size(); ++i) {
    char c = static_cast<char>(std::tolower(static_cast<unsigned char>(m[i])));
    if (std::isdigit(static_cast<unsigned char>(c))) highest = std::max(highest, c - '0');
    else if (c >= 'a' && c <= 'f') highest = std::max(highest, c - 'a' + 10);
    else return 0;
  }
  return highest < 2 ? 2 : highest < 4 ? 4 : highest < 8 ? 8 : 16;
}

}  // namespace

std::string member_type_definition(std::string_view text, std::string_view name) {
  const std::string code = scan::without_comments(text);
  const std::string_view t = code;
  const std::set<std::string> vars = variables_of(t, name);
  if (vars.empty()) return "";
  std::map<std::string, bool> members;  // name -> subscripted
  for (const std::string& v : vars) {
    for (size_t p = t.find(v); p != std::string_view::npos; p = t.find(v, p + 1)) {
      if ((p > 0 && (ident_char(t[p - 1]) || t[p - 1] == '.')) ||
          (p + v.size() < t.size() && ident_char(t[p + v.size()]))) {
        continue;
      }
      // `v.m`, `v->m`, `v[i].m` (an element of a pointer to the type), with
      // nothing between the parts: macro arguments joined by spaces are rare,
      // and it keeps out a sentence ending in a variable's name.
      size_t i = p + v.size();
      if (i < t.size() && t[i] == '[') {
        int depth = 0;
        for (; i < t.size(); ++i) {
          if (t[i] == '[') ++depth;
          else if (t[i] == ']' && --depth == 0) break;
        }
        ++i;
      }
      size_t m = std::string_view::npos;
      if (i < t.size() && t[i] == '.') m = i + 1;
      else if (i + 1 < t.size() && t[i] == '-' && t[i + 1] == '>') m = i + 2;
      if (m == std::string_view::npos) continue;
      std::string_view member = word_at(t, m);
      if (member.empty() || std::isdigit(static_cast<unsigned char>(member[0]))) continue;
      size_t after = skip_space(t, m + member.size());
      members[std::string(member)] |= after < t.size() && t[after] == '[';
    }
  }
  if (members.empty()) return "";
  bool lanes = true;
  int width = 2;
  for (const auto& [m, subscripted] : members) {
    int w = lane_width(m);
    lanes &= !subscripted && w > 0;
    width = std::max(width, w);
  }
  const std::string n(name);
  if (lanes) return "#define " + n + " float" + std::to_string(width);
  std::string body;
  for (const auto& [m, subscripted] : members) body += " int " + m + (subscripted ? "[4];" : ";");
  return "typedef struct {" + body + " } " + n + ";";
}

}  // namespace clgen::preprocess
