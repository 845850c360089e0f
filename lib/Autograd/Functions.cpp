//===- Functions.cpp - The nodes of the backward graph --------------------===//

#include "opal/Autograd/Functions.h"

#include "AtenCalls.h"

#include "opal/Autograd/AutogradMeta.h"
#include "opal/Dispatch/Dispatcher.h"
#include "opal/Support/Exceptions.h"

#include <algorithm>

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

CopySlices::CopySlices(const Tensor &base, const Tensor &view)
    : sizes_(view.sizes()), strides_(view.strides()),
      offset_(view.storageOffset() - base.storageOffset()) {}

std::vector<Tensor> CopySlices::apply(std::vector<Tensor> &&grads) {
  std::vector<Tensor> result(nextEdges().size());
  Tensor grad = std::move(grads.at(0));
  if (!grad.defined())
    return result;
  // The base is contiguous (InPlace.cpp checks): the view's geometry picks
  // its part of a contiguous copy of the gradient.
  Tensor base = grad.clone();
  Tensor part = base.asStrided(sizes_, strides_, offset_);
  if (result.size() > 1)
    result[1] = part.clone();
  part.fill(0.0);
  result[0] = std::move(base);
  return result;
}

ViewOfBaseBackward::ViewOfBaseBackward(Tensor base, const Tensor &view)
    : base_(std::move(base)), sizes_(view.sizes().begin(), view.sizes().end()),
      strides_(view.strides().begin(), view.strides().end()), offset_(view.storageOffset()) {}

std::vector<Tensor> ViewOfBaseBackward::apply(std::vector<Tensor> &&grads) {
  Tensor grad = std::move(grads.at(0));
  if (!grad.defined())
    return {Tensor()};
  // (A built-in op: found once.)
  static const OperatorHandle asStrided =
      Dispatcher::singleton().findSchemaOrThrow("aten_backward::as_strided", "");
  Stack stack{IValue(grad), IValue(base_), IValue(sizes_), IValue(strides_), IValue(offset_)};
  asStrided.callBoxed(stack);
  return {std::move(stack.back()).toTensor()};
}

std::vector<Tensor> FormulaBackward::apply(std::vector<Tensor> &&grads) {
  const Formula &formula = *formula_;
  size_t numResults = resultListSizes.size();
  // The gradients per forward result (a list for a Tensor[] result), and
  // the node input each came in at (to make zeros for those that did not).
  std::vector<Tensor> gradOfResult(numResults);
  std::vector<int32_t> inputOfResult(numResults, -1);
  std::vector<std::vector<Tensor>> gradLists(numResults);
  std::vector<std::vector<int32_t>> inputOfElement(numResults);
  for (uint32_t r = 0; r < numResults; ++r) {
    size_t elements = static_cast<size_t>(std::max(resultListSizes[r], 0));
    gradLists[r].resize(elements);
    inputOfElement[r].assign(elements, -1);
  }
  for (uint32_t j = 0; j < resultOfInput.size(); ++j) {
    auto [r, element] = resultOfInput[j];
    if (element < 0) {
      gradOfResult[r] = std::move(grads.at(j));
      inputOfResult[r] = static_cast<int32_t>(j);
    } else {
      gradLists[r][element] = std::move(grads.at(j));
      inputOfElement[r][element] = static_cast<int32_t>(j);
    }
  }
  auto needed = [&](uint32_t argument) {
    const Edges &edges = edgesOfArgument_[argument];
    for (int32_t e = edges.first; e >= 0 && e < edges.first + edges.count; ++e)
      if (nextEdges()[e].valid())
        return true;
    return false;
  };
  std::vector<Tensor> result(nextEdges().size());
  for (const FormulaOp &op : formula.ops) {
    if (!formula.joint && !needed(op.gradientOf.front()))
      continue;
    Stack stack;
    stack.reserve(op.arguments.size());
    for (const FormulaBinding &binding : op.arguments) {
      switch (binding.kind) {
      case FormulaBinding::Grad: {
        uint32_t r = binding.index;
        if (resultListSizes[r] >= 0) {
          std::vector<Tensor> list = gradLists[r];
          for (size_t e = 0; e < list.size(); ++e)
            if (!list[e].defined() && inputOfElement[r][e] >= 0)
              list[e] = detail::zeros(inputMetadata(inputOfElement[r][e]));
          stack.emplace_back(IValue(std::move(list)));
          break;
        }
        Tensor &grad = gradOfResult[r];
        if (!grad.defined() && inputOfResult[r] >= 0)
          grad = detail::zeros(inputMetadata(inputOfResult[r]));
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
      const Edges &edges = edgesOfArgument_[op.gradientOf[k]];
      if (edges.first < 0)
        continue;
      if (value.isTensor()) {
        result[edges.first] = std::move(value).toTensor();
      } else if (value.isTensorList()) {
        const std::vector<Tensor> &list = value.toTensorList();
        if (list.size() != static_cast<size_t>(edges.count))
          throw OpalError(name() + ": the derivative " + op.op.operatorName().str() + " gave " +
                          std::to_string(list.size()) + " gradients for a list of " +
                          std::to_string(edges.count) + " tensors");
        for (int32_t e = 0; e < edges.count; ++e)
          result[edges.first + e] = list[e];
      }
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
