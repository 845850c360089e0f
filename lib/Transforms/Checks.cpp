//===- Checks.cpp - Conditions over lists, reduction-dims and padding checks ===//
//
// opal.list_eq, opal.ends_with and opal.list_len compute the conditions of
// opal.check and opal.static_if from shapes and int lists: constants where
// the sizes are known for the use, `arith.cmpi` of the sizes otherwise (an
// opal.check then checks them per call); opal.first_negative knows that a
// tensor's sizes, and sums and products of them, are not negative.
// opal.check_reduction_dims becomes one opal.assert per size it needs to
// be non-zero, opal.check_padding one per dim that negative padding crops,
// opal.check_repeats one per negative repeat count, opal.check_edge_padding
// those of reflected and replicated padding; opal.conv_params checks a
// convolution's int lists and gives each one entry per spatial dim.
//
//===----------------------------------------------------------------------===//

#include "TypeDirectedImpl.h"

#include "PrimUtils.h"
#include "opal/Dialect/OpalOps.h"
#include "opal/Dialect/OpalTypes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace opal::ir;
using namespace opal::ir::detail;

namespace {

/// The elements of an `opal.list`, or failure with the problem set.
FailureOr<SmallVector<Value>> listElements(Value list, std::string &problem) {
  auto op = list.getDefiningOp<ListOp>();
  if (!op) {
    problem = "needs lists whose elements are known for the use";
    return failure();
  }
  return SmallVector<Value>(op.getElements());
}

/// Whether `value` (an i64) is known to be at least 0: a size of a tensor,
/// a non-negative constant, or a sum, product or maximum of such values.
bool knownNonNegative(Value value, unsigned depth = 0) {
  if (std::optional<int64_t> constant = constantInt(value))
    return *constant >= 0;
  if (depth > 8)
    return false;
  if (auto cast = value.getDefiningOp<arith::IndexCastOp>())
    return cast.getIn().getDefiningOp<tensor::DimOp>() != nullptr;
  Operation *op = value.getDefiningOp();
  if (isa_and_nonnull<arith::AddIOp, arith::MulIOp, arith::MaxSIOp>(op))
    return knownNonNegative(op->getOperand(0), depth + 1) &&
           knownNonNegative(op->getOperand(1), depth + 1);
  return false;
}

Value constantBool(OpBuilder &b, Location loc, bool value) {
  return arith::ConstantIntOp::create(b, loc, value ? 1 : 0, 1);
}

/// Whether `lhs[i] == rhs[i]` for all i (the ranges have one length): a
/// constant where the elements are, `arith.cmpi eq` and-ed otherwise.
Value elementsEqual(OpBuilder &b, Location loc, ValueRange lhs, ValueRange rhs) {
  Value all;
  for (auto [l, r] : llvm::zip(lhs, rhs)) {
    std::optional<int64_t> a = constantInt(l), c = constantInt(r);
    if (a && c) {
      if (*a != *c)
        return constantBool(b, loc, false);
      continue;
    }
    Value equal = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, l, r);
    all = all ? arith::AndIOp::create(b, loc, all, equal).getResult() : equal;
  }
  return all ? all : constantBool(b, loc, true);
}

/// Whether dim `d` of a tensor of `type` (its size `size`) is at least
/// `needed`: a constant where the size is static.
Value sizeAtLeast(OpBuilder &b, Location loc, RankedTensorType type, Value size, int64_t d,
                  int64_t needed) {
  if (!type.isDynamicDim(d))
    return constantBool(b, loc, type.getDimSize(d) >= needed);
  return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, size,
                               constantI64(b, loc, needed));
}

/// An opal.assert of `condition` with a message without placeholders.
void assertThat(OpBuilder &b, Location loc, Value condition, const std::string &message) {
  std::string escaped;
  for (char c : message) {
    if (c == '{' || c == '}')
      escaped += c;
    escaped += c;
  }
  AssertOp::create(b, loc, condition, escaped, ValueRange(), b.getDenseI32ArrayAttr({}));
}

} // namespace

