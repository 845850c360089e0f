//===- JoinKernels.cpp - aten cat and stack as native kernels -------------===//
//
// cat and stack take lists of tensors, which the JIT does not compile yet,
// so they are native kernels: PyTorch's checks and messages, the dtype the
// tensors promote to, and on the CPU one memcpy per input and outer index
// where an input is contiguous and of the result's dtype (an element-wise
// copy otherwise); on a device, one copy per contiguous row.
//
//===----------------------------------------------------------------------===//

#include "NativeKernels.h"

#include "opal/Runtime/Tensor.h"
#include "opal/Support/Exceptions.h"

#include <cstring>

using namespace opal;
using namespace opal::library_detail;

namespace {

using Tensors = std::vector<Tensor>;

/// PyTorch's legacy rule: a 1-d tensor of size 0 takes part in cat's dtype
/// but not in its shape checks.
bool skipped(const Tensor &t) { return t.dim() == 1 && t.size(0) == 0; }

/// Copies `source` into `out` at [offset, offset + its size) along dim.
void place(const Tensor &out, const Tensor &source, int64_t dim, int64_t offset) {
  int64_t length = source.size(dim);
  if (source.numel() == 0)
    return;
  if (out.device().isCPU() && source.device().isCPU() && source.dtype() == out.dtype() &&
      source.isContiguous()) {
    // out is contiguous (fresh): each outer index holds one block of the
    // source's `length * inner` elements.
    int64_t inner = 1, outer = 1;
    for (int64_t d = dim + 1; d < out.dim(); ++d)
      inner *= out.size(d);
    for (int64_t d = 0; d < dim; ++d)
      outer *= out.size(d);
    size_t element = elementSize(out.dtype());
    size_t block = static_cast<size_t>(length * inner) * element;
    size_t stride = static_cast<size_t>(out.size(dim) * inner) * element;
    char *to = static_cast<char *>(out.dataPtr()) + static_cast<size_t>(offset * inner) * element;
    const char *from = static_cast<const char *>(source.dataPtr());
    for (int64_t o = 0; o < outer; ++o)
      std::memcpy(to + o * stride, from + o * block, block);
    return;
  }
  Tensor window = out.slice(dim, offset, offset + length);
  if (out.device().isCPU() || window.isContiguous()) {
    window.copyFrom(source);
    return;
  }
  // On a device, copies go into contiguous memory: one per outer index,
  // each a row of `length * inner` elements.
  int64_t outer = 1;
  for (int64_t d = 0; d < dim; ++d)
    outer *= out.size(d);
  int64_t row = source.numel() / outer;
  Tensor rows = out.view({outer, out.numel() / outer});
  Tensor from = (source.dtype() == out.dtype() ? source : source.to(out.dtype()))
                    .contiguous()
                    .view({outer, row});
  int64_t start = offset * (row / length);
  for (int64_t o = 0; o < outer; ++o)
    rows.select(0, o).slice(0, start, start + row).copyFrom(from.select(0, o));
}

Tensor cat(const Tensors &tensors, int64_t dim) {
  if (tensors.empty())
    throw OpalError("torch.cat(): expected a non-empty list of Tensors");
  ScalarType dtype = tensors[0].dtype();
  const Tensor *reference = nullptr;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor &t = tensors[i];
    if (t.dim() == 0)
      throw OpalError("zero-dimensional tensor (at position " + std::to_string(i) +
                      ") cannot be concatenated");
    if (t.device() != tensors[0].device())
      throw OpalError("Expected all tensors to be on the same device, but found at least two "
                      "devices, " + tensors[0].device().str() + " and " + t.device().str() + "!");
    dtype = promoteTypes(dtype, t.dtype());
    if (!reference && !skipped(t))
      reference = &t;
  }
  Device device = tensors[0].device();
  if (!reference)
    return Tensor::empty({0}, dtype, device);
  int64_t d = wrapDim(dim, reference->dim());
  DimVector sizes = reference->sizes();
  int64_t total = 0;
  for (size_t i = 0; i < tensors.size(); ++i) {
    const Tensor &t = tensors[i];
    if (skipped(t))
      continue;
    if (t.dim() != reference->dim())
      throw OpalError("Tensors must have same number of dimensions: got " +
                      std::to_string(reference->dim()) + " and " + std::to_string(t.dim()));
    for (int64_t k = 0; k < t.dim(); ++k)
      if (k != d && t.size(k) != sizes[k])
        throw OpalError("Sizes of tensors must match except in dimension " + std::to_string(d) +
                        ". Expected size " + std::to_string(sizes[k]) + " but got size " +
                        std::to_string(t.size(k)) + " for tensor number " + std::to_string(i) +
                        " in the list.");
    if (__builtin_add_overflow(total, t.size(d), &total))
      throw OpalError("torch.cat(): the result's size along dimension " + std::to_string(d) +
                      " overflows int64");
  }
  sizes[d] = total;
  Tensor out = Tensor::empty(sizes, dtype, device);
  if (device.isMeta())
    return out;
  int64_t offset = 0;
  for (const Tensor &t : tensors) {
    if (skipped(t))
      continue;
    place(out, t, d, offset);
    offset += t.size(d);
  }
  return out;
}

Tensor stack(const Tensors &tensors, int64_t dim) {
  if (tensors.empty())
    throw OpalError("stack expects a non-empty TensorList");
  int64_t d = wrapDim(dim, tensors[0].dim() + 1);
  for (size_t i = 1; i < tensors.size(); ++i)
    if (tensors[i].sizes() != tensors[0].sizes())
      throw OpalError("stack expects each tensor to be equal size, but got " +
                      listText(tensors[0].sizes()) + " at entry 0 and " +
                      listText(tensors[i].sizes()) + " at entry " + std::to_string(i));
  Tensors expanded;
  expanded.reserve(tensors.size());
  for (const Tensor &t : tensors)
    expanded.push_back(t.unsqueeze(d));
  return cat(expanded, d);
}

} // namespace

void opal::library_detail::appendJoinKernels(std::vector<NativeKernel> &kernels) {
  kernels.push_back({"aten::cat", DispatchKey::CompositeExplicitAutograd,
                     KernelFunction::makeFromUnboxedCallable(cat)});
  kernels.push_back({"aten::stack", DispatchKey::CompositeExplicitAutograd,
                     KernelFunction::makeFromUnboxedCallable(stack)});
}
