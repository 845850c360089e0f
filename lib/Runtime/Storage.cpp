//===- Storage.cpp - The memory behind tensors ----------------------------===//

#include "opal/Runtime/Storage.h"

#include "opal/CUDA/Device.h"
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

namespace {
struct CudaBlock {
  int ordinal;
  size_t nbytes;
};
void returnToCudaCache(void *data, void *context) {
  auto *block = static_cast<CudaBlock *>(context);
  cuda::release(block->ordinal, data, block->nbytes);
  delete block;
}
} // namespace

IntrusivePtr<StorageImpl> StorageImpl::allocateCUDA(size_t nbytes, Device device) {
  int ordinal = cuda::ordinalOf(device);
  void *data = cuda::allocate(ordinal, nbytes);
  return IntrusivePtr<StorageImpl>::make(data, nbytes,
                                         Device(DeviceType::CUDA, static_cast<int8_t>(ordinal)),
                                         &returnToCudaCache, new CudaBlock{ordinal, nbytes});
}
