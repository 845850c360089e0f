//===- ConvolutionToLinalg.cpp - Convolutions as matrix products ----------===//
//
// prims.conv and prims.conv_transpose (1, 2 or 3 spatial dims, groups) as
// batched matrix products, so that they run on the register-tiled product
// of opal-tile-matmul (and its GPU mapping) like `mm`.
//
// prims.conv, input [N, G*Cg, I...], weight [G*Fg, Cg, K...]:
//   columns [G, Cg*prod(K), N*prod(O)] ("im2col": a generic over
//     [G, Cg, K..., N, O...] that reads the input at o*s + k*d - p, zero
//     outside it; unpadded, every read lies inside it but for the channel,
//     read clamped, and the read is unconditional), weights [G, Fg,
//     Cg*prod(K)] (a copy of the weight),
//   products [G, Fg, N*prod(O)] = batch_matmul(weights, columns),
//   result [N, G*Fg, O...] (a generic that moves N in front).
// O = (I + 2p - d (K - 1) - 1) / s + 1 per spatial dim.
// On the CPU (opal-lower-to-linalg{shifted-convolutions}), a prims.conv is
// instead a sum over the kernel positions of products over shifted rows of
// the padded, channels-last input (shiftedConv; a strided one over the
// padded input's phases, every stride-th pixel from each offset): no
// columns; one of several groups of few channels (depthwise) is a single
// loop nest over the padded input (groupedConv), which opal-tile-depthwise
// runs in register tiles.
//
// prims.conv_transpose, input [N, G*Cg, I...], weight [G*Cg, Fg, K...]:
//   products [G, Fg*prod(K), N*prod(I)] = batch_matmul(weight as
//     [G, Fg*prod(K), Cg], input as [G, Cg, N*prod(I)]),
//   result [N, G*Fg, O...]: a generic over [N, G, Fg, O..., K...] that sums
//     for each output element the products whose input position
//     i = (o + p - k*d) / s is whole and inside ("col2im" as a gather).
// O = (I - 1) s - 2p + d (K - 1) + output_padding + 1 per spatial dim.
//
// prims.col2im, input [N, C*kh*kw, L] of sliding blocks: a zero padded
// image [N, C, H + 2p..., W + 2p...] to which each kernel position (ki, kj)
// adds its blocks, input (c*kh*kw + ki*kw + kj, by*bw + bx) into the pixel
// (by s + ki d, bx s + kj d) (an elementwise add into a strided view), then
// the image's interior.
//
// float16 and bfloat16 operands are multiplied and summed in float32, and
// the result rounded once, as PyTorch's CPU kernels do.
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

using namespace mlir;
using namespace opal::ir::detail;

namespace {

/// The conv's constant operands: stride, padding, dilation and (transposed)
/// output_padding, one per spatial dim, and groups. A CPU kernel for every
/// grouped convolution takes groups at run time (JIT/Specialization.h):
/// then `runtimeGroups` holds the i64 and `groups` is 0.
struct ConvParameters {
  SmallVector<int64_t> stride, padding, dilation, outputPadding;
  int64_t groups = 1;
  bool transposed = false;
  Value runtimeGroups = nullptr;

  /// More than one group (known so, or given at run time: always above 1).
  bool grouped() const { return groups > 1 || runtimeGroups; }
};

bool isTransposed(Operation *op) { return op->getName().getStringRef() == "prims.conv_transpose"; }

std::optional<ConvParameters> parametersOf(Operation *op) {
  bool transposed = isTransposed(op);
  auto stride = constantIntList(op->getOperand(2));
  auto padding = constantIntList(op->getOperand(3));
  auto dilation = constantIntList(op->getOperand(4));
  std::optional<SmallVector<int64_t>> outputPadding = SmallVector<int64_t>();
  if (transposed)
    outputPadding = constantIntList(op->getOperand(5));
  Value groupsOperand = op->getOperand(transposed ? 6 : 5);
  auto groups = constantInt(groupsOperand);
  if (!stride || !padding || !dilation || !outputPadding || (!groups && transposed))
    return std::nullopt;
  return ConvParameters{*stride,      *padding,   *dilation,
                        *outputPadding, groups.value_or(0), transposed,
                        groups ? Value() : groupsOperand};
}

std::string convProblem(Operation *op) {
  auto input = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  auto weight = dyn_cast<RankedTensorType>(op->getOperand(1).getType());
  auto result = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!input || !weight || !result)
    return "needs ranked tensors";
  int64_t rank = input.getRank();
  if (rank < 3 || rank > 5 || weight.getRank() != rank || result.getRank() != rank)
    return "needs an input, a weight and a result of one rank, 3 to 5 (1 to 3 spatial dims)";
  Type element = input.getElementType();
  if (weight.getElementType() != element || result.getElementType() != element ||
      !isa<FloatType, IntegerType>(element))
    return "needs an input, a weight and a result of one numeric element type";
  std::optional<ConvParameters> parameters = parametersOf(op);
  if (!parameters)
    return "needs constant stride, padding, dilation" +
           std::string(isTransposed(op) ? ", output_padding and groups" : "");
  size_t spatial = static_cast<size_t>(rank - 2);
  if (parameters->stride.size() != spatial || parameters->padding.size() != spatial ||
      parameters->dilation.size() != spatial ||
      (parameters->transposed && parameters->outputPadding.size() != spatial))
    return "needs one stride, padding, dilation" +
           std::string(isTransposed(op) ? " and output_padding" : "") + " per spatial dim";
  auto below = [](ArrayRef<int64_t> list, int64_t bound) {
    return llvm::any_of(list, [&](int64_t v) { return v < bound; });
  };
  if (below(parameters->stride, 1) || below(parameters->dilation, 1) ||
      below(parameters->padding, 0) || below(parameters->outputPadding, 0))
    return "needs positive strides and dilations and non-negative paddings";
  if (parameters->groups < 1 && !parameters->runtimeGroups)
    return "needs positive groups";
  return "";
}

/// Index arithmetic and tensors of dynamic sizes, at one place.
class ConvBuilder {
public:
  ConvBuilder(OpBuilder &b, Location loc) : b(b), loc(loc) {}

  Value index(int64_t v) { return arith::ConstantIndexOp::create(b, loc, v); }
  Value dim(Value tensor, int64_t d) { return tensor::DimOp::create(b, loc, tensor, d); }
  Value mul(Value x, Value y) { return arith::MulIOp::create(b, loc, x, y); }
  Value add(Value x, Value y) { return arith::AddIOp::create(b, loc, x, y); }
  Value product(ArrayRef<Value> sizes) {
    Value p = index(1);
    for (Value s : sizes)
      p = mul(p, s);
    return p;
  }

  static RankedTensorType dynamicType(size_t rank, Type element) {
    return RankedTensorType::get(SmallVector<int64_t>(rank, ShapedType::kDynamic), element);
  }

  /// A tensor of `sizes` whose element at each index is `body(indices)`.
  Value tabulate(ArrayRef<Value> sizes, Type element,
                 llvm::function_ref<Value(OpBuilder &, Location, ArrayRef<Value>)> body) {
    return generateTensor(b, loc, dynamicType(sizes.size(), element), sizes, body);
  }

  /// `tensor` with each group of consecutive dims in `groups` (their sizes)
  /// merged into one dim.
  Value collapse(Value tensor, ArrayRef<unsigned> groups) {
    SmallVector<ReassociationIndices> reassociation;
    int64_t next = 0;
    for (unsigned count : groups) {
      ReassociationIndices group;
      for (unsigned i = 0; i < count; ++i)
        group.push_back(next++);
      reassociation.push_back(group);
    }
    return tensor::CollapseShapeOp::create(b, loc, tensor, reassociation);
  }

  /// `tensor` with its dims regrouped into dims of `sizes`, products of
  /// consecutive sizes of its own (tensor.reshape: its buffer read in
  /// place, as a dense one; marked regrouped, so no check of the count is
  /// derived). A product's operands are regrouped so, not collapsed:
  /// linalg-fuse-elementwise-ops would fold a collapse_shape into the
  /// product, expanding it into a generic over every dim, which no longer
  /// runs in register tiles.
  Value regrouped(Value tensor, ArrayRef<Value> sizes) {
    auto type = cast<RankedTensorType>(tensor.getType());
    auto shapeType =
        RankedTensorType::get({static_cast<int64_t>(sizes.size())}, b.getIndexType());
    Value shape = tensor::FromElementsOp::create(b, loc, shapeType, sizes);
    auto reshape = tensor::ReshapeOp::create(
        b, loc, dynamicType(sizes.size(), type.getElementType()), tensor, shape);
    reshape->setAttr(kRegroupedReshapeAttr, b.getUnitAttr());
    return reshape;
  }

  /// `tensor` as a matrix of `rows` by `columns` (regrouped).
  Value matrix(Value tensor, Value rows, Value columns) {
    return regrouped(tensor, {rows, columns});
  }

  /// A zero-filled tensor of `sizes` (index values, every dim dynamic) of
  /// `element`.
  Value zeros(ArrayRef<Value> sizes, Type element) {
    Value empty = tensor::EmptyOp::create(b, loc, dynamicType(sizes.size(), element), sizes);
    Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(element));
    return linalg::FillOp::create(b, loc, zero, empty).getResult(0);
  }

  /// A zero-filled tensor of `sizes` (index values) of `element`, each
  /// element the sum over a window of `windowSizes` of `term(indices)`:
  /// a linalg.generic over the result's dims then the window's (reductions),
  /// a window-shaped operand giving the window loops their extents.
  Value windowSum(ArrayRef<Value> sizes, ArrayRef<Value> windowSizes, Type element,
                  const std::function<Value(OpBuilder &, Location, ArrayRef<Value>)> &term) {
    unsigned parallel = sizes.size(), loops = parallel + windowSizes.size();
    Value init = zeros(sizes, element);
    Value window =
        tensor::EmptyOp::create(b, loc, dynamicType(windowSizes.size(), element), windowSizes);
    SmallVector<AffineExpr> windowDims, resultDims;
    for (unsigned d = parallel; d < loops; ++d)
      windowDims.push_back(b.getAffineDimExpr(d));
    for (unsigned d = 0; d < parallel; ++d)
      resultDims.push_back(b.getAffineDimExpr(d));
    SmallVector<utils::IteratorType> iterators(parallel, utils::IteratorType::parallel);
    iterators.append(windowSizes.size(), utils::IteratorType::reduction);
    return linalg::GenericOp::create(
               b, loc, TypeRange{init.getType()}, ValueRange{window}, ValueRange{init},
               SmallVector<AffineMap>{AffineMap::get(loops, 0, windowDims, b.getContext()),
                                      AffineMap::get(loops, 0, resultDims, b.getContext())},
               iterators,
               [&](OpBuilder &nb, Location l, ValueRange args) {
                 SmallVector<Value> at;
                 for (unsigned d = 0; d < loops; ++d)
                   at.push_back(linalg::IndexOp::create(nb, l, d));
                 Value v = term(nb, l, at);
                 Value sum = isa<FloatType>(element)
                                 ? arith::AddFOp::create(nb, l, args[1], v).getResult()
                                 : arith::AddIOp::create(nb, l, args[1], v).getResult();
                 linalg::YieldOp::create(nb, l, sum);
               })
        .getResult(0);
  }

  /// The products [G, M, N] of lhs [G, M, K] and rhs [G, K, N]: a
  /// linalg.batch_matmul into a zero-filled [G, M, N] of `element`.
  Value batchProduct(Value lhs, Value rhs, Type element) {
    Value init = zeros({dim(lhs, 0), dim(lhs, 1), dim(rhs, 2)}, element);
    return linalg::BatchMatmulOp::create(b, loc, TypeRange{init.getType()}, ValueRange{lhs, rhs},
                                         ValueRange{init})
        .getResult(0);
  }

  OpBuilder &b;
  Location loc;
};

/// The element type products are summed in: float32 for 16-bit floats.
Type accumulatorFor(Type element) {
  if (isa<FloatType>(element) && element.getIntOrFloatBitWidth() < 32)
    return Float32Type::get(element.getContext());
  return element;
}

/// `value` as `to` (a float extension or truncation, or nothing).
Value castFloat(OpBuilder &b, Location loc, Value value, Type to) {
  Type from = value.getType();
  if (from == to)
    return value;
  if (from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth())
    return arith::ExtFOp::create(b, loc, to, value);
  return arith::TruncFOp::create(b, loc, to, value);
}

