//===- Allocator.cpp - The CPU caching allocator --------------------------===//

#include "opal/Runtime/Allocator.h"

#include "opal/Runtime/Storage.h"

#include <cstdlib>
#include <mutex>
#include <new>
#include <unordered_map>
#include <vector>

#include <sys/mman.h>

using namespace opal;

namespace {
constexpr size_t kSmallLimit = size_t(1) << 20;  // power-of-two classes below
constexpr size_t kHugePage = size_t(2) << 20;    // 2 MiB classes above
constexpr size_t kDefaultCacheLimit = size_t(1) << 30;
} // namespace

struct CPUCachingAllocator::State {
  mutable std::mutex mutex;
  std::unordered_map<size_t, std::vector<void *>> freeLists;
  AllocatorStats stats;
};

CPUCachingAllocator &CPUCachingAllocator::singleton() {
  // Leaked: tensors may be freed during static destruction.
  static CPUCachingAllocator *instance = new CPUCachingAllocator();
  return *instance;
}

CPUCachingAllocator::CPUCachingAllocator()
    : state_(new State()), cacheLimit_(kDefaultCacheLimit) {}

size_t CPUCachingAllocator::sizeClass(size_t nbytes) {
  if (nbytes <= kCPUAlignment)
    return kCPUAlignment;
  if (nbytes <= kSmallLimit) {
    size_t size = kCPUAlignment;
    while (size < nbytes)
      size <<= 1;
    return size;
  }
  return (nbytes + kHugePage - 1) / kHugePage * kHugePage;
}

void *CPUCachingAllocator::allocate(size_t nbytes) {
  size_t size = sizeClass(nbytes);
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    ++state_->stats.allocations;
    state_->stats.bytesInUse += size;
    auto it = state_->freeLists.find(size);
    if (it != state_->freeLists.end() && !it->second.empty()) {
      void *block = it->second.back();
      it->second.pop_back();
      ++state_->stats.cacheHits;
      state_->stats.bytesCached -= size;
      return block;
    }
  }
  void *block = std::aligned_alloc(size >= kHugePage ? kHugePage : kCPUAlignment, size);
  if (!block) {
    emptyCache(); // give cached memory back and try once more
    block = std::aligned_alloc(size >= kHugePage ? kHugePage : kCPUAlignment, size);
    if (!block) {
      std::lock_guard<std::mutex> lock(state_->mutex);
      state_->stats.bytesInUse -= size;
      throw std::bad_alloc();
    }
  }
  if (size >= kHugePage)
    madvise(block, size, MADV_HUGEPAGE);
  return block;
}

void CPUCachingAllocator::free(void *block, size_t nbytes) {
  size_t size = sizeClass(nbytes);
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    state_->stats.bytesInUse -= size;
    if (state_->stats.bytesCached + size <= cacheLimit_) {
      state_->freeLists[size].push_back(block);
      state_->stats.bytesCached += size;
      return;
    }
  }
  std::free(block);
}

AllocatorStats CPUCachingAllocator::stats() const {
  std::lock_guard<std::mutex> lock(state_->mutex);
  return state_->stats;
}

void CPUCachingAllocator::emptyCache() {
  std::unordered_map<size_t, std::vector<void *>> lists;
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    lists.swap(state_->freeLists);
    state_->stats.bytesCached = 0;
  }
  for (auto &[size, blocks] : lists)
    for (void *block : blocks)
      std::free(block);
}
