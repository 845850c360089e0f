//===- VariableKernel.h - The kernels at the Autograd keys ------*- C++ -*-===//
//
// PyTorch's VariableType, as one boxed kernel per op registered at the
// Autograd alias key: when grad mode is on and an input requires grad, it
// saves what the op's derivative formula reads, calls the op below
// autograd, and makes the results outputs of a new backward node; otherwise
// it only calls the op below autograd. An op without a formula records a
// node that raises PyTorch's "the derivative for 'op' is not implemented."
// when a gradient reaches it.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_AUTOGRAD_VARIABLEKERNEL_H
#define OPAL_AUTOGRAD_VARIABLEKERNEL_H

#include "opal/Autograd/Formula.h"
#include "opal/Dispatch/KernelFunction.h"

#include <optional>

namespace opal::autograd {

/// The Autograd kernel of `op` with `formula` (null: no derivative). For an
/// op whose kernel is a CompositeImplicitAutograd decomposition, `composite`
/// is that kernel: a call that does not record runs it at the Autograd key,
/// as it would run without this kernel (so a dispatch mode sees the ops it
/// decomposes into, as in PyTorch).
KernelFunction makeVariableKernel(const OperatorHandle &op,
                                  std::shared_ptr<const Formula> formula,
                                  KernelFunction composite = KernelFunction());

/// Where a call that `kernel` takes at `keys` goes when it records nothing,
/// if `kernel` is a variable kernel (makeVariableKernel): its composite at
/// `keys`, or the op's kernel below autograd. nullopt if `kernel` is no
/// variable kernel, or the call (with this thread's grad mode) records.
struct PassedKernel {
  KernelFunction kernel;
  DispatchKeySet keys;
};
std::optional<PassedKernel> passThrough(const KernelFunction &kernel, const OperatorHandle &op,
                                        DispatchKeySet keys, const IValue *args);

} // namespace opal::autograd

#endif // OPAL_AUTOGRAD_VARIABLEKERNEL_H
