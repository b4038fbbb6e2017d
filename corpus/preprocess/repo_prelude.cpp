// The repository prelude (repo_prelude.h): a text-only index of what each file
// of a repository defines, and the rounds that prepend definers to a file.
#include "corpus/preprocess/repo_prelude.h"

#include <algorithm>
#include <tuple>

#include "corpus/inliner.h"
#include "corpus/preprocess/text_scan.h"
#include "corpus/preprocess/tokens.h"
#include "support/text.h"
#include "support/utf8.h"

namespace clgen::preprocess {

namespace {

using scan::ident_char;
using scan::ident_start;
bool is_ident(const std::string& t) { return !t.empty() && ident_start(t[0]); }

// Comments and literal contents blanked: directives stay on their lines.
std::string without_comments(std::string_view t) { return scan::without_comments(t, true); }

// Cuts the directive lines out of comment-free text (they are blanked), and
// collects the names the #define lines define.
std::string without_directives(std::string t, std::vector<std::string>& macros) {
  size_t line = 0;
  while (line < t.size()) {
    size_t end = line;
    while (end < t.size() && t[end] != '\n') end += (t[end] == '\\' && end + 1 < t.size()) ? 2 : 1;
    size_t i = line;
    while (i < end && (t[i] == ' ' || t[i] == '\t')) ++i;
    if (i < end && t[i] == '#') {
      ++i;
      while (i < end && (t[i] == ' ' || t[i] == '\t')) ++i;
      if (t.compare(i, 6, "define") == 0 && i + 6 < end && !ident_char(t[i + 6])) {
        i += 6;
        while (i < end && (t[i] == ' ' || t[i] == '\t' || t[i] == '\\' || t[i] == '\n')) ++i;
        size_t s = i;
        while (i < end && ident_char(t[i])) ++i;
        if (i > s && ident_start(t[s])) macros.emplace_back(t.substr(s, i - s));
      }
      for (size_t k = line; k < end; ++k)
        if (t[k] != '\n') t[k] = ' ';
    }
    line = end + 1;
  }
  return t;
}

// The index one past the token that closes the bracket opened at `i`
// (`open`/`close`), or toks.size().
size_t matching(const std::vector<std::string>& toks, size_t i, const char* open, const char* close) {
  int depth = 0;
  for (; i < toks.size(); ++i) {
    if (toks[i] == open) ++depth;
    else if (toks[i] == close && --depth == 0) return i + 1;
  }
  return toks.size();
}

bool is_control(const std::string& t) {
  return t == "if" || t == "for" || t == "while" || t == "switch" || t == "return" || t == "sizeof" ||
         t == "__attribute__" || t == "defined";
}

// The names one file-scope statement toks[b, e) defines (e: its `;` or the
// end of a function body).
void statement_names(const std::vector<std::string>& toks, size_t b, size_t e, std::vector<std::string>& out) {
  bool is_typedef = false;
  for (size_t i = b; i < e; ++i) {
    const std::string& t = toks[i];
    if (t == "typedef") is_typedef = true;
    if ((t == "struct" || t == "union" || t == "enum") && i + 2 < e && is_ident(toks[i + 1]) && toks[i + 2] == "{") {
      out.push_back(toks[i + 1]);
    }
    if (t == "enum") {
      size_t open = i + 1;
      if (open < e && is_ident(toks[open])) ++open;
      if (open < e && toks[open] == "{") {
        size_t close = matching(toks, open, "{", "}");
        for (size_t k = open; k + 1 < close; ++k) {
          if ((toks[k] == "{" || toks[k] == ",") && is_ident(toks[k + 1])) out.push_back(toks[k + 1]);
        }
      }
    }
  }
  // Declarators at the statement's own level (outside braces and parentheses).
  int braces = 0, parens = 0;
  size_t last_ident = e;
  bool function_pointer = false;
  for (size_t i = b; i < e; ++i) {
    const std::string& t = toks[i];
    if (t == "{") ++braces;
    else if (t == "}") --braces;
    else if (t == "(") {
      // A function pointer's name: typedef void (*NAME)(...).
      if (is_typedef && braces == 0 && i + 2 < e && toks[i + 1] == "*" && is_ident(toks[i + 2])) {
        out.push_back(toks[i + 2]);
        function_pointer = true;
      }
      ++parens;
    } else if (t == ")") --parens;
    if (braces != 0 || parens != 0) continue;
    if (is_ident(t)) {
      last_ident = i;
      if (!is_typedef && i + 1 < e && (toks[i + 1] == "=" || toks[i + 1] == "[")) out.push_back(t);
      if (i + 1 < e && toks[i + 1] == "(" && !is_control(t)) {
        size_t after = matching(toks, i + 1, "(", ")");
        if (after < toks.size() && toks[after] == "{") out.push_back(t);  // a function definition
      }
    } else if ((t == "," || t == "[") && is_typedef && last_ident < e) {
      out.push_back(toks[last_ident]);
      last_ident = e;
    }
  }
  if (is_typedef && !function_pointer && last_ident < e) out.push_back(toks[last_ident]);
}

void sort_unique(std::vector<std::string>& v) {
  std::sort(v.begin(), v.end());
  v.erase(std::unique(v.begin(), v.end()), v.end());
}

std::vector<std::string> code_tokens(std::string_view text, std::vector<std::string>& macros) {
  return c_tokens(without_directives(without_comments(text), macros));
}

bool has_kernel(const std::vector<std::string>& toks) {
  return std::any_of(toks.begin(), toks.end(), [](const std::string& t) { return t == "__kernel" || t == "kernel"; });
}

std::vector<std::string> names_of(const std::vector<std::string>& toks, std::vector<std::string> names) {
  size_t begin = 0;
  for (size_t i = 0; i < toks.size();) {
    const std::string& t = toks[i];
    if (t == "{") {
      size_t close = matching(toks, i, "{", "}");
      // A body ends its statement unless a declarator or `;` follows
      // (struct S {...} s; / typedef struct {...} T;).
      bool function_body = i > begin && toks[i - 1] == ")";
      i = close;
      if (function_body) {
        statement_names(toks, begin, i, names);
        begin = i;
      }
    } else if (t == ";") {
      statement_names(toks, begin, i, names);
      begin = ++i;
    } else if (t == "}") {
      begin = ++i;  // unbalanced: resynchronize
    } else {
      ++i;
    }
  }
  sort_unique(names);
  return names;
}

bool contains(const std::vector<std::string>& sorted, const std::string& name) {
  return std::binary_search(sorted.begin(), sorted.end(), name);
}

}  // namespace

std::vector<std::string> defined_names(std::string_view text) {
  std::vector<std::string> macros;
  std::vector<std::string> toks = code_tokens(text, macros);
  return names_of(toks, std::move(macros));
}

std::vector<std::string> identifiers(std::string_view text) {
  std::vector<std::string> out;
  for (std::string& t : c_tokens(without_comments(text)))
    if (is_ident(t)) out.push_back(std::move(t));
  sort_unique(out);
  return out;
}

RepositoryIndex::RepositoryIndex(std::vector<RepositoryFile> files) : files_(std::move(files)) {
  std::sort(files_.begin(), files_.end(),
            [](const RepositoryFile& a, const RepositoryFile& b) { return a.path < b.path; });
  for (size_t i = 0; i < files_.size(); ++i) {
    // A byte-order mark is allowed only at the start of the compiler's input.
    files_[i].text.erase(0, files_[i].text.size() - without_byte_order_mark(files_[i].text).size());
    std::vector<std::string> macros;
    std::vector<std::string> toks = code_tokens(files_[i].text, macros);
    files_[i].has_kernel = has_kernel(toks);
    for (const std::string& name : names_of(toks, std::move(macros))) definers_[name].push_back(i);
  }
}

std::vector<const RepositoryFile*> RepositoryIndex::definers(const std::string& name,
                                                             const std::string& for_path) const {
  std::vector<const RepositoryFile*> out;
  auto it = definers_.find(name);
  if (it == definers_.end()) return out;
  auto common_dir = [&](const std::string& p) {
    size_t n = 0, last = 0;
    while (n < p.size() && n < for_path.size() && p[n] == for_path[n]) {
      if (p[n] == '/') last = n + 1;
      ++n;
    }
    return last;
  };
  using Key = std::tuple<bool, size_t, size_t, size_t>;  // the last: the index, so paths break ties
  std::vector<std::pair<Key, const RepositoryFile*>> ranked;
  for (size_t i : it->second) {
    const RepositoryFile& f = files_[i];
    if (f.path == for_path) continue;
    ranked.push_back({Key{f.has_kernel, static_cast<size_t>(-1) - common_dir(f.path), f.text.size(), i}, &f});
  }
  std::sort(ranked.begin(), ranked.end());
  for (const auto& r : ranked) out.push_back(r.second);
  return out;
}

const RepositoryFile* RepositoryIndex::file(const std::string& path) const {
  auto it = std::lower_bound(files_.begin(), files_.end(), path,
                             [](const RepositoryFile& f, const std::string& p) { return f.path < p; });
  return it != files_.end() && it->path == path ? &*it : nullptr;
}

namespace {

// The index's files as a read-only source tree, so includes resolve in
// memory (from any thread) as they did in the store.
class IndexTree : public corpus::SourceTree {
 public:
  explicit IndexTree(const RepositoryIndex& index) : index_(index) {}
  Expected<std::vector<corpus::TreeEntry>> list() override { return std::vector<corpus::TreeEntry>(); }
  Expected<std::string> read(const std::string& path, uint64_t max_bytes) override {
    const RepositoryFile* f = index_.file(path);
    if (!f) return not_found(path + " is not in the repository index");
    if (f->text.size() > max_bytes) return invalid_argument(path + " is larger than " + std::to_string(max_bytes));
    return f->text;
  }
  bool is_file(const std::string& path) override { return index_.file(path) != nullptr; }
  std::string describe() const override { return "repository index"; }