/// `tensor` (of `sizes`) with its elements cast to `element` (a copy only
/// where the types differ).
Value roundedTo(ConvBuilder &cb, Value tensor, ArrayRef<Value> sizes, Type element) {
  if (cast<RankedTensorType>(tensor.getType()).getElementType() == element)
    return tensor;
  return cb.tabulate(sizes, element, [&](OpBuilder &nb, Location l, ArrayRef<Value> at) {
    return castFloat(nb, l, tensor::ExtractOp::create(nb, l, tensor, at), element);
  });
}

/// The output sizes of a direct convolution: (I + 2p - d (K - 1) - 1) / s + 1
/// per spatial dim, at least 0 (a kernel larger than the padded input
/// gives no output; aten::convolution refuses it).
SmallVector<Value> directOutputSizes(ConvBuilder &cb, ArrayRef<Value> extents,
                                     ArrayRef<Value> kernel, const ConvParameters &p) {
  SmallVector<Value> out;
  for (size_t s = 0; s < extents.size(); ++s) {
    Value reach = cb.mul(cb.index(p.dilation[s]),
                         arith::SubIOp::create(cb.b, cb.loc, kernel[s], cb.index(1)));
    Value span = arith::SubIOp::create(
        cb.b, cb.loc, cb.add(extents[s], cb.index(2 * p.padding[s] - 1)), reach);
    Value steps = arith::FloorDivSIOp::create(cb.b, cb.loc, span, cb.index(p.stride[s]));
    out.push_back(arith::MaxSIOp::create(cb.b, cb.loc, cb.add(steps, cb.index(1)), cb.index(0)));
  }
  return out;
}

/// The row-major position of `at` in a tensor of `sizes`.
Value linearized(ConvBuilder &cb, ArrayRef<Value> at, ArrayRef<Value> sizes) {
  Value position = at.front();
  for (size_t i = 1; i < at.size(); ++i)
    position = cb.add(cb.mul(position, sizes[i]), at[i]);
  return position;
}

/// A result [N, G, Fg, O...] as PyTorch's [N, G*Fg, O...].
Value mergeGroups(ConvBuilder &cb, Value result, int64_t spatial) {
  SmallVector<unsigned> groups = {1, 2};
  groups.append(spatial, 1);
  return cb.collapse(result, groups);
}

/// The result [N, G*Fg, O...] of `products` [G, Fg, N*O...]: a generic over
/// [N, G, Fg, O...] that reads each product (at its row-major position in
/// [N, O...]; memref.expand_shape of several dynamic dims in one group does
/// not lower in MLIR 22), rounding to `element`. With one group, over
/// [N, Fg, O...] itself: no merge of the groups' dims stands between the
/// generic and the output's buffer, which it then writes in place.
Value batchInFront(ConvBuilder &cb, Value products, Value n, ArrayRef<Value> out, Type element,
                   bool oneGroup) {
  int64_t spatial = static_cast<int64_t>(out.size());
  SmallVector<Value> sizes = {n};
  if (!oneGroup)
    sizes.push_back(cb.dim(products, 0));
  sizes.push_back(cb.dim(products, 1));
  llvm::append_range(sizes, out);
  SmallVector<Value> columns = {n};
  llvm::append_range(columns, out);
  int64_t leading = oneGroup ? 2 : 3; // n, (g,) f
  Value result =
      cb.tabulate(sizes, element, [&](OpBuilder &nb, Location l, ArrayRef<Value> at) {
        ConvBuilder in(nb, l);
        SmallVector<Value> position = {at[0]};
        llvm::append_range(position, at.drop_front(leading));
        Value g = oneGroup ? in.index(0) : at[1];
        Value v = tensor::ExtractOp::create(
            nb, l, products, ValueRange{g, at[leading - 1], linearized(in, position, columns)});
        return castFloat(nb, l, v, element);
      });
  return oneGroup ? result : mergeGroups(cb, result, spatial);
}

/// The sizes of dims [from, from + count) of `tensor`.
SmallVector<Value> sizesOf(ConvBuilder &cb, Value tensor, int64_t from, int64_t count) {
  SmallVector<Value> sizes;
  for (int64_t d = from; d < from + count; ++d)
    sizes.push_back(cb.dim(tensor, d));
  return sizes;
}

/// The sizes a direct convolution (prims.conv) is built from: groups, the
/// batch, channels per group (Cg) and of the input, filters per group (Fg),
/// and per spatial dim the input's extent, the kernel's and the output's.
struct DirectSizes {
  Value groups, n, cg, channels, fg;
  SmallVector<Value> extents, kernel, out;
};

DirectSizes directSizes(ConvBuilder &cb, Value input, Value weight, const ConvParameters &p) {
  int64_t spatial = static_cast<int64_t>(p.stride.size());
  DirectSizes d;
  d.groups = p.runtimeGroups ? arith::IndexCastOp::create(cb.b, cb.loc, cb.b.getIndexType(),
                                                          p.runtimeGroups)
                                  .getResult()
                            : cb.index(p.groups);
  d.n = cb.dim(input, 0);
  d.cg = cb.dim(weight, 1);
  d.channels = cb.dim(input, 1);
  d.fg = arith::DivUIOp::create(cb.b, cb.loc, cb.dim(weight, 0), d.groups);
  d.extents = sizesOf(cb, input, 2, spatial);
  d.kernel = sizesOf(cb, weight, 2, spatial);
  d.out = directOutputSizes(cb, d.extents, d.kernel, p);
  return d;
}

/// The input element of batch `n` and channel `channel` at `padded`
/// coordinates (the input's shifted by the padding) in `accumulator`: zero
/// in the padding, and past the input's channels (groups x the weight's
/// channels more than the input's: a data check raises after the call).
Value paddedElement(OpBuilder &nb, Location l, Value input, const ConvParameters &p,
                    const DirectSizes &d, Value n, Value channel, ArrayRef<Value> padded,
                    Type element, Type accumulator) {
  ConvBuilder in(nb, l);
  SmallVector<Value> coords = {n, channel};
  Value inside = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ult, channel, d.channels);
  for (size_t s = 0; s < padded.size(); ++s) {
    Value position = arith::SubIOp::create(nb, l, padded[s], in.index(p.padding[s]));
    inside = arith::AndIOp::create(nb, l, inside, inBounds(nb, l, position, d.extents[s]));
    coords.push_back(position);
  }
  Value v = extractInside(nb, l, input, coords, inside, nb.getZeroAttr(element));
  return castFloat(nb, l, v, accumulator);
}

/// prims.conv of a weight with one filter (statically [1, C, K...], one
/// group): a generic over [N, 1, O..., C, K...] that sums the input (zero
/// outside it) times the weight, without columns. (As a product of one
/// row, MLIR 22's canonicalizer and reshape fusion turn the columns'
/// collapse into a memref.expand_shape that expand-strided-metadata cannot
/// lower; one filter's columns would cost as much as the sum itself.)
Value singleFilterConv(ConvBuilder &cb, Value input, Value weight, const ConvParameters &p,
                       Type element) {
  int64_t spatial = static_cast<int64_t>(p.stride.size());
  Type accumulator = accumulatorFor(element);
  Value channels = cb.dim(input, 1);
  SmallVector<Value> extents = sizesOf(cb, input, 2, spatial);
  SmallVector<Value> kernel = sizesOf(cb, weight, 2, spatial);
  SmallVector<Value> sizes = {cb.dim(input, 0), cb.index(1)};
  llvm::append_range(sizes, directOutputSizes(cb, extents, kernel, p));
  SmallVector<Value> window = {cb.dim(weight, 1)};
  llvm::append_range(window, kernel);
  unsigned parallel = 2 + spatial;
  // Loops (n, f, o..., c, k...).
  Value sum = cb.windowSum(
      sizes, window, accumulator, [&](OpBuilder &nb, Location l, ArrayRef<Value> at) {
        ConvBuilder in(nb, l);
        Value c = at[parallel];
        SmallVector<Value> coords = {at[0], c}, weightCoords = {at[1], c};
        Value inside = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ult, c, channels);
        for (int64_t s = 0; s < spatial; ++s) {
          Value o = at[2 + s], k = at[parallel + 1 + s];
          Value position = arith::SubIOp::create(
              nb, l,
              in.add(in.mul(o, in.index(p.stride[s])), in.mul(k, in.index(p.dilation[s]))),
              in.index(p.padding[s]));
          inside = arith::AndIOp::create(nb, l, inside, inBounds(nb, l, position, extents[s]));
          coords.push_back(position);
          weightCoords.push_back(k);
        }
        Value x = castFloat(nb, l,
                            extractInside(nb, l, input, coords, inside, nb.getZeroAttr(element)),
                            accumulator);
        Value w = castFloat(nb, l, tensor::ExtractOp::create(nb, l, weight, weightCoords),
                            accumulator);
        return isa<FloatType>(accumulator) ? arith::MulFOp::create(nb, l, x, w).getResult()
                                           : arith::MulIOp::create(nb, l, x, w).getResult();
      });
  return roundedTo(cb, sum, sizes, element);
}

/// `input` [N, C, I...] where it has a channel, else zeros [N, 1, I...]
/// (of the same type): a tensor whose channel C' - 1 >= 0 can be read at
/// every batch and input position. Null where the input has no channel
/// statically.
Value withAChannel(ConvBuilder &cb, Value input) {
  auto type = cast<RankedTensorType>(input.getType());
  if (!type.isDynamicDim(1))
    return type.getDimSize(1) > 0 ? input : Value();
  OpBuilder &b = cb.b;
  Location loc = cb.loc;
  Value none = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, cb.dim(input, 1),
                                     cb.index(0));
  auto branch = scf::IfOp::create(
      b, loc, none,
      [&](OpBuilder &then, Location l) {
        ConvBuilder in(then, l);
        SmallVector<int64_t> shape(type.getShape());
        shape[1] = 1;
        SmallVector<Value> sizes;
        for (int64_t d = 0; d < type.getRank(); ++d)
          if (d != 1 && type.isDynamicDim(d))
            sizes.push_back(in.dim(input, d));
        auto zerosType = RankedTensorType::get(shape, type.getElementType());
        Value empty = tensor::EmptyOp::create(then, l, zerosType, sizes);
        Value zero = arith::ConstantOp::create(then, l, then.getZeroAttr(type.getElementType()));
        Value zeros = linalg::FillOp::create(then, l, zero, empty).getResult(0);
        scf::YieldOp::create(then, l, tensor::CastOp::create(then, l, type, zeros).getResult());
      },
      [&](OpBuilder &otherwise, Location l) { scf::YieldOp::create(otherwise, l, input); });
  return branch.getResult(0);
}