Expanded opal::ir::detail::expandListEq(OpBuilder &b, Operation *op, ValueRange operands,
                                        std::string &problem) {
  auto lhs = listElements(operands[0], problem);
  if (failed(lhs))
    return failure();
  auto rhs = listElements(operands[1], problem);
  if (failed(rhs))
    return failure();
  if (lhs->size() != rhs->size())
    return SmallVector<Value>{constantBool(b, op->getLoc(), false)};
  return SmallVector<Value>{elementsEqual(b, op->getLoc(), ValueRange(*lhs), ValueRange(*rhs))};
}

Expanded opal::ir::detail::expandEndsWith(OpBuilder &b, Operation *op, ValueRange operands,
                                          std::string &problem) {
  auto list = listElements(operands[0], problem);
  if (failed(list))
    return failure();
  auto suffix = listElements(operands[1], problem);
  if (failed(suffix))
    return failure();
  if (suffix->size() > list->size())
    return SmallVector<Value>{constantBool(b, op->getLoc(), false)};
  ValueRange tail = ValueRange(*list).take_back(suffix->size());
  return SmallVector<Value>{elementsEqual(b, op->getLoc(), tail, ValueRange(*suffix))};
}

Expanded opal::ir::detail::expandListLen(OpBuilder &b, Operation *op, ValueRange operands,
                                         std::string &problem) {
  auto list = listElements(operands[0], problem);
  if (failed(list))
    return failure();
  return SmallVector<Value>{constantI64(b, op->getLoc(), static_cast<int64_t>(list->size()))};
}

Expanded opal::ir::detail::expandListItem(OpBuilder &b, Operation *op, ValueRange operands,
                                          std::string &problem) {
  auto list = listElements(operands[0], problem);
  if (failed(list))
    return failure();
  int64_t index = cast<ListItemOp>(op).getIndex();
  if (index < 0 || index >= static_cast<int64_t>(list->size()))
    return expansionFailure(problem, "index " + std::to_string(index) + " is outside a list of " +
                                         std::to_string(list->size()));
  return SmallVector<Value>{(*list)[index]};
}

Expanded opal::ir::detail::expandFirstNegative(OpBuilder &b, Operation *op, ValueRange operands,
                                               std::string &problem) {
  auto list = listElements(operands[0], problem);
  if (failed(list))
    return failure();
  // From the last element to the first, so the first negative one wins:
  // a constant where the elements are, `arith.select` of the sizes known
  // per call otherwise.
  Location loc = op->getLoc();
  Value first = constantI64(b, loc, 0);
  for (Value element : llvm::reverse(*list)) {
    if (std::optional<int64_t> value = constantInt(element)) {
      if (*value < 0)
        first = element;
      continue;
    }
    if (knownNonNegative(element))
      continue;
    Value negative = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, element,
                                           constantI64(b, loc, 0));
    first = arith::SelectOp::create(b, loc, negative, element, first);
  }
  return SmallVector<Value>{first};
}

Expanded opal::ir::detail::expandSizesWithin(OpBuilder &b, Operation *op, ValueRange operands,
                                             std::string &problem) {
  RankedTensorType value = rankedOperand(operands[0], problem);
  RankedTensorType bound = value ? rankedOperand(operands[1], problem) : RankedTensorType();
  if (!bound)
    return failure();
  Location loc = op->getLoc();
  int64_t rank = value.getRank();
  if (bound.getRank() != rank)
    return SmallVector<Value>{constantBool(b, loc, false)};
  std::optional<int64_t> dim = constantInt(operands[2]);
  int64_t extent = std::max<int64_t>(rank, 1);
  if (!dim || *dim < -extent || *dim >= extent)
    return expansionFailure(problem, "needs a constant dim within the rank");
  int64_t skip = *dim < 0 ? *dim + extent : *dim;
  Value all;
  for (int64_t d = 0; d < rank; ++d) {
    if (d == skip)
      continue;
    Value lhs = sizeOf(b, loc, operands[0], d), rhs = sizeOf(b, loc, operands[1], d);
    std::optional<int64_t> l = constantInt(lhs), r = constantInt(rhs);
    if (l && r) {
      if (*l > *r)
        return SmallVector<Value>{constantBool(b, loc, false)};
      continue;
    }
    Value within = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, lhs, rhs);
    all = all ? arith::AndIOp::create(b, loc, all, within).getResult() : within;
  }
  return SmallVector<Value>{all ? all : constantBool(b, loc, true)};
}

