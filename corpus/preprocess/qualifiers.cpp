// Pass 2 of the rewriter: OpenCL's alias keywords in their double-underscore
// spelling, found by Clang's raw lexer (so literals and comments stay).
#include <clang/Basic/LangOptions.h>
#include <clang/Lex/Lexer.h>
#include <llvm/ADT/StringMap.h>

#include "corpus/preprocess/preprocess.h"

namespace clgen::preprocess {
namespace {

// The alias keywords of OpenCL C (Clang's TokenKinds.def ALIAS entries for
// address spaces, `kernel` and image access qualifiers).
const llvm::StringMap<const char*>& canonical_spellings() {
  static const llvm::StringMap<const char*> map = {
      {"kernel", "__kernel"},       {"global", "__global"},         {"local", "__local"},
      {"constant", "__constant"},   {"private", "__private"},       {"read_only", "__read_only"},
      {"write_only", "__write_only"}, {"read_write", "__read_write"},
  };
  return map;
}

clang::LangOptions opencl_lang_options() {
  clang::LangOptions lo;
  lo.OpenCL = 1;
  lo.OpenCLVersion = 120;
  lo.C99 = 1;
  lo.LineComment = 1;  // `//` comments are comments, not two slashes
  return lo;
}

}  // namespace

std::string canonicalize_qualifiers(std::string_view text) {
  static const clang::LangOptions lang = opencl_lang_options();
  // Clang's lexer stops at a NUL after the buffer's end; a string_view
  // need not have one, so lex a copy.
  const std::string buffer(text);
  const char* begin = buffer.c_str();
  const char* end = begin + buffer.size();
  // Raw mode needs no source manager: no token location is ever resolved.
  clang::Lexer lexer(clang::SourceLocation(), lang, begin, begin, end);
  std::string out;
  out.reserve(text.size() + text.size() / 16);
  const char* copied = begin;  // text before this is already in `out`
  bool in_directive = false;
  clang::Token tok;
  do {
    lexer.LexFromRawLexer(tok);
    if (tok.isAtStartOfLine()) in_directive = tok.is(clang::tok::hash);
    // A directive's words (#pragma OPENCL ...) are not keywords; pass 1 left
    // no macro definitions whose bodies would need it.
    if (in_directive || !tok.is(clang::tok::raw_identifier)) continue;
    auto it = canonical_spellings().find(tok.getRawIdentifier());
    if (it == canonical_spellings().end()) continue;
    const char* at = tok.getRawIdentifier().data();  // points into `buffer`
    out.append(copied, at);
    out += it->second;
    copied = at + tok.getLength();
  } while (!tok.is(clang::tok::eof));
  out.append(copied, end);
  return out;
}

}  // namespace clgen::preprocess
