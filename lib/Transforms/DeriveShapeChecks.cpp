//===- DeriveShapeChecks.cpp - The opal-derive-shape-checks pass ----------===//
//
// The size constraints a kernel's IR assumes, derived from its structured
// ops rather than written per op: built-in ops and users' decompositions
// get the same checks (docs/jit.md, "Checked calls").
//
//===----------------------------------------------------------------------===//

#include "opal/Transforms/Passes.h"

#include "opal/Dialect/OpalOps.h"
#include "opal/JIT/CompiledKernel.h"

#include "PrimUtils.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"

#include <map>
#include <optional>

namespace opal::ir {
#define GEN_PASS_DEF_OPALDERIVESHAPECHECKS
#include "opal/Transforms/Passes.h.inc"
} // namespace opal::ir

using namespace mlir;
using opal::jit::ShapeCheck;
using opal::jit::SizeRef;
using opal::ir::detail::opNameOf;

namespace {

constexpr int kMaxTraceDepth = 64;

SizeRef constantSize(int64_t value) {
  SizeRef size;
  size.constant = true;
  size.value = value;
  return size;
}

/// Where the value of an index comes from: a constant or a dim of an
/// argument of `function`.
std::optional<SizeRef> traceIndex(Value index, func::FuncOp function, int depth);
/// The traced sizes of `value` at `dims`; empty if one cannot be traced.
std::vector<SizeRef> tracedShape(Value value, ArrayRef<int64_t> dims, func::FuncOp function);

/// Where dim `d` of the tensor `value` comes from.
std::optional<SizeRef> traceDim(Value value, int64_t d, func::FuncOp function, int depth) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  if (!type || d < 0 || d >= type.getRank() || depth > kMaxTraceDepth)
    return std::nullopt;
  Operation *def = value.getDefiningOp();
  // A cast to a static size assumes the source has it: the source's size
  // is what a check must compare.
  if (auto cast = dyn_cast_or_null<tensor::CastOp>(def))
    return traceDim(cast.getSource(), d, function, depth + 1);
  if (!type.isDynamicDim(d))
    return constantSize(type.getDimSize(d));
  if (auto argument = dyn_cast<BlockArgument>(value)) {
    if (argument.getOwner() != &function.getBody().front())
      return std::nullopt;
    SizeRef size;
    size.argument = argument.getArgNumber();
    size.dim = static_cast<uint32_t>(d);
    return size;
  }
  if (auto empty = dyn_cast_or_null<tensor::EmptyOp>(def))
    return traceIndex(empty.getDynamicSize(d), function, depth + 1);
  // A collapsed dim whose group has one dim not statically 1 is that dim.
  if (auto collapse = dyn_cast_or_null<tensor::CollapseShapeOp>(def)) {
    RankedTensorType source = collapse.getSrcType();
    std::optional<int64_t> only;
    // (A local: ranging over a member of the temporary would read freed
    // memory.)
    SmallVector<ReassociationIndices, 4> groups = collapse.getReassociationIndices();
    for (int64_t s : groups[d]) {
      if (source.getDimSize(s) == 1)
        continue;
      if (only)
        return std::nullopt;
      only = s;
    }
    return only ? traceDim(collapse.getSrc(), *only, function, depth + 1) : std::nullopt;
  }
  if (auto expand = dyn_cast_or_null<tensor::ExpandShapeOp>(def)) {
    SmallVector<OpFoldResult> sizes = expand.getMixedOutputShape();
    if (auto value = dyn_cast<Value>(sizes[d]))
      return traceIndex(value, function, depth + 1);
    return std::nullopt;
  }
  if (auto reshape = dyn_cast_or_null<tensor::ReshapeOp>(def))
    if (auto sizes = reshape.getShape().getDefiningOp<tensor::FromElementsOp>())
      return traceIndex(sizes.getElements()[d], function, depth + 1);
  if (auto destination = dyn_cast_or_null<DestinationStyleOpInterface>(def)) {
    auto result = cast<OpResult>(value);
    if (result.getResultNumber() < destination.getNumDpsInits())
      return traceDim(destination.getDpsInitOperand(result.getResultNumber())->get(), d, function,
                      depth + 1);
  }
  return std::nullopt;
}

