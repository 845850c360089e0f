//===- ConvolutionToLinalg.cpp - Convolutions to linalg's conv ops --------===//
//
// prims.conv (NCHW input, FCHW weight, 2 spatial dims, groups 1): the input
// padded with zeros (a generic that reads it only inside), then linalg.conv_2d_nchw_fchw with the
// strides and dilations as attributes over a zero-filled output of
// (H + 2p - d (k - 1) - 1) / s + 1 per spatial dim.
//
//===----------------------------------------------------------------------===//

#include "opal/Transforms/Passes.h"

#include "PrimUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace opal::ir::detail;

namespace {

/// The conv's int-list operands: stride, padding, dilation (one per spatial
/// dim), and groups.
struct ConvParameters {
  SmallVector<int64_t> stride, padding, dilation;
  int64_t groups = 1;
};

std::optional<ConvParameters> parametersOf(Operation *op) {
  auto stride = constantIntList(op->getOperand(2));
  auto padding = constantIntList(op->getOperand(3));
  auto dilation = constantIntList(op->getOperand(4));
  auto groups = constantInt(op->getOperand(5));
  if (!stride || !padding || !dilation || !groups)
    return std::nullopt;
  return ConvParameters{*stride, *padding, *dilation, *groups};
}

std::string convProblem(Operation *op) {
  auto input = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  auto weight = dyn_cast<RankedTensorType>(op->getOperand(1).getType());
  auto result = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!input || !weight || !result)
    return "needs ranked tensors";
  if (input.getRank() != 4 || weight.getRank() != 4)
    return "needs a 4-d (NCHW) input and a 4-d (FCHW) weight";
  if (input.getElementType() != weight.getElementType() ||
      !isa<FloatType, IntegerType>(input.getElementType()))
    return "needs an input and a weight of one numeric element type";
  std::optional<ConvParameters> parameters = parametersOf(op);
  if (!parameters)
    return "needs constant stride, padding, dilation and groups";
  for (const SmallVector<int64_t> *list :
       {&parameters->stride, &parameters->padding, &parameters->dilation})
    if (list->size() != 2)
      return "needs two strides, paddings and dilations";
  if (llvm::any_of(parameters->stride, [](int64_t s) { return s < 1; }) ||
      llvm::any_of(parameters->dilation, [](int64_t d) { return d < 1; }) ||
      llvm::any_of(parameters->padding, [](int64_t p) { return p < 0; }))
    return "needs positive strides and dilations and non-negative padding";
  if (parameters->groups != 1)
    return "supports groups == 1 only";
  return "";
}

/// `input` (NCHW) with `padding[d]` zeros before and after spatial dim d: a
/// linalg.generic over the padded shape that reads the input, with
/// tensor.extract, only inside it. (tensor.pad would bufferize to a strided
/// memref.copy, which needs a runtime library the JIT's objects do not link.)
Value paddedWithZeros(OpBuilder &b, Location loc, Value input, ArrayRef<int64_t> padding) {
  auto type = cast<RankedTensorType>(input.getType());
  Type element = type.getElementType();
  SmallVector<int64_t> shape(type.getShape());
  SmallVector<Value> sizes;
  for (int64_t d = 0; d < 4; ++d) {
    int64_t extra = d < 2 ? 0 : 2 * padding[d - 2];
    if (!ShapedType::isDynamic(shape[d])) {
      shape[d] += extra;
      continue;
    }
    Value size = tensor::DimOp::create(b, loc, input, d);
    sizes.push_back(extra ? arith::AddIOp::create(b, loc, size,
                                                  arith::ConstantIndexOp::create(b, loc, extra))
                                .getResult()
                          : size);
  }
  auto paddedType = RankedTensorType::get(shape, element);
  Value init = tensor::EmptyOp::create(b, loc, shape, element, sizes);
  SmallVector<utils::IteratorType> iterators(4, utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, TypeRange{paddedType}, ValueRange{}, ValueRange{init},
      SmallVector<AffineMap>{b.getMultiDimIdentityMap(4)}, iterators,
      [&](OpBuilder &nested, Location l, ValueRange) {
        SmallVector<Value> coords;
        Value inside;
        for (int64_t d = 0; d < 4; ++d) {
          Value at = linalg::IndexOp::create(nested, l, d);
          if (d < 2) {
            coords.push_back(at);
            continue;
          }
          Value shifted = arith::SubIOp::create(
              nested, l, at, arith::ConstantIndexOp::create(nested, l, padding[d - 2]));
          Value both =
              inBounds(nested, l, shifted, tensor::DimOp::create(nested, l, input, d));
          inside = inside ? arith::AndIOp::create(nested, l, inside, both).getResult() : both;
          coords.push_back(shifted);
        }
        linalg::YieldOp::create(
            nested, l, extractInside(nested, l, input, coords, inside, nested.getZeroAttr(element)));
      });
  return generic.getResult(0);
}

