//===- BackwardKernels.cpp - PyTorch's backward ops as native kernels -----===//
//
// aten::native_layer_norm_backward, native_group_norm_backward,
// convolution_backward, embedding_dense_backward and
// max_pool2d_with_indices_backward (aten-backward.opal.mlir): PyTorch's
// arguments mapped onto the derivative formulas of the forward ops
// (aten_backward::*), called through the dispatcher, so each runs the
// formulas' compiled kernels. A gradient whose output_mask entry is false is
// None, as in PyTorch.
//
//===----------------------------------------------------------------------===//

#include "NativeKernels.h"

#include "opal/Support/Exceptions.h"

using namespace opal;
using namespace opal::library_detail;

namespace {

using Sizes = std::vector<int64_t>;
using Mask = std::vector<bool>;
using Three = std::tuple<Tensor, Tensor, Tensor>;

bool wants(const Mask &mask, size_t i) { return i < mask.size() && mask[i]; }

IValue optional(const std::optional<Tensor> &t) { return t ? IValue(*t) : IValue(); }

Three layerNormBackward(const Tensor &grad, const Tensor &input, Sizes normalizedShape,
                        const Tensor &mean, const Tensor &rstd,
                        const std::optional<Tensor> &weight, const std::optional<Tensor> &bias,
                        Mask mask) {
  Stack results = callOp("aten_backward::native_layer_norm", "",
                       {IValue(grad), IValue(input), IValue(normalizedShape), optional(weight),
                        IValue(mean), IValue(rstd)});
  // The formula gives weight's and bias's gradients at the input's shape
  // (the engine sums them): sum the leading dims here.
  Sizes leading;
  for (int64_t d = 0; d < input.dim() - static_cast<int64_t>(normalizedShape.size()); ++d)
    leading.push_back(d);
  auto toParameter = [&](Tensor g) {
    if (leading.empty())
      return g;
    return callTensor("aten::sum", "dim_IntList", {IValue(g), IValue(leading), IValue(false), IValue()});
  };
  Tensor gi = wants(mask, 0) ? std::move(results[0]).toTensor() : Tensor();
  Tensor gw = wants(mask, 1) && weight ? toParameter(std::move(results[1]).toTensor()) : Tensor();
  Tensor gb = wants(mask, 2) && bias ? toParameter(std::move(results[2]).toTensor()) : Tensor();
  return {gi, gw, gb};
}

constexpr const char *kGroupNormBackward = "aten::native_group_norm_backward";

Three groupNormBackward(const Tensor &grad, const Tensor &input, const Tensor &mean,
                        const Tensor &rstd, const std::optional<Tensor> &weight, int64_t n,
                        int64_t channels, int64_t hxw, int64_t group, Mask mask) {
  if (!wants(mask, 0) && !wants(mask, 1) && !wants(mask, 2))
    return {};
  // PyTorch's checks of the sizes the kernel reads (the formula reshapes
  // by them).
  auto expect = [](bool holds, const char *what) {
    if (!holds)
      throw OpalError(std::string(kGroupNormBackward) + ": Expected " + what +
                      " to be true, but got false.");
  };
  expect(grad.numel() == n * channels * hxw, "dY.numel() == N * C * HxW");
  expect(input.numel() == n * channels * hxw, "X.numel() == N * C * HxW");
  expect(mean.numel() == n * group, "mean.numel() == N * group");
  expect(rstd.numel() == n * group, "rstd.numel() == N * group");
  expect(!weight || weight->numel() == channels, "!gamma.defined() || gamma.numel() == C");
  // (PyTorch 1.13 reads past the tensors when group does not divide C.)
  expect(group > 0 && channels % group == 0, "group > 0 && C % group == 0");
  for (const Tensor *t : {&grad, &mean, &rstd})
    if (t->dtype() != input.dtype())
      throw OpalError(std::string(kGroupNormBackward) + ": expected scalar type " +
                      scalarTypeCppName(input.dtype()) + " but found " +
                      scalarTypeCppName(t->dtype()));
  Stack results = callOp("aten_backward::native_group_norm", "",
                         {IValue(grad), IValue(input), optional(weight), IValue(n),
                          IValue(channels), IValue(hxw), IValue(group), IValue(mean),
                          IValue(rstd)});
  Tensor gi = wants(mask, 0) ? std::move(results[0]).toTensor() : Tensor();
  Tensor gw = wants(mask, 1) ? std::move(results[1]).toTensor() : Tensor();
  Tensor gb = wants(mask, 2) ? std::move(results[2]).toTensor() : Tensor();
  return {gi, gw, gb};
}

Three convolutionBackward(const Tensor &grad, const Tensor &input, const Tensor &weight,
                          std::optional<Sizes> biasSizes, Sizes stride, Sizes padding,
                          Sizes dilation, bool transposed, Sizes outputPadding, int64_t groups,
                          Mask mask) {
  Stack args{IValue(grad),    IValue(input),      IValue(weight),
             IValue(stride),  IValue(padding),    IValue(dilation),
             IValue(transposed), IValue(outputPadding), IValue(groups)};
  Tensor gi = wants(mask, 0) ? callTensor("aten_backward::convolution", "input", args) : Tensor();
  Tensor gw = wants(mask, 1) ? callTensor("aten_backward::convolution", "weight", args) : Tensor();
  Tensor gb = wants(mask, 2) && biasSizes ? callTensor("aten_backward::convolution", "bias", {IValue(grad)})
                                          : Tensor();
  return {gi, gw, gb};
}

Tensor embeddingDenseBackward(const Tensor &grad, const Tensor &indices, int64_t numWeights,
                              int64_t paddingIdx, bool scaleGradByFreq) {
  // The formula reads only the weight's shape and dtype.
  Tensor like = Tensor::empty({numWeights, grad.size(-1)}, grad.dtype(), grad.device());
  return callTensor("aten_backward::embedding", "",
             {IValue(grad), IValue(like), IValue(indices), IValue(paddingIdx),
              IValue(scaleGradByFreq)});
}

Tensor maxPool2dWithIndicesBackward(const Tensor &grad, const Tensor &self, Sizes, Sizes, Sizes,
                                    Sizes, bool, const Tensor &indices) {
  return callTensor("aten_backward::max_pool2d_with_indices", "",
             {IValue(grad), IValue(self), IValue(indices)});
}

} // namespace

void opal::library_detail::appendBackwardKernels(std::vector<NativeKernel> &kernels) {
  auto add = [&](const char *name, auto callable) {
    kernels.push_back({name, DispatchKey::CompositeExplicitAutograd,
                       KernelFunction::makeFromUnboxedCallable(callable)});
  };
  add("aten::native_layer_norm_backward", layerNormBackward);
  add(kGroupNormBackward, groupNormBackward);
  add("aten::convolution_backward", convolutionBackward);
  add("aten::embedding_dense_backward", embeddingDenseBackward);
  add("aten::max_pool2d_with_indices_backward", maxPool2dWithIndicesBackward);
}
