//===- ParallelRuntime.cpp - Whose threads run a kernel's nests -----------===//

#include "opal/JIT/ParallelRuntime.h"

#include "opal/Runtime/Parallel.h"

#include <algorithm>
#include <array>
#include <atomic>
#include <climits>
#include <cstdarg>
#include <cstring>
#include <dlfcn.h>
#include <link.h>
#include <mutex>

using namespace opal;
using namespace opal::jit;

namespace {

/// The most captured values a nest may pass (LLVM's OpenMP lowering packs
/// them into one struct: kernels pass 1).
constexpr int32_t kMaxCaptured = 8;

/// LLVM's libomp, which libopal links (by this name).
struct LlvmOpenMp {
  using GlobalThreadNum = int32_t (*)(void *);
  using PushNumThreads = void (*)(void *, int32_t, int32_t);
  using ForkCall = void (*)(void *, int32_t, OpalMicrotask, ...);
  using Query = int (*)();
  GlobalThreadNum globalThreadNum = nullptr;
  PushNumThreads pushNumThreads = nullptr;
  ForkCall forkCall = nullptr;
  Query numThreads = nullptr; ///< omp_get_num_threads, libomp's own
  LlvmOpenMp() {
    void *library = ::dlopen("libomp.so.5", RTLD_LAZY | RTLD_NOLOAD);
    if (!library)
      return;
    globalThreadNum = reinterpret_cast<GlobalThreadNum>(::dlsym(library, "__kmpc_global_thread_num"));
    pushNumThreads = reinterpret_cast<PushNumThreads>(::dlsym(library, "__kmpc_push_num_threads"));
    forkCall = reinterpret_cast<ForkCall>(::dlsym(library, "__kmpc_fork_call"));
    numThreads = reinterpret_cast<Query>(::dlsym(library, "omp_get_num_threads"));
  }
};

const LlvmOpenMp &llvmOpenMp() {
  static const LlvmOpenMp runtime;
  return runtime;
}

/// GNU's libgomp as the process loaded it (PyTorch's wheel carries its own
/// copy, by soname libgomp.so.1).
struct GnuOpenMp {
  using Parallel = void (*)(void (*)(void *), void *, unsigned, unsigned);
  using Query = int (*)();
  Parallel parallel = nullptr;
  Query threadNum = nullptr, numThreads = nullptr, maxThreads = nullptr;
};

/// The path of a loaded library whose file name starts with "libgomp".
int findGomp(struct dl_phdr_info *info, size_t, void *data) {
  const char *name = info->dlpi_name;
  const char *base = name ? std::strrchr(name, '/') : nullptr;
  base = base ? base + 1 : name;
  if (base && std::strncmp(base, "libgomp", 7) == 0) {
    *static_cast<std::string *>(data) = name;
    return 1;
  }
  return 0;
}

const GnuOpenMp *loadGnuOpenMp() {
  static const GnuOpenMp *runtime = [] () -> const GnuOpenMp * {
    std::string path;
    ::dl_iterate_phdr(findGomp, &path);
    if (path.empty())
      return nullptr;
    void *library = ::dlopen(path.c_str(), RTLD_LAZY | RTLD_NOLOAD);
    if (!library)
      return nullptr;
    auto *gomp = new GnuOpenMp();
    gomp->parallel = reinterpret_cast<GnuOpenMp::Parallel>(::dlsym(library, "GOMP_parallel"));
    gomp->threadNum = reinterpret_cast<GnuOpenMp::Query>(::dlsym(library, "omp_get_thread_num"));
    gomp->numThreads =
        reinterpret_cast<GnuOpenMp::Query>(::dlsym(library, "omp_get_num_threads"));
    gomp->maxThreads =
        reinterpret_cast<GnuOpenMp::Query>(::dlsym(library, "omp_get_max_threads"));
    if (!gomp->parallel || !gomp->threadNum || !gomp->numThreads || !gomp->maxThreads) {
      delete gomp;
      return nullptr;
    }
    return gomp;
  }();
  return runtime;
}

std::atomic<const GnuOpenMp *> chosenGnu{nullptr};
/// Whether a runtime was chosen (setParallelRuntime, or the first fork's
/// choice: libgomp when the process has loaded it by then).
std::atomic<bool> chosen{false};

void chooseAtFirstFork() {
  if (chosen.load(std::memory_order_acquire))
    return;
  static std::once_flag once;
  std::call_once(once, [] {
    if (!chosen.load(std::memory_order_acquire)) {
      chosenGnu.store(loadGnuOpenMp(), std::memory_order_relaxed);
      chosen.store(true, std::memory_order_release);
    }
  });
}

/// The thread count the kernel pushed for its next fork (0: none).
thread_local int32_t pushedThreads = 0;
/// Inside a nest's part: the thread's number and the nest's parts (0: not
/// in one).
thread_local int32_t partThread = 0, partCount = 0;

struct Nest {
  OpalMicrotask microtask;
  int32_t argc;
  std::array<void *, kMaxCaptured> captured;
  const GnuOpenMp *gomp = nullptr;
  /// The threads that run a part: the first ones of the team (which may be
  /// larger: forkedTeam).
  int32_t parts = INT32_MAX;
};

void invoke(const Nest &nest, int32_t *gtid, int32_t *btid) {
  using P = void *;
  void *const *a = nest.captured.data();
  auto f = nest.microtask;
  switch (nest.argc) {
  case 0: reinterpret_cast<void (*)(int32_t *, int32_t *)>(f)(gtid, btid); break;
  case 1: reinterpret_cast<void (*)(int32_t *, int32_t *, P)>(f)(gtid, btid, a[0]); break;
  case 2:
    reinterpret_cast<void (*)(int32_t *, int32_t *, P, P)>(f)(gtid, btid, a[0], a[1]);
    break;
  case 3:
    reinterpret_cast<void (*)(int32_t *, int32_t *, P, P, P)>(f)(gtid, btid, a[0], a[1], a[2]);
    break;
  case 4:
    reinterpret_cast<void (*)(int32_t *, int32_t *, P, P, P, P)>(f)(gtid, btid, a[0], a[1],
                                                                     a[2], a[3]);
    break;
  case 5:
    reinterpret_cast<void (*)(int32_t *, int32_t *, P, P, P, P, P)>(f)(gtid, btid, a[0], a[1],
                                                                        a[2], a[3], a[4]);
    break;
  case 6:
    reinterpret_cast<void (*)(int32_t *, int32_t *, P, P, P, P, P, P)>(f)(
        gtid, btid, a[0], a[1], a[2], a[3], a[4], a[5]);
    break;
  case 7:
    reinterpret_cast<void (*)(int32_t *, int32_t *, P, P, P, P, P, P, P)>(f)(
        gtid, btid, a[0], a[1], a[2], a[3], a[4], a[5], a[6]);
    break;
  default:
    reinterpret_cast<void (*)(int32_t *, int32_t *, P, P, P, P, P, P, P, P)>(f)(
        gtid, btid, a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]);
    break;
  }
}

