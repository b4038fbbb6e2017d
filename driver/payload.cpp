// Payload generation and tolerant output comparison.
#include "driver/payload.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>

namespace clgen::driver {

namespace {

uint64_t max_of(ScalarKind kind, int size) {
  int bits = size * 8 - (kind == ScalarKind::kSigned ? 1 : 0);
  return bits >= 64 ? UINT64_MAX : (uint64_t{1} << bits) - 1;
}

void store_int(uint8_t* dst, uint64_t value, int size) {
  // Little-endian hosts and devices: the low `size` bytes.
  std::memcpy(dst, &value, static_cast<size_t>(size));
}

void store_float(uint8_t* dst, double value, int size) {
  if (size == 4) {
    float f = static_cast<float>(value);
    std::memcpy(dst, &f, 4);
  } else {
    std::memcpy(dst, &value, 8);
  }
}

// Uniform in [0, 1) from the top 53 bits: portable across standard libraries.
double unit(std::mt19937_64& rng) { return static_cast<double>(rng() >> 11) * 0x1.0p-53; }

}  // namespace

Expected<std::vector<ArgPayload>> make_payloads(const std::vector<ArgInfo>& args,
                                                const PayloadOptions& options) {
  std::mt19937_64 rng(options.seed);
  const uint64_t s = options.global_items;
  size_t local_args = 0;
  for (const auto& a : args)
    if (a.is_pointer && a.address_space == AddressSpace::kLocal) ++local_args;

  std::vector<ArgPayload> out(args.size());
  for (size_t i = 0; i < args.size(); ++i) {
    const ArgInfo& a = args[i];
    if (!a.supported) return invalid_argument("argument '" + a.name + "' is unsupported");
    ArgPayload& p = out[i];
    const int lanes = a.lanes();
    if (a.is_pointer && a.address_space == AddressSpace::kLocal) {
      uint64_t share = options.local_mem_free / local_args;
      uint64_t elements = std::min<uint64_t>(share / a.element_stride(), s);
      if (elements == 0)
        return invalid_argument("local argument '" + a.name + "' does not fit in local memory");
      p.local_bytes = elements * a.element_stride();
      continue;
    }
    if (a.sampler) continue;
    if (a.is_pointer || a.image) {
      if (a.image) {
        p.image_width = std::min(s, a.image_shape == ImageShape::k3d ? kImage3dRowTexels : kImageRowTexels);
        p.image_height = (s + p.image_width - 1) / p.image_width;
      }
      const uint64_t elements = a.image ? p.image_width * p.image_height : s;
      p.data.assign(elements * a.element_stride(), 0);
      if (!a.reads) continue;
      // Half bit patterns up to 0x3bff are the halves in [0, 1); a record's
      // bytes take any value.
      const uint64_t top = a.half ? 0x3bff : a.record_bytes ? 0xff : std::min(s, max_of(a.kind, a.element_size));
      for (uint64_t e = 0; e < elements * lanes; ++e) {
        uint8_t* dst = p.data.data() + e * a.element_size;
        if (a.kind == ScalarKind::kFloat)
          store_float(dst, unit(rng), a.element_size);
        else
          store_int(dst, rng() % (top + 1), a.element_size);
      }
      continue;
    }
    p.data.assign(static_cast<size_t>(a.element_stride()), 0);
    if (a.record_bytes) {
      // A struct by value: each whole 4-byte word an integral scalar would be
      // (its int fields then hold the global size; float fields tiny values).
      for (int w = 0; w + 4 <= a.record_bytes; w += 4)
        store_int(p.data.data() + w, std::min<uint64_t>(options.scalar_size, 0x7fffffff), 4);
      continue;
    }
    for (int lane = 0; lane < lanes; ++lane) {
      uint8_t* dst = p.data.data() + lane * a.element_size;
      if (a.kind == ScalarKind::kFloat)
        store_float(dst, unit(rng), a.element_size);
      else
        store_int(dst, std::min(options.scalar_size, max_of(a.kind, a.element_size)),
                  a.element_size);
    }
  }
  return out;
}

namespace {
template <typename T>
bool floats_equal(const uint8_t* pa, const uint8_t* pb, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    T x, y;
    std::memcpy(&x, pa + i * sizeof(T), sizeof(T));
    std::memcpy(&y, pb + i * sizeof(T), sizeof(T));
    if (std::isnan(x) || std::isnan(y)) {
      if (std::isnan(x) != std::isnan(y)) return false;
      continue;
    }
    if (std::isinf(x) || std::isinf(y)) {
      if (x != y) return false;
      continue;
    }
    double dx = x, dy = y;
    if (std::fabs(dx - dy) > 1e-6 + 1e-5 * std::max(std::fabs(dx), std::fabs(dy))) return false;
  }
  return true;
}
}  // namespace

bool buffers_equal(const ArgInfo& arg, const std::vector<uint8_t>& a,
                   const std::vector<uint8_t>& b) {
  if (a.size() != b.size()) return false;
  if (arg.kind != ScalarKind::kFloat) return a == b;
  if (arg.element_size == 4) return floats_equal<float>(a.data(), b.data(), a.size() / 4);
  return floats_equal<double>(a.data(), b.data(), a.size() / 8);
}

}  // namespace clgen::driver
