//===- TensorViews.cpp - Views: new metadata over the same storage --------===//

#include "opal/Runtime/Tensor.h"

#include "opal/Support/Exceptions.h"

#include <algorithm>
#include <optional>

using namespace opal;

static std::string listStr(IntArrayRef values) { return sizesText(values); }

int64_t opal::wrapDim(int64_t dim, int64_t rank) {
  int64_t bound = std::max<int64_t>(rank, 1); // a 0-d tensor accepts 0 and -1
  if (dim < -bound || dim >= bound)
    throw OpalError("Dimension out of range (expected to be in range of [" +
                    std::to_string(-bound) + ", " + std::to_string(bound - 1) +
                    "], but got " + std::to_string(dim) + ")");
  return dim < 0 ? dim + bound : dim;
}

Tensor Tensor::asStrided(DimVector sizes, DimVector strides,
                         int64_t storageOffset) const {
  auto impl = IntrusivePtr<TensorImpl>::make(impl_->storage(), dtype(), device(),
                                             std::move(sizes), std::move(strides),
                                             storageOffset);
  impl->addKeys(impl_->keySet()); // views keep extra keys (e.g. Python)
  return Tensor(std::move(impl));
}

/// Resolves one -1 in `sizes` so that they hold `numel` elements.
static DimVector inferSize(DimVector sizes, int64_t numel) {
  std::optional<size_t> inferred;
  int64_t product = 1;
  for (size_t i = 0; i < sizes.size(); ++i) {
    if (sizes[i] == -1) {
      if (inferred)
        throw OpalError("only one dimension can be inferred");
      inferred = i;
    } else if (sizes[i] < 0) {
      throw OpalError("invalid shape dimension " + std::to_string(sizes[i]));
    } else if (__builtin_mul_overflow(product, sizes[i], &product)) {
      // More elements than int64 holds: no tensor has that many.
      throw OpalError("shape '" + listStr(sizes) + "' is invalid for input of size " +
                      std::to_string(numel));
    }
  }
  if (inferred && product != 0 && numel % product == 0)
    sizes[*inferred] = numel / product;
  else if (inferred && product == 0 && numel == 0)
    throw OpalError("cannot reshape tensor of 0 elements into shape " +
                    listStr(sizes) + " because the unspecified dimension size "
                    "-1 can be any value and is ambiguous");
  if (inferred ? sizes[*inferred] == -1 : product != numel)
    throw OpalError("shape '" + listStr(sizes) + "' is invalid for input of size " +
                    std::to_string(numel));
  return sizes;
}

/// The strides of a view of (sizes, strides) as `newSizes`, if one exists
/// without copying: each run of old dimensions that is contiguous in memory
/// can be split or merged freely.
static std::optional<DimVector> computeViewStrides(IntArrayRef sizes,
                                                  IntArrayRef strides,
                                                  IntArrayRef newSizes) {
  DimVector newStrides(newSizes.size(), 0);
  bool empty = false;
  for (int64_t s : sizes)
    empty |= s == 0;
  if (empty || sizes.empty()) {
    // Any geometry views an empty or 0-d tensor.
    return contiguousStrides(newSizes);
  }
  int64_t viewDim = static_cast<int64_t>(newSizes.size()) - 1;
  int64_t chunkBaseStride = strides.back();
  int64_t tensorElements = 1, viewElements = 1;
  for (int64_t dim = static_cast<int64_t>(sizes.size()) - 1; dim >= 0; --dim) {
    // (Products that overflow mean a geometry no view can have.)
    int64_t chunkStride = 0;
    if (__builtin_mul_overflow(tensorElements, sizes[dim], &tensorElements))
      return std::nullopt;
    // A chunk ends where the memory stops being contiguous.
    if (dim == 0 ||
        (sizes[dim - 1] != 1 &&
         (__builtin_mul_overflow(tensorElements, chunkBaseStride, &chunkStride) ||
          strides[dim - 1] != chunkStride))) {
      while (viewDim >= 0 &&
             (viewElements < tensorElements || newSizes[viewDim] == 1)) {
        if (__builtin_mul_overflow(viewElements, chunkBaseStride, &newStrides[viewDim]) ||
            __builtin_mul_overflow(viewElements, newSizes[viewDim], &viewElements))
          return std::nullopt;
        --viewDim;
      }
      if (viewElements != tensorElements)
        return std::nullopt;
      if (dim > 0) {
        chunkBaseStride = strides[dim - 1];
        tensorElements = 1;
        viewElements = 1;
      }
    }
  }
  if (viewDim != -1)
    return std::nullopt;
  return newStrides;
}