/// Thread `thread` of a team of `team`: its part of the nest, if it has
/// one (the first `nest.parts` threads of the team do, or all should the
/// runtime give fewer: a region inside another one).
void runPart(const Nest &nest, int32_t thread, int32_t team, int32_t *gtid, int32_t *btid) {
  int32_t parts = std::max(std::min(nest.parts, team), 1);
  if (thread >= parts)
    return;
  int32_t outerThread = partThread, outerCount = partCount;
  partThread = thread;
  partCount = parts;
  invoke(nest, gtid, btid);
  partThread = outerThread;
  partCount = outerCount;
}

/// One thread of a nest forked through libgomp.
void gnuThreadOf(void *data) {
  const auto &nest = *static_cast<const Nest *>(data);
  int32_t thread = nest.gomp->threadNum();
  int32_t gtid = thread, btid = thread;
  runPart(nest, thread, nest.gomp->numThreads(), &gtid, &btid);
}

/// One thread of a nest forked through libomp: libomp's own ids, and the
/// nest passed as its one captured value.
void llvmThreadOf(int32_t *gtid, int32_t *btid, void *data) {
  runPart(*static_cast<const Nest *>(data), *btid, llvmOpenMp().numThreads(), gtid, btid);
}

/// libomp's fork of `nest` on `threads` threads (0: its default).
void forkOnLlvm(void *ident, int32_t threads, const Nest &nest) {
  const LlvmOpenMp &omp = llvmOpenMp();
  if (threads > 0)
    omp.pushNumThreads(ident, omp.globalThreadNum(ident), threads);
  omp.forkCall(ident, 1, reinterpret_cast<OpalMicrotask>(&llvmThreadOf), &nest);
}

} // namespace