/// prims.conv (see the file comment); `hasAChannel`: the input is known to
/// have a channel, so that unpadded columns read it where it is.
Value directConv(ConvBuilder &cb, Value input, Value weight, const ConvParameters &p,
                 Type element, bool regroup, bool hasAChannel = false) {
  int64_t spatial = static_cast<int64_t>(p.stride.size());
  Type accumulator = accumulatorFor(element);
  DirectSizes d = directSizes(cb, input, weight, p);
  Value groups = d.groups, n = d.n, cg = d.cg, channels = d.channels, fg = d.fg;
  ArrayRef<Value> extents = d.extents, kernel = d.kernel, out = d.out;

  // Columns [G, Cg, K..., N, O...]. Without padding, o s + k d < I at
  // every output o: only the channel may lie outside the input, and it is
  // read clamped to the last one (of `readable`, which has one) rather
  // than checked, so that the read is unconditional (LLVM vectorizes a
  // stride-2 read as two loads and a shuffle, a checked one as gathers).
  SmallVector<Value> columnSizes = {groups, cg};
  llvm::append_range(columnSizes, kernel);
  columnSizes.push_back(n);
  llvm::append_range(columnSizes, out);
  bool unpadded = llvm::all_of(p.padding, [](int64_t v) { return v == 0; });
  Value readable = !unpadded ? Value() : hasAChannel ? input : withAChannel(cb, input);
  Value lastChannel =
      readable ? arith::SubIOp::create(cb.b, cb.loc, cb.dim(readable, 1), cb.index(1)).getResult()
               : Value();
  Value columns = cb.tabulate(
      columnSizes, accumulator, [&](OpBuilder &nb, Location l, ArrayRef<Value> at) {
        ConvBuilder in(nb, l);
        Value channel = in.add(in.mul(at[0], cg), at[1]);
        SmallVector<Value> positions;
        for (int64_t s = 0; s < spatial; ++s) {
          Value k = at[2 + s], o = at[3 + spatial + s];
          positions.push_back(arith::SubIOp::create(
              nb, l,
              in.add(in.mul(o, in.index(p.stride[s])), in.mul(k, in.index(p.dilation[s]))),
              in.index(p.padding[s])));
        }
        if (readable) {
          // (A channel past the input's reads its last: a data check
          // raises after the call.)
          SmallVector<Value> coords = {at[2 + spatial],
                                       arith::MinUIOp::create(nb, l, channel, lastChannel)};
          llvm::append_range(coords, positions);
          return castFloat(nb, l, tensor::ExtractOp::create(nb, l, readable, coords), accumulator);
        }
        // A channel past the input's (groups x the weight's channels
        // larger than the input's: a data check raises after the call) is
        // never read.
        SmallVector<Value> coords = {at[2 + spatial], channel};
        llvm::append_range(coords, positions);
        Value inside = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ult, channel, channels);
        for (int64_t s = 0; s < spatial; ++s)
          inside = arith::AndIOp::create(nb, l, inside, inBounds(nb, l, positions[s], extents[s]));
        Value v = extractInside(nb, l, input, coords, inside, nb.getZeroAttr(element));
        return castFloat(nb, l, v, accumulator);
      });
  // (On the CPU regrouped, not collapsed: see ConvBuilder::regrouped. On
  // CUDA a reshape would cost a launch writing its sizes.)
  Value depth = cb.mul(cg, cb.product(kernel));
  SmallVector<unsigned> columnGroups = {1, static_cast<unsigned>(1 + spatial),
                                        static_cast<unsigned>(1 + spatial)};
  Value columnMatrix = regroup
                           ? cb.regrouped(columns, {groups, depth, cb.mul(n, cb.product(out))})
                           : cb.collapse(columns, columnGroups);

  // Weights [G, Fg, Cg, K...] (weight[g*Fg + f, c, k...]).
  SmallVector<Value> weightSizes = {groups, fg, cg};
  llvm::append_range(weightSizes, kernel);
  Value weights = cb.tabulate(
      weightSizes, accumulator, [&](OpBuilder &nb, Location l, ArrayRef<Value> at) {
        ConvBuilder in(nb, l);
        SmallVector<Value> coords = {in.add(in.mul(at[0], fg), at[1]), at[2]};
        llvm::append_range(coords, at.drop_front(3));
        Value v = tensor::ExtractOp::create(nb, l, weight, coords);
        return castFloat(nb, l, v, accumulator);
      });
  Value weightMatrix =
      regroup ? cb.regrouped(weights, {groups, fg, depth})
              : cb.collapse(weights, SmallVector<unsigned>{1, 1, static_cast<unsigned>(1 + spatial)});

  // Products [G, Fg, N*O...], then [N, G*Fg, O...].
  Value products = cb.batchProduct(weightMatrix, columnMatrix, accumulator);
  return batchInFront(cb, products, n, out, element, p.groups == 1);
}

/// The phases of a strided convolution's padded input: with strides s,
/// phase (f...) (0 <= f < s per spatial dim) holds the padded pixels whose
/// coordinate c has c mod s = f, at row c div s of its plane. A kernel
/// position k then reads, for output o, phase (k d mod s) at o + (k d div
/// s): a shift in that phase's plane, as a convolution of stride 1 reads
/// its one plane.
struct Phases {
  int64_t count = 1;            ///< prod s
  SmallVector<int64_t> strides; ///< phase (f...) is sum f_d * strides_d
};

Phases phasesOf(const ConvParameters &p) {
  Phases phases;
  int64_t spatial = static_cast<int64_t>(p.stride.size());
  phases.strides.assign(spatial, 1);
  for (int64_t s = spatial - 1; s >= 0; --s) {
    phases.strides[s] = phases.count;
    phases.count *= p.stride[s];
  }
  return phases;
}

/// Whether shiftedConv suits prims.conv `op`: a float accumulator, more
/// than one kernel position (when known), one group or at least 8 channels
/// per group known (each product sums over them: a depthwise convolution's
/// products would sum one each; a CPU kernel whose groups enter at run
/// time knows its count from 8 on, JIT/Specialization.cpp), and strides
/// that make at most
/// kMaxPhases phases, none of them unread by a kernel known to span less
/// than its stride.
constexpr int64_t kMaxPhases = 16;

bool suitsShiftedConv(Operation *op, const ConvParameters &p) {
  if (p.transposed)
    return false;
  int64_t phases = 1;
  for (int64_t stride : p.stride) {
    if (stride < 1 || stride > kMaxPhases || (phases *= stride) > kMaxPhases)
      return false;
  }
  auto weightType = cast<RankedTensorType>(op->getOperand(1).getType());
  for (size_t s = 0; s < p.stride.size(); ++s) {
    int64_t size = weightType.getDimSize(2 + s);
    if (!ShapedType::isDynamic(size) && (size - 1) * p.dilation[s] + 1 < p.stride[s])
      return false;
  }
  Type accumulator = accumulatorFor(weightType.getElementType());
  if (!accumulator.isF32() && !accumulator.isF64())
    return false;
  int64_t channels = weightType.getDimSize(1);
  if (p.groups != 1 && (ShapedType::isDynamic(channels) || channels < 8))
    return false;
  int64_t positions = 1;
  for (int64_t d = 2; d < weightType.getRank(); ++d) {
    if (weightType.isDynamicDim(d))
      return true; // (a kernel size known per call: any works)
    positions *= weightType.getDimSize(d);
  }
  return positions > 1;
}

/// `into` with zero in its box at `offsets` of `sizes` (unit strides).
Value zeroBox(OpBuilder &b, Location loc, Value into, ArrayRef<OpFoldResult> offsets,
              ArrayRef<OpFoldResult> sizes) {
  Type element = cast<RankedTensorType>(into.getType()).getElementType();
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(element));
  SmallVector<OpFoldResult> strides(offsets.size(), b.getIndexAttr(1));
  Value box = tensor::ExtractSliceOp::create(b, loc, into, offsets, sizes, strides);
  Value zeros = linalg::FillOp::create(b, loc, zero, box).getResult(0);
  return tensor::InsertSliceOp::create(b, loc, zeros, into, offsets, sizes, strides);
}

/// `into` (of `sizes`, padded planes whose spatial dims start at `first`)
/// with zero in the padding: below and above the interior along each
/// spatial dim, over the whole range of the others (corners twice).
Value zeroPadding(ConvBuilder &cb, Value into, ArrayRef<Value> sizes, int64_t first,
                  const ConvParameters &p, const DirectSizes &d) {
  int64_t rank = static_cast<int64_t>(sizes.size());
  for (size_t s = 0; s < p.padding.size(); ++s) {
    if (p.padding[s] == 0)
      continue;
    SmallVector<OpFoldResult> offsets(rank, cb.b.getIndexAttr(0)),
        boxSizes(sizes.begin(), sizes.end());
    boxSizes[first + s] = cb.b.getIndexAttr(p.padding[s]);
    into = zeroBox(cb.b, cb.loc, into, offsets, boxSizes);
    offsets[first + s] = cb.add(d.extents[s], cb.index(p.padding[s]));
    into = zeroBox(cb.b, cb.loc, into, offsets, boxSizes);
  }
  return into;
}

/// Where the input lands in phase f of spatial dim s: the first input
/// coordinate it holds, the row of that coordinate in the phase's plane,
/// and how many it holds. With a stride of 1 (one phase): the padding, and
/// the input's extent.
struct PhaseInterior {
  OpFoldResult first, row;
  Value count;
};

PhaseInterior phaseInterior(ConvBuilder &cb, const ConvParameters &p, const DirectSizes &d,
                            int64_t s, Value f) {
  int64_t stride = p.stride[s], pad = p.padding[s];
  OpBuilder &b = cb.b;
  if (stride == 1)
    return {b.getIndexAttr(0), b.getIndexAttr(pad), d.extents[s]};
  // first = (f - pad) mod stride, row = (first + pad - f) / stride (f <
  // stride: never negative), count = ceil(max(extent - first, 0) / stride).
  Value first = arith::RemUIOp::create(b, cb.loc, cb.add(f, cb.index(stride - pad % stride)),
                                       cb.index(stride));
  Value row = arith::DivUIOp::create(
      b, cb.loc,
      arith::SubIOp::create(b, cb.loc, cb.add(first, cb.index(pad)), f).getResult(),
      cb.index(stride));
  Value left = arith::MaxSIOp::create(b, cb.loc, arith::SubIOp::create(b, cb.loc, d.extents[s], first),
                                      cb.index(0));
  Value count = arith::CeilDivUIOp::create(b, cb.loc, left, cb.index(stride));
  return {first, row, count};
}

/// xT [G, S, N, P..., Cg] (`sizes`; S the phases, P... a phase's plane)
/// of an input of the accumulator's type: for each phase, each group's
/// channels of the input (every stride-th pixel) transposed channels last
/// into the plane's interior, zero around it (and past the input's
/// channels, when it has fewer: a data check raises after the call). With
/// strides of 1, one phase, the padded planes: zero is written only around
/// the interior, each element once. With strides, the phases are a loop
/// (one transpose to compile, not one per phase) after one fill of zero.
Value channelsLast(ConvBuilder &cb, Value input, ArrayRef<Value> sizes, const ConvParameters &p,
                   const DirectSizes &d) {
  OpBuilder &b = cb.b;
  Location loc = cb.loc;
  int64_t spatial = static_cast<int64_t>(p.stride.size());
  Type element = cast<RankedTensorType>(input.getType()).getElementType();
  Value filled = tensor::EmptyOp::create(
      b, loc, ConvBuilder::dynamicType(sizes.size(), element), sizes);
  auto unit = b.getIndexAttr(1), none = b.getIndexAttr(0);
  Phases phases = phasesOf(p);
  int64_t rank = static_cast<int64_t>(sizes.size());
  if (phases.count == 1) {
    filled = zeroPadding(cb, filled, sizes, 3, p, d);
  } else {
    Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(element));
    filled = linalg::FillOp::create(b, loc, zero, filled).getResult(0);
  }
  // Group g's channels of phase `phase` into `into`.
  auto group = [&](OpBuilder &gb, Location gl, Value phase, Value g, Value into) -> Value {
    ConvBuilder in(gb, gl);
    SmallVector<PhaseInterior> interiors;
    for (int64_t s = 0; s < spatial; ++s) {
      Value f = phases.count == 1
                    ? in.index(0)
                    : arith::RemUIOp::create(
                          gb, gl, arith::DivUIOp::create(gb, gl, phase, in.index(phases.strides[s])),
                          in.index(p.stride[s]))
                          .getResult();
      interiors.push_back(phaseInterior(in, p, d, s, f));
    }
    Value first = arith::MinUIOp::create(gb, gl, in.mul(g, d.cg), d.channels);
    Value count =
        arith::MinUIOp::create(gb, gl, d.cg, arith::SubIOp::create(gb, gl, d.channels, first));
    SmallVector<OpFoldResult> offsets = {none, first}, extents = {d.n, count},
                              strides = {unit, unit};
    for (int64_t s = 0; s < spatial; ++s) {
      offsets.push_back(interiors[s].first);
      extents.push_back(interiors[s].count);
      strides.push_back(gb.getIndexAttr(p.stride[s]));
    }
    Value from = tensor::ExtractSliceOp::create(gb, gl, input, offsets, extents, strides);
    // The interior of group g's plane of this phase, [N, counts..., count].
    SmallVector<OpFoldResult> toOffsets = {g, phase, none}, toSizes = {unit, unit, d.n};
    for (int64_t s = 0; s < spatial; ++s) {
      toOffsets.push_back(interiors[s].row);
      toSizes.push_back(interiors[s].count);
    }
    toOffsets.push_back(none);
    toSizes.push_back(count);
    SmallVector<OpFoldResult> toStrides(rank, unit);
    auto interiorType = ConvBuilder::dynamicType(2 + spatial, element);
    Value interior = tensor::ExtractSliceOp::create(gb, gl, interiorType, into, toOffsets,
                                                    toSizes, toStrides);
    SmallVector<int64_t> permutation = {0};
    for (int64_t s = 0; s < spatial; ++s)
      permutation.push_back(2 + s);
    permutation.push_back(1);
    Value moved = linalg::TransposeOp::create(gb, gl, from, interior, permutation).getResult()[0];
    Value done = tensor::InsertSliceOp::create(gb, gl, moved, into, toOffsets, toSizes, toStrides);
    // Zero past the input's channels in the interior (none but when the
    // call raises; around it, every channel is zero already).
    toOffsets.back() = count;
    toSizes.back() = arith::SubIOp::create(gb, gl, d.cg, count).getResult();
    return zeroBox(gb, gl, done, toOffsets, toSizes);
  };
  // Every group of phase `phase`.
  auto phase = [&](OpBuilder &pb, Location pl, Value phase, Value into) -> Value {
    if (p.groups == 1)
      return group(pb, pl, phase, ConvBuilder(pb, pl).index(0), into);
    return scf::ForOp::create(pb, pl, ConvBuilder(pb, pl).index(0), d.groups,
                              ConvBuilder(pb, pl).index(1), ValueRange{into},
                              [&](OpBuilder &lb, Location l, Value g, ValueRange carried) {
                                scf::YieldOp::create(lb, l, group(lb, l, phase, g, carried[0]));
                              })
        .getResult(0);
  };
  if (phases.count == 1)
    return phase(b, loc, cb.index(0), filled);
  return scf::ForOp::create(b, loc, cb.index(0), cb.index(phases.count), cb.index(1),
                            ValueRange{filled},
                            [&](OpBuilder &lb, Location l, Value f, ValueRange carried) {
                              scf::YieldOp::create(lb, l, phase(lb, l, f, carried[0]));
                            })
      .getResult(0);
}

