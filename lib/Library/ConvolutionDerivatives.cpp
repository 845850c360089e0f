//===- ConvolutionDerivatives.cpp - The gradients of a convolution --------===//
//
// aten_backward::convolution.{input,weight,bias} (derivatives.opal.mlir) as
// native kernels that call aten::convolution and friends through the
// dispatcher, so each product is one of the JIT's compiled convolutions:
//
//   input:  the transposed convolution of the gradient with the weight
//           (for a transposed forward, the plain one), its output padding
//           chosen so the result has the input's sizes;
//   weight: per group, a convolution of the input (channels as the batch)
//           with the gradient (channels as the batch), stride and dilation
//           swapped, cut to the kernel's sizes;
//   bias:   the gradient summed over every dim but the channels.
//
//===----------------------------------------------------------------------===//

#include "NativeKernels.h"

#include "opal/Support/Exceptions.h"

using namespace opal;
using namespace opal::library_detail;

namespace {

using Sizes = std::vector<int64_t>;

Tensor convolution(const Tensor &input, const Tensor &weight, const Sizes &stride,
                   const Sizes &padding, const Sizes &dilation, bool transposed,
                   const Sizes &outputPadding, int64_t groups) {
  return callTensor("aten::convolution", "",
              {IValue(input), IValue(weight), IValue(), IValue(stride), IValue(padding),
               IValue(dilation), IValue(transposed), IValue(outputPadding), IValue(groups)});
}

/// A parameter list of the spatial rank (PyTorch expands one value).
Sizes expand(const Sizes &values, size_t rank, const char *what) {
  if (values.size() == rank)
    return values;
  if (values.size() == 1)
    return Sizes(rank, values[0]);
  throw OpalError(std::string("convolution backward: expected ") + what + " to have " +
                  std::to_string(rank) + " values, got " + std::to_string(values.size()));
}

Tensor inputGradient(const Tensor &grad, const Tensor &input, const Tensor &weight,
                     Sizes stride, Sizes padding, Sizes dilation, bool transposed,
                     Sizes outputPadding, int64_t groups) {
  size_t rank = static_cast<size_t>(input.dim() - 2);
  stride = expand(stride, rank, "stride");
  padding = expand(padding, rank, "padding");
  dilation = expand(dilation, rank, "dilation");
  if (transposed)
    return convolution(grad, weight, stride, padding, dilation, false, Sizes(rank, 0), groups);
  // The transposed convolution's output padding that gives back the
  // input's sizes (the forward dropped what its stride did not reach).
  Sizes extra(rank);
  for (size_t d = 0; d < rank; ++d) {
    int64_t k = weight.size(static_cast<int64_t>(d) + 2);
    int64_t out = grad.size(static_cast<int64_t>(d) + 2);
    extra[d] = input.size(static_cast<int64_t>(d) + 2) -
               ((out - 1) * stride[d] - 2 * padding[d] + dilation[d] * (k - 1) + 1);
  }
  return convolution(grad, weight, stride, padding, dilation, true, extra, groups);
}

Tensor weightGradient(const Tensor &grad, const Tensor &input, const Tensor &weight,
                      Sizes stride, Sizes padding, Sizes dilation, bool transposed,
                      const Sizes &, int64_t groups) {
  size_t rank = static_cast<size_t>(input.dim() - 2);
  stride = expand(stride, rank, "stride");
  padding = expand(padding, rank, "padding");
  dilation = expand(dilation, rank, "dilation");
  // Channels as the batch: a plain forward correlates the input with the
  // gradient, a transposed one the gradient with the input.
  const Tensor &slider = transposed ? grad : input;
  const Tensor &filter = transposed ? input : grad;
  int64_t sliderGroup = slider.size(1) / groups, filterGroup = filter.size(1) / groups;
  std::vector<Tensor> parts;
  for (int64_t g = 0; g < groups; ++g) {
    Tensor s = slider.slice(1, g * sliderGroup, (g + 1) * sliderGroup).transpose(0, 1);
    Tensor f = filter.slice(1, g * filterGroup, (g + 1) * filterGroup).transpose(0, 1);
    Tensor product = convolution(s.contiguous(), f.contiguous(), dilation, padding, stride,
                                 false, Sizes(rank, 0), 1)
                         .transpose(0, 1);
    // The product covers at least the kernel; its edge beyond is dropped.
    for (size_t d = 0; d < rank; ++d)
      product = product.slice(static_cast<int64_t>(d) + 2, 0,
                              weight.size(static_cast<int64_t>(d) + 2));
    parts.push_back(product);
  }
  Tensor result = parts.size() == 1
                      ? parts[0]
                      : callTensor("aten::cat", "", {IValue(parts), IValue(int64_t(0))});
  return result.contiguous();
}

Tensor biasGradient(const Tensor &grad) {
  Sizes dims{0};
  for (int64_t d = 2; d < grad.dim(); ++d)
    dims.push_back(d);
  return callTensor("aten::sum", "dim_IntList", {IValue(grad), IValue(dims), IValue(false), IValue()});
}

} // namespace

void opal::library_detail::appendConvolutionDerivativeKernels(std::vector<NativeKernel> &kernels) {
  kernels.push_back({"aten_backward::convolution.input", DispatchKey::CompositeExplicitAutograd,
                     KernelFunction::makeFromUnboxedCallable(inputGradient)});
  kernels.push_back({"aten_backward::convolution.weight", DispatchKey::CompositeExplicitAutograd,
                     KernelFunction::makeFromUnboxedCallable(weightGradient)});
  kernels.push_back({"aten_backward::convolution.bias", DispatchKey::CompositeExplicitAutograd,
                     KernelFunction::makeFromUnboxedCallable(biasGradient)});
}