std::optional<SizeRef> traceIndex(Value index, func::FuncOp function, int depth) {
  if (std::optional<int64_t> value = getConstantIntValue(index))
    return constantSize(*value);
  // Shape lists hold sizes as i64: index -> i64 -> index.
  if (auto cast = index.getDefiningOp<arith::IndexCastOp>())
    return depth > kMaxTraceDepth ? std::nullopt : traceIndex(cast.getIn(), function, depth + 1);
  if (auto dim = index.getDefiningOp<tensor::DimOp>()) {
    std::optional<int64_t> d = dim.getConstantIndex();
    if (!d)
      return std::nullopt;
    return traceDim(dim.getSource(), *d, function, depth + 1);
  }
  // A runtime int the kernel takes (a convolution's groups): its value.
  if (auto argument = dyn_cast<BlockArgument>(index);
      argument && argument.getOwner() == &function.getBody().front() &&
      argument.getType().isInteger(64)) {
    SizeRef size;
    size.argument = argument.getArgNumber();
    size.dim = SizeRef::kArgumentValue;
    return size;
  }
  return std::nullopt;
}

/// The value of `value` if arith computes it from constants alone (sizes
/// computed from static ones before anything folded them).
std::optional<int64_t> foldedConstant(Value value, int depth) {
  if (std::optional<int64_t> constant = getConstantIntValue(value))
    return constant;
  Operation *def = value.getDefiningOp();
  if (!def || depth > kMaxTraceDepth)
    return std::nullopt;
  if (auto cast = dyn_cast<arith::IndexCastOp>(def))
    return foldedConstant(cast.getIn(), depth + 1);
  if (def->getNumOperands() != 2 || def->getDialect()->getNamespace() != "arith")
    return std::nullopt;
  std::optional<int64_t> a = foldedConstant(def->getOperand(0), depth + 1);
  std::optional<int64_t> b = a ? foldedConstant(def->getOperand(1), depth + 1) : std::nullopt;
  if (!b)
    return std::nullopt;
  return llvm::TypeSwitch<Operation *, std::optional<int64_t>>(def)
      .Case([&](arith::AddIOp) { return *a + *b; })
      .Case([&](arith::SubIOp) { return *a - *b; })
      .Case([&](arith::MulIOp) { return *a * *b; })
      .Case([&](arith::MaxSIOp) { return std::max(*a, *b); })
      .Case([&](arith::MinSIOp) { return std::min(*a, *b); })
      .Case([&](arith::DivSIOp) -> std::optional<int64_t> {
        if (*b == 0)
          return std::nullopt;
        return *a / *b;
      })
      .Case([&](arith::FloorDivSIOp) -> std::optional<int64_t> {
        if (*b == 0)
          return std::nullopt;
        int64_t q = *a / *b;
        return (*a % *b != 0 && ((*a < 0) != (*b < 0))) ? q - 1 : q;
      })
      .Default([](Operation *) { return std::nullopt; });
}

std::optional<std::vector<SizeRef>> traceFactors(Value value, func::FuncOp function, int depth);

/// The sizes whose product dim `d` of the tensor `value` is (a reshape's
/// result has products of its input's sizes), or nullopt.
std::optional<std::vector<SizeRef>> traceDimFactors(Value value, int64_t d,
                                                    func::FuncOp function, int depth) {
  if (depth > kMaxTraceDepth)
    return std::nullopt;
  if (std::optional<SizeRef> size = traceDim(value, d, function, depth))
    return std::vector<SizeRef>{*size};
  Operation *def = value.getDefiningOp();
  if (auto cast = dyn_cast_or_null<tensor::CastOp>(def))
    return traceDimFactors(cast.getSource(), d, function, depth + 1);
  if (auto empty = dyn_cast_or_null<tensor::EmptyOp>(def))
    return traceFactors(empty.getDynamicSize(d), function, depth + 1);
  if (auto reshape = dyn_cast_or_null<tensor::ReshapeOp>(def))
    if (auto sizes = reshape.getShape().getDefiningOp<tensor::FromElementsOp>())
      return traceFactors(sizes.getElements()[d], function, depth + 1);
  if (auto destination = dyn_cast_or_null<DestinationStyleOpInterface>(def)) {
    auto result = cast<OpResult>(value);
    if (result.getResultNumber() < destination.getNumDpsInits())
      return traceDimFactors(destination.getDpsInitOperand(result.getResultNumber())->get(), d,
                             function, depth + 1);
  }
  return std::nullopt;
}