/// prims.conv as a sum of matrix products over shifted rows, without
/// columns. With strides of 1, the input, padded and channels last, is one
/// matrix xT [G, N*P, Cg] (P the padded plane's size, rows the padded
/// pixels of every image in turn); the output pixel at row q of the padded
/// plane reads, for kernel position k, row q + shift(k) (shift(k) = the
/// position's offset in the padded plane, dilation included). So
///   acc [G, Q, Fg] = sum over k of xT[:, shift(k) : shift(k) + Q, :] x
///                    weight_k [G, Cg, Fg]
/// (one linalg.batch_matmul per kernel position, on a view of xT), and
/// output (n, o...) is row n*P + (its position in the padded plane) of acc;
/// the rows between (the padding's) are computed and dropped. Q = (N - 1)P
/// + (the last output's position) + 1. With strides s, xT holds the padded
/// input's phases (Phases) one after the other, N planes of P = prod
/// ceil(padded / s) rows each; output o is at its position in the first
/// phase's planes, and position k reads phase (k d mod s) shifted by
/// (k d div s): the same sum, each shift(k) including its phase's first
/// row.
Value shiftedConv(ConvBuilder &cb, Value input, Value weight, const ConvParameters &p,
                  Type element, bool channelsLastResult = false) {
  OpBuilder &b = cb.b;
  Location loc = cb.loc;
  int64_t spatial = static_cast<int64_t>(p.stride.size());
  Type accumulator = accumulatorFor(element);
  DirectSizes d = directSizes(cb, input, weight, p);
  Value groups = d.groups, n = d.n, cg = d.cg, fg = d.fg;
  ArrayRef<Value> extents = d.extents, kernel = d.kernel, out = d.out;
  // A phase's plane (the padded plane itself for strides of 1): its sizes,
  // ceil(padded / stride), the stride of each dim in it, its size.
  Phases phases = phasesOf(p);
  SmallVector<Value> padded, planeStrides(spatial);
  for (int64_t s = 0; s < spatial; ++s)
    padded.push_back(arith::CeilDivUIOp::create(
        b, loc, cb.add(extents[s], cb.index(2 * p.padding[s])), cb.index(p.stride[s])));
  Value plane = cb.index(1);
  for (int64_t s = spatial - 1; s >= 0; --s) {
    planeStrides[s] = plane;
    plane = cb.mul(plane, padded[s]);
  }

  // xT [G, S, N, P..., Cg]: the input's phases channels last, zero in the
  // padding (and past the input's channels: a data check raises after the
  // call).
  SmallVector<Value> xSizes = {groups, cb.index(phases.count), n};
  llvm::append_range(xSizes, padded);
  xSizes.push_back(cg);
  // Inputs of the accumulator's type are transposed into the zero-filled
  // padded tensor (linalg.transpose: opal-vectorize-transposes); others are
  // converted element by element.
  bool plain = element == accumulator;
  Value xT = plain ? channelsLast(cb, input, xSizes, p, d)
                   : cb.tabulate(xSizes, accumulator,
                                 [&](OpBuilder &nb, Location l, ArrayRef<Value> at) {
                                   ConvBuilder in(nb, l);
                                   Value channel = in.add(in.mul(at[0], cg), at[3 + spatial]);
                                   // Padded coordinates: row * s + f.
                                   SmallVector<Value> coords;
                                   for (int64_t s = 0; s < spatial; ++s) {
                                     Value f = arith::RemUIOp::create(
                                         nb, l,
                                         arith::DivUIOp::create(nb, l, at[1],
                                                                in.index(phases.strides[s])),
                                         in.index(p.stride[s]));
                                     coords.push_back(
                                         in.add(in.mul(at[3 + s], in.index(p.stride[s])), f));
                                   }
                                   return paddedElement(nb, l, input, p, d, at[2], channel,
                                                        coords, element, accumulator);
                                 });
  Value rows = cb.collapse(
      xT, SmallVector<unsigned>{1, static_cast<unsigned>(2 + spatial), 1});

  // weights [G, K..., Cg, Fg] (weight[g*Fg + f, c, k...]), K... as one dim.
  Value weights;
  if (std::optional<int64_t> one = getConstantIntValue(groups);
      one && *one == 1 && cast<RankedTensorType>(weight.getType()).getElementType() == accumulator) {
    // One group, no cast: weight [F, C, K...] seen as [F, C, prod K] and
    // transposed to [prod K, C, F], a linalg.transpose that
    // opal-vectorize-transposes does in register tiles (element by element,
    // through the general gather, it was 1.3% of a ResNet layer).
    Value flat = cb.collapse(weight, SmallVector<unsigned>{1, 1, static_cast<unsigned>(spatial)});
    // (The sizes as the weight's type has them: some may be static.)
    SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(b, loc, flat);
    Value empty = tensor::EmptyOp::create(b, loc, SmallVector<OpFoldResult>{sizes[2], sizes[1],
                                                                            sizes[0]},
                                          accumulator);
    Value transposed =
        linalg::TransposeOp::create(b, loc, flat, empty, SmallVector<int64_t>{2, 1, 0})
            .getResult()[0];
    // (Its type keeps the static sizes: expand_shape may not make a static
    // dim dynamic.)
    auto flatType = cast<RankedTensorType>(transposed.getType());
    weights = tensor::ExpandShapeOp::create(
        b, loc,
        RankedTensorType::get({1, flatType.getDimSize(0), flatType.getDimSize(1),
                               flatType.getDimSize(2)},
                              accumulator),
        transposed,
        SmallVector<ReassociationIndices>{{0, 1}, {2}, {3}},
        SmallVector<OpFoldResult>{b.getIndexAttr(1), sizes[2], sizes[1], sizes[0]});
  } else {
    SmallVector<Value> wSizes = {groups};
    llvm::append_range(wSizes, kernel);
    wSizes.append({cg, fg});
    Value wT =
        cb.tabulate(wSizes, accumulator, [&](OpBuilder &nb, Location l, ArrayRef<Value> at) {
          ConvBuilder in(nb, l);
          SmallVector<Value> coords = {in.add(in.mul(at[0], fg), at[2 + spatial]),
                                       at[1 + spatial]};
          llvm::append_range(coords, at.slice(1, spatial));
          return castFloat(nb, l, tensor::ExtractOp::create(nb, l, weight, coords), accumulator);
        });
    weights = cb.collapse(wT, SmallVector<unsigned>{1, static_cast<unsigned>(spatial), 1, 1});
  }

  // Q rows of sums; none when there is no output.
  Value last = cb.mul(arith::SubIOp::create(b, loc, n, cb.index(1)), plane);
  Value empty = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, n, cb.index(0));
  for (int64_t s = 0; s < spatial; ++s) {
    last = cb.add(last, cb.mul(arith::SubIOp::create(b, loc, out[s], cb.index(1)),
                               planeStrides[s]));
    empty = arith::OrIOp::create(
        b, loc, empty, arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, out[s], cb.index(0)));
  }
  Value q = arith::SelectOp::create(b, loc, empty, cb.index(0), cb.add(last, cb.index(1)));
  // (Plain: N*P rows, so that the rows are the padded planes of every
  // image, of which the outputs are a view; only the first Q are computed.)
  SmallVector<Value> accSizes = {groups, plain ? cb.mul(n, plane) : q, fg};
  Value sums0 = tensor::EmptyOp::create(b, loc, ConvBuilder::dynamicType(3, accumulator),
                                        accSizes);
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(accumulator));
  Value positions = cb.product(kernel);
  // Each kernel position's row offset in xT: its phase's first row (N
  // planes per phase), and its offset in that phase's plane (dilation
  // included): k d mod s, k d div s per spatial dim. A table computed once:
  // read in the loop of positions, which opal-tile-matmul runs inside every
  // register tile, it costs a load where the position's coordinates would
  // cost a division per spatial dim.
  Value phaseRows = cb.mul(n, plane);
  Value shifts = cb.tabulate(
      SmallVector<Value>{positions}, b.getIndexType(),
      [&](OpBuilder &nb, Location l, ArrayRef<Value> at) {
        ConvBuilder kb(nb, l);
        Value shift = kb.index(0), phase = kb.index(0), rest = at[0];
        for (int64_t s = spatial - 1; s >= 0; --s) {
          Value ks = arith::RemUIOp::create(nb, l, rest, kernel[s]);
          rest = arith::DivUIOp::create(nb, l, rest, kernel[s]);
          Value reach = kb.mul(ks, kb.index(p.dilation[s]));
          Value stride = kb.index(p.stride[s]);
          phase = kb.add(phase, kb.mul(arith::RemUIOp::create(nb, l, reach, stride),
                                       kb.index(phases.strides[s])));
          shift = kb.add(shift, kb.mul(arith::DivUIOp::create(nb, l, reach, stride),
                                       planeStrides[s]));
        }
        return kb.add(shift, kb.mul(phase, phaseRows));
      });
  auto unit = b.getIndexAttr(1), none = b.getIndexAttr(0);
  // The Q rows of sums, filled with zero, then each kernel position's
  // product summed into them. opal-tile-matmul runs the loop of positions
  // inside each register tile (its sums stay in registers through the nine
  // positions of a 3x3 kernel, stored once), packs every position's
  // weights once, and threads share the tiles. (Until 2026-11-27 the rows
  // ran in blocks of 240, a loop threads shared: every block packed the
  // weights again, 3% of a ResNet layer on one thread, and 56x56 pixels
  // made 14 blocks, too few for 16 threads.)
  SmallVector<OpFoldResult> origin = {none, none, none}, units = {unit, unit, unit};
  SmallVector<OpFoldResult> qRows = {groups, q, fg};
  Value computed = tensor::ExtractSliceOp::create(b, loc, sums0, origin, qRows, units);
  Value zeros = linalg::FillOp::create(b, loc, zero, computed).getResult(0);
  auto loop = scf::ForOp::create(
      b, loc, cb.index(0), positions, cb.index(1), ValueRange{zeros},
      [&](OpBuilder &lb, Location l, Value k, ValueRange carried) {
        Value shift = tensor::ExtractOp::create(lb, l, shifts, ValueRange{k});
        Value a = tensor::ExtractSliceOp::create(
            lb, l, rows, SmallVector<OpFoldResult>{none, shift, none},
            SmallVector<OpFoldResult>{groups, q, cg}, units);
        auto bType = ConvBuilder::dynamicType(3, accumulator);
        Value bk = tensor::ExtractSliceOp::create(
            lb, l, bType, weights, SmallVector<OpFoldResult>{none, k, none, none},
            SmallVector<OpFoldResult>{groups, unit, cg, fg},
            SmallVector<OpFoldResult>{unit, unit, unit, unit});
        Value sum = linalg::BatchMatmulOp::create(lb, l, TypeRange{carried[0].getType()},
                                                  ValueRange{a, bk}, ValueRange{carried[0]})
                        .getResult(0);
        scf::YieldOp::create(lb, l, sum);
      });
  Value sums = tensor::InsertSliceOp::create(b, loc, loop.getResult(0), sums0, origin, qRows,
                                             units);

  // [N, G*Fg, O...]: output (n, g, f, o...) is row n*P + its position.
  SmallVector<Value> sizes = {n, groups, fg};
  llvm::append_range(sizes, out);
  if (plain) {
    // The rows as [G, N, padded..., Fg], the outputs' corner of each
    // plane, transposed to [N, G, Fg, O...].
    SmallVector<Value> planes = {groups, n};
    llvm::append_range(planes, padded);
    planes.push_back(fg);
    SmallVector<ReassociationIndices> reassociation = {{0}, {}, {2 + spatial}};
    for (int64_t i = 0; i <= spatial; ++i)
      reassociation[1].push_back(1 + i);
    Value byPlane = tensor::ExpandShapeOp::create(
        b, loc, ConvBuilder::dynamicType(3 + spatial, accumulator), sums, reassociation,
        SmallVector<OpFoldResult>(planes.begin(), planes.end()));
    // One group: [N, O..., Fg] (the group's dim dropped) transposed to the
    // result [N, Fg, O...] itself, so that it is written in the output's
    // buffer.
    bool one = p.groups == 1;
    SmallVector<OpFoldResult> offsets(3 + spatial, b.getIndexAttr(0)),
        unitStrides(3 + spatial, unit), cornerSizes = {one ? OpFoldResult(unit) : groups, n};
    llvm::append_range(cornerSizes, out);
    cornerSizes.push_back(fg);
    auto cornerType = ConvBuilder::dynamicType(one ? 2 + spatial : 3 + spatial, accumulator);
    Value corner = tensor::ExtractSliceOp::create(b, loc, cornerType, byPlane, offsets,
                                                  cornerSizes, unitStrides);
    if (one && channelsLastResult)
      return corner;
    SmallVector<int64_t> permutation =
        one ? SmallVector<int64_t>{0, 1 + spatial} : SmallVector<int64_t>{1, 0, 2 + spatial};
    for (int64_t s = 0; s < spatial; ++s)
      permutation.push_back((one ? 1 : 2) + s);
    SmallVector<Value> resultSizes = {n, one ? fg : groups};
    if (!one)
      resultSizes.push_back(fg);
    llvm::append_range(resultSizes, out);
    Value empty = tensor::EmptyOp::create(
        b, loc, ConvBuilder::dynamicType(resultSizes.size(), element), resultSizes);
    Value result =
        linalg::TransposeOp::create(b, loc, corner, empty, permutation).getResult()[0];
    return one ? result : mergeGroups(cb, result, spatial);
  }
  Value result = cb.tabulate(sizes, element, [&](OpBuilder &nb, Location l, ArrayRef<Value> at) {
    ConvBuilder in(nb, l);
    Value row = in.mul(at[0], plane);
    for (int64_t s = 0; s < spatial; ++s)
      row = in.add(row, in.mul(at[3 + s], planeStrides[s]));
    Value v = tensor::ExtractOp::create(nb, l, sums, ValueRange{at[1], row, at[2]});
    return castFloat(nb, l, v, element);
  });
  return mergeGroups(cb, result, spatial);
}

