//===- Functions.cpp - The nodes of the backward graph --------------------===//

#include "opal/Autograd/Functions.h"

#include "AtenCalls.h"

#include "opal/Autograd/AutogradMeta.h"
#include "opal/Support/Exceptions.h"

using namespace opal;
using namespace opal::autograd;

std::vector<Tensor> AccumulateGrad::apply(std::vector<Tensor> &&grads) {
  Tensor grad = std::move(grads.at(0));
  if (!grad.defined())
    return {};
  AutogradMeta &meta = materializeAutogradMeta(variable_);
  if (!meta.grad.defined()) {
    // A gradient nothing else holds becomes .grad; one that is also held
    // elsewhere (a gradient the caller passed in) is copied first.
    meta.grad = grad.useCount() == 1 && grad.isContiguous() ? grad : grad.clone();
  } else {
    meta.grad = autograd::detail::add(meta.grad, grad);
  }
  return {};
}

std::vector<Tensor> NotImplementedBackward::apply(std::vector<Tensor> &&) {
  throw OpalError("the derivative for '" + op_ + "' is not implemented.");
}

std::vector<Tensor> OverwriteBackward::apply(std::vector<Tensor> &&grads) {
  std::vector<Tensor> result(nextEdges().size());
  // Edge 0 is the overwritten value's history: it gets no gradient (left
  // undefined, which the engine treats as zero). Edge 1, if there, is the
  // source's.
  if (result.size() > 1)
    result[1] = std::move(grads.at(0));
  return result;
}

std::vector<Tensor> FormulaBackward::apply(std::vector<Tensor> &&grads) {
  const Formula &formula = *formula_;
  std::vector<Tensor> gradOfResult(savedResults.size());
  std::vector<int32_t> inputOfResult(savedResults.size(), -1);
  for (uint32_t j = 0; j < resultOfInput.size(); ++j) {
    gradOfResult[resultOfInput[j]] = std::move(grads.at(j));
    inputOfResult[resultOfInput[j]] = static_cast<int32_t>(j);
  }
  std::vector<Tensor> result(nextEdges().size());
  for (const FormulaOp &op : formula.ops) {
    if (!formula.joint) {
      int32_t edge = edgeOfArgument_[op.gradientOf.front()];
      if (edge < 0 || !nextEdges()[edge].valid())
        continue;
    }
    Stack stack;
    stack.reserve(op.arguments.size());
    for (const FormulaBinding &binding : op.arguments) {
      switch (binding.kind) {
      case FormulaBinding::Grad: {
        Tensor &grad = gradOfResult[binding.index];
        if (!grad.defined() && inputOfResult[binding.index] >= 0)
          grad = autograd::detail::zeros(inputMetadata(inputOfResult[binding.index]));
        stack.emplace_back(grad.defined() ? IValue(grad) : IValue());
        break;
      }
      case FormulaBinding::Result:
        stack.emplace_back(savedResults[binding.index].unpack(*this));
        break;
      case FormulaBinding::Argument:
        if (savedTensors[binding.index].saved())
          stack.emplace_back(savedTensors[binding.index].unpack(*this));
        else
          stack.emplace_back(savedValues[binding.index]);
        break;
      }
    }
    op.op.callBoxed(stack);
    size_t count = op.gradientOf.size();
    for (size_t k = 0; k < count; ++k) {
      IValue &value = stack[stack.size() - count + k];
      int32_t edge = edgeOfArgument_[op.gradientOf[k]];
      if (edge >= 0 && value.isTensor())
        result[edge] = std::move(value).toTensor();
    }
  }
  return result;
}

void FormulaBackward::releaseVariables() {
  for (SavedVariable &saved : savedTensors)
    saved.release();
  for (SavedVariable &saved : savedResults)
    saved.release();
}