// PyTorch's zero_numel_check_dims: each named dim must be non-empty; naming
// none reduces over all, which an empty tensor cannot.
Expanded opal::ir::detail::expandCheckReductionDims(OpBuilder &b, Operation *op,
                                                    ValueRange operands, std::string &problem) {
  RankedTensorType type = rankedOperand(operands[0], problem);
  if (!type)
    return failure();
  auto named = constantIntList(operands[1]);
  if (!named)
    return expansionFailure(problem, "needs constant dims");
  std::string function = cast<CheckReductionDimsOp>(op).getFunction().str();
  Location loc = op->getLoc();
  int64_t rank = type.getRank();
  // The condition that dim `d`'s size is not 0.
  auto nonEmpty = [&](int64_t d) -> Value {
    if (!type.isDynamicDim(d))
      return constantBool(b, loc, type.getDimSize(d) != 0);
    return arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ne, sizeOf(b, loc, operands[0], d),
                                 constantI64(b, loc, 0));
  };
  if (named->empty()) {
    for (int64_t d = 0; d < rank; ++d)
      assertThat(b, loc, nonEmpty(d),
                 function + ": Expected reduction dim to be specified for input.numel() == 0. "
                            "Specify the reduction dim with the 'dim' argument.");
    return SmallVector<Value>();
  }
  for (int64_t given : *named) {
    if (rank == 0) {
      if (given != 0 && given != -1)
        assertThat(b, loc, constantBool(b, loc, false),
                   function + ": Expected reduction dim -1 or 0 for scalar but got " +
                       std::to_string(given));
      continue;
    }
    if (given < -rank || given >= rank)
      return expansionFailure(problem, "dimension " + std::to_string(given) +
                                           " is out of range for rank " + std::to_string(rank));
    assertThat(b, loc, nonEmpty(given < 0 ? given + rank : given),
               function + ": Expected reduction dim " + std::to_string(given) +
                   " to have non-zero size.");
  }
  return SmallVector<Value>();
}

Expanded opal::ir::detail::expandCheckPadding(OpBuilder &b, Operation *op, ValueRange operands,
                                              std::string &problem) {
  RankedTensorType type = rankedOperand(operands[0], problem);
  if (!type)
    return failure();
  auto pad = constantIntList(operands[1]);
  if (!pad)
    return expansionFailure(problem, "needs a constant pad list");
  Location loc = op->getLoc();
  int64_t rank = type.getRank();
  SmallVector<int64_t> low, high;
  padsPerDim(*pad, rank, low, high);
  // With a positive pad, every padded dim must keep at least one element
  // (PyTorch 1.13 computes such a result's shape; without one it crops).
  bool growing = llvm::any_of(*pad, [](int64_t p) { return p > 0; });
  int64_t padded = std::min<int64_t>(rank, static_cast<int64_t>(pad->size() / 2));
  for (int64_t d = 0; d < rank; ++d) {
    int64_t cropped = -(std::min<int64_t>(low[d], 0) + std::min<int64_t>(high[d], 0));
    int64_t needed = growing && d >= rank - padded ? std::max(cropped, 1 - (low[d] + high[d]))
                                                   : cropped;
    if (needed <= 0)
      continue;
    Value size = sizeOf(b, loc, operands[0], d);
    Value fits = sizeAtLeast(b, loc, type, size, d, needed);
    SmallVector<Value> values = {size, constantI64(b, loc, low[d]), constantI64(b, loc, high[d]),
                                 constantI64(b, loc, d)};
    AssertOp::create(b, loc, fits,
                     "The input size {0}, plus negative padding {1} and {2} resulted in a "
                     "negative output size, which is invalid. Check dimension {3} of your input.",
                     values, b.getDenseI32ArrayAttr({1, 1, 1, 1}));
  }
  return SmallVector<Value>();
}

