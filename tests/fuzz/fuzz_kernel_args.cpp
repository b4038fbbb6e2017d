// Fuzzes the driver's kernel-argument analysis (Clang 15 over the input as
// OpenCL C): no input crashes the process, and every argument it describes
// is one the payload code can size (element size, vector width, access only
// on pointers).
#include <cstdint>
#include <cstdio>
#include <string>

#include "driver/args.h"
#include "tests/fuzz/fuzz_check.h"

using clgen::fuzz::fail;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string source(reinterpret_cast<const char*>(data), size);
  auto kernels = clgen::driver::analyze_kernels(source);
  if (!kernels.ok()) {
    if (kernels.status().message().empty()) fail("an error without a message", source);
    // A front-end crash is recovered by design (the process lives on): counted, not a failure.
    static int recovered = 0;
    if (kernels.status().code() == clgen::ErrorCode::kInternal && ++recovered <= 5)
      std::fprintf(stderr, "fuzz_kernel_args: recovered front-end crash #%d: %s\n", recovered,
                   kernels.status().message().c_str());
    return 0;
  }
  for (const auto& k : *kernels) {
    if (k.name.empty()) fail("a kernel without a name", source);
    for (const auto& a : k.args) {
      if (a.supported != a.unsupported_reason.empty()) fail("supported disagrees with its reason", a.name);
      if (!a.supported) continue;
      int w = a.vector_width, e = a.element_size;
      if (!(w == 1 || w == 2 || w == 3 || w == 4 || w == 8 || w == 16)) fail("a vector width", a.type);
      if (!(e == 1 || e == 2 || e == 4 || e == 8)) fail("an element size", a.type);
      if (!a.is_pointer && (a.reads || a.writes)) fail("access recorded on a value", a.name);
      if (a.element_stride() <= 0) fail("an element stride", a.type);
    }
  }
  return 0;
}
