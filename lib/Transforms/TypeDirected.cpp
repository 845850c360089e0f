//===- TypeDirected.cpp - Expanding the type-directed ops -----------------===//
//
// The table from op name to expansion, the shared helpers, and the
// conditions of opal.static_if (is_none, str_eq, has_rank,
// has_static_size). Promotion.cpp and ShapeDirected.cpp hold the other
// expansions.
//
//===----------------------------------------------------------------------===//

#include "TypeDirectedImpl.h"

#include "PrimUtils.h"
#include "opal/Dialect/OpalOps.h"
#include "opal/Dialect/OpalTypes.h"
#include "opal/Runtime/ScalarType.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinTypes.h"
#include "llvm/ADT/StringMap.h"

using namespace mlir;
using namespace opal::ir;
using namespace opal::ir::detail;

Value opal::ir::detail::constantI64(OpBuilder &b, Location loc, int64_t value) {
  return arith::ConstantIntOp::create(b, loc, value, 64);
}

Value opal::ir::detail::i64List(OpBuilder &b, Location loc, ValueRange elements) {
  return ListOp::create(b, loc, ListType::get(b.getContext(), b.getI64Type()), elements);
}

Value opal::ir::detail::constantList(OpBuilder &b, Location loc, ArrayRef<int64_t> values) {
  SmallVector<Value> elements;
  for (int64_t value : values)
    elements.push_back(constantI64(b, loc, value));
  return i64List(b, loc, elements);
}

Value opal::ir::detail::broadcastInDim(OpBuilder &b, Location loc, Value input, Value shapeList,
                                       ArrayRef<int64_t> shape, ArrayRef<int64_t> dims) {
  auto type = cast<RankedTensorType>(input.getType());
  return createPrim(b, loc, "prims.broadcast_in_dim",
                    {input, shapeList, constantList(b, loc, dims)},
                    RankedTensorType::get(shape, type.getElementType()));
}

Value opal::ir::detail::createPrim(OpBuilder &b, Location loc, StringRef name, ValueRange operands,
                                   Type type) {
  OperationState state(loc, name);
  state.addOperands(operands);
  state.addTypes(type);
  return b.create(state)->getResult(0);
}

Value opal::ir::detail::sizeOf(OpBuilder &b, Location loc, Value tensor, int64_t d) {
  auto type = cast<RankedTensorType>(tensor.getType());
  if (!type.isDynamicDim(d))
    return constantI64(b, loc, type.getDimSize(d));
  Value dim = tensor::DimOp::create(b, loc, tensor, d);
  return arith::IndexCastOp::create(b, loc, b.getI64Type(), dim);
}

Expanded opal::ir::detail::expansionFailure(std::string &problem, std::string reason) {
  problem = std::move(reason);
  return failure();
}

namespace {
/// Marks a problem as a refusal (a byte no message holds).
constexpr char kRefusalMark = '\x01';
} // namespace

Expanded opal::ir::detail::expansionRefusal(std::string &problem, std::string message) {
  problem = kRefusalMark + std::move(message);
  return failure();
}

std::optional<std::string> opal::ir::detail::refusalMessage(const std::string &problem) {
  if (problem.empty() || problem[0] != kRefusalMark)
    return std::nullopt;
  return problem.substr(1);
}

std::string opal::ir::detail::shapeString(ArrayRef<int64_t> shape) {
  std::string text = "[";
  for (auto [i, size] : llvm::enumerate(shape))
    text += (i ? ", " : "") + (ShapedType::isDynamic(size) ? "?" : std::to_string(size));
  return text + "]";
}

RankedTensorType opal::ir::detail::rankedOperand(Value value, std::string &problem) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type)
    problem = "needs a ranked tensor, got '" + typeString(value.getType()) + "'";
  return type;
}

Expanded opal::ir::detail::expandIsNone(OpBuilder &b, Operation *op, ValueRange operands,
                                        std::string &problem) {
  return SmallVector<Value>{
      arith::ConstantIntOp::create(b, op->getLoc(), isNone(operands[0]) ? 1 : 0, 1)};
}

Expanded opal::ir::detail::expandIsFloating(OpBuilder &b, Operation *op, ValueRange operands,
                                            std::string &problem) {
  std::optional<int64_t> code = constantInt(operands[0]);
  if (!code || !isValidScalarType(*code))
    return expansionFailure(problem, "needs a dtype known for the use");
  bool floating = !isIntegralType(static_cast<ScalarType>(*code), /*includeBool=*/true);
  return SmallVector<Value>{arith::ConstantIntOp::create(b, op->getLoc(), floating ? 1 : 0, 1)};
}

