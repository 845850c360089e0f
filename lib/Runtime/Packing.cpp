//===- Packing.cpp - Panels of a transposed matrix for the products -------===//

#include "opal/Runtime/Packing.h"

#if defined(__x86_64__)
#include <immintrin.h>
#endif

namespace {

#if defined(__x86_64__)
bool hasAvx512() {
  static const bool has = __builtin_cpu_supports("avx512f");
  return has;
}

/// Columns 0..15 of the 16 x 16 square of floats at `from` (rows `stride`
/// apart) as rows of `to`, 16 apart: three rounds of shuffles (pairs of
/// elements, quarters of a row, halves).
__attribute__((target("avx512f"))) void transposeSquare(const float *from, int64_t stride,
                                                        float *to) {
  __m512 r[16], t[16];
  for (int i = 0; i < 16; ++i)
    r[i] = _mm512_loadu_ps(from + i * stride);
  for (int i = 0; i < 16; i += 2) {
    t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int i = 0; i < 16; i += 4) {
    r[i] = _mm512_shuffle_ps(t[i], t[i + 2], 0x44);
    r[i + 1] = _mm512_shuffle_ps(t[i], t[i + 2], 0xEE);
    r[i + 2] = _mm512_shuffle_ps(t[i + 1], t[i + 3], 0x44);
    r[i + 3] = _mm512_shuffle_ps(t[i + 1], t[i + 3], 0xEE);
  }
  for (int half = 0; half < 16; half += 8)
    for (int i = 0; i < 4; ++i) {
      t[half + i] = _mm512_shuffle_f32x4(r[half + i], r[half + 4 + i], 0x88);
      t[half + 4 + i] = _mm512_shuffle_f32x4(r[half + i], r[half + 4 + i], 0xDD);
    }
  for (int i = 0; i < 8; ++i) {
    r[i] = _mm512_shuffle_f32x4(t[i], t[8 + i], 0x88);
    r[8 + i] = _mm512_shuffle_f32x4(t[i], t[8 + i], 0xDD);
  }
  for (int i = 0; i < 16; ++i)
    _mm512_storeu_ps(to + i * 16, r[i]);
}

/// The same for an 8 x 8 square of doubles.
__attribute__((target("avx512f"))) void transposeSquare(const double *from, int64_t stride,
                                                        double *to) {
  __m512d r[8], t[8];
  for (int i = 0; i < 8; ++i)
    r[i] = _mm512_loadu_pd(from + i * stride);
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm512_unpacklo_pd(r[i], r[i + 1]);
    t[i + 1] = _mm512_unpackhi_pd(r[i], r[i + 1]);
  }
  for (int half = 0; half < 8; half += 4)
    for (int i = 0; i < 2; ++i) {
      r[half + i] = _mm512_shuffle_f64x2(t[half + i], t[half + 2 + i], 0x88);
      r[half + 2 + i] = _mm512_shuffle_f64x2(t[half + i], t[half + 2 + i], 0xDD);
    }
  for (int i = 0; i < 4; ++i) {
    t[i] = _mm512_shuffle_f64x2(r[i], r[4 + i], 0x88);
    t[4 + i] = _mm512_shuffle_f64x2(r[i], r[4 + i], 0xDD);
  }
  for (int i = 0; i < 8; ++i)
    _mm512_storeu_pd(to + i * 8, t[i]);
}

bool hasAvx2() {
  static const bool has = __builtin_cpu_supports("avx2");
  return has;
}

/// The 8 x 8 square of floats at `from` (rows `stride` apart) transposed
/// into `to` (rows `toStride` apart), in AVX's 8-float vectors.
__attribute__((target("avx2"))) void transposeBlock(const float *from, int64_t stride, float *to,
                                                    int64_t toStride) {
  __m256 r[8], t[8];
  for (int i = 0; i < 8; ++i)
    r[i] = _mm256_loadu_ps(from + i * stride);
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int i = 0; i < 8; i += 4) {
    r[i] = _mm256_shuffle_ps(t[i], t[i + 2], 0x44);
    r[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], 0xEE);
    r[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0x44);
    r[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0xEE);
  }
  for (int i = 0; i < 4; ++i) {
    t[i] = _mm256_permute2f128_ps(r[i], r[4 + i], 0x20);
    t[4 + i] = _mm256_permute2f128_ps(r[i], r[4 + i], 0x31);
  }
  for (int i = 0; i < 8; ++i)
    _mm256_storeu_ps(to + i * toStride, t[i]);
}

