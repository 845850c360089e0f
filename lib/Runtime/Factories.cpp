//===- Factories.cpp - Making new tensors ---------------------------------===//

#include "opal/Runtime/Factories.h"

#include "opal/Support/Exceptions.h"

#include <cmath>

using namespace opal;

Tensor opal::zeros(const std::vector<int64_t> &sizes, TensorOptions options) {
  return full(sizes, 0.0, options);
}

Tensor opal::ones(const std::vector<int64_t> &sizes, TensorOptions options) {
  return full(sizes, 1.0, options);
}

Tensor opal::full(const std::vector<int64_t> &sizes, double value,
                  TensorOptions options) {
  Tensor t = Tensor::empty(sizes, options.dtype, options.device);
  t.fill(value);
  return t;
}

Tensor opal::arange(double start, double end, double step, TensorOptions options) {
  if (step == 0)
    throw OpalError("step must be nonzero");
  if ((step > 0 && start > end) || (step < 0 && start < end))
    throw OpalError("upper bound and larger bound inconsistent with step sign");
  double steps = std::ceil((end - start) / step);
  // Converting a count past int64 (or NaN) to an integer is undefined.
  if (!(steps >= 0 && steps < 9223372036854775807.0))
    throw OpalError("invalid size, possible overflow?");
  auto count = static_cast<int64_t>(steps);
  if (options.device.isMeta()) // sizes only: no values to compute
    return Tensor::empty({count}, options.dtype, options.device);
  Tensor values = Tensor::empty({count}, ScalarType::Double, Device(DeviceType::CPU));
  double *data = values.data<double>();
  for (int64_t i = 0; i < count; ++i)
    data[i] = start + static_cast<double>(i) * step;
  Tensor result = Tensor::empty({count}, options.dtype, options.device);
  return result.copyFrom(values);
}