LogicalResult lowerConv(Operation *op, PatternRewriter &rewriter) {
  Location loc = op->getLoc();
  Value input = op->getOperand(0), weight = op->getOperand(1);
  auto inputType = cast<RankedTensorType>(input.getType());
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  ConvParameters parameters = *parametersOf(op);
  Type element = inputType.getElementType();

  // Zero padding on the spatial dims.
  Value padded = input;
  if (llvm::any_of(parameters.padding, [](int64_t p) { return p > 0; }))
    padded = paddedWithZeros(rewriter, loc, input, parameters.padding);

  // The output: N and F from the operands, each spatial size from the
  // padded input's and the kernel's.
  SmallVector<Value> sizes;
  auto indexOf = [&](int64_t value) { return arith::ConstantIndexOp::create(rewriter, loc, value); };
  for (int64_t d = 0; d < 4; ++d) {
    if (!resultType.isDynamicDim(d))
      continue;
    if (d < 2) {
      sizes.push_back(tensor::DimOp::create(rewriter, loc, d == 0 ? input : weight, 0));
      continue;
    }
    int64_t s = d - 2;
    Value extent = tensor::DimOp::create(rewriter, loc, padded, d);
    Value kernel = tensor::DimOp::create(rewriter, loc, weight, d);
    // (extent - dilation * (kernel - 1) - 1) / stride + 1
    Value reach = arith::MulIOp::create(
        rewriter, loc, indexOf(parameters.dilation[s]),
        arith::SubIOp::create(rewriter, loc, kernel, indexOf(1)));
    Value span = arith::SubIOp::create(
        rewriter, loc, arith::SubIOp::create(rewriter, loc, extent, reach), indexOf(1));
    Value steps = arith::FloorDivSIOp::create(rewriter, loc, span, indexOf(parameters.stride[s]));
    // A kernel larger than the padded input gives no output (the call
    // raises after it: aten::convolution's data check).
    Value size = arith::AddIOp::create(rewriter, loc, steps, indexOf(1));
    sizes.push_back(arith::MaxSIOp::create(rewriter, loc, size, indexOf(0)));
  }
  Value empty = tensor::EmptyOp::create(rewriter, loc, resultType.getShape(), element, sizes);
  Value zero = arith::ConstantOp::create(rewriter, loc, rewriter.getZeroAttr(element));
  Value init = linalg::FillOp::create(rewriter, loc, zero, empty).getResult(0);
  auto conv = linalg::Conv2DNchwFchwOp::create(
      rewriter, loc, TypeRange{resultType}, ValueRange{padded, weight}, ValueRange{init},
      rewriter.getI64TensorAttr(parameters.stride), rewriter.getI64TensorAttr(parameters.dilation));
  rewriter.replaceOp(op, conv->getResults());
  return success();
}


} // namespace

const llvm::StringMap<PrimLowering> &opal::ir::detail::convolutionLowerings() {
  static const llvm::StringMap<PrimLowering> table = {
      {"prims.conv", {convProblem, lowerConv}},
  };
  return table;
}