Expanded opal::ir::detail::expandCheckRepeats(OpBuilder &b, Operation *op, ValueRange operands,
                                              std::string &problem) {
  RankedTensorType type = rankedOperand(operands[0], problem);
  if (!type)
    return failure();
  auto repeats = constantIntList(operands[1]);
  if (!repeats)
    return expansionFailure(problem, "needs constant repeats");
  Location loc = op->getLoc();
  int64_t rank = type.getRank(), count = static_cast<int64_t>(repeats->size());
  if (count < rank)
    return expansionRefusal(problem, "Number of dimensions of repeat dims can not be smaller "
                                     "than number of dimensions of tensor");
  // PyTorch's message prints the repeated sizes; a size known only per call
  // prints as its count times the size, so the message names the counts.
  std::string message = "Trying to create tensor with negative dimension: repeats [";
  for (int64_t i = 0; i < count; ++i)
    message += (i ? ", " : "") + std::to_string((*repeats)[i]);
  message += "] of a tensor of shape [{0}]";
  SmallVector<Value> shape;
  for (int64_t d = 0; d < rank; ++d)
    shape.push_back(sizeOf(b, loc, operands[0], d));
  for (int64_t i = 0; i < count; ++i) {
    int64_t r = (*repeats)[i];
    if (r >= 0)
      continue;
    int64_t d = i - (count - rank);
    // A new leading dim has size 1; a tensor dim passes only if empty.
    Value fits = d < 0 || !type.isDynamicDim(d)
                     ? constantBool(b, loc, d >= 0 && type.getDimSize(d) == 0)
                     : arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, shape[d],
                                             constantI64(b, loc, 0))
                           .getResult();
    AssertOp::create(b, loc, fits, message, shape,
                     b.getDenseI32ArrayAttr({static_cast<int32_t>(rank)}));
  }
  return SmallVector<Value>();
}

Expanded opal::ir::detail::expandCheckEdgePadding(OpBuilder &b, Operation *op,
                                                  ValueRange operands, std::string &problem) {
  RankedTensorType type = rankedOperand(operands[0], problem);
  if (!type)
    return failure();
  auto pad = constantIntList(operands[1]);
  if (!pad)
    return expansionFailure(problem, "needs a constant pad list");
  auto check = cast<CheckEdgePaddingOp>(op);
  bool reflect = check.getMode() == "reflect";
  int64_t planes = check.getPlanes(), minOutput = check.getMinOutput();
  Location loc = op->getLoc();
  int64_t rank = type.getRank();
  int64_t padded = std::min<int64_t>(rank, static_cast<int64_t>(pad->size() / 2));
  SmallVector<int64_t> low, high;
  padsPerDim(*pad, rank, low, high);
  SmallVector<Value> shape;
  for (int64_t d = 0; d < rank; ++d)
    shape.push_back(sizeOf(b, loc, operands[0], d));
  auto atLeast = [&](int64_t d, int64_t needed) {
    return sizeAtLeast(b, loc, type, shape[d], d, needed);
  };
  int32_t rankGroup = static_cast<int32_t>(rank);
  // Every dim but a batch dim has elements.
  bool batched = rank == planes + 2;
  int64_t first = check.getLeadingMayBeEmpty() || batched ? 1 : 0;
  std::string filled = "Expected " + std::to_string(planes + 1) + "D or " +
                       std::to_string(planes + 2) +
                       "D (batch mode) tensor with possibly 0 batch size and other non-zero "
                       "dimensions for input, but got: [{0}]";
  for (int64_t d = first; d < rank; ++d)
    AssertOp::create(b, loc, atLeast(d, 1), filled, shape, b.getDenseI32ArrayAttr({rankGroup}));
  for (int64_t d = rank - padded; d < rank; ++d) {
    if (reflect) {
      SmallVector<Value> values = {constantI64(b, loc, low[d]), constantI64(b, loc, high[d]),
                                   constantI64(b, loc, d)};
      llvm::append_range(values, shape);
      AssertOp::create(b, loc, atLeast(d, std::max(low[d], high[d]) + 1),
                       "Padding size should be less than the corresponding input dimension, "
                       "but got: padding ({0}, {1}) at dimension {2} of input [{3}]",
                       values, b.getDenseI32ArrayAttr({1, 1, 1, rankGroup}));
    }
    AssertOp::create(b, loc, atLeast(d, minOutput - (low[d] + high[d])),
                     "input (size {0} at dimension {1}) is too small for padding {2} and {3}",
                     ValueRange{shape[d], constantI64(b, loc, d), constantI64(b, loc, low[d]),
                                constantI64(b, loc, high[d])},
                     b.getDenseI32ArrayAttr({1, 1, 1, 1}));
  }
  return SmallVector<Value>();
}

