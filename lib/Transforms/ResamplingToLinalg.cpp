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
// prims.grid_sample samples an N, C, H, W input at the points of an
// N, Ho, Wo, 2 grid of (x, y) in [-1, 1]: one generic over the N, C, Ho, Wo
// output, with PyTorch's CPU kernel's arithmetic (its unnormalization,
// border clipping and reflection, bilinear weights, round-half-even
// nearest pixel and bicubic convolution with A = -0.75). A pixel outside
// the input reads 0 and is never loaded.
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

std::string gridSampleProblem(Operation *op) {
  auto input = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  auto grid = dyn_cast<RankedTensorType>(op->getOperand(1).getType());
  if (!input || !grid || input.getRank() != 4 || grid.getRank() != 4 ||
      !isa<Float32Type, Float64Type>(input.getElementType()) ||
      grid.getElementType() != input.getElementType())
    return "needs a 4-d float32 or float64 input and a 4-d grid of its element type";
  auto mode = constantInt(op->getOperand(2)), padding = constantInt(op->getOperand(3));
  if (!mode || *mode < 0 || *mode > 2 || !padding || *padding < 0 || *padding > 2 ||
      !constantInt(op->getOperand(4)))
    return "needs a constant interpolation mode (0 to 2), padding mode (0 to 2) and "
           "align_corners";
  return "";
}

/// One spatial dim of grid sampling (PyTorch's ComputeLocation): the
/// grid's [-1, 1] unnormalized to pixels, then the padding mode's
/// clipping (border) or reflection (reflection) into the input.
struct SampledDim {
  Value size;       // the input's extent (index)
  Value last;       // size - 1, as the element type
  Value scale;      // (size - 1) / 2 with align_corners, else size / 2
  Value twiceSpan;  // reflection's period
  Value empty;      // nothing to reflect over (the result is 0)
  bool alignCorners;
  int64_t padding;  // 0 zeros, 1 border, 2 reflection
  Type element;

  Value constant(OpBuilder &b, Location l, double v) const {
    return arith::ConstantOp::create(b, l, b.getFloatAttr(element, v));
  }
  Value unnormalize(OpBuilder &b, Location l, Value g) const {
    Value x = arith::MulFOp::create(b, l, arith::AddFOp::create(b, l, g, constant(b, l, 1.0)),
                                    scale);
    return alignCorners ? x : arith::SubFOp::create(b, l, x, constant(b, l, 0.5)).getResult();
  }
  /// Into [0, size - 1]; NaN becomes 0, as PyTorch's clamp.
  Value clip(OpBuilder &b, Location l, Value x) const {
    return arith::MinNumFOp::create(
        b, l, arith::MaxNumFOp::create(b, l, x, constant(b, l, 0.0)), last);
  }
  Value reflect(OpBuilder &b, Location l, Value x) const {
    Value low = constant(b, l, alignCorners ? 0.0 : -0.5);
    Value distance = math::AbsFOp::create(b, l, arith::SubFOp::create(b, l, x, low));
    // (The quotient is not negative: its floor is PyTorch's trunc.)
    Value flips =
        math::FloorOp::create(b, l, arith::DivFOp::create(b, l, distance, twiceSpan));
    Value extra = arith::SubFOp::create(b, l, distance,
                                        arith::MulFOp::create(b, l, flips, twiceSpan));
    Value folded = arith::MinimumFOp::create(b, l, extra,
                                             arith::SubFOp::create(b, l, twiceSpan, extra));
    Value reflected = arith::AddFOp::create(b, l, folded, low);
    return arith::SelectOp::create(b, l, empty, constant(b, l, 0.0), reflected);
  }
  /// A pixel coordinate after the padding mode (compute_coordinates).
  Value pad(OpBuilder &b, Location l, Value x) const {
    if (padding == 1)
      return clip(b, l, x);
    if (padding == 2)
      return clip(b, l, reflect(b, l, x));
    return x;
  }
  /// A whole coordinate as an index: values far outside the input (and
  /// NaN) become -2, which no read takes.
  Value toIndex(OpBuilder &b, Location l, Value whole) const {
    Value far = arith::MaxNumFOp::create(b, l, whole, constant(b, l, -2.0));
    Value bounded = arith::MinNumFOp::create(
        b, l, far, arith::AddFOp::create(b, l, last, constant(b, l, 2.0)));
    Value i64 = arith::FPToSIOp::create(b, l, b.getI64Type(), bounded);
    return arith::IndexCastOp::create(b, l, b.getIndexType(), i64);
  }
};

