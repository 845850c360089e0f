//===- IndexKernels.cpp - aten index.Tensor and index_put, native --------===//
//
// Indexing by tensors (`x[idx]`, `x[:, mask]`) takes a list of optional
// tensors, which the JIT does not compile yet: a native kernel with
// PyTorch's rules. Bool and uint8 masks become the long indices of their
// true elements; the index tensors broadcast together; when the indexed dims
// are adjacent the broadcast shape takes their place, otherwise it comes
// first; every index is checked before anything is read. index_put writes
// (or adds) values where index.Tensor reads, into a copy of self.
//
//===----------------------------------------------------------------------===//

#include "NativeKernels.h"

#include "opal/Runtime/DispatchTypes.h"
#include "opal/Runtime/Tensor.h"
#include "opal/Support/Exceptions.h"

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <optional>

using namespace opal;
using namespace opal::library_detail;

namespace {

using Indices = std::vector<std::optional<Tensor>>;

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
    if (dtype != ScalarType::Long && dtype != ScalarType::Int && dtype != ScalarType::Bool &&
        dtype != ScalarType::Byte)
      throw OpalError("tensors used as indices must be long, int, byte or bool tensors");
    // (PyTorch 2 takes int32 indices too: read as int64.)
    if (dtype == ScalarType::Long || dtype == ScalarType::Int) {
      result.push_back(hostContiguous(dtype == ScalarType::Int ? index->to(ScalarType::Long)
                                                               : *index));
      continue;
    }
    Tensor mask = hostContiguous(*index);
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

/// Where `self[indices]` reads: the result's sizes, and for each of its
/// elements (index element b, other-dims element r) the offset into
/// `source` (self on the host, contiguous).
struct IndexPlan {
  DimVector outSizes;
  Tensor source;
  int64_t count = 1;     ///< index elements (the broadcast shape's)
  int64_t restCount = 1; ///< elements of the dims no index covers
  int64_t after = 1;     ///< of those, the ones after the indexed dims
  bool adjacent = true;
  std::vector<int64_t> base;   ///< per index element, its offset
  std::vector<int64_t> rest;   ///< the dims no index covers
  bool empty() const { return base.empty() || restCount == 0; }
  /// The offset in the result of (b, r), and in `source`.
  int64_t outAt(int64_t b, int64_t r) const {
    return adjacent ? ((r / after) * count + b) * after + r % after : b * restCount + r;
  }
  int64_t restOffset(int64_t r) const {
    int64_t offset = 0, flat = r;
    for (int64_t i = static_cast<int64_t>(rest.size()) - 1; i >= 0; --i) {
      int64_t size = source.size(rest[i]);
      offset += flat % size * source.strides()[rest[i]];
      flat /= size;
    }
    return offset;
  }
};

/// PyTorch's checks and layout of `self[indices]`; `base` stays empty when
/// the result has no elements (PyTorch then reads no index).
IndexPlan planIndex(const Tensor &self, const Indices &given) {
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
  if (indexed.empty())
    throw OpalError("at least one index must be provided");
  IndexPlan plan;
  plan.adjacent = indexed.back() - indexed.front() + 1 == static_cast<int64_t>(indexed.size());
  // The result: [before..., shape..., after...] or [shape..., rest...].
  for (int64_t d = 0; d < rank; ++d)
    if (std::find(indexed.begin(), indexed.end(), d) == indexed.end())
      plan.rest.push_back(d);
  int64_t restBefore = plan.adjacent ? indexed.front() : 0;
  for (int64_t i = 0; i < restBefore; ++i)
    plan.outSizes.push_back(self.size(plan.rest[i]));
  for (int64_t size : shape) {
    plan.outSizes.push_back(size);
    plan.count *= size;
  }
  for (size_t i = restBefore; i < plan.rest.size(); ++i) {
    plan.outSizes.push_back(self.size(plan.rest[i]));
    plan.after *= self.size(plan.rest[i]);
  }
  for (int64_t d : plan.rest)
    plan.restCount *= self.size(d);
  for (int64_t d : indexed)
    if (self.size(d) == 0 && plan.count > 0)
      throw OpalError("index is out of bounds for dimension with size 0");
  if (self.device().isMeta() || plan.count == 0 || plan.restCount == 0)
    return plan; // without a result element PyTorch reads no index
  // Each index element's offset into self (checked, wrapped), broadcast.
  plan.source = hostContiguous(self);
  plan.base.assign(plan.count, 0);
  for (int64_t d : indexed) {
    const Tensor &index = *indices[d];
    const int64_t *values = index.data<int64_t>();
    int64_t size = self.size(d), stride = plan.source.strides()[d];
    int64_t offsetRank = static_cast<int64_t>(shape.size()) - index.dim();
    for (int64_t b = 0; b < plan.count; ++b) {
      // b's position in the index (broadcast: its size-1 dims read 0).
      int64_t flat = b, at = 0, scale = 1;
      for (int64_t e = static_cast<int64_t>(shape.size()) - 1; e >= offsetRank; --e) {
        int64_t own = index.size(e - offsetRank);
        if (own != 1)
          at += flat % shape[e] * scale;
        scale *= own;
        flat /= shape[e];
      }
      int64_t v = values[at];
      if (v < -size || v >= size)
        throw OpalError("index " + std::to_string(v) + " is out of bounds for dimension " +
                        std::to_string(d) + " with size " + std::to_string(size));
      plan.base[b] += (v < 0 ? v + size : v) * stride;
    }
  }
  return plan;
}

Tensor indexTensor(const Tensor &self, const Indices &indices) {
  // PyTorch returns an empty tensor indexed by Nones as it is (an empty
  // list of indices is refused, below).
  if (!indices.empty() && self.numel() == 0 &&
      std::all_of(indices.begin(), indices.end(), [](const auto &i) {
        return !i || !i->defined();
      }))
    return self.clone();
  IndexPlan plan = planIndex(self, indices);
  Tensor out = Tensor::empty(plan.outSizes, self.dtype(), self.device());
  if (plan.empty())
    return out;
  size_t element = elementSize(self.dtype());
  Tensor host = self.device().isCPU() ? out : Tensor::empty(plan.outSizes, self.dtype());
  const char *from = static_cast<const char *>(plan.source.dataPtr());
  char *to = static_cast<char *>(host.dataPtr());
  for (int64_t r = 0; r < plan.restCount; ++r) {
    int64_t offset = plan.restOffset(r);
    for (int64_t b = 0; b < plan.count; ++b)
      std::memcpy(to + plan.outAt(b, r) * element, from + (plan.base[b] + offset) * element,
                  element);
  }
  if (!self.device().isCPU())
    out.copyFrom(host.to(self.device()));
  return out;
}

/// `*into` combined with `value`: replaced, or added to (bools: or).
template <typename T> void put(T *into, T value, bool accumulate) {
  if constexpr (std::is_same_v<T, bool>)
    *into = accumulate ? (*into || value) : value;
  else if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>)
    *into = accumulate ? T(static_cast<float>(*into) + static_cast<float>(value)) : value;
  else
    *into = accumulate ? static_cast<T>(*into + value) : value;
}

