//===- PoolingToLinalg.cpp - Pooling prims to linalg ----------------------===//
//
// prims.max_pool (N, C and 1 to 3 spatial dims): one linalg.generic over (N,
// C, O..., K...) that reduces the window into the maximum so far and its
// index into the input's plane of spatial dims (the first maximum wins; NaN is the maximum,
// as in PyTorch). The input is read with tensor.extract only inside it:
// padding counts as -inf. A window-shaped operand gives the loops over the
// window their extent, as linalg's pooling ops do. Where nothing reads the
// indices (max_pool2d), the maximum alone: the input padded with the
// smallest value, then a generic whose output loops are innermost, reading
// the padded input without a check (a strided row LLVM vectorizes).
//
// prims.avg_pool: the same reduction into each window's sum (padding adds
// 0), then one elementwise generic divides by PyTorch's divisor (the window
// clipped to the padded input, or to the input without count_include_pad,
// or divisor_override). prims.adaptive_avg_pool: windows of varying size
// (PyTorch's floor/ceil bounds), each summed by one scf.for per spatial dim
// inside a generic over the output. Their gradients (prims.avg_pool_backward,
// prims.adaptive_avg_pool_backward) are gathers over the input: each
// element sums the scaled gradients of the windows that cover it.
//
//===----------------------------------------------------------------------===//

#include "opal/Transforms/Passes.h"

#include "PrimUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

#include <functional>
#include <limits>

using namespace mlir;
using namespace opal::ir::detail;

namespace {

struct PoolParameters {
  SmallVector<int64_t> kernel, stride, padding, dilation;
  bool ceilMode = false;
};

/// PyTorch's pooling_output_shape: windows of `kernel` (`dilation` apart)
/// every `stride` over `extent` padded by `pad` on both sides; with ceil
/// mode a last partial window counts if it starts inside the input or its
/// left padding. At least 0.
Value pooledSize(OpBuilder &b, Location loc, Value extent, int64_t kernel, int64_t stride,
                 int64_t pad, int64_t dilation, bool ceilMode) {
  auto index = [&](int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); };
  Value span = arith::AddIOp::create(
      b, loc, extent,
      index(2 * pad - dilation * (kernel - 1) - 1 + (ceilMode ? stride - 1 : 0)));
  Value size = arith::AddIOp::create(
      b, loc, arith::FloorDivSIOp::create(b, loc, span, index(stride)), index(1));
  if (ceilMode) {
    // (size - 1) * stride >= extent + pad: the last window starts in the
    // right padding, and is dropped.
    Value start = arith::MulIOp::create(
        b, loc, arith::SubIOp::create(b, loc, size, index(1)), index(stride));
    Value past = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, start,
                                       arith::AddIOp::create(b, loc, extent, index(pad)));
    size = arith::SelectOp::create(b, loc, past, arith::SubIOp::create(b, loc, size, index(1)),
                                   size);
  }
  return arith::MaxSIOp::create(b, loc, size, index(0));
}



std::optional<PoolParameters> parametersOf(Operation *op) {
  auto kernel = constantIntList(op->getOperand(1));
  auto stride = constantIntList(op->getOperand(2));
  auto padding = constantIntList(op->getOperand(3));
  auto dilation = constantIntList(op->getOperand(4));
  auto ceilMode = constantInt(op->getOperand(5));
  if (!kernel || !stride || !padding || !dilation || !ceilMode)
    return std::nullopt;
  return PoolParameters{*kernel, *stride, *padding, *dilation, *ceilMode != 0};
}

/// The number of spatial dims of a pooling prim's input (rank - 2), or 0
/// when it is not a ranked tensor of 1 to 3 spatial dims.
int64_t spatialDims(Value input) {
  auto type = dyn_cast<RankedTensorType>(input.getType());
  if (!type || type.getRank() < 3 || type.getRank() > 5)
    return 0;
  return type.getRank() - 2;
}

/// The maps of a pooling generic over (N, C, O..., K...) with `spatial`
/// output and window dims: a window-shaped input (the window dims' extent)
/// then `outputs` results indexed by (N, C, O...).
SmallVector<AffineMap> windowMaps(MLIRContext *context, int64_t spatial, int64_t outputs) {
  int64_t loops = 2 + 2 * spatial;
  SmallVector<AffineExpr> window, out;
  for (int64_t d = 0; d < 2 + spatial; ++d)
    out.push_back(getAffineDimExpr(d, context));
  for (int64_t s = 0; s < spatial; ++s)
    window.push_back(getAffineDimExpr(2 + spatial + s, context));
  SmallVector<AffineMap> maps = {AffineMap::get(loops, 0, window, context)};
  maps.append(outputs, AffineMap::get(loops, 0, out, context));
  return maps;
}

