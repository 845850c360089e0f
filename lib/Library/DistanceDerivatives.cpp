//===- DistanceDerivatives.cpp - Gradients of p-norm distances ------------===//
//
// The derivative formulas (derivatives.opal.mlir) of _cdist_forward and
// _pdist_forward as native kernels over aten ops. For a pair of rows with
// difference d = a - b and distance r = ||d||_p, d r / d a is
//   p = 0: 0;   p = 1: sign(d);   p = 2: d / r;
//   p = inf: sign(d) where |d| = r;   else: sign(d) |d|^(p-1) / r^(p-1),
// 0 where r = 0 or (for other p) d = 0 (PyTorch 1.13's _cdist_backward and _pdist_backward), and
// d r / d b is its negation.
//
//===----------------------------------------------------------------------===//

#include "NativeKernels.h"

#include <cmath>

using namespace opal;
using namespace opal::library_detail;

namespace {

using Sizes = std::vector<int64_t>;

Tensor unary(const char *name, const Tensor &t) { return callTensor(name, "", {IValue(t)}); }
Tensor binary(const char *name, const char *overload, const Tensor &a, const Tensor &b) {
  return callTensor(name, overload, {IValue(a), IValue(b)});
}
Tensor subtract(const Tensor &a, const Tensor &b) {
  return callTensor("aten::sub", "Tensor", {IValue(a), IValue(b), IValue(Scalar(1.0))});
}

/// grad * d r / d a for differences `diff` and distances `dist` (with a
/// trailing dim of 1 against diff's feature dim).
Tensor pairGradient(const Tensor &grad, const Tensor &diff, const Tensor &dist, double p) {
  Tensor scaled;
  if (p == 0) {
    Tensor zeros = Tensor::empty(diff.sizes(), diff.dtype(), diff.device());
    return zeros.fill(0.0);
  }
  Tensor sign = unary("aten::sign", diff);
  if (p == 1) {
    scaled = sign;
  } else if (p == 2) {
    scaled = binary("aten::div", "Tensor", diff, dist);
  } else if (std::isinf(p)) {
    Tensor hit = binary("aten::eq", "Tensor", unary("aten::abs", diff), dist);
    scaled = binary("aten::mul", "Tensor", sign, hit);
  } else {
    Tensor power = callTensor("aten::pow", "Tensor_Scalar",
                              {IValue(unary("aten::abs", diff)), IValue(Scalar(p - 1))});
    Tensor norm = callTensor("aten::pow", "Tensor_Scalar", {IValue(dist), IValue(Scalar(p - 1))});
    scaled = binary("aten::div", "Tensor", binary("aten::mul", "Tensor", sign, power), norm);
    // (0^(p-1) is infinite for p < 1: equal elements contribute 0.)
    Tensor same = callTensor("aten::eq", "Scalar", {IValue(diff), IValue(0.0)});
    scaled = callTensor("aten::masked_fill", "Scalar", {IValue(scaled), IValue(same), IValue(0.0)});
  }
  // Where the distance is 0 the gradient is 0 (no 0/0).
  Tensor zero = callTensor("aten::eq", "Scalar", {IValue(dist), IValue(0.0)});
  scaled = callTensor("aten::masked_fill", "Scalar", {IValue(scaled), IValue(zero), IValue(0.0)});
  return binary("aten::mul", "Tensor", scaled, grad);
}

Tensor sumDim(const Tensor &t, int64_t dim) {
  return callTensor("aten::sum", "dim_IntList",
                    {IValue(t), IValue(Sizes{dim}), IValue(false), IValue()});
}

// _cdist_forward: every row of x1 (..., P, M) against every row of x2
// (..., R, M); the batch dims broadcast (the engine sums them back).
std::tuple<Tensor, Tensor> cdistBackward(const Tensor &grad, const Tensor &x1, const Tensor &x2,
                                         double p, const Tensor &result) {
  Tensor diff = subtract(x1.unsqueeze(-2), x2.unsqueeze(-3));
  Tensor pairs = pairGradient(grad.unsqueeze(-1), diff, result.unsqueeze(-1), p);
  Tensor negated = unary("aten::neg", sumDim(pairs, -3));
  return {sumDim(pairs, -2), negated};
}

// _pdist_forward: the rows i < j of self (N, M) in order, one distance each.
Tensor pdistBackward(const Tensor &grad, const Tensor &self, double p, const Tensor &result) {
  int64_t n = self.size(0);
  int64_t count = n * (n - 1) / 2;
  Tensor first = Tensor::empty({count}, ScalarType::Long);
  Tensor second = Tensor::empty({count}, ScalarType::Long);
  int64_t k = 0;
  for (int64_t i = 0; i < n; ++i)
    for (int64_t j = i + 1; j < n; ++j, ++k) {
      first.data<int64_t>()[k] = i;
      second.data<int64_t>()[k] = j;
    }
  first = first.to(self.device());
  second = second.to(self.device());
  auto rows = [&](const Tensor &at) {
    return callTensor("aten::index_select", "", {IValue(self), IValue(int64_t(0)), IValue(at)});
  };
  Tensor diff = subtract(rows(first), rows(second));
  Tensor pairs = pairGradient(grad.unsqueeze(-1), diff, result.unsqueeze(-1), p);
  Tensor zeros = Tensor::empty(self.sizes(), pairs.dtype(), self.device());
  zeros.fill(0.0);
  auto add = [](Tensor into, const Tensor &at, const Tensor &values) {
    return callTensor("aten::index_put", "",
                      {IValue(std::move(into)), IValue(std::vector<std::optional<Tensor>>{at}),
                       IValue(values), IValue(true)});
  };
  Tensor g = add(zeros, first, pairs);
  return add(g, second, unary("aten::neg", pairs));
}

} // namespace

void opal::library_detail::appendDistanceDerivativeKernels(std::vector<NativeKernel> &kernels) {
  kernels.push_back({"aten_backward::_cdist_forward", DispatchKey::CompositeExplicitAutograd,
                     KernelFunction::makeFromUnboxedCallable(cdistBackward)});
  kernels.push_back({"aten_backward::_pdist_forward", DispatchKey::CompositeExplicitAutograd,
                     KernelFunction::makeFromUnboxedCallable(pdistBackward)});
}
