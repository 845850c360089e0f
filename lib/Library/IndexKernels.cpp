//===- IndexKernels.cpp - aten index.Tensor as a native kernel ------------===//
//
// Indexing by tensors (`x[idx]`, `x[:, mask]`) takes a list of optional
// tensors, which the JIT does not compile yet: a native kernel with
// PyTorch's rules. Bool and uint8 masks become the long indices of their
// true elements; the index tensors broadcast together; when the indexed dims
// are adjacent the broadcast shape takes their place, otherwise it comes
// first; every index is checked before anything is read.
//
//===----------------------------------------------------------------------===//

#include "NativeKernels.h"

#include "opal/Runtime/Tensor.h"
#include "opal/Support/Exceptions.h"

#include <cstring>
#include <optional>

using namespace opal;
using namespace opal::library_detail;

namespace {

using Indices = std::vector<std::optional<Tensor>>;

/// `t` on the host, contiguous.
Tensor onHost(const Tensor &t) {
  return (t.device().isCPU() ? t : t.to(Device(DeviceType::CPU))).contiguous();
}

/// The indices with each mask replaced by the long indices of its true
/// elements, one per dim it covers.
std::vector<std::optional<Tensor>> expandMasks(const Tensor &self, const Indices &indices) {
  std::vector<std::optional<Tensor>> result;
  for (const std::optional<Tensor> &index : indices) {
    if (!index || !index->defined()) {
      result.push_back(std::nullopt);
      continue;
    }
    ScalarType dtype = index->dtype();
    if (dtype != ScalarType::Long && dtype != ScalarType::Bool && dtype != ScalarType::Byte)
      throw OpalError("tensors used as indices must be long, byte or bool tensors");
    if (dtype == ScalarType::Long) {
      result.push_back(onHost(*index));
      continue;
    }
    Tensor mask = onHost(*index);
    int64_t at = static_cast<int64_t>(result.size());
    for (int64_t d = 0; d < mask.dim(); ++d)
      if (at + d >= self.dim() || mask.size(d) != self.size(at + d))
        throw OpalError("The shape of the mask " + listText(mask.sizes()) + " at index " +
                        std::to_string(d) + " does not match the shape of the indexed tensor " +
                        listText(self.sizes()) + " at index " + std::to_string(at + d));
    // The coordinates of the true elements, one long tensor per mask dim.
    std::vector<int64_t> found;
    const uint8_t *bytes = static_cast<const uint8_t *>(mask.dataPtr());
    for (int64_t i = 0; i < mask.numel(); ++i)
      if (bytes[i])
        found.push_back(i);
    int64_t n = static_cast<int64_t>(found.size());
    for (int64_t d = 0; d < mask.dim(); ++d) {
      Tensor coords = Tensor::empty({n}, ScalarType::Long);
      int64_t inner = 1;
      for (int64_t e = d + 1; e < mask.dim(); ++e)
        inner *= mask.size(e);
      for (int64_t r = 0; r < n; ++r)
        coords.data<int64_t>()[r] = found[r] / inner % mask.size(d);
      result.push_back(coords);
    }
  }
  return result;
}

Tensor indexTensor(const Tensor &self, const Indices &given) {
  int64_t rank = self.dim();
  // (PyTorch counts a mask as one index here.)
  if (static_cast<int64_t>(given.size()) > rank)
    throw OpalError("too many indices for tensor of dimension " + std::to_string(rank) +
                    " (got " + std::to_string(given.size()) + ")");
  std::vector<std::optional<Tensor>> indices = expandMasks(self, given);
  // An index (or None) past the dims a mask covered would index a dim the
  // tensor lacks (PyTorch 1.13 reads past its sizes then).
  if (static_cast<int64_t>(indices.size()) > rank)
    throw OpalError("too many indices for tensor of dimension " + std::to_string(rank) +
                    " (got " + std::to_string(indices.size()) + " after its masks)");
  // The indexed dims and the broadcast shape of their indices.
  std::vector<int64_t> indexed;
  DimVector shape;
  for (size_t d = 0; d < indices.size(); ++d) {
    if (!indices[d])
      continue;
    indexed.push_back(static_cast<int64_t>(d));
    IntArrayRef sizes = indices[d]->sizes();
    DimVector merged;
    size_t count = std::max(shape.size(), sizes.size());
    for (size_t i = 0; i < count; ++i) {
      int64_t a = i < count - shape.size() ? 1 : shape[i - (count - shape.size())];
      int64_t b = i < count - sizes.size() ? 1 : sizes[i - (count - sizes.size())];
      if (a != b && a != 1 && b != 1) {
        std::string shapes;
        for (size_t e = 0; e <= d; ++e)
          if (indices[e])
            shapes += (shapes.empty() ? "" : ", ") + listText(indices[e]->sizes());
        throw OpalError("shape mismatch: indexing tensors could not be broadcast together "
                        "with shapes " + shapes);
      }
      merged.push_back(a == 1 ? b : a);
    }
    shape = merged;
  }
  if (indexed.empty()) {
    // PyTorch 1.13 returns an empty tensor as it is, and asserts otherwise.
    if (self.numel() == 0)
      return self.clone();
    throw OpalError("index: at least one index tensor is needed, but every index is None");
  }
  bool adjacent = indexed.back() - indexed.front() + 1 == static_cast<int64_t>(indexed.size());
  // The result: [before..., shape..., after...] or [shape..., rest...].
  std::vector<int64_t> rest;
  for (int64_t d = 0; d < rank; ++d)
    if (std::find(indexed.begin(), indexed.end(), d) == indexed.end())
      rest.push_back(d);
  int64_t restBefore = adjacent ? indexed.front() : 0;
  DimVector outSizes;
  for (int64_t i = 0; i < restBefore; ++i)
    outSizes.push_back(self.size(rest[i]));
  for (int64_t size : shape)
    outSizes.push_back(size);
  for (size_t i = restBefore; i < rest.size(); ++i)
    outSizes.push_back(self.size(rest[i]));
  Tensor out = Tensor::empty(outSizes, self.dtype(), self.device());
  if (self.device().isMeta())
    return out;
  // Each index element's offset into self (checked, wrapped), broadcast.
  int64_t count = 1;
  for (int64_t size : shape)
    count *= size;
  for (int64_t d : indexed)
    if (self.size(d) == 0 && count > 0)
      throw OpalError("index is out of bounds for dimension with size 0");
  // Without a result element PyTorch reads no index, and checks none.
  if (out.numel() == 0)
    return out;
  Tensor source = onHost(self);
  std::vector<int64_t> base(count, 0);
  for (int64_t d : indexed) {
    const Tensor &index = *indices[d];
    const int64_t *values = index.data<int64_t>();
    int64_t size = self.size(d), stride = source.strides()[d];
    int64_t offsetRank = static_cast<int64_t>(shape.size()) - index.dim();
    for (int64_t b = 0; b < count; ++b) {
      // b's coordinates in `shape`, read from the index (broadcast).
      int64_t flat = b, at = 0, scale = 1;
      for (int64_t e = static_cast<int64_t>(shape.size()) - 1; e >= offsetRank; --e) {
        int64_t coordinate = flat % shape[e];
        int64_t own = index.size(e - offsetRank);
        if (own != 1)
          at += coordinate * scale;
        scale *= own;
        flat /= shape[e];
      }
      for (int64_t e = offsetRank - 1; e >= 0; --e)
        flat /= shape[e];
      int64_t v = values[at];
      if (v < -size || v >= size)
        throw OpalError("index " + std::to_string(v) + " is out of bounds for dimension " +
                        std::to_string(d) + " with size " + std::to_string(size));
      base[b] += (v < 0 ? v + size : v) * stride;
    }
  }
  // Copy: for each index element, the block of the other dims.
  size_t element = elementSize(self.dtype());
  int64_t restCount = 1;
  for (int64_t d : rest)
    restCount *= self.size(d);
  int64_t after = 1;
  for (size_t i = restBefore; i < rest.size(); ++i)
    after *= self.size(rest[i]);
  Tensor host = self.device().isCPU() ? out : Tensor::empty(outSizes, self.dtype());
  const char *from = static_cast<const char *>(source.dataPtr());
  char *to = static_cast<char *>(host.dataPtr());
  for (int64_t r = 0; r < restCount; ++r) {
    // r's offset in self over the other dims (the last fastest).
    int64_t offset = 0, flat = r;
    for (int64_t i = static_cast<int64_t>(rest.size()) - 1; i >= 0; --i) {
      offset += flat % self.size(rest[i]) * source.strides()[rest[i]];
      flat /= self.size(rest[i]);
    }
    int64_t before = r / after, inner = r % after;
    for (int64_t b = 0; b < count; ++b) {
      int64_t at = adjacent ? (before * count + b) * after + inner : b * restCount + r;
      std::memcpy(to + at * element, from + (base[b] + offset) * element, element);
    }
  }
  if (!self.device().isCPU())
    out.copyFrom(host.to(self.device()));
  return out;
}

} // namespace

void opal::library_detail::appendIndexKernels(std::vector<NativeKernel> &kernels) {
  kernels.push_back({"aten::index.Tensor", DispatchKey::CompositeExplicitAutograd,
                     KernelFunction::makeFromUnboxedCallable(indexTensor)});
}
