//===- RandomToLinalg.cpp - Random prims to linalg ------------------------===//
//
// prims.philox_uniform and prims.philox_normal: one elementwise
// linalg.generic without inputs whose element at row-major position i is a
// function of (seed, offset, i) only: Philox4x32-10 (Runtime/Philox.h, the
// same function on the host) over the counter {lo(i), hi(i), lo(offset),
// hi(offset)} and the key {lo(seed), hi(seed)}. As a pure function of the
// element's index, it fuses, vectorizes and maps to GPU threads like any
// elementwise op, and gives the same numbers on every device.
//
// Uniform: [0, 1) from the top bits of word 0 (24 for float32, 11 for
// float16, 8 for bfloat16), or of words 0 and 1 (53, float64). Normal:
// Box-Muller, sqrt(-2 log(1 - u1)) * cos(2 pi u2), with u1 and u2 from words
// 0 and 1 (float64: words 0-1 and 2-3), computed in float32 (float64) and
// rounded to the result type.
//
//===----------------------------------------------------------------------===//

#include "opal/Transforms/Passes.h"

#include "opal/Runtime/Philox.h"

#include "PrimUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

#include <cmath>

using namespace mlir;
using namespace opal::ir::detail;

namespace {

/// The four words of Philox4x32-10 at `counter` under `key` (i32 values).
std::array<Value, 4> philox(OpBuilder &b, Location loc, std::array<Value, 4> c,
                            std::array<Value, 2> k) {
  Type i32 = b.getI32Type();
  auto constant = [&](uint32_t v) {
    return arith::ConstantOp::create(b, loc, b.getIntegerAttr(i32, static_cast<int32_t>(v)));
  };
  Value m0 = constant(opal::philox::kM0), m1 = constant(opal::philox::kM1);
  Value w0 = constant(opal::philox::kW0), w1 = constant(opal::philox::kW1);
  for (int round = 0; round < opal::philox::kRounds; ++round) {
    if (round) {
      k[0] = arith::AddIOp::create(b, loc, k[0], w0);
      k[1] = arith::AddIOp::create(b, loc, k[1], w1);
    }
    auto p0 = arith::MulUIExtendedOp::create(b, loc, m0, c[0]);
    auto p1 = arith::MulUIExtendedOp::create(b, loc, m1, c[2]);
    Value x0 = arith::XOrIOp::create(
        b, loc, arith::XOrIOp::create(b, loc, p1.getHigh(), c[1]), k[0]);
    Value x2 = arith::XOrIOp::create(
        b, loc, arith::XOrIOp::create(b, loc, p0.getHigh(), c[3]), k[1]);
    c = {x0, p1.getLow(), x2, p0.getLow()};
  }
  return c;
}

/// The low and high 32 bits of an i64.
std::pair<Value, Value> halves(OpBuilder &b, Location loc, Value value) {
  Type i32 = b.getI32Type();
  Value c32 = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(32));
  return {arith::TruncIOp::create(b, loc, i32, value),
          arith::TruncIOp::create(b, loc, i32, arith::ShRUIOp::create(b, loc, value, c32))};
}

/// A uniform in [0, 1) of float type `type` from the top `bits` bits of
/// the 32-bit `word`.
Value uniformOfWord(OpBuilder &b, Location loc, Value word, unsigned bits, FloatType type) {
  Value shift =
      arith::ConstantOp::create(b, loc, b.getIntegerAttr(word.getType(), 32 - bits));
  Value top = arith::ShRUIOp::create(b, loc, word, shift);
  Value asFloat = arith::UIToFPOp::create(b, loc, type, top);
  Value scale = arith::ConstantOp::create(b, loc, b.getFloatAttr(type, std::ldexp(1.0, -int(bits))));
  return arith::MulFOp::create(b, loc, asFloat, scale);
}

/// A uniform double in [0, 1) from the top 53 bits of words `high`, `low`.
Value uniformOfWords(OpBuilder &b, Location loc, Value high, Value low) {
  Type i64 = b.getI64Type();
  Value wide = arith::OrIOp::create(
      b, loc,
      arith::ShLIOp::create(b, loc, arith::ExtUIOp::create(b, loc, i64, high),
                            arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(32))),
      arith::ExtUIOp::create(b, loc, i64, low));
  Value top = arith::ShRUIOp::create(b, loc, wide,
                                     arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(11)));
  Value asFloat = arith::UIToFPOp::create(b, loc, b.getF64Type(), top);
  Value scale = arith::ConstantOp::create(b, loc, b.getF64FloatAttr(std::ldexp(1.0, -53)));
  return arith::MulFOp::create(b, loc, asFloat, scale);
}

