// Kernel argument analysis: what each argument of an OpenCL kernel is (type,
// address space, vector width) and whether the kernel reads or writes it,
// which decides the payload and the transfers the driver makes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "support/opencl_types.h"
#include "support/status.h"

namespace clgen::driver {

enum class AddressSpace { kPrivate, kGlobal, kConstant, kLocal };
using ScalarKind = cltypes::ScalarKind;  // signed, unsigned or floating element

// "private", "global", "constant", "local" and back.
const char* address_space_name(AddressSpace space);
Expected<AddressSpace> parse_address_space(const std::string& name);

// The kinds of image argument the driver feeds.
enum class ImageShape { k2d, k3d, k2dArray };

struct ArgInfo {
  std::string name;
  std::string type;       // as written, canonical: "float4 *", "int", "struct s *"
  bool is_pointer = false;
  AddressSpace address_space = AddressSpace::kPrivate;  // of the pointee for pointers
  bool is_const = false;  // pointee is const (pointers), or the value is (scalars)
  ScalarKind kind = ScalarKind::kFloat;  // element kind
  int element_size = 4;   // bytes of one scalar element: 1, 2, 4 or 8
  int vector_width = 1;   // 1, 2, 3, 4, 8 or 16
  bool reads = false;     // the kernel may read the pointee (pointers only)
  bool writes = false;    // the kernel may write the pointee (pointers only)
  bool supported = true;
  std::string unsupported_reason;  // e.g. "image", "pointer to pointer"; empty when supported
  // A struct or union (or a pointer to one), or a `void*` buffer: fed as this
  // many raw bytes an element (kind unsigned, element_size 1), compared byte
  // for byte; 0 otherwise.
  int record_bytes = 0;
  // An image2d_t, image3d_t or image2d_array_t: an RGBA image of 4-byte
  // channels whose type follows the read_image/write_image builtins the
  // kernel calls on it (f: float, i: signed, ui: unsigned, in `kind`);
  // reads/writes as for pointers. A 3-D image is one texel deep and an
  // array holds one image, so every shape has the texels of a 2-D one.
  bool image = false;
  ImageShape image_shape = ImageShape::k2d;
  bool sampler = false;  // a sampler_t: nearest, clamped to the edge, unnormalized
  // A `half` pointer: 2-byte elements fed as half-precision bit patterns
  // of [0, 1) (kind unsigned, element_size 2), compared bit for bit.
  bool half = false;

  // Bytes one element occupies in memory: 3-vectors are padded to 4.
  int element_stride() const { return record_bytes ? record_bytes : element_size * lanes(); }
  // Scalars one element holds (a record's bytes).
  int lanes() const { return record_bytes ? record_bytes : vector_width == 3 ? 4 : vector_width; }
};

struct KernelSignature {
  std::string name;
  std::vector<ArgInfo> args;
  // True when every argument can be fed; otherwise the first reason.
  bool supported() const;
  std::string unsupported_reason() const;
};

// Parses `source` as OpenCL C 1.2 (Clang's default OpenCL header included)
// and describes every kernel in source order. Fails with kParse and the
// front end's first errors when the source does not compile, kInternal when
// the front end crashed (recovered with LLVM's CrashRecoveryContext: the
// process lives on), kUnavailable when clgen was built without Clang.
// Parent side only (clgen_driver): Clang 15 never enters a worker.
Expected<std::vector<KernelSignature>> analyze_kernels(const std::string& source);

// True when this build analyses arguments with Clang (otherwise the device
// compiler's kernel-argument info is used, every global pointer read+write).
bool have_clang_analysis();

// Whether a kernel takes an integral scalar (or integral vector) by value:
// the arguments the payload sets to the global size.
bool has_integer_scalars(const std::vector<ArgInfo>& args);

// Parses an element type name such as "float", "uint4", "char16" into kind,
// element size and vector width; false for anything else (half, bool, structs).
bool parse_element_type(const std::string& name, ScalarKind& kind, int& element_size,
                        int& vector_width);

}  // namespace clgen::driver
