//===- Allocator.cpp - The CPU caching allocator --------------------------===//

#include "opal/Runtime/Allocator.h"

#include "opal/Runtime/Storage.h"
#include "opal/Support/Exceptions.h"

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
  // Power-of-two classes 64 B .. 1 MiB by log2 - 6; larger ones by size.
  std::vector<void *> smallLists[15];
  std::unordered_map<size_t, std::vector<void *>> largeLists;
  AllocatorStats stats;

  std::vector<void *> &listFor(size_t size) {
    if (size <= kSmallLimit)
      return smallLists[__builtin_ctzll(size) - 6];
    return largeLists[size];
  }
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

namespace {
[[noreturn]] void throwOutOfMemory(size_t nbytes) {
  throw OpalError("DefaultCPUAllocator: not enough memory: you tried to allocate " +
                  std::to_string(nbytes) + " bytes.");
}
} // namespace

void *CPUCachingAllocator::allocate(size_t nbytes) {
  // No machine has this much; the size class would overflow.
  if (nbytes > (size_t(1) << 62))
    throwOutOfMemory(nbytes);
  size_t size = sizeClass(nbytes);
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    ++state_->stats.allocations;
    state_->stats.bytesInUse += size;
    std::vector<void *> &list = state_->listFor(size);
    if (!list.empty()) {
      void *block = list.back();
      list.pop_back();
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
      throwOutOfMemory(nbytes);
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
      state_->listFor(size).push_back(block);
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
  std::vector<std::vector<void *>> lists;
  {
    std::lock_guard<std::mutex> lock(state_->mutex);
    for (auto &list : state_->smallLists)
      lists.push_back(std::move(list)), list.clear();
    for (auto &[size, list] : state_->largeLists)
      lists.push_back(std::move(list));
    state_->largeLists.clear();
    state_->stats.bytesCached = 0;
  }
  for (auto &blocks : lists)
    for (void *block : blocks)
      std::free(block);
}
