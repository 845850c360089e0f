//===- Node.h - A function of the backward graph ----------------*- C++ -*-===//
//
// Recording an op creates a Node: it holds what the op's derivative needs
// and an Edge to the node of each forward input that requires grad (the
// input's own grad_fn, or the AccumulateGrad of a leaf). The engine calls
// apply() with the gradients of the op's outputs (the node's inputs) and
// sends the returned gradients of the op's inputs along the edges.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_AUTOGRAD_NODE_H
#define OPAL_AUTOGRAD_NODE_H

#include "opal/Runtime/Tensor.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace opal::autograd {

class Node;
struct RetainedGrad;

/// A tensor's gradient hook (register_hook): given the gradient, returns a
/// replacement, or an undefined tensor to keep it.
using GradHook = std::function<Tensor(const Tensor &)>;

/// The hooks of one tensor, in registration order, each with the number
/// its handle removes it by.
struct GradHooks {
  std::vector<std::pair<int64_t, GradHook>> hooks;
  int64_t nextId = 0;
  /// `grad` through every hook in order; a replacement must keep its sizes.
  Tensor run(Tensor grad) const;
};

/// Input `inputNr` of `function`; an invalid edge leads nowhere (an input
/// that does not require grad).
struct Edge {
  std::shared_ptr<Node> function;
  uint32_t inputNr = 0;
  bool valid() const { return function != nullptr; }
};

/// What a gradient flowing into one input of a node must look like: the
/// forward tensor's sizes, dtype and device. The engine sums a broadcast
/// gradient back to these sizes and converts it to this dtype.
struct InputMetadata {
  DimVector sizes;
  ScalarType dtype = ScalarType::Float;
  Device device{DeviceType::CPU};
};

class Node {
public:
  Node();
  /// Frees the graph behind this node without recursion: a chain of a
  /// million recorded ops is freed in a loop, not a million nested
  /// destructor calls (which overflowed the stack at ~150k).
  virtual ~Node();
  Node(const Node &) = delete;
  Node &operator=(const Node &) = delete;

  /// Gradients of the forward outputs (one per input of this node,
  /// undefined where none flowed) to gradients of the forward inputs (one
  /// per next edge, undefined where there is none).
  virtual std::vector<Tensor> apply(std::vector<Tensor> &&grads) = 0;
  /// PyTorch's name of the node's class, e.g. "MulBackward0".
  virtual std::string name() const = 0;
  /// Frees the saved tensors (after a backward without retain_graph).
  virtual void releaseVariables() {}

  const std::vector<Edge> &nextEdges() const { return next_; }
  void addNextEdge(Edge edge) { next_.push_back(std::move(edge)); }
  /// Declares the next input of this node, a forward output like `output`;
  /// returns its number.
  uint32_t addInput(const Tensor &output);
  uint32_t numInputs() const { return static_cast<uint32_t>(inputs_.size()); }
  const InputMetadata &inputMetadata(uint32_t index) const { return inputs_[index]; }
  /// Creation order: among the nodes that are ready, the engine runs the
  /// newest first, as PyTorch does.
  uint64_t sequenceNr() const { return sequenceNr_; }

  /// The non-leaf tensors whose .grad retains the gradient flowing into
  /// input `first` of this node (retain_grad()).
  std::vector<std::pair<uint32_t, std::weak_ptr<RetainedGrad>>> retainedGrads;
  /// The hooks of the non-leaf tensors whose gradient flows into input
  /// `first` of this node (a leaf's hooks live on its AutogradMeta).
  std::vector<std::pair<uint32_t, std::shared_ptr<GradHooks>>> gradHooks;

private:
  std::vector<Edge> next_;
  std::vector<InputMetadata> inputs_;
  uint64_t sequenceNr_;
};

/// Sums `grad` to `metadata`'s sizes (where the forward broadcast) and
/// converts it to its dtype; throws if the sizes cannot have broadcast.
Tensor fitGradient(Tensor grad, const InputMetadata &metadata, const Node &producer,
                   uint32_t outputIndex);

} // namespace opal::autograd

#endif // OPAL_AUTOGRAD_NODE_H
