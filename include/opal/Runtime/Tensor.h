//===- Tensor.h - The tensor handle -----------------------------*- C++ -*-===//
//
// A Tensor is a counted handle to a TensorImpl: storage (shared by views),
// dtype, sizes, strides, storage offset, device, and the dispatch keys a call
// with this tensor contributes. As in PyTorch 1.13, a CPU tensor carries
// {CPU, ADInplaceOrView, AutogradCPU, AutocastCPU} and a meta tensor
// {Meta, ADInplaceOrView, AutogradMeta}.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_RUNTIME_TENSOR_H
#define OPAL_RUNTIME_TENSOR_H

#include "opal/Dispatch/DispatchKeySet.h"
#include "opal/Runtime/ScalarType.h"
#include "opal/Runtime/Storage.h"
#include "opal/Support/ArrayRef.h"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace opal {

/// Autograd's state of one tensor (Autograd/AutogradMeta.h). Runtime only
/// holds it, as c10 holds PyTorch's AutogradMeta: the layers above define it.
class AutogradMetaInterface {
public:
  virtual ~AutogradMetaInterface() = default;
};

class TensorImpl : public RefCounted {
public:
  /// Checks the layout: sizes and strides not negative, an element count
  /// that fits int64, and (with storage) no element past the storage's end;
  /// throws OpalError with PyTorch's message otherwise.
  TensorImpl(Storage storage, ScalarType dtype, Device device, DimVector sizes,
             DimVector strides, int64_t storageOffset);
  /// A fresh row-major tensor at the start of `storage`, which the caller
  /// allocated to hold its `numel` elements (Tensor::empty): nothing left
  /// to check.
  TensorImpl(Storage storage, ScalarType dtype, Device device, DimVector sizes, int64_t numel);

  const Storage &storage() const { return storage_; }
  ScalarType dtype() const { return dtype_; }
  Device device() const { return device_; }
  IntArrayRef sizes() const { return sizes_; }
  IntArrayRef strides() const { return strides_; }
  int64_t storageOffset() const { return storageOffset_; }
  int64_t numel() const { return numel_; }
  DispatchKeySet keySet() const { return keySet_; }
  /// Row-major dense (strides of size-1 dims do not matter); computed once
  /// (sizes and strides never change).
  bool isContiguous() const { return contiguous_; }
  /// The address of element 0 (null without storage).
  void *data() const {
    if (!storage_)
      return nullptr;
    return static_cast<char *>(storage_->data()) +
           storageOffset_ * static_cast<int64_t>(elementSize(dtype_));
  }
  /// Adds keys (e.g. Python for tensors that carry a Python subclass).
  void addKeys(DispatchKeySet keys) { keySet_ = keySet_ | keys; }
  void removeKeys(DispatchKeySet keys) { keySet_ = keySet_ - keys; }

  /// Autograd's state, null for a tensor that never took part in autograd.
  AutogradMetaInterface *autogradMeta() const { return autogradMeta_.get(); }
  void setAutogradMeta(std::unique_ptr<AutogradMetaInterface> meta) {
    autogradMeta_ = std::move(meta);
  }

private:
  Storage storage_;
  ScalarType dtype_;
  Device device_;
  DimVector sizes_;
  DimVector strides_;
  int64_t storageOffset_;
  int64_t numel_;
  DispatchKeySet keySet_;
  bool contiguous_;
  std::unique_ptr<AutogradMetaInterface> autogradMeta_;
};

/// Wraps `dim` (which may be negative) for a tensor of rank `rank`; throws
/// OpalError naming the valid range if it is out of range.
int64_t wrapDim(int64_t dim, int64_t rank);

/// The keys PyTorch 1.13 gives a tensor on `device`.
DispatchKeySet defaultTensorKeySet(Device device);
/// Row-major strides of `sizes`.
DimVector contiguousStrides(IntArrayRef sizes);
/// The bytes a storage needs to hold a tensor of `sizes` and `strides` at
/// `storageOffset` (elements of `itemSize` bytes): 0 without elements;
/// nullopt when a size, stride or offset is negative or the count
/// overflows.
std::optional<size_t> storageBytesFor(IntArrayRef sizes, IntArrayRef strides,
                                      int64_t storageOffset, size_t itemSize);
/// "[2, 3]".
std::string sizesText(IntArrayRef values);

class Tensor {
public:
  /// An undefined tensor (what `None` becomes for a `Tensor?` argument).
  Tensor() = default;
  explicit Tensor(IntrusivePtr<TensorImpl> impl) : impl_(std::move(impl)) {}