SmallVector<utils::IteratorType> windowIterators(int64_t spatial) {
  SmallVector<utils::IteratorType> iterators(2 + spatial, utils::IteratorType::parallel);
  iterators.append(spatial, utils::IteratorType::reduction);
  return iterators;
}

/// Inside a pooling generic over (N, C, O..., K...): the input coordinates
/// the window element reads (out * stride - padding + k * dilation per
/// spatial dim) and whether they lie inside the input.
std::pair<SmallVector<Value>, Value> windowElement(OpBuilder &b, Location l, Value input,
                                                   ArrayRef<int64_t> stride,
                                                   ArrayRef<int64_t> padding,
                                                   ArrayRef<int64_t> dilation) {
  int64_t spatial = static_cast<int64_t>(stride.size());
  SmallVector<Value> coords = {linalg::IndexOp::create(b, l, 0),
                               linalg::IndexOp::create(b, l, 1)};
  Value inside;
  for (int64_t s = 0; s < spatial; ++s) {
    Value out = linalg::IndexOp::create(b, l, 2 + s);
    Value k = linalg::IndexOp::create(b, l, 2 + spatial + s);
    Value at = arith::AddIOp::create(
        b, l,
        arith::SubIOp::create(
            b, l, arith::MulIOp::create(b, l, out, arith::ConstantIndexOp::create(b, l, stride[s])),
            arith::ConstantIndexOp::create(b, l, padding[s])),
        arith::MulIOp::create(b, l, k, arith::ConstantIndexOp::create(b, l, dilation[s])));
    Value both = inBounds(b, l, at, tensor::DimOp::create(b, l, input, 2 + s));
    inside = inside ? arith::AndIOp::create(b, l, inside, both).getResult() : both;
    coords.push_back(at);
  }
  return {coords, inside};
}

/// The row-major position of spatial `coords` in the input's plane of
/// spatial dims (D x H x W, H x W or L), as an i64.
Value planeIndex(OpBuilder &b, Location l, Value input, ArrayRef<Value> coords) {
  Value flat = coords[0];
  for (size_t s = 1; s < coords.size(); ++s)
    flat = arith::AddIOp::create(
        b, l,
        arith::MulIOp::create(b, l, flat,
                              tensor::DimOp::create(b, l, input, static_cast<int64_t>(2 + s))),
        coords[s]);
  return arith::IndexCastOp::create(b, l, b.getI64Type(), flat);
}

std::string maxPoolProblem(Operation *op) {
  int64_t spatial = spatialDims(op->getOperand(0));
  if (!spatial)
    return "needs an input of 1 to 3 spatial dims (N, C, ...)";
  if (!isa<FloatType, IntegerType>(elementOf(op->getOperand(0))))
    return "needs a floating-point or integer input";
  std::optional<PoolParameters> p = parametersOf(op);
  if (!p)
    return "needs constant kernel size, stride, padding, dilation and ceil_mode";
  for (const SmallVector<int64_t> *list : {&p->kernel, &p->stride, &p->padding, &p->dilation})
    if (static_cast<int64_t>(list->size()) != spatial)
      return "needs one kernel size, stride, padding and dilation per spatial dim";
  for (int64_t d = 0; d < spatial; ++d)
    if (p->kernel[d] < 1 || p->stride[d] < 1 || p->dilation[d] < 1 || p->padding[d] < 0)
      return "needs positive kernel sizes, strides and dilations and non-negative padding";
  return "";
}

