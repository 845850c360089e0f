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
  // (PyTorch reads past the tensors when group does not divide C.)
  expect(group > 0 && channels % group == 0, "group > 0 && C % group == 0");
  // PyTorch 2's checks and words: dY against X, then the statistics.
  if (grad.dtype() != input.dtype())
    throw OpalError(std::string(kGroupNormBackward) +
                    ": Expected scalar types of X and dY are same.");
  for (const Tensor *t : {&mean, &rstd})
    if (t->dtype() != input.dtype())
      throw OpalError(std::string(kGroupNormBackward) +
                      ": mixed dtype (CPU): expect parameter to have scalar type of " +
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
  Tensor gb = wants(mask, 2) && biasSizes
                  ? callTensor("aten_backward::convolution", "bias",
                               {IValue(grad), IValue(input), IValue(weight), IValue(transposed)})
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

/// PyTorch's pooling_output_shape, without overflow: an extent past
/// int64 (dilation 2^62) gives an output size below 1, which is refused.
int64_t poolOutputSize(int64_t input, int64_t kernel, int64_t pad, int64_t stride,
                       int64_t dilation, bool ceilMode) {
  if (stride == 0)
    throw OpalError("stride should not be zero");
  if (pad < 0)
    throw OpalError("pad must be non-negative, but got pad: " + std::to_string(pad));
  if (pad > kernel / 2)
    throw OpalError("pad should be at most half of kernel size, but got pad=" +
                    std::to_string(pad) + " and kernel_size=" + std::to_string(kernel));
  __int128 reach = static_cast<__int128>(dilation) * (kernel - 1);
  __int128 span = static_cast<__int128>(input) + 2 * static_cast<__int128>(pad) - reach - 1 +
                  (ceilMode ? static_cast<__int128>(stride) - 1 : 0);
  __int128 quotient = span / stride;
  if (span % stride != 0 && ((span < 0) != (stride < 0)))
    --quotient; // rounded down, as div_rtn
  __int128 output = quotient + 1;
  if (ceilMode && (output - 1) * stride >= static_cast<__int128>(input) + pad)
    --output;
  return output < 0 ? -1 : output > INT64_MAX ? INT64_MAX : static_cast<int64_t>(output);
}

/// PyTorch's check_dim_size.
void checkDimSize(const Tensor &t, int64_t dims, int64_t dim, int64_t size) {
  if (t.dim() != dims || t.size(dim) != size)
    throw OpalError("Expected a tensor of dimension " + std::to_string(dims) +
                    " and tensor.size[" + std::to_string(dim) + "] == " + std::to_string(size) +
                    " but got: dimension " + std::to_string(t.dim()) + " and tensor.size[" +
                    std::to_string(dim) + "] = " +
                    (dim < t.dim() ? std::to_string(t.size(dim)) : std::string("(none)")));
}

/// The checks of PyTorch's max_pool2d_with_indices_backward: the pooling
/// arguments, then the gradient's and the indices' sizes against the
/// output the forward gives `self` (the formula reads the gradient at the
/// indices, which must be the forward's).
void checkMaxPool2dBackward(const Tensor &grad, const Tensor &self, const Sizes &kernelSize,
                            const Sizes &stride, const Sizes &padding, const Sizes &dilation,
                            bool ceilMode, const Tensor &indices) {
  if (kernelSize.size() != 1 && kernelSize.size() != 2)
    throw OpalError("max_pool2d: kernel_size must either be a single int, or a tuple of two ints");
  if (!stride.empty() && stride.size() != 1 && stride.size() != 2)
    throw OpalError(
        "max_pool2d: stride must either be omitted, a single int, or a tuple of two ints");
  if (padding.size() != 1 && padding.size() != 2)
    throw OpalError("max_pool2d: padding must either be a single int, or a tuple of two ints");
  if (dilation.size() != 1 && dilation.size() != 2)
    throw OpalError("max_pool2d: dilation must be either a single int, or a tuple of two ints");
  auto second = [](const Sizes &list) { return list.size() == 1 ? list[0] : list[1]; };
  int64_t kH = kernelSize[0], kW = second(kernelSize);
  int64_t dH = stride.empty() ? kH : stride[0], dW = stride.empty() ? kW : second(stride);
  int64_t padH = padding[0], padW = second(padding);
  int64_t dilationH = dilation[0], dilationW = second(dilation);
  int64_t dims = self.dim();
  if (dims != 3 && dims != 4)
    throw OpalError("non-empty 3D or 4D (batch mode) tensor expected for input");
  // PyTorch's order: the output sizes (which refuse a zero stride and too
  // much padding), then the shape checks.
  int64_t planes = self.size(-3), inputH = self.size(-2), inputW = self.size(-1);
  int64_t outputH = poolOutputSize(inputH, kH, padH, dH, dilationH, ceilMode);
  int64_t outputW = poolOutputSize(inputW, kW, padW, dW, dilationW, ceilMode);
  if (kH <= 0 || kW <= 0)
    throw OpalError("kernel size should be greater than zero, but got kH: " +
                    std::to_string(kH) + " kW: " + std::to_string(kW));
  if (dH <= 0 || dW <= 0)
    throw OpalError("stride should be greater than zero, but got dH: " + std::to_string(dH) +
                    " dW: " + std::to_string(dW));
  if (dilationH <= 0 || dilationW <= 0)
    throw OpalError("dilation should be greater than zero, but got dilationH: " +
                    std::to_string(dilationH) + " dilationW: " + std::to_string(dilationW));
  if (outputH < 1 || outputW < 1)
    throw OpalError("Given input size: (" + std::to_string(planes) + "x" +
                    std::to_string(inputH) + "x" + std::to_string(inputW) +
                    "). Calculated output size: (" + std::to_string(planes) + "x" +
                    std::to_string(outputH) + "x" + std::to_string(outputW) +
                    "). Output size is too small");
  for (const Tensor *t : {&grad, &indices}) {
    checkDimSize(*t, dims, dims - 3, planes);
    checkDimSize(*t, dims, dims - 2, outputH);
    checkDimSize(*t, dims, dims - 1, outputW);
  }
  if (dims == 4)
    for (const Tensor *t : {&grad, &indices})
      checkDimSize(*t, dims, 0, self.size(0));
  if (indices.dtype() != ScalarType::Long)
    throw OpalError(std::string("expected scalar type Long but found ") +
                    scalarTypeCppName(indices.dtype()));
}

Tensor maxPool2dWithIndicesBackward(const Tensor &grad, const Tensor &self, Sizes kernelSize,
                                    Sizes stride, Sizes padding, Sizes dilation, bool ceilMode,
                                    const Tensor &indices) {
  checkMaxPool2dBackward(grad, self, kernelSize, stride, padding, dilation, ceilMode, indices);
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
