// Fuzzes the host-code extractor and the encoding reader: the first byte picks
// the language, the rest is the host file. No input crashes them; every
// kernel they return passes the kernel test and names lines inside the file;
// the Windows-1252 reading always yields valid UTF-8 and leaves UTF-8 alone.
#include <algorithm>
#include <cstdint>
#include <string>

#include "corpus/encoding.h"
#include "corpus/host_code.h"
#include "support/utf8.h"
#include "tests/fuzz/fuzz_check.h"

using clgen::fuzz::fail;
using namespace clgen::corpus;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const auto language = static_cast<HostLanguage>(data[0] % (static_cast<int>(HostLanguage::kScala) + 1));
  const std::string raw(reinterpret_cast<const char*>(data) + 1, size - 1);
  const std::string text = windows1252_to_utf8(raw);
  if (!clgen::is_valid_utf8(text)) fail("windows1252_to_utf8 gave invalid UTF-8", raw);
  if (clgen::is_valid_utf8(raw) && text != raw) fail("windows1252_to_utf8 changed valid UTF-8", raw);
  Utf8Text c = c_source_as_utf8(raw);
  if (c.problem.empty() && !clgen::is_valid_utf8(c.text)) fail("c_source_as_utf8 accepted invalid UTF-8", raw);
  if (!c.problem.empty() && clgen::is_valid_utf8(raw)) fail("c_source_as_utf8 refused valid UTF-8", c.problem);

  const int64_t lines = 1 + std::count(text.begin(), text.end(), '\n');
  HostScan scan = extract_host_kernels(text, language);
  if (static_cast<int64_t>(scan.kernels.size()) + scan.templates > scan.literals)
    fail("more kernels than literals", text);
  for (const HostKernel& k : scan.kernels) {
    if (!looks_like_kernel(k.text)) fail("a recovered text that fails the kernel test", k.text);
    if (k.first_line < 1 || k.last_line < k.first_line || k.last_line > lines)
      fail("lines outside the file", std::to_string(k.first_line) + "-" + std::to_string(k.last_line));
  }
  return 0;
}
