//===- ConvolutionDerivatives.cpp - The gradients of a convolution --------===//
//
// aten_backward::convolution.{input,weight,bias} (derivatives.opal.mlir) as
// native kernels that call aten::convolution and friends through the
// dispatcher, so each product is one of the JIT's compiled convolutions:
//
//   input:  with stride 1, the plain convolution of the gradient with the
//           flipped kernels (channels swapped); of a 2-d convolution of one
//           group that is strided or whose planes are small, the columns
//           each window received (one product) summed into the image
//           (col2im); otherwise the transposed convolution of the gradient
//           with the weight (for a transposed forward, the plain one), its
//           output padding chosen so the result has the input's sizes;
//   weight: one batched matrix product per group of the gradient and the
//           windows its kernel read ("im2col" of the padded input, or of
//           the gradient for a transposed forward);
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

/// The input's gradient of a plain convolution with stride 1 as the plain
/// convolution of the gradient with the weight's flipped kernels, each
/// group's channels swapped; padding d*(k-1)-p (at least 0) gives back the
/// input's sizes.
Tensor flippedConvolution(const Tensor &grad, const Tensor &weight, const Sizes &padding,
                          const Sizes &dilation, int64_t groups) {
  size_t rank = static_cast<size_t>(weight.dim() - 2);
  int64_t filters = weight.size(0) / groups, channels = weight.size(1);
  Sizes grouped{groups, filters, channels}, swapped{groups * channels, filters}, flipDims;
  Sizes pad(rank);
  for (size_t d = 0; d < rank; ++d) {
    int64_t k = weight.size(static_cast<int64_t>(d) + 2);
    grouped.push_back(k);
    swapped.push_back(k);
    flipDims.push_back(static_cast<int64_t>(d) + 2);
    pad[d] = dilation[d] * (k - 1) - padding[d];
  }
  Tensor kernels = weight.reshape(grouped).transpose(1, 2).reshape(swapped);
  kernels = callTensor("aten::flip", "", {IValue(kernels), IValue(flipDims)});
  return convolution(grad, kernels, Sizes(rank, 1), pad, dilation, false, Sizes(rank, 0),
                     groups);
}

/// The input's gradient of a plain 2-d convolution of one group as the
/// columns each window received, W^T x gradient ([C*kh*kw, N*L]: one
/// product), summed back into the image (col2im). One operand of the
/// product is read transposed, which the product copies first: the weight
/// ([F, C*kh*kw]), or, where it has fewer elements (small planes: 512
/// filters over 8 x 2 x 2 positions against 512 x 3 x 3 cells), the
/// gradient, the product then giving the columns transposed,
/// gradient^T x W ([N*L, C*kh*kw]).
Tensor columnsGradient(const Tensor &grad, const Tensor &input, const Tensor &weight,
                       const Sizes &stride, const Sizes &padding, const Sizes &dilation) {
  int64_t batch = grad.size(0), filters = weight.size(0);
  int64_t cells = weight.numel() / filters, positions = grad.size(2) * grad.size(3);
  Tensor columns;
  if (batch * positions < cells) {
    Tensor gradient = grad.reshape({batch, filters, positions}).transpose(1, 2)
                          .reshape({batch * positions, filters});
    columns = callTensor("aten::mm", "", {IValue(gradient), IValue(weight.reshape({filters, cells}))});
    columns = columns.reshape({batch, positions, cells}).transpose(1, 2);
  } else {
    Tensor kernels = weight.reshape({filters, cells}).t();
    Tensor gradient = grad.reshape({batch, filters, positions}).transpose(0, 1)
                          .reshape({filters, batch * positions});
    columns = callTensor("aten::mm", "", {IValue(kernels), IValue(gradient)});
    columns = columns.reshape({cells, batch, positions}).transpose(0, 1);
  }
  Sizes size{input.size(2), input.size(3)}, kernel{weight.size(2), weight.size(3)};
  return callTensor("aten::col2im", "", {IValue(columns), IValue(size), IValue(kernel),
                                         IValue(dilation), IValue(padding), IValue(stride)});
}

/// Whether the flipped convolution would compute far more positions than
/// the input has: its padded planes more than 1.4 times the input's (small
/// planes: 2x2 padded to 4x4 is four times the work; 8x8 padded to 10x10,
/// 1.56 times, runs faster as columns summed by col2im).
bool wastefulFlip(const Tensor &grad, const Tensor &weight, const Sizes &padding,
                  const Sizes &dilation) {
  int64_t padded = 1, plane = 1;
  for (int64_t d = 2; d < grad.dim(); ++d) {
    int64_t extra = dilation[d - 2] * (weight.size(d) - 1) - padding[d - 2];
    padded *= grad.size(d) + 2 * extra;
    plane *= grad.size(d);
  }
  return padded * 10 > 14 * plane;
}