SampledDim sampledDim(OpBuilder &b, Location loc, Value input, int64_t dim, Type element,
                      bool alignCorners, int64_t padding) {
  SampledDim d;
  d.element = element;
  d.alignCorners = alignCorners;
  d.padding = padding;
  d.size = tensor::DimOp::create(b, loc, input, dim);
  Value extent = asCompute(b, loc, d.size, element);
  Value one = d.constant(b, loc, 1.0), two = d.constant(b, loc, 2.0);
  d.last = arith::SubFOp::create(b, loc, extent, one);
  d.scale = arith::DivFOp::create(b, loc, alignCorners ? d.last : extent, two);
  d.twiceSpan = arith::MulFOp::create(b, loc, alignCorners ? d.last : extent, two);
  // align_corners reflects over [0, size - 1], which needs two pixels.
  d.empty = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sle, d.size,
                                  arith::ConstantIndexOp::create(b, loc, alignCorners ? 1 : 0));
  return d;
}

/// PyTorch's cubic convolution weights of the taps at -1, 0, 1, 2 from a
/// point t in [0, 1) past the first (A = -0.75).
SmallVector<Value> cubicWeights(OpBuilder &b, Location l, const SampledDim &d, Value t) {
  auto c = [&](double v) { return d.constant(b, l, v); };
  auto mul = [&](Value x, Value y) { return arith::MulFOp::create(b, l, x, y).getResult(); };
  auto add = [&](Value x, Value y) { return arith::AddFOp::create(b, l, x, y).getResult(); };
  auto sub = [&](Value x, Value y) { return arith::SubFOp::create(b, l, x, y).getResult(); };
  const double a = -0.75;
  // |x| in (1, 2): ((A x - 5A) x + 8A) x - 4A; |x| <= 1: ((A + 2) x - (A + 3)) x x + 1.
  auto outer = [&](Value x) {
    return sub(mul(add(mul(sub(mul(c(a), x), c(5 * a)), x), c(8 * a)), x), c(4 * a));
  };
  auto inner = [&](Value x) {
    return add(mul(mul(sub(mul(c(a + 2), x), c(a + 3)), x), x), c(1.0));
  };
  return {outer(add(t, c(1.0))), inner(t), inner(sub(c(1.0), t)), outer(sub(c(2.0), t))};
}

