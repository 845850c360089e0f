//===- ElementwiseToLinalg.cpp - Elementwise prims to linalg.generic ------===//
//
// One pattern per elementwise prim, each a payload builder over scalars:
// the pattern checks the operands (ranked tensors of one shape and a
// supported element type), makes the output with tensor.empty and wraps the
// payload in a linalg.generic with identity maps.
//
//===----------------------------------------------------------------------===//

#include "opal/Transforms/Passes.h"

#include "PrimUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/PatternMatch.h"

#include <functional>
#include <type_traits>
#include <map>

using namespace mlir;
using namespace opal::ir::detail;

namespace {

/// Builds the scalar result from the scalar operands. The element types were
/// checked before (elementwiseLoweringProblem), so a payload always succeeds.
using Payload = std::function<Value(OpBuilder &, Location, ValueRange, Type resultElement)>;

bool isFloat(Type t) { return isa<FloatType>(t); }
bool isInt(Type t) { return isa<IntegerType>(t); }

Payload unaryFloat(std::function<Value(OpBuilder &, Location, Value)> build) {
  return [build](OpBuilder &b, Location loc, ValueRange args, Type) {
    return build(b, loc, args[0]);
  };
}

template <typename FloatOp, typename IntOp> Payload binary() {
  return [](OpBuilder &b, Location loc, ValueRange args, Type) -> Value {
    if (isFloat(args[0].getType()))
      return FloatOp::create(b, loc, args[0], args[1]);
    return IntOp::create(b, loc, args[0], args[1]);
  };
}

/// FloatOp on floats, IntOp on integers, BoolOp on bool (max, min, add and
/// mul, whose integer ops are wrong on i1, where true is -1).
template <typename FloatOp, typename IntOp, typename BoolOp> Payload byKind() {
  return [](OpBuilder &b, Location loc, ValueRange args, Type) -> Value {
    Type type = args[0].getType();
    if (isFloat(type))
      return FloatOp::create(b, loc, args[0], args[1]);
    if (type.isInteger(1))
      return BoolOp::create(b, loc, args[0], args[1]);
    return IntOp::create(b, loc, args[0], args[1]);
  };
}

/// `x <predicate> 0` for a number: ne, slt or sgt (ordered for floats, so
/// NaN compares false except for ne).
Value compareToZero(OpBuilder &b, Location loc, Value x, arith::CmpIPredicate predicate) {
  Type type = x.getType();
  if (!isFloat(type)) {
    Value zero = arith::ConstantOp::create(b, loc, b.getIntegerAttr(type, 0));
    return arith::CmpIOp::create(b, loc, predicate, x, zero);
  }
  Value zero = arith::ConstantOp::create(b, loc, b.getFloatAttr(type, 0.0));
  arith::CmpFPredicate floating = predicate == arith::CmpIPredicate::ne ? arith::CmpFPredicate::UNE
                                  : predicate == arith::CmpIPredicate::slt
                                      ? arith::CmpFPredicate::OLT
                                      : arith::CmpFPredicate::OGT;
  return arith::CmpFOp::create(b, loc, floating, x, zero);
}

/// A rounding op on floats; integers are already whole.
template <typename FloatOp> Payload rounding() {
  return [](OpBuilder &b, Location loc, ValueRange args, Type) -> Value {
    if (isFloat(args[0].getType()))
      return FloatOp::create(b, loc, args[0]);
    return args[0];
  };
}

Payload compare(arith::CmpFPredicate floatPredicate, arith::CmpIPredicate signedPredicate,
                arith::CmpIPredicate unsignedPredicate) {
  return [=](OpBuilder &b, Location loc, ValueRange args, Type) -> Value {
    Type type = args[0].getType();
    if (isFloat(type))
      return arith::CmpFOp::create(b, loc, floatPredicate, args[0], args[1]);
    return arith::CmpIOp::create(b, loc, type.isInteger(1) ? unsignedPredicate : signedPredicate,
                                 args[0], args[1]);
  };
}


/// `x op d` for signed integers (op: arith.divsi or arith.remsi) without the
/// two cases that trap: a zero divisor divides by one (the call raises
/// afterwards, opal-derive-data-checks), and a divisor of -1 negates (the
/// minimum value stays itself, as two's complement wraps) or leaves 0.
template <typename Op> Value safeIntegerDivision(OpBuilder &b, Location loc, Value x, Value d) {
  using namespace arith;
  Type type = d.getType();
  Value zero = ConstantOp::create(b, loc, b.getIntegerAttr(type, 0));
  Value one = ConstantOp::create(b, loc, b.getIntegerAttr(type, 1));
  Value minusOne = ConstantOp::create(b, loc, b.getIntegerAttr(type, -1));
  Value isZero = CmpIOp::create(b, loc, CmpIPredicate::eq, d, zero);
  Value isMinusOne = CmpIOp::create(b, loc, CmpIPredicate::eq, d, minusOne);
  Value special = OrIOp::create(b, loc, isZero, isMinusOne);
  Value divisor = SelectOp::create(b, loc, special, one, d);
  Value result = Op::create(b, loc, x, divisor);
  Value byMinusOne = std::is_same_v<Op, DivSIOp> ? Value(SubIOp::create(b, loc, zero, x)) : zero;
  return SelectOp::create(b, loc, isMinusOne, byMinusOne, result);
}

const std::map<std::string, Payload> &payloads() {
  using namespace arith;
  static const std::map<std::string, Payload> table = {
      {"prims.neg",
       [](OpBuilder &b, Location loc, ValueRange args, Type) -> Value {
         Type type = args[0].getType();
         if (isFloat(type))
           return NegFOp::create(b, loc, args[0]);
         Value zero = ConstantOp::create(b, loc, b.getIntegerAttr(type, 0));
         return SubIOp::create(b, loc, zero, args[0]);
       }},
      {"prims.abs",
       [](OpBuilder &b, Location loc, ValueRange args, Type) -> Value {
         if (isFloat(args[0].getType()))
           return math::AbsFOp::create(b, loc, args[0]);
         // max(x, -x): plain arith, which every backend lowers.
         Value zero = ConstantOp::create(b, loc, b.getIntegerAttr(args[0].getType(), 0));
         Value negated = SubIOp::create(b, loc, zero, args[0]);
         return MaxSIOp::create(b, loc, args[0], negated);
       }},
      {"prims.exp", unaryFloat([](OpBuilder &b, Location l, Value x) { return math::ExpOp::create(b, l, x); })},
      {"prims.log", unaryFloat([](OpBuilder &b, Location l, Value x) { return math::LogOp::create(b, l, x); })},
      {"prims.log1p", unaryFloat([](OpBuilder &b, Location l, Value x) { return math::Log1pOp::create(b, l, x); })},
      {"prims.sqrt", unaryFloat([](OpBuilder &b, Location l, Value x) { return math::SqrtOp::create(b, l, x); })},
      {"prims.rsqrt", unaryFloat([](OpBuilder &b, Location l, Value x) { return math::RsqrtOp::create(b, l, x); })},
      {"prims.sin", unaryFloat([](OpBuilder &b, Location l, Value x) { return math::SinOp::create(b, l, x); })},
      {"prims.cos", unaryFloat([](OpBuilder &b, Location l, Value x) { return math::CosOp::create(b, l, x); })},
      {"prims.tanh", unaryFloat([](OpBuilder &b, Location l, Value x) { return math::TanhOp::create(b, l, x); })},
      {"prims.erf", unaryFloat([](OpBuilder &b, Location l, Value x) { return math::ErfOp::create(b, l, x); })},
      {"prims.expm1", unaryFloat([](OpBuilder &b, Location l, Value x) { return math::ExpM1Op::create(b, l, x); })},
      {"prims.log2", unaryFloat([](OpBuilder &b, Location l, Value x) { return math::Log2Op::create(b, l, x); })},
      {"prims.log10", unaryFloat([](OpBuilder &b, Location l, Value x) { return math::Log10Op::create(b, l, x); })},
      {"prims.tan", unaryFloat([](OpBuilder &b, Location l, Value x) { return math::TanOp::create(b, l, x); })},
      {"prims.asin", unaryFloat([](OpBuilder &b, Location l, Value x) { return math::AsinOp::create(b, l, x); })},
      {"prims.acos", unaryFloat([](OpBuilder &b, Location l, Value x) { return math::AcosOp::create(b, l, x); })},
      {"prims.atan", unaryFloat([](OpBuilder &b, Location l, Value x) { return math::AtanOp::create(b, l, x); })},
      {"prims.sinh", unaryFloat([](OpBuilder &b, Location l, Value x) { return math::SinhOp::create(b, l, x); })},
      {"prims.cosh", unaryFloat([](OpBuilder &b, Location l, Value x) { return math::CoshOp::create(b, l, x); })},
      {"prims.asinh", unaryFloat([](OpBuilder &b, Location l, Value x) { return math::AsinhOp::create(b, l, x); })},
      {"prims.acosh", unaryFloat([](OpBuilder &b, Location l, Value x) { return math::AcoshOp::create(b, l, x); })},
      {"prims.atanh", unaryFloat([](OpBuilder &b, Location l, Value x) { return math::AtanhOp::create(b, l, x); })},
      {"prims.ceil", rounding<math::CeilOp>()},
      {"prims.floor", rounding<math::FloorOp>()},
      {"prims.round", rounding<math::RoundEvenOp>()},
      {"prims.trunc", rounding<math::TruncOp>()},
      {"prims.sign",
       [](OpBuilder &b, Location loc, ValueRange args, Type) -> Value {
         // (0 < x) - (x < 0), in x's type.
         Value x = args[0];
         Type type = x.getType();
         if (type.isInteger(1))
           return x;
         Value p = convertScalar(b, loc, compareToZero(b, loc, x, CmpIPredicate::sgt), type);
         Value n = convertScalar(b, loc, compareToZero(b, loc, x, CmpIPredicate::slt), type);
         return isFloat(type) ? Value(SubFOp::create(b, loc, p, n))
                              : Value(SubIOp::create(b, loc, p, n));
       }},
      {"prims.atan2", binary<math::Atan2Op, math::Atan2Op>()},
      {"prims.copysign",
       [](OpBuilder &b, Location loc, ValueRange args, Type) -> Value {
         // x's magnitude bits with y's sign bit: plain integer ops, which
         // every backend and vectorizer handles (math.copysign has no CPU
         // lowering here).
         auto floatType = cast<FloatType>(args[0].getType());
         unsigned width = floatType.getWidth();
         Type bits = b.getIntegerType(width);
         Value x = BitcastOp::create(b, loc, bits, args[0]);
         Value y = BitcastOp::create(b, loc, bits, args[1]);
         APInt signBit = APInt::getSignMask(width);
         Value sign = ConstantOp::create(b, loc, b.getIntegerAttr(bits, signBit));
         Value magnitude = ConstantOp::create(b, loc, b.getIntegerAttr(bits, ~signBit));
         Value combined = OrIOp::create(b, loc, AndIOp::create(b, loc, x, magnitude),
                                        AndIOp::create(b, loc, y, sign));
         return BitcastOp::create(b, loc, floatType, combined);
       }},
      {"prims.fmod",
       [](OpBuilder &b, Location loc, ValueRange args, Type) -> Value {
         if (isFloat(args[0].getType()))
           return RemFOp::create(b, loc, args[0], args[1]);
         return safeIntegerDivision<RemSIOp>(b, loc, args[0], args[1]);
       }},
      {"prims.remainder",
       [](OpBuilder &b, Location loc, ValueRange args, Type) -> Value {
         // fmod, then moved by the divisor where the signs differ.
         Value x = args[0], d = args[1];
         bool floating = isFloat(x.getType());
         Value r = floating ? Value(RemFOp::create(b, loc, x, d))
                            : safeIntegerDivision<RemSIOp>(b, loc, x, d);
         Value differ = XOrIOp::create(b, loc, compareToZero(b, loc, r, CmpIPredicate::slt),
                                       compareToZero(b, loc, d, CmpIPredicate::slt));
         Value move =
             AndIOp::create(b, loc, compareToZero(b, loc, r, CmpIPredicate::ne), differ);
         Value moved = floating ? Value(AddFOp::create(b, loc, r, d))
                                : Value(AddIOp::create(b, loc, r, d));
         return SelectOp::create(b, loc, move, moved, r);
       }},
      // On bool, + is or and * is and (PyTorch's results).
      {"prims.add", byKind<AddFOp, AddIOp, OrIOp>()},
      {"prims.sub", binary<SubFOp, SubIOp>()},
      {"prims.mul", byKind<MulFOp, MulIOp, AndIOp>()},
      {"prims.div",
       [](OpBuilder &b, Location loc, ValueRange args, Type) -> Value {
         if (isFloat(args[0].getType()))
           return DivFOp::create(b, loc, args[0], args[1]);
         return safeIntegerDivision<DivSIOp>(b, loc, args[0], args[1]);
       }},
      // On bool (i1, where true is -1 as a signed number) max is or, min and.
      {"prims.maximum", byKind<MaximumFOp, MaxSIOp, OrIOp>()},
      {"prims.minimum", byKind<MinimumFOp, MinSIOp, AndIOp>()},
      {"prims.pow",
       [](OpBuilder &b, Location loc, ValueRange args, Type) -> Value {
         if (isFloat(args[0].getType()))
           return math::PowFOp::create(b, loc, args[0], args[1]);
         // Integers: a negative exponent gives 1 for a base of 1, +-1 for
         // -1 and 0 otherwise (PyTorch's results, no division by zero).
         Value x = args[0], e = args[1];
         Type type = x.getType();
         if (type.isInteger(1)) // bool: x ** e is x, or true for e == 0
           return OrIOp::create(b, loc, x, XOrIOp::create(b, loc, e, ConstantOp::create(b, loc, b.getIntegerAttr(type, 1))));
         Value zero = ConstantOp::create(b, loc, b.getIntegerAttr(type, 0));
         Value one = ConstantOp::create(b, loc, b.getIntegerAttr(type, 1));
         Value minusOne = ConstantOp::create(b, loc, b.getIntegerAttr(type, -1));
         Value negative = CmpIOp::create(b, loc, CmpIPredicate::slt, e, zero);
         Value power = math::IPowIOp::create(b, loc, x, MaxSIOp::create(b, loc, e, zero));
         Value isOne = CmpIOp::create(b, loc, CmpIPredicate::eq, x, one);
         Value isMinusOne = CmpIOp::create(b, loc, CmpIPredicate::eq, x, minusOne);
         Value odd = TruncIOp::create(b, loc, b.getI1Type(), e);
         Value signOfMinusOne = SelectOp::create(b, loc, odd, minusOne, one);
         Value inverse = SelectOp::create(b, loc, isOne, one,
                                          SelectOp::create(b, loc, isMinusOne, signOfMinusOne, zero));
         return SelectOp::create(b, loc, negative, inverse, power);
       }},
      {"prims.bitwise_and", binary<AndIOp, AndIOp>()},
      {"prims.bitwise_or", binary<OrIOp, OrIOp>()},
      {"prims.bitwise_xor", binary<XOrIOp, XOrIOp>()},
      {"prims.bitwise_not",
       [](OpBuilder &b, Location loc, ValueRange args, Type) -> Value {
         // All ones: -1, or true for bool.
         Value ones = ConstantOp::create(b, loc, b.getIntegerAttr(args[0].getType(), -1));
         return XOrIOp::create(b, loc, args[0], ones);
       }},
      {"prims.eq", compare(CmpFPredicate::OEQ, CmpIPredicate::eq, CmpIPredicate::eq)},
      {"prims.ne", compare(CmpFPredicate::UNE, CmpIPredicate::ne, CmpIPredicate::ne)},
      {"prims.lt", compare(CmpFPredicate::OLT, CmpIPredicate::slt, CmpIPredicate::ult)},
      {"prims.le", compare(CmpFPredicate::OLE, CmpIPredicate::sle, CmpIPredicate::ule)},
      {"prims.gt", compare(CmpFPredicate::OGT, CmpIPredicate::sgt, CmpIPredicate::ugt)},
      {"prims.ge", compare(CmpFPredicate::OGE, CmpIPredicate::sge, CmpIPredicate::uge)},
      {"prims.where",
       [](OpBuilder &b, Location loc, ValueRange args, Type) -> Value {
         return SelectOp::create(b, loc, args[0], args[1], args[2]);
       }},
      {"prims.convert_element_type",
       [](OpBuilder &b, Location loc, ValueRange args, Type to) -> Value {
         return convertScalar(b, loc, args[0], to);
       }},
  };
  return table;
}

bool isComparison(StringRef name) {
  return name == "prims.eq" || name == "prims.ne" || name == "prims.lt" ||
         name == "prims.le" || name == "prims.gt" || name == "prims.ge";
}

/// The operands that are tensors the payload reads (convert_element_type's
/// dtype operand is not).
SmallVector<Value> tensorInputs(Operation *op) {
  SmallVector<Value> inputs;
  for (Value operand : op->getOperands())
    if (isa<TensorType>(operand.getType()))
      inputs.push_back(operand);
  return inputs;
}

/// Prims defined only on floating-point elements, and those not on bool.
bool floatOnly(StringRef name) {
  return llvm::is_contained({"prims.exp",   "prims.log",   "prims.log1p", "prims.sqrt",
                             "prims.rsqrt", "prims.sin",   "prims.cos",   "prims.tanh",
                             "prims.erf",   "prims.expm1", "prims.log2",  "prims.log10",
                             "prims.tan",   "prims.asin",  "prims.acos",  "prims.atan",
                             "prims.sinh",  "prims.cosh",  "prims.asinh", "prims.acosh",
                             "prims.atanh", "prims.atan2", "prims.copysign"},
                            name);
}
bool noBool(StringRef name) {
  return llvm::is_contained({"prims.neg", "prims.sub", "prims.div",
                             "prims.abs", "prims.ceil", "prims.floor",
                             "prims.round", "prims.trunc", "prims.fmod", "prims.remainder"},
                            name);
}

} // namespace

