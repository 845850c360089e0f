//===- Tensor.cpp - The tensor handle -------------------------------------===//

#include "opal/Runtime/Tensor.h"

#include "opal/Support/Exceptions.h"

#include <limits>
#include <cstdint>
#include <stdexcept>

using namespace opal;

DispatchKeySet opal::defaultTensorKeySet(Device device) {
  switch (device.type()) {
  case DeviceType::CPU:
    return DispatchKeySet{DispatchKey::CPU, DispatchKey::ADInplaceOrView,
                          DispatchKey::AutogradCPU, DispatchKey::AutocastCPU};
  case DeviceType::CUDA:
    return DispatchKeySet{DispatchKey::CUDA, DispatchKey::ADInplaceOrView,
                          DispatchKey::AutogradCUDA, DispatchKey::AutocastCUDA};
  case DeviceType::Meta:
    return DispatchKeySet{DispatchKey::Meta, DispatchKey::ADInplaceOrView,
                          DispatchKey::AutogradMeta};
  }
  return DispatchKeySet();
}

DimVector opal::contiguousStrides(IntArrayRef sizes) {
  DimVector strides(sizes.size(), 0);
  int64_t stride = 1;
  for (size_t i = sizes.size(); i-- > 0;) {
    strides[i] = stride;
    // Saturates instead of overflowing: only a tensor without elements (a
    // 0 in another dim) or one whose numel overflows, which is refused, gets
    // there, and no element is addressed with such a stride.
    if (__builtin_mul_overflow(stride, sizes[i] > 1 ? sizes[i] : 1, &stride))
      stride = std::numeric_limits<int64_t>::max();
  }
  return strides;
}

std::string opal::sizesText(IntArrayRef values) {
  std::string out = "[";
  for (size_t i = 0; i < values.size(); ++i)
    out += (i ? ", " : "") + std::to_string(values[i]);
  return out + "]";
}

std::optional<size_t> opal::storageBytesFor(IntArrayRef sizes, IntArrayRef strides,
                                            int64_t storageOffset, size_t itemSize) {
  if (storageOffset < 0 || sizes.size() != strides.size())
    return std::nullopt;
  // Without elements, no bytes (whatever the other dims' sizes).
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] < 0 || strides[i] < 0)
      return std::nullopt;
    if (sizes[i] == 0)
      return size_t(0);
  }
  // The last element's index: offset + sum((size - 1) * stride).
  int64_t last = storageOffset;
  for (size_t i = 0; i < sizes.size(); ++i) {
    int64_t span = 0;
    if (__builtin_mul_overflow(sizes[i] - 1, strides[i], &span) ||
        __builtin_add_overflow(last, span, &last))
      return std::nullopt;
  }
  uint64_t bytes = 0;
  if (__builtin_mul_overflow(static_cast<uint64_t>(last) + 1, static_cast<uint64_t>(itemSize),
                             &bytes) ||
      bytes > static_cast<uint64_t>(INT64_MAX))
    return std::nullopt;
  return static_cast<size_t>(bytes);
}

namespace {

/// The number of elements of `sizes`, nullopt if it overflows int64;
/// PyTorch's error for a negative size.
std::optional<int64_t> numelOf(IntArrayRef sizes) {
  int64_t numel = 1;
  bool overflow = false;
  for (int64_t size : sizes) {
    if (size < 0)
      throw OpalError("Trying to create tensor with negative dimension " + std::to_string(size) +
                      ": " + sizesText(sizes));
    overflow |= __builtin_mul_overflow(numel, size, &numel);
  }
  if (overflow)
    return std::nullopt;
  return numel;
}

} // namespace