Expected<bool> jit::setParallelRuntime(ParallelRuntime runtime) {
  if (runtime == ParallelRuntime::LLVM) {
    chosenGnu.store(nullptr, std::memory_order_relaxed);
    chosen.store(true, std::memory_order_release);
    return true;
  }
  const GnuOpenMp *gomp = loadGnuOpenMp();
  if (!gomp)
    return makeUnexpected(Error("set_parallel_runtime: 'gnu' runs kernels' parallel nests on "
                                "the libgomp the process has loaded (PyTorch's), but none is "
                                "loaded"));
  chosenGnu.store(gomp, std::memory_order_relaxed);
  chosen.store(true, std::memory_order_release);
  return true;
}

ParallelRuntime jit::parallelRuntime() {
  chooseAtFirstFork();
  return chosenGnu.load(std::memory_order_relaxed) ? ParallelRuntime::GNU
                                                   : ParallelRuntime::LLVM;
}

std::string jit::parallelRuntimeName() {
  return parallelRuntime() == ParallelRuntime::GNU ? "gnu" : "llvm";
}

int32_t opal_omp_global_thread_num(void *) {
  // (Read only by opal_omp_push_num_threads, which ignores it.)
  return 0;
}

void opal_omp_push_num_threads(void *, int32_t, int32_t threads) { pushedThreads = threads; }

void opal_omp_fork_call(void *ident, int32_t argc, OpalMicrotask microtask, ...) {
  if (argc < 0 || argc > kMaxCaptured)
    __builtin_trap(); // (LLVM's OpenMP lowering passes one struct: see kMaxCaptured)
  Nest nest{microtask, argc, {}};
  int32_t threads = pushedThreads;
  pushedThreads = 0;
  va_list captured;
  va_start(captured, microtask);
  for (int32_t i = 0; i < argc; ++i)
    nest.captured[i] = va_arg(captured, void *);
  va_end(captured);
  chooseAtFirstFork();
  nest.gomp = chosenGnu.load(std::memory_order_relaxed);
  // The team keeps one size from nest to nest (forkedTeam): the setting,
  // or on libgomp the size PyTorch's regions fork (its omp_get_max_threads)
  // where that is larger (the same pool serves both).
  int32_t team = threads;
  if (threads > 0) {
    nest.parts = threads;
    int64_t stable = getNumThreads();
    if (nest.gomp)
      stable = std::max<int64_t>(stable, nest.gomp->maxThreads());
    team = static_cast<int32_t>(std::min<int64_t>(forkedTeam(threads, stable), INT32_MAX));
  }
  if (!nest.gomp) {
    forkOnLlvm(ident, team, nest);
    return;
  }
  nest.gomp->parallel(gnuThreadOf, &nest, static_cast<unsigned>(team > 0 ? team : 0), 0);
}

int64_t opal_part_thread() { return partThread; }
int64_t opal_part_count() { return partCount; }
