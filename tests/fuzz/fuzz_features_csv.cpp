// Fuzzes the features-CSV reader that `clgen predict` trains from
// (predict/csv.h): no input crashes it, and a parsed table written back with
// the project's CSV writer (support/csv.h) parses to the same table.
#include <cstdint>
#include <string>
#include <string_view>

#include "predict/csv.h"
#include "support/csv.h"
#include "tests/fuzz/fuzz_check.h"

using clgen::fuzz::fail;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto table = clgen::predict::parse_csv(text, "f.csv");
  if (!table.ok()) {
    clgen::fuzz::expect_error_names(table.status(), "f.csv");
    return 0;
  }
  for (const auto& row : table->rows)
    if (row.size() != table->header.size()) fail("a row of another width than the header", text.data());
  // Number parsing of every field: any text, no crash.
  for (const auto& row : table->rows)
    for (const auto& f : row) (void)clgen::predict::parse_number(f, "v");
  std::string again = clgen::csv_row(table->header) + "\n";
  for (const auto& row : table->rows) again += clgen::csv_row(row) + "\n";
  auto reparsed = clgen::predict::parse_csv(again, "f.csv");
  if (!reparsed.ok()) fail("written back, it no longer parses", reparsed.status().message());
  if (reparsed->header != table->header) fail("written back, the header changed", again);
  if (reparsed->rows != table->rows) fail("written back, the rows changed", again);
  return 0;
}
