//===- InPlace.cpp - In-place writes under autograd -----------------------===//

#include "opal/Autograd/InPlace.h"

#include "opal/Autograd/AutogradMeta.h"
#include "opal/Autograd/Functions.h"
#include "opal/Autograd/GradMode.h"
#include "opal/Runtime/ScalarElement.h"
#include "opal/Support/Exceptions.h"

using namespace opal;
using namespace opal::autograd;

namespace {

/// Whether `tensor` may cover only part of its storage (a view): writing
/// into it would change another tensor's value behind autograd's back.
bool mayBeView(const Tensor &tensor) {
  if (AutogradMeta *meta = autogradMeta(tensor); meta && meta->isView)
    return true;
  const Storage &storage = tensor.impl()->storage();
  return storage && (tensor.storageOffset() != 0 || !tensor.isContiguous() ||
                     static_cast<size_t>(tensor.numel()) * elementSize(tensor.dtype()) !=
                         storage->nbytes());
}

/// Checks a write into `self` and returns the node it records, if any.
std::shared_ptr<Node> prepareWrite(const Tensor &self, const Tensor *source, const char *op) {
  if (!GradMode::isEnabled())
    return nullptr;
  bool selfNeeds = requiresGrad(self);
  bool sourceNeeds = source && requiresGrad(*source);
  if (!selfNeeds && !sourceNeeds)
    return nullptr;
  const Tensor &base = viewBaseOf(self);
  if (base.defined()) {
    // A write into a view: the base's history becomes the write (CopySlices).
    if (isLeaf(base) && requiresGrad(base))
      throw OpalError("a view of a leaf Variable that requires grad is being used in an "
                      "in-place operation.");
    if (!base.isContiguous())
      throw OpalError(std::string(op) +
                      ": writing under autograd into a view of a tensor that is not "
                      "contiguous is not supported yet; write into a contiguous copy");
    auto node = std::make_shared<CopySlices>(base, self);
    node->addNextEdge(gradientEdge(base));
    if (source)
      node->addNextEdge(gradientEdge(*source));
    node->addInput(base);
    return node;
  }
  if (selfNeeds && isLeaf(self))
    throw OpalError("a leaf Variable that requires grad is being used in an in-place operation.");
  if (mayBeView(self))
    throw OpalError(std::string(op) +
                    ": writing under autograd into a view whose base opal does not know (a "
                    "view made under no_grad, or by a kernel) is not supported; compute the "
                    "new value out of place (e.g. with where or cat) or write under "
                    "opal.no_grad()");
  auto node = std::make_shared<OverwriteBackward>(source ? "CopyBackwards" : "FillBackward0");
  node->addNextEdge(gradientEdge(self));
  if (source)
    node->addNextEdge(gradientEdge(*source));
  node->addInput(self);
  return node;
}

/// The write's history: the tensor's own, or its base's (then the view's
/// is the base's, viewed, rebuilt when next read).
void setWriteHistory(const Tensor &self, std::shared_ptr<Node> node) {
  if (!node)
    return;
  const Tensor &base = viewBaseOf(self);
  setHistory(base.defined() ? base : self, std::move(node), 0);
}

} // namespace

void autograd::copyInPlace(Tensor &self, const Tensor &source) {
  std::shared_ptr<Node> node = prepareWrite(self, &source, "copy_");
  self.copyFrom(source);
  setWriteHistory(self, std::move(node));
}

void autograd::fillInPlace(Tensor &self, const Scalar &value) {
  // Checked before anything is recorded: a refused value changes nothing.
  if (std::string problem = elementOverflowProblem(value, self.dtype(), true);
      !problem.empty())
    throw OpalError(problem);
  std::shared_ptr<Node> node = prepareWrite(self, nullptr, "fill_");
  fillWithScalar(self, value);
  setWriteHistory(self, std::move(node));
}
