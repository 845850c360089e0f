//===- Allocator.cpp - The CUDA caching allocator -------------------------===//

#include "opal/CUDA/Device.h"

#include "opal/Support/Exceptions.h"

#include <map>
#include <mutex>
#include <vector>

using namespace opal;
using namespace opal::cuda;

namespace {

constexpr size_t kSmallLimit = size_t(1) << 20;
constexpr size_t kSmallGranule = 512;
constexpr size_t kLargeGranule = size_t(2) << 20;

size_t sizeClass(size_t nbytes) {
  if (nbytes == 0)
    nbytes = 1;
  size_t granule = nbytes <= kSmallLimit ? kSmallGranule : kLargeGranule;
  return (nbytes + granule - 1) / granule * granule;
}

struct Cache {
  std::mutex mutex;
  // device -> size class -> free blocks
  std::map<int, std::map<size_t, std::vector<void *>>> free;
  AllocatorStats stats;
};

Cache &cache() {
  static Cache *instance = new Cache(); // outlives static destructors
  return *instance;
}

void *toPointer(CUdeviceptr pointer) { return reinterpret_cast<void *>(static_cast<uintptr_t>(pointer)); }

/// Frees the cached blocks of every device; the cache's mutex is held.
void freeCachedLocked(Cache &state) {
  const DriverApi &api = requireDriver();
  for (auto &[ordinal, classes] : state.free) {
    activate(ordinal);
    // The blocks' last kernels may still run.
    synchronize(ordinal);
    for (auto &[size, blocks] : classes)
      for (void *block : blocks) {
        api.cuMemFree_v2(static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(block)));
        state.stats.bytesCached -= size;
      }
    classes.clear();
  }
}

} // namespace

void *opal::cuda::allocate(int ordinal, size_t nbytes) {
  const DriverApi &api = requireDriver();
  size_t size = sizeClass(nbytes);
  Cache &state = cache();
  std::lock_guard<std::mutex> lock(state.mutex);
  ++state.stats.allocations;
  std::vector<void *> &blocks = state.free[ordinal][size];
  if (!blocks.empty()) {
    void *block = blocks.back();
    blocks.pop_back();
    ++state.stats.cacheHits;
    state.stats.bytesCached -= size;
    state.stats.bytesInUse += size;
    return block;
  }
  activate(ordinal);
  CUdeviceptr pointer = 0;
  CUresult result = api.cuMemAlloc_v2(&pointer, size);
  if (result == 2 /* CUDA_ERROR_OUT_OF_MEMORY */) {
    freeCachedLocked(state);
    activate(ordinal);
    result = api.cuMemAlloc_v2(&pointer, size);
  }
  if (result == 2 /* CUDA_ERROR_OUT_OF_MEMORY */)
    throw OpalError("CUDA out of memory: tried to allocate " + std::to_string(nbytes) +
                    " bytes on cuda:" + std::to_string(ordinal) + ": " + describeError(result));
  if (result != kSuccess)
    throw OpalError("CUDA error in cuMemAlloc (" + std::to_string(nbytes) + " bytes on cuda:" +
                    std::to_string(ordinal) + "): " + describeError(result));
  state.stats.bytesInUse += size;
  return toPointer(pointer);
}

void opal::cuda::release(int ordinal, void *block, size_t nbytes) {
  size_t size = sizeClass(nbytes);
  Cache &state = cache();
  std::lock_guard<std::mutex> lock(state.mutex);
  // Work on the device's stream is ordered, so the block's next user runs
  // after its last kernel.
  state.free[ordinal][size].push_back(block);
  state.stats.bytesInUse -= size;
  state.stats.bytesCached += size;
}

void opal::cuda::emptyCache() {
  if (!isAvailable())
    return;
  Cache &state = cache();
  std::lock_guard<std::mutex> lock(state.mutex);
  freeCachedLocked(state);
}

AllocatorStats opal::cuda::memoryStats() {
  Cache &state = cache();
  std::lock_guard<std::mutex> lock(state.mutex);
  return state.stats;
}
