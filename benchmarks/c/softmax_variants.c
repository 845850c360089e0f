// softmax_variants.c - how fast can one core compute softmax over rows?
//
// Hand-written AVX-512 versions of a softmax over the rows of a 4096 x 4096
// float32 matrix, the exp polynomial the same as opal's (exp's range
// reduction and degree-5 polynomial, scaled by vscalefps), timed round by
// round against each other and against memcpy of the same 64 MiB, into an
// output that is allocated once (as opal's caching allocator does):
//
//   three   opal's kernel: the row's max; exp(x - max) into the output row
//           and its sum; the output row times 1 / sum (opal-rows-in-outputs)
//   fused   the next row's max computed in this row's exp pass (the memory
//           read of row i + 1 overlapping row i's arithmetic)
//   stream  exp into a scratch row that stays in L1; the output written
//           once, with streaming (non-temporal) stores: no read of the
//           output's lines before they are written
//   scratch the same with ordinary stores
//
// Build and run (a CPU with AVX-512; docs/performance.md has the numbers):
//   clang-22 -O2 -march=native benchmarks/c/softmax_variants.c -o /tmp/softmax_variants -lm
//   /tmp/softmax_variants
#include <immintrin.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static inline __m512 ex(__m512 x) {
  x = _mm512_max_ps(x, _mm512_set1_ps(-104.f)); x = _mm512_min_ps(x, _mm512_set1_ps(88.8f));
  __m512 n = _mm512_roundscale_ps(_mm512_fmadd_ps(x, _mm512_set1_ps(1.44269502f), _mm512_set1_ps(0.5f)), 9);
  __m512 r = _mm512_fmadd_ps(_mm512_set1_ps(-0.693359375f), n, x);
  r = _mm512_fmadd_ps(_mm512_set1_ps(2.12194442e-4f), n, r);
  __m512 p = _mm512_fmadd_ps(_mm512_set1_ps(1.98756912e-4f), r, _mm512_set1_ps(0.00139819994f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0.00833345205f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0.0416657962f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0.166666657f));
  p = _mm512_fmadd_ps(p, r, _mm512_set1_ps(0.5f));
  p = _mm512_add_ps(_mm512_fmadd_ps(p, _mm512_mul_ps(r, r), r), _mm512_set1_ps(1.f));
  return _mm512_scalef_ps(p, n);
}
// The row's max (C a multiple of 64).
static inline float row_max(const float *a, long C) {
  __m512 m0 = _mm512_set1_ps(-INFINITY), m1 = m0, m2 = m0, m3 = m0;
  for (long j = 0; j < C; j += 64) {
    m0 = _mm512_max_ps(m0, _mm512_loadu_ps(a + j));
    m1 = _mm512_max_ps(m1, _mm512_loadu_ps(a + j + 16));
    m2 = _mm512_max_ps(m2, _mm512_loadu_ps(a + j + 32));
    m3 = _mm512_max_ps(m3, _mm512_loadu_ps(a + j + 48));
  }
  return _mm512_reduce_max_ps(_mm512_max_ps(_mm512_max_ps(m0, m1), _mm512_max_ps(m2, m3)));
}

// exp(a - m) into e; returns 1 / the sum.
static inline __m512 exp_row(const float *a, float m, float *e, long C) {
  __m512 mm = _mm512_set1_ps(m), s = _mm512_setzero_ps();
  for (long j = 0; j < C; j += 16) {
    __m512 v = ex(_mm512_sub_ps(_mm512_loadu_ps(a + j), mm));
    _mm512_storeu_ps(e + j, v);
    s = _mm512_add_ps(s, v);
  }
  return _mm512_set1_ps(1.f / _mm512_reduce_add_ps(s));
}

__attribute__((noinline)) void three(const float *restrict x, float *restrict y, long R, long C) {
  for (long i = 0; i < R; i++) {
    const float *a = x + i * C;
    float *o = y + i * C;
    __m512 r = exp_row(a, row_max(a, C), o, C);
    for (long j = 0; j < C; j += 16)
      _mm512_storeu_ps(o + j, _mm512_mul_ps(_mm512_loadu_ps(o + j), r));
  }
}