/// prims.max_pool whose indices nothing reads (max_pool2d): the input
/// padded with the smallest value (on each side by the padding, and on the
/// far side by what a last ceil-mode window reaches past it), then one
/// generic over (N, C, K..., O...) that takes the maximum into each output:
/// the output loops innermost, reading the padded input at o * stride + k *
/// dilation without a check (a strided row: vectorizable). NaN wins, as in
/// PyTorch (arith.maximumf).
Value maxPoolValues(PatternRewriter &rewriter, Location loc, Value input,
                    RankedTensorType valuesType, ArrayRef<Value> sizes, const PoolParameters &p,
                    TypedAttr lowest) {
  auto inputType = cast<RankedTensorType>(input.getType());
  int64_t spatial = inputType.getRank() - 2;
  auto index = [&](int64_t v) { return arith::ConstantIndexOp::create(rewriter, loc, v); };
  // The output's sizes (those of `sizes` where dynamic) as values.
  SmallVector<Value> outSizes;
  for (int64_t d = 0, next = 0; d < inputType.getRank(); ++d)
    outSizes.push_back(valuesType.isDynamicDim(d) ? sizes[next++]
                                                  : index(valuesType.getDimSize(d)).getResult());
  SmallVector<OpFoldResult> low(2, rewriter.getIndexAttr(0)), high(2, rewriter.getIndexAttr(0));
  for (int64_t s = 0; s < spatial; ++s) {
    low.push_back(rewriter.getIndexAttr(p.padding[s]));
    // The last window's end, (O - 1) s + (K - 1) d + 1, past the input and
    // its left padding: at least 0 (and past the right padding only in
    // ceil mode, by less than a stride).
    Value extent = tensor::DimOp::create(rewriter, loc, input, 2 + s);
    Value last = arith::MulIOp::create(
        rewriter, loc, arith::SubIOp::create(rewriter, loc, outSizes[2 + s], index(1)),
        index(p.stride[s]));
    Value end = arith::AddIOp::create(rewriter, loc, last,
                                      index((p.kernel[s] - 1) * p.dilation[s] + 1 - p.padding[s]));
    Value beyond = arith::SubIOp::create(rewriter, loc, end, extent);
    high.push_back(arith::MaxSIOp::create(rewriter, loc, beyond, index(0)).getResult());
  }
  Value fillValue = arith::ConstantOp::create(rewriter, loc, lowest);
  Value padded = tensor::PadOp::create(rewriter, loc, Type(), input, low, high, fillValue);

  Value empty = tensor::EmptyOp::create(rewriter, loc, valuesType.getShape(),
                                        valuesType.getElementType(), sizes);
  Value init = linalg::FillOp::create(rewriter, loc, fillValue, empty).getResult(0);
  Value window = tensor::EmptyOp::create(rewriter, loc, p.kernel, inputType.getElementType());
  // Loops (N, C, K..., O...): the window's, then the output's.
  MLIRContext *context = rewriter.getContext();
  int64_t loops = 2 + 2 * spatial;
  auto dim = [&](int64_t d) { return getAffineDimExpr(d, context); };
  SmallVector<AffineExpr> read = {dim(0), dim(1)}, windowDims, out = {dim(0), dim(1)};
  for (int64_t s = 0; s < spatial; ++s) {
    read.push_back(dim(2 + spatial + s) * p.stride[s] + dim(2 + s) * p.dilation[s]);
    windowDims.push_back(dim(2 + s));
    out.push_back(dim(2 + spatial + s));
  }
  SmallVector<AffineMap> maps = {AffineMap::get(loops, 0, read, context),
                                 AffineMap::get(loops, 0, windowDims, context),
                                 AffineMap::get(loops, 0, out, context)};
  SmallVector<utils::IteratorType> iterators(2, utils::IteratorType::parallel);
  iterators.append(spatial, utils::IteratorType::reduction);
  iterators.append(spatial, utils::IteratorType::parallel);
  bool floating = isa<FloatType>(inputType.getElementType());
  return linalg::GenericOp::create(
             rewriter, loc, TypeRange{valuesType}, ValueRange{padded, window}, ValueRange{init},
             maps, iterators,
             [&](OpBuilder &b, Location l, ValueRange args) {
               Value larger = floating
                                  ? arith::MaximumFOp::create(b, l, args[2], args[0]).getResult()
                                  : arith::MaxSIOp::create(b, l, args[2], args[0]).getResult();
               linalg::YieldOp::create(b, l, larger);
             })
      .getResult(0);
}

