// Recursive, cycle-safe include inliner confined to one SourceTree.
#include "corpus/inliner.h"

#include <cctype>
#include <map>
#include <set>

#include "corpus/content_check.h"
#include "support/utf8.h"

namespace clgen::corpus {

namespace {

bool is_ident_start(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
bool is_ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

std::string trim(std::string_view s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string_view::npos) return "";
  size_t e = s.find_last_not_of(" \t\r");
  return std::string(s.substr(b, e - b + 1));
}

// Lexical state carried across lines: block comments and brace depth.
struct LexState {
  bool in_block_comment = false;
  int depth = 0;
};

// True for a header written to be included several times, each time with
// other parameters: without `#pragma once`, its last line `#undef`s a macro
// (the includer defines KERNEL_TEX or MF_PHASE_FUNCTION its own way, the
// header expands it, then undefines it: blender's kernel_textures.h and
// bsdf_microfacet_multi_impl.h). An include guard cannot end so.
bool is_parameterized_header(std::string_view body) {
  size_t end = body.find_last_not_of(" \t\r\n");
  if (end == std::string_view::npos) return false;
  size_t line = body.rfind('\n', end);
  line = line == std::string_view::npos ? 0 : line + 1;
  std::string last = trim(body.substr(line, end + 1 - line));
  if (last.compare(0, 1, "#") != 0) return false;
  std::string directive = trim(std::string_view(last).substr(1));
  if (directive.compare(0, 5, "undef") != 0 || directive.size() < 7 ||
      !std::isspace(static_cast<unsigned char>(directive[5]))) {
    return false;
  }
  std::string name = trim(std::string_view(directive).substr(6));
  if (name.empty() || !is_ident_start(name[0])) return false;
  for (char c : name) {
    if (!is_ident_char(c)) return false;
  }
  return body.find("#pragma once") == std::string_view::npos;
}

// Advances `st` over one line, skipping comments, strings and char literals.
void scan_line(std::string_view line, LexState& st) {
  size_t i = 0, n = line.size();
  while (i < n) {
    char c = line[i];
    if (st.in_block_comment) {
      if (c == '*' && i + 1 < n && line[i + 1] == '/') {
        st.in_block_comment = false;
        i += 2;
      } else {
        ++i;
      }
      continue;
    }
    if (c == '/' && i + 1 < n && line[i + 1] == '/') return;
    if (c == '/' && i + 1 < n && line[i + 1] == '*') {
      st.in_block_comment = true;
      i += 2;
      continue;
    }
    if (c == '"' || c == '\'') {
      ++i;
      while (i < n && line[i] != c) i += line[i] == '\\' ? 2 : 1;
      ++i;
      continue;
    }
    if (c == '{') ++st.depth;
    if (c == '}' && st.depth > 0) --st.depth;
    ++i;
  }
}

// The text after `#` and `keyword` when `line` is that directive, else nullopt.
std::optional<std::string> directive(std::string_view line, std::string_view keyword) {
  size_t i = line.find_first_not_of(" \t");
  if (i == std::string_view::npos || line[i] != '#') return std::nullopt;
  i = line.find_first_not_of(" \t", i + 1);
  if (i == std::string_view::npos || line.compare(i, keyword.size(), keyword) != 0) return std::nullopt;
  i += keyword.size();
  if (i < line.size() && is_ident_char(line[i])) return std::nullopt;  // e.g. #include_next
  return trim(line.substr(i));
}

// Strips a trailing // or /* comment from a directive's operand.
std::string strip_comment(const std::string& s) {
  size_t a = s.find("//"), b = s.find("/*");
  return trim(s.substr(0, std::min(a, b)));
}

class Inliner {
 public:
  Inliner(SourceTree& tree, const InlineOptions& opts) : tree_(tree), opts_(opts) {}

  Status run(const std::string& path, const std::string& text, InlineResult* out) {
    out_ = out;
    stack_.insert(path);
    included_.insert(path);
    return process(path, text, 0, 0);
  }

 private:
  enum class Resolution { kFound, kMissing, kRefused };

