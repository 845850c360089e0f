/* The cost of one fork and join of an OpenMP parallel region: LLVM's libomp
 * (what opal's kernels call) against GCC's libgomp (what PyTorch links), on
 * a warm team of N threads. docs/jit.md (Threads) quotes it.
 *
 *   /usr/lib/llvm-22/bin/clang -O2 -fopenmp benchmarks/omp_fork.c -o /tmp/fork_omp \
 *       -L/usr/lib/llvm-22/lib -Wl,-rpath,/usr/lib/llvm-22/lib && /tmp/fork_omp 2
 *   gcc -O2 -fopenmp benchmarks/omp_fork.c -o /tmp/fork_gomp && /tmp/fork_gomp 2
 */
#include <omp.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
  int threads = argc > 1 ? atoi(argv[1]) : 2;
  volatile int sink = 0;
  for (int round = 0; round < 3; ++round) {
    const int iterations = 200000;
    double start = now();
    for (int i = 0; i < iterations; ++i) {
#pragma omp parallel num_threads(threads)
      {
        if (omp_get_thread_num() == threads) /* never: keeps the region */
          sink++;
      }
    }
    printf("%d threads: %.0f ns per fork and join\n", threads,
           (now() - start) / iterations * 1e9);
  }
  return 0;
}