/// The sizes whose product `value` is (a size, or arith.muli of sizes), or
/// nullopt where one cannot be traced.
std::optional<std::vector<SizeRef>> traceFactors(Value value, func::FuncOp function, int depth) {
  if (depth > kMaxTraceDepth)
    return std::nullopt;
  if (std::optional<int64_t> constant = foldedConstant(value, depth))
    return std::vector<SizeRef>{constantSize(*constant)};
  if (auto cast = value.getDefiningOp<arith::IndexCastOp>())
    return traceFactors(cast.getIn(), function, depth + 1);
  if (auto dim = value.getDefiningOp<tensor::DimOp>())
    if (std::optional<int64_t> d = dim.getConstantIndex())
      return traceDimFactors(dim.getSource(), *d, function, depth + 1);
  if (auto product = value.getDefiningOp<arith::MulIOp>()) {
    auto lhs = traceFactors(product.getLhs(), function, depth + 1);
    auto rhs = traceFactors(product.getRhs(), function, depth + 1);
    if (!lhs || !rhs)
      return std::nullopt;
    lhs->insert(lhs->end(), rhs->begin(), rhs->end());
    return lhs;
  }
  std::optional<SizeRef> size = traceIndex(value, function, depth + 1);
  if (!size)
    return std::nullopt;
  return std::vector<SizeRef>{*size};
}

/// The known sizes' product that `value` divides the element count by, if
/// it is the size infer_shape computes for a -1 (the count over
/// max(product, 1), maybe folded), else null.
Value inferredDivisor(Value value) {
  while (auto cast = value.getDefiningOp<arith::IndexCastOp>())
    value = cast.getIn();
  auto quotient = value.getDefiningOp<arith::DivSIOp>();
  if (!quotient)
    return nullptr;
  Value divisor = quotient.getRhs();
  if (auto atLeastOne = divisor.getDefiningOp<arith::MaxSIOp>())
    return getConstantIntValue(atLeastOne.getRhs()) == 1 ? atLeastOne.getLhs() : nullptr;
  std::optional<int64_t> constant = getConstantIntValue(divisor);
  return constant && *constant > 0 ? divisor : nullptr;
}

/// The element-count check of a reshape whose sizes are known per call (see
/// ShapeCheck::Kind::Numel), nullopt when none is needed, or failure with
/// the error emitted when a size cannot be traced to the call's arguments
/// (the kernel is then compiled per shape).
FailureOr<std::optional<ShapeCheck>> reshapeCheck(tensor::ReshapeOp op,
                                                  func::FuncOp function) {
  auto source = cast<RankedTensorType>(op.getSource().getType());
  // (tensor.reshape's verifier compares static element counts.)
  if (source.hasStaticShape() && op.getResult().getType().hasStaticShape())
    return std::optional<ShapeCheck>();
  if (op->hasAttr(opal::ir::detail::kRegroupedReshapeAttr))
    return std::optional<ShapeCheck>();
  auto untraceable = [&](StringRef what) {
    return op.emitOpError() << "cannot be checked before the call: " << what
                            << " is not computed from the sizes of the function's arguments";
  };
  // The sizes asked for: values, or the constants they folded to.
  SmallVector<OpFoldResult> sizes;
  DenseIntElementsAttr constants;
  if (auto elements = op.getShape().getDefiningOp<tensor::FromElementsOp>())
    sizes = getAsOpFoldResult(elements.getElements());
  else if (matchPattern(op.getShape(), m_Constant(&constants)))
    for (const APInt &size : constants.getValues<APInt>())
      sizes.push_back(Builder(op.getContext()).getIndexAttr(size.getSExtValue()));
  else
    return untraceable("its shape");
  ShapeCheck check;
  check.kind = ShapeCheck::Kind::Numel;
  check.op = opNameOf(op.getLoc());
  if (check.op.empty())
    check.op = function.getSymName().str();
  check.lhs = check.rhs = constantSize(0);
  for (int64_t d = 0; d < source.getRank(); ++d) {
    std::optional<std::vector<SizeRef>> factors =
        traceDimFactors(op.getSource(), d, function, 0);
    if (!factors)
      return untraceable("the input's shape");
    check.lhsShape.insert(check.lhsShape.end(), factors->begin(), factors->end());
  }
  for (OpFoldResult item : sizes) {
    std::optional<std::vector<SizeRef>> factors;
    if (std::optional<int64_t> constant = getConstantIntValue(item)) {
      factors = std::vector<SizeRef>{constantSize(*constant)};
    } else if (inferredDivisor(cast<Value>(item))) {
      // (The -1's divisor is the product of the other sizes.)
      check.kind = ShapeCheck::Kind::NumelDivides;
      check.values.push_back({constantSize(-1)});
      continue;
    } else {
      factors = traceFactors(cast<Value>(item), function, 0);
    }
    if (!factors)
      return untraceable("a size");
    check.rhsShape.insert(check.rhsShape.end(), factors->begin(), factors->end());
    check.values.push_back(std::move(*factors));
  }
  return std::optional<ShapeCheck>(std::move(check));
}

