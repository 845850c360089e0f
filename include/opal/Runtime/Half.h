//===- Half.h - 16-bit floating-point element types -------------*- C++ -*-===//

#ifndef OPAL_RUNTIME_HALF_H
#define OPAL_RUNTIME_HALF_H

#include <cstdint>
#include <cstring>

namespace opal {

/// IEEE 754 binary16, stored as bits; converts through float.
struct Half {
  uint16_t bits = 0;
  Half() = default;
  Half(float value) : bits(fromFloat(value)) {}
  operator float() const { return toFloat(bits); }

  static uint16_t fromFloat(float value) {
    uint32_t f;
    std::memcpy(&f, &value, 4);
    uint32_t sign = (f >> 16) & 0x8000;
    uint32_t exponent = (f >> 23) & 0xff;
    uint32_t mantissa = f & 0x7fffff;
    if (exponent == 0xff) // inf or nan
      return static_cast<uint16_t>(sign | 0x7c00 | (mantissa ? 0x200 : 0));
    int32_t e = static_cast<int32_t>(exponent) - 127 + 15;
    if (e >= 0x1f)
      return static_cast<uint16_t>(sign | 0x7c00); // overflow to inf
    if (e <= 0) {                                  // subnormal or zero
      if (e < -10)
        return static_cast<uint16_t>(sign);
      mantissa |= 0x800000;
      uint32_t shift = static_cast<uint32_t>(14 - e);
      uint32_t half = mantissa >> shift;
      uint32_t rest = mantissa & ((1u << shift) - 1);
      uint32_t midpoint = 1u << (shift - 1);
      if (rest > midpoint || (rest == midpoint && (half & 1)))
        ++half;
      return static_cast<uint16_t>(sign | half);
    }
    uint32_t half = sign | (static_cast<uint32_t>(e) << 10) | (mantissa >> 13);
    uint32_t rest = mantissa & 0x1fff;
    if (rest > 0x1000 || (rest == 0x1000 && (half & 1)))
      ++half; // may carry into the exponent, which is correct rounding
    return static_cast<uint16_t>(half);
  }

  static float toFloat(uint16_t h) {
    uint32_t sign = static_cast<uint32_t>(h & 0x8000) << 16;
    uint32_t exponent = (h >> 10) & 0x1f;
    uint32_t mantissa = h & 0x3ff;
    uint32_t f;
    if (exponent == 0x1f) {
      f = sign | 0x7f800000 | (mantissa << 13);
    } else if (exponent == 0) {
      if (mantissa == 0) {
        f = sign;
      } else { // normalise a subnormal
        int shift = 0;
        while (!(mantissa & 0x400)) {
          mantissa <<= 1;
          ++shift;
        }
        mantissa &= 0x3ff;
        f = sign | (static_cast<uint32_t>(127 - 15 - shift + 1) << 23) | (mantissa << 13);
      }
    } else {
      f = sign | ((exponent - 15 + 127) << 23) | (mantissa << 13);
    }
    float value;
    std::memcpy(&value, &f, 4);
    return value;
  }
};

/// bfloat16: the top 16 bits of a float, rounded to nearest even.
struct BFloat16 {
  uint16_t bits = 0;
  BFloat16() = default;
  BFloat16(float value) {
    uint32_t f;
    std::memcpy(&f, &value, 4);
    if ((f & 0x7fffffff) > 0x7f800000) {
      bits = static_cast<uint16_t>((f >> 16) | 0x40); // quiet nan
      return;
    }
    uint32_t rounding = 0x7fff + ((f >> 16) & 1);
    bits = static_cast<uint16_t>((f + rounding) >> 16);
  }
  operator float() const {
    uint32_t f = static_cast<uint32_t>(bits) << 16;
    float value;
    std::memcpy(&value, &f, 4);
    return value;
  }
};

} // namespace opal

#endif // OPAL_RUNTIME_HALF_H
