//===- SortKernels.cpp - aten sort and topk as native kernels -------------===//
//
// Sorting is not a linalg op, so sort, sort.stable and topk are native
// kernels (as PyTorch's are): each line along `dim` is sorted as a list of
// indices, NaN above every number, equal values in index order (PyTorch's
// CPU sort is stable; its topk leaves the order of equal values open, opal
// keeps index order). topk keeps its k best by insertion in one pass (a
// partial sort for large k). A
// CUDA tensor is sorted on the host and copied back.
//
//===----------------------------------------------------------------------===//

#include "NativeKernels.h"

#include "opal/Runtime/DispatchTypes.h"
#include "opal/Runtime/Tensor.h"
#include "opal/Support/Exceptions.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <tuple>
#include <type_traits>

using namespace opal;
using namespace opal::library_detail;

namespace {

using Pair = std::tuple<Tensor, Tensor>;

/// The value at `p` as a comparable number: a bool's byte reads as 0 or 1
/// (any nonzero byte is true), float16 and bfloat16 as float.
template <typename T> auto load(const T *p) {
  if constexpr (std::is_same_v<T, bool>)
    return static_cast<int>(*reinterpret_cast<const uint8_t *>(p) != 0);
  else if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>)
    return static_cast<float>(*p);
  else
    return *p;
}

template <typename V> bool isNan(V v) {
  if constexpr (std::is_floating_point_v<V>)
    return std::isnan(v);
  else
    return false;
}

/// Whether `a` goes before `b`: NaN counts as the largest value.
template <typename V> bool before(V a, V b, bool descending) {
  if (descending)
    return isNan(a) ? !isNan(b) : !isNan(b) && a > b;
  return !isNan(a) && (isNan(b) || a < b);
}

/// The layout of a sort along `dim` of a contiguous tensor: `outer` lines
/// of `size` elements `inner` apart.
struct Lines {
  int64_t outer = 1, size = 1, inner = 1;
  Lines(IntArrayRef sizes, int64_t dim) {
    for (int64_t d = 0; d < static_cast<int64_t>(sizes.size()); ++d) {
      if (d < dim)
        outer *= sizes[d];
      else if (d == dim)
        size = sizes[d];
      else
        inner *= sizes[d];
    }
  }
};

/// Sorts every line of `input` (contiguous, on the host) and writes the
/// first `k` of each into `values` and `indices` (contiguous, dim of size k).
/// Up to this k, topk keeps its best elements by insertion (one pass, one
/// comparison for most elements); above it, a partial sort.
constexpr int64_t kInsertionTopK = 32;

template <typename T>
void sortLines(const Tensor &input, const Lines &lines, int64_t k, bool descending, bool partial,
               const Tensor &values, const Tensor &indices) {
  const T *in = input.data<T>();
  T *outValues = values.data<T>();
  int64_t *outIndices = indices.data<int64_t>();
  // Each line as (value, index) pairs, compared by value and then by index
  // (so equal values keep index order, as a stable sort does).
  using Key = decltype(load(in));
  std::vector<std::pair<Key, int64_t>> line(lines.size);
  auto compare = [descending](const std::pair<Key, int64_t> &a,
                              const std::pair<Key, int64_t> &b) {
    return before(a.first, b.first, descending) ||
           (!before(b.first, a.first, descending) && a.second < b.second);
  };
  for (int64_t o = 0; o < lines.outer; ++o)
    for (int64_t i = 0; i < lines.inner; ++i) {
      const T *start = in + o * lines.size * lines.inner + i;
      int64_t base = o * k * lines.inner + i;
      if (k == 0)
        continue;
      if (partial && k <= kInsertionTopK) {
        // A few best so far, in order: each element is compared with the
        // worst of them and inserted only if it goes before it (a later
        // index never goes before an equal value).
        int64_t kept = 0;
        for (int64_t j = 0; j < lines.size; ++j) {
          Key v = load(start + j * lines.inner);
          if (kept == k && !before(v, line[k - 1].first, descending))
            continue;
          int64_t at = kept < k ? kept++ : k - 1;
          while (at > 0 && before(v, line[at - 1].first, descending)) {
            line[at] = line[at - 1];
            --at;
          }
          line[at] = {v, j};
        }
      } else {
        for (int64_t j = 0; j < lines.size; ++j)
          line[j] = {load(start + j * lines.inner), j};
        if (partial)
          std::partial_sort(line.begin(), line.begin() + k, line.end(), compare);
        else
          std::sort(line.begin(), line.end(), compare);
      }
      for (int64_t j = 0; j < k; ++j) {
        outValues[base + j * lines.inner] = start[line[j].second * lines.inner];
        outIndices[base + j * lines.inner] = line[j].second;
      }
    }
}

