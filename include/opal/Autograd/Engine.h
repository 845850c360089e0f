//===- Engine.h - Runs the backward graph -----------------------*- C++ -*-===//
//
// PyTorch's autograd engine on one thread: from the roots' grad_fns, every
// node runs once all the gradients flowing into it have arrived (the newest
// node first among those ready), its gradients are summed to the sizes and
// converted to the dtypes of the forward inputs, and leaves accumulate them
// into .grad. Backward formulas run with grad mode off.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_AUTOGRAD_ENGINE_H
#define OPAL_AUTOGRAD_ENGINE_H

#include "opal/Runtime/Tensor.h"

#include <vector>

namespace opal::autograd {

/// torch.autograd.backward: accumulates the gradients of `tensors` (seeded
/// with `grads`; an undefined one is 1 for a one-element tensor) into the
/// .grad of the leaves they depend on. Without `retainGraph` the graph's
/// saved tensors are freed.
void backward(const std::vector<Tensor> &tensors, const std::vector<Tensor> &grads,
              bool retainGraph);

/// torch.autograd.grad: the gradients of `outputs` with respect to
/// `inputs`, returned instead of accumulated (undefined for an input the
/// outputs do not depend on, when `allowUnused`).
std::vector<Tensor> grad(const std::vector<Tensor> &outputs, const std::vector<Tensor> &inputs,
                         const std::vector<Tensor> &gradOutputs, bool retainGraph,
                         bool allowUnused);

} // namespace opal::autograd

#endif // OPAL_AUTOGRAD_ENGINE_H
