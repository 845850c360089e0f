//===- Functions.h - The nodes of the backward graph ------------*- C++ -*-===//

#ifndef OPAL_AUTOGRAD_FUNCTIONS_H
#define OPAL_AUTOGRAD_FUNCTIONS_H

#include "opal/Autograd/Formula.h"
#include "opal/Autograd/SavedVariable.h"
#include "opal/Dispatch/IValue.h"

namespace opal::autograd {

/// Adds the gradient that reaches a leaf into its .grad.
class AccumulateGrad : public Node {
public:
  explicit AccumulateGrad(Tensor variable) : variable_(std::move(variable)) {
    addInput(variable_);
  }
  std::vector<Tensor> apply(std::vector<Tensor> &&grads) override;
  std::string name() const override { return "AccumulateGrad"; }
  const Tensor &variable() const { return variable_; }

private:
  Tensor variable_;
};

/// The backward of an op that has no derivative: raises PyTorch's error
/// when a gradient reaches it.
class NotImplementedBackward : public Node {
public:
  explicit NotImplementedBackward(std::string op) : op_(std::move(op)) {}
  std::vector<Tensor> apply(std::vector<Tensor> &&grads) override;
  std::string name() const override { return "NotImplemented"; }

private:
  std::string op_;
};

/// The backward of an in-place write of a whole tensor (copy_, fill_): the
/// tensor's old value gets no gradient, the source (if any) all of it.
class OverwriteBackward : public Node {
public:
  explicit OverwriteBackward(std::string name) : name_(std::move(name)) {}
  std::vector<Tensor> apply(std::vector<Tensor> &&grads) override;
  std::string name() const override { return name_; }

private:
  std::string name_;
};

/// The backward of an op with a derivative formula: calls the formula's
/// ops with the saved values.
class FormulaBackward : public Node {
public:
  /// Where the gradients of one forward argument go: `count` next edges
  /// from `first` (one for a tensor, one per element for a Tensor[]).
  struct Edges {
    int32_t first = -1;
    int32_t count = 0;
  };
  /// Which forward result a node input is the gradient of (`element` of a
  /// Tensor[] result, -1 for a tensor).
  struct ResultSlot {
    uint32_t result;
    int32_t element;
  };

  FormulaBackward(std::shared_ptr<const Formula> formula, std::vector<Edges> edgesOfArgument)
      : formula_(std::move(formula)), edgesOfArgument_(std::move(edgesOfArgument)) {}
  std::vector<Tensor> apply(std::vector<Tensor> &&grads) override;
  std::string name() const override { return formula_->nodeName; }
  void releaseVariables() override;

  /// The forward values the formula reads (filled while recording).
  std::vector<SavedVariable> savedTensors;
  std::vector<IValue> savedValues; ///< per argument, None where a tensor is saved
  std::vector<SavedVariable> savedResults;
  /// Per node input: the forward result it is the gradient of.
  std::vector<ResultSlot> resultOfInput;
  /// Per forward result: the number of elements of a Tensor[] result, -1
  /// for any other result.
  std::vector<int32_t> resultListSizes;

private:
  std::shared_ptr<const Formula> formula_;
  std::vector<Edges> edgesOfArgument_;
};

} // namespace opal::autograd

#endif // OPAL_AUTOGRAD_FUNCTIONS_H
