//===- Allocator.h - The CPU caching allocator ------------------*- C++ -*-===//
//
// Every CPU tensor's memory comes from here. Blocks are 64-byte aligned and
// rounded up to a size class (powers of two up to 1 MiB, then multiples of
// 2 MiB); a freed block goes back to its class's free list and the next
// allocation of that class reuses it, so a small output costs a lock and a
// pop, and a large one does not page-fault again. Blocks of 2 MiB and more are
// advised to use transparent huge pages. The cache holds at most
// `cacheLimit()` bytes of free blocks; beyond that, blocks go back to the
// system.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_RUNTIME_ALLOCATOR_H
#define OPAL_RUNTIME_ALLOCATOR_H

#include <cstddef>
#include <cstdint>

namespace opal {

struct AllocatorStats {
  uint64_t allocations = 0;  // calls to allocate
  uint64_t cacheHits = 0;    // served from a free list
  uint64_t bytesInUse = 0;   // handed out and not yet freed (size classes)
  uint64_t bytesCached = 0;  // free blocks kept for reuse
};

class CPUCachingAllocator {
public:
  static CPUCachingAllocator &singleton();

  /// A block of at least `nbytes` (64-byte aligned; never null, even for 0).
  void *allocate(size_t nbytes);
  /// Returns a block from allocate() of the same `nbytes`.
  void free(void *block, size_t nbytes);

  /// The size class of a request.
  static size_t sizeClass(size_t nbytes);
  AllocatorStats stats() const;
  /// Frees every cached block.
  void emptyCache();
  size_t cacheLimit() const { return cacheLimit_; }
  void setCacheLimit(size_t bytes) { cacheLimit_ = bytes; }

private:
  CPUCachingAllocator();
  struct State;
  State *state_;
  size_t cacheLimit_;
};

} // namespace opal

#endif // OPAL_RUNTIME_ALLOCATOR_H
