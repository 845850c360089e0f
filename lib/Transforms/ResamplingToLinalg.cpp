//===- ResamplingToLinalg.cpp - Upsampling prims to linalg ----------------===//
//
// prims.upsample_nearest and prims.upsample_linear resample the two spatial
// dims of an N, C, H, W input to output_size, or to floor(size * factor).
// Each is one linalg.generic over the output: nearest reads PyTorch's
// nearest source pixel; linear blends the two source rows and columns
// around PyTorch's source coordinate (align_corners or half-pixel centres)
// with PyTorch's weights, in PyTorch's order of operations. Every read is
// clamped into the input.
//
//===----------------------------------------------------------------------===//

#include "opal/Transforms/Passes.h"

#include "PrimUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace opal::ir::detail;

namespace {

/// The operands of an upsampling prim: input, output_size, scale_factors,
/// then (linear) align_corners, then the optional scale of each spatial
/// dim.
struct Upsampling {
  bool linear;
  unsigned firstScale() const { return linear ? 4 : 3; }
};

Upsampling upsamplingOf(Operation *op) {
  return {op->getName().getStringRef() == "prims.upsample_linear"};
}

std::string upsampleProblem(Operation *op) {
  auto input = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  auto result = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!input || !result || input.getRank() != 4 || result.getRank() != 4 ||
      input.getElementType() != result.getElementType())
    return "needs a 4-d (NCHW) input and a result of its element type";
  Upsampling u = upsamplingOf(op);
  if (u.linear ? !isa<FloatType>(input.getElementType())
               : !isa<FloatType, IntegerType>(input.getElementType()))
    return u.linear ? "needs a floating-point input" : "needs a numeric input";
  if (u.linear && !constantInt(op->getOperand(3)))
    return "needs a constant align_corners";
  bool sizes = !isNone(op->getOperand(1)), factors = !isNone(op->getOperand(2));
  if (sizes == factors)
    return "needs either an output size or scale factors";
  if (sizes && (!shapeList(op->getOperand(1)) || shapeList(op->getOperand(1))->size() != 2))
    return "needs an output size of two";
  if (factors && (!constantFloatList(op->getOperand(2)) ||
                  constantFloatList(op->getOperand(2))->size() != 2))
    return "needs two constant scale factors";
  return "";
}

/// What both lowerings compute once: the input's sizes, the output's (given,
/// or floor(size * factor), at least 0) and each spatial dim's scale
/// (source pixels per output pixel) as PyTorch's area_pixel_compute_scale
/// computes it, in `compute` (float, double for float64 inputs).
struct Geometry {
  SmallVector<Value> extents, outSizes, scales;
  Type compute;
};

Value asCompute(OpBuilder &b, Location loc, Value index, Type compute) {
  Value i64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), index);
  return arith::SIToFPOp::create(b, loc, compute, i64);
}

Geometry geometryOf(Operation *op, OpBuilder &b, Location loc, bool alignCorners) {
  Upsampling u = upsamplingOf(op);
  Value input = op->getOperand(0);
  Type element = cast<RankedTensorType>(input.getType()).getElementType();
  Geometry g;
  g.compute = element.isF64() ? Type(b.getF64Type()) : Type(b.getF32Type());
  std::optional<SmallVector<double>> factors = constantFloatList(op->getOperand(2));
  g.extents.resize(4);
  g.outSizes.resize(4);
  for (int64_t d = 0; d < 4; ++d)
    g.extents[d] = tensor::DimOp::create(b, loc, input, d);
  g.outSizes[0] = g.extents[0];
  g.outSizes[1] = g.extents[1];
  for (int64_t s = 0; s < 2; ++s) {
    if (!factors) {
      Value size = op->getOperand(1).getDefiningOp()->getOperand(s);
      std::optional<int64_t> known = constantInt(size);
      g.outSizes[2 + s] = known ? arith::ConstantIndexOp::create(b, loc, *known).getResult()
                                : arith::IndexCastOp::create(b, loc, b.getIndexType(), size)
                                      .getResult();
      continue;
    }
    Value extent = arith::IndexCastOp::create(b, loc, b.getI64Type(), g.extents[2 + s]);
    Value scaled = arith::MulFOp::create(
        b, loc, arith::SIToFPOp::create(b, loc, b.getF64Type(), extent),
        arith::ConstantOp::create(b, loc, b.getF64FloatAttr((*factors)[s])));
    Value floored = arith::FPToSIOp::create(
        b, loc, b.getI64Type(),
        arith::MaximumFOp::create(b, loc, scaled,
                                  arith::ConstantOp::create(b, loc, b.getF64FloatAttr(0.0))));
    g.outSizes[2 + s] = arith::IndexCastOp::create(b, loc, b.getIndexType(), floored);
  }
  for (int64_t s = 0; s < 2; ++s) {
    Value in = asCompute(b, loc, g.extents[2 + s], g.compute);
    Value out = asCompute(b, loc, g.outSizes[2 + s], g.compute);
    if (alignCorners) {
      // (in - 1) / (out - 1) where out > 1, else 0.
      Value one = arith::ConstantOp::create(b, loc, b.getFloatAttr(g.compute, 1.0));
      Value ratio = arith::DivFOp::create(b, loc, arith::SubFOp::create(b, loc, in, one),
                                          arith::SubFOp::create(b, loc, out, one));
      Value several = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, g.outSizes[2 + s],
                                            arith::ConstantIndexOp::create(b, loc, 1));
      g.scales.push_back(arith::SelectOp::create(
          b, loc, several, ratio,
          arith::ConstantOp::create(b, loc, b.getFloatAttr(g.compute, 0.0))));
      continue;
    }
    Value ratio = arith::DivFOp::create(b, loc, in, out);
    Value given;
    if (!isNone(op->getOperand(u.firstScale() + s)))
      given = op->getOperand(u.firstScale() + s);
    else if (factors)
      given = arith::ConstantOp::create(b, loc, b.getF64FloatAttr((*factors)[s]));
    if (given) {
      // A positive scale sets the ratio to 1 / scale (computed in double).
      Value positive = arith::CmpFOp::create(
          b, loc, arith::CmpFPredicate::OGT, given,
          arith::ConstantOp::create(b, loc, b.getF64FloatAttr(0.0)));
      Value inverse = arith::DivFOp::create(
          b, loc, arith::ConstantOp::create(b, loc, b.getF64FloatAttr(1.0)), given);
      inverse = convertScalar(b, loc, inverse, g.compute);
      ratio = arith::SelectOp::create(b, loc, positive, inverse, ratio);
    }
    g.scales.push_back(ratio);
  }
  return g;
}