Tensor Tensor::view(IntArrayRef requested) const {
  DimVector sizes = inferSize(requested, numel());
  auto strides = computeViewStrides(this->sizes(), this->strides(), sizes);
  if (!strides)
    throw OpalError("view size is not compatible with input tensor's size and "
                    "stride (at least one dimension spans across two contiguous "
                    "subspaces). Use .reshape(...) instead.");
  return asStrided(std::move(sizes), std::move(*strides), storageOffset());
}

Tensor Tensor::reshape(IntArrayRef requested) const {
  DimVector sizes = inferSize(requested, numel());
  if (auto strides = computeViewStrides(this->sizes(), this->strides(), sizes))
    return asStrided(std::move(sizes), std::move(*strides), storageOffset());
  return clone().view(sizes);
}

Tensor Tensor::t() const {
  if (dim() > 2)
    throw std::invalid_argument("t() expects a tensor with <= 2 dimensions, but self is " +
                                std::to_string(dim()) + "D");
  return dim() < 2 ? asStrided(DimVector(sizes()), DimVector(strides()), storageOffset())
                   : transpose(0, 1);
}

Tensor Tensor::transpose(int64_t dim0, int64_t dim1) const {
  int64_t rank = dim();
  dim0 = wrapDim(dim0, rank); // (a 0-d tensor takes 0 and -1)
  dim1 = wrapDim(dim1, rank);
  if (rank == 0)
    return *this;
  DimVector sizes = this->sizes(), strides = this->strides();
  std::swap(sizes[dim0], sizes[dim1]);
  std::swap(strides[dim0], strides[dim1]);
  return asStrided(std::move(sizes), std::move(strides), storageOffset());
}

Tensor Tensor::permute(IntArrayRef dims) const {
  int64_t rank = dim();
  if (static_cast<int64_t>(dims.size()) != rank)
    throw OpalError("permute(sparse_coo): number of dimensions in the tensor input "
                    "does not match the length of the desired ordering of "
                    "dimensions i.e. input.dim() = " + std::to_string(rank) +
                    " is not equal to len(dims) = " + std::to_string(dims.size()));
  DimVector sizes(rank, 0), strides(rank, 0);
  std::vector<bool> seen(rank, false);
  for (int64_t i = 0; i < rank; ++i) {
    int64_t d = wrapDim(dims[i], rank);
    if (seen[d])
      throw OpalError("permute(): duplicate dims are not allowed.");
    seen[d] = true;
    sizes[i] = this->sizes()[d];
    strides[i] = this->strides()[d];
  }
  return asStrided(std::move(sizes), std::move(strides), storageOffset());
}

Tensor Tensor::expand(IntArrayRef target) const {
  int64_t rank = dim();
  int64_t newRank = static_cast<int64_t>(target.size());
  if (newRank < rank)
    throw OpalError("expand(" + std::string(dtypeName(dtype())) + "{" +
                    listStr(sizes()).substr(1, listStr(sizes()).size() - 2) +
                    "}, size=" + listStr(target) +
                    "): the number of sizes provided (" + std::to_string(newRank) +
                    ") must be greater or equal to the number of dimensions in "
                    "the tensor (" + std::to_string(rank) + ")");
  DimVector sizes(newRank, 0), strides(newRank, 0);
  for (int64_t i = newRank - 1; i >= 0; --i) {
    int64_t offset = rank - newRank + i; // matching old dim, if any
    int64_t size = offset >= 0 ? this->sizes()[offset] : 1;
    // A new leading dim of size 1 steps over the dims after it (as
    // PyTorch's inferExpandGeometry); a stride past int64 is of no use to a
    // dim of size 1 (and one that is expanded gets 0), so it stays 0.
    int64_t stride = 1;
    if (offset >= 0)
      stride = this->strides()[offset];
    else if (i + 1 < newRank && __builtin_mul_overflow(sizes[i + 1], strides[i + 1], &stride))
      stride = 0;
    int64_t want = target[i];
    if (want == -1) {
      if (offset < 0)
        throw OpalError("The expanded size of the tensor (-1) isn't allowed in a "
                        "leading, non-existing dimension " + std::to_string(i));
      want = size;
    }
    if (size != want) {
      if (size != 1)
        throw OpalError("The expanded size of the tensor (" + std::to_string(want) +
                        ") must match the existing size (" + std::to_string(size) +
                        ") at non-singleton dimension " + std::to_string(i) +
                        ".  Target sizes: " + listStr(target) +
                        ".  Tensor sizes: " + listStr(this->sizes()));
      stride = 0;
    }
    sizes[i] = want;
    strides[i] = stride;
  }
  return asStrided(std::move(sizes), std::move(strides), storageOffset());
}

