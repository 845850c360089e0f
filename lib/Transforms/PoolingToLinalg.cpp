//===- PoolingToLinalg.cpp - Pooling prims to linalg ----------------------===//
//
// prims.max_pool (NCHW, 2 spatial dims): one linalg.generic over (N, C, OH,
// OW, KH, KW) that reduces the window into the maximum so far and its index
// into the input's H x W plane (the first maximum wins; NaN is the maximum,
// as in PyTorch). The input is read with tensor.extract only inside it:
// padding counts as -inf. A window-shaped operand gives the loops over the
// window their extent, as linalg's pooling ops do.
//
//===----------------------------------------------------------------------===//

#include "opal/Transforms/Passes.h"

#include "PrimUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

#include <limits>

using namespace mlir;
using namespace opal::ir::detail;

namespace {

struct PoolParameters {
  SmallVector<int64_t> kernel, stride, padding, dilation;
};

std::optional<PoolParameters> parametersOf(Operation *op) {
  auto kernel = constantIntList(op->getOperand(1));
  auto stride = constantIntList(op->getOperand(2));
  auto padding = constantIntList(op->getOperand(3));
  auto dilation = constantIntList(op->getOperand(4));
  if (!kernel || !stride || !padding || !dilation)
    return std::nullopt;
  return PoolParameters{*kernel, *stride, *padding, *dilation};
}

std::string maxPoolProblem(Operation *op) {
  auto input = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  if (!input || input.getRank() != 4)
    return "needs a 4-d (NCHW) input";
  if (!isa<FloatType>(input.getElementType()))
    return "needs a floating-point input";
  std::optional<PoolParameters> p = parametersOf(op);
  if (!p)
    return "needs constant kernel size, stride, padding and dilation";
  for (const SmallVector<int64_t> *list : {&p->kernel, &p->stride, &p->padding, &p->dilation})
    if (list->size() != 2)
      return "needs two of each of kernel size, stride, padding and dilation";
  for (int d = 0; d < 2; ++d)
    if (p->kernel[d] < 1 || p->stride[d] < 1 || p->dilation[d] < 1 || p->padding[d] < 0)
      return "needs positive kernel sizes, strides and dilations and non-negative padding";
  return "";
}

LogicalResult lowerMaxPool(Operation *op, PatternRewriter &rewriter) {
  Location loc = op->getLoc();
  Value input = op->getOperand(0);
  auto inputType = cast<RankedTensorType>(input.getType());
  auto valuesType = cast<RankedTensorType>(op->getResult(0).getType());
  auto indicesType = cast<RankedTensorType>(op->getResult(1).getType());
  PoolParameters p = *parametersOf(op);
  Type element = inputType.getElementType();
  auto index = [&](int64_t v) { return arith::ConstantIndexOp::create(rewriter, loc, v); };

  // Output sizes: (H + 2p - d (k - 1) - 1) / s + 1, at least 0 (a call with
  // none raises after it: the op's data check).
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < 4; ++d) {
    if (!valuesType.isDynamicDim(d))
      continue;
    if (d < 2) {
      sizes.push_back(tensor::DimOp::create(rewriter, loc, input, d));
      continue;
    }
    int64_t s = d - 2;
    Value extent = tensor::DimOp::create(rewriter, loc, input, d);
    Value span = arith::AddIOp::create(
        rewriter, loc, extent,
        index(2 * p.padding[s] - p.dilation[s] * (p.kernel[s] - 1) - 1));
    Value steps = arith::FloorDivSIOp::create(rewriter, loc, span, index(p.stride[s]));
    Value size = arith::AddIOp::create(rewriter, loc, steps, index(1));
    sizes.push_back(arith::MaxSIOp::create(rewriter, loc, size, index(0)));
  }
  auto fill = [&](RankedTensorType type, TypedAttr value) {
    Value empty = tensor::EmptyOp::create(rewriter, loc, type.getShape(), type.getElementType(),
                                          sizes);
    Value scalar = arith::ConstantOp::create(rewriter, loc, value);
    return linalg::FillOp::create(rewriter, loc, scalar, empty).getResult(0);
  };
  Value values = fill(valuesType, rewriter.getFloatAttr(
                                      element, -std::numeric_limits<double>::infinity()));
  // -1: not set yet (the body sets PyTorch's start of the window).
  Value indices = fill(indicesType, rewriter.getI64IntegerAttr(-1));
  Value window = tensor::EmptyOp::create(rewriter, loc, ArrayRef<int64_t>{p.kernel[0], p.kernel[1]},
                                         element);