Expanded opal::ir::detail::expandConvParams(OpBuilder &b, Operation *op, ValueRange operands,
                                            std::string &problem) {
  RankedTensorType weight = rankedOperand(operands[0], problem);
  if (!weight)
    return failure();
  // Groups may be a runtime value (a CPU kernel for every grouped
  // convolution, JIT/Specialization.h): then checked per call.
  std::optional<int64_t> groups = constantInt(operands[5]);
  int64_t spatial = weight.getRank() - 2;
  if (spatial < 1)
    return expansionRefusal(problem, "weight should have at least three dimensions");
  if (groups && *groups <= 0)
    return expansionRefusal(problem, "non-positive groups is not supported");
  if (!groups) {
    Location loc = op->getLoc();
    Value positive = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, operands[5],
                                           constantI64(b, loc, 0));
    AssertOp::create(b, loc, positive, "non-positive groups is not supported", ValueRange(),
                     b.getDenseI32ArrayAttr({}));
  }
  if (spatial > 3)
    return expansionRefusal(problem, "opal supports convolutions over 1, 2 or 3 spatial dims, "
                                     "but got a " +
                                         std::to_string(weight.getRank()) + "-dimensional weight");
  // Each list: one entry (repeated) or one per spatial dim.
  static constexpr const char *names[] = {"stride", "padding", "dilation", "output_padding"};
  SmallVector<SmallVector<int64_t>> lists;
  for (int i = 0; i < 4; ++i) {
    auto list = constantIntList(operands[1 + i]);
    if (!list)
      return expansionFailure(problem, std::string("needs a constant ") + names[i] + " list");
    if (list->size() == 1)
      list->assign(spatial, list->front());
    if (static_cast<int64_t>(list->size()) != spatial) {
      std::string given;
      for (int64_t v : *list)
        given += (given.empty() ? "" : ", ") + std::to_string(v);
      return expansionRefusal(problem, std::string("expected ") + names[i] +
                                           " to be a single integer value or a list of " +
                                           std::to_string(spatial) +
                                           " values to match the convolution dimensions, but "
                                           "got " +
                                           names[i] + "=[" + given + "]");
    }
    lists.push_back(*list);
  }
  auto any = [](ArrayRef<int64_t> list, int64_t below) {
    return llvm::any_of(list, [&](int64_t v) { return v < below; });
  };
  if (any(lists[1], 0))
    return expansionRefusal(problem, "negative padding is not supported");
  if (any(lists[3], 0))
    return expansionRefusal(problem, "negative output_padding is not supported");
  if (any(lists[0], 1))
    return expansionRefusal(problem, "non-positive stride is not supported");
  if (any(lists[2], 1))
    return expansionRefusal(problem, "non-positive dilation is not supported");
  // Transposed, each output_padding below its stride or its dilation;
  // PyTorch 1.13's message names a 1-d convolution's dims as its 2-d
  // kernel's (height 0, 1 and 1).
  std::optional<int64_t> transposed = constantInt(operands[6]);
  if (!transposed)
    return expansionFailure(problem, "needs a constant transposed flag");
  bool fits = true;
  for (int64_t d = 0; d < spatial; ++d)
    fits = fits && (lists[3][d] < lists[0][d] || lists[3][d] < lists[2][d]);
  if (*transposed && !fits) {
    SmallVector<std::string> dims = spatial == 3 ? SmallVector<std::string>{"depth", "height",
                                                                            "width"}
                                                 : SmallVector<std::string>{"height", "width"};
    auto entries = [&](const char *name, ArrayRef<int64_t> list, int64_t lead) {
      SmallVector<int64_t> values(dims.size() - list.size(), lead);
      llvm::append_range(values, list);
      std::string text;
      for (size_t i = 0; i < dims.size(); ++i)
        text += std::string(" ") + name + "_" + dims[i] + ": " + std::to_string(values[i]);
      return text;
    };
    return expansionRefusal(problem, "output padding must be smaller than either stride or "
                                     "dilation, but got" +
                                         entries("output_padding", lists[3], 0) +
                                         entries("stride", lists[0], 1) +
                                         entries("dilation", lists[2], 1));
  }
  SmallVector<Value> results;
  for (const SmallVector<int64_t> &list : lists)
    results.push_back(constantList(b, op->getLoc(), list));
  return results;
}