  Status process(const std::string& path, const std::string& text, int nesting, int base_depth) {
    LexState st;
    size_t pos = 0;
    while (pos < text.size()) {
      if (out_->too_large) return ok_status();
      size_t end = text.find('\n', pos);
      size_t next = end == std::string::npos ? text.size() : end + 1;
      std::string_view line(text.data() + pos, (end == std::string::npos ? text.size() : end) - pos);
      bool at_line_start_in_comment = st.in_block_comment;
      int depth_before = st.depth;
      scan_line(line, st);
      pos = next;
      if (at_line_start_in_comment) {
        emit(line);
        continue;
      }
      if (auto def = directive(line, "define")) record_define(*def);
      auto inc = directive(line, "include");
      if (!inc) {
        emit(line);
        continue;
      }
      RETURN_IF_ERROR(handle_include(path, line, strip_comment(*inc), nesting,
                                     base_depth + depth_before));
    }
    return ok_status();
  }

  Status handle_include(const std::string& path, std::string_view line, std::string spec,
                        int nesting, int depth) {
    // Expand object-like macros: `#include COMPARE_M`.
    for (int i = 0; i < 4 && !spec.empty() && is_ident_start(spec[0]); ++i) {
      auto it = macros_.find(spec);
      if (it == macros_.end()) break;
      spec = it->second;
    }
    std::string name = include_name(spec);
    if (name.empty()) {
      ++out_->unresolved;
      out_->unresolved_names.push_back(spec);
      emit_unresolved(line, spec, depth);
      return ok_status();
    }
    std::string found;
    Resolution r = resolve(parent_dir(path), name, &found);
    if (r == Resolution::kMissing && opts_.header_for_missing_source) {
      std::string header = header_of_source(name);
      if (!header.empty() && resolve(parent_dir(path), header, &found) == Resolution::kFound) {
        r = Resolution::kFound;
        ++out_->substituted;
      }
    }
    if (r == Resolution::kRefused) {
      ++out_->refused;
      emit(line);
      return ok_status();
    }
    if (r == Resolution::kMissing) {
      ++out_->unresolved;
      out_->unresolved_names.push_back(name);
      emit_unresolved(line, name, depth);
      return ok_status();
    }
    if (stack_.count(found)) {
      ++out_->cycles;
      return ok_status();
    }
    if (depth == 0 && included_.count(found) && !parameterized_.count(found)) {
      ++out_->repeated;
      return ok_status();
    }
    if (nesting + 1 > opts_.max_depth) {
      ++out_->unresolved;
      out_->unresolved_names.push_back(name + " (nesting limit)");
      emit(line);
      return ok_status();
    }
    auto body = tree_.read(found, opts_.max_include_bytes);
    if (!body.ok() || !content_problem(*body).empty()) {
      if (!body.ok() && body.status().code() != ErrorCode::kNotFound &&
          body.status().code() != ErrorCode::kInvalidArgument)
        return body.status();
      ++out_->unresolved;  // too large, binary or vanished: keep the directive
      out_->unresolved_names.push_back(name);
      emit(line);
      return ok_status();
    }
    ++out_->inlined;
    if (included_.insert(found).second) out_->included_paths.push_back(found);
    if (is_parameterized_header(*body)) parameterized_.insert(found);
    stack_.insert(found);
    // A byte-order mark starts the included file, not the includer's text:
    // inlined mid-file it is an unexpected character to Clang.
    body->erase(0, body->size() - without_byte_order_mark(*body).size());
    Status st = process(found, *body, nesting + 1, depth);
    stack_.erase(found);
    if (!out_->text.empty() && out_->text.back() != '\n') out_->text += '\n';
    return st;
  }

  // The file name an include operand names, or "" when it cannot be read.
  static std::string include_name(const std::string& spec) {
    if (spec.size() >= 2 && ((spec.front() == '"' && spec.find('"', 1) != std::string::npos) ||
                             (spec.front() == '<' && spec.find('>', 1) != std::string::npos))) {
      char close = spec.front() == '"' ? '"' : '>';
      return spec.substr(1, spec.find(close, 1) - 1);
    }
    // F(ARG): a stringizing macro over a path, e.g. M2S(INCLUDE_PATH/inc_vendor.h).
    size_t open = spec.find('(');
    if (open == std::string::npos || open == 0 || spec.back() != ')') return "";
    for (size_t i = 0; i < open; ++i)
      if (!is_ident_char(spec[i])) return "";
    std::string arg = trim(spec.substr(open + 1, spec.size() - open - 2));
    if (arg.size() >= 2 && arg.front() == '"' && arg.back() == '"') arg = arg.substr(1, arg.size() - 2);
    size_t slash = arg.find('/');
    if (slash != std::string::npos && slash > 0) {
      bool macro_dir = true;
      for (size_t i = 0; i < slash; ++i) {
        char c = arg[i];
        if (!(std::isupper(static_cast<unsigned char>(c)) || std::isdigit(static_cast<unsigned char>(c)) || c == '_'))
          macro_dir = false;
      }
      if (macro_dir) arg = arg.substr(slash + 1);
    }
    for (char c : arg)
      if (std::isspace(static_cast<unsigned char>(c)) || c == '(' || c == ')') return "";
    return arg;
  }