/// The same for a 4 x 4 square of doubles.
__attribute__((target("avx2"))) void transposeBlock(const double *from, int64_t stride, double *to,
                                                    int64_t toStride) {
  __m256d r[4], t[4];
  for (int i = 0; i < 4; ++i)
    r[i] = _mm256_loadu_pd(from + i * stride);
  t[0] = _mm256_unpacklo_pd(r[0], r[1]);
  t[1] = _mm256_unpackhi_pd(r[0], r[1]);
  t[2] = _mm256_unpacklo_pd(r[2], r[3]);
  t[3] = _mm256_unpackhi_pd(r[2], r[3]);
  _mm256_storeu_pd(to, _mm256_permute2f128_pd(t[0], t[2], 0x20));
  _mm256_storeu_pd(to + toStride, _mm256_permute2f128_pd(t[1], t[3], 0x20));
  _mm256_storeu_pd(to + 2 * toStride, _mm256_permute2f128_pd(t[0], t[2], 0x31));
  _mm256_storeu_pd(to + 3 * toStride, _mm256_permute2f128_pd(t[1], t[3], 0x31));
}

/// Transposes the lanes x lanes square at `from` into `to` (rows `lanes`
/// apart) in vector registers, if this CPU has vectors that fit: whole
/// with AVX-512 (lanes of 64 bytes), in blocks of 32 bytes with AVX2.
template <typename T>
bool transposeInRegisters(const T *from, int64_t stride, T *to, int64_t lanes) {
  if (lanes == 64 / int64_t(sizeof(T)) && hasAvx512()) {
    transposeSquare(from, stride, to);
    return true;
  }
  constexpr int64_t block = 32 / sizeof(T);
  if (lanes % block != 0 || !hasAvx2())
    return false;
  for (int64_t i = 0; i < lanes; i += block)
    for (int64_t j = 0; j < lanes; j += block)
      transposeBlock(from + i * stride + j, stride, to + j * lanes + i, lanes);
  return true;
}

#else
template <typename T>
bool transposeInRegisters(const T *, int64_t, T *, int64_t) {
  return false; // (one element at a time)
}
#endif

template <typename T>
void packPanel(const T *b, int64_t rowStride, int64_t jj, int64_t columns, int64_t k0,
               int64_t kEnd, T *panel, int64_t lanes) {
  const T *rows = b + jj * rowStride;
  int64_t kk = k0;
  // Whole squares in registers, where the panel is whole.
  if (columns == lanes)
    while (kk + lanes <= kEnd &&
           transposeInRegisters(rows + kk, rowStride, panel + (kk - k0) * lanes, lanes))
      kk += lanes;
  for (; kk < kEnd; ++kk) {
    T *to = panel + (kk - k0) * lanes;
    for (int64_t c = 0; c < lanes; ++c)
      to[c] = c < columns ? rows[c * rowStride + kk] : T(0);
  }
}

} // namespace

void opal_pack_panel_f32(const float *, const float *b, int64_t bOffset, int64_t, int64_t,
                         int64_t rowStride, int64_t, int64_t jj, int64_t columns, int64_t k0,
                         int64_t kEnd, float *, float *packed, int64_t packedOffset, int64_t,
                         int64_t, int64_t start, int64_t lanes) {
  packPanel(b + bOffset, rowStride, jj, columns, k0, kEnd, packed + packedOffset + start, lanes);
}

void opal_pack_panel_f64(const double *, const double *b, int64_t bOffset, int64_t, int64_t,
                         int64_t rowStride, int64_t, int64_t jj, int64_t columns, int64_t k0,
                         int64_t kEnd, double *, double *packed, int64_t packedOffset, int64_t,
                         int64_t, int64_t start, int64_t lanes) {
  packPanel(b + bOffset, rowStride, jj, columns, k0, kEnd, packed + packedOffset + start, lanes);
}
