//===- DerivativeKernels.cpp - Derivatives that only move the gradient ----===//
//
// The derivative formulas of views, copies and identities
// (derivatives.opal.mlir) as native kernels: the gradient of a view is a
// view of the gradient, and one that passes a gradient on returns it, so
// neither copies anything.
//
//===----------------------------------------------------------------------===//

#include "NativeKernels.h"

#include "opal/JIT/MlirKernel.h"

#include <string_view>

using namespace opal;
using namespace opal::library_detail;

namespace {
using Sizes = std::vector<int64_t>;
} // namespace

void opal::library_detail::appendDerivativeKernels(std::vector<NativeKernel> &kernels) {
  // Each but permute's has an MLIR decomposition, declared equivalent: a
  // derived backward that reaches it fuses through it.
  auto add = [&](const char *name, auto callable) {
    KernelFunction kernel = KernelFunction::makeFromUnboxedCallable(std::move(callable));
    if (std::string_view(name) != "aten_backward::permute")
      jit::declareEquivalentToMlir(kernel);
    kernels.push_back({name, DispatchKey::CompositeExplicitAutograd, std::move(kernel)});
  };
  // The engine sums a gradient to its input's shape and converts it to its
  // dtype and device: these formulas pass the gradient on as it is.
  auto identity = [](const Tensor &grad) { return grad; };
  for (const char *name :
       {"aten_backward::add.Tensor_self", "aten_backward::add.Scalar_self",
        "aten_backward::sub.Tensor_self", "aten_backward::sub.Scalar_self",
        "aten_backward::linear.bias", "aten_backward::expand", "aten_backward::alias",
        "aten_backward::clone", "aten_backward::_to_copy"})
    add(name, identity);
  auto backToShape = [](const Tensor &grad, const Tensor &self) {
    return grad.reshape(self.sizes());
  };
  add("aten_backward::view", backToShape);
  add("aten_backward::reshape", backToShape);
  add("aten_backward::squeeze.dim", backToShape);
  add("aten_backward::t", [](const Tensor &grad) { return grad.t(); });
  add("aten_backward::transpose.int",
      [](const Tensor &grad, int64_t dim0, int64_t dim1) { return grad.transpose(dim0, dim1); });
  add("aten_backward::permute", [](const Tensor &grad, Sizes dims) {
    DimVector inverse(dims.size(), 0);
    for (size_t i = 0; i < dims.size(); ++i)
      inverse[wrapDim(dims[i], static_cast<int64_t>(dims.size()))] = static_cast<int64_t>(i);
    return grad.permute(inverse);
  });
  add("aten_backward::unsqueeze",
      [](const Tensor &grad, int64_t dim) { return grad.squeeze(dim); });
}