/// The traced sizes of `value` at `dims`; empty if one cannot be traced.
std::vector<SizeRef> tracedShape(Value value, ArrayRef<int64_t> dims, func::FuncOp function) {
  std::vector<SizeRef> shape;
  for (int64_t d : dims) {
    std::optional<SizeRef> size = traceDim(value, d, function, 0);
    if (!size)
      return {};
    shape.push_back(*size);
  }
  return shape;
}

/// Gives a check of a matrix product its kind and the shapes its message
/// shows; leaves it a broadcast check when a shape cannot be traced.
void classifyProduct(linalg::LinalgOp op, unsigned loopDim, ShapeCheck &check,
                     func::FuncOp function) {
  Value a = op.getDpsInputOperand(0)->get(), b = op.getDpsInputOperand(1)->get();
  std::vector<SizeRef> lhs, rhs;
  ShapeCheck::Kind kind;
  // The operand's dims that the loops index, in the loops' order: an
  // operand read through transposed maps (linear's weight) shows the shape
  // it has in the product.
  auto dimsOf = [&](unsigned operand, ArrayRef<unsigned> loops) {
    AffineMap map = op.getIndexingMapsArray()[operand];
    std::vector<int64_t> dims;
    for (unsigned loop : loops)
      for (unsigned r = 0; r < map.getNumResults(); ++r)
        if (map.getResult(r) == getAffineDimExpr(loop, op.getContext()))
          dims.push_back(r);
    return dims;
  };
  if (isa<linalg::MatmulOp>(op)) {
    if (loopDim != 2) // the contracted dim (m, n, k)
      return;
    kind = ShapeCheck::Kind::Matmul;
    lhs = tracedShape(a, dimsOf(0, {0, 2}), function);
    rhs = tracedShape(b, dimsOf(1, {2, 1}), function);
  } else {
    if (loopDim != 0 && loopDim != 3) // batch and contracted dims (b, m, n, k)
      return;
    kind = ShapeCheck::Kind::Batch;
    lhs = tracedShape(a, dimsOf(0, {0, 3}), function);
    rhs = tracedShape(b, dimsOf(1, {0, 3}), function);
  }
  if (lhs.empty() || rhs.empty())
    return;
  check.kind = kind;
  check.lhsShape = std::move(lhs);
  check.rhsShape = std::move(rhs);
}

/// The relation of a comparison of sizes (which are never negative, so
/// unsigned predicates compare as signed ones).
std::optional<ShapeCheck::Relation> relationOf(arith::CmpIPredicate predicate) {
  using P = arith::CmpIPredicate;
  using R = ShapeCheck::Relation;
  switch (predicate) {
  case P::eq: return R::Eq;
  case P::ne: return R::Ne;
  case P::slt: case P::ult: return R::Lt;
  case P::sle: case P::ule: return R::Le;
  case P::sgt: case P::ugt: return R::Gt;
  case P::sge: case P::uge: return R::Ge;
  }
  return std::nullopt;
}

/// Appends the comparisons whose conjunction is `condition` to `checks`
/// (each a copy of `prototype`); false where the condition is not made of
/// `arith.andi` and `arith.cmpi` of traceable sizes.
bool comparisonsOf(Value condition, func::FuncOp function, const ShapeCheck &prototype,
                   std::vector<ShapeCheck> &checks, int depth) {
  if (depth > kMaxTraceDepth)
    return false;
  if (std::optional<int64_t> constant = getConstantIntValue(condition)) {
    if (*constant)
      return true;
    // Known to fail: a check no call passes.
    ShapeCheck check = prototype;
    check.lhs = constantSize(0);
    check.rhs = constantSize(1);
    checks.push_back(std::move(check));
    return true;
  }
  if (auto both = condition.getDefiningOp<arith::AndIOp>())
    return comparisonsOf(both.getLhs(), function, prototype, checks, depth + 1) &&
           comparisonsOf(both.getRhs(), function, prototype, checks, depth + 1);
  auto compare = condition.getDefiningOp<arith::CmpIOp>();
  if (!compare)
    return false;
  std::optional<ShapeCheck::Relation> relation = relationOf(compare.getPredicate());
  std::optional<SizeRef> lhs = traceIndex(compare.getLhs(), function, depth + 1);
  std::optional<SizeRef> rhs = traceIndex(compare.getRhs(), function, depth + 1);
  if (!relation || !lhs || !rhs)
    return false;
  ShapeCheck check = prototype;
  check.relation = *relation;
  check.lhs = *lhs;
  check.rhs = *rhs;
  checks.push_back(std::move(check));
  return true;
}

