//===- AutogradMeta.h - A tensor's part in autograd -------------*- C++ -*-===//
//
// The autograd state of one tensor: whether it is a leaf that requires
// grad, its accumulated .grad, and, for a result of a recorded op, the node
// that computed it (grad_fn) and which of that node's inputs it is.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_AUTOGRAD_AUTOGRADMETA_H
#define OPAL_AUTOGRAD_AUTOGRADMETA_H

#include "opal/Autograd/Node.h"
#include "opal/Dispatch/IValue.h"
#include "opal/Schema/FunctionSchema.h"

namespace opal::autograd {

/// The .grad of a non-leaf after retain_grad(): the tensor's state owns it,
/// its grad_fn reaches it weakly (no cycle through the graph).
struct RetainedGrad {
  Tensor grad;
};

struct AutogradMeta : AutogradMetaInterface {
  /// A leaf's flag (a result requires grad through its grad_fn).
  bool requiresGrad = false;
  /// A non-leaf's .grad is kept only after retain_grad().
  bool retainsGrad = false;
  /// The result of a view op (its storage is another tensor's).
  bool isView = false;
  /// A view's base, the tensor whose memory it shows (a view of a view
  /// has the first one's base), recorded for views made in grad mode; and
  /// the storage's version when the view's history was last set. A write
  /// into the memory since then (through the base or any view of it)
  /// makes that history stale: gradFn() rebuilds it as a view of the
  /// base's current history (PyTorch's view tracking).
  Tensor viewBase;
  uint32_t viewVersion = 0;
  Tensor grad;
  std::shared_ptr<Node> gradFn;
  uint32_t outputNr = 0;
  /// A leaf's AccumulateGrad, while some graph holds it.
  std::weak_ptr<Node> gradAccumulator;
  /// A non-leaf's .grad after retain_grad().
  std::shared_ptr<RetainedGrad> retained;
  /// The tensor's gradient hooks (register_hook), shared with its
  /// grad_fn for a non-leaf.
  std::shared_ptr<GradHooks> hooks;
};

/// The tensor's autograd state, or null if it never had any.
AutogradMeta *autogradMeta(const Tensor &tensor);
/// The tensor's autograd state, created if needed.
AutogradMeta &materializeAutogradMeta(const Tensor &tensor);

/// A leaf with requires_grad set, or the result of a recorded op.
inline bool requiresGrad(const TensorImpl *impl) {
  const auto *meta = impl ? static_cast<const AutogradMeta *>(impl->autogradMeta()) : nullptr;
  if (!meta)
    return false;
  if (meta->requiresGrad || meta->gradFn)
    return true;
  // A view made before its base came to require grad (a write into
  // another view of it) does too.
  return meta->viewBase.defined() && requiresGrad(meta->viewBase.impl());
}
inline bool requiresGrad(const Tensor &tensor) { return requiresGrad(tensor.impl()); }
/// Whether an argument (a tensor, or a Tensor[] or Tensor?[]) holds a
/// tensor that requires grad; allocates nothing (every call asks).
bool anyRequiresGrad(const IValue &value);
inline bool isLeaf(const Tensor &tensor) {
  auto *meta = autogradMeta(tensor);
  return !meta || !meta->gradFn;
}
const std::shared_ptr<Node> &gradFn(const Tensor &tensor);
/// PyTorch's requires_grad_(): leaves of floating dtype only.
void setRequiresGrad(const Tensor &tensor, bool requiresGrad);
/// Where a gradient of `tensor` goes: its grad_fn's input, or a leaf's
/// AccumulateGrad (created on first use); invalid if it requires no grad.
Edge gradientEdge(const Tensor &tensor);
/// PyTorch's retain_grad(): a non-leaf keeps the gradient backward computes
/// for it in .grad (a no-op for a leaf).
void retainGrad(const Tensor &tensor);
/// The tensor's .grad: a leaf's accumulated one, or a non-leaf's retained one.
Tensor gradOf(const Tensor &tensor);
/// PyTorch's register_hook: `hook` sees (and may replace) each gradient
/// computed for `tensor`, before it is accumulated or passed on; returns
/// the number removeHook takes. Throws if the tensor requires no grad.
int64_t registerHook(const Tensor &tensor, GradHook hook);
/// Removes a hook registerHook returned (nothing if it is gone).
void removeHook(const Tensor &tensor, int64_t id);
/// Sets (or, undefined, clears) the tensor's .grad.
void setGrad(const Tensor &tensor, Tensor grad);
/// Makes `tensor` output `outputNr` of `fn` (its grad_fn).
void setHistory(const Tensor &tensor, std::shared_ptr<Node> fn, uint32_t outputNr);
/// Records that `view` (a view op's result, made in grad mode) shows the
/// memory of `input` (or of its base).
void setViewBase(const Tensor &view, const Tensor &input);
/// The base `tensor` is a view of, or undefined.
const Tensor &viewBaseOf(const Tensor &tensor);
/// A new tensor over the same storage, with no autograd history.
Tensor detach(const Tensor &tensor);
/// Whether a call with `args` (the schema's arguments) records for
/// autograd: grad mode is on and a tensor argument requires grad.
bool recordsCall(const FunctionSchema &schema, const IValue *args);
/// "[opal.FloatTensor [2, 3]]", as PyTorch describes a tensor in errors.
std::string typeDescription(const Tensor &tensor);

} // namespace opal::autograd

#endif // OPAL_AUTOGRAD_AUTOGRADMETA_H
