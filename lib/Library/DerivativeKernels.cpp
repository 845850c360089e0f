//===- DerivativeKernels.cpp - Derivatives that only move the gradient ----===//
//
// The derivative formulas of views, copies and identities
// (derivatives.opal.mlir) as native kernels: the gradient of a view is a
// view of the gradient, and one that passes a gradient on returns it, so
// neither copies anything.
//
//===----------------------------------------------------------------------===//

#include "NativeKernels.h"

#include "opal/Dispatch/Dispatcher.h"
#include "opal/JIT/MlirKernel.h"

#include <string_view>

using namespace opal;
using namespace opal::library_detail;

namespace {
using Sizes = std::vector<int64_t>;
using Tensors = std::vector<Tensor>;
} // namespace

Stack opal::library_detail::callOp(const char *name, const char *overload, Stack stack) {
  Dispatcher::singleton().findSchemaOrThrow(name, overload).callBoxed(stack);
  return stack;
}

Tensor opal::library_detail::callTensor(const char *name, const char *overload, Stack stack) {
  return std::move(callOp(name, overload, std::move(stack)).back()).toTensor();
}

Tensor opal::library_detail::scatterThroughIndexPlane(
    const Tensor &grad, IntArrayRef selfSizes, int64_t spatial,
    const std::function<Tensor(const Tensor &)> &forward) {
  auto rank = static_cast<int64_t>(selfSizes.size());
  DimVector planeSizes(rank, 1);
  int64_t plane = 1;
  for (int64_t d = rank - spatial; d < rank; ++d) {
    planeSizes[d] = selfSizes[d];
    plane *= selfSizes[d];
  }
  Tensor index = Tensor::empty(planeSizes, ScalarType::Double);
  double *data = index.data<double>();
  for (int64_t i = 0; i < plane; ++i)
    data[i] = static_cast<double>(i);
  Tensor sources = forward(index).to(ScalarType::Long);
  DimVector flat;
  for (int64_t d = 0; d < grad.dim() - spatial; ++d)
    flat.push_back(grad.size(d));
  DimVector zeroSizes = flat;
  flat.push_back(-1);
  zeroSizes.push_back(plane);
  Tensor g = grad.contiguous().reshape(flat);
  DimVector indexShape(rank - spatial, 1);
  indexShape.push_back(-1);
  Tensor at = sources.reshape(indexShape).expand(g.sizes()).contiguous().to(grad.device());
  Tensor zeros = Tensor::empty(zeroSizes, grad.dtype(), grad.device());
  zeros.fill(0.0);
  return callTensor("aten::scatter_add", "",
                    {IValue(zeros), IValue(rank - spatial), IValue(at), IValue(g)})
      .reshape(selfSizes);
}

