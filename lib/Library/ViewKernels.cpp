//===- ViewKernels.cpp - The aten views and splits as native kernels ------===//
//
// Views share the input's memory, so they are native kernels (as PyTorch's
// are CompositeExplicitAutograd): a new TensorImpl over the same storage.
// Their MLIR definitions (which compute copies, which no composite can tell
// apart) are what composites compile through; as_strided and diagonal have
// none yet. The splits return lists of views; PyTorch's checks and
// messages.
//
//===----------------------------------------------------------------------===//

#include "NativeKernels.h"

#include "opal/JIT/MlirKernel.h"
#include "opal/Runtime/Tensor.h"
#include "opal/Support/Exceptions.h"

#include <limits>
#include <optional>
#include <sstream>

using namespace opal;
using namespace opal::library_detail;

namespace {

using Sizes = std::vector<int64_t>;
using Tensors = std::vector<Tensor>;

Tensor narrowView(const Tensor &self, int64_t dim, int64_t start, int64_t length) {
  if (self.dim() == 0)
    throw OpalError("narrow() cannot be applied to a 0-dim tensor.");
  int64_t d = wrapDim(dim, self.dim());
  int64_t size = self.size(d);
  if (start < -size || start > size)
    throw OpalError("start out of range (expected to be in range of [" + std::to_string(-size) +
                    ", " + std::to_string(size) + "], but got " + std::to_string(start) + ")");
  if (start < 0)
    start += size;
  if (length < 0 || start > size - length)
    throw OpalError("start (" + std::to_string(start) + ") + length (" + std::to_string(length) +
                    ") exceeds dimension size (" + std::to_string(size) + ").");
  return self.slice(d, start, start + length);
}

Tensors split(const Tensor &self, int64_t splitSize, int64_t dim) {
  if (self.dim() == 0)
    throw OpalError("split expects at least a 1-dimensional tensor");
  if (splitSize < 0)
    throw OpalError("split expects split_size be non-negative, but got split_size=" +
                    std::to_string(splitSize));
  int64_t d = wrapDim(dim, self.dim());
  int64_t size = self.size(d);
  if (splitSize == 0 && size != 0)
    throw OpalError("split_size can only be 0 if dimension size is 0, but got dimension size of " +
                    std::to_string(size));
  // ceil(size / splitSize) pieces, at least one (without overflow).
  int64_t pieces = splitSize == 0 || size == 0 ? 1 : (size - 1) / splitSize + 1;
  Tensors result;
  result.reserve(pieces);
  for (int64_t i = 0; i < pieces; ++i) {
    int64_t start = i * splitSize;
    int64_t length = i + 1 < pieces ? splitSize : size - start;
    result.push_back(self.slice(d, start, start + length));
  }
  return result;
}

Tensors splitWithSizes(const Tensor &self, const Sizes &splitSizes, int64_t dim) {
  if (self.dim() == 0)
    throw OpalError("split expects at least a 1-dimensional tensor");
  int64_t d = wrapDim(dim, self.dim());
  int64_t size = self.size(d);
  Tensors result;
  int64_t start = 0;
  for (int64_t length : splitSizes) {
    if (length < 0)
      throw OpalError("split_with_sizes expects split_sizes have only non-negative entries, but "
                      "got split_sizes=" + listText(splitSizes));
    result.push_back(narrowView(self, d, start, length));
    start += length; // at most size: narrow checked it
  }
  if (start != size)
    throw OpalError("split_with_sizes expects split_sizes to sum exactly to " +
                    std::to_string(size) + " (input tensor's size at dimension " +
                    std::to_string(dim) + "), but got split_sizes=" + listText(splitSizes));
  return result;
}

/// More empty pieces than this of an empty dim are refused (PyTorch makes
/// any number, which a typed call could make exhaust memory).
constexpr int64_t kMaxEmptyChunks = int64_t(1) << 24;

Tensors chunk(const Tensor &self, int64_t chunks, int64_t dim) {
  if (self.dim() == 0)
    throw OpalError("chunk expects at least a 1-dimensional tensor");
  if (chunks <= 0)
    throw OpalError("chunk expects `chunks` to be greater than 0, got: " + std::to_string(chunks));
  int64_t d = wrapDim(dim, self.dim());
  int64_t size = self.size(d);
  int64_t splitSize = size == 0 ? 0 : (size - 1) / chunks + 1;
  if (size != 0)
    return split(self, splitSize, d);
  if (chunks > kMaxEmptyChunks)
    throw OpalError("chunk: " + std::to_string(chunks) + " chunks of an empty dimension are more "
                    "than opal makes (at most " + std::to_string(kMaxEmptyChunks) + ")");
  return Tensors(chunks, self.slice(d, 0, 0));
}

Tensors unbind(const Tensor &self, int64_t dim) {
  if (self.dim() == 0)
    throw OpalError("Dimension specified as " + std::to_string(dim) +
                    " but tensor has no dimensions");
  int64_t d = wrapDim(dim, self.dim());
  Tensors result;
  result.reserve(self.size(d));
  for (int64_t i = 0; i < self.size(d); ++i)
    result.push_back(self.select(d, i));
  return result;
}

/// PyTorch's check that a view stays inside its storage.
Tensor asStrided(const Tensor &self, const Sizes &sizes, const Sizes &strides,
                 std::optional<int64_t> storageOffset) {
  checkSizesAndStrides(sizes, strides);
  int64_t offset = storageOffset.value_or(self.storageOffset());
  if (offset < 0)
    throw OpalError("Tensor: invalid storage offset " + std::to_string(offset));
  if (self.device().isMeta())
    return self.asStrided(DimVector(sizes), DimVector(strides), offset);
  size_t item = elementSize(self.dtype());
  std::optional<size_t> needed = storageBytesFor(sizes, strides, offset, item);
  size_t available = self.impl()->storage() ? self.impl()->storage()->nbytes() : 0;
  if (!needed || *needed > available)
    throw OpalError("setStorage: sizes " + listText(sizes) + ", strides " + listText(strides) +
                    ", storage offset " + std::to_string(offset) + ", and itemsize " +
                    std::to_string(item) + " requiring a storage size of " +
                    (needed ? std::to_string(*needed) : std::string("more than 2^64")) +
                    " are out of bounds for storage of size " + std::to_string(available));
  return self.asStrided(DimVector(sizes), DimVector(strides), offset);
}

Tensor diagonal(const Tensor &self, int64_t offset, int64_t dim1, int64_t dim2) {
  int64_t rank = self.dim();
  int64_t d1 = wrapDim(dim1, rank), d2 = wrapDim(dim2, rank);
  if (d1 == d2)
    throw OpalError("diagonal dimensions cannot be identical " + std::to_string(dim1) + ", " +
                    std::to_string(dim2));
  int64_t length, start = self.storageOffset();
  int64_t size1 = self.size(d1), size2 = self.size(d2);
  // Without overflow: an offset past either size leaves an empty diagonal.
  if (offset >= 0)
    length = offset >= size2 ? 0 : std::max<int64_t>(std::min(size1, size2 - offset), 0);
  else
    length = -offset >= size1 ? 0 : std::max<int64_t>(std::min(size1 + offset, size2), 0);
  if (length > 0)
    start += offset >= 0 ? offset * self.strides()[d2] : -offset * self.strides()[d1];
  DimVector sizes, strides;
  for (int64_t d = 0; d < rank; ++d)
    if (d != d1 && d != d2) {
      sizes.push_back(self.size(d));
      strides.push_back(self.strides()[d]);
    }
  sizes.push_back(length);
  strides.push_back(self.strides()[d1] + self.strides()[d2]);
  return self.asStrided(std::move(sizes), std::move(strides), start);
}

} // namespace