Expanded opal::ir::detail::expandStrEq(OpBuilder &b, Operation *generic, ValueRange operands,
                                       std::string &problem) {
  auto op = cast<StrEqOp>(generic);
  auto str = operands[0].getDefiningOp<StrOp>();
  if (!str)
    return expansionFailure(problem, "needs a constant string (opal.str)");
  bool equal = str.getValue() == op.getExpected();
  return SmallVector<Value>{arith::ConstantIntOp::create(b, op.getLoc(), equal ? 1 : 0, 1)};
}

Expanded opal::ir::detail::expandHasRank(OpBuilder &b, Operation *op, ValueRange operands,
                                         std::string &problem) {
  RankedTensorType type = rankedOperand(operands[0], problem);
  if (!type)
    return failure();
  bool has = type.getRank() == static_cast<int64_t>(cast<HasRankOp>(op).getRank());
  return SmallVector<Value>{arith::ConstantIntOp::create(b, op->getLoc(), has ? 1 : 0, 1)};
}

Expanded opal::ir::detail::expandHasStaticSize(OpBuilder &b, Operation *generic,
                                               ValueRange operands, std::string &problem) {
  RankedTensorType type = rankedOperand(operands[0], problem);
  if (!type)
    return failure();
  auto op = cast<HasStaticSizeOp>(generic);
  int64_t dim = static_cast<int64_t>(op.getDim());
  bool has = dim >= 0 && dim < type.getRank() && !type.isDynamicDim(dim) &&
             type.getDimSize(dim) == static_cast<int64_t>(op.getSize());
  return SmallVector<Value>{arith::ConstantIntOp::create(b, op.getLoc(), has ? 1 : 0, 1)};
}

namespace {

using Expander = FailureOr<SmallVector<Value>> (*)(OpBuilder &, Operation *, ValueRange,
                                                   std::string &);

/// The expansion of each type-directed op, by op name.
const llvm::StringMap<Expander> &expanders() {
  static const llvm::StringMap<Expander> table = [] {
    llvm::StringMap<Expander> t;
    t[PromoteOp::getOperationName()] = expandPromote;
    t[ToDtypeOp::getOperationName()] = expandToDtype;
    t[StrEqOp::getOperationName()] = expandStrEq;
    t[BroadcastTensorsOp::getOperationName()] = expandBroadcast;
    t[NormalizeDimsOp::getOperationName()] = expandNormalizeDims;
    t[KeepDimsOp::getOperationName()] = expandKeepDims;
    t[CountOp::getOperationName()] = expandCount;
    t[ShapeOfOp::getOperationName()] = expandShapeOf;
    t[DtypeOfOp::getOperationName()] = expandDtypeOf;
    t[TrailingDimsOp::getOperationName()] = expandTrailingDims;
    t[BroadcastToOp::getOperationName()] = expandBroadcastTo;
    t[SumToOp::getOperationName()] = expandSumTo;
    t[InferShapeOp::getOperationName()] = expandInferShape;
    t[IsNoneOp::getOperationName()] = expandIsNone;
    t[IsFloatingOp::getOperationName()] = expandIsFloating;
    t[TransposePermOp::getOperationName()] = expandTransposePerm;
    t[DimsExceptOp::getOperationName()] = expandDimsExcept;
    t[HasRankOp::getOperationName()] = expandHasRank;
    t[HasStaticSizeOp::getOperationName()] = expandHasStaticSize;
    t[DimSizeOp::getOperationName()] = expandDimSize;
    t[BatchMatmulOp::getOperationName()] = expandBatchMatmul;
    t[ListEqOp::getOperationName()] = expandListEq;
    t[EndsWithOp::getOperationName()] = expandEndsWith;
    t[ListLenOp::getOperationName()] = expandListLen;
    t[FirstNegativeOp::getOperationName()] = expandFirstNegative;
    t[SizesWithinOp::getOperationName()] = expandSizesWithin;
    t[SizeAtOp::getOperationName()] = expandSizeAt;
    t[ListItemOp::getOperationName()] = expandListItem;
    t[CheckReductionDimsOp::getOperationName()] = expandCheckReductionDims;
    t[CheckPaddingOp::getOperationName()] = expandCheckPadding;
    t[CheckRepeatsOp::getOperationName()] = expandCheckRepeats;
    t[CheckEdgePaddingOp::getOperationName()] = expandCheckEdgePadding;
    t[ConvParamsOp::getOperationName()] = expandConvParams;
    return t;
  }();
  return table;
}

} // namespace

bool opal::ir::detail::isTypeDirected(Operation *op) {
  return expanders().count(op->getName().getStringRef());
}

FailureOr<SmallVector<Value>> opal::ir::detail::expandTypeDirected(OpBuilder &builder,
                                                                   Operation *op,
                                                                   ValueRange operands,
                                                                   std::string &problem) {
  return expanders().lookup(op->getName().getStringRef())(builder, op, operands, problem);
}