LogicalResult lowerGridSample(Operation *op, PatternRewriter &rewriter) {
  Location loc = op->getLoc();
  Value input = op->getOperand(0), grid = op->getOperand(1);
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  Type element = resultType.getElementType();
  int64_t mode = *constantInt(op->getOperand(2)), padding = *constantInt(op->getOperand(3));
  bool alignCorners = *constantInt(op->getOperand(4)) != 0;
  OpBuilder &b = rewriter;
  SampledDim height = sampledDim(b, loc, input, 2, element, alignCorners, padding);
  SampledDim width = sampledDim(b, loc, input, 3, element, alignCorners, padding);
  Value batch = tensor::DimOp::create(b, loc, grid, 0);
  SmallVector<Value> sizes = {tensor::DimOp::create(b, loc, input, 0),
                              tensor::DimOp::create(b, loc, input, 1),
                              tensor::DimOp::create(b, loc, grid, 1),
                              tensor::DimOp::create(b, loc, grid, 2)};
  SmallVector<Value> dynamic;
  for (int64_t d = 0; d < 4; ++d)
    if (resultType.isDynamicDim(d))
      dynamic.push_back(sizes[d]);
  Value result = generateTensor(
      b, loc, resultType, dynamic, [&](OpBuilder &nb, Location l, ArrayRef<Value> at) -> Value {
        Value n = at[0], c = at[1];
        // (aten checks the batches agree before the call.)
        Value sameBatch = inBounds(nb, l, n, batch);
        auto coordinate = [&](int64_t k) {
          Value index = arith::ConstantIndexOp::create(nb, l, k);
          return extractInside(nb, l, grid, ValueRange{n, at[2], at[3], index}, sameBatch,
                               nb.getZeroAttr(element));
        };
        Value gx = coordinate(0), gy = coordinate(1);
        auto read = [&](Value y, Value x) {
          Value inside = arith::AndIOp::create(nb, l, inBounds(nb, l, y, height.size),
                                               inBounds(nb, l, x, width.size));
          return extractInside(nb, l, input, ValueRange{n, c, y, x}, inside,
                               nb.getZeroAttr(element));
        };
        auto mul = [&](Value x, Value y) { return arith::MulFOp::create(nb, l, x, y).getResult(); };
        auto add = [&](Value x, Value y) { return arith::AddFOp::create(nb, l, x, y).getResult(); };
        auto sub = [&](Value x, Value y) { return arith::SubFOp::create(nb, l, x, y).getResult(); };
        Value one = width.constant(nb, l, 1.0);
        if (mode == 1) {
          Value x = math::RoundEvenOp::create(nb, l, width.pad(nb, l, width.unnormalize(nb, l, gx)));
          Value y =
              math::RoundEvenOp::create(nb, l, height.pad(nb, l, height.unnormalize(nb, l, gy)));
          return read(height.toIndex(nb, l, y), width.toIndex(nb, l, x));
        }
        if (mode == 0) {
          Value x = width.pad(nb, l, width.unnormalize(nb, l, gx));
          Value y = height.pad(nb, l, height.unnormalize(nb, l, gy));
          Value xw = math::FloorOp::create(nb, l, x), yn = math::FloorOp::create(nb, l, y);
          Value w = sub(x, xw), e = sub(one, w), nDist = sub(y, yn), s = sub(one, nDist);
          Value west = width.toIndex(nb, l, xw), north = height.toIndex(nb, l, yn);
          Value step = arith::ConstantIndexOp::create(nb, l, 1);
          Value east = arith::AddIOp::create(nb, l, west, step);
          Value south = arith::AddIOp::create(nb, l, north, step);
          Value sum = add(mul(read(north, west), mul(s, e)), mul(read(north, east), mul(s, w)));
          sum = add(sum, mul(read(south, west), mul(nDist, e)));
          return add(sum, mul(read(south, east), mul(nDist, w)));
        }
        // Bicubic: the 4 x 4 pixels around the unnormalized point, each
        // tap's coordinate through the padding mode.
        Value x = width.unnormalize(nb, l, gx), y = height.unnormalize(nb, l, gy);
        Value x0 = math::FloorOp::create(nb, l, x), y0 = math::FloorOp::create(nb, l, y);
        SmallVector<Value> wx = cubicWeights(nb, l, width, sub(x, x0));
        SmallVector<Value> wy = cubicWeights(nb, l, height, sub(y, y0));
        SmallVector<Value> columns;
        for (int64_t j = 0; j < 4; ++j)
          columns.push_back(width.toIndex(
              nb, l, width.pad(nb, l, add(x0, width.constant(nb, l, j - 1.0)))));
        Value sum;
        for (int64_t i = 0; i < 4; ++i) {
          Value row = height.toIndex(
              nb, l, height.pad(nb, l, add(y0, height.constant(nb, l, i - 1.0))));
          Value line;
          for (int64_t j = 0; j < 4; ++j) {
            Value term = mul(wx[j], read(row, columns[j]));
            line = line ? add(line, term) : term;
          }
          Value term = mul(wy[i], line);
          sum = sum ? add(sum, term) : term;
        }
        return sum;
      });
  rewriter.replaceOp(op, result);
  return success();
}

} // namespace

const llvm::StringMap<PrimLowering> &opal::ir::detail::resamplingLowerings() {
  static const llvm::StringMap<PrimLowering> table = {
      {"prims.upsample_nearest", {upsampleProblem, lowerUpsampleNearest}},
      {"prims.upsample_linear", {upsampleProblem, lowerUpsampleLinear}},
      {"prims.grid_sample", {gridSampleProblem, lowerGridSample}},
  };
  return table;
}