/// A generic over the output (its sizes g.outSizes) whose element is
/// `element(b, loc)` (reading linalg.index inside).
LogicalResult replaceByGeneric(Operation *op, PatternRewriter &rewriter, const Geometry &g,
                               function_ref<Value(OpBuilder &, Location)> element) {
  Location loc = op->getLoc();
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  Value zero = arith::ConstantIndexOp::create(rewriter, loc, 0);
  SmallVector<Value> dynamic;
  for (int64_t d = 0; d < 4; ++d)
    if (resultType.isDynamicDim(d))
      dynamic.push_back(arith::MaxSIOp::create(rewriter, loc, g.outSizes[d], zero));
  Value init = tensor::EmptyOp::create(rewriter, loc, resultType.getShape(),
                                       resultType.getElementType(), dynamic);
  auto generic = linalg::GenericOp::create(
      rewriter, loc, TypeRange{resultType}, ValueRange{}, ValueRange{init},
      SmallVector<AffineMap>{rewriter.getMultiDimIdentityMap(4)},
      SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
      [&](OpBuilder &b, Location l, ValueRange) {
        linalg::YieldOp::create(b, l, element(b, l));
      });
  rewriter.replaceOp(op, generic.getResults());
  return success();
}

/// `i` clamped into [0, extent - 1].
Value clampIndex(OpBuilder &b, Location l, Value i, Value extent) {
  Value last = arith::SubIOp::create(b, l, extent, arith::ConstantIndexOp::create(b, l, 1));
  return arith::MaxSIOp::create(b, l, arith::MinSIOp::create(b, l, i, last),
                                arith::ConstantIndexOp::create(b, l, 0));
}

/// Nearest-neighbour upsampling as PyTorch computes it: output pixel o of a
/// dim reads o when the output size is the input's, o / 2 when it is twice
/// it, and otherwise min(floor(o * scale), size - 1).
LogicalResult lowerUpsampleNearest(Operation *op, PatternRewriter &rewriter) {
  Value input = op->getOperand(0);
  Geometry g = geometryOf(op, rewriter, op->getLoc(), /*alignCorners=*/false);
  return replaceByGeneric(op, rewriter, g, [&](OpBuilder &b, Location l) -> Value {
    SmallVector<Value> at = {linalg::IndexOp::create(b, l, 0), linalg::IndexOp::create(b, l, 1)};
    for (int64_t s = 0; s < 2; ++s) {
      Value index = linalg::IndexOp::create(b, l, 2 + s);
      Value scaled = arith::MulFOp::create(b, l, asCompute(b, l, index, g.compute), g.scales[s]);
      Value source = arith::IndexCastOp::create(
          b, l, b.getIndexType(),
          arith::FPToSIOp::create(b, l, b.getI64Type(), math::FloorOp::create(b, l, scaled)));
      Value extent = g.extents[2 + s];
      Value nearest = clampIndex(b, l, source, extent);
      // PyTorch's exact cases first: the same size reads the same pixel,
      // twice the size each pixel twice, whatever the scale.
      Value outSize = g.outSizes[2 + s];
      Value same = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, outSize, extent);
      Value twice = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, outSize,
                                          arith::AddIOp::create(b, l, extent, extent));
      Value halved =
          arith::ShRUIOp::create(b, l, index, arith::ConstantIndexOp::create(b, l, 1));
      nearest = arith::SelectOp::create(b, l, twice, halved, nearest);
      at.push_back(arith::SelectOp::create(b, l, same, index, nearest));
    }
    return tensor::ExtractOp::create(b, l, input, at);
  });
}

