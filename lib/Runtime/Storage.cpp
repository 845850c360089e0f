//===- Storage.cpp - The memory behind tensors ----------------------------===//

#include "opal/Runtime/Storage.h"

#include <cstdlib>
#include <new>

using namespace opal;

StorageImpl::~StorageImpl() {
  if (deleter_)
    deleter_(data_, context_);
}

static void freeAligned(void *data, void *) { std::free(data); }

IntrusivePtr<StorageImpl> StorageImpl::allocateCPU(size_t nbytes) {
  // aligned_alloc needs a size that is a multiple of the alignment.
  size_t rounded = (nbytes + kCPUAlignment - 1) / kCPUAlignment * kCPUAlignment;
  void *data = rounded ? std::aligned_alloc(kCPUAlignment, rounded) : nullptr;
  if (rounded && !data)
    throw std::bad_alloc();
  return IntrusivePtr<StorageImpl>::make(data, nbytes, Device(DeviceType::CPU),
                                         &freeAligned, nullptr);
}