 private:
  const RepositoryIndex& index_;
};

}  // namespace

namespace {

// `text`, the file at `path`, with its includes inlined from the index.
Expected<corpus::InlineResult> inline_in(const RepositoryIndex& index, const std::string& path, const std::string& text,
                                         size_t max_bytes) {
  IndexTree tree(index);
  corpus::InlineOptions options;
  options.max_output_bytes = max_bytes;
  ASSIGN_OR_RETURN(corpus::InlineResult inlined, corpus::inline_includes(tree, path, text, options));
  if (inlined.too_large)
    return invalid_argument(path + " with its prelude is over " + std::to_string(max_bytes) + " bytes");
  return inlined;
}

std::string include_lines(const std::vector<const RepositoryFile*>& prelude) {
  std::string out;
  for (const RepositoryFile* f : prelude) out += "#include \"" + f->path + "\"\n";
  return out;
}

}  // namespace

Expected<std::string> RepositoryIndex::compose(const std::vector<const RepositoryFile*>& prelude,
                                               const std::string& path, std::string_view text, size_t max_bytes) const {
  const RepositoryFile* self = file(path);
  if (!self) {
    // Not indexed (a store without the file's origin): the texts as they are.
    std::string combined;
    for (const RepositoryFile* f : prelude) combined += f->text + "\n";
    return combined + std::string(text);
  }
  // Includes of the prelude files and of the file itself resolve as in the
  // store, and a header they share is inlined once.
  ASSIGN_OR_RETURN(corpus::InlineResult inlined,
                   inline_in(*this, path, include_lines(prelude) + self->text, max_bytes));
  return std::move(inlined.text);
}

Expected<std::string> RepositoryIndex::prelude_text(const std::vector<const RepositoryFile*>& prelude,
                                                    const std::string& path, size_t max_bytes) const {
  ASSIGN_OR_RETURN(corpus::InlineResult inlined, inline_in(*this, path, include_lines(prelude), max_bytes));
  return std::move(inlined.text);
}

bool RepositoryIndex::includes(const RepositoryFile& f, const std::string& path) const {
  Expected<corpus::InlineResult> inlined = inline_in(*this, f.path, f.text, kMaxInputBytes);
  if (!inlined) return true;  // too large to tell: not a prelude either
  const std::vector<std::string>& paths = inlined->included_paths;
  return std::find(paths.begin(), paths.end(), path) != paths.end();
}

std::string missing_name(const std::string& category, const std::string& reason) {
  if (category != category::kUnknownTypeName && category != category::kUndeclaredIdentifier &&
      category != category::kImplicitFunction) {
    return "";
  }
  size_t open = reason.find('\'');
  if (open == std::string::npos) return "";
  size_t close = reason.find('\'', open + 1);
  if (close == std::string::npos) return "";
  std::string name = reason.substr(open + 1, close - open - 1);
  if (name.empty() || !ident_start(name[0]) || !std::all_of(name.begin(), name.end(), ident_char)) return "";
  return name;
}

using MaybePrelude = std::optional<PreludeResult>;

Expected<MaybePrelude> try_repository_prelude(std::string_view text, const std::string& path,
                                              const FileRewriteResult& first, const RepositoryIndex& index,
                                              const FileRewriter& rewrite, const PreludeOptions& options) {
  const std::vector<std::string> own_names = defined_names(text);
  const std::vector<std::string> own_idents = identifiers(text);
  std::vector<const RepositoryFile*> order;    // the prelude, in text order
  std::vector<std::vector<std::string>> used;  // identifiers of each prelude file
  // The last file put in and the other candidates for its name, tried in turn
  // when it brings an error of its own.
  std::vector<const RepositoryFile*> alternatives;
  const RepositoryFile* last_added = nullptr;
  std::string last_name, previous;
  FileRewriteResult last = first;
  for (int round = 0; round < options.max_rounds; ++round) {
    if (last.status == RewriteStatus::kOk) break;
    std::string name = missing_name(last.category, last.reason);
    std::vector<const RepositoryFile*> candidates;
    if (!name.empty() && name != last_name && !contains(own_names, name)) {
      // A file that includes this one is its includer, not a dependency.
      for (const RepositoryFile* f : index.definers(name, path))
        if (std::find(order.begin(), order.end(), f) == order.end() && !index.includes(*f, path))
          candidates.push_back(f);
    }
    if (candidates.empty()) {
      // Nothing supplies this error: another file for the last name, if the
      // error may be that file's, or give up.
      if (!last_added || alternatives.empty()) return MaybePrelude();
      auto at = std::find(order.begin(), order.end(), last_added);
      size_t k = static_cast<size_t>(at - order.begin());
      last_added = alternatives.front();
      alternatives.erase(alternatives.begin());
      *at = last_added;
      used[k] = identifiers(last_added->text);
    } else {
      // Before the first part that uses the name: a prelude file, or the file itself.
      size_t part = order.size();
      for (size_t k = 0; k < order.size(); ++k)
        if (contains(used[k], name)) {
          part = k;
          break;
        }
      if (candidates.size() > 3) candidates.resize(3);
      last_added = candidates.front();
      alternatives.assign(candidates.begin() + 1, candidates.end());
      last_name = name;
      order.insert(order.begin() + static_cast<std::ptrdiff_t>(part), last_added);
      used.insert(used.begin() + static_cast<std::ptrdiff_t>(part), identifiers(last_added->text));
    }
    Expected<std::string> combined = index.compose(order, path, text, options.max_bytes);
    if (!combined || *combined == previous) return MaybePrelude();
    previous = std::move(*combined);
    ASSIGN_OR_RETURN(last, rewrite(previous));
  }
  if (last.status != RewriteStatus::kOk) return MaybePrelude();
  // The prelude's own kernels (those of the files it includes too) are the
  // other files' results, not this one's.
  Expected<std::string> prelude = index.prelude_text(order, path, options.max_bytes);
  if (!prelude) return MaybePrelude();
  const std::vector<std::string> theirs = identifiers(*prelude);
  std::vector<RewriteResult> kept;
  for (RewriteResult& k : last.kernels)
    if (contains(own_idents, k.kernel_name) || !contains(theirs, k.kernel_name)) kept.push_back(std::move(k));
  if (kept.empty()) return MaybePrelude();
  PreludeResult r;
  r.result = std::move(last);
  r.result.kernels = std::move(kept);
  for (const RepositoryFile* f : order) r.paths.push_back(f->path);
  return MaybePrelude(std::move(r));
}

}  // namespace clgen::preprocess