LogicalResult lowerMaxPool(Operation *op, PatternRewriter &rewriter) {
  Location loc = op->getLoc();
  Value input = op->getOperand(0);
  auto inputType = cast<RankedTensorType>(input.getType());
  auto valuesType = cast<RankedTensorType>(op->getResult(0).getType());
  auto indicesType = cast<RankedTensorType>(op->getResult(1).getType());
  PoolParameters p = *parametersOf(op);
  Type element = inputType.getElementType();
  int64_t spatial = inputType.getRank() - 2;

  // Output sizes as PyTorch's (at least 0: a call with none raises after
  // it, the op's data check).
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < inputType.getRank(); ++d) {
    if (!valuesType.isDynamicDim(d))
      continue;
    if (d < 2) {
      sizes.push_back(tensor::DimOp::create(rewriter, loc, input, d));
      continue;
    }
    int64_t s = d - 2;
    sizes.push_back(pooledSize(rewriter, loc, tensor::DimOp::create(rewriter, loc, input, d),
                               p.kernel[s], p.stride[s], p.padding[s], p.dilation[s],
                               p.ceilMode));
  }
  auto fill = [&](RankedTensorType type, TypedAttr value) {
    Value empty = tensor::EmptyOp::create(rewriter, loc, type.getShape(), type.getElementType(),
                                          sizes);
    Value scalar = arith::ConstantOp::create(rewriter, loc, value);
    return linalg::FillOp::create(rewriter, loc, scalar, empty).getResult(0);
  };
  // The smallest value (-inf, or an integer type's minimum): padding, and
  // where a window starts.
  bool floating = isa<FloatType>(element);
  TypedAttr lowest =
      floating ? TypedAttr(rewriter.getFloatAttr(element, -std::numeric_limits<double>::infinity()))
               : TypedAttr(rewriter.getIntegerAttr(
                     element, APInt::getSignedMinValue(element.getIntOrFloatBitWidth())));
  if (op->getResult(1).use_empty()) {
    Value values = maxPoolValues(rewriter, loc, input, valuesType, sizes, p, lowest);
    Value unread = tensor::EmptyOp::create(rewriter, loc, indicesType.getShape(),
                                           indicesType.getElementType(), sizes);
    rewriter.replaceOp(op, ValueRange{values, unread});
    return success();
  }
  Value values = fill(valuesType, lowest);
  // -1: not set yet (the body sets PyTorch's start of the window).
  Value indices = fill(indicesType, rewriter.getI64IntegerAttr(-1));
  Value window = tensor::EmptyOp::create(rewriter, loc, p.kernel, element);

  auto generic = linalg::GenericOp::create(
      rewriter, loc, TypeRange{valuesType, indicesType}, ValueRange{window},
      ValueRange{values, indices}, windowMaps(rewriter.getContext(), spatial, 2),
      windowIterators(spatial), [&](OpBuilder &b, Location l, ValueRange args) {
        auto [coords, inside] = windowElement(b, l, input, p.stride, p.padding, p.dilation);
        Value x = extractInside(b, l, input, coords, inside, lowest);
        Value acc = args[1];
        // Strictly larger, or (floats) the first NaN.
        Value better;
        if (floating) {
          Value larger = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT, x, acc);
          Value xNan = arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNO, x, x);
          Value accNumber = arith::CmpFOp::create(b, l, arith::CmpFPredicate::ORD, acc, acc);
          better = arith::OrIOp::create(b, l, larger, arith::AndIOp::create(b, l, xNan, accNumber));
        } else {
          better = arith::CmpIOp::create(b, l, arith::CmpIPredicate::sgt, x, acc);
        }
        // The index in the input's plane of spatial dims.
        Value flat64 = planeIndex(b, l, input, ArrayRef<Value>(coords).drop_front(2));
        // Until set, the index is PyTorch's start of the window: its first
        // element at or past 0 in each dim (the first element inside, if
        // any).
        Value unset = arith::CmpIOp::create(
            b, l, arith::CmpIPredicate::eq, args[2],
            arith::ConstantOp::create(b, l, b.getI64IntegerAttr(-1)));
        SmallVector<Value> start;
        for (int64_t s = 0; s < spatial; ++s) {
          Value out = linalg::IndexOp::create(b, l, 2 + s);
          Value first = arith::SubIOp::create(
              b, l,
              arith::MulIOp::create(b, l, out, arith::ConstantIndexOp::create(b, l, p.stride[s])),
              arith::ConstantIndexOp::create(b, l, p.padding[s]));
          Value zero = arith::ConstantIndexOp::create(b, l, 0);
          Value step = arith::ConstantIndexOp::create(b, l, p.dilation[s]);
          Value behind = arith::SubIOp::create(b, l, zero, first);
          Value skipped = arith::MulIOp::create(
              b, l, arith::CeilDivSIOp::create(b, l, behind, step), step);
          Value negative = arith::CmpIOp::create(b, l, arith::CmpIPredicate::slt, first, zero);
          start.push_back(arith::SelectOp::create(
              b, l, negative, arith::AddIOp::create(b, l, first, skipped), first));
        }
        Value initial = planeIndex(b, l, input, start);
        Value index = arith::SelectOp::create(b, l, unset, initial, args[2]);
        Value take = arith::AndIOp::create(b, l, inside, better);
        linalg::YieldOp::create(b, l,
                                ValueRange{arith::SelectOp::create(b, l, take, x, acc),
                                           arith::SelectOp::create(b, l, take, flat64, index)});
      });
  rewriter.replaceOp(op, generic.getResults());
  return success();
}


//===----------------------------------------------------------------------===//
// avg_pool, adaptive_avg_pool
//===----------------------------------------------------------------------===//

/// The three lists of an average pool (kernel_size, stride, padding), each
/// of one entry per spatial dim, and its flags.
struct AvgPoolParameters {
  SmallVector<int64_t> kernel, stride, padding;
  bool ceilMode = false, countIncludePad = true;
  std::optional<int64_t> divisor;
};

/// The parameters of prims.avg_pool (its operands after the input) or of
/// prims.avg_pool_backward (after the gradient and the input).
std::optional<AvgPoolParameters> avgParametersOf(Operation *op) {
  unsigned first = op->getName().getStringRef() == "prims.avg_pool_backward" ? 2 : 1;
  auto kernel = constantIntList(op->getOperand(first));
  auto stride = constantIntList(op->getOperand(first + 1));
  auto padding = constantIntList(op->getOperand(first + 2));
  auto ceilMode = constantInt(op->getOperand(first + 3));
  auto countIncludePad = constantInt(op->getOperand(first + 4));
  if (!kernel || !stride || !padding || !ceilMode || !countIncludePad)
    return std::nullopt;
  AvgPoolParameters p{*kernel, *stride, *padding, *ceilMode != 0, *countIncludePad != 0, {}};
  if (!isNone(op->getOperand(first + 5))) {
    p.divisor = constantInt(op->getOperand(first + 5));
    if (!p.divisor)
      return std::nullopt;
  }
  return p;
}

