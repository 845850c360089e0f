/* What bounds a gather of rows from memory (embedding): 32768 random rows of
 * 512 floats (2 KiB) from a 50000-row table, against memcpy of the same
 * 64 MiB, each after 800 MiB of other data went through the caches (so
 * both read memory, as in movement_benchmark.py, whose rounds alternate
 * with PyTorch's). The row copies are AVX-512 loops like opal's compiled
 * one; variants prefetch rows ahead (to L1, to L2, non-temporal) or store
 * non-temporally. docs/performance.md (Data movement) quotes it.
 *
 *   gcc -O2 -mavx512f benchmarks/row_gather.c -o /tmp/row_gather && /tmp/row_gather
 *
 * Needs a CPU with AVX-512F. Prints the best of 7 rounds per variant, ms.
 */
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

enum { kRows = 50000, kWidth = 512, kGathered = 32768, kRounds = 7 };

static float *table, *out, *source, *other;
static int64_t *ids;

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec * 1e3 + t.tv_nsec * 1e-6;
}

/* Row i of the output from row ids[i]; with `distance`, the first `lines`
 * cache lines of row ids[i + distance] prefetched with `hint` first. */
static void gather(int distance, int lines, int hint, int streaming) {
  for (long i = 0; i < kGathered; ++i) {
    if (distance) {
      long ahead = i + distance < kGathered ? i + distance : kGathered - 1;
      const char *row = (const char *)(table + ids[ahead] * kWidth);
      for (int l = 0; l < lines; ++l) {
        if (hint == 0)
          _mm_prefetch(row + 64 * l, _MM_HINT_T0);
        else if (hint == 2)
          _mm_prefetch(row + 64 * l, _MM_HINT_T2);
        else
          _mm_prefetch(row + 64 * l, _MM_HINT_NTA);
      }
    }
    const float *from = table + ids[i] * kWidth;
    float *to = out + i * kWidth;
    for (int j = 0; j < kWidth; j += 16) {
      __m512 v = _mm512_loadu_ps(from + j);
      if (streaming)
        _mm512_stream_ps(to + j, v);
      else
        _mm512_storeu_ps(to + j, v);
    }
  }
  if (streaming)
    _mm_sfence();
}

static void evict(void) {
  for (long i = 0; i < (800L << 20) / 4; i += 16)
    other[i] += 1;
}

int main(void) {
  table = aligned_alloc(64, (size_t)kRows * kWidth * 4);
  out = aligned_alloc(64, (size_t)kGathered * kWidth * 4);
  source = aligned_alloc(64, (size_t)kGathered * kWidth * 4);
  other = aligned_alloc(64, 800L << 20);
  ids = malloc(kGathered * sizeof(int64_t));
  if (!table || !out || !source || !other || !ids)
    return 1;
  memset(other, 0, 800L << 20);
  for (long i = 0; i < (long)kRows * kWidth; ++i)
    table[i] = (float)i;
  for (long i = 0; i < (long)kGathered * kWidth; ++i)
    out[i] = 0, source[i] = (float)i;
  srand(1);
  for (int i = 0; i < kGathered; ++i)
    ids[i] = rand() % kRows;
  struct {
    const char *name;
    int distance, lines, hint, streaming;
  } variants[] = {
      {"rows, plain stores (opal's loop)", 0, 0, 0, 0},
      {"rows, next-but-one row's first 4 lines to L1", 2, 4, 0, 0},
      {"rows, next-but-one row to L2", 2, 32, 2, 0},
      {"rows, 4th row ahead to L2", 4, 32, 2, 0},
      {"rows, 8th row ahead to L2", 8, 32, 2, 0},
      {"rows, next-but-one row non-temporally", 2, 32, 3, 0},
      {"rows, non-temporal stores", 0, 0, 0, 1},
  };
  int count = sizeof variants / sizeof variants[0];
  double copy = 1e30, best[16];
  for (int v = 0; v < count; ++v)
    best[v] = 1e30;
  for (int round = 0; round < kRounds; ++round) {
    evict();
    double t = now();
    memcpy(out, source, (size_t)kGathered * kWidth * 4);
    t = now() - t;
    copy = t < copy ? t : copy;
    for (int v = 0; v < count; ++v) {
      evict();
      t = now();
      gather(variants[v].distance, variants[v].lines, variants[v].hint, variants[v].streaming);
      t = now() - t;
      best[v] = t < best[v] ? t : best[v];
    }
  }
  printf("%-48s %8.2f ms  100%%\n", "memcpy of the same 64 MiB", copy);
  for (int v = 0; v < count; ++v)
    printf("%-48s %8.2f ms  %3.0f%%\n", variants[v].name, best[v], 100 * copy / best[v]);
  return 0;
}
