//===- SavedVariable.h - A tensor kept for the backward ---------*- C++ -*-===//
//
// A node keeps the tensors its derivative reads as SavedVariables: an alias
// of the tensor without autograd state (so a node that saves its own output
// forms no reference cycle) and the tensor's version when saved. Unpacking
// checks that no in-place write came in between and that the graph was not
// freed by an earlier backward, with PyTorch's errors.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_AUTOGRAD_SAVEDVARIABLE_H
#define OPAL_AUTOGRAD_SAVEDVARIABLE_H

#include "opal/Autograd/Node.h"

namespace opal::autograd {

class SavedVariable {
public:
  SavedVariable() = default;
  /// Saves `tensor`; `isOutput`: it is an output of `owner`'s op (errors
  /// then name the owner; for an input they name the input's grad_fn).
  /// `geometryOnly`: the backward reads only its sizes, strides and dtype
  /// (a view op's input), which no in-place write changes: unpacking skips
  /// the version check.
  SavedVariable(const Tensor &tensor, bool isOutput, bool geometryOnly = false);

  /// Whether a tensor was saved here (it may have been released since).
  bool saved() const { return data_.defined() || released_; }
  /// The saved tensor; throws if it was freed or written in place since.
  Tensor unpack(const Node &owner) const;
  /// Takes the tensor's current version as the saved one (after the op
  /// that saved it ran: an op that updates a buffer in place, batch norm's
  /// running statistics, does not invalidate its own save).
  void refreshVersion() {
    if (data_.defined())
      version_ = data_.version();
  }
  void release() {
    if (data_.defined())
      released_ = true;
    data_ = Tensor();
  }

private:
  Tensor data_;
  uint32_t version_ = 0;
  bool isOutput_ = false;
  bool released_ = false;
  bool geometryOnly_ = false;
  /// For an input that was a result: its grad_fn's name and output number.
  std::string producer_;
  uint32_t producerOutput_ = 0;
};

} // namespace opal::autograd

#endif // OPAL_AUTOGRAD_SAVEDVARIABLE_H
