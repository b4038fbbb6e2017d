// Image macro families: clij and clEsperanto kernels take each image as a
// parameter NAME typed `IMAGE_NAME_TYPE` and use it through macros their host
// generates for that parameter (`READ_NAME_IMAGE(img, sampler, pos)`,
// `WRITE_NAME_IMAGE(img, pos, value)`, `POS_NAME_INSTANCE(x, y, z, w)`, ...).
// When Clang reports one of them missing and NAME is a kernel parameter of
// the text, the whole family is defined for it, as a buffer: what a driver
// can run (it passes buffers, never images). Free of Clang types.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "corpus/preprocess/host_macros.h"

namespace clgen::preprocess {

// Reads `text` once: its kernels' parameter names, the family words it uses
// for them, and each image's dimension.
//
// The definitions, for a parameter NAME of dimension 2 or 3:
//  - IMAGE_NAME_TYPE `__global float*`, IMAGE_NAME_PIXEL_TYPE `float`;
//  - POS_NAME_TYPE `int2`/`int4`, POS_NAME_INSTANCE(x, y, z, w) that vector;
//  - IMAGE_SIZE_NAME_WIDTH/HEIGHT/DEPTH the global size in dimension 0/1/2;
//  - READ_NAME_IMAGE(a, b, c) the element at position c, clamped to the
//    image on each axis (the clamp-to-edge sampler these kernels use), as a
//    float4 (what read_imagef returns: callers take `.x`);
//  - WRITE_NAME_IMAGE(a, b, c) assigns c at position b, clamped alike;
//  - CONVERT_NAME_PIXEL_TYPE(x) `(float)(x)`.
// The sizes come from the global size so that every access stays inside a
// buffer of as many elements as work-items (what the driver passes). The
// dimension is 2 when the first position given to the image that tells is an
// int2 or float2 (written in it, or the type of a variable it names, as
// declared or as a vector literal assigned to it), 3 for an int4 or float4;
// when none tells, 2 for kernels named `..2d..` (and none `..3d..`), else 3.
// Floating-point positions (interpolating reads) are truncated to int.
// The generic forms the text uses but does not define (`READ_IMAGE(a, b, c)`,
// `WRITE_IMAGE`, `GET_IMAGE_WIDTH(a)`/HEIGHT/DEPTH) paste the parameter's name
// into its family's macro.
class ImageMacros {
 public:
  explicit ImageMacros(std::string_view text);
  // The definitions that `missing` asks for: every family of the text (and
  // the generic forms it uses) when `missing` is a family name of a kernel
  // parameter or a generic form called on one; empty otherwise. Macros the
  // text defines itself are left out.
  std::vector<HostMacro> operator()(std::string_view missing) const;
  // False when no text's operator() can answer `missing` (it is neither a
  // family's PREFIX_NAME_SUFFIX nor a generic form): callers need not read the text.
  static bool may_define(std::string_view missing);

 private:
  std::vector<HostMacro> definitions_;  // every family and generic form, in order
  std::set<std::string> names_;         // their names
};

}  // namespace clgen::preprocess
