//===- Tensor.cpp - The tensor handle -------------------------------------===//

#include "opal/Runtime/Tensor.h"

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
    stride *= sizes[i] > 1 ? sizes[i] : 1;
  }
  return strides;
}

TensorImpl::TensorImpl(Storage storage, ScalarType dtype, Device device,
                       DimVector sizes, DimVector strides, int64_t storageOffset)
    : storage_(std::move(storage)), dtype_(dtype), device_(device),
      sizes_(std::move(sizes)), strides_(std::move(strides)),
      storageOffset_(storageOffset), keySet_(defaultTensorKeySet(device)) {
  numel_ = 1;
  for (int64_t size : sizes_)
    numel_ *= size;
  // Strides of size-1 dimensions do not matter.
  contiguous_ = true;
  int64_t expected = 1;
  for (size_t i = sizes_.size(); i-- > 0;) {
    if (sizes_[i] == 1)
      continue;
    if (strides_[i] != expected) {
      contiguous_ = false;
      break;
    }
    expected *= sizes_[i];
  }
}

Tensor Tensor::empty(IntArrayRef sizes, ScalarType dtype,
                     Device device) {
  int64_t numel = 1;
  for (int64_t size : sizes) {
    if (size < 0)
      throw std::invalid_argument("negative dimension " + std::to_string(size));
    numel *= size;
  }
  Storage storage;
  if (device.isCPU())
    storage = StorageImpl::allocateCPU(static_cast<size_t>(numel) *
                                       elementSize(dtype));
  else if (device.isCUDA()) {
    storage = StorageImpl::allocateCUDA(static_cast<size_t>(numel) * elementSize(dtype), device);
    device = storage->device(); // "cuda" becomes "cuda:<current>"
  } else if (!device.isMeta())
    throw std::invalid_argument("cannot allocate on device " + device.str());
  return Tensor(IntrusivePtr<TensorImpl>::make(std::move(storage), dtype, device,
                                               DimVector(sizes), contiguousStrides(sizes),
                                               0));
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
