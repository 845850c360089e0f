//===- Storage.h - The memory behind tensors --------------------*- C++ -*-===//
//
// A Storage is a reference-counted block of device memory that views share.
// CPU blocks are 64-byte aligned. Meta tensors have no storage.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_RUNTIME_STORAGE_H
#define OPAL_RUNTIME_STORAGE_H

#include "opal/Runtime/Device.h"
#include "opal/Support/IntrusivePtr.h"

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace opal {

class StorageImpl : public RefCounted {
public:
  using Deleter = void (*)(void *data, void *context);

  /// Takes ownership of `data`; `deleter(data, context)` frees it.
  StorageImpl(void *data, size_t nbytes, Device device, Deleter deleter,
              void *context)
      : data_(data), nbytes_(nbytes), device_(device), deleter_(deleter),
        context_(context) {}
  ~StorageImpl() override;

  /// A new, uninitialised, 64-byte aligned CPU block of `nbytes`.
  static IntrusivePtr<StorageImpl> allocateCPU(size_t nbytes);

  /// A new, uninitialised block of `nbytes` on a CUDA device ("cuda" is
  /// the current device), from the CUDA caching allocator; the storage's
  /// device carries the ordinal.
  static IntrusivePtr<StorageImpl> allocateCUDA(size_t nbytes, Device device);

  void *data() const { return data_; }
  size_t nbytes() const { return nbytes_; }
  Device device() const { return device_; }
  /// How the memory is freed, and with what: a bridge that wrapped another
  /// library's memory finds it again by its own deleter (opal.torch).
  Deleter deleter() const { return deleter_; }
  void *context() const { return context_; }
  /// Memory that must not be written (a read-only numpy array, immutable
  /// bytes): in-place writes into tensors over it raise.
  bool readOnly() const { return readOnly_; }
  void setReadOnly() { readOnly_ = true; }
  /// Autograd's version counter of every tensor over this storage: each
  /// in-place write raises it, so a tensor saved for backward can tell it
  /// was overwritten (PyTorch keeps it per view family; views share storage).
  uint32_t version() const { return version_.load(std::memory_order_relaxed); }
  void bumpVersion() { version_.fetch_add(1, std::memory_order_relaxed); }

private:
  void *data_;
  size_t nbytes_;
  Device device_;
  Deleter deleter_;
  void *context_;
  bool readOnly_ = false;
  std::atomic<uint32_t> version_{0};
};

using Storage = IntrusivePtr<StorageImpl>;

/// The alignment of every CPU allocation.
constexpr size_t kCPUAlignment = 64;

} // namespace opal

#endif // OPAL_RUNTIME_STORAGE_H
