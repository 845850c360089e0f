//===- DLPack.h - The DLPack exchange ABI -----------------------*- C++ -*-===//
//
// The C structs of the DLPack standard (v0.8 layout), written out here so
// that opal needs no extra package. Only the CPU device and the dtypes opal
// has are produced and accepted.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_RUNTIME_DLPACK_H
#define OPAL_RUNTIME_DLPACK_H

#include "opal/Runtime/Tensor.h"

#include <cstdint>

extern "C" {

typedef enum {
  kDLCPU = 1,
  kDLCUDA = 2,
  kDLCUDAHost = 3,
} DLDeviceType;

typedef struct {
  DLDeviceType device_type;
  int32_t device_id;
} DLDevice;

typedef enum {
  kDLInt = 0U,
  kDLUInt = 1U,
  kDLFloat = 2U,
  kDLOpaqueHandle = 3U,
  kDLBfloat = 4U,
  kDLComplex = 5U,
  kDLBool = 6U,
} DLDataTypeCode;

typedef struct {
  uint8_t code;
  uint8_t bits;
  uint16_t lanes;
} DLDataType;

typedef struct {
  void *data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t *shape;
  int64_t *strides;
  uint64_t byte_offset;
} DLTensor;

typedef struct DLManagedTensor {
  DLTensor dl_tensor;
  void *manager_ctx;
  void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;
}

namespace opal {

/// Exports `tensor` (CPU) as a DLManagedTensor that keeps it alive until the
/// consumer calls the deleter.
Expected<DLManagedTensor *> toDLPack(const Tensor &tensor);
/// Wraps a DLManagedTensor as a tensor sharing its memory; the managed
/// tensor's deleter runs when the last view of it is gone (through
/// `onRelease`, which may wrap it, e.g. to take the GIL).
Expected<Tensor> fromDLPack(DLManagedTensor *managed,
                            void (*onRelease)(DLManagedTensor *) = nullptr);

} // namespace opal

#endif // OPAL_RUNTIME_DLPACK_H