std::string opal::library_detail::listText(IntArrayRef values) {
  std::ostringstream out;
  out << "[";
  for (size_t i = 0; i < values.size(); ++i)
    out << (i ? ", " : "") << values[i];
  out << "]";
  return out.str();
}

Tensor opal::library_detail::hostContiguous(const Tensor &t) {
  return (t.device().isCPU() ? t : t.to(Device(DeviceType::CPU))).contiguous();
}

void opal::library_detail::checkSizesAndStrides(const std::vector<int64_t> &sizes,
                                                const std::vector<int64_t> &strides) {
  if (sizes.size() != strides.size())
    throw OpalError("mismatch in length of strides and shape");
  for (int64_t size : sizes)
    if (size < 0)
      throw OpalError("Trying to create tensor with negative dimension " + std::to_string(size) +
                      ": " + listText(sizes));
  for (int64_t stride : strides)
    if (stride < 0)
      throw OpalError("as_strided: Negative strides are not supported at the moment, got "
                      "strides: " + listText(strides));
}

void opal::library_detail::appendViewKernels(std::vector<NativeKernel> &kernels) {
  // A view: the MLIR definition stays what composites compile through.
  auto view = [&](const char *name, auto callable, DispatchKey key =
                                                       DispatchKey::CompositeExplicitAutograd,
                  bool replaces = true) {
    KernelFunction kernel = KernelFunction::makeFromUnboxedCallable(std::move(callable));
    jit::declareEquivalentToMlir(kernel);
    kernels.push_back({name, key, std::move(kernel), replaces});
  };
  // A list of views: no MLIR definition.
  auto views = [&](const char *name, auto callable, DispatchKey key =
                                                        DispatchKey::CompositeExplicitAutograd) {
    kernels.push_back({name, key, KernelFunction::makeFromUnboxedCallable(std::move(callable))});
  };
  view("aten::view", [](const Tensor &self, Sizes size) { return self.view(size); });
  // reshape's decomposition stays beside it (CompositeImplicitAutograd).
  view("aten::reshape", [](const Tensor &self, Sizes shape) { return self.reshape(shape); },
       DispatchKey::CompositeExplicitAutograd, /*replaces=*/false);
  view("aten::transpose.int",
       [](const Tensor &self, int64_t dim0, int64_t dim1) { return self.transpose(dim0, dim1); });
  view("aten::t", [](const Tensor &self) { return self.t(); });
  view("aten::permute", [](const Tensor &self, Sizes dims) { return self.permute(dims); });
  view("aten::expand", [](const Tensor &self, Sizes size, bool) { return self.expand(size); });
  view("aten::unsqueeze", [](const Tensor &self, int64_t dim) { return self.unsqueeze(dim); });
  view("aten::squeeze.dim", [](const Tensor &self, int64_t dim) { return self.squeeze(dim); });
  view("aten::slice.Tensor", [](const Tensor &self, int64_t dim, std::optional<int64_t> start,
                                std::optional<int64_t> end, int64_t step) {
    return self.slice(dim, start.value_or(0), end.value_or(std::numeric_limits<int64_t>::max()),
                      step);
  });
  view("aten::select.int",
       [](const Tensor &self, int64_t dim, int64_t index) { return self.select(dim, index); });
  // narrow's decomposition stays beside it (CompositeImplicitAutograd).
  view("aten::narrow", narrowView, DispatchKey::CompositeExplicitAutograd, /*replaces=*/false);
  view("aten::alias", [](const Tensor &self) {
    return self.asStrided(self.sizes(), self.strides(), self.storageOffset());
  });
  // Views without an MLIR definition (composites reaching them run op by op).
  views("aten::as_strided", asStrided);
  views("aten::diagonal", diagonal);
  views("aten::split.Tensor", split);
  views("aten::split_with_sizes", splitWithSizes);
  // chunk is CompositeImplicitAutograd in PyTorch.
  views("aten::chunk", chunk, DispatchKey::CompositeImplicitAutograd);
  views("aten::unbind.int", unbind);
}
