//===- KernelRuntime.cpp - The functions compiled kernels call ------------===//

#include "opal/JIT/KernelRuntime.h"

#include "opal/CUDA/Launch.h"
#include "opal/JIT/ParallelRuntime.h"
#include "opal/Runtime/Allocator.h"
#include "opal/Runtime/Packing.h"
#include "opal/Runtime/Parallel.h"
#include "opal/Runtime/Storage.h"
#include "opal/Support/ArrayRef.h"

#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <map>

using namespace opal;

namespace {

/// LLVM's libomp, which libopal links (by this name): its handle, to look
/// up the __kmpc_* entry points LLVM's OpenMP lowering emits, whichever a
/// kernel needs (kernels call nothing else of OpenMP's: GCC's libgomp,
/// which PyTorch loads, defines the omp_* functions too).
void *openMpLibrary() {
  static void *handle = ::dlopen("libomp.so.5", RTLD_LAZY | RTLD_NOLOAD);
  return handle;
}

/// libomp's function `name` (an int of an ident_t pointer, which the
/// __kmpc_bound_* functions do not read).
using TeamQuery = int (*)(void *);
TeamQuery teamQuery(const char *name) {
  void *library = openMpLibrary();
  return library ? reinterpret_cast<TeamQuery>(::dlsym(library, name)) : nullptr;
}

bool startsWith(const std::string &name, const char *prefix) {
  return name.rfind(prefix, 0) == 0;
}

/// A memref descriptor of any rank, as MLIR's lowering passes one to a
/// function: the rank and a pointer to {allocated, aligned, offset,
/// sizes[rank], strides[rank]}.
struct UnrankedMemRef {
  int64_t rank;
  void *descriptor;
};

struct StridedView {
  char *data;
  const int64_t *sizes;
  const int64_t *strides;
};

StridedView viewOf(const UnrankedMemRef &memref, int64_t elementSize) {
  auto *fields = static_cast<char *>(memref.descriptor);
  char *aligned = *reinterpret_cast<char **>(fields + sizeof(void *));
  int64_t offset = *reinterpret_cast<int64_t *>(fields + 2 * sizeof(void *));
  const auto *sizes = reinterpret_cast<const int64_t *>(fields + 2 * sizeof(void *) +
                                                        sizeof(int64_t));
  return {aligned + offset * elementSize, sizes, sizes + memref.rank};
}

/// memref.copy between memrefs of any layout (what finalize-memref-to-llvm
/// calls when either side is not contiguous): MLIR's memrefCopy, with its
/// ABI, element by element in row-major order of the source's sizes.
extern "C" void opal_memref_copy(int64_t elementSize, UnrankedMemRef *source,
                                 UnrankedMemRef *target) {
  int64_t rank = source->rank;
  StridedView from = viewOf(*source, elementSize), to = viewOf(*target, elementSize);
  for (int64_t d = 0; d < rank; ++d)
    if (from.sizes[d] == 0)
      return;
  DimVector index(static_cast<size_t>(rank), 0); // (inline up to 6 dims: no allocation)
  while (true) {
    int64_t fromOffset = 0, toOffset = 0;
    for (int64_t d = 0; d < rank; ++d) {
      fromOffset += index[d] * from.strides[d];
      toOffset += index[d] * to.strides[d];
    }
    std::memcpy(to.data + toOffset * elementSize, from.data + fromOffset * elementSize,
                static_cast<size_t>(elementSize));
    int64_t d = rank - 1;
    for (; d >= 0; --d) {
      if (++index[d] < from.sizes[d])
        break;
      index[d] = 0;
    }
    if (d < 0)
      return;
  }
}

/// A kernel's temporary buffers (memref.alloc lowered to aligned_alloc,
/// malloc and free) come from the caching allocator, as tensors do: a
/// kernel that allocates megabytes of temporaries per call would otherwise
/// fault its pages in at every call wherever malloc gives large blocks back
/// to the system (2.3x the time of an LSTM's training step). Each block
/// is preceded by a header: where the allocation starts and its size.
struct BlockHeader {
  void *base;
  size_t bytes; // of the caching allocator's block; 0: std::aligned_alloc's
};
constexpr size_t kHeaderRoom = kCPUAlignment; // keeps 64-byte alignment

void *opal_kernel_aligned_alloc(size_t alignment, size_t size) {
  char *block;
  size_t room = kHeaderRoom, bytes = 0;
  if (alignment <= kCPUAlignment) {
    bytes = size + room;
    block = static_cast<char *>(CPUCachingAllocator::singleton().allocate(bytes));
  } else {
    room = alignment; // a power of two of at least 64: the header fits
    block = static_cast<char *>(std::aligned_alloc(alignment, size + room));
    if (!block)
      return nullptr;
  }
  char *data = block + room;
  reinterpret_cast<BlockHeader *>(data)[-1] = {block, bytes};
  return data;
}

void *opal_kernel_malloc(size_t size) { return opal_kernel_aligned_alloc(kCPUAlignment, size); }

void opal_kernel_free(void *data) {
  if (!data)
    return;
  BlockHeader header = static_cast<BlockHeader *>(data)[-1];
  if (header.bytes)
    CPUCachingAllocator::singleton().free(header.base, header.bytes);
  else
    std::free(header.base);
}

} // namespace