void opal::library_detail::appendDerivativeKernels(std::vector<NativeKernel> &kernels) {
  // Each but permute's has an MLIR decomposition, declared equivalent: a
  // derived backward that reaches it fuses through it.
  auto add = [&](const char *name, auto callable) {
    KernelFunction kernel = KernelFunction::makeFromUnboxedCallable(std::move(callable));
    if (std::string_view(name) != "aten_backward::permute")
      jit::declareEquivalentToMlir(kernel);
    kernels.push_back({name, DispatchKey::CompositeExplicitAutograd, std::move(kernel)});
  };
  // The engine sums a gradient to its input's shape and converts it to its
  // dtype and device: these formulas pass the gradient on as it is.
  auto identity = [](const Tensor &grad) { return grad; };
  for (const char *name :
       {"aten_backward::add.Tensor_self", "aten_backward::add.Scalar_self",
        "aten_backward::sub.Tensor_self", "aten_backward::sub.Scalar_self",
        "aten_backward::linear.bias", "aten_backward::expand", "aten_backward::alias",
        "aten_backward::clone", "aten_backward::_to_copy"})
    add(name, identity);
  auto backToShape = [](const Tensor &grad, const Tensor &self) {
    return grad.reshape(self.sizes());
  };
  add("aten_backward::view", backToShape);
  add("aten_backward::reshape", backToShape);
  add("aten_backward::squeeze.dim", backToShape);
  add("aten_backward::t", [](const Tensor &grad) { return grad.t(); });
  add("aten_backward::transpose.int",
      [](const Tensor &grad, int64_t dim0, int64_t dim1) { return grad.transpose(dim0, dim1); });
  add("aten_backward::permute", [](const Tensor &grad, Sizes dims) {
    DimVector inverse(dims.size(), 0);
    for (size_t i = 0; i < dims.size(); ++i)
      inverse[wrapDim(dims[i], static_cast<int64_t>(dims.size()))] = static_cast<int64_t>(i);
    return grad.permute(inverse);
  });
  add("aten_backward::unsqueeze",
      [](const Tensor &grad, int64_t dim) { return grad.squeeze(dim); });

  // Lists: no MLIR decompositions (the JIT compiles no lists yet).
  auto list = [&](const char *name, auto callable) {
    kernels.push_back({name, DispatchKey::CompositeExplicitAutograd,
                       KernelFunction::makeFromUnboxedCallable(std::move(callable))});
  };
  list("aten_backward::cat", [](const Tensor &grad, const Tensors &tensors, int64_t dim) {
    int64_t d = wrapDim(dim, grad.dim());
    Tensors parts;
    int64_t offset = 0;
    for (const Tensor &t : tensors) {
      // PyTorch's legacy rule: a 1-d tensor of size 0 took no part.
      if (t.dim() == 1 && t.size(0) == 0 && grad.dim() != 1) {
        parts.push_back(Tensor::empty({0}, grad.dtype(), grad.device()));
        continue;
      }
      int64_t length = t.size(d);
      parts.push_back(grad.slice(d, offset, offset + length));
      offset += length;
    }
    return parts;
  });
  list("aten_backward::stack", [](const Tensor &grad, const Tensors &tensors, int64_t dim) {
    int64_t d = wrapDim(dim, grad.dim());
    Tensors parts;
    for (size_t i = 0; i < tensors.size(); ++i)
      parts.push_back(grad.select(d, static_cast<int64_t>(i)));
    return parts;
  });
  auto join = [](const char *op) {
    return [op](const Tensors &grads, int64_t dim) {
      return callTensor(op, "", {IValue(grads), IValue(dim)});
    };
  };
  list("aten_backward::split.Tensor", join("aten::cat"));
  list("aten_backward::split_with_sizes", join("aten::cat"));
  list("aten_backward::chunk", join("aten::cat"));
  list("aten_backward::unbind.int", join("aten::stack"));
  // Padding: the gradient padded by the negated amounts (a slice where the
  // forward padded, zeros where it cropped).
  list("aten_backward::constant_pad_nd", [](const Tensor &grad, Sizes pad) {
    for (int64_t &amount : pad)
      amount = -amount;
    return callTensor("aten::constant_pad_nd", "", {IValue(grad), IValue(pad), IValue(0.0)});
  });
  // Reflection and replication pads: the pad of the plane of the input's
  // indices says which input element each output element copies.
  auto padBackward = [](const char *op, int64_t spatial) {
    return [op, spatial](const Tensor &grad, const Tensor &self, Sizes padding) {
      return scatterThroughIndexPlane(grad, self.sizes(), spatial, [&](const Tensor &plane) {
        return callTensor(op, "", {IValue(plane), IValue(padding)});
      });
    };
  };
  list("aten_backward::reflection_pad1d", padBackward("aten::reflection_pad1d", 1));
  list("aten_backward::reflection_pad2d", padBackward("aten::reflection_pad2d", 2));
  list("aten_backward::reflection_pad3d", padBackward("aten::reflection_pad3d", 3));
  list("aten_backward::replication_pad1d", padBackward("aten::replication_pad1d", 1));
  list("aten_backward::replication_pad2d", padBackward("aten::replication_pad2d", 2));
  list("aten_backward::replication_pad3d", padBackward("aten::replication_pad3d", 3));
  // repeat: each dim of the gradient split into (repeats, size) and the
  // repeats summed (the leading repeats, dims of their own, too).
  list("aten_backward::repeat", [](const Tensor &grad, const Tensor &self, Sizes repeats) {
    if (repeats.empty()) // (a 0-d tensor repeated no times)
      return grad;
    int64_t leading = static_cast<int64_t>(repeats.size()) - self.dim();
    DimVector split;
    Sizes summed;
    for (int64_t i = 0; i < static_cast<int64_t>(repeats.size()); ++i) {
      summed.push_back(static_cast<int64_t>(split.size()));
      split.push_back(repeats[i]);
      if (i >= leading)
        split.push_back(self.size(i - leading));
    }
    Tensor tiles = grad.contiguous().reshape(split);
    return callTensor("aten::sum", "dim_IntList",
                      {IValue(tiles), IValue(summed), IValue(false), IValue()})
        .reshape(self.sizes());
  });
  // Gradients added back at their indices: index_put with accumulate into
  // zeros of the input's shape.
  auto accumulateInto = [](DimVector sizes, const Tensor &grad,
                           const std::vector<std::optional<Tensor>> &indices) {
    Tensor zeros = Tensor::empty(sizes, grad.dtype(), grad.device());
    zeros.fill(0.0);
    return callTensor("aten::index_put", "",
                      {IValue(zeros), IValue(indices), IValue(grad), IValue(true)});
  };
  list("aten_backward::index.Tensor",
       [accumulateInto](const Tensor &grad, const Tensor &self,
                        const std::vector<std::optional<Tensor>> &indices) {
         return accumulateInto(DimVector(self.sizes()), grad, indices);
       });
  // index_select along `dim`: the same with `dim` moved to the front.
  list("aten_backward::index_select",
       [accumulateInto](const Tensor &grad, const Tensor &self, int64_t dim, const Tensor &index) {
         if (self.dim() == 0)
           return accumulateInto(DimVector(self.sizes()), grad.reshape({}), {index.reshape({})});
         int64_t d = wrapDim(dim, self.dim());
         Tensor front = self.transpose(0, d);
         Tensor summed = accumulateInto(DimVector(front.sizes()), grad.transpose(0, d).contiguous(),
                                        {index.reshape({-1})});
         return summed.transpose(0, d);
       });
}
