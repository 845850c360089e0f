//===- FactoryKernels.cpp - aten arange and empty as native kernels -------===//
//
// arange's length depends on the values of its Scalar arguments, which the
// JIT keeps as runtime values; like PyTorch's, its kernel is native: the
// length and checks exactly as PyTorch 1.13 computes them (in double, or
// in int64 for int64 results), the values start + i * step in PyTorch's
// accumulation type. empty.memory_format and empty_strided allocate without
// computing anything.
//
//===----------------------------------------------------------------------===//

#include "NativeKernels.h"

#include "opal/Runtime/DispatchTypes.h"
#include "opal/Runtime/Tensor.h"
#include "opal/Support/Exceptions.h"

#include <cmath>
#include <limits>
#include <sstream>
#include <type_traits>

using namespace opal;
using namespace opal::library_detail;

namespace {

/// The factory options every overload ends with: dtype, layout, device,
/// pin_memory (at `options`).
struct Options {
  std::optional<ScalarType> dtype;
  Device device = Device(DeviceType::CPU);
};

Options optionsAt(const IValue *options) {
  Options result;
  if (!options[0].isNone())
    result.dtype = options[0].toScalarType();
  if (!options[2].isNone())
    result.device = options[2].toDevice();
  return result;
}

template <typename T> std::string text(T value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

/// An int64 from a double without undefined behaviour (saturating; NaN 0).
int64_t saturated(double value) {
  if (std::isnan(value))
    return 0;
  if (value >= 9.2233720368547758e18)
    return std::numeric_limits<int64_t>::max();
  if (value <= -9.2233720368547758e18)
    return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(value);
}

/// PyTorch's accumulation type on the CPU: double for float and double,
/// float for the 16-bit floats, int64 for integers.
template <typename T> using Accumulate =
    std::conditional_t<std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>, float,
                       std::conditional_t<std::is_floating_point_v<T>, double, int64_t>>;

template <typename Acc> Acc accumulated(const Scalar &s) {
  if constexpr (std::is_integral_v<Acc>)
    return s.isIntegral() || s.isBoolean() ? s.toInt() : saturated(s.toDouble());
  else
    return static_cast<Acc>(s.toDouble());
}

template <typename T>
Tensor arangeOf(const Scalar &start, const Scalar &end, const Scalar &step, ScalarType dtype,
                Device device) {
  using Acc = Accumulate<T>;
  Acc xstart = accumulated<Acc>(start), xend = accumulated<Acc>(end);
  Acc xstep = accumulated<Acc>(step);
  if (!(xstep > 0 || xstep < 0))
    throw OpalError("step must be nonzero");
  if (!std::isfinite(static_cast<double>(xstart)) || !std::isfinite(static_cast<double>(xend)))
    throw OpalError("unsupported range: " + text(xstart) + " -> " + text(xend));
  if (!((xstep > 0 && xend >= xstart) || (xstep < 0 && xend <= xstart)))
    throw OpalError("upper bound and larger bound inconsistent with step sign");
  double sizeD;
  if constexpr (std::is_same_v<T, int64_t>) {
    // (PyTorch computes this in int64; in 128 bits it cannot overflow, and
    // an integer division is exact where a double's rounds: the span of
    // arange(-2^63, 2^63 - 1, 2^62) made 5 elements of 4.)
    __int128 sign = (xstep > 0) - (xstep < 0);
    __int128 span = static_cast<__int128>(xend) - xstart + xstep - sign;
    sizeD = static_cast<double>(span / xstep);
  } else {
    sizeD = std::ceil((end.toDouble() - start.toDouble()) / step.toDouble());
  }
  if (!(sizeD >= 0 && sizeD < 9.2233720368547758e18)) // (2^63: past int64)
    throw OpalError("invalid size, possible overflow?");
  int64_t size = static_cast<int64_t>(sizeD);
  Tensor out = Tensor::empty({size}, dtype, device);
  if (device.isMeta() || size == 0)
    return out;
  Tensor host = device.isCPU() ? out : Tensor::empty({size}, dtype);
  T *values = host.data<T>();
  for (int64_t i = 0; i < size; ++i) {
    Acc value;
    if constexpr (std::is_same_v<Acc, int64_t>) // i * step may pass int64; the value does not
      value = static_cast<int64_t>(static_cast<__int128>(xstart) + static_cast<__int128>(i) * xstep);
    else
      value = static_cast<Acc>(xstart + static_cast<Acc>(i) * xstep);
    if constexpr (std::is_same_v<T, bool>)
      values[i] = value != 0;
    else
      values[i] = static_cast<T>(value);
  }
  if (!device.isCPU())
    out.copyFrom(host.to(device));
  return out;
}

Tensor arange(const Scalar &start, const Scalar &end, const Scalar &step, const Options &options) {
  // Without a dtype: float32 if any of the numbers is a float, else int64.
  bool floating = start.isFloatingPoint() || end.isFloatingPoint() || step.isFloatingPoint();
  ScalarType dtype = options.dtype.value_or(floating ? ScalarType::Float : ScalarType::Long);
  switch (dtype) {
#define OPAL_ARANGE_CASE(type, cpp)                                            \
  case type:                                                                   \
    if constexpr (!std::is_same_v<cpp, bool>)                                  \
      return arangeOf<cpp>(start, end, step, dtype, options.device);           \
    break;
    OPAL_FORALL_REAL_TYPES(OPAL_ARANGE_CASE)
#undef OPAL_ARANGE_CASE
  default:
    break;
  }
  throw OpalError(std::string("\"arange_cpu\" not implemented for '") +
                  scalarTypeCppName(dtype) + "'");
}

// arange(end), arange.start(start, end), arange.start_step(start, end, step):
// the options follow the numbers.
template <int Numbers> void arangeBoxed(const OperatorHandle &, DispatchKeySet, Stack *stack) {
  IValue *args = stack->data() + stack->size() - (Numbers + 4);
  Scalar zero(int64_t(0)), one(int64_t(1));
  Scalar start = Numbers == 1 ? zero : args[0].toScalar();
  Scalar end = args[Numbers == 1 ? 0 : 1].toScalar();
  Scalar step = Numbers == 3 ? args[2].toScalar() : one;
  Tensor result = arange(start, end, step, optionsAt(args + Numbers));
  stack->resize(stack->size() - (Numbers + 4));
  stack->emplace_back(std::move(result));
}

// empty.memory_format(size, *, dtype, layout, device, pin_memory, memory_format)
void emptyBoxed(const OperatorHandle &, DispatchKeySet, Stack *stack) {
  IValue *args = stack->data() + stack->size() - 6;
  std::vector<int64_t> sizes = args[0].toIntList();
  for (int64_t size : sizes)
    if (size < 0)
      throw OpalError("Trying to create tensor with negative dimension " + std::to_string(size) +
                      ": " + listText(sizes));
  Options options = optionsAt(args + 1);
  Tensor result = Tensor::empty(sizes, options.dtype.value_or(ScalarType::Float), options.device);
  stack->resize(stack->size() - 6);
  stack->emplace_back(std::move(result));
}

// empty_strided(size, stride, *, dtype, layout, device, pin_memory): a
// tensor with those strides over a storage just large enough.
void emptyStridedBoxed(const OperatorHandle &, DispatchKeySet, Stack *stack) {
  IValue *args = stack->data() + stack->size() - 6;
  std::vector<int64_t> sizes = args[0].toIntList(), strides = args[1].toIntList();
  checkSizesAndStrides(sizes, strides);
  Options options = optionsAt(args + 2);
  ScalarType dtype = options.dtype.value_or(ScalarType::Float);
  std::optional<size_t> bytes = storageBytesFor(sizes, strides, 0, elementSize(dtype));
  if (!bytes)
    throw OpalError("empty_strided: the storage for sizes " + listText(sizes) + " and strides " +
                    listText(strides) + " overflows");
  int64_t elements = static_cast<int64_t>(*bytes / elementSize(dtype));
  Tensor storage = Tensor::empty({elements}, dtype, options.device);
  Tensor result = storage.asStrided(DimVector(sizes), DimVector(strides), 0);
  stack->resize(stack->size() - 6);
  stack->emplace_back(std::move(result));
}

} // namespace

void opal::library_detail::appendFactoryKernels(std::vector<NativeKernel> &kernels) {
  auto boxed = [&](const char *name, void (*fn)(const OperatorHandle &, DispatchKeySet, Stack *)) {
    kernels.push_back({name, DispatchKey::CompositeExplicitAutograd,
                       KernelFunction::makeFromBoxedFunction(fn)});
  };
  boxed("aten::arange", arangeBoxed<1>);
  boxed("aten::arange.start", arangeBoxed<2>);
  boxed("aten::arange.start_step", arangeBoxed<3>);
  boxed("aten::empty.memory_format", emptyBoxed);
  boxed("aten::empty_strided", emptyStridedBoxed);
}