/// Bilinear upsampling as PyTorch's CPU kernel computes it: per spatial dim
/// the source coordinate is scale * o (align_corners) or max(scale * (o +
/// 0.5) - 0.5, 0); it falls between i0 = its integer part and i1 = i0 + 1
/// (i0 at the last pixel); weights l1 = coordinate - i0 (in [0, 1]) and l0 =
/// 1 - l1; the result l0h (l0w x00 + l1w x01) + l1h (l0w x10 + l1w x11).
LogicalResult lowerUpsampleLinear(Operation *op, PatternRewriter &rewriter) {
  Value input = op->getOperand(0);
  Type element = cast<RankedTensorType>(input.getType()).getElementType();
  bool alignCorners = *constantInt(op->getOperand(3)) != 0;
  Geometry g = geometryOf(op, rewriter, op->getLoc(), alignCorners);
  return replaceByGeneric(op, rewriter, g, [&](OpBuilder &b, Location l) -> Value {
    auto constant = [&](double v) {
      return arith::ConstantOp::create(b, l, b.getFloatAttr(g.compute, v)).getResult();
    };
    SmallVector<Value> low, high, weightLow, weightHigh;
    for (int64_t s = 0; s < 2; ++s) {
      Value o = asCompute(b, l, linalg::IndexOp::create(b, l, 2 + s), g.compute);
      Value real;
      if (alignCorners) {
        real = arith::MulFOp::create(b, l, g.scales[s], o);
      } else {
        Value centre = arith::SubFOp::create(
            b, l,
            arith::MulFOp::create(b, l, g.scales[s], arith::AddFOp::create(b, l, o, constant(0.5))),
            constant(0.5));
        real = arith::MaximumFOp::create(b, l, centre, constant(0.0));
      }
      Value i0 = arith::IndexCastOp::create(
          b, l, b.getIndexType(), arith::FPToSIOp::create(b, l, b.getI64Type(), real));
      Value extent = g.extents[2 + s];
      Value last = arith::SubIOp::create(b, l, extent, arith::ConstantIndexOp::create(b, l, 1));
      Value before = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, i0, last);
      Value i1 = arith::AddIOp::create(
          b, l, i0,
          arith::SelectOp::create(b, l, before, arith::ConstantIndexOp::create(b, l, 1),
                                  arith::ConstantIndexOp::create(b, l, 0)));
      Value fraction = arith::SubFOp::create(b, l, real, asCompute(b, l, i0, g.compute));
      Value l1 = arith::MinimumFOp::create(
          b, l, arith::MaximumFOp::create(b, l, fraction, constant(0.0)), constant(1.0));
      low.push_back(clampIndex(b, l, i0, extent));
      high.push_back(clampIndex(b, l, i1, extent));
      weightHigh.push_back(l1);
      weightLow.push_back(arith::SubFOp::create(b, l, constant(1.0), l1));
    }
    Value n = linalg::IndexOp::create(b, l, 0), c = linalg::IndexOp::create(b, l, 1);
    auto read = [&](Value h, Value w) {
      Value x = tensor::ExtractOp::create(b, l, input, ValueRange{n, c, h, w});
      return convertScalar(b, l, x, g.compute);
    };
    auto row = [&](Value h) {
      return arith::AddFOp::create(
                 b, l, arith::MulFOp::create(b, l, weightLow[1], read(h, low[1])),
                 arith::MulFOp::create(b, l, weightHigh[1], read(h, high[1])))
          .getResult();
    };
    Value blended = arith::AddFOp::create(
        b, l, arith::MulFOp::create(b, l, weightLow[0], row(low[0])),
        arith::MulFOp::create(b, l, weightHigh[0], row(high[0])));
    return convertScalar(b, l, blended, element);
  });
}

} // namespace

const llvm::StringMap<PrimLowering> &opal::ir::detail::resamplingLowerings() {
  static const llvm::StringMap<PrimLowering> table = {
      {"prims.upsample_nearest", {upsampleProblem, lowerUpsampleNearest}},
      {"prims.upsample_linear", {upsampleProblem, lowerUpsampleLinear}},
  };
  return table;
}