// (Only parallel regions call these: opal_omp_fork_call's, or, in an
// ahead-of-time library, which the dynamic linker binds to libomp itself,
// libomp's.)
int64_t opal_parallel_thread() {
  if (opal_part_count())
    return opal_part_thread();
  static const TeamQuery query = teamQuery("__kmpc_bound_thread_num");
  return query(nullptr);
}

int64_t opal_parallel_team() {
  if (int64_t parts = opal_part_count())
    return parts;
  static const TeamQuery query = teamQuery("__kmpc_bound_num_threads");
  return query(nullptr);
}

void *jit::kernelRuntimeSymbol(const std::string &name) {
  static const std::map<std::string, void *> own = {
      {"opal_parallel_begin", reinterpret_cast<void *>(&opal_parallel_begin)},
      {"opal_parallel_end", reinterpret_cast<void *>(&opal_parallel_end)},
      {"opal_parallel_thread", reinterpret_cast<void *>(&opal_parallel_thread)},
      {"opal_parallel_team", reinterpret_cast<void *>(&opal_parallel_team)},
      {"opal_pack_panel_f32", reinterpret_cast<void *>(&opal_pack_panel_f32)},
      {"opal_pack_panel_f64", reinterpret_cast<void *>(&opal_pack_panel_f64)},
      {"opal_cuda_launch", reinterpret_cast<void *>(&opal_cuda_launch)},
      {"opal_cuda_alloc", reinterpret_cast<void *>(&opal_cuda_alloc)},
      {"opal_cuda_free", reinterpret_cast<void *>(&opal_cuda_free)},
      {"memrefCopy", reinterpret_cast<void *>(&opal_memref_copy)},
      {"aligned_alloc", reinterpret_cast<void *>(&opal_kernel_aligned_alloc)},
      {"malloc", reinterpret_cast<void *>(&opal_kernel_malloc)},
      {"free", reinterpret_cast<void *>(&opal_kernel_free)},
      // The forks of parallel nests, on the chosen OpenMP runtime.
      {"__kmpc_global_thread_num", reinterpret_cast<void *>(&opal_omp_global_thread_num)},
      {"__kmpc_push_num_threads", reinterpret_cast<void *>(&opal_omp_push_num_threads)},
      {"__kmpc_fork_call", reinterpret_cast<void *>(&opal_omp_fork_call)}};
  auto found = own.find(name);
  if (found != own.end())
    return found->second;
  if (startsWith(name, "__kmpc_"))
    if (void *library = openMpLibrary())
      return ::dlsym(library, name.c_str());
  return nullptr;
}
