//===- DerivedGradients.h - Backwards derived from decompositions -*- C++ -*-===//
//
// An op whose kernel is an MLIR decomposition (a user's op library, a traced
// Python function, aten's CompositeImplicitAutograd ops without a formula)
// gets its backward derived from the decomposition the first time a call
// records: the compiler runs opal-derive-backward, the result is defined as
// the op `<ns>_backward::<op>` (an MLIR kernel, compiled and cached like any
// other), and the call records one node whose formula it is, around the
// fused forward kernel. Where it cannot be derived (an op without a
// formula, a branching body) the decomposition runs op by op instead and
// its ops record themselves; OPAL_LOG=jit says why.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_JIT_DERIVEDGRADIENTS_H
#define OPAL_JIT_DERIVEDGRADIENTS_H

#include "opal/Dispatch/Dispatcher.h"

namespace opal::jit {

/// The Autograd kernel of `op` with its derived formula, derived on first
/// use for the decomposition kernel `decomposition` (a new registration of
/// the op's decomposition derives again); invalid if there is none.
KernelFunction derivedVariableKernel(const OperatorHandle &op, const OperatorKernel *decomposition);

} // namespace opal::jit

#endif // OPAL_JIT_DERIVEDGRADIENTS_H
