//===- AtenCalls.h - The aten ops the engine itself calls -------*- C++ -*-===//
//
// The engine sums broadcast gradients, adds gradients that meet at one
// input and converts dtypes through the dispatcher, like any other call
// (so the JIT compiles and caches these kernels too).
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_LIB_AUTOGRAD_ATENCALLS_H
#define OPAL_LIB_AUTOGRAD_ATENCALLS_H

#include "opal/Autograd/Node.h"

namespace opal::autograd::detail {

/// a + b (aten::add.Tensor).
Tensor add(const Tensor &a, const Tensor &b);
/// aten::sum.dim_IntList(tensor, dims, keepdim).
Tensor sum(const Tensor &tensor, std::vector<int64_t> dims, bool keepdim);
/// A new tensor of zeros like the metadata.
Tensor zeros(const InputMetadata &metadata);

} // namespace opal::autograd::detail

#endif // OPAL_LIB_AUTOGRAD_ATENCALLS_H
