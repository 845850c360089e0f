//===- Storage.cpp - The memory behind tensors ----------------------------===//

#include "opal/Runtime/Storage.h"

#include "opal/Runtime/Allocator.h"

#include <cstdlib>
#include <new>

using namespace opal;

StorageImpl::~StorageImpl() {
  if (deleter_)
    deleter_(data_, context_);
}

static void returnToCache(void *data, void *context) {
  CPUCachingAllocator::singleton().free(data, reinterpret_cast<size_t>(context));
}

IntrusivePtr<StorageImpl> StorageImpl::allocateCPU(size_t nbytes) {
  void *data = CPUCachingAllocator::singleton().allocate(nbytes);
  // The deleter's context is the requested size, which names the size class.
  return IntrusivePtr<StorageImpl>::make(data, nbytes, Device(DeviceType::CPU),
                                         &returnToCache,
                                         reinterpret_cast<void *>(nbytes));
}
