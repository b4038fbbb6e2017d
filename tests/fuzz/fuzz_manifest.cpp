// Fuzzes the MANIFEST.tsv reader: no input crashes it, every error names the
// file, and parsed rows written back as a manifest parse to the same rows.
#include <cstdint>
#include <string>

#include "corpus/manifest.h"
#include "tests/fuzz/fuzz_check.h"

using clgen::fuzz::fail;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string text(reinterpret_cast<const char*>(data), size);
  auto rows = clgen::corpus::parse_manifest(text, "M.tsv");
  if (!rows.ok()) {
    clgen::fuzz::expect_error_names(rows.status(), "M.tsv");
    return 0;
  }
  // A count last: a text field that ends in CR would lose it as the line's last field.
  std::string again = "domain\trepository\tcommit\tlicense\tfiles_kept\tbytes_kept\n";
  for (const auto& [name, r] : *rows) {
    if (name != r.repository) fail("a row under another repository's key", name);
    if (r.files_kept < 0 || r.bytes_kept < 0) fail("a negative count", name);
    again += r.domain + "\t" + r.repository + "\t" + r.commit + "\t" + r.license + "\t" + std::to_string(r.files_kept) +
             "\t" + std::to_string(r.bytes_kept) + "\n";
  }
  auto reparsed = clgen::corpus::parse_manifest(again, "M.tsv");
  if (!reparsed.ok()) fail("written back, it no longer parses", reparsed.status().message());
  if (reparsed->size() != rows->size()) fail("written back, the row count changed", again);
  for (const auto& [name, r] : *rows) {
    auto it = reparsed->find(name);
    if (it == reparsed->end()) fail("written back, a row is lost", name);
    const auto& q = it->second;
    if (q.commit != r.commit || q.license != r.license || q.domain != r.domain || q.files_kept != r.files_kept ||
        q.bytes_kept != r.bytes_kept)
      fail("written back, a row changed", name);
  }
  return 0;
}