Tensor Tensor::squeeze() const {
  DimVector sizes, strides;
  for (int64_t i = 0; i < dim(); ++i)
    if (this->sizes()[i] != 1) {
      sizes.push_back(this->sizes()[i]);
      strides.push_back(this->strides()[i]);
    }
  return asStrided(std::move(sizes), std::move(strides), storageOffset());
}

Tensor Tensor::squeeze(int64_t d) const {
  d = wrapDim(d, dim()); // (a 0-d tensor takes 0 and -1)
  if (dim() == 0)
    return *this;
  if (sizes()[d] != 1)
    return asStrided(sizes(), strides(), storageOffset());
  DimVector sizes = this->sizes(), strides = this->strides();
  sizes.erase(d);
  strides.erase(d);
  return asStrided(std::move(sizes), std::move(strides), storageOffset());
}

Tensor Tensor::unsqueeze(int64_t d) const {
  d = wrapDim(d, dim() + 1);
  DimVector sizes = this->sizes(), strides = this->strides();
  // (The new dim has size 1: its stride only matters for contiguity, and an
  // overflowing one, next to a dim whose elements it cannot address, is 1.)
  int64_t stride = 1;
  if (d < dim() && __builtin_mul_overflow(sizes[d], strides[d], &stride))
    stride = 1;
  sizes.insert(d, 1);
  strides.insert(d, stride);
  return asStrided(std::move(sizes), std::move(strides), storageOffset());
}

Tensor Tensor::slice(int64_t d, int64_t start, int64_t end, int64_t step) const {
  if (dim() == 0)
    throw OpalError("slice() cannot be applied to a 0-dim tensor.");
  d = wrapDim(d, dim());
  if (step <= 0)
    throw OpalError("slice step must be positive");
  int64_t size = sizes()[d];
  auto clamp = [size](int64_t index) {
    if (index < 0)
      index += size;
    return std::clamp<int64_t>(index, 0, size);
  };
  start = clamp(start);
  end = std::max(clamp(end), start);
  DimVector sizes = this->sizes(), strides = this->strides();
  int64_t length = end - start;
  sizes[d] = length == 0 ? 0 : 1 + (length - 1) / step;
  // Overflows happen only where no element is addressed (start == size, or
  // one element left): keep the offset and the stride then.
  int64_t offset = 0;
  if (__builtin_mul_overflow(start, strides[d], &offset) ||
      __builtin_add_overflow(offset, storageOffset(), &offset))
    offset = storageOffset();
  int64_t stride = 0;
  if (!__builtin_mul_overflow(strides[d], step, &stride))
    strides[d] = stride;
  return asStrided(std::move(sizes), std::move(strides), offset);
}

Tensor Tensor::select(int64_t d, int64_t index) const {
  if (dim() == 0)
    throw OpalError("select() cannot be applied to a 0-dim tensor.");
  d = wrapDim(d, dim());
  int64_t size = sizes()[d];
  if (index < -size || index >= size)
    throw OpalError("select(): index " + std::to_string(index) +
                    " out of range for tensor of size " + listStr(sizes()) +
                    " at dimension " + std::to_string(d));
  if (index < 0)
    index += size;
  DimVector sizes = this->sizes(), strides = this->strides();
  // Overflows only in a tensor without elements (a 0 in another dim).
  int64_t offset = 0;
  if (__builtin_mul_overflow(index, strides[d], &offset) ||
      __builtin_add_overflow(offset, storageOffset(), &offset))
    offset = storageOffset();
  sizes.erase(d);
  strides.erase(d);
  return asStrided(std::move(sizes), std::move(strides), offset);
}