TensorImpl::TensorImpl(Storage storage, ScalarType dtype, Device device,
                       DimVector sizes, DimVector strides, int64_t storageOffset)
    : storage_(std::move(storage)), dtype_(dtype), device_(device),
      sizes_(std::move(sizes)), strides_(std::move(strides)),
      storageOffset_(storageOffset), keySet_(defaultTensorKeySet(device)) {
  std::optional<int64_t> numel = numelOf(sizes_);
  if (!numel)
    throw OpalError("numel: integer multiplication overflow");
  numel_ = *numel;
  if (strides_.size() != sizes_.size())
    throw OpalError("mismatch in length of strides and shape");
  for (int64_t stride : strides_)
    if (stride < 0)
      throw OpalError("as_strided: Negative strides are not supported at the moment, got "
                      "strides: " + sizesText(strides_));
  if (storageOffset_ < 0)
    throw OpalError("Tensor: invalid storage offset " + std::to_string(storageOffset_));
  // A view never reaches past its storage (meta tensors have none, but
  // their byte count must be computable too).
  size_t itemSize = elementSize(dtype_);
  std::optional<size_t> needed = storageBytesFor(sizes_, strides_, storageOffset_, itemSize);
  int64_t offsetBytes = 0; // data() adds it, with elements or without
  if (!needed ||
      __builtin_mul_overflow(storageOffset_, static_cast<int64_t>(itemSize), &offsetBytes))
    throw OpalError("Storage size calculation overflowed with sizes=" + sizesText(sizes_) +
                    " and strides=" + sizesText(strides_));
  if (storage_) {
    if (*needed > storage_->nbytes())
      throw OpalError("setStorage: sizes " + sizesText(sizes_) + ", strides " +
                      sizesText(strides_) + ", storage offset " + std::to_string(storageOffset_) +
                      ", and itemsize " + std::to_string(itemSize) + " requiring a storage size of " +
                      std::to_string(*needed) + " are out of bounds for storage of size " +
                      std::to_string(storage_->nbytes()));
  }
  // Strides of size-1 dimensions do not matter; nor do any without elements.
  contiguous_ = true;
  int64_t expected = 1;
  for (size_t i = sizes_.size(); numel_ && i-- > 0;) {
    if (sizes_[i] == 1)
      continue;
    if (strides_[i] != expected) {
      contiguous_ = false;
      break;
    }
    expected *= sizes_[i];
  }
}

TensorImpl::TensorImpl(Storage storage, ScalarType dtype, Device device, DimVector sizes,
                       int64_t numel)
    : storage_(std::move(storage)), dtype_(dtype), device_(device), sizes_(std::move(sizes)),
      strides_(contiguousStrides(sizes_)), storageOffset_(0), numel_(numel),
      keySet_(defaultTensorKeySet(device)), contiguous_(true) {}

Tensor Tensor::empty(IntArrayRef sizes, ScalarType dtype,
                     Device device) {
  std::optional<int64_t> numel = numelOf(sizes);
  int64_t nbytes = 0;
  if (!numel ||
      __builtin_mul_overflow(*numel, static_cast<int64_t>(elementSize(dtype)), &nbytes))
    throw OpalError("Storage size calculation overflowed with sizes=" + sizesText(sizes));
  Storage storage;
  if (device.isCPU())
    storage = StorageImpl::allocateCPU(static_cast<size_t>(nbytes));
  else if (device.isCUDA()) {
    storage = StorageImpl::allocateCUDA(static_cast<size_t>(nbytes), device);
    device = storage->device(); // "cuda" becomes "cuda:<current>"
  } else if (!device.isMeta())
    throw std::invalid_argument("cannot allocate on device " + device.str());
  return Tensor(
      IntrusivePtr<TensorImpl>::make(std::move(storage), dtype, device, DimVector(sizes), *numel));
}

int64_t Tensor::size(int64_t dim) const {
  int64_t rank = this->dim();
  if (dim < -rank || dim >= rank)
    throw std::out_of_range("dimension " + std::to_string(dim) +
                            " out of range for a tensor of rank " +
                            std::to_string(rank));
  return sizes()[dim < 0 ? dim + rank : dim];
}

bool Tensor::isContiguous() const { return impl_->isContiguous(); }

std::string Tensor::str() const {
  if (!defined())
    return "Tensor(undefined)";
  std::string shape;
  for (size_t i = 0; i < sizes().size(); ++i)
    shape += (i ? ", " : "") + std::to_string(sizes()[i]);
  return "Tensor(shape=[" + shape + "], dtype=" + dtypeName(dtype()) +
         ", device=" + device().str() + ")";
}
