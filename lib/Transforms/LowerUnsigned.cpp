//===- LowerUnsigned.cpp - The opal-lower-unsigned pass -------------------===//
//
// uint8 tensors are `ui8` from a call's signature through decomposition, but
// MLIR's arithmetic takes signless integers only. The prims whose result
// bits do not depend on signedness (add, mul, moves, equality, ...) keep
// working on the same bits as i8. Every other prim over uint8 computes on its
// uint8 operands zero-extended to i32 (`x & 255` of their i8 bits) and
// truncates its uint8 results back. Conversions follow PyTorch: uint8 to a
// wider integer or a float zero-extends, a float to uint8 goes through int64
// and keeps the low byte (-1.0 is 255). Then every ui8 in the function
// becomes i8, and every uint8 dtype operand (code 0) int8's (code 1).
//
//===----------------------------------------------------------------------===//

#include "opal/Transforms/Passes.h"

#include "PrimUtils.h"
#include "TypeDirectedImpl.h"
#include "opal/Dialect/OpalOps.h"
#include "opal/Dialect/OpalTypes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/StringSet.h"

namespace opal::ir {
#define GEN_PASS_DEF_OPALLOWERUNSIGNED
#include "opal/Transforms/Passes.h.inc"
} // namespace opal::ir

using namespace mlir;
using namespace opal::ir::detail;

namespace {

constexpr int64_t kInt8Code = 1, kInt32Code = 3, kInt64Code = 4, kUInt8Code = 0;

/// True for a shaped type (tensor or memref) of unsigned integers.
bool isUnsigned(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  return shaped && shaped.getElementType().isUnsignedInteger();
}

/// `type` with its unsigned elements signless (other types as they are).
Type signless(Type type) {
  if (!isUnsigned(type))
    return type;
  auto shaped = cast<ShapedType>(type);
  return shaped.clone(IntegerType::get(type.getContext(),
                                       shaped.getElementType().getIntOrFloatBitWidth()));
}

/// The operand of a prim that is a ScalarType code, if it has one.
std::optional<unsigned> dtypeOperand(StringRef name) {
  static const llvm::StringMap<unsigned> operands = {
      {"prims.convert_element_type", 1}, {"prims.full", 2},  {"prims.iota", 3},
      {"prims.philox_uniform", 3},       {"prims.philox_normal", 3},
      {"prims.sum", 2},                  {"prims.prod", 2},  {"prims.amax", 2},
      {"prims.amin", 2}};
  auto it = operands.find(name);
  return it == operands.end() ? std::nullopt : std::optional<unsigned>(it->second);
}

/// Prims whose results are the same bits whether i8 elements are signed or
/// not: arithmetic modulo 2^8, bitwise ops, equality, selection and moves
/// (iota's and select_in_dim's values are truncated integers or zeros).
bool keepsBits(Operation *op) {
  static const llvm::StringSet<> always = {
      "prims.neg",         "prims.add",          "prims.sub",           "prims.mul",
      "prims.bitwise_and", "prims.bitwise_or",   "prims.bitwise_xor",   "prims.bitwise_not",
      "prims.eq",          "prims.ne",           "prims.where",         "prims.ceil",
      "prims.floor",       "prims.round",        "prims.trunc",         "prims.broadcast_in_dim",
      "prims.transpose",   "prims.squeeze",      "prims.reshape",       "prims.slice_in_dim",
      "prims.slice_scatter", "prims.select_in_dim", "prims.rev",        "prims.tile",
      "prims.pad_edges",   "prims.iota",         "prims.upsample_nearest"};
  // Sums and products modulo 2^8 are the same bits, when the result is
  // uint8 (a wider one needs the operands' values).
  static const llvm::StringSet<> intoUnsigned = {"prims.sum", "prims.prod", "prims.cumsum",
                                                 "prims.mm", "prims.bmm", "prims.col2im"};
  StringRef name = op->getName().getStringRef();
  if (always.contains(name))
    return true;
  return intoUnsigned.contains(name) && llvm::all_of(op->getResultTypes(), isUnsigned);
}

/// Ops other than prims that may carry uint8 values: they only pass them on.
bool passesOn(Operation *op) {
  return isa<func::ReturnOp, tensor::DimOp, tensor::CastOp, bufferization::ToTensorOp,
             bufferization::MaterializeInDestinationOp>(op);
}

class Lowering {
public:
  explicit Lowering(func::FuncOp function) : function_(function) {}

