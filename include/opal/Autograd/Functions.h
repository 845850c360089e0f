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

/// The backward of an in-place write (copy_, fill_) into a view of a base
/// (PyTorch's CopySlices): the base's new history. The base's gradient
/// goes on to its old history with the written part zeroed; that part goes
/// to the source (if any). Edge 0 is the base's old history, edge 1 the
/// source's.
class CopySlices : public Node {
public:
  CopySlices(const Tensor &base, const Tensor &view);
  std::vector<Tensor> apply(std::vector<Tensor> &&grads) override;
  std::string name() const override { return "CopySlices"; }

private:
  DimVector sizes_, strides_;
  int64_t offset_; ///< the view's, from the base's first element
};

/// The history of a view whose memory was written since it was made: the
/// base's history viewed again (aten_backward::as_strided's formula).
class ViewOfBaseBackward : public Node {
public:
  ViewOfBaseBackward(Tensor base, const Tensor &view);
  std::vector<Tensor> apply(std::vector<Tensor> &&grads) override;
  std::string name() const override { return "AsStridedBackward0"; }

private:
  Tensor base_;
  std::vector<int64_t> sizes_, strides_;
  int64_t offset_;
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