/// [N, G*Cg, padded...] of `accumulator` (its sizes in `xSizes`): the
/// input copied into the planes' interior, zero in the padding (and past
/// the input's channels: a data check raises after the call); each element
/// written once, and no generic that elementwise fusion would recompute at
/// every kernel position.
Value paddedPlanes(ConvBuilder &cb, Value input, const ConvParameters &p, const DirectSizes &d,
                   Type accumulator, SmallVectorImpl<Value> &xSizes) {
  OpBuilder &b = cb.b;
  Location loc = cb.loc;
  int64_t spatial = static_cast<int64_t>(p.stride.size());
  Type element = cast<RankedTensorType>(input.getType()).getElementType();
  Value n = d.n;
  ArrayRef<Value> extents = d.extents;
  Value channels = cb.mul(d.groups, d.cg);
  xSizes.assign({n, channels});
  for (int64_t s = 0; s < spatial; ++s)
    xSizes.push_back(cb.add(extents[s], cb.index(2 * p.padding[s])));
  Value padded = tensor::EmptyOp::create(
      b, loc, ConvBuilder::dynamicType(xSizes.size(), accumulator), xSizes);
  padded = zeroPadding(cb, padded, xSizes, 2, p, d);
  Value count = arith::MinUIOp::create(b, loc, channels, d.channels);
  auto none = b.getIndexAttr(0);
  SmallVector<OpFoldResult> interiorOffsets = {none, none}, interiorSizes = {n, count};
  SmallVector<OpFoldResult> inputOffsets(2 + spatial, none);
  for (int64_t s = 0; s < spatial; ++s) {
    interiorOffsets.push_back(b.getIndexAttr(p.padding[s]));
    interiorSizes.push_back(extents[s]);
  }
  SmallVector<OpFoldResult> unitStrides(2 + spatial, b.getIndexAttr(1));
  Value from = tensor::ExtractSliceOp::create(b, loc, input, inputOffsets, interiorSizes,
                                              unitStrides);
  Value interior = tensor::ExtractSliceOp::create(b, loc, padded, interiorOffsets,
                                                  interiorSizes, unitStrides);
  Value copied;
  if (element == accumulator) {
    copied = linalg::CopyOp::create(b, loc, from, interior).getResult(0);
  } else {
    AffineMap identity = b.getMultiDimIdentityMap(2 + spatial);
    copied = linalg::GenericOp::create(
                 b, loc, TypeRange{interior.getType()}, ValueRange{from}, ValueRange{interior},
                 SmallVector<AffineMap>{identity, identity},
                 SmallVector<utils::IteratorType>(2 + spatial, utils::IteratorType::parallel),
                 [&](OpBuilder &nb, Location l, ValueRange args) {
                   linalg::YieldOp::create(nb, l, castFloat(nb, l, args[0], accumulator));
                 })
                 .getResult(0);
  }
  padded = tensor::InsertSliceOp::create(b, loc, copied, padded, interiorOffsets, interiorSizes,
                                         unitStrides);
  SmallVector<OpFoldResult> pastOffsets(2 + spatial, none), pastSizes(xSizes.begin(), xSizes.end());
  pastOffsets[1] = count;
  pastSizes[1] = arith::SubIOp::create(b, loc, channels, count).getResult();
  padded = zeroBox(b, loc, padded, pastOffsets, pastSizes);
  return padded;
}

/// prims.conv of one group over small planes, as one product of im2col
/// rows and the weight read in place: rows [N, O..., C, K...] (the input
/// at o s + k d - p, zero outside it and past its channels) collapsed to
/// [N*O, C*K], times the weight [F, C*K] transposed (linear's product:
/// opal-tile-matmul packs the weight as it reads it), sums [N*O, F]
/// read as [N, F, O...]. Where a plane is small, the shifted
/// products compute mostly padding (a 2x2 plane padded to 4x4: 16 rows
/// for 4 outputs); the rows hold only what the outputs read.
Value rowsConv(ConvBuilder &cb, Value input, Value weight, const ConvParameters &p,
               Type element, bool channelsLastResult = false) {
  OpBuilder &b = cb.b;
  Location loc = cb.loc;
  int64_t spatial = static_cast<int64_t>(p.stride.size());
  Type accumulator = accumulatorFor(element);
  DirectSizes d = directSizes(cb, input, weight, p);
  SmallVector<Value> rowSizes = {d.n};
  llvm::append_range(rowSizes, d.out);
  rowSizes.push_back(d.cg);
  llvm::append_range(rowSizes, d.kernel);
  // (The padded planes first: the rows then read without a check.)
  SmallVector<Value> xSizes;
  Value padded = paddedPlanes(cb, input, p, d, accumulator, xSizes);
  Value rows = cb.tabulate(
      rowSizes, accumulator, [&](OpBuilder &nb, Location l, ArrayRef<Value> at) {
        ConvBuilder in(nb, l);
        SmallVector<Value> coords = {at[0], at[1 + spatial]};
        for (int64_t s = 0; s < spatial; ++s)
          coords.push_back(in.add(in.mul(at[1 + s], in.index(p.stride[s])),
                                  in.mul(at[2 + spatial + s], in.index(p.dilation[s]))));
        return tensor::ExtractOp::create(nb, l, padded, coords).getResult();
      });
  // Both as matrices through tensor.reshape: a collapse_shape would let
  // linalg-fuse-elementwise-ops expand the product into a generic over
  // every dim, which no longer runs in register tiles.
  Value outputs = cb.mul(d.n, cb.product(d.out));
  Value depth = cb.mul(d.cg, cb.product(d.kernel));
  Value rowMatrix = cb.matrix(rows, outputs, depth);
  SmallVector<Value> weightSizes = {cb.dim(weight, 0), d.cg};
  llvm::append_range(weightSizes, d.kernel);
  Value weightMatrix =
      cb.matrix(roundedTo(cb, weight, weightSizes, accumulator), weightSizes[0], depth);

  // Sums [N*O, F]: i, j, k -> rows[i, k], weight[j, k], sums[i, j].
  SmallVector<Value> sumSizes = {outputs, weightSizes[0]};
  Value init = cb.zeros(sumSizes, accumulator);
  MLIRContext *context = b.getContext();
  auto map = [&](unsigned x, unsigned y) {
    return AffineMapAttr::get(AffineMap::get(
        3, 0, {getAffineDimExpr(x, context), getAffineDimExpr(y, context)}, context));
  };
  NamedAttribute maps = b.getNamedAttr(
      "indexing_maps", b.getArrayAttr({map(0, 2), map(1, 2), map(0, 1)}));
  Value sums = linalg::MatmulOp::create(b, loc, TypeRange{init.getType()},
                                        ValueRange{rowMatrix, weightMatrix}, ValueRange{init},
                                        ArrayRef<NamedAttribute>{maps})
                   .getResult(0);

  if (!channelsLastResult) {
    // The result [N, F, O...]: element (n, f, o...) is sums[n*O + o, f].
    SmallVector<Value> resultSizes = {d.n, weightSizes[0]};
    llvm::append_range(resultSizes, d.out);
    SmallVector<Value> samples = {d.n};
    llvm::append_range(samples, d.out);
    return cb.tabulate(resultSizes, element, [&](OpBuilder &nb, Location l, ArrayRef<Value> at) {
      ConvBuilder in(nb, l);
      SmallVector<Value> sample = {at[0]};
      llvm::append_range(sample, at.drop_front(2));
      Value v = tensor::ExtractOp::create(nb, l, sums,
                                          ValueRange{linearized(in, sample, samples), at[1]});
      return castFloat(nb, l, v, element);
    });
  }
  // [N, O..., F]: the sums reshaped, seen through a slice of all of them
  // (as shiftedConv's corner of its planes: one type of buffer for both).
  SmallVector<Value> lastSizes = {d.n};
  llvm::append_range(lastSizes, d.out);
  lastSizes.push_back(weightSizes[0]);
  auto shapeType = RankedTensorType::get({2 + spatial}, b.getIndexType());
  Value shape = tensor::FromElementsOp::create(b, loc, shapeType, lastSizes);
  auto reshape = tensor::ReshapeOp::create(b, loc, ConvBuilder::dynamicType(2 + spatial, element),
                                           sums, shape);
  reshape->setAttr(kRegroupedReshapeAttr, b.getUnitAttr());
  SmallVector<OpFoldResult> zeros(2 + spatial, b.getIndexAttr(0)),
      ones(2 + spatial, b.getIndexAttr(1)), all(lastSizes.begin(), lastSizes.end());
  return tensor::ExtractSliceOp::create(b, loc, reshape, zeros, all, ones);
}

/// Whether prims.conv `op` is pointwise: one group, kernel positions known
/// to be one (a 1 x 1 kernel), strides of 1 and no padding, of a float type
/// summed in itself. Each output pixel is then the weight [F, C] times the
/// input's pixel, and an image's output [F, P] the product of the weight
/// and the image [C, P] (P its pixels), both read where they are.
bool isPointwise(Operation *op, const ConvParameters &p, Type element) {
  if (p.transposed || p.groups != 1 || accumulatorFor(element) != element ||
      !(element.isF32() || element.isF64()))
    return false;
  auto weightType = cast<RankedTensorType>(op->getOperand(1).getType());
  for (int64_t d = 2; d < weightType.getRank(); ++d)
    if (weightType.getDimSize(d) != 1)
      return false;
  return llvm::all_of(p.stride, [](int64_t s) { return s == 1; }) &&
         llvm::all_of(p.padding, [](int64_t s) { return s == 0; });
}

