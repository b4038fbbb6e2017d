// Fuzzes the preprocess rewriter (Clang 15): no input crashes the process,
// and rewriting is idempotent -- an accepted output rewritten again is
// accepted with the same text. rewrite_bug verdicts are counted and the first
// few printed (they are rejections the rewriter owns, not crashes).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "corpus/preprocess/preprocess.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

using clgen::preprocess::RewriteStatus;

using clgen::fuzz::fail;

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static int rewrite_bugs = 0;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto once = clgen::preprocess::rewrite(text);
  static const bool verbose = std::getenv("FUZZ_VERBOSE") != nullptr;  // replaying one input: say its verdict
  if (verbose)
    std::fprintf(stderr, "fuzz_rewrite: %s (%s: %s)\n", clgen::preprocess::rewrite_status_name(once.status),
                 once.category.c_str(), once.reason.c_str());
  if (once.status == RewriteStatus::kRewriteBug && ++rewrite_bugs <= 5)
    std::fprintf(stderr, "fuzz_rewrite: rewrite_bug #%d (%s: %s)\n", rewrite_bugs, once.category.c_str(),
                 once.reason.c_str());
  if (once.status != RewriteStatus::kOk) return 0;
  auto twice = clgen::preprocess::rewrite(once.text);
  if (twice.status != RewriteStatus::kOk)
    fail("an accepted output is not accepted again",
         once.text + "\n--- " + clgen::preprocess::rewrite_status_name(twice.status) + ": " + twice.category + ": " +
             twice.reason + "\n--- input:\n" + std::string(text));
  if (twice.text != once.text) fail("rewriting twice differs from rewriting once", once.text + "\n---\n" + twice.text);
  return 0;
}
