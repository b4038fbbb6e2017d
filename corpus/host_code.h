// OpenCL kernels that host programs carry in string literals: C and C++
// (`"..." "..."` concatenations, `R"d(...)d"`, `#define NAME "..."`,
// `#define STR(x) #x` stringification), Python (triple-quoted and plain
// strings), Java, JavaScript, Rust, Go, Julia, C#, Kotlin and Scala literals
// (joined by `+` where the language concatenates that way). One scan per
// file by a hand-written lexer for its language: the text is only read,
// never run or evaluated.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace clgen::corpus {

enum class HostLanguage { kC, kPython, kJava, kJavaScript, kRust, kGo, kJulia, kCSharp, kKotlin, kScala };

// The host language of `path` by its extension (any case), or nullopt for
// files that are not host source (kernel files included).
std::optional<HostLanguage> host_language(std::string_view path);

// True when `text` holds an OpenCL kernel definition: `__kernel` or `kernel`
// (a whole word), then at least a return type and a name, a balanced
// parameter list and `{`; `__attribute__((...))` may stand between. Prose
// that mentions `__kernel` does not pass.
bool looks_like_kernel(std::string_view text);

struct HostKernel {
  std::string text;        // the decoded literal (concatenations joined)
  int64_t first_line = 0;  // 1-based lines of the host file the literal spans
  int64_t last_line = 0;
};

struct HostScan {
  std::vector<HostKernel> kernels;  // the literals that look_like_kernel, in file order
  int64_t literals = 0;             // string literals (after concatenation) seen
  int64_t templates = 0;            // kernel-like literals left out: interpolated (f"", `${}`, $x)
};

// Every literal of `code` (valid UTF-8) that looks like a kernel. Comments are
// skipped; a literal left open at the end of the file ends there.
HostScan extract_host_kernels(std::string_view code, HostLanguage language);

}  // namespace clgen::corpus
