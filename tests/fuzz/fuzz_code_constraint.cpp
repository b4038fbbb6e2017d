// Fuzzes the sampler's code constraint with tables learned from the
// normalized kernels of tests/data (sampler/corpus, model). The first byte
// picks a mode:
//   0: the input is a sampled text, fed in pieces of 1-8 characters; a
//      piece's accepts() must agree with checking it character by character;
//   1: the input (split at NUL bytes) is a training corpus: the learned
//      tables survive their JSON round trip, and the fixed texts run through
//      them without a crash (not necessarily accepted: the tables assume the
//      rewriter's output, and `c(` alone makes `c` a builtin, no variable);
//   2: the input is a tables file: from_json() fails or loads, never crashes.
// After every input, one fixed text (in turn) must still be accepted whole by
// the fixed tables: no state leaks between constraints.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "sampler/code_constraint.h"
#include "sampler/constraint_tables.h"
#include "support/files.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

using clgen::sampler::CodeConstraint;
using clgen::sampler::ConstraintTables;

using clgen::fuzz::fail;

std::vector<std::string> load_texts() {
  std::vector<std::string> texts;
  for (const char* dir : {"/sampler/corpus", "/model"}) {
    std::vector<std::filesystem::path> files;
    for (const auto& e : std::filesystem::directory_iterator(std::string(CLGEN_FUZZ_DATA) + dir))
      if (e.path().extension() == ".cl") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      auto text = clgen::read_file(f.string());
      if (!text.ok()) fail("cannot read a fixed text", text.status().message());
      // The rewriter drops comments; model/strings.cl keeps one to test the tokenizer.
      if (text->find("/*") != std::string::npos || text->find("//") != std::string::npos) continue;
      texts.push_back(*text);
    }
  }
  return texts;
}

// Whether the constraint accepts `text` character by character and lets it end.
bool accepted(const ConstraintTables& tables, const std::string& text) {
  CodeConstraint c(&tables);
  for (char ch : text) {
    if (!c.accepts(std::string_view(&ch, 1))) return false;
    c.feed(std::string_view(&ch, 1));
  }
  return c.can_end();
}

const std::vector<std::string>& texts() {
  static const std::vector<std::string> t = load_texts();
  return t;
}

const ConstraintTables& tables() {
  static const ConstraintTables t = ConstraintTables::from_corpus(texts());
  return t;
}

void sampled_text(std::string_view in) {
  if (in.empty()) return;
  size_t piece = 1 + static_cast<uint8_t>(in[0]) % 8;
  in.remove_prefix(1);
  CodeConstraint c(&tables());
  for (size_t i = 0; i < in.size(); i += piece) {
    std::string_view p = in.substr(i, piece);
    bool whole = c.accepts(p);
    CodeConstraint copy = c;
    bool each = true;
    for (char ch : p) {
      if (!copy.accepts(std::string_view(&ch, 1))) {
        each = false;
        break;
      }
      copy.feed(std::string_view(&ch, 1));
    }
    if (whole != each) fail("accepts(piece) disagrees with its characters", std::string(p));
    c.feed(p);  // also text that breaks a rule, as the seed may
    (void)c.can_end();
  }
}

void training_text(std::string_view in) {
  std::vector<std::string> corpus;
  size_t start = 0;
  while (start <= in.size()) {
    size_t nul = in.find('\0', start);
    corpus.emplace_back(in.substr(start, nul == std::string_view::npos ? std::string_view::npos : nul - start));
    if (nul == std::string_view::npos) break;
    start = nul + 1;
  }
  ConstraintTables learned = ConstraintTables::from_corpus(corpus);
  auto loaded = ConstraintTables::from_json(learned.to_json());
  if (!loaded.ok()) fail("learned tables do not load back", loaded.status().message());
  if (!(*loaded == learned)) fail("learned tables change through JSON", "");
  for (const std::string& t : texts()) (void)accepted(learned, t);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  int rejected = 0;
  for (const std::string& t : texts())
    if (!accepted(tables(), t)) {
      std::fprintf(stderr, "fuzz_code_constraint: the fixed tables reject a fixed text:\n%s\n", t.c_str());
      ++rejected;
    }
  if (rejected) fail("fixed texts rejected", std::to_string(rejected));
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static size_t runs = 0;
  std::string_view in(reinterpret_cast<const char*>(data), size);
  if (in.empty()) return 0;
  uint8_t mode = static_cast<uint8_t>(in[0]) % 3;
  in.remove_prefix(1);
  if (mode == 0) sampled_text(in);
  else if (mode == 1) training_text(in);
  else (void)ConstraintTables::from_json(in);
  const std::string& t = texts()[runs++ % texts().size()];
  if (!accepted(tables(), t)) fail("a fixed text is rejected after an input", t);
  return 0;
}