std::string opal::ir::elementwiseLoweringProblem(Operation *op) {
  StringRef name = op->getName().getStringRef();
  if (!payloads().count(name.str()))
    return "is not an elementwise prim";
  SmallVector<Value> inputs = tensorInputs(op);
  auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!resultType)
    return "needs a ranked result tensor, got " + typeString(op->getResult(0).getType());
  Type element;
  for (auto [index, input] : llvm::enumerate(inputs)) {
    auto type = dyn_cast<RankedTensorType>(input.getType());
    if (!type)
      return "needs ranked tensors, but operand #" + std::to_string(index) + " is " +
             typeString(input.getType());
    if (type.getShape() != resultType.getShape())
      return "needs operands of the result's shape (" + typeString(resultType) +
             "), but operand #" + std::to_string(index) + " is " + typeString(type) +
             "; broadcast with prims.broadcast_in_dim first";
    bool isPredicate = name == "prims.where" && index == 0;
    if (isPredicate) {
      if (!type.getElementType().isInteger(1))
        return "needs a bool (i1) predicate, got " + typeString(type);
      continue;
    }
    if (!element)
      element = type.getElementType();
    else if (type.getElementType() != element)
      return "needs operands of one element type, got " + typeString(element) + " and " +
             typeString(type.getElementType()) + "; convert with prims.convert_element_type first";
  }
  Type expected = isComparison(name) ? Type(IntegerType::get(op->getContext(), 1)) : element;
  if (name != "prims.convert_element_type" && resultType.getElementType() != expected)
    return "produces " + typeString(expected) + " elements, but its result is " +
           typeString(resultType);
  if (!isa<IntegerType, FloatType>(element))
    return "does not support element type " + typeString(element);
  if (name == "prims.convert_element_type") {
    if (auto code = constantInt(op->getOperand(1))) {
      Type wanted = elementTypeFor(*code, op->getContext());
      if (!wanted)
        return "has an unsupported dtype code " + std::to_string(*code);
      if (wanted != resultType.getElementType())
        return "converts to " + typeString(wanted) + " (dtype " + std::to_string(*code) +
               "), but its result is " + typeString(resultType);
    }
  }
  if (floatOnly(name) && !isFloat(element))
    return "needs a floating-point element type, got " + typeString(element);
  if (name.starts_with("prims.bitwise_") && !isInt(element))
    return "needs integer or bool elements, got " + typeString(element);
  if (noBool(name) && element.isInteger(1))
    return "does not support bool (i1) elements";
  return "";
}