/// Whether a forward convolution was PyTorch's empty one: not transposed,
/// an input of 0 channels (so a weight of 0 channels per group), whose
/// output has 0 channels; every gradient is then empty or zero.
bool emptyConvolution(const Tensor &input, const Tensor &weight, bool transposed) {
  return !transposed && input.dim() > 1 && input.size(1) == 0 && weight.dim() > 1 &&
         weight.size(1) == 0;
}

Tensor inputGradient(const Tensor &grad, const Tensor &input, const Tensor &weight,
                     Sizes stride, Sizes padding, Sizes dilation, bool transposed,
                     Sizes outputPadding, int64_t groups) {
  if (emptyConvolution(input, weight, transposed))
    return Tensor::empty(input.sizes(), input.dtype(), input.device()); // (no elements)
  size_t rank = static_cast<size_t>(input.dim() - 2);
  stride = expand(stride, rank, "stride");
  padding = expand(padding, rank, "padding");
  dilation = expand(dilation, rank, "dilation");
  if (transposed)
    return convolution(grad, weight, stride, padding, dilation, false, Sizes(rank, 0), groups);
  // The flipped convolution needs stride 1 and a padding of at least 0
  // (d*(k-1) - p) on each side.
  bool flippable = true;
  for (size_t d = 0; d < rank; ++d)
    flippable = flippable && stride[d] == 1 &&
                dilation[d] * (weight.size(static_cast<int64_t>(d) + 2) - 1) >= padding[d];
  if (rank == 2 && groups == 1 &&
      (!flippable || wastefulFlip(grad, weight, padding, dilation)))
    return columnsGradient(grad, input, weight, stride, padding, dilation);
  if (flippable)
    return flippedConvolution(grad, weight, padding, dilation, groups);
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

/// `slider` [N, C, spatial...] padded by `padding` on both sides of each
/// spatial dim (dense), and its strides in `strides`.
Tensor paddedSlider(const Tensor &slider, const Sizes &padding, Sizes &strides) {
  Sizes pad;
  for (size_t d = padding.size(); d-- > 0;) {
    pad.push_back(padding[d]);
    pad.push_back(padding[d]);
  }
  Tensor padded = callTensor("aten::constant_pad_nd", "",
                             {IValue(slider), IValue(pad), IValue(0.0)})
                      .contiguous();
  strides.assign(static_cast<size_t>(padded.dim()), 0);
  int64_t step = 1;
  for (int64_t d = padded.dim(); d-- > 0;) {
    strides[d] = step;
    step *= padded.size(d);
  }
  return padded;
}

/// The windows of `slider` (padded) that a convolution reads for each
/// position of a `positions`-sized spatial grid, as [G, N*prod(positions),
/// Cg*prod(kernel)] ("im2col"): a strided view of the padded slider, copied
/// once.
Tensor windows(const Tensor &slider, const Sizes &positions, const Sizes &kernel,
               const Sizes &stride, const Sizes &padding, const Sizes &dilation,
               int64_t groups) {
  size_t rank = positions.size();
  Sizes strides;
  Tensor padded = paddedSlider(slider, padding, strides);
  int64_t batch = padded.size(0), channels = padded.size(1) / groups;
  // The view [N, positions..., G, Cg, kernel...].
  Sizes sizes{batch}, steps{strides[0]};
  for (size_t d = 0; d < rank; ++d) {
    sizes.push_back(positions[d]);
    steps.push_back(stride[d] * strides[d + 2]);
  }
  sizes.push_back(groups);
  steps.push_back(channels * strides[1]);
  sizes.push_back(channels);
  steps.push_back(strides[1]);
  int64_t cells = channels, count = batch;
  for (size_t d = 0; d < rank; ++d) {
    sizes.push_back(kernel[d]);
    steps.push_back(dilation[d] * strides[d + 2]);
    cells *= kernel[d];
    count *= positions[d];
  }
  Tensor view = padded.asStrided(DimVector(sizes), DimVector(steps), padded.storageOffset());
  return view.reshape({count, groups, cells}).transpose(0, 1).contiguous();
}

/// The windows of `slider` (padded) that a convolution of one group reads,
/// as [C*prod(kernel), N*prod(positions)]: row (c, k...) is the input of
/// kernel cell k of channel c at every sample and position. Copied from a
/// strided view of the padded slider by opal's kernel for aten::clone,
/// along the positions (each row a shifted plane, contiguous in both);
/// windows() rows run along the kernel's cells, three elements long for a
/// 3x3, which the runtime's copy took a quarter of a ResNet layer's
/// weight gradient over.
Tensor cellsByPosition(const Tensor &slider, const Sizes &positions, const Sizes &kernel,
                       const Sizes &stride, const Sizes &padding, const Sizes &dilation) {
  size_t rank = positions.size();
  Sizes strides;
  Tensor padded = paddedSlider(slider, padding, strides);
  // The view [C, kernel..., N, positions...].
  Sizes sizes{padded.size(1)}, steps{strides[1]};
  int64_t cells = padded.size(1), count = padded.size(0);
  for (size_t d = 0; d < rank; ++d) {
    sizes.push_back(kernel[d]);
    steps.push_back(dilation[d] * strides[d + 2]);
    cells *= kernel[d];
  }
  sizes.push_back(padded.size(0));
  steps.push_back(strides[0]);
  for (size_t d = 0; d < rank; ++d) {
    sizes.push_back(positions[d]);
    steps.push_back(stride[d] * strides[d + 2]);
    count *= positions[d];
  }
  Tensor view = padded.asStrided(DimVector(sizes), DimVector(steps), padded.storageOffset());
  Tensor copied = callTensor("aten::clone", "", {IValue(view), IValue()});
  return copied.reshape({cells, count});
}

/// A [N, G*Cg, spatial...] tensor as [G, Cg, N*prod(spatial)].
Tensor channelsByGroup(const Tensor &t, int64_t groups) {
  int64_t perGroup = t.size(1) / groups, plane = 1;
  for (int64_t d = 2; d < t.dim(); ++d)
    plane *= t.size(d);
  return t.reshape({t.size(0), groups, perGroup, plane})
      .permute({1, 2, 0, 3})
      .reshape({groups, perGroup, t.size(0) * plane});
}

Tensor weightGradient(const Tensor &grad, const Tensor &input, const Tensor &weight,
                      Sizes stride, Sizes padding, Sizes dilation, bool transposed,
                      const Sizes &, int64_t groups) {
  if (emptyConvolution(input, weight, transposed))
    return Tensor::empty(weight.sizes(), weight.dtype(), weight.device()); // (no elements)
  size_t rank = static_cast<size_t>(input.dim() - 2);
  stride = expand(stride, rank, "stride");
  padding = expand(padding, rank, "padding");
  dilation = expand(dilation, rank, "dilation");
  // Each weight element sums, over the batch and the positions, a filter
  // element times the slider's element its window reads there: a plain
  // forward slides its kernel over the input at the gradient's positions,
  // a transposed one over the gradient at the input's. One batched product
  // per group: [G, Ff, N*P] x [G, N*P, Cs*prod(K)].
  const Tensor &slider = transposed ? grad : input;
  const Tensor &filter = transposed ? input : grad;
  Sizes positions, kernel;
  for (size_t d = 0; d < rank; ++d) {
    positions.push_back(filter.size(static_cast<int64_t>(d) + 2));
    kernel.push_back(weight.size(static_cast<int64_t>(d) + 2));
  }
  if (!transposed && groups == 1) {
    // [F, N*P] x [C*K, N*P]^T: linear's product, which reads the windows
    // as they are (packed as it goes).
    int64_t batch = filter.size(0), filters = filter.size(1), count = batch;
    for (int64_t p : positions)
      count *= p;
    Tensor gradient = filter.reshape({batch, filters, count / std::max<int64_t>(batch, 1)})
                          .transpose(0, 1)
                          .reshape({filters, count});
    Tensor cells = cellsByPosition(slider, positions, kernel, stride, padding, dilation);
    Tensor product =
        callTensor("aten::linear", "", {IValue(gradient), IValue(cells), IValue()});
    Sizes shape{weight.size(0), weight.size(1)};
    shape.insert(shape.end(), kernel.begin(), kernel.end());
    return product.reshape(shape);
  }
  Tensor columns = windows(slider, positions, kernel, stride, padding, dilation, groups);
  Tensor product = callTensor("aten::bmm", "", {IValue(channelsByGroup(filter, groups)),
                                                IValue(columns)});
  Sizes shape{weight.size(0), weight.size(1)};
  shape.insert(shape.end(), kernel.begin(), kernel.end());
  return product.reshape(shape);
}

/// The gradient summed over every dim but the channels; for PyTorch's empty
/// convolution (whose output has 0 channels), zeros for the weight's
/// filters: the weight, of 0 channels, summed over all but its first dim.
Tensor biasGradient(const Tensor &grad, const Tensor &input, const Tensor &weight,
                    bool transposed) {
  bool empty = emptyConvolution(input, weight, transposed);
  const Tensor &summed = empty ? weight : grad;
  Sizes dims{empty ? 1 : 0};
  for (int64_t d = 2; d < summed.dim(); ++d)
    dims.push_back(d);
  return callTensor("aten::sum", "dim_IntList",
                    {IValue(summed), IValue(dims), IValue(false), IValue()});
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