/// `into` (a matrix [F, P]) with row f all bias[f].
Value rowsOf(ConvBuilder &cb, Value into, Value bias, Type element) {
  auto type = cast<RankedTensorType>(into.getType());
  return linalg::GenericOp::create(
             cb.b, cb.loc, TypeRange{type}, ValueRange{}, ValueRange{into},
             SmallVector<AffineMap>{cb.b.getMultiDimIdentityMap(2)},
             SmallVector<utils::IteratorType>(2, utils::IteratorType::parallel),
             [&](OpBuilder &nb, Location l, ValueRange) {
               Value row = linalg::IndexOp::create(nb, l, 0);
               Value value = tensor::ExtractOp::create(nb, l, bias, row);
               linalg::YieldOp::create(nb, l, castFloat(nb, l, value, element));
             })
      .getResult(0);
}

/// `sums` [N, F, P] plus bias[f] (a pass of its own).
Value plusRowBias(ConvBuilder &cb, Value sums, Value bias, Type element) {
  auto type = cast<RankedTensorType>(sums.getType());
  MLIRContext *context = cb.b.getContext();
  Value empty = tensor::EmptyOp::create(
      cb.b, cb.loc, type, ValueRange{cb.dim(sums, 0), cb.dim(sums, 1), cb.dim(sums, 2)});
  return linalg::GenericOp::create(
             cb.b, cb.loc, TypeRange{type}, ValueRange{sums, bias}, ValueRange{empty},
             SmallVector<AffineMap>{
                 cb.b.getMultiDimIdentityMap(3),
                 AffineMap::get(3, 0, {getAffineDimExpr(1, context)}, context),
                 cb.b.getMultiDimIdentityMap(3)},
             SmallVector<utils::IteratorType>(3, utils::IteratorType::parallel),
             [&](OpBuilder &nb, Location l, ValueRange args) {
               linalg::YieldOp::create(
                   nb, l,
                   arith::AddFOp::create(nb, l, args[0], castFloat(nb, l, args[1], element))
                       .getResult());
             })
      .getResult(0);
}

/// The pixels of a pointwise convolution's product per chunk: a block of
/// opal-tile-matmul's columns (tile-n), so that a chunk packs its columns
/// once.
constexpr int64_t kPointwiseChunk = 512;

/// A pointwise prims.conv (isPointwise) on the CPU: per image n, sums [F, P]
/// = weight [F, C] x input[n] [C, P], one product on views of the weight
/// and the image (no columns, no copy of either: the product's tiles pack
/// the image's rows as they read them), written into the rows of the sums
/// [N, F, P].
Value pointwiseConv(ConvBuilder &cb, Value input, Value weight, Type element, Value bias) {
  OpBuilder &b = cb.b;
  Location loc = cb.loc;
  int64_t spatial = cast<RankedTensorType>(input.getType()).getRank() - 2;
  Value n = cb.dim(input, 0), filters = cb.dim(weight, 0);
  // (The channels both have: where the input's differ from the weight's, a
  // data check raises after the call, and no product reads past either.)
  Value inputChannels = cb.dim(input, 1), weightChannels = cb.dim(weight, 1);
  Value channels = arith::MinUIOp::create(b, loc, inputChannels, weightChannels);
  SmallVector<Value> extents = sizesOf(cb, input, 2, spatial);
  Value pixels = cb.product(extents);
  auto matrixType = ConvBuilder::dynamicType(2, element);
  SmallVector<OpFoldResult> origin(2, b.getIndexAttr(0)), units(2, b.getIndexAttr(1));
  Value weightMatrix = tensor::ExtractSliceOp::create(
      b, loc, matrixType, cb.matrix(weight, filters, weightChannels), origin,
      SmallVector<OpFoldResult>{filters, channels}, units);
  Value images = cb.regrouped(input, {n, inputChannels, pixels});
  Value empty = tensor::EmptyOp::create(b, loc, ConvBuilder::dynamicType(3, element),
                                        ValueRange{n, filters, pixels});
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(element));
  // Per image, the pixels in chunks of kPointwiseChunk, each chunk's
  // product written into its columns of the image's rows of the sums.
  auto loop = scf::ForOp::create(
      b, loc, cb.index(0), n, cb.index(1), ValueRange{empty},
      [&](OpBuilder &ib, Location il, Value image, ValueRange carriedSums) {
        ConvBuilder perImage(ib, il);
        auto chunks = scf::ForOp::create(
            ib, il, perImage.index(0), pixels, perImage.index(kPointwiseChunk),
            ValueRange{carriedSums[0]},
            [&](OpBuilder &lb, Location l, Value first, ValueRange carried) {
              ConvBuilder in(lb, l);
              Value width = arith::MinUIOp::create(lb, l, in.index(kPointwiseChunk),
                                                   arith::SubIOp::create(lb, l, pixels, first));
              SmallVector<OpFoldResult> at = {image, lb.getIndexAttr(0), first};
              SmallVector<OpFoldResult> ones(3, lb.getIndexAttr(1));
              Value x = tensor::ExtractSliceOp::create(
                  lb, l, matrixType, images, at,
                  SmallVector<OpFoldResult>{lb.getIndexAttr(1), channels, width}, ones);
              SmallVector<OpFoldResult> rows = {lb.getIndexAttr(1), filters, width};
              Value sums =
                  tensor::ExtractSliceOp::create(lb, l, matrixType, carried[0], at, rows, ones);
              // (Zero filled, or each filter's row its bias, right before
              // the product: its tiles start from it.)
              Value init = bias ? rowsOf(in, sums, bias, element)
                                : linalg::FillOp::create(lb, l, zero, sums).getResult(0);
              Value product =
                  linalg::MatmulOp::create(lb, l, TypeRange{matrixType},
                                           ValueRange{weightMatrix, x}, ValueRange{init})
                      .getResult(0);
              scf::YieldOp::create(
                  lb, l,
                  tensor::InsertSliceOp::create(lb, l, product, carried[0], at, rows, ones)
                      .getResult());
            });
        // The chunks are independent: threads share them where the images
        // run on one thread (a batch of one image).
        chunks->setAttr(opal::ir::kParallelAttrName, ib.getUnitAttr());
        scf::YieldOp::create(ib, il, chunks.getResult(0));
      });
  // The images are independent: threads share them (opal-parallelize), each
  // image's product on one thread, with no fork per block of the product
  // and no rows left to one thread; a single image's chunks of pixels
  // split instead, each chunk's product on one thread.
  loop->setAttr(opal::ir::kParallelAttrName, b.getUnitAttr());
  return loop.getResult(0);
}

/// A pointwise prims.conv on the CPU: pointwiseConv where its images are
/// one or its planes hold at least two register tiles' rows of pixels
/// (kPointwisePixels), else im2col's one product over every image's
/// pixels (directConv of the input as [N, C, P] and the weight as [F, C,
/// 1]): per image, a product of few pixels leaves most of each tile's lanes
/// idle (RegNet's 5x5 planes at a batch of 16: 1.16 against 0.80 ms).
/// Chosen per call, as the sizes are arguments; each branch yields the
/// sums [N, F, P], read as [N, F, O...] after it, so that the result's
/// sizes are known without the branch (the kernel's shapes entry computes
/// them alone).
constexpr int64_t kPointwisePixels = 128;

Value pointwiseOrColumns(ConvBuilder &cb, Value input, Value weight, Type element,
                         Value bias) {
  int64_t spatial = cast<RankedTensorType>(input.getType()).getRank() - 2;
  Value n = cb.dim(input, 0);
  SmallVector<Value> extents = sizesOf(cb, input, 2, spatial);
  Value pixels = cb.product(extents);
  Value one = arith::CmpIOp::create(cb.b, cb.loc, arith::CmpIPredicate::eq, n, cb.index(1));
  Value wide = arith::CmpIOp::create(cb.b, cb.loc, arith::CmpIPredicate::sge, pixels,
                                     cb.index(kPointwisePixels));
  auto branch = scf::IfOp::create(
      cb.b, cb.loc, arith::OrIOp::create(cb.b, cb.loc, one, wide),
      [&](OpBuilder &b, Location l) {
        ConvBuilder in(b, l);
        scf::YieldOp::create(b, l, pointwiseConv(in, input, weight, element, bias));
      },
      [&](OpBuilder &b, Location l) {
        ConvBuilder in(b, l);
        // Zeros where the input has no channel (nothing to read), else the
        // columns read from the input where it is. (withAChannel's choice
        // of the input or zeros to read made bufferization copy the whole
        // input at every call.)
        Value channels = in.dim(input, 1), filterCount = in.dim(weight, 0);
        Value none = arith::CmpIOp::create(b, l, arith::CmpIPredicate::eq, channels, in.index(0));
        auto lineType = ConvBuilder::dynamicType(3, element);
        auto guarded = scf::IfOp::create(
            b, l, none,
            [&](OpBuilder &tb, Location tl) {
              ConvBuilder tin(tb, tl);
              Value zeros = tin.zeros({n, filterCount, pixels}, element);
              scf::YieldOp::create(tb, tl,
                                   bias ? plusRowBias(tin, zeros, bias, element) : zeros);
            },
            [&](OpBuilder &eb, Location el) {
              ConvBuilder ein(eb, el);
              Value images = ein.regrouped(input, {n, channels, pixels});
              Value filters =
                  ein.regrouped(weight, {filterCount, ein.dim(weight, 1), ein.index(1)});
              ConvParameters line;
              line.stride = {1};
              line.padding = {0};
              line.dilation = {1};
              Value result = directConv(ein, images, filters, line, element, true, true);
              if (result.getType() != lineType)
                result = tensor::CastOp::create(eb, el, lineType, result);
              if (bias)
                result = plusRowBias(ein, result, bias, element);
              scf::YieldOp::create(eb, el, result);
            });
        scf::YieldOp::create(b, l, guarded.getResult(0));
      });
  SmallVector<Value> resultSizes = {n, cb.dim(weight, 0)};
  llvm::append_range(resultSizes, extents);
  return cb.regrouped(branch.getResult(0), resultSizes);
}

/// Whether a convolution's shifted products would compute more than
/// kSmallPlaneWaste times the rows its outputs need (its padded plane, or
/// a strided one's phase planes, against the output plane): a value
/// computed per call, as the sizes are arguments.
constexpr int64_t kSmallPlaneWaste = 14; // tenths

Value smallPlanes(ConvBuilder &cb, const ConvParameters &p, const DirectSizes &d) {
  Value planeRows = cb.index(1), outputs = cb.index(1);
  for (size_t s = 0; s < p.stride.size(); ++s) {
    planeRows = cb.mul(planeRows, arith::CeilDivUIOp::create(
                                      cb.b, cb.loc, cb.add(d.extents[s], cb.index(2 * p.padding[s])),
                                      cb.index(p.stride[s])));
    outputs = cb.mul(outputs, d.out[s]);
  }
  return arith::CmpIOp::create(cb.b, cb.loc, arith::CmpIPredicate::sgt,
                               cb.mul(planeRows, cb.index(10)),
                               cb.mul(outputs, cb.index(kSmallPlaneWaste)));
}