namespace {

/// The scalar every element of `value` holds when it is a splat: a
/// prims.full (before or after its lowering to linalg.fill), or a broadcast
/// of one (before or after its lowering to a generic that yields its
/// input); null otherwise. An elementwise op reads it as that scalar rather
/// than from a buffer of the broadcast's size when the scalar is a
/// constant, which folds into the payload (x ** 3.0 becomes x * x * x).
Value splatScalar(Value value, int depth = 0) {
  Operation *def = value.getDefiningOp();
  if (!def || depth > 4)
    return {};
  StringRef name = def->getName().getStringRef();
  if (name == "prims.full")
    return def->getOperand(1);
  if (name == "prims.broadcast_in_dim")
    return splatScalar(def->getOperand(0), depth + 1);
  if (auto fill = dyn_cast<linalg::FillOp>(def))
    return fill.getInputs()[0];
  if (auto generic = dyn_cast<linalg::GenericOp>(def)) {
    if (generic.getNumDpsInputs() != 1 || generic.getNumResults() != 1)
      return {};
    auto yield = cast<linalg::YieldOp>(generic.getBody()->getTerminator());
    if (yield.getNumOperands() != 1 || yield.getOperand(0) != generic.getBody()->getArgument(0))
      return {};
    return splatScalar(generic.getDpsInputs()[0], depth + 1);
  }
  return {};
}

class ElementwiseToLinalg : public RewritePattern {
public:
  ElementwiseToLinalg(StringRef name, Payload payload, MLIRContext *context)
      : RewritePattern(name, /*benefit=*/1, context), payload_(std::move(payload)) {}

