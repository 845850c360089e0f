//===- RandomKernels.cpp - aten randperm and dropout as native kernels ----===//
//
// randperm(n) is a Fisher-Yates shuffle of 0..n-1, a loop whose steps each
// depend on the last: a native kernel, computed on the host. It takes one
// offset of its device's generator (Runtime/Generator.h) and draws step i's
// swap partner j in [0, i] from the 64 bits of words 0 and 1 of Philox at
// (seed, offset, i) (Runtime/Philox.h): a seeded call gives the same
// permutation on every device. (Its numbers are not PyTorch's: PyTorch's
// CPU generator is a Mersenne Twister.) dropout's kernel calls native_dropout.
//
//===----------------------------------------------------------------------===//

#include "NativeKernels.h"

#include "opal/Runtime/DispatchTypes.h"
#include "opal/Runtime/Generator.h"
#include "opal/Runtime/Philox.h"
#include "opal/Runtime/ScalarElement.h"
#include "opal/JIT/MlirKernel.h"
#include "opal/Support/Exceptions.h"

#include <numeric>
#include <sstream>
#include <type_traits>

using namespace opal;
using namespace opal::library_detail;

namespace {

template <typename T> void writePermutation(const std::vector<int64_t> &order, void *data) {
  T *out = static_cast<T *>(data);
  for (size_t i = 0; i < order.size(); ++i)
    out[i] = static_cast<T>(static_cast<std::conditional_t<std::is_integral_v<T>, int64_t,
                                                           double>>(order[i]));
}

// randperm(n, *, dtype=long, layout, device, pin_memory)
void randpermBoxed(const OperatorHandle &, DispatchKeySet, Stack *stack) {
  IValue *args = stack->data() + stack->size() - 5;
  int64_t n = args[0].toInt();
  ScalarType dtype = args[1].isNone() ? ScalarType::Long : args[1].toScalarType();
  Device device = args[3].isNone() ? Device(DeviceType::CPU) : args[3].toDevice();
  if (n < 0)
    throw OpalError("Trying to create tensor with negative dimension " + std::to_string(n) +
                    ": [" + std::to_string(n) + "]");
  if (dtype == ScalarType::Bool)
    throw OpalError("\"randperm\" not implemented for 'Bool'");
  // PyTorch checks that n - 1, the largest value, fits an integer dtype.
  if (n > 0 && isIntegralType(dtype, /*includeBool=*/false))
    if (std::string problem = elementOverflowProblem(Scalar(n - 1), dtype); !problem.empty())
      throw OpalError(problem);
  Tensor result = Tensor::empty({n}, dtype, device);
  if (!device.isMeta()) {
    RandomState state = defaultGenerator(device.type()).reserve(1);
    std::vector<int64_t> order(static_cast<size_t>(n));
    std::iota(order.begin(), order.end(), int64_t(0));
    for (int64_t i = n - 1; i > 0; --i) {
      philox::Counter words = philox::draw(state.seed, state.offset, static_cast<uint64_t>(i));
      uint64_t bits = static_cast<uint64_t>(words[0]) << 32 | words[1];
      auto j = static_cast<int64_t>(bits % static_cast<uint64_t>(i + 1));
      std::swap(order[i], order[j]);
    }
    Tensor host = device.isCPU() ? result : Tensor::empty({n}, dtype);
    switch (dtype) {
#define OPAL_RANDPERM_CASE(type, cpp)                                          \
  case type:                                                                   \
    if constexpr (!std::is_same_v<cpp, bool>)                                  \
      writePermutation<cpp>(order, host.dataPtr());                            \
    break;
      OPAL_FORALL_REAL_TYPES(OPAL_RANDPERM_CASE)
#undef OPAL_RANDPERM_CASE
    default:
      throw OpalError(std::string("\"randperm\" not implemented for '") +
                      scalarTypeCppName(dtype) + "'");
    }
    if (!device.isCPU() && n)
      result.copyFrom(host.to(device));
  }
  stack->resize(stack->size() - 5);
  stack->emplace_back(std::move(result));
}

// dropout(input, p, train): p checked, then native_dropout's output when
// training and the input itself otherwise. Its MLIR decomposition says the
// same (composites compile through it); this kernel calls native_dropout
// through the dispatcher, so under autograd that op records the mask its
// gradient needs (PyTorch's dropout is CompositeImplicitAutograd too).
Tensor dropout(const Tensor &input, double p, bool train) {
  if (!(p >= 0 && p <= 1)) {
    std::ostringstream text;
    text << "dropout probability has to be between 0 and 1, but got " << p;
    throw OpalError(text.str());
  }
  if (!train)
    return input;
  return std::move(callOp("aten::native_dropout", "", {IValue(input), IValue(p), IValue(train)})
                       .front())
      .toTensor();
}

} // namespace

void opal::library_detail::appendRandomKernels(std::vector<NativeKernel> &kernels) {
  kernels.push_back({"aten::randperm", DispatchKey::CompositeExplicitAutograd,
                     KernelFunction::makeFromBoxedFunction(randpermBoxed)});
  KernelFunction dropoutKernel = KernelFunction::makeFromUnboxedCallable(dropout);
  jit::declareEquivalentToMlir(dropoutKernel);
  kernels.push_back(
      {"aten::dropout", DispatchKey::CompositeImplicitAutograd, std::move(dropoutKernel)});
}