std::string avgPoolProblem(Operation *op) {
  bool backward = op->getName().getStringRef() == "prims.avg_pool_backward";
  Value input = op->getOperand(backward ? 1 : 0);
  int64_t spatial = spatialDims(input);
  if (!spatial)
    return "needs an input of 1 to 3 spatial dims (N, C, ...)";
  if (backward && (spatialDims(op->getOperand(0)) != spatial ||
                   elementOf(op->getOperand(0)) != elementOf(input)))
    return "needs a gradient of the input's rank and element type";
  Type element = elementOf(input);
  if (!isa<FloatType, IntegerType>(element) || element.isInteger(1))
    return "needs a floating-point or integer input";
  std::optional<AvgPoolParameters> p = avgParametersOf(op);
  if (!p)
    return "needs constant kernel size, stride, padding, flags and divisor";
  for (const SmallVector<int64_t> *list : {&p->kernel, &p->stride, &p->padding})
    if (static_cast<int64_t>(list->size()) != spatial)
      return "needs one kernel size, stride and padding per spatial dim";
  for (int64_t d = 0; d < spatial; ++d)
    if (p->kernel[d] < 1 || p->stride[d] < 1 || p->padding[d] < 0 ||
        2 * p->padding[d] > p->kernel[d])
      return "needs positive kernel sizes and strides, and padding of at most half the kernel";
  if (p->divisor && *p->divisor == 0)
    return "needs a nonzero divisor";
  return "";
}

/// A zero-filled tensor of `type` with the dynamic sizes of `sizes` (one
/// per dim).
Value zeros(OpBuilder &b, Location loc, RankedTensorType type, ArrayRef<Value> sizes) {
  SmallVector<Value> dynamic;
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      dynamic.push_back(sizes[d]);
  Value empty = tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType(), dynamic);
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(type.getElementType()));
  return linalg::FillOp::create(b, loc, zero, empty).getResult(0);
}

/// `sum / count` in the element type (integers truncate, as PyTorch's
/// integer pooling does). A count of 0 must not reach it.
Value divideBy(OpBuilder &b, Location loc, Value sum, Value count) {
  Type element = sum.getType();
  Value count64 = arith::IndexCastOp::create(b, loc, b.getI64Type(), count);
  if (isa<FloatType>(element)) {
    Value divisor = arith::SIToFPOp::create(b, loc, element, count64);
    return arith::DivFOp::create(b, loc, sum, divisor);
  }
  Value divisor = convertScalar(b, loc, count64, element);
  return arith::DivSIOp::create(b, loc, sum, divisor);
}

Value addElements(OpBuilder &b, Location l, Value a, Value x) {
  return isa<FloatType>(a.getType()) ? arith::AddFOp::create(b, l, a, x).getResult()
                                     : arith::AddIOp::create(b, l, a, x).getResult();
}

/// PyTorch's divisor of the average pooling window at output coordinates
/// `out` (one index per spatial dim): the window clipped to the padded
/// input, or to the input without count_include_pad, or divisor_override.
/// At least 1.
Value windowCount(OpBuilder &b, Location l, Value input, const AvgPoolParameters &p,
                  ArrayRef<Value> out) {
  auto index = [&](int64_t v) { return arith::ConstantIndexOp::create(b, l, v); };
  if (p.divisor)
    return index(*p.divisor); // nonzero (avgPoolProblem)
  Value padded = index(1), inside = index(1);
  for (size_t s = 0; s < out.size(); ++s) {
    Value extent = tensor::DimOp::create(b, l, input, 2 + s);
    Value start = arith::SubIOp::create(
        b, l, arith::MulIOp::create(b, l, out[s], index(p.stride[s])), index(p.padding[s]));
    Value end = arith::MinSIOp::create(b, l, arith::AddIOp::create(b, l, start, index(p.kernel[s])),
                                       arith::AddIOp::create(b, l, extent, index(p.padding[s])));
    padded = arith::MulIOp::create(b, l, padded, arith::SubIOp::create(b, l, end, start));
    Value from = arith::MaxSIOp::create(b, l, start, index(0));
    Value to = arith::MinSIOp::create(b, l, end, extent);
    inside = arith::MulIOp::create(b, l, inside, arith::SubIOp::create(b, l, to, from));
  }
  // A window inside the input's padding only (never with PyTorch's sizes)
  // divides by one.
  return arith::MaxSIOp::create(b, l, p.countIncludePad ? padded : inside, index(1));
}

