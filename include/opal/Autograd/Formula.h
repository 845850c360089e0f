//===- Formula.h - Derivative formulas as ops -------------------*- C++ -*-===//
//
// The derivative of an op `ns::name.overload` is an op of the namespace
// `ns_backward` (lib/Library/derivatives.opal.mlir for aten), defined like
// any op: a schema and an MLIR decomposition, so a backward runs as one
// compiled, cached kernel. Either one op gives the gradients of several
// inputs at once:
//
//   aten_backward::mul.Tensor(Tensor grad, Tensor self, Tensor other)
//       -> (Tensor self, Tensor other)
//
// or one op per input, named after it, so that a gradient nobody needs is
// never computed (the matrix products of mm):
//
//   aten_backward::mm.self(Tensor grad, Tensor mat2) -> Tensor
//   aten_backward::mm.mat2(Tensor grad, Tensor self) -> Tensor
//
// (for an overloaded op the per-input overload is `<overload>_<input>`).
// A formula's arguments are bound by name: `grad` is the gradient of the
// op's only result (`grad_<name>` or `grad<i>` for result i of several),
// `result` the op's result (`<name>` or `result<i>`), and any other name an
// argument of the op, as the forward call passed it. A joint formula's
// results are named after the inputs whose gradients they are.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_AUTOGRAD_FORMULA_H
#define OPAL_AUTOGRAD_FORMULA_H

#include "opal/Dispatch/Dispatcher.h"
#include "opal/Support/Expected.h"

#include <memory>
#include <optional>

namespace opal::autograd {

/// What one argument of a formula op receives.
struct FormulaBinding {
  enum Kind : uint8_t { Grad, Result, Argument } kind;
  uint32_t index; ///< the forward op's result or argument
};

struct FormulaOp {
  OperatorHandle op;
  std::vector<FormulaBinding> arguments;
  /// Per result of the formula: the forward argument it is the gradient of.
  std::vector<uint32_t> gradientOf;
};

/// The derivative of one forward op.
struct Formula {
  /// "MulBackward0": the node name PyTorch gives the op's backward.
  std::string nodeName;
  /// One joint op, or one op per differentiable input.
  std::vector<FormulaOp> ops;
  bool joint = false;
  /// Per forward argument: whether a formula reads it (it is saved).
  std::vector<bool> savesArgument;
  /// Per forward result: whether a formula reads it.
  std::vector<bool> savesResult;
  /// Per forward argument: whether the formula gives its gradient.
  std::vector<bool> differentiable;
};

/// The formula of `forward`: nullopt if its namespace `<ns>_backward` has
/// none; an error naming the formula op and what does not fit if one
/// exists but cannot bind.
Expected<std::optional<Formula>> findFormula(const OperatorHandle &forward);

/// Tensor or Tensor?: the arguments and results autograd differentiates.
bool isSingleTensor(const SchemaType &type);
/// Tensor[]: differentiated element by element (cat's inputs, split's
/// results); its formulas take and give lists.
bool isTensorList(const SchemaType &type);

/// "MulBackward0" for aten::mul.Tensor, "MylibSoftplusBackward0" for
/// mylib::softplus: PyTorch's node names for aten ops (whose overloads are
/// not numbered here), the namespace in front for other ops.
std::string nodeNameFor(const OperatorName &op);

} // namespace opal::autograd

#endif // OPAL_AUTOGRAD_FORMULA_H