  LogicalResult run() {
    SmallVector<Operation *> ops;
    bool invalid = false;
    function_.walk([&](Operation *op) {
      if (!llvm::any_of(op->getOperandTypes(), isUnsigned) &&
          !llvm::any_of(op->getResultTypes(), isUnsigned))
        return;
      if (op->getName().getDialectNamespace() == "prims") {
        ops.push_back(op);
      } else if (!passesOn(op)) {
        op->emitOpError() << "has uint8 operands or results; opal-lower-unsigned lowers "
                             "uint8 through prims only";
        invalid = true;
      }
    });
    if (invalid)
      return failure();
    for (Operation *op : ops) {
      StringRef name = op->getName().getStringRef();
      if (name == "prims.convert_element_type") {
        if (failed(lowerConversion(op)))
          return failure();
      } else if (!keepsBits(op) && failed(widen(op))) {
        return failure();
      }
    }
    retype();
    return success();
  }

private:
  /// A fresh i64 constant right before `op` (dtype constants may be shared).
  Value codeBefore(Operation *op, int64_t code) {
    OpBuilder b(op);
    return constantI64(b, op->getLoc(), code);
  }

  /// `value` (ranked, uint8) zero-extended to i32: its i8 bits sign-extended
  /// and masked with 255. Made once per value, right after its definition.
  FailureOr<Value> zeroExtended(Value value, Operation *user) {
    if (Value known = extended_.lookup(value))
      return known;
    auto type = dyn_cast<RankedTensorType>(value.getType());
    if (!type)
      return user->emitOpError() << "needs ranked uint8 operands, got " << value.getType();
    OpBuilder b(user->getContext());
    if (Operation *def = value.getDefiningOp())
      b.setInsertionPointAfter(def);
    else
      b.setInsertionPointToStart(cast<BlockArgument>(value).getOwner());
    Location loc = value.getLoc();
    auto wideType = type.clone(b.getI32Type());
    Value wide = createPrim(b, loc, "prims.convert_element_type",
                            {value, constantI64(b, loc, kInt32Code)}, wideType);
    Value device = opal::ir::DeviceOp::create(
        b, loc, opal::ir::DeviceType::get(b.getContext()), "cpu");
    Value requiresGrad = arith::ConstantIntOp::create(b, loc, 0, 1);
    Value mask = createPrim(b, loc, "prims.full",
                            {constantList(b, loc, {}), constantI64(b, loc, 255),
                             constantI64(b, loc, kInt32Code), device, requiresGrad},
                            RankedTensorType::get({}, b.getI32Type()));
    if (type.getRank() > 0) {
      SmallVector<Value> sizes;
      for (int64_t d = 0; d < type.getRank(); ++d)
        sizes.push_back(sizeOf(b, loc, value, d));
      mask = broadcastInDim(b, loc, mask, i64List(b, loc, sizes), type.getShape(), {});
    }
    Value extended = createPrim(b, loc, "prims.bitwise_and", {wide, mask}, wideType);
    extended_[value] = extended;
    return extended;
  }

  /// A uint8 tensor of `type`'s shape from the integer tensor `value`: its
  /// low byte (typed ui8 until retype() makes the code's int8 match).
  Value truncated(OpBuilder &b, Location loc, Value value, Type type) {
    return createPrim(b, loc, "prims.convert_element_type",
                      {value, constantI64(b, loc, kInt8Code)}, type);
  }

  /// A uint8 value of `value` (a tensor of another dtype), as PyTorch
  /// converts: a float through int64, an integer or bool its low byte.
  Value toUnsigned(OpBuilder &b, Location loc, Value value) {
    auto type = cast<RankedTensorType>(value.getType());
    Type u8 = IntegerType::get(b.getContext(), 8, IntegerType::Unsigned);
    if (isa<FloatType>(type.getElementType()))
      value = createPrim(b, loc, "prims.convert_element_type",
                         {value, constantI64(b, loc, kInt64Code)}, type.clone(b.getI64Type()));
    return truncated(b, loc, value, type.clone(u8));
  }