  LogicalResult matchAndRewrite(Operation *op, PatternRewriter &rewriter) const override {
    if (op->hasAttr(opal::ir::detail::kLoweredByProducerAttr))
      return rewriter.notifyMatchFailure(op, "its producer's lowering replaces it");
    std::string problem = opal::ir::elementwiseLoweringProblem(op);
    if (!problem.empty())
      return rewriter.notifyMatchFailure(op, problem);
    Location loc = op->getLoc();
    auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
    SmallVector<Value> inputs = tensorInputs(op);

    // The output: dynamic sizes from the first input.
    SmallVector<Value> dynamicSizes;
    for (int64_t dim = 0; dim < resultType.getRank(); ++dim)
      if (resultType.isDynamicDim(dim))
        dynamicSizes.push_back(tensor::DimOp::create(rewriter, loc, inputs[0], dim));
    Value init = tensor::EmptyOp::create(rewriter, loc, resultType.getShape(),
                                         resultType.getElementType(), dynamicSizes);

    // Splat inputs as scalars (converted as prims.full converts them);
    // the others read per element.
    SmallVector<Value> scalars(inputs.size()), read;
    for (auto [i, input] : llvm::enumerate(inputs)) {
      Value scalar = splatScalar(input);
      if (scalar && isa<IntegerType, FloatType>(scalar.getType()) &&
          matchPattern(scalar, m_Constant()))
        scalars[i] = convertScalar(rewriter, loc, scalar,
                                   cast<RankedTensorType>(input.getType()).getElementType());
      else
        read.push_back(input);
    }
    AffineMap identity = rewriter.getMultiDimIdentityMap(resultType.getRank());
    SmallVector<AffineMap> maps(read.size() + 1, identity);
    SmallVector<utils::IteratorType> iterators(resultType.getRank(),
                                               utils::IteratorType::parallel);
    auto generic = linalg::GenericOp::create(
        rewriter, loc, TypeRange{resultType}, read, ValueRange{init}, maps, iterators,
        [&](OpBuilder &b, Location bodyLoc, ValueRange args) {
          SmallVector<Value> operands;
          size_t next = 0;
          for (Value scalar : scalars)
            operands.push_back(scalar ? scalar : args[next++]);
          linalg::YieldOp::create(
              b, bodyLoc, payload_(b, bodyLoc, operands, resultType.getElementType()));
        });
    rewriter.replaceOp(op, generic.getResults());
    return success();
  }

private:
  Payload payload_;
};

} // namespace

void opal::ir::populateElementwiseToLinalgPatterns(RewritePatternSet &patterns) {
  for (const auto &[name, payload] : payloads())
    patterns.add<ElementwiseToLinalg>(name, payload, patterns.getContext());
}