__attribute__((noinline)) void fused(const float *restrict x, float *restrict y, long R, long C) {
  float m = row_max(x, C);
  for (long i = 0; i < R; i++) {
    const float *a = x + i * C, *b = x + (i + 1 < R ? i + 1 : i) * C;
    float *o = y + i * C;
    __m512 mm = _mm512_set1_ps(m), s = _mm512_setzero_ps(), next = _mm512_set1_ps(-INFINITY);
    for (long j = 0; j < C; j += 16) {
      __m512 v = ex(_mm512_sub_ps(_mm512_loadu_ps(a + j), mm));
      _mm512_storeu_ps(o + j, v);
      s = _mm512_add_ps(s, v);
      next = _mm512_max_ps(next, _mm512_loadu_ps(b + j));
    }
    __m512 r = _mm512_set1_ps(1.f / _mm512_reduce_add_ps(s));
    for (long j = 0; j < C; j += 16)
      _mm512_storeu_ps(o + j, _mm512_mul_ps(_mm512_loadu_ps(o + j), r));
    m = _mm512_reduce_max_ps(next);
  }
}

static float scratch[1 << 16] __attribute__((aligned(64)));

static inline void stream_store(float *p, __m512 v) { _mm512_stream_ps(p, v); }
static inline void plain_store(float *p, __m512 v) { _mm512_storeu_ps(p, v); }

// exp into the scratch row, then the output written once by `store`
// (inlined with the store it is given, so each variant is its own loop).
static inline __attribute__((always_inline)) void
via_scratch(const float *restrict x, float *restrict y, long R, long C,
            void (*store)(float *, __m512)) {
  for (long i = 0; i < R; i++) {
    const float *a = x + i * C;
    float *o = y + i * C;
    __m512 r = exp_row(a, row_max(a, C), scratch, C);
    for (long j = 0; j < C; j += 16)
      store(o + j, _mm512_mul_ps(_mm512_load_ps(scratch + j), r));
  }
  _mm_sfence();
}

__attribute__((noinline)) void stream_variant(const float *restrict x, float *restrict y, long R, long C) {
  via_scratch(x, y, R, C, stream_store);
}

__attribute__((noinline)) void scratch_variant(const float *restrict x, float *restrict y, long R, long C) {
  via_scratch(x, y, R, C, plain_store);
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

static void copy_variant(const float *restrict x, float *restrict y, long R, long C) {
  memcpy(y, x, (size_t)(R * C) * sizeof(float));
}

static int compare(const void *a, const void *b) {
  double l = *(const double *)a, r = *(const double *)b;
  return (l > r) - (l < r);
}

enum { ROUNDS = 21, VARIANTS = 5 };

int main(void) {
  long R = 4096, C = 4096, N = R * C;
  float *x = aligned_alloc(64, (size_t)N * 4), *y = aligned_alloc(64, (size_t)N * 4);
  for (long i = 0; i < N; i++)
    x[i] = (float)((i * 7919) % 1000) / 250.f - 2.f;
  memset(y, 0, (size_t)N * 4);
  void (*fs[VARIANTS])(const float *, float *, long, long) = {
      three, fused, stream_variant, scratch_variant, copy_variant};
  const char *names[VARIANTS] = {"three", "fused", "stream", "scratch", "memcpy"};
  double times[VARIANTS][ROUNDS], check[VARIANTS] = {0};
  for (int round = 0; round < ROUNDS; round++)
    for (int k = 0; k < VARIANTS; k++) {
      double t = now();
      fs[k](x, y, R, C);
      times[k][round] = now() - t;
      double c = 0;
      for (long i = 0; i < N; i += 977)
        c += y[i];
      check[k] = c;
    }
  printf("%-8s %9s %9s %10s   (one thread, 4096 x 4096 float32)\n", "variant", "min ms", "med ms",
         "checksum");
  for (int k = 0; k < VARIANTS; k++) {
    qsort(times[k], ROUNDS, sizeof(double), compare);
    printf("%-8s %9.2f %9.2f %10.6f\n", names[k], times[k][0] * 1e3, times[k][ROUNDS / 2] * 1e3,
           check[k]);
  }
  return 0;
}