/// A copy of self with `values` (broadcast to self[indices]'s shape) written
/// where self[indices] reads, or added there; index elements in order, so
/// the last of equal indices wins.
Tensor indexPut(const Tensor &self, const Indices &indices, const Tensor &values,
                bool accumulate) {
  if (values.dtype() != self.dtype())
    throw OpalError(std::string("Index put requires the source and destination dtypes match, "
                                "got ") + scalarTypeCppName(self.dtype()) +
                    " for the destination and " + scalarTypeCppName(values.dtype()) +
                    " for the source.");
  // (PyTorch 2 refuses indices that are all None, with internal errors
  // of its own: opal says what is missing.)
  IndexPlan plan = planIndex(self, indices);
  // values broadcast to the indexing result.
  IntArrayRef given = values.sizes();
  bool fits = given.size() <= plan.outSizes.size();
  for (size_t i = 0; fits && i < given.size(); ++i) {
    int64_t target = plan.outSizes[plan.outSizes.size() - given.size() + i];
    fits = given[i] == 1 || given[i] == target;
  }
  if (!fits)
    throw OpalError("shape mismatch: value tensor of shape " + listText(given) +
                    " cannot be broadcast to indexing result of shape " +
                    listText(plan.outSizes));
  Tensor result = self.clone();
  if (plan.empty() || self.device().isMeta())
    return result;
  Tensor host = hostContiguous(result); // result itself on the CPU (a fresh clone)
  Tensor spread = hostContiguous(hostContiguous(values).expand(plan.outSizes));
  auto scatter = [&](auto *into, const auto *from) {
    for (int64_t r = 0; r < plan.restCount; ++r) {
      int64_t offset = plan.restOffset(r);
      for (int64_t b = 0; b < plan.count; ++b)
        put(into + plan.base[b] + offset, from[plan.outAt(b, r)], accumulate);
    }
  };
  switch (self.dtype()) {
#define OPAL_PUT_CASE(type, cpp)                                               \
  case type:                                                                   \
    scatter(host.data<cpp>(), spread.data<cpp>());                             \
    break;
    OPAL_FORALL_REAL_TYPES(OPAL_PUT_CASE)
#undef OPAL_PUT_CASE
  default:
    throw OpalError(std::string("index_put: ") + dtypeName(self.dtype()) +
                    " tensors are not supported");
  }
  if (!self.device().isCPU())
    result.copyFrom(host.to(self.device()));
  return result;
}

} // namespace

void opal::library_detail::appendIndexKernels(std::vector<NativeKernel> &kernels) {
  kernels.push_back({"aten::index.Tensor", DispatchKey::CompositeExplicitAutograd,
                     KernelFunction::makeFromUnboxedCallable(indexTensor)});
  kernels.push_back({"aten::index_put", DispatchKey::CompositeExplicitAutograd,
                     KernelFunction::makeFromUnboxedCallable(indexPut)});
}
