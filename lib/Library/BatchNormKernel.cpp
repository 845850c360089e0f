//===- BatchNormKernel.cpp - native_batch_norm's running statistics -------===//
//
// native_batch_norm normalizes in its MLIR body (aten-norms.opal.mlir),
// which the JIT compiles into one kernel; in training it also updates
// running_mean and running_var in place, which a compiled kernel cannot
// (kernels write only their results). This native kernel runs the MLIR
// kernel and then does the update from the batch's mean and 1/std:
//   running_mean = (1 - momentum) * running_mean + momentum * mean
//   running_var  = (1 - momentum) * running_var + momentum * var * n / (n - 1)
// with var = 1/invstd^2 - eps (the batch's biased variance) and n the
// elements per channel, as PyTorch's CPU kernel does. The C channel values
// are updated on the host in double (a CUDA tensor's round trip is C
// elements).
//
//===----------------------------------------------------------------------===//

#include "NativeKernels.h"

#include "opal/JIT/MlirKernel.h"
#include "opal/Runtime/Tensor.h"

#include <cmath>
#include <limits>

using namespace opal;
using namespace opal::library_detail;

namespace {

struct BatchNormKernel : OperatorKernel {
  KernelFunction compiled = jit::MlirKernel::make();
};

/// `t` on the host in double, contiguous.
Tensor hostDoubles(const Tensor &t) {
  return hostContiguous(t).to(ScalarType::Double);
}

void updateRunningStatistics(const Tensor &input, const Tensor &runningMean,
                             const Tensor &runningVar, const Tensor &mean, const Tensor &invstd,
                             double momentum, double eps) {
  int64_t channels = mean.numel();
  if (channels == 0 || input.device().isMeta())
    return;
  int64_t n = input.numel() / channels;
  Tensor batchMean = hostDoubles(mean), batchInvstd = hostDoubles(invstd);
  auto update = [&](Tensor running, auto value) {
    Tensor current = hostDoubles(running);
    double *values = current.data<double>();
    for (int64_t c = 0; c < channels; ++c)
      values[c] = (1 - momentum) * values[c] + momentum * value(c);
    running.copyFrom(current.to(running.dtype()).to(running.device()));
  };
  const double *m = batchMean.data<double>(), *inv = batchInvstd.data<double>();
  if (runningMean.defined())
    update(runningMean, [&](int64_t c) { return m[c]; });
  if (runningVar.defined())
    update(runningVar, [&](int64_t c) {
      double variance = 1 / (inv[c] * inv[c]) - eps;
      // A channel of one element has variance 0/0, as in PyTorch.
      return n > 1 ? variance * n / (n - 1) : std::numeric_limits<double>::quiet_NaN();
    });
}

double toDouble(const IValue &value) {
  return value.isInt() ? static_cast<double>(value.toInt()) : value.toDouble();
}

void batchNorm(OperatorKernel *functor, const OperatorHandle &op, DispatchKeySet keys,
               Stack *stack) {
  // input, weight, bias, running_mean, running_var, training, momentum, eps
  IValue *args = stack->data() + stack->size() - 8;
  Tensor input = args[0].toTensor();
  Tensor runningMean = args[3].isNone() ? Tensor() : args[3].toTensor();
  Tensor runningVar = args[4].isNone() ? Tensor() : args[4].toTensor();
  bool training = args[5].toBool();
  double momentum = toDouble(args[6]), eps = toDouble(args[7]);
  static_cast<BatchNormKernel *>(functor)->compiled.callBoxed(op, keys, stack);
  if (!training || (!runningMean.defined() && !runningVar.defined()))
    return;
  const IValue *results = stack->data() + stack->size() - 3;
  updateRunningStatistics(input, runningMean, runningVar, results[1].toTensor(),
                          results[2].toTensor(), momentum, eps);
}

} // namespace

void opal::library_detail::appendNormKernels(std::vector<NativeKernel> &kernels) {
  kernels.push_back({"aten::native_batch_norm", DispatchKey::CompositeExplicitAutograd,
                     KernelFunction::makeFromBoxedFunctor(
                         IntrusivePtr<OperatorKernel>(new BatchNormKernel()), batchNorm)});
}