LogicalResult lowerAvgPool(Operation *op, PatternRewriter &rewriter) {
  Location loc = op->getLoc();
  Value input = op->getOperand(0);
  auto inputType = cast<RankedTensorType>(input.getType());
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  AvgPoolParameters p = *avgParametersOf(op);
  Type element = inputType.getElementType();
  int64_t spatial = inputType.getRank() - 2;
  OpBuilder &b = rewriter;
  SmallVector<Value> sizes = {tensor::DimOp::create(b, loc, input, 0),
                              tensor::DimOp::create(b, loc, input, 1)};
  for (int64_t s = 0; s < spatial; ++s)
    sizes.push_back(pooledSize(b, loc, tensor::DimOp::create(b, loc, input, 2 + s), p.kernel[s],
                               p.stride[s], p.padding[s], 1, p.ceilMode));
  // The sum of each window (padding adds 0).
  Value window = tensor::EmptyOp::create(b, loc, p.kernel, element);
  SmallVector<int64_t> ones(spatial, 1);
  auto sums = linalg::GenericOp::create(
      b, loc, TypeRange{resultType}, ValueRange{window},
      ValueRange{zeros(b, loc, resultType, sizes)}, windowMaps(b.getContext(), spatial, 1),
      windowIterators(spatial), [&](OpBuilder &nb, Location l, ValueRange args) {
        auto [coords, inside] = windowElement(nb, l, input, p.stride, p.padding, ones);
        Value x = extractInside(nb, l, input, coords, inside, nb.getZeroAttr(element));
        linalg::YieldOp::create(nb, l, addElements(nb, l, args[1], x));
      });
  // Each window's divisor, as PyTorch's avg_pool computes it.
  int64_t rank = resultType.getRank();
  SmallVector<Value> dynamic;
  for (int64_t d = 0; d < rank; ++d)
    if (resultType.isDynamicDim(d))
      dynamic.push_back(sizes[d]);
  Value init = tensor::EmptyOp::create(b, loc, resultType.getShape(), element, dynamic);
  auto identity = b.getMultiDimIdentityMap(rank);
  auto averages = linalg::GenericOp::create(
      b, loc, TypeRange{resultType}, ValueRange{sums.getResult(0)}, ValueRange{init},
      SmallVector<AffineMap>{identity, identity},
      SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location l, ValueRange args) {
        SmallVector<Value> out;
        for (int64_t s = 0; s < spatial; ++s)
          out.push_back(linalg::IndexOp::create(nb, l, 2 + s));
        linalg::YieldOp::create(nb, l, divideBy(nb, l, args[0], windowCount(nb, l, input, p, out)));
      });
  rewriter.replaceOp(op, averages.getResults());
  return success();
}

/// Cell i of n over `extent` covers [floor(i * extent / n), ceil((i + 1) *
/// extent / n)), as in PyTorch's adaptive pooling; swapping extent and n
/// gives the cells that cover element i.
std::pair<Value, Value> cellBounds(OpBuilder &b, Location l, Value i, Value extent, Value n) {
  Value next = arith::AddIOp::create(b, l, i, arith::ConstantIndexOp::create(b, l, 1));
  return {arith::FloorDivSIOp::create(b, l, arith::MulIOp::create(b, l, i, extent), n),
          arith::CeilDivSIOp::create(b, l, arith::MulIOp::create(b, l, next, extent), n)};
}

/// `combine(acc, at)` over the box [from, to) of spatial coordinates after
/// the leading `at` ones: one scf.for per spatial dim, innermost first
/// combined.
Value foldBox(OpBuilder &b, Location l, ArrayRef<Value> from, ArrayRef<Value> to,
              SmallVector<Value> &at, Value init,
              llvm::function_ref<Value(OpBuilder &, Location, Value, ArrayRef<Value>)> combine,
              size_t s = 0) {
  auto loop = scf::ForOp::create(
      b, l, from[s], to[s], arith::ConstantIndexOp::create(b, l, 1), ValueRange{init},
      [&](OpBuilder &lb, Location ll, Value iv, ValueRange carried) {
        at.push_back(iv);
        Value next = s + 1 == from.size() ? combine(lb, ll, carried[0], at)
                                          : foldBox(lb, ll, from, to, at, carried[0], combine, s + 1);
        at.pop_back();
        scf::YieldOp::create(lb, ll, next);
      });
  return loop.getResult(0);
}