/// The checks of an opal.assert (an op's own opal.check), or failure with
/// the error emitted.
LogicalResult deriveAssert(opal::ir::AssertOp op, func::FuncOp function,
                           std::vector<ShapeCheck> &checks) {
  ShapeCheck prototype;
  prototype.kind = ShapeCheck::Kind::Expect;
  prototype.op = opNameOf(op.getLoc());
  if (prototype.op.empty())
    prototype.op = function.getSymName().str();
  prototype.message = op.getMessage().str();
  ValueRange values = op.getValues();
  for (int32_t count : op.getGroups()) {
    std::vector<SizeRef> group;
    for (Value value : values.take_front(count)) {
      std::optional<SizeRef> size = traceIndex(value, function, 0);
      if (!size)
        return op.emitOpError() << "cannot be checked before the call: a value of its message "
                              << "is not a size of the function's arguments";
      group.push_back(*size);
    }
    values = values.drop_front(count);
    prototype.values.push_back(std::move(group));
  }
  if (!comparisonsOf(op.getCondition(), function, prototype, checks, 0))
    return op.emitOpError() << "cannot be checked before the call: its condition is not made of "
                          << "comparisons (arith.cmpi, arith.andi) of sizes of the function's "
                          << "arguments";
  return success();
}

struct DeriveShapeChecks
    : public opal::ir::impl::OpalDeriveShapeChecksBase<DeriveShapeChecks> {
  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (function.isExternal())
      return;
    std::vector<ShapeCheck> checks;
    // An op's own checks come first, as its definition makes them before
    // computing anything.
    SmallVector<opal::ir::AssertOp> asserts;
    function.walk([&](opal::ir::AssertOp op) { asserts.push_back(op); });
    for (opal::ir::AssertOp op : asserts) {
      if (failed(deriveAssert(op, function, checks)))
        return signalPassFailure();
      op.erase();
    }
    // A reshape's sizes must hold its input's elements before anything
    // reads them.
    WalkResult reshapes = function.walk([&](tensor::ReshapeOp op) {
      FailureOr<std::optional<ShapeCheck>> check = reshapeCheck(op, function);
      if (failed(check))
        return WalkResult::interrupt();
      if (*check)
        checks.push_back(std::move(**check));
      return WalkResult::advance();
    });
    if (reshapes.wasInterrupted())
      return signalPassFailure();
    auto known = [&](const SizeRef &x, const SizeRef &y) {
      for (const ShapeCheck &check : checks)
        if (check.relation == ShapeCheck::Relation::Eq &&
            ((check.lhs == x && check.rhs == y) || (check.lhs == y && check.rhs == x)))
          return true;
      return false;
    };
    function.walk([&](linalg::LinalgOp op) {
      // Each loop dim's first size, and the sizes that must equal it.
      std::map<unsigned, SizeRef> first;
      std::string name = opNameOf(op.getLoc());
      if (name.empty())
        name = function.getSymName().str();
      for (OpOperand &operand : op->getOpOperands()) {
        if (!isa<RankedTensorType>(operand.get().getType()))
          continue;
        AffineMap map = op.getMatchingIndexingMap(&operand);
        for (unsigned i = 0; i < map.getNumResults(); ++i) {
          auto loop = dyn_cast<AffineDimExpr>(map.getResult(i));
          if (!loop)
            continue;
          std::optional<SizeRef> size = traceDim(operand.get(), i, function, 0);
          if (!size)
            continue;
          auto [at, inserted] = first.try_emplace(loop.getPosition(), *size);
          if (inserted || at->second == *size || known(at->second, *size))
            continue;
          ShapeCheck check;
          check.op = name;
          check.dim = loop.getPosition();
          check.lhs = at->second;
          check.rhs = *size;
          // PyTorch's "tensor a" is the earlier operand of the op.
          if (!check.lhs.constant && !check.rhs.constant &&
              check.rhs.argument < check.lhs.argument)
            std::swap(check.lhs, check.rhs);
          if (isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op))
            classifyProduct(op, loop.getPosition(), check, function);
          checks.push_back(std::move(check));
        }
      }
    });
    if (checks.empty())
      function->removeAttr(opal::ir::kShapeChecksAttrName);
    else
      function->setAttr(opal::ir::kShapeChecksAttrName,
                        StringAttr::get(&getContext(), opal::jit::describeShapeChecks(checks)));
  }
};

} // namespace