  /// A new contiguous tensor; its memory is uninitialised (none on meta).
  static Tensor empty(IntArrayRef sizes,
                      ScalarType dtype = ScalarType::Float,
                      Device device = Device(DeviceType::CPU));

  bool defined() const { return static_cast<bool>(impl_); }
  TensorImpl *impl() const { return impl_.get(); }

  ScalarType dtype() const { return impl_->dtype(); }
  Device device() const { return impl_->device(); }
  IntArrayRef sizes() const { return impl_->sizes(); }
  IntArrayRef strides() const { return impl_->strides(); }
  int64_t size(int64_t dim) const;
  int64_t dim() const { return static_cast<int64_t>(impl_->sizes().size()); }
  int64_t numel() const { return impl_->numel(); }
  int64_t storageOffset() const { return impl_->storageOffset(); }
  bool isContiguous() const;
  /// The keys this tensor contributes to a call; empty if undefined.
  DispatchKeySet keySet() const {
    return impl_ ? impl_->keySet() : DispatchKeySet();
  }
  /// The address of the first element (null for meta tensors).
  void *dataPtr() const { return impl_->data(); }
  template <typename T> T *data() const { return static_cast<T *>(dataPtr()); }

  /// `Tensor(shape=[2], dtype=float32, device=cpu)`.
  std::string str() const;

  //===--- Views: new metadata over the same storage (Runtime/TensorViews) --===//

  /// A view with the given geometry over this tensor's storage.
  Tensor asStrided(DimVector sizes, DimVector strides, int64_t storageOffset) const;
  /// A view with a new shape (one size may be -1); the strides must allow it.
  Tensor view(IntArrayRef sizes) const;
  /// view() when the strides allow it, else a contiguous copy reshaped.
  Tensor reshape(IntArrayRef sizes) const;
  Tensor transpose(int64_t dim0, int64_t dim1) const;
  /// The transpose of a matrix; vectors and scalars are returned as views of
  /// themselves (PyTorch's t()). Raises for more than 2 dims.
  Tensor t() const;
  Tensor permute(IntArrayRef dims) const;
  /// Broadcasts size-1 dimensions (stride 0) and adds leading ones; -1 keeps
  /// a size.
  Tensor expand(IntArrayRef sizes) const;
  Tensor squeeze() const;
  Tensor squeeze(int64_t dim) const;
  Tensor unsqueeze(int64_t dim) const;
  /// Elements start, start+step, ... < end along `dim` (clamped like Python).
  Tensor slice(int64_t dim, int64_t start, int64_t end, int64_t step = 1) const;
  /// Removes `dim`, keeping position `index`.
  Tensor select(int64_t dim, int64_t index) const;

  //===--- Copies (Runtime/Copy) --------------------------------------------===//

  /// This tensor if it is contiguous, else a contiguous copy.
  Tensor contiguous() const;
  /// A contiguous copy with its own storage.
  Tensor clone() const;
  /// Copies `source` (broadcast to this shape, converting dtype) into this.
  Tensor &copyFrom(const Tensor &source);
  /// A copy with another dtype (this tensor itself if the dtype is the same).
  Tensor to(ScalarType dtype) const;
  /// A copy on another device (this tensor itself if it is there already):
  /// host <-> CUDA and between CUDA devices.
  Tensor to(Device device) const;
  /// Sets every element to `value`.
  Tensor &fill(double value);
  /// Throws naming `op` when the tensor's memory is read-only.
  void checkWritable(const char *op) const;
  /// The version counter autograd checks saved tensors against: shared by
  /// every tensor over the same storage, raised by each in-place write
  /// (copyFrom, fill); 0 for a tensor without storage.
  uint32_t version() const {
    return impl_->storage() ? impl_->storage()->version() : 0;
  }
  void bumpVersion() const {
    if (impl_->storage())
      impl_->storage()->bumpVersion();
  }

  /// True if both handles share one TensorImpl.
  bool isSame(const Tensor &other) const { return impl_ == other.impl_; }
  /// Gives up the handle's reference without releasing it (for IValue).
  TensorImpl *releaseImpl() && { return impl_.release(); }
  /// Adopts a reference that was released with releaseImpl().
  static Tensor adopt(TensorImpl *impl) {
    Tensor t;
    t.impl_ = IntrusivePtr<TensorImpl>::adopt(impl);
    return t;
  }
  uint32_t useCount() const { return impl_ ? impl_->useCount() : 0; }

private:
  IntrusivePtr<TensorImpl> impl_;
};

} // namespace opal

#endif // OPAL_RUNTIME_TENSOR_H