  LogicalResult lowerConversion(Operation *op) {
    Value input = op->getOperand(0);
    Type from = elementOf(input), to = elementOf(op->getResult(0));
    OpBuilder b(op);
    Location loc = op->getLoc();
    Value replacement;
    if (from.isUnsignedInteger() && to.isUnsignedInteger()) {
      replacement = input;
    } else if (from.isUnsignedInteger()) {
      // To bool ("!= 0") or int8 (the same bits), as the bits say.
      if (to.isInteger(1) || to.isInteger(8))
        return success();
      FailureOr<Value> extended = zeroExtended(input, op);
      if (failed(extended))
        return failure();
      replacement = to.isInteger(32) ? *extended
                                     : createPrim(b, loc, "prims.convert_element_type",
                                                  {*extended, op->getOperand(1)},
                                                  op->getResult(0).getType());
    } else if (isa<FloatType>(from)) {
      replacement = toUnsigned(b, loc, input);
    } else {
      return success(); // an integer's low byte: int8's conversion
    }
    op->getResult(0).replaceAllUsesWith(replacement);
    op->erase();
    return success();
  }

  /// `op` computed on i32: its uint8 operands zero-extended (operands of
  /// other dtypes first converted to uint8 when its dtype operand says
  /// uint8), its uint8 results truncated back.
  LogicalResult widen(Operation *op) {
    Location loc = op->getLoc();
    std::optional<unsigned> dtypeAt = dtypeOperand(op->getName().getStringRef());
    bool intoUnsigned = dtypeAt && constantInt(op->getOperand(*dtypeAt)) == kUInt8Code;
    SmallVector<Value> operands;
    OpBuilder b(op);
    for (auto [i, operand] : llvm::enumerate(op->getOperands())) {
      if (intoUnsigned && i == *dtypeAt) {
        operands.push_back(constantI64(b, loc, kInt32Code));
        continue;
      }
      Value value = operand;
      if (intoUnsigned && isa<RankedTensorType>(value.getType()) && !isUnsigned(value.getType()))
        value = toUnsigned(b, loc, value);
      if (isUnsigned(value.getType())) {
        FailureOr<Value> extended = zeroExtended(value, op);
        if (failed(extended))
          return failure();
        value = *extended;
      }
      operands.push_back(value);
    }
    OperationState state(loc, op->getName());
    state.addOperands(operands);
    state.addAttributes(op->getAttrs());
    for (Type type : op->getResultTypes())
      state.addTypes(isUnsigned(type) ? cast<ShapedType>(type).clone(b.getI32Type()) : type);
    b.setInsertionPoint(op);
    Operation *wide = b.create(state);
    for (auto [old, computed] : llvm::zip(op->getResults(), wide->getResults())) {
      Value replacement = computed;
      if (isUnsigned(old.getType()))
        replacement = truncated(b, loc, computed, old.getType());
      old.replaceAllUsesWith(replacement);
    }
    op->erase();
    return success();
  }

  /// Every ui8 becomes i8, and every uint8 dtype operand int8's code.
  void retype() {
    function_.walk([&](Operation *op) {
      for (Region &region : op->getRegions())
        for (Block &block : region)
          for (BlockArgument argument : block.getArguments())
            argument.setType(signless(argument.getType()));
      for (OpResult result : op->getResults())
        result.setType(signless(result.getType()));
      if (std::optional<unsigned> at = dtypeOperand(op->getName().getStringRef()))
        if (constantInt(op->getOperand(*at)) == kUInt8Code)
          op->setOperand(*at, codeBefore(op, kInt8Code));
    });
    FunctionType type = function_.getFunctionType();
    auto inputs = llvm::map_to_vector(type.getInputs(), signless);
    auto results = llvm::map_to_vector(type.getResults(), signless);
    function_.setFunctionType(FunctionType::get(function_.getContext(), inputs, results));
  }

  func::FuncOp function_;
  llvm::DenseMap<Value, Value> extended_;
};

struct OpalLowerUnsigned : public opal::ir::impl::OpalLowerUnsignedBase<OpalLowerUnsigned> {
  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (function.isExternal())
      return;
    bool any = llvm::any_of(function.getArgumentTypes(), isUnsigned) ||
               llvm::any_of(function.getResultTypes(), isUnsigned);
    if (!any)
      function.walk([&](Operation *op) {
        if (llvm::any_of(op->getResultTypes(), isUnsigned)) {
          any = true;
          return WalkResult::interrupt();
        }
        return WalkResult::advance();
      });
    if (any && failed(Lowering(function).run()))
      signalPassFailure();
  }
};

} // namespace
