//===- Factories.cpp - Making new tensors ---------------------------------===//

#include "opal/Runtime/Factories.h"

#include "opal/Support/Exceptions.h"

#include <cmath>
#include <mutex>
#include <random>

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

namespace {
struct GlobalGenerator {
  std::mutex mutex;
  std::mt19937_64 engine{67280421310721ULL};
};
GlobalGenerator &generator() {
  static GlobalGenerator instance;
  return instance;
}

template <typename Distribution>
Tensor sample(const std::vector<int64_t> &sizes, TensorOptions options,
              Distribution distribution) {
  if (!isFloatingType(options.dtype))
    throw OpalError(std::string("random sampling needs a floating-point dtype, "
                                "not ") + dtypeName(options.dtype));
  Tensor values = Tensor::empty(sizes, ScalarType::Double, Device(DeviceType::CPU));
  double *data = values.data<double>();
  {
    GlobalGenerator &g = generator();
    std::lock_guard<std::mutex> lock(g.mutex);
    for (int64_t i = 0; i < values.numel(); ++i)
      data[i] = distribution(g.engine);
  }
  Tensor result = Tensor::empty(sizes, options.dtype, options.device);
  return result.copyFrom(values);
}
} // namespace

Tensor opal::rand(const std::vector<int64_t> &sizes, TensorOptions options) {
  // Scaled so that rounding to float32 never reaches 1.
  constexpr double kBelowOne = 1.0 - 1.0 / (1 << 24);
  return sample(sizes, options, [](std::mt19937_64 &engine) {
    return std::uniform_real_distribution<double>(0.0, 1.0)(engine) * kBelowOne;
  });
}

Tensor opal::randn(const std::vector<int64_t> &sizes, TensorOptions options) {
  return sample(sizes, options, std::normal_distribution<double>(0.0, 1.0));
}

void opal::manualSeed(uint64_t seed) {
  GlobalGenerator &g = generator();
  std::lock_guard<std::mutex> lock(g.mutex);
  g.engine.seed(seed);
}
