//===- SavedVariable.cpp - A tensor kept for the backward -----------------===//

#include "opal/Autograd/SavedVariable.h"

#include "opal/Autograd/AutogradMeta.h"
#include "opal/Support/Exceptions.h"

using namespace opal;
using namespace opal::autograd;

SavedVariable::SavedVariable(const Tensor &tensor, bool isOutput, bool geometryOnly)
    : isOutput_(isOutput), geometryOnly_(geometryOnly) {
  if (!tensor.defined())
    return;
  data_ = detach(tensor);
  version_ = tensor.version();
  if (!isOutput)
    if (const auto &fn = gradFn(tensor)) {
      producer_ = fn->name();
      producerOutput_ = autogradMeta(tensor)->outputNr;
    }
}

Tensor SavedVariable::unpack(const Node &owner) const {
  if (released_)
    throw OpalError(
        "Trying to backward through the graph a second time (or directly access saved "
        "tensors after they have already been freed). Saved intermediate values of the graph "
        "are freed when you call .backward() or autograd.grad(). Specify retain_graph=True if "
        "you need to backward through the graph a second time or if you need to access saved "
        "tensors after calling backward.");
  if (!data_.defined())
    return data_;
  uint32_t now = data_.version();
  if (now != version_ && !geometryOnly_) {
    // PyTorch 2 names the op ("Exp"), not its backward node ("ExpBackward0").
    auto opName = [](const std::string &node) {
      size_t at = node.rfind("Backward");
      return at == std::string::npos || at == 0 ? node : node.substr(0, at);
    };
    std::string which;
    if (isOutput_)
      which = ", which is output 0 of " + opName(owner.name()) + ",";
    else if (!producer_.empty())
      which = ", which is output " + std::to_string(producerOutput_) + " of " +
              opName(producer_) + ",";
    throw OpalError("one of the variables needed for gradient computation has been modified "
                    "by an inplace operation: " + typeDescription(data_) + which +
                    " is at version " + std::to_string(now) + "; expected version " +
                    std::to_string(version_) +
                    " instead. Hint: the backward of " + owner.name() +
                    " reads this tensor; write into a clone() of it instead.");
  }
  return data_;
}
