//===- InPlace.h - Whole-tensor writes under autograd -----------*- C++ -*-===//
//
// Tensor.copy_ and Tensor.fill_ with PyTorch's autograd rules: a leaf that
// requires grad cannot be written in grad mode; a written tensor's history
// becomes the write (the old value gets no gradient, the copied source all
// of it), and its version rises, so a backward that saved it raises.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_AUTOGRAD_INPLACE_H
#define OPAL_AUTOGRAD_INPLACE_H

#include "opal/Runtime/Scalar.h"
#include "opal/Runtime/Tensor.h"

namespace opal::autograd {

void copyInPlace(Tensor &self, const Tensor &source);
void fillInPlace(Tensor &self, const Scalar &value);

} // namespace opal::autograd

#endif // OPAL_AUTOGRAD_INPLACE_H
