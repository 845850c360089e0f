//===- Storage.cpp - The memory behind tensors ----------------------------===//

#include "opal/Runtime/Storage.h"

#include "opal/CUDA/Device.h"
#include "opal/Runtime/Allocator.h"

#include <cstdint>
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
// A CUDA block's deleter context packs its device ordinal (low 8 bits) and
// requested size, so freeing needs no allocation of its own.
void returnToCudaCache(void *data, void *context) {
  auto packed = reinterpret_cast<uintptr_t>(context);
  cuda::release(static_cast<int>(packed & 0xff), data, static_cast<size_t>(packed >> 8));
}
} // namespace

IntrusivePtr<StorageImpl> StorageImpl::allocateCUDA(size_t nbytes, Device device) {
  int ordinal = cuda::ordinalOf(device);
  void *data = cuda::allocate(ordinal, nbytes);
  auto packed = (static_cast<uintptr_t>(nbytes) << 8) | static_cast<uintptr_t>(ordinal);
  return IntrusivePtr<StorageImpl>::make(data, nbytes,
                                         Device(DeviceType::CUDA, static_cast<int8_t>(ordinal)),
                                         &returnToCudaCache, reinterpret_cast<void *>(packed));
}
