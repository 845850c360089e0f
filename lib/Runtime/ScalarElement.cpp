//===- ScalarElement.cpp - A number written into a tensor -----------------===//

#include "opal/Runtime/ScalarElement.h"

#include "opal/Support/Exceptions.h"

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <utility>

using namespace opal;

namespace {

/// The range of an integer dtype and its C name in PyTorch's message.
struct IntegerRange {
  int64_t low, high;
  const char *name;
};

std::optional<IntegerRange> integerRange(ScalarType dtype) {
  switch (dtype) {
  case ScalarType::Byte: return IntegerRange{0, 255, "uint8_t"};
  case ScalarType::Char: return IntegerRange{-128, 127, "int8_t"};
  case ScalarType::Short: return IntegerRange{-32768, 32767, "int16_t"};
  case ScalarType::Int: return IntegerRange{INT32_MIN, INT32_MAX, "int"};
  case ScalarType::Long: return IntegerRange{INT64_MIN, INT64_MAX, "int64_t"};
  default: return std::nullopt;
  }
}

/// The largest finite value of a floating dtype and its C name.
std::optional<std::pair<double, const char *>> floatingMax(ScalarType dtype) {
  switch (dtype) {
  case ScalarType::Half: return std::make_pair(65504.0, "c10::Half");
  case ScalarType::BFloat16: return std::make_pair(3.3895313892515355e38, "c10::BFloat16");
  case ScalarType::Float: return std::make_pair(double(FLT_MAX), "float");
  default: return std::nullopt;
  }
}

std::string overflow(const char *name) {
  return std::string("value cannot be converted to type ") + name + " without overflow";
}

} // namespace

std::string opal::elementOverflowProblem(const Scalar &value, ScalarType dtype,
                                         bool halfSaturates) {
  if (value.isBoolean() || value.isComplex())
    return "";
  if (halfSaturates && (dtype == ScalarType::Half || dtype == ScalarType::BFloat16))
    return "";
  if (value.isIntegral()) {
    int64_t v = value.toInt();
    if (auto range = integerRange(dtype)) {
      // An unsigned type takes negatives down to -max (c10::overflows).
      int64_t low = dtype == ScalarType::Byte ? -range->high : range->low;
      return v < low || v > range->high ? overflow(range->name) : "";
    }
    if (auto max = floatingMax(dtype))
      return std::fabs(static_cast<double>(v)) > max->first ? overflow(max->second) : "";
    return "";
  }
  double v = value.toDouble();
  if (auto range = integerRange(dtype)) {
    // NaN and the infinities fit no integer. 2^63 is the double just past
    // INT64_MAX: only values below it fit int64.
    bool fits = v >= static_cast<double>(range->low) &&
                (dtype == ScalarType::Long ? v < 9223372036854775808.0
                                           : v <= static_cast<double>(range->high));
    return fits ? "" : overflow(range->name);
  }
  if (auto max = floatingMax(dtype))
    return std::isfinite(v) && std::fabs(v) > max->first ? overflow(max->second) : "";
  return "";
}

Tensor &opal::fillWithScalar(Tensor &tensor, const Scalar &value) {
  if (std::string problem = elementOverflowProblem(value, tensor.dtype(), true);
      !problem.empty())
    throw OpalError(problem);
  // A double holds every int up to 2^53 exactly.
  constexpr int64_t kExact = int64_t(1) << 53;
  if (!value.isIntegral() || tensor.device().isMeta() ||
      (value.toInt() >= -kExact && value.toInt() <= kExact)) {
    if (value.isBoolean())
      return tensor.fill(value.toBool() ? 1.0 : 0.0);
    if (!value.isIntegral())
      return tensor.fill(value.toDouble());
    int64_t v = value.toInt();
    // uint8 takes -255..-1 as they wrap (a double fill would refuse them).
    if (tensor.dtype() == ScalarType::Byte && v < 0)
      v += 256;
    return tensor.fill(static_cast<double>(v));
  }
  tensor.checkWritable("fill_");
  if (!tensor.device().isCPU()) {
    Tensor host = Tensor::empty(tensor.sizes(), tensor.dtype(), Device(DeviceType::CPU));
    fillWithScalar(host, value);
    tensor.copyFrom(host);
    return tensor;
  }
  // An int64 through a double loses what is below its 53-bit mantissa
  // (2^53 + 1 became 2^53): an exact int64 element, broadcast by a copy
  // into the tensor's memory seen once (an expanded dim, stride 0, as size 1).
  DimVector sizes(tensor.sizes()), strides(tensor.strides());
  for (size_t d = 0; d < sizes.size(); ++d)
    if (strides[d] == 0 && sizes[d] > 0)
      sizes[d] = 1;
  Tensor once = tensor.asStrided(sizes, strides, tensor.storageOffset());
  Tensor element = Tensor::empty({}, ScalarType::Long, Device(DeviceType::CPU));
  *element.data<int64_t>() = value.toInt();
  once.copyFrom(element);
  return tensor;
}