/// prims.conv of several groups with few channels each (a depthwise
/// convolution: one): the input padded into [N, G, Cg, padded...] (a copy
/// of its size, zero around), then one generic over [N, G, Fg, Cg, K...,
/// O...] whose output loops are innermost: for each channel and kernel
/// position, a pass over a row of outputs that reads the padded input in
/// order (vectorizable), instead of columns and products of one channel.
Value groupedConv(ConvBuilder &cb, Value input, Value weight, const ConvParameters &p,
                  Type element, Value bias) {
  OpBuilder &b = cb.b;
  Location loc = cb.loc;
  int64_t spatial = static_cast<int64_t>(p.stride.size());
  Type accumulator = accumulatorFor(element);
  DirectSizes d = directSizes(cb, input, weight, p);
  Value groups = d.groups, n = d.n, cg = d.cg, fg = d.fg;
  ArrayRef<Value> kernel = d.kernel, out = d.out;

  // [N, G*Cg, padded...], seen as [N, G, Cg, padded...].
  SmallVector<Value> xSizes;
  Value padded = paddedPlanes(cb, input, p, d, accumulator, xSizes);
  SmallVector<ReassociationIndices> split = {{0}, {1, 2}};
  SmallVector<int64_t> splitShape = {ShapedType::kDynamic,
                                     p.runtimeGroups ? ShapedType::kDynamic : p.groups,
                                     ShapedType::kDynamic};
  SmallVector<OpFoldResult> splitSizes = {
      n, p.runtimeGroups ? OpFoldResult(groups) : OpFoldResult(b.getIndexAttr(p.groups)), cg};
  for (int64_t s = 0; s < spatial; ++s) {
    split.push_back({3 + s});
    splitShape.push_back(ShapedType::kDynamic);
    splitSizes.push_back(xSizes[2 + s]);
  }
  padded = tensor::ExpandShapeOp::create(b, loc, RankedTensorType::get(splitShape, accumulator),
                                         padded, split, splitSizes);
  // [G, Fg, Cg, K...] (weight[g*Fg + f, c, k...]).
  SmallVector<Value> wSizes = {groups, fg, cg};
  llvm::append_range(wSizes, kernel);
  Value weights = cb.tabulate(wSizes, accumulator, [&](OpBuilder &nb, Location l, ArrayRef<Value> at) {
    ConvBuilder in(nb, l);
    SmallVector<Value> coords = {in.add(in.mul(at[0], fg), at[1]), at[2]};
    llvm::append_range(coords, at.drop_front(3));
    return castFloat(nb, l, tensor::ExtractOp::create(nb, l, weight, coords), accumulator);
  });

  // Loops (n, g, f, c, k..., o...).
  int64_t loops = 4 + 2 * spatial;
  auto dim = [&](int64_t i) { return b.getAffineDimExpr(i); };
  SmallVector<AffineExpr> xMap = {dim(0), dim(1), dim(3)}, wMap = {dim(1), dim(2), dim(3)},
                          outMap = {dim(0), dim(1), dim(2)};
  for (int64_t s = 0; s < spatial; ++s) {
    AffineExpr k = dim(4 + s), o = dim(4 + spatial + s);
    xMap.push_back(o * p.stride[s] + k * p.dilation[s]);
    wMap.push_back(k);
    outMap.push_back(o);
  }
  SmallVector<utils::IteratorType> iterators(3, utils::IteratorType::parallel);
  iterators.append(1 + spatial, utils::IteratorType::reduction);
  iterators.append(spatial, utils::IteratorType::parallel);
  SmallVector<Value> sizes = {n, groups, fg};
  llvm::append_range(sizes, out);
  // The sums start from zero, or from the bias of their channel, g*Fg + f
  // (opal-tile-depthwise starts its tiles from it).
  Value init = bias ? cb.tabulate(sizes, accumulator,
                                  [&](OpBuilder &nb, Location l, ArrayRef<Value> at) {
                                    ConvBuilder in(nb, l);
                                    Value channel = in.add(in.mul(at[1], fg), at[2]);
                                    return castFloat(nb, l,
                                                     tensor::ExtractOp::create(nb, l, bias,
                                                                               channel),
                                                     accumulator);
                                  })
                    : cb.zeros(sizes, accumulator);
  Value sums =
      linalg::GenericOp::create(
          b, loc, TypeRange{init.getType()}, ValueRange{padded, weights}, ValueRange{init},
          SmallVector<AffineMap>{AffineMap::get(loops, 0, xMap, b.getContext()),
                                 AffineMap::get(loops, 0, wMap, b.getContext()),
                                 AffineMap::get(loops, 0, outMap, b.getContext())},
          iterators,
          [&](OpBuilder &nb, Location l, ValueRange args) {
            Value product = arith::MulFOp::create(nb, l, args[0], args[1]);
            linalg::YieldOp::create(nb, l, arith::AddFOp::create(nb, l, args[2], product).getResult());
          })
          .getResult(0);
  Value result = roundedTo(cb, sums, sizes, element);
  return mergeGroups(cb, result, spatial);
}

/// prims.conv_transpose (see the file comment).
Value transposedConv(ConvBuilder &cb, Value input, Value weight, const ConvParameters &p,
                     Type element) {
  OpBuilder &b = cb.b;
  Location loc = cb.loc;
  int64_t spatial = static_cast<int64_t>(p.stride.size());
  Type accumulator = accumulatorFor(element);
  Value groups = cb.index(p.groups);
  Value n = cb.dim(input, 0), fg = cb.dim(weight, 1), channels = cb.dim(input, 1);
  Value cg = arith::DivUIOp::create(b, loc, cb.dim(weight, 0), groups);
  SmallVector<Value> extents = sizesOf(cb, input, 2, spatial);
  SmallVector<Value> kernel = sizesOf(cb, weight, 2, spatial);
  SmallVector<Value> out;
  for (int64_t s = 0; s < spatial; ++s) {
    // (I - 1) s - 2p + d (K - 1) + output_padding + 1, at least 0.
    Value size = cb.add(
        cb.add(cb.mul(arith::SubIOp::create(b, loc, extents[s], cb.index(1)),
                      cb.index(p.stride[s])),
               cb.mul(arith::SubIOp::create(b, loc, kernel[s], cb.index(1)),
                      cb.index(p.dilation[s]))),
        cb.index(p.outputPadding[s] - 2 * p.padding[s] + 1));
    out.push_back(arith::MaxSIOp::create(b, loc, size, cb.index(0)));
  }

  // The weight as [G, Fg, K..., Cg] (weight[g*Cg + c, f, k...]).
  SmallVector<Value> weightSizes = {groups, fg};
  llvm::append_range(weightSizes, kernel);
  weightSizes.push_back(cg);
  Value weights = cb.tabulate(
      weightSizes, accumulator, [&](OpBuilder &nb, Location l, ArrayRef<Value> at) {
        ConvBuilder in(nb, l);
        SmallVector<Value> coords = {in.add(in.mul(at[0], cg), at[2 + spatial]), at[1]};
        llvm::append_range(coords, at.slice(2, spatial));
        Value v = tensor::ExtractOp::create(nb, l, weight, coords);
        return castFloat(nb, l, v, accumulator);
      });
  Value weightMatrix =
      cb.collapse(weights, SmallVector<unsigned>{1, static_cast<unsigned>(1 + spatial), 1});

  // The input as [G, Cg, N, I...] (input[n, g*Cg + c, i...]).
  SmallVector<Value> inputSizes = {groups, cg, n};
  llvm::append_range(inputSizes, extents);
  Value inputs = cb.tabulate(
      inputSizes, accumulator, [&](OpBuilder &nb, Location l, ArrayRef<Value> at) {
        ConvBuilder in(nb, l);
        Value channel = in.add(in.mul(at[0], cg), at[1]);
        SmallVector<Value> coords = {at[2], channel};
        llvm::append_range(coords, at.drop_front(3));
        // aten.convolution checks the channels before the call; a direct
        // prims.conv_transpose is still never read outside its input.
        Value inside =
            arith::CmpIOp::create(nb, l, arith::CmpIPredicate::ult, channel, channels);
        Value v = extractInside(nb, l, input, coords, inside, nb.getZeroAttr(element));
        return castFloat(nb, l, v, accumulator);
      });
  Value inputMatrix =
      cb.collapse(inputs, SmallVector<unsigned>{1, 1, static_cast<unsigned>(1 + spatial)});

  // Products [G, Fg*K..., N*I...].
  Value columns = cb.batchProduct(weightMatrix, inputMatrix, accumulator);
  SmallVector<Value> rowSizes = {fg}, columnSizes = {n};
  llvm::append_range(rowSizes, kernel);
  llvm::append_range(columnSizes, extents);

  // The result [N, G, Fg, O...]: loops (n, g, f, o..., k...) sum
  // columns[g, f, k..., n, (o + p - k d) / s...] where that is whole and
  // inside.
  SmallVector<Value> resultSizes = {n, groups, fg};
  llvm::append_range(resultSizes, out);
  Value result = cb.windowSum(
      resultSizes, kernel, accumulator, [&](OpBuilder &nb, Location l, ArrayRef<Value> at) {
        ConvBuilder in(nb, l);
        SmallVector<Value> row = {at[2]}, column = {at[0]};
        llvm::append_range(row, at.slice(3 + spatial, spatial));
        Value inside;
        for (int64_t s = 0; s < spatial; ++s) {
          Value o = at[3 + s], k = at[3 + spatial + s];
          Value shifted = arith::SubIOp::create(nb, l, in.add(o, in.index(p.padding[s])),
                                                in.mul(k, in.index(p.dilation[s])));
          Value stride = in.index(p.stride[s]);
          Value position = arith::DivSIOp::create(nb, l, shifted, stride);
          Value whole = arith::CmpIOp::create(
              nb, l, arith::CmpIPredicate::eq,
              arith::RemSIOp::create(nb, l, shifted, stride), in.index(0));
          Value nonNegative =
              arith::CmpIOp::create(nb, l, arith::CmpIPredicate::sge, shifted, in.index(0));
          Value within = arith::AndIOp::create(
              nb, l, arith::AndIOp::create(nb, l, whole, nonNegative),
              arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt, position, extents[s]));
          inside = inside ? arith::AndIOp::create(nb, l, inside, within).getResult() : within;
          column.push_back(position);
        }
        // (A position outside is never read: only its row-major number
        // is computed.)
        SmallVector<Value> coords = {at[1], linearized(in, row, rowSizes),
                                     linearized(in, column, columnSizes)};
        return extractInside(nb, l, columns, coords, inside, nb.getZeroAttr(accumulator));
      });
  result = roundedTo(cb, result, resultSizes, element);
  return mergeGroups(cb, result, spatial);
}

/// A float convolution of one group that the shifted products suit:
/// rowsConv where its planes are small, else shiftedConv, chosen per call
/// (the sizes are arguments). Each branch yields its sums channels last,
/// [N, O..., F] (a view of one type: a slice of a dense buffer), and one
/// transpose after the branch writes the result [N, F, O...]: its sizes
/// are then known without the branch (the kernel's shapes entry computes
/// them alone), and it writes the output's buffer (eliminate-empty-tensors
/// does not see through a branch's results).
Value smallOrLargePlanes(ConvBuilder &cb, Value input, Value weight, const ConvParameters &p,
                         Type element) {
  int64_t spatial = static_cast<int64_t>(p.stride.size());
  DirectSizes d = directSizes(cb, input, weight, p);
  auto branch = scf::IfOp::create(
      cb.b, cb.loc, smallPlanes(cb, p, d),
      [&](OpBuilder &b, Location l) {
        ConvBuilder in(b, l);
        scf::YieldOp::create(b, l, rowsConv(in, input, weight, p, element, true));
      },
      [&](OpBuilder &b, Location l) {
        ConvBuilder in(b, l);
        scf::YieldOp::create(b, l, shiftedConv(in, input, weight, p, element, true));
      });
  SmallVector<Value> sizes = {d.n, cb.dim(weight, 0)};
  llvm::append_range(sizes, d.out);
  Value empty =
      tensor::EmptyOp::create(cb.b, cb.loc, ConvBuilder::dynamicType(2 + spatial, element), sizes);
  SmallVector<int64_t> permutation = {0, 1 + spatial};
  for (int64_t s = 0; s < spatial; ++s)
    permutation.push_back(1 + s);
  return linalg::TransposeOp::create(cb.b, cb.loc, branch.getResult(0), empty, permutation)
      .getResult()[0];
}

/// How lowerConv builds a convolution.
enum class ConvPath { Transposed, SingleFilter, Pointwise, Planes, Shifted, Grouped, Direct };

ConvPath pathOf(Operation *op, const ConvParameters &parameters, Type element) {
  Value weight = op->getOperand(1);
  bool singleFilter = !parameters.transposed && parameters.groups == 1 &&
                      cast<RankedTensorType>(weight.getType()).getDimSize(0) == 1;
  bool shifted = op->hasAttr(kShiftedConvolutionAttr) && !singleFilter && suitsShiftedConv(op, parameters);
  // (CPU kernels: a grouped convolution the shifted products do not take.)
  bool grouped = op->hasAttr(kShiftedConvolutionAttr) && !parameters.transposed && !shifted &&
                 parameters.grouped() && isa<FloatType>(element);
  // (CPU kernels: a 1 x 1 convolution as products on views.)
  bool pointwise = op->hasAttr(kShiftedConvolutionAttr) && !singleFilter &&
                   isPointwise(op, parameters, element);
  return parameters.transposed ? ConvPath::Transposed
         : singleFilter        ? ConvPath::SingleFilter
         : pointwise           ? ConvPath::Pointwise
         : shifted && parameters.groups == 1 && accumulatorFor(element) == element
             ? ConvPath::Planes
         : shifted ? ConvPath::Shifted
         : grouped ? ConvPath::Grouped
                   : ConvPath::Direct;
}