/// The k first elements of every line of `self` along `dim` in sorted
/// order, with their indices.
Pair sortAlong(const Tensor &self, int64_t dim, int64_t k, bool descending, bool partial) {
  DimVector sizes = self.sizes();
  if (self.dim() > 0)
    sizes[dim] = k;
  Tensor values = Tensor::empty(sizes, self.dtype(), self.device());
  Tensor indices = Tensor::empty(sizes, ScalarType::Long, self.device());
  if (self.device().isMeta() || values.numel() == 0)
    return {values, indices};
  bool onHost = self.device().isCPU();
  Tensor input = hostContiguous(self);
  Tensor hostValues = onHost ? values : Tensor::empty(sizes, self.dtype());
  Tensor hostIndices = onHost ? indices : Tensor::empty(sizes, ScalarType::Long);
  Lines lines(self.sizes(), self.dim() > 0 ? dim : 0);
  switch (self.dtype()) {
#define OPAL_SORT_CASE(type, cpp)                                              \
  case type:                                                                   \
    sortLines<cpp>(input, lines, k, descending, partial, hostValues, hostIndices); \
    break;
    OPAL_FORALL_REAL_TYPES(OPAL_SORT_CASE)
#undef OPAL_SORT_CASE
  default:
    throw OpalError(std::string("sort: ") + dtypeName(self.dtype()) + " tensors cannot be sorted");
  }
  if (!onHost) {
    values.copyFrom(hostValues.to(self.device()));
    indices.copyFrom(hostIndices.to(self.device()));
  }
  return {values, indices};
}

Pair sort(const Tensor &self, int64_t dim, bool descending) {
  int64_t d = wrapDim(dim, self.dim());
  return sortAlong(self, d, self.dim() > 0 ? self.size(d) : 1, descending, false);
}

Pair sortStable(const Tensor &self, std::optional<bool>, int64_t dim, bool descending) {
  return sort(self, dim, descending); // always stable
}

Pair topk(const Tensor &self, int64_t k, int64_t dim, bool largest, bool) {
  int64_t d = wrapDim(dim, self.dim());
  int64_t size = self.dim() > 0 ? self.size(d) : 1;
  if (k < 0 || k > size)
    throw OpalError("selected index k out of range");
  // (A 0-d tensor is its own top element, whatever its dtype.)
  if (self.dtype() == ScalarType::Bool && self.dim() > 0)
    throw OpalError("\"topk_cpu\" not implemented for 'Bool'");
  // A 0-d tensor is its own top element, also for k = 0 (as in PyTorch).
  return sortAlong(self, d, self.dim() == 0 ? 1 : k, largest, true);
}

} // namespace

void opal::library_detail::appendSortKernels(std::vector<NativeKernel> &kernels) {
  kernels.push_back({"aten::sort", DispatchKey::CompositeExplicitAutograd,
                     KernelFunction::makeFromUnboxedCallable(sort)});
  kernels.push_back({"aten::sort.stable", DispatchKey::CompositeExplicitAutograd,
                     KernelFunction::makeFromUnboxedCallable(sortStable)});
  kernels.push_back({"aten::topk", DispatchKey::CompositeExplicitAutograd,
                     KernelFunction::makeFromUnboxedCallable(topk)});
}
