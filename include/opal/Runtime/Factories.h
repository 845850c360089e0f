//===- Factories.h - Making new tensors -------------------------*- C++ -*-===//

#ifndef OPAL_RUNTIME_FACTORIES_H
#define OPAL_RUNTIME_FACTORIES_H

#include "opal/Runtime/Tensor.h"

namespace opal {

struct TensorOptions {
  ScalarType dtype = ScalarType::Float;
  Device device = Device(DeviceType::CPU);
};

Tensor zeros(const std::vector<int64_t> &sizes, TensorOptions options = {});
Tensor ones(const std::vector<int64_t> &sizes, TensorOptions options = {});
Tensor full(const std::vector<int64_t> &sizes, double value, TensorOptions options = {});
/// start, start + step, ... while < end (> end for a negative step).
Tensor arange(double start, double end, double step, TensorOptions options = {});
} // namespace opal

#endif // OPAL_RUNTIME_FACTORIES_H
