//===- ScalarElement.h - A number written into a tensor ---------*- C++ -*-===//
//
// One rule for every place where a Python or C++ number becomes an element
// of a tensor (fill_, full, `x[i] = v`): PyTorch's. A value the element's
// dtype cannot hold is refused with PyTorch's words ("value cannot be
// converted to type int8_t without overflow") instead of wrapping, rounding
// or becoming whatever an out-of-range conversion gives; an int64 value is
// written exactly, never through a double.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_RUNTIME_SCALARELEMENT_H
#define OPAL_RUNTIME_SCALARELEMENT_H

#include "opal/Runtime/Scalar.h"
#include "opal/Runtime/Tensor.h"

#include <string>

namespace opal {

/// "" if `value` fits an element of `dtype`, else PyTorch's error. As in
/// PyTorch (c10::overflows): an int fits an integer dtype within its range
/// (uint8 also takes -255..-1, which wrap to 1..255), float16 within
/// +-65504; a float fits an integer dtype when it is a number inside its
/// range, a floating dtype when it is inf, NaN or inside its finite range;
/// anything fits bool and the complex dtypes. A fill (`fill_`,
/// `torch.full`: `halfSaturates`) takes any number into float16 and
/// bfloat16, past their range as infinity, as PyTorch 2 does; an aten op's
/// Scalar (aten::full) does not.
std::string elementOverflowProblem(const Scalar &value, ScalarType dtype,
                                   bool halfSaturates = false);

/// Fills `tensor` with `value` after elementOverflowProblem's check (an
/// OpalError if it fails; float16 and bfloat16 saturate); an int value is
/// converted from int64 exactly.
Tensor &fillWithScalar(Tensor &tensor, const Scalar &value);

} // namespace opal

#endif // OPAL_RUNTIME_SCALARELEMENT_H