  // "x.h" for an OpenCL source name "x.cl" / "x.clh" / "x.ocl" (any case), else "".
  static std::string header_of_source(const std::string& name) {
    size_t dot = name.rfind('.');
    if (dot == std::string::npos || name.find('/', dot) != std::string::npos) return "";
    std::string ext = name.substr(dot + 1);
    for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (ext != "cl" && ext != "clh" && ext != "ocl") return "";
    return name.substr(0, dot) + ".h";
  }

  Resolution resolve(const std::string& dir, const std::string& name, std::string* found) {
    if (name.empty() || name[0] == '/') return Resolution::kRefused;
    bool escaped = false;
    std::vector<std::string> dirs = {dir};
    dirs.insert(dirs.end(), opts_.include_dirs.begin(), opts_.include_dirs.end());
    if (opts_.search_parent_dirs) {
      for (std::string up = parent_dir(dir); !up.empty(); up = parent_dir(up)) dirs.push_back(up);  // "" is listed
    }
    for (const auto& d : dirs) {
      auto norm = normalize_relative(d.empty() ? name : d + "/" + name);
      if (!norm) {
        escaped = true;
        continue;
      }
      if (tree_.is_file(*norm)) {
        *found = *norm;
        return Resolution::kFound;
      }
    }
    return escaped ? Resolution::kRefused : Resolution::kMissing;
  }

  void record_define(const std::string& def) {
    size_t i = 0;
    while (i < def.size() && is_ident_char(def[i])) ++i;
    if (i == 0 || i >= def.size() || (def[i] != ' ' && def[i] != '\t')) return;  // function-like or empty
    macros_[def.substr(0, i)] = strip_comment(def.substr(i));
  }

  // An unresolved directive: kept, or inside a body (depth > 0) written as
  // the missing fragment's statement (InlineOptions::mark_missing_fragments).
  void emit_unresolved(std::string_view line, const std::string& name, int depth) {
    if (depth == 0 || !opts_.mark_missing_fragments) return emit(line);
    std::string literal;
    for (char c : name) {
      if (c != '"' && c != '\\' && static_cast<unsigned char>(c) >= 0x20) literal += c;
    }
    emit(std::string("(void)\"") + kMissingFragment + " " + literal + "\";");
  }

  void emit(std::string_view line) {
    if (out_->text.size() + line.size() + 1 > opts_.max_output_bytes) {
      out_->too_large = true;
      return;
    }
    out_->text.append(line);
    out_->text += '\n';
  }

  SourceTree& tree_;
  const InlineOptions& opts_;
  InlineResult* out_ = nullptr;
  std::set<std::string> stack_;     // files being inlined (cycle detection)
  std::set<std::string> included_;  // files inlined so far (once per file)
  std::set<std::string> parameterized_;  // of them, those inlined at every include (is_parameterized_header)
  std::map<std::string, std::string> macros_;
};

}  // namespace

Expected<InlineResult> inline_includes(SourceTree& tree, const std::string& path,
                                       const std::string& text, const InlineOptions& options) {
  InlineResult result;
  if (text.find("include") == std::string::npos) {  // the common case: nothing to do
    result.text = text;
    return result;
  }
  result.text.reserve(text.size());
  Inliner inliner(tree, options);
  RETURN_IF_ERROR(inliner.run(path, text, &result));
  // Keep the file's own final-newline convention when nothing was inlined.
  if (!text.empty() && text.back() != '\n' && !result.text.empty() && result.text.back() == '\n' &&
      result.inlined == 0 && result.repeated == 0 && result.cycles == 0)
    result.text.pop_back();
  return result;
}

}  // namespace clgen::corpus