  MLIRContext *context = rewriter.getContext();
  auto dim = [&](unsigned d) { return getAffineDimExpr(d, context); };
  SmallVector<AffineMap> maps = {
      AffineMap::get(6, 0, {dim(4), dim(5)}, context),
      AffineMap::get(6, 0, {dim(0), dim(1), dim(2), dim(3)}, context),
      AffineMap::get(6, 0, {dim(0), dim(1), dim(2), dim(3)}, context)};
  SmallVector<utils::IteratorType> iterators(4, utils::IteratorType::parallel);
  iterators.append(2, utils::IteratorType::reduction);
  auto generic = linalg::GenericOp::create(
      rewriter, loc, TypeRange{valuesType, indicesType}, ValueRange{window},
      ValueRange{values, indices}, maps, iterators,
      [&](OpBuilder &b, Location l, ValueRange args) {
        SmallVector<Value> coords = {linalg::IndexOp::create(b, l, 0),
                                     linalg::IndexOp::create(b, l, 1)};
        Value inside;
        for (int64_t s = 0; s < 2; ++s) {
          // out * stride - padding + k * dilation
          Value out = linalg::IndexOp::create(b, l, 2 + s);
          Value k = linalg::IndexOp::create(b, l, 4 + s);
          Value at = arith::AddIOp::create(
              b, l,
              arith::SubIOp::create(
                  b, l,
                  arith::MulIOp::create(b, l, out,
                                        arith::ConstantIndexOp::create(b, l, p.stride[s])),
                  arith::ConstantIndexOp::create(b, l, p.padding[s])),
              arith::MulIOp::create(b, l, k, arith::ConstantIndexOp::create(b, l, p.dilation[s])));
          Value both = inBounds(b, l, at, tensor::DimOp::create(b, l, input, 2 + s));
          inside = inside ? arith::AndIOp::create(b, l, inside, both).getResult() : both;
          coords.push_back(at);
        }
        Value x = extractInside(
            b, l, input, coords, inside,
            b.getFloatAttr(element, -std::numeric_limits<double>::infinity()));
        Value acc = args[1];
        // Strictly larger, or the first NaN.
        Value larger = arith::CmpFOp::create(b, l, arith::CmpFPredicate::OGT, x, acc);
        Value xNan = arith::CmpFOp::create(b, l, arith::CmpFPredicate::UNO, x, x);
        Value accNumber = arith::CmpFOp::create(b, l, arith::CmpFPredicate::ORD, acc, acc);
        Value better = arith::OrIOp::create(b, l, larger,
                                            arith::AndIOp::create(b, l, xNan, accNumber));
        // The index in the input's plane: h * W + w.
        Value flat = arith::AddIOp::create(
            b, l, arith::MulIOp::create(b, l, coords[2], tensor::DimOp::create(b, l, input, 3)),
            coords[3]);
        Value flat64 = arith::IndexCastOp::create(b, l, b.getI64Type(), flat);
        // Until set, the index is PyTorch's start of the window: its first
        // row and column at or past 0 (the first element inside, if any).
        Value unset = arith::CmpIOp::create(
            b, l, arith::CmpIPredicate::eq, args[2],
            arith::ConstantOp::create(b, l, b.getI64IntegerAttr(-1)));
        SmallVector<Value> start;
        for (int64_t s = 0; s < 2; ++s) {
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
        Value initial = arith::IndexCastOp::create(
            b, l, b.getI64Type(),
            arith::AddIOp::create(
                b, l,
                arith::MulIOp::create(b, l, start[0], tensor::DimOp::create(b, l, input, 3)),
                start[1]));
        Value index = arith::SelectOp::create(b, l, unset, initial, args[2]);
        Value take = arith::AndIOp::create(b, l, inside, better);
        linalg::YieldOp::create(b, l,
                                ValueRange{arith::SelectOp::create(b, l, take, x, acc),
                                           arith::SelectOp::create(b, l, take, flat64, index)});
      });
  rewriter.replaceOp(op, generic.getResults());
  return success();
}


} // namespace

const llvm::StringMap<PrimLowering> &opal::ir::detail::poolingLowerings() {
  static const llvm::StringMap<PrimLowering> table = {
      {"prims.max_pool", {maxPoolProblem, lowerMaxPool}},
  };
  return table;
}