/// Box-Muller: a standard normal from two uniforms in [0, 1).
Value boxMuller(OpBuilder &b, Location loc, Value u1, Value u2) {
  Type type = u1.getType();
  auto constant = [&](double v) { return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, v)); };
  // 1 - u1 is in (0, 1]: its log is finite.
  Value positive = arith::SubFOp::create(b, loc, constant(1.0), u1);
  Value radius = math::SqrtOp::create(
      b, loc, arith::MulFOp::create(b, loc, constant(-2.0), math::LogOp::create(b, loc, positive)));
  Value angle = arith::MulFOp::create(b, loc, constant(2.0 * M_PI), u2);
  return arith::MulFOp::create(b, loc, radius, math::CosOp::create(b, loc, angle));
}

/// The bits of a uniform of `type`: its significand's, at most 24.
unsigned uniformBits(FloatType type) {
  return std::min<unsigned>(type.getFPMantissaWidth(), 24);
}

std::string randomProblem(Operation *op) {
  if (std::string p = shapedResultProblem(op); !p.empty())
    return p;
  auto result = cast<RankedTensorType>(op->getResult(0).getType());
  if (!isa<FloatType>(result.getElementType()))
    return "draws floating-point numbers, not " + typeString(result.getElementType());
  if (!op->getOperand(1).getType().isInteger(64) || !op->getOperand(2).getType().isInteger(64))
    return "needs an i64 seed and offset";
  return "";
}

LogicalResult lowerRandom(Operation *op, PatternRewriter &rewriter, bool normal) {
  Location loc = op->getLoc();
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  auto element = cast<FloatType>(resultType.getElementType());
  SmallVector<Value> sizes = shapeListSizes(rewriter, loc, resultType, op->getOperand(0));
  int64_t rank = resultType.getRank();
  // Loop-invariant parts: the key, the offset's words, the dims' sizes.
  auto [k0, k1] = halves(rewriter, loc, op->getOperand(1));
  auto [c2, c3] = halves(rewriter, loc, op->getOperand(2));
  SmallVector<Value> extents;
  for (int64_t d = 0, dynamic = 0; d < rank; ++d)
    extents.push_back(
        resultType.isDynamicDim(d)
            ? arith::IndexCastOp::create(rewriter, loc, rewriter.getI64Type(), sizes[dynamic++])
                  .getResult()
            : arith::ConstantOp::create(rewriter, loc,
                                        rewriter.getI64IntegerAttr(resultType.getDimSize(d)))
                  .getResult());
  Value result = generateTensor(
      rewriter, loc, resultType, sizes, [&](OpBuilder &b, Location l, ArrayRef<Value> at) {
        Type i64 = b.getI64Type();
        Value linear = arith::ConstantOp::create(b, l, b.getI64IntegerAttr(0));
        for (int64_t d = 0; d < rank; ++d) {
          Value index = arith::IndexCastOp::create(b, l, i64, at[d]);
          linear = arith::AddIOp::create(b, l, arith::MulIOp::create(b, l, linear, extents[d]),
                                         index);
        }
        auto [c0, c1] = halves(b, l, linear);
        std::array<Value, 4> words = philox(b, l, {c0, c1, c2, c3}, {k0, k1});
        Value value;
        if (element.isF64()) {
          Value u1 = uniformOfWords(b, l, words[0], words[1]);
          value = normal ? boxMuller(b, l, u1, uniformOfWords(b, l, words[2], words[3])) : u1;
        } else {
          FloatType f32 = b.getF32Type();
          unsigned bits = normal ? 24 : uniformBits(element);
          Value u1 = uniformOfWord(b, l, words[0], bits, f32);
          value = normal ? boxMuller(b, l, u1, uniformOfWord(b, l, words[1], bits, f32)) : u1;
          if (element != f32)
            value = arith::TruncFOp::create(b, l, element, value);
        }
        return value;
      });
  rewriter.replaceOp(op, result);
  return success();
}

LogicalResult lowerUniform(Operation *op, PatternRewriter &rewriter) {
  return lowerRandom(op, rewriter, /*normal=*/false);
}

LogicalResult lowerNormal(Operation *op, PatternRewriter &rewriter) {
  return lowerRandom(op, rewriter, /*normal=*/true);
}

} // namespace

const llvm::StringMap<PrimLowering> &opal::ir::detail::randomLowerings() {
  static const llvm::StringMap<PrimLowering> table = {
      {"prims.philox_uniform", {randomProblem, lowerUniform}},
      {"prims.philox_normal", {randomProblem, lowerNormal}},
  };
  return table;
}