/// A tensor of `grad`'s type whose element at (N, C, O...) is
/// `grad / count(O...)`: one elementwise generic over the gradient.
Value scaleByCount(OpBuilder &b, Location loc, Value grad,
                   llvm::function_ref<Value(OpBuilder &, Location, ArrayRef<Value>)> count) {
  auto type = cast<RankedTensorType>(grad.getType());
  int64_t rank = type.getRank();
  SmallVector<Value> dynamic;
  for (int64_t d = 0; d < rank; ++d)
    if (type.isDynamicDim(d))
      dynamic.push_back(tensor::DimOp::create(b, loc, grad, d));
  Value init = tensor::EmptyOp::create(b, loc, type.getShape(), type.getElementType(), dynamic);
  auto identity = b.getMultiDimIdentityMap(rank);
  auto scaled = linalg::GenericOp::create(
      b, loc, TypeRange{type}, ValueRange{grad}, ValueRange{init},
      SmallVector<AffineMap>{identity, identity},
      SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location l, ValueRange args) {
        SmallVector<Value> out;
        for (int64_t s = 2; s < rank; ++s)
          out.push_back(linalg::IndexOp::create(nb, l, s));
        linalg::YieldOp::create(nb, l, divideBy(nb, l, args[0], count(nb, l, out)));
      });
  return scaled.getResult(0);
}

/// A generic over `input`'s shape whose element at (N, C, I...) sums
/// `share` at (N, C, O...) over the box of O the bounds give per spatial
/// dim (foldBox: loops with computed bounds, no branch per element).
Value sumOverBoxes(
    OpBuilder &b, Location loc, Value input, Value share, RankedTensorType resultType,
    llvm::function_ref<std::pair<Value, Value>(OpBuilder &, Location, int64_t, Value)> bounds) {
  int64_t rank = resultType.getRank();
  SmallVector<Value> dynamic;
  for (int64_t d = 0; d < rank; ++d)
    if (resultType.isDynamicDim(d))
      dynamic.push_back(tensor::DimOp::create(b, loc, input, d));
  return generateTensor(
      b, loc, resultType, dynamic, [&](OpBuilder &nb, Location l, ArrayRef<Value> index) {
        SmallVector<Value> from, to;
        for (int64_t s = 2; s < rank; ++s) {
          auto [start, end] = bounds(nb, l, s - 2, index[s]);
          from.push_back(start);
          to.push_back(end);
        }
        SmallVector<Value> at = {index[0], index[1]};
        Value zero = arith::ConstantOp::create(nb, l, nb.getZeroAttr(resultType.getElementType()));
        return foldBox(nb, l, from, to, at, zero,
                       [&](OpBuilder &fb, Location fl, Value acc, ArrayRef<Value> where) {
                         return addElements(fb, fl, acc,
                                            tensor::ExtractOp::create(fb, fl, share, where));
                       });
      });
}

/// The gradient of prims.avg_pool: each output's gradient divided by its
/// window's divisor, then each input element i sums those of the windows
/// o that cover it: ceil((i + padding - kernel + 1) / stride) <= o <=
/// floor((i + padding) / stride), within the output.
LogicalResult lowerAvgPoolBackward(Operation *op, PatternRewriter &rewriter) {
  Location loc = op->getLoc();
  Value grad = op->getOperand(0), input = op->getOperand(1);
  AvgPoolParameters p = *avgParametersOf(op);
  Value share = scaleByCount(rewriter, loc, grad, [&](OpBuilder &b, Location l, ArrayRef<Value> o) {
    return windowCount(b, l, input, p, o);
  });
  Value sums = sumOverBoxes(
      rewriter, loc, input, share, cast<RankedTensorType>(op->getResult(0).getType()),
      [&](OpBuilder &b, Location l, int64_t s, Value i) -> std::pair<Value, Value> {
        auto index = [&](int64_t v) { return arith::ConstantIndexOp::create(b, l, v); };
        Value reach = arith::AddIOp::create(b, l, i, index(p.padding[s]));
        Value first = arith::CeilDivSIOp::create(
            b, l, arith::SubIOp::create(b, l, reach, index(p.kernel[s] - 1)), index(p.stride[s]));
        Value last = arith::FloorDivSIOp::create(b, l, reach, index(p.stride[s]));
        Value cells = tensor::DimOp::create(b, l, share, 2 + s);
        Value from = arith::MaxSIOp::create(b, l, first, index(0));
        Value to = arith::MinSIOp::create(b, l, arith::AddIOp::create(b, l, last, index(1)), cells);
        // An empty range (to < from) runs no iteration.
        return {from, to};
      });
  rewriter.replaceOp(op, sums);
  return success();
}

std::string adaptiveBackwardProblem(Operation *op) {
  int64_t spatial = spatialDims(op->getOperand(1));
  if (!spatial)
    return "needs an input of 1 to 3 spatial dims (N, C, ...)";
  if (spatialDims(op->getOperand(0)) != spatial ||
      elementOf(op->getOperand(0)) != elementOf(op->getOperand(1)))
    return "needs a gradient of the input's rank and element type";
  Type element = elementOf(op->getOperand(1));
  if (!isa<FloatType, IntegerType>(element) || element.isInteger(1))
    return "needs a floating-point or integer input";
  return "";
}