/// The bias that prims.conv `op`'s reader adds along dim 1, as aten's
/// decomposition adds it (prims.add(conv, prims.broadcast_in_dim(bias,
/// sizes, [1])), bias 1-d of the result's element type, the sum of the
/// convolution's type), with that add; none if another op reads the
/// convolution but for its sizes.
std::optional<std::pair<Operation *, Value>> addedBias(Operation *op) {
  Value result = op->getResult(0);
  Operation *add = nullptr;
  for (Operation *user : result.getUsers()) {
    if (isa<tensor::DimOp>(user))
      continue;
    if (add || user->getName().getStringRef() != "prims.add" || user->getOperand(0) != result ||
        user->getResult(0).getType() != result.getType())
      return std::nullopt;
    add = user;
  }
  if (!add)
    return std::nullopt;
  Operation *broadcast = add->getOperand(1).getDefiningOp();
  if (!broadcast || broadcast->getName().getStringRef() != "prims.broadcast_in_dim")
    return std::nullopt;
  auto dims = constantIntList(broadcast->getOperand(2));
  auto biasType = dyn_cast<RankedTensorType>(broadcast->getOperand(0).getType());
  auto resultType = cast<RankedTensorType>(result.getType());
  if (!dims || *dims != SmallVector<int64_t>{1} || !biasType || biasType.getRank() != 1 ||
      biasType.getElementType() != resultType.getElementType())
    return std::nullopt;
  return std::make_pair(add, broadcast->getOperand(0));
}

LogicalResult lowerConv(Operation *op, PatternRewriter &rewriter) {
  ConvBuilder cb(rewriter, op->getLoc());
  Value input = op->getOperand(0), weight = op->getOperand(1);
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  ConvParameters parameters = *parametersOf(op);
  Type element = resultType.getElementType();
  std::optional<std::pair<Operation *, Value>> bias;
  if (op->hasAttr(kStartsFromBiasAttr)) {
    // (Marked by markConvolutionBiases, whose add and broadcast nothing
    // else lowers.)
    bias = addedBias(op);
    if (!bias)
      return rewriter.notifyMatchFailure(op, "internal error: the bias it starts from is gone");
  }
  Value result;
  switch (pathOf(op, parameters, element)) {
  case ConvPath::Transposed:
    result = transposedConv(cb, input, weight, parameters, element);
    break;
  case ConvPath::SingleFilter:
    result = singleFilterConv(cb, input, weight, parameters, element);
    break;
  case ConvPath::Pointwise:
    result = pointwiseOrColumns(cb, input, weight, element, bias ? bias->second : Value());
    break;
  case ConvPath::Planes:
    result = smallOrLargePlanes(cb, input, weight, parameters, element);
    break;
  case ConvPath::Shifted:
    result = shiftedConv(cb, input, weight, parameters, element);
    break;
  case ConvPath::Grouped:
    result = groupedConv(cb, input, weight, parameters, element,
                         bias ? bias->second : Value());
    break;
  case ConvPath::Direct:
    result = directConv(cb, input, weight, parameters, element,
                        op->hasAttr(kShiftedConvolutionAttr));
    break;
  }
  if (result.getType() != resultType)
    result = tensor::CastOp::create(rewriter, op->getLoc(), resultType, result);
  rewriter.replaceOp(op, result);
  if (bias) {
    // The sum is the convolution's result; its broadcast bias goes with it.
    Operation *broadcast = bias->first->getOperand(1).getDefiningOp();
    rewriter.replaceOp(bias->first, result);
    rewriter.eraseOp(broadcast);
  }
  return success();
}

} // namespace

void opal::ir::detail::markConvolutionBiases(Operation *root) {
  root->walk([](Operation *op) {
    if (op->getName().getStringRef() != "prims.conv" || !parametersOf(op))
      return;
    auto resultType = dyn_cast<RankedTensorType>(op->getResult(0).getType());
    if (!resultType || !convProblem(op).empty())
      return;
    Type element = resultType.getElementType();
    // (Float32 and float64: a 16-bit float's sum would add the bias in
    // float32 before rounding, where PyTorch rounds the products first.)
    ConvPath path = pathOf(op, *parametersOf(op), element);
    if (accumulatorFor(element) != element ||
        (path != ConvPath::Grouped && path != ConvPath::Pointwise))
      return;
    auto bias = addedBias(op);
    if (!bias)
      return;
    // (The add and its broadcast wait for the convolution's lowering, which
    // replaces the one and erases the other.)
    Operation *broadcast = bias->first->getOperand(1).getDefiningOp();
    if (!broadcast->hasOneUse())
      return;
    op->setAttr(kStartsFromBiasAttr, UnitAttr::get(op->getContext()));
    bias->first->setAttr(kLoweredByProducerAttr, UnitAttr::get(op->getContext()));
    broadcast->setAttr(kLoweredByProducerAttr, UnitAttr::get(op->getContext()));
  });
}

namespace {

std::string col2imProblem(Operation *op) {
  auto input = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  auto result = dyn_cast<RankedTensorType>(op->getResult(0).getType());
  if (!input || !result || input.getRank() != 3 || result.getRank() != 4 ||
      input.getElementType() != result.getElementType() ||
      !isa<FloatType>(input.getElementType()))
    return "needs a 3-d floating-point input and a 4-d result of its element type";
  auto size = shapeList(op->getOperand(1));
  if (!size || size->size() != 2)
    return "needs an output size list of two";
  for (unsigned i = 2; i < 6; ++i) {
    auto list = constantIntList(op->getOperand(i));
    if (!list || list->size() != 2)
      return "needs constant kernel_size, dilation, padding and stride lists of two";
    int64_t least = i == 4 ? 0 : 1; // padding may be 0
    if (llvm::any_of(*list, [&](int64_t v) { return v < least; }))
      return "needs positive kernel sizes, dilations and strides and non-negative paddings";
  }
  return "";
}

/// col2im: each output element sums, over the kernel positions in order,
/// the input element of the block that puts it there, if any.
LogicalResult lowerCol2im(Operation *op, PatternRewriter &rewriter) {
  ConvBuilder cb(rewriter, op->getLoc());
  OpBuilder &b = rewriter;
  Location loc = op->getLoc();
  Value input = op->getOperand(0);
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  Type element = resultType.getElementType();
  SmallVector<int64_t> kernel = *constantIntList(op->getOperand(2));
  SmallVector<int64_t> dilation = *constantIntList(op->getOperand(3));
  SmallVector<int64_t> padding = *constantIntList(op->getOperand(4));
  SmallVector<int64_t> stride = *constantIntList(op->getOperand(5));
  Operation *sizeList = op->getOperand(1).getDefiningOp();
  Value n = cb.dim(input, 0), rows = cb.dim(input, 1), length = cb.dim(input, 2);
  Value planes = arith::DivUIOp::create(b, loc, rows, cb.index(kernel[0] * kernel[1]));
  SmallVector<Value> out, blocks;
  for (int64_t s = 0; s < 2; ++s) {
    Value given = sizeList->getOperand(s);
    Value extent = given.getType().isIndex()
                       ? given
                       : arith::IndexCastOp::create(b, loc, b.getIndexType(), given).getResult();
    out.push_back(arith::MaxSIOp::create(b, loc, extent, cb.index(0)));
    // floor((H + 2p - d (k - 1) - 1) / s) + 1, as PyTorch's div_rtn.
    Value span =
        cb.add(extent, cb.index(2 * padding[s] - dilation[s] * (kernel[s] - 1) - 1));
    blocks.push_back(
        cb.add(arith::FloorDivSIOp::create(b, loc, span, cb.index(stride[s])), cb.index(1)));
  }
  // An input without blocks contributes nothing (and is never read).
  Value filled = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt, length, cb.index(0));
  // The padded image, large enough for every block's window and for the
  // image inside the padding; each kernel position adds its blocks' values
  // into a strided view of it (the pixels that position reaches: block b
  // at b s + k d), then the image is its interior. (Summed per output
  // pixel over the kernel positions, each whose block is whole and inside,
  // it cost a division and its checks per position and pixel: half of a
  // strided convolution's input gradient.)
  SmallVector<Value> reached, extents = {n, planes};
  for (int64_t s = 0; s < 2; ++s) {
    reached.push_back(arith::SelectOp::create(
        b, loc, filled, arith::MaxSIOp::create(b, loc, blocks[s], cb.index(0)), cb.index(0)));
    Value last = cb.add(cb.mul(arith::SubIOp::create(b, loc, reached[s], cb.index(1)),
                               cb.index(stride[s])),
                        cb.index(dilation[s] * (kernel[s] - 1) + 1));
    extents.push_back(
        arith::MaxSIOp::create(b, loc, cb.add(out[s], cb.index(2 * padding[s])), last));
  }
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(element));
  Value padded = linalg::FillOp::create(
                     b, loc, zero,
                     tensor::EmptyOp::create(b, loc, ConvBuilder::dynamicType(4, element), extents)
                         .getResult())
                     .getResult(0);
  Value lastColumn = arith::SubIOp::create(b, loc, length, cb.index(1));
  AffineMap identity = b.getMultiDimIdentityMap(4);
  for (int64_t ki = 0; ki < kernel[0]; ++ki) {
    for (int64_t kj = 0; kj < kernel[1]; ++kj) {
      SmallVector<OpFoldResult> offsets = {b.getIndexAttr(0), b.getIndexAttr(0),
                                           b.getIndexAttr(ki * dilation[0]),
                                           b.getIndexAttr(kj * dilation[1])};
      SmallVector<OpFoldResult> sizes = {n, planes, reached[0], reached[1]};
      SmallVector<OpFoldResult> steps = {b.getIndexAttr(1), b.getIndexAttr(1),
                                         b.getIndexAttr(stride[0]), b.getIndexAttr(stride[1])};
      Value reach = tensor::ExtractSliceOp::create(b, loc, padded, offsets, sizes, steps);
      int64_t position = ki * kernel[1] + kj;
      Value sum =
          linalg::GenericOp::create(
              b, loc, TypeRange{reach.getType()}, ValueRange{}, ValueRange{reach},
              SmallVector<AffineMap>{identity},
              SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
              [&](OpBuilder &nb, Location l, ValueRange args) {
                ConvBuilder in(nb, l);
                SmallVector<Value> at;
                for (unsigned d = 0; d < 4; ++d)
                  at.push_back(linalg::IndexOp::create(nb, l, d));
                Value row = in.add(in.mul(at[1], in.index(kernel[0] * kernel[1])),
                                   in.index(position));
                // (A block number past L, L not bh x bw, reads the last
                // column: a data check raises after the call.)
                Value column = arith::MinUIOp::create(
                    nb, l, in.add(in.mul(at[2], blocks[1]), at[3]), lastColumn);
                Value v = tensor::ExtractOp::create(nb, l, input, ValueRange{at[0], row, column});
                linalg::YieldOp::create(nb, l,
                                        arith::AddFOp::create(nb, l, args[0], v).getResult());
              })
              .getResult(0);
      padded = tensor::InsertSliceOp::create(b, loc, sum, padded, offsets, sizes, steps);
    }
  }
  SmallVector<OpFoldResult> interior = {b.getIndexAttr(0), b.getIndexAttr(0),
                                        b.getIndexAttr(padding[0]), b.getIndexAttr(padding[1])};
  SmallVector<OpFoldResult> imageSizes = {n, planes, out[0], out[1]};
  SmallVector<OpFoldResult> ones(4, b.getIndexAttr(1));
  Value result = tensor::ExtractSliceOp::create(b, loc, padded, interior, imageSizes, ones);
  if (result.getType() != resultType)
    result = tensor::CastOp::create(rewriter, loc, resultType, result);
  rewriter.replaceOp(op, result);
  return success();
}

} // namespace

const llvm::StringMap<PrimLowering> &opal::ir::detail::convolutionLowerings() {
  static const llvm::StringMap<PrimLowering> table = {
      {"prims.conv", {convProblem, lowerConv}},
      {"prims.conv_transpose", {convProblem, lowerConv}},
      {"prims.col2im", {col2imProblem, lowerCol2im}},
  };
  return table;
}
