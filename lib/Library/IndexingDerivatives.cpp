//===- IndexingDerivatives.cpp - Gradients of views and scatters ----------===//
//
// The derivative formulas (derivatives.opal.mlir) of as_strided, diagonal,
// index_put, masked_scatter, scatter_reduce and _embedding_bag as native
// kernels: each computes the indices its gradient moves through (on the
// host where they come from sizes, strides or offsets) and calls aten ops
// through the dispatcher for the arithmetic, so the values move in
// compiled kernels on the gradient's device. They follow PyTorch 1.13's
// formulas (as_strided_backward, scatter_reduce_backward,
// _embedding_bag_backward).
//
//===----------------------------------------------------------------------===//

#include "NativeKernels.h"

#include "opal/Support/Exceptions.h"

#include <algorithm>
#include <map>

using namespace opal;
using namespace opal::library_detail;

namespace {

using Sizes = std::vector<int64_t>;
using Indices = std::vector<std::optional<Tensor>>;

Tensor zerosLike(IntArrayRef sizes, const Tensor &like) {
  Tensor zeros = Tensor::empty(sizes, like.dtype(), like.device());
  zeros.fill(0.0);
  return zeros;
}

Tensor longTensor(const Sizes &values, IntArrayRef sizes, Device device) {
  Tensor t = Tensor::empty(sizes, ScalarType::Long);
  std::copy(values.begin(), values.end(), t.data<int64_t>());
  return t.to(device);
}

Tensor doubleTensor(const std::vector<double> &values, IntArrayRef sizes, const Tensor &like) {
  Tensor t = Tensor::empty(sizes, ScalarType::Double);
  std::copy(values.begin(), values.end(), t.data<double>());
  return t.to(like.dtype()).to(like.device());
}

Sizes hostLongs(const Tensor &t) {
  Tensor host = hostContiguous(t).to(ScalarType::Long);
  const int64_t *data = host.data<int64_t>();
  return Sizes(data, data + host.numel());
}

Tensor mul(const Tensor &a, const Tensor &b) {
  return callTensor("aten::mul", "Tensor", {IValue(a), IValue(b)});
}
Tensor div(const Tensor &a, const Tensor &b) {
  return callTensor("aten::div", "Tensor", {IValue(a), IValue(b)});
}
Tensor gather(const Tensor &t, int64_t dim, const Tensor &index) {
  return callTensor("aten::gather", "", {IValue(t), IValue(dim), IValue(index), IValue(false)});
}
Tensor scatterAdd(const Tensor &t, int64_t dim, const Tensor &index, const Tensor &src) {
  return callTensor("aten::scatter_add", "", {IValue(t), IValue(dim), IValue(index), IValue(src)});
}
Tensor equal(const Tensor &a, const Tensor &b) {
  return callTensor("aten::eq", "Tensor", {IValue(a), IValue(b)});
}
Tensor index(const Tensor &t, const Indices &indices) {
  return callTensor("aten::index", "Tensor", {IValue(t), IValue(indices)});
}
Tensor accumulate(Tensor into, const Indices &indices, const Tensor &values) {
  return callTensor("aten::index_put", "",
                    {IValue(std::move(into)), IValue(indices), IValue(values), IValue(true)});
}

/// The storage positions of every element of a geometry, in row-major order.
Sizes positions(IntArrayRef sizes, IntArrayRef strides, int64_t start) {
  int64_t count = 1;
  for (int64_t s : sizes)
    count *= s;
  Sizes out;
  out.reserve(static_cast<size_t>(count));
  Sizes at(sizes.size(), 0);
  for (int64_t i = 0; i < count; ++i) {
    int64_t p = start;
    for (size_t d = 0; d < sizes.size(); ++d)
      p += at[d] * strides[d];
    out.push_back(p);
    for (size_t d = sizes.size(); d-- > 0;) {
      if (++at[d] < sizes[d])
        break;
      at[d] = 0;
    }
  }
  return out;
}

// as_strided: the gradient added into the storage the view covers (at each
// output element's position), then read back at the input's positions; an
// input whose elements share positions divides each by how many share it.
Tensor asStridedBackward(const Tensor &grad, const Tensor &self, Sizes size, Sizes stride,
                         std::optional<int64_t> storageOffset) {
  Sizes in = positions(self.sizes(), self.strides(), self.storageOffset());
  Sizes out = positions(size, stride, storageOffset.value_or(self.storageOffset()));
  if (in.empty() || out.empty())
    return zerosLike(self.sizes(), grad);
  int64_t low = std::min(*std::min_element(in.begin(), in.end()),
                         *std::min_element(out.begin(), out.end()));
  int64_t high = std::max(*std::max_element(in.begin(), in.end()),
                          *std::max_element(out.begin(), out.end()));
  for (int64_t &p : in)
    p -= low;
  for (int64_t &p : out)
    p -= low;
  int64_t n = static_cast<int64_t>(out.size());
  Tensor storage = accumulate(zerosLike({high - low + 1}, grad),
                              {longTensor(out, {n}, grad.device())}, grad.contiguous().reshape({-1}));
  int64_t m = static_cast<int64_t>(in.size());
  Tensor result = index(storage, {longTensor(in, {m}, grad.device())}).reshape(self.sizes());
  std::map<int64_t, int64_t> sharing;
  for (int64_t p : in)
    ++sharing[p];
  if (static_cast<int64_t>(sharing.size()) == m)
    return result;
  std::vector<double> counts;
  for (int64_t p : in)
    counts.push_back(static_cast<double>(sharing[p]));
  return div(result, doubleTensor(counts, self.sizes(), grad));
}

// diagonal: the gradient written onto the diagonal of zeros.
Tensor diagonalBackward(const Tensor &grad, const Tensor &self, int64_t offset, int64_t dim1,
                        int64_t dim2) {
  Tensor zeros = zerosLike(self.sizes(), grad);
  Tensor diagonal = callTensor("aten::diagonal", "",
                               {IValue(zeros), IValue(offset), IValue(dim1), IValue(dim2)});
  diagonal.copyFrom(grad);
  return zeros;
}

// index_put: self keeps the gradient where nothing was put (everywhere when
// accumulating); values get the gradient at the indices (the engine sums
// it to their shape where they were broadcast).
Tensor indexPutSelf(const Tensor &grad, const Indices &indices, bool accumulating) {
  if (accumulating)
    return grad;
  return callTensor("aten::index_put", "",
                    {IValue(grad), IValue(indices), IValue(zerosLike({}, grad)), IValue(false)});
}

Tensor indexPutValues(const Tensor &grad, const Indices &indices) { return index(grad, indices); }

// masked_scatter's source: the gradient at the mask's true elements in
// order, then zeros for the source elements nothing took.
Tensor maskedScatterSource(const Tensor &grad, const Tensor &mask, const Tensor &source) {
  Tensor picked = index(grad, {mask.expand(grad.sizes()).contiguous()});
  int64_t rest = source.numel() - picked.numel();
  Tensor all = callTensor("aten::constant_pad_nd", "",
                          {IValue(picked), IValue(Sizes{0, rest}), IValue(0.0)});
  return all.reshape(source.sizes());
}

/// `t` (index's shape) placed at the start of zeros of `sizes` (src may be
/// larger than index along any dim; its other elements took no part).
Tensor toSizes(const Tensor &t, IntArrayRef sizes) {
  if (t.sizes() == sizes)
    return t;
  Tensor zeros = zerosLike(sizes, t);
  Tensor part = zeros;
  for (int64_t d = 0; d < t.dim(); ++d)
    part = part.slice(d, 0, t.size(d));
  part.copyFrom(t);
  return zeros;
}

// scatter_reduce.two: PyTorch 1.13's scatter_reduce_backward for each
// reduction; without include_self, self's scattered positions get nothing.
std::tuple<Tensor, Tensor> scatterReduceBackward(const Tensor &grad, const Tensor &self,
                                                 int64_t dim, const Tensor &index,
                                                 const Tensor &src, std::string reduce,
                                                 bool includeSelf, const Tensor &result) {
  Tensor gradSelf, gradSrc;
  // The index may cover only part of src; these read src's part it covers.
  Tensor covered = src;
  for (int64_t d = 0; d < src.dim() && index.dim() == src.dim(); ++d)
    covered = covered.slice(d, 0, index.size(d));
  if (reduce == "sum") {
    gradSelf = grad;
    gradSrc = gather(grad, dim, index);
  } else if (reduce == "mean") {
    Tensor n = zerosLike(grad.sizes(), grad);
    if (includeSelf)
      n.fill(1.0);
    Tensor ones = zerosLike(index.sizes(), grad);
    ones.fill(1.0);
    n = scatterAdd(n, dim, index, ones);
    n = callTensor("aten::masked_fill", "Scalar",
                   {IValue(n), IValue(callTensor("aten::eq", "Scalar", {IValue(n), IValue(0.0)})),
                    IValue(1.0)});
    gradSelf = div(grad, n);
    gradSrc = div(gather(grad, dim, index), gather(n, dim, index));
  } else if (reduce == "amax" || reduce == "amin") {
    Tensor value = gather(result, dim, index);
    Tensor selfIsResult = equal(self, result).to(grad.dtype());
    Tensor srcIsResult = equal(covered, value).to(grad.dtype());
    Tensor shares = scatterAdd(selfIsResult, dim, index, srcIsResult);
    Tensor distributed = div(grad, shares);
    gradSelf = mul(selfIsResult, distributed);
    gradSrc = mul(srcIsResult, gather(distributed, dim, index));
  } else if (reduce == "prod") {
    // Zeros take part without dividing by them: self's zeros masked to 1
    // in a product of the others; a src zero alone at its position gets the
    // product of the rest, found by masking that zero to 1.
    auto isZero = [](const Tensor &t) {
      return callTensor("aten::eq", "Scalar", {IValue(t), IValue(0.0)});
    };
    auto maskToOne = [](const Tensor &t, const Tensor &mask) {
      return callTensor("aten::masked_fill", "Scalar", {IValue(t), IValue(mask), IValue(1.0)});
    };
    auto product = [&](const Tensor &into, const Tensor &from) {
      return callTensor("aten::scatter_reduce", "two",
                        {IValue(into), IValue(dim), IValue(index), IValue(from),
                         IValue(std::string("prod")), IValue(includeSelf)});
    };
    Tensor maskedSelf = maskToOne(self, isZero(self));
    gradSelf = div(mul(grad, product(maskedSelf, src)), maskedSelf);
    Tensor srcZero = isZero(covered);
    Tensor zerosAt = gather(scatterAdd(zerosLike(self.sizes(), grad), dim, index,
                                       srcZero.to(grad.dtype())),
                            dim, index);
    Tensor single = callTensor(
        "aten::bitwise_and", "Tensor",
        {IValue(srcZero), IValue(callTensor("aten::eq", "Scalar", {IValue(zerosAt), IValue(1.0)}))});
    Tensor maskedSrc = maskToOne(covered, single);
    Tensor others = gather(mul(grad, product(self, toSizes(maskedSrc, src.sizes()))), dim, index);
    Tensor divided = div(gather(mul(grad, result), dim, index), maskToOne(covered, srcZero));
    gradSrc = callTensor("aten::where", "self", {IValue(single), IValue(others), IValue(divided)});
  } else {
    throw OpalError("reduce argument must be either sum, prod, mean, amax or amin, got " + reduce);
  }
  if (!includeSelf)
    gradSelf = callTensor("aten::scatter", "value",
                          {IValue(gradSelf), IValue(dim), IValue(index), IValue(0.0)});
  return {gradSelf, toSizes(gradSrc, src.sizes())};
}

constexpr int64_t kModeSum = 0, kModeMean = 1, kModeMax = 2;

// _embedding_bag: each looked-up row gets its bag's gradient (scaled by
// the bag's per-sample weight, by 1 / the bag's size for mean, by 1 / the
// index's count with scale_grad_by_freq); for max, the row that won each
// column. Indices equal to padding_idx get nothing. per_sample_weights get
// the dot product of their bag's gradient with their row.
std::tuple<Tensor, Tensor>
embeddingBagBackward(const Tensor &grad, const Tensor &weight, const Tensor &indices,
                     const Tensor &offsets, bool scaleGradByFreq, int64_t mode,
                     const std::optional<Tensor> &perSampleWeights, bool includeLastOffset,
                     int64_t paddingIdx, const Tensor &maxIndices) {
  Sizes ids = hostLongs(indices), starts = hostLongs(offsets);
  auto n = static_cast<int64_t>(ids.size());
  int64_t bags = grad.size(0);
  // Each index's bag: the last bag whose offset is at or before it.
  Sizes bagOf(static_cast<size_t>(n), 0);
  Sizes bagSize(static_cast<size_t>(bags), 0);
  for (int64_t b = 0; b < bags && b < static_cast<int64_t>(starts.size()); ++b) {
    int64_t end = b + 1 < static_cast<int64_t>(starts.size()) ? starts[b + 1] : n;
    if (includeLastOffset && b + 1 == static_cast<int64_t>(starts.size()))
      end = n;
    for (int64_t i = std::max<int64_t>(starts[b], 0); i < std::min(end, n); ++i) {
      bagOf[i] = b;
      if (ids[i] != paddingIdx)
        ++bagSize[b];
    }
  }
  std::map<int64_t, int64_t> frequency;
  for (int64_t id : ids)
    ++frequency[id];
  Tensor gradWeight = zerosLike(weight.sizes(), grad);
  Tensor gradWeights;
  if (mode == kModeMax) {
    // Column d of bag b went to row maxIndices[b][d] (empty bags: none).
    int64_t columns = grad.size(1);
    Sizes rows = hostLongs(maxIndices), cols;
    std::vector<double> keep;
    for (int64_t b = 0; b < bags; ++b)
      for (int64_t d = 0; d < columns; ++d) {
        cols.push_back(d);
        keep.push_back(bagSize[b] > 0 ? 1.0 : 0.0);
        if (bagSize[b] == 0)
          rows[b * columns + d] = 0;
      }
    Tensor at = longTensor(rows, {bags, columns}, grad.device());
    Tensor col = longTensor(cols, {bags, columns}, grad.device());
    return {accumulate(gradWeight, {at, col}, mul(grad, doubleTensor(keep, {bags, columns}, grad))),
            gradWeights};
  }
  std::vector<double> scale;
  for (int64_t i = 0; i < n; ++i) {
    double s = ids[i] == paddingIdx ? 0.0 : 1.0;
    if (mode == kModeMean && bagSize[bagOf[i]] > 0)
      s /= static_cast<double>(bagSize[bagOf[i]]);
    if (scaleGradByFreq)
      s /= static_cast<double>(frequency[ids[i]]);
    scale.push_back(s);
  }
  Tensor bagIndex = longTensor(bagOf, {n}, grad.device());
  Tensor perIndex = callTensor("aten::index_select", "", {IValue(grad), IValue(int64_t(0)), IValue(bagIndex)});
  Tensor rows = mul(perIndex, doubleTensor(scale, {n, 1}, grad));
  if (perSampleWeights) {
    rows = mul(rows, perSampleWeights->reshape({n, 1}));
    Tensor looked = callTensor("aten::index_select", "",
                               {IValue(weight), IValue(int64_t(0)), IValue(indices.reshape({-1}))});
    std::vector<double> notPadding;
    for (int64_t id : ids)
      notPadding.push_back(id == paddingIdx ? 0.0 : 1.0);
    Tensor dots = callTensor("aten::sum", "dim_IntList",
                             {IValue(mul(perIndex, looked)), IValue(Sizes{1}), IValue(false), IValue()});
    gradWeights = mul(dots, doubleTensor(notPadding, {n}, grad)).reshape(perSampleWeights->sizes());
  }
  return {accumulate(gradWeight, {indices.reshape({-1})}, rows), gradWeights};
}

} // namespace

void opal::library_detail::appendIndexingDerivativeKernels(std::vector<NativeKernel> &kernels) {
  auto add = [&](const char *name, auto callable) {
    kernels.push_back({name, DispatchKey::CompositeExplicitAutograd,
                       KernelFunction::makeFromUnboxedCallable(std::move(callable))});
  };
  add("aten_backward::as_strided", asStridedBackward);
  add("aten_backward::diagonal", diagonalBackward);
  add("aten_backward::index_put.self", indexPutSelf);
  add("aten_backward::index_put.values", indexPutValues);
  add("aten_backward::masked_scatter.source", maskedScatterSource);
  add("aten_backward::scatter_reduce.two", scatterReduceBackward);
  add("aten_backward::_embedding_bag", embeddingBagBackward);
}
