//===- SegmentsToLinalg.cpp - Segment prims to linalg ---------------------===//
//
// prims.searchsorted finds where values fall among sorted boundaries: one
// linalg.generic over the values, each a binary search (scf.while) over
// the 1-d boundaries.
//
// prims.embedding_bag reduces rows of a [V, D] table over segments ("bags")
// of an index list: bag b takes indices[offsets[b] .. next offset or N).
// One generic over the [B, D] result loops over its bag (scf.for) in order,
// summing table[index, d] (times a per-index scale, in float32 for 16-bit
// tables) or keeping the first maximum and its index; indices equal to
// padding_idx are skipped. A second generic over [B] counts each bag's
// other indices. Nothing is read outside the table or the index list:
// offsets are clamped into [0, N] (non-decreasing), indices into the
// table (the aten op checks them after the call).
//
//===----------------------------------------------------------------------===//

#include "opal/Transforms/Passes.h"

#include "opal/Dialect/OpalOps.h"

#include "PrimUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

using namespace mlir;
using namespace opal::ir::detail;

namespace {

Value indexConstant(OpBuilder &b, Location l, int64_t v) {
  return arith::ConstantIndexOp::create(b, l, v);
}

/// An integer element as an index.
Value asIndex(OpBuilder &b, Location l, Value integer) {
  return arith::IndexCastOp::create(b, l, b.getIndexType(), integer);
}

std::string searchsortedProblem(Operation *op) {
  auto sorted = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  auto values = dyn_cast<RankedTensorType>(op->getOperand(1).getType());
  if (!sorted || !values || sorted.getRank() != 1)
    return "needs 1-d sorted boundaries and ranked values";
  if (sorted.getElementType() != values.getElementType() ||
      !isa<IntegerType>(sorted.getElementType()))
    return "needs integer boundaries and values of one element type";
  if (!constantInt(op->getOperand(2)))
    return "needs a constant `right`";
  return "";
}

/// For each value, the number of boundaries below it (`right`: at or
/// below it): a binary search over [0, n).
LogicalResult lowerSearchsorted(Operation *op, PatternRewriter &rewriter) {
  Location loc = op->getLoc();
  Value sorted = op->getOperand(0), values = op->getOperand(1);
  bool right = *constantInt(op->getOperand(2)) != 0;
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  auto valuesType = cast<RankedTensorType>(values.getType());
  SmallVector<Value> dynamic;
  for (int64_t d = 0; d < resultType.getRank(); ++d)
    if (resultType.isDynamicDim(d))
      dynamic.push_back(tensor::DimOp::create(rewriter, loc, values, d));
  Value count = tensor::DimOp::create(rewriter, loc, sorted, 0);
  Value init = tensor::EmptyOp::create(rewriter, loc, resultType.getShape(),
                                       resultType.getElementType(), dynamic);
  int64_t rank = valuesType.getRank();
  auto generic = linalg::GenericOp::create(
      rewriter, loc, TypeRange{resultType}, ValueRange{values}, ValueRange{init},
      SmallVector<AffineMap>(2, rewriter.getMultiDimIdentityMap(rank)),
      SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
      [&](OpBuilder &b, Location l, ValueRange args) {
        Value value = args[0];
        // [low, high): the answer lies in it.
        Value start = indexConstant(b, l, 0);
        auto loop = scf::WhileOp::create(
            b, l, TypeRange{b.getIndexType(), b.getIndexType()}, ValueRange{start, count},
            [&](OpBuilder &cb, Location cl, ValueRange bounds) {
              Value open = arith::CmpIOp::create(cb, cl, arith::CmpIPredicate::slt, bounds[0],
                                                 bounds[1]);
              scf::ConditionOp::create(cb, cl, open, bounds);
            },
            [&](OpBuilder &bb, Location bl, ValueRange bounds) {
              Value middle = arith::AddIOp::create(
                  bb, bl, bounds[0],
                  arith::ShRUIOp::create(bb, bl,
                                         arith::SubIOp::create(bb, bl, bounds[1], bounds[0]),
                                         indexConstant(bb, bl, 1)));
              Value boundary = tensor::ExtractOp::create(bb, bl, sorted, ValueRange{middle});
              Value below = arith::CmpIOp::create(
                  bb, bl, right ? arith::CmpIPredicate::sle : arith::CmpIPredicate::slt,
                  boundary, value);
              Value next = arith::AddIOp::create(bb, bl, middle, indexConstant(bb, bl, 1));
              scf::YieldOp::create(
                  bb, bl,
                  ValueRange{arith::SelectOp::create(bb, bl, below, next, bounds[0]),
                             arith::SelectOp::create(bb, bl, below, bounds[1], middle)});
            });
        Value found = arith::IndexCastOp::create(b, l, resultType.getElementType(),
                                                 loop.getResult(0));
        linalg::YieldOp::create(b, l, found);
      });
  rewriter.replaceOp(op, generic.getResults());
  return success();
}

/// The reduction of prims.embedding_bag ("sum" or "max"), from its
/// operand 5 (an opal.str).
std::optional<bool> isMax(Operation *op) {
  auto text = op->getOperand(5).getDefiningOp<opal::ir::StrOp>();
  if (!text || (text.getValue() != "sum" && text.getValue() != "max"))
    return std::nullopt;
  return text.getValue() == "max";
}

std::string embeddingBagProblem(Operation *op) {
  auto table = dyn_cast<RankedTensorType>(op->getOperand(0).getType());
  auto indices = dyn_cast<RankedTensorType>(op->getOperand(1).getType());
  auto offsets = dyn_cast<RankedTensorType>(op->getOperand(2).getType());
  auto scale = dyn_cast<RankedTensorType>(op->getOperand(3).getType());
  if (!table || !indices || !offsets || !scale || table.getRank() != 2 ||
      indices.getRank() != 1 || offsets.getRank() != 1 || scale.getRank() > 1)
    return "needs a 2-d table, 1-d indices and offsets and a 0-d or 1-d scale";
  if (!isa<FloatType>(table.getElementType()) || scale.getElementType() != table.getElementType())
    return "needs a floating-point table and a scale of its element type";
  if (!isa<IntegerType>(indices.getElementType()) ||
      offsets.getElementType() != indices.getElementType())
    return "needs integer indices and offsets of one element type";
  if (!constantInt(op->getOperand(4)) || !constantInt(op->getOperand(6)))
    return "needs a constant padding_idx and include_last_offset";
  if (!isMax(op))
    return "needs a constant reduce of \"sum\" or \"max\"";
  return "";
}

LogicalResult lowerEmbeddingBag(Operation *op, PatternRewriter &rewriter) {
  Location loc = op->getLoc();
  OpBuilder &b = rewriter;
  Value table = op->getOperand(0), indices = op->getOperand(1), offsets = op->getOperand(2);
  Value scale = op->getOperand(3);
  int64_t paddingIdx = *constantInt(op->getOperand(4));
  bool max = *isMax(op);
  bool includeLast = *constantInt(op->getOperand(6)) != 0;
  bool scaled = cast<RankedTensorType>(scale.getType()).getRank() == 1;
  auto valuesType = cast<RankedTensorType>(op->getResult(0).getType());
  auto argmaxType = cast<RankedTensorType>(op->getResult(1).getType());
  auto countsType = cast<RankedTensorType>(op->getResult(2).getType());
  Type element = valuesType.getElementType();
  Type indexElement = argmaxType.getElementType();
  Type accumulator = !max && element.getIntOrFloatBitWidth() < 32 ? Type(b.getF32Type())
                                                                   : element;

  Value rows = tensor::DimOp::create(b, loc, table, 0);
  Value width = tensor::DimOp::create(b, loc, table, 1);
  Value length = tensor::DimOp::create(b, loc, indices, 0);
  Value given = tensor::DimOp::create(b, loc, offsets, 0);
  Value bags = includeLast ? arith::MaxSIOp::create(
                                 b, loc, arith::SubIOp::create(b, loc, given, indexConstant(b, loc, 1)),
                                 indexConstant(b, loc, 0))
                                 .getResult()
                           : given;
  Value lastRow = arith::SubIOp::create(b, loc, rows, indexConstant(b, loc, 1));
  // Bag b: [offsets[b], offsets[b + 1] or N), clamped into [0, N] and
  // non-decreasing.
  auto bagBounds = [&](OpBuilder &nb, Location l, Value bag) -> std::pair<Value, Value> {
    auto offsetAt = [&](Value i) {
      Value v = asIndex(nb, l, tensor::ExtractOp::create(nb, l, offsets, ValueRange{i}));
      return arith::MinSIOp::create(
                 nb, l, arith::MaxSIOp::create(nb, l, v, indexConstant(nb, l, 0)), length)
          .getResult();
    };
    Value start = offsetAt(bag);
    Value next = arith::AddIOp::create(nb, l, bag, indexConstant(nb, l, 1));
    Value hasNext = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt, next, given);
    Value end = scf::IfOp::create(
                    nb, l, hasNext,
                    [&](OpBuilder &tb, Location tl) {
                      scf::YieldOp::create(tb, tl, offsetAt(next));
                    },
                    [&](OpBuilder &eb, Location el) { scf::YieldOp::create(eb, el, length); })
                    .getResult(0);
    end = arith::MaxSIOp::create(nb, l, end, start);
    // An empty table has no row to read: no bag reads one.
    Value filled = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::sgt, rows,
                                         indexConstant(nb, l, 0));
    end = arith::SelectOp::create(nb, l, filled, end, start);
    return {start, end};
  };
  auto isPadding = [&](OpBuilder &nb, Location l, Value index) {
    Value padding = arith::ConstantOp::create(nb, l, nb.getIntegerAttr(indexElement, paddingIdx));
    return arith::CmpIOp::create(nb, l, arith::CmpIPredicate::eq, index, padding).getResult();
  };

  SmallVector<Value> dynamic;
  if (valuesType.isDynamicDim(0))
    dynamic.push_back(bags);
  SmallVector<Value> dynamic2 = dynamic;
  if (valuesType.isDynamicDim(1))
    dynamic2.push_back(width);
  Value valuesInit = tensor::EmptyOp::create(b, loc, valuesType.getShape(), element, dynamic2);
  Value argmaxInit = tensor::EmptyOp::create(b, loc, argmaxType.getShape(), indexElement, dynamic2);
  auto reduced = linalg::GenericOp::create(
      b, loc, TypeRange{valuesType, argmaxType}, ValueRange{}, ValueRange{valuesInit, argmaxInit},
      SmallVector<AffineMap>(2, b.getMultiDimIdentityMap(2)),
      SmallVector<utils::IteratorType>(2, utils::IteratorType::parallel),
      [&](OpBuilder &nb, Location l, ValueRange) {
        Value bag = linalg::IndexOp::create(nb, l, 0), d = linalg::IndexOp::create(nb, l, 1);
        auto [start, end] = bagBounds(nb, l, bag);
        Value zero = arith::ConstantOp::create(nb, l, nb.getZeroAttr(accumulator));
        Value noIndex = arith::ConstantOp::create(nb, l, nb.getZeroAttr(indexElement));
        Value none = arith::ConstantOp::create(nb, l, nb.getBoolAttr(false));
        auto loop = scf::ForOp::create(
            nb, l, start, end, indexConstant(nb, l, 1), ValueRange{zero, noIndex, none},
            [&](OpBuilder &lb, Location ll, Value i, ValueRange carried) {
              Value index = tensor::ExtractOp::create(lb, ll, indices, ValueRange{i});
              Value row = arith::MinSIOp::create(
                  lb, ll, arith::MaxSIOp::create(lb, ll, asIndex(lb, ll, index),
                                                 indexConstant(lb, ll, 0)),
                  lastRow);
              Value x = tensor::ExtractOp::create(lb, ll, table, ValueRange{row, d});
              Value skip = isPadding(lb, ll, index);
              SmallVector<Value> next;
              if (max) {
                // The first maximum wins (NaN never replaces a value).
                Value greater =
                    arith::CmpFOp::create(lb, ll, arith::CmpFPredicate::OGT, x, carried[0]);
                // take = !skip && (!seen || greater)
                Value yes = arith::ConstantOp::create(lb, ll, lb.getBoolAttr(true));
                Value no = arith::ConstantOp::create(lb, ll, lb.getBoolAttr(false));
                Value replaces = arith::SelectOp::create(lb, ll, carried[2], greater, yes);
                Value take = arith::SelectOp::create(lb, ll, skip, no, replaces);
                next = {arith::SelectOp::create(lb, ll, take, x, carried[0]),
                        arith::SelectOp::create(lb, ll, take, index, carried[1]),
                        arith::OrIOp::create(lb, ll, carried[2], take)};
              } else {
                Value term = convertScalar(lb, ll, x, accumulator);
                if (scaled) {
                  Value factor = tensor::ExtractOp::create(lb, ll, scale, ValueRange{i});
                  term = arith::MulFOp::create(lb, ll, term,
                                               convertScalar(lb, ll, factor, accumulator));
                }
                Value sum = arith::AddFOp::create(lb, ll, carried[0], term);
                next = {arith::SelectOp::create(lb, ll, skip, carried[0], sum), carried[1],
                        carried[2]};
              }
              scf::YieldOp::create(lb, ll, next);
            });
        linalg::YieldOp::create(
            nb, l, ValueRange{convertScalar(nb, l, loop.getResult(0), element), loop.getResult(1)});
      });

  Value countsInit =
      tensor::EmptyOp::create(b, loc, countsType.getShape(), indexElement, dynamic);
  auto counted = linalg::GenericOp::create(
      b, loc, TypeRange{countsType}, ValueRange{}, ValueRange{countsInit},
      SmallVector<AffineMap>{b.getMultiDimIdentityMap(1)},
      SmallVector<utils::IteratorType>{utils::IteratorType::parallel},
      [&](OpBuilder &nb, Location l, ValueRange) {
        Value bag = linalg::IndexOp::create(nb, l, 0);
        auto [start, end] = bagBounds(nb, l, bag);
        Value zero = arith::ConstantOp::create(nb, l, nb.getZeroAttr(indexElement));
        Value one = arith::ConstantOp::create(nb, l, nb.getIntegerAttr(indexElement, 1));
        auto loop = scf::ForOp::create(
            nb, l, start, end, indexConstant(nb, l, 1), ValueRange{zero},
            [&](OpBuilder &lb, Location ll, Value i, ValueRange carried) {
              Value index = tensor::ExtractOp::create(lb, ll, indices, ValueRange{i});
              Value counted = arith::AddIOp::create(lb, ll, carried[0], one);
              scf::YieldOp::create(lb, ll,
                                   ValueRange{arith::SelectOp::create(
                                       lb, ll, isPadding(lb, ll, index), carried[0], counted)});
            });
        linalg::YieldOp::create(nb, l, loop.getResult(0));
      });
  rewriter.replaceOp(op, ValueRange{reduced.getResult(0), reduced.getResult(1),
                                    counted.getResult(0)});
  return success();
}

} // namespace

const llvm::StringMap<PrimLowering> &opal::ir::detail::segmentLowerings() {
  static const llvm::StringMap<PrimLowering> table = {
      {"prims.searchsorted", {searchsortedProblem, lowerSearchsorted}},
      {"prims.embedding_bag", {embeddingBagProblem, lowerEmbeddingBag}},
  };
  return table;
}
