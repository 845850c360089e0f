//===- DLPack.cpp - The DLPack exchange ABI -------------------------------===//

#include "opal/Runtime/DLPack.h"

#include "opal/CUDA/Device.h"

using namespace opal;

namespace {

struct DTypeCode {
  ScalarType type;
  uint8_t code;
  uint8_t bits;
};
constexpr DTypeCode kCodes[] = {
    {ScalarType::Bool, kDLBool, 8},       {ScalarType::Byte, kDLUInt, 8},
    {ScalarType::Char, kDLInt, 8},        {ScalarType::Short, kDLInt, 16},
    {ScalarType::Int, kDLInt, 32},        {ScalarType::Long, kDLInt, 64},
    {ScalarType::Half, kDLFloat, 16},     {ScalarType::BFloat16, kDLBfloat, 16},
    {ScalarType::Float, kDLFloat, 32},    {ScalarType::Double, kDLFloat, 64},
    {ScalarType::ComplexFloat, kDLComplex, 64},
    {ScalarType::ComplexDouble, kDLComplex, 128},
};

/// What the exported DLManagedTensor owns.
struct Export {
  Tensor tensor;
  std::vector<int64_t> shape, strides;
  DLManagedTensor managed;
};

void deleteExport(DLManagedTensor *managed) {
  delete static_cast<Export *>(managed->manager_ctx);
}

void releaseImport(void *, void *context) {
  auto *managed = static_cast<DLManagedTensor *>(context);
  if (managed->deleter)
    managed->deleter(managed);
}

} // namespace

Expected<DLManagedTensor *> opal::toDLPack(const Tensor &tensor) {
  if (!tensor.device().isCPU() && !tensor.device().isCUDA())
    return makeUnexpected(Error("DLPack export of " + tensor.device().str() +
                                " tensors is not supported; only cpu and cuda"));
  const DTypeCode *code = nullptr;
  for (const DTypeCode &candidate : kCodes)
    if (candidate.type == tensor.dtype())
      code = &candidate;
  if (!code)
    return makeUnexpected(Error(std::string("DLPack export of dtype ") +
                                dtypeName(tensor.dtype()) + " is not supported"));
  auto *e = new Export{tensor, tensor.sizes().vec(), tensor.strides().vec(), {}};
  DLTensor &dl = e->managed.dl_tensor;
  dl.data = tensor.dataPtr();
  dl.device = tensor.device().isCUDA() ? DLDevice{kDLCUDA, tensor.device().index()}
                                        : DLDevice{kDLCPU, 0};
  dl.ndim = static_cast<int32_t>(tensor.dim());
  dl.dtype = DLDataType{code->code, code->bits, 1};
  dl.shape = e->shape.data();
  dl.strides = e->strides.data();
  dl.byte_offset = 0;
  e->managed.manager_ctx = e;
  e->managed.deleter = &deleteExport;
  return &e->managed;
}

Expected<Tensor> opal::fromDLPack(DLManagedTensor *managed,
                                  void (*onRelease)(DLManagedTensor *)) {
  const DLTensor &dl = managed->dl_tensor;
  Device device(DeviceType::CPU);
  if (dl.device.device_type == kDLCUDA) {
    std::string whyNot;
    if (!cuda::driver(&whyNot))
      return makeUnexpected(Error("from_dlpack: a cuda:" + std::to_string(dl.device.device_id) +
                                  " tensor, but CUDA is not available: " + whyNot));
    if (dl.device.device_id < 0 || dl.device.device_id >= cuda::deviceCount())
      return makeUnexpected(Error("from_dlpack: CUDA device " +
                                  std::to_string(dl.device.device_id) + " does not exist"));
    device = Device(DeviceType::CUDA, static_cast<int8_t>(dl.device.device_id));
  } else if (dl.device.device_type != kDLCPU && dl.device.device_type != kDLCUDAHost) {
    return makeUnexpected(Error("from_dlpack: only cpu and cuda tensors can be imported, "
                                "got DLPack device type " +
                                std::to_string(dl.device.device_type)));
  }
  if (dl.dtype.lanes != 1)
    return makeUnexpected(Error("from_dlpack: vector dtypes (lanes != 1) are not supported"));
  const DTypeCode *code = nullptr;
  for (const DTypeCode &candidate : kCodes)
    if (candidate.code == dl.dtype.code && candidate.bits == dl.dtype.bits)
      code = &candidate;
  if (!code)
    return makeUnexpected(Error("from_dlpack: unsupported DLPack dtype (code " +
                                std::to_string(dl.dtype.code) + ", " +
                                std::to_string(dl.dtype.bits) + " bits)"));
  DimVector sizes(IntArrayRef(dl.shape, dl.ndim));
  DimVector strides =
      dl.strides ? DimVector(IntArrayRef(dl.strides, dl.ndim)) : contiguousStrides(sizes);
  size_t itemSize = elementSize(code->type);
  std::optional<size_t> spanned = storageBytesFor(sizes, strides, 0, itemSize);
  if (!spanned)
    return makeUnexpected(Error("from_dlpack: the tensor's sizes and strides are negative or "
                                "overflow"));
  void *data = static_cast<char *>(dl.data) + dl.byte_offset;
  // Kernels and copies load whole elements.
  if (reinterpret_cast<uintptr_t>(data) % itemSize != 0)
    return makeUnexpected(Error("from_dlpack: the tensor's data is not aligned to its element "
                                "size (" + std::to_string(itemSize) + " bytes)"));
  size_t nbytes = *spanned;
  Storage storage;
  if (onRelease) {
    using Release = std::pair<DLManagedTensor *, void (*)(DLManagedTensor *)>;
    storage = IntrusivePtr<StorageImpl>::make(
        data, nbytes, device,
        [](void *, void *context) {
          auto *release = static_cast<Release *>(context);
          release->second(release->first);
          delete release;
        },
        new Release(managed, onRelease));
  } else {
    storage = IntrusivePtr<StorageImpl>::make(data, nbytes, device, &releaseImport, managed);
  }
  return Tensor(IntrusivePtr<TensorImpl>::make(std::move(storage), code->type, device,
                                               std::move(sizes),
                                               std::move(strides), 0));
}