std::string adaptiveProblem(Operation *op) {
  int64_t spatial = spatialDims(op->getOperand(0));
  if (!spatial)
    return "needs an input of 1 to 3 spatial dims (N, C, ...)";
  // (Bool too: the decomposition passes one only for an empty output.)
  if (!isa<FloatType, IntegerType>(elementOf(op->getOperand(0))))
    return "needs a floating-point or integer input";
  auto size = constantIntList(op->getOperand(1));
  if (!size || static_cast<int64_t>(size->size()) != spatial ||
      llvm::any_of(*size, [](int64_t v) { return v < 0; }))
    return "needs a constant output size of one non-negative entry per spatial dim";
  return "";
}

/// Each output cell sums its box of the input (foldBox inside a generic
/// over the output) and divides by the box's size.
LogicalResult lowerAdaptiveAvgPool(Operation *op, PatternRewriter &rewriter) {
  Location loc = op->getLoc();
  Value input = op->getOperand(0);
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  SmallVector<int64_t> outputSize = *constantIntList(op->getOperand(1));
  Type element = resultType.getElementType();
  int64_t rank = resultType.getRank(), spatial = rank - 2;
  OpBuilder &b = rewriter;
  SmallVector<Value> dynamic;
  for (int64_t d = 0; d < 2; ++d)
    if (resultType.isDynamicDim(d))
      dynamic.push_back(tensor::DimOp::create(b, loc, input, d));
  Value averages = generateTensor(
      b, loc, resultType, dynamic, [&](OpBuilder &nb, Location l, ArrayRef<Value> index) {
        SmallVector<Value> from, to;
        Value count = arith::ConstantIndexOp::create(nb, l, 1);
        for (int64_t s = 0; s < spatial; ++s) {
          auto [start, end] =
              cellBounds(nb, l, index[2 + s],
                         tensor::DimOp::create(nb, l, input, 2 + s),
                         arith::ConstantIndexOp::create(nb, l, outputSize[s]));
          from.push_back(start);
          to.push_back(end);
          count = arith::MulIOp::create(nb, l, count, arith::SubIOp::create(nb, l, end, start));
        }
        SmallVector<Value> at = {index[0], index[1]};
        Value zero = arith::ConstantOp::create(nb, l, nb.getZeroAttr(element));
        Value sum = foldBox(nb, l, from, to, at, zero,
                            [&](OpBuilder &fb, Location fl, Value acc, ArrayRef<Value> where) {
                              return addElements(fb, fl, acc,
                                                 tensor::ExtractOp::create(fb, fl, input, where));
                            });
        // At least one element per cell of a non-empty input.
        count = arith::MaxSIOp::create(nb, l, count, arith::ConstantIndexOp::create(nb, l, 1));
        return divideBy(nb, l, sum, count);
      });
  rewriter.replaceOp(op, averages);
  return success();
}

/// The gradient of prims.adaptive_avg_pool: each cell's gradient divided
/// by the cell's size, then each input element sums those of the cells that
/// cover it.
LogicalResult lowerAdaptiveAvgPoolBackward(Operation *op, PatternRewriter &rewriter) {
  Location loc = op->getLoc();
  Value grad = op->getOperand(0), input = op->getOperand(1);
  auto extent = [&](OpBuilder &b, Location l, int64_t s) -> Value {
    return tensor::DimOp::create(b, l, input, 2 + s);
  };
  auto cells = [&](OpBuilder &b, Location l, int64_t s) -> Value {
    return tensor::DimOp::create(b, l, grad, 2 + s);
  };
  Value share = scaleByCount(rewriter, loc, grad, [&](OpBuilder &b, Location l, ArrayRef<Value> o) {
    Value count = arith::ConstantIndexOp::create(b, l, 1);
    for (size_t s = 0; s < o.size(); ++s) {
      auto [start, end] = cellBounds(b, l, o[s], extent(b, l, s), cells(b, l, s));
      count = arith::MulIOp::create(b, l, count, arith::SubIOp::create(b, l, end, start));
    }
    return count;
  });
  Value sums = sumOverBoxes(rewriter, loc, input, share,
                            cast<RankedTensorType>(op->getResult(0).getType()),
                            [&](OpBuilder &b, Location l, int64_t s, Value i) {
                              return cellBounds(b, l, i, cells(b, l, s), extent(b, l, s));
                            });
  rewriter.replaceOp(op, sums);
  return success();
}

} // namespace

const llvm::StringMap<PrimLowering> &opal::ir::detail::poolingLowerings() {
  static const llvm::StringMap<PrimLowering> table = {
      {"prims.max_pool", {maxPoolProblem, lowerMaxPool}},
      {"prims.avg_pool", {avgPoolProblem, lowerAvgPool}},
      {"prims.adaptive_avg_pool", {adaptiveProblem, lowerAdaptiveAvgPool}},
      {"prims.avg_pool_backward", {avgPoolProblem, lowerAvgPoolBackward}},
      {"prims.adaptive_avg_pool_backward", {adaptiveBackwardProblem, lowerAdaptiveAvgPoolBackward}},
  };
  return table;
}
