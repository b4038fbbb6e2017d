// Payloads: the host-side values fed to a kernel's arguments for a global
// size S (CGO'17 rules), and the comparison of outputs the dynamic checker uses.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "driver/args.h"
#include "support/status.h"

namespace clgen::driver {

struct ArgPayload {
  // Global/constant pointers: the buffer contents (S × vector width elements,
  // zeros when the kernel never reads it). Scalars: the value's bytes.
  std::vector<uint8_t> data;
  uint64_t local_bytes = 0;  // local pointers: device-only allocation size
  // Images: the RGBA texels' bytes in `data`, width × height texels.
  uint64_t image_width = 0, image_height = 0;
};

// An image argument's size for S work-items: S texels in rows of at most
// kImageRowTexels (a 1-D launch indexes (x, 0)).
inline constexpr uint64_t kImageRowTexels = 4096;
// A 3-D image's rows: every device supports 2,048 (OpenCL's least
// CL_DEVICE_IMAGE3D_MAX_WIDTH and _HEIGHT).
inline constexpr uint64_t kImage3dRowTexels = 2048;

struct PayloadOptions {
  uint64_t global_items = 0;     // S: product of the global size
  uint64_t scalar_size = 0;      // value of integral scalars: the global size in dimension 0
  uint64_t local_mem_free = 0;   // device local memory minus the kernel's static use
  uint64_t seed = 0;
};

// One payload per argument. Rules:
//  - global/constant pointers: S elements (vector types count as one element
//    of element_stride() bytes) of random values when the kernel reads the
//    buffer, zeros otherwise. Integers are uniform in [0, min(S, type max)],
//    floats uniform in [0, 1).
//  - local pointers: the free local memory split evenly between the local
//    arguments, rounded down to whole elements and capped at S elements.
//  - integral scalars (and each lane of integral vectors): S in dimension 0,
//    clamped to the type's maximum; floating-point scalars random in [0, 1).
//  - structs and unions: pointers as bytes (random when read), by value each
//    whole 4-byte word as an integral scalar; half pointers as halves in [0, 1).
//  - images: S RGBA texels (rows of kImageRowTexels, kImage3dRowTexels for
//    image3d_t; one layer deep), channels as buffer
//    elements of `kind`; samplers take no data.
// Fails with kOutOfResources-style kInvalidArgument when a local argument
// gets less than one element, or for unsupported arguments.
Expected<std::vector<ArgPayload>> make_payloads(const std::vector<ArgInfo>& args,
                                                const PayloadOptions& options);

// Elementwise comparison of two buffers of `arg`'s element type. Floating
// point values are equal when |a-b| <= 1e-6 + 1e-5·max(|a|,|b|); NaN equals
// NaN and infinities equal infinities of the same sign. Integers compare exactly.
bool buffers_equal(const ArgInfo& arg, const std::vector<uint8_t>& a, const std::vector<uint8_t>& b);

}  // namespace clgen::driver
