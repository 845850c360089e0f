//===- DeriveDataChecks.cpp - The opal-derive-data-checks pass ------------===//
//
// Conditions on a call's data that its sizes cannot show (an integer divisor
// of zero, a gather's index out of range) become results of the function,
// [found, values...], which the JIT reads after the call and raises
// (CompiledKernel.h's DataCheck). `found` is an or-reduction over the
// operand, which vectorizes and splits over threads; for two dims or more it
// runs row by row right before the op it guards (opal-fuse-rows can then
// read each row once for both) and over the rows after it. A check's first
// bad value is found by a scan that runs only when there is one.
//
//===----------------------------------------------------------------------===//

#include "opal/Transforms/Passes.h"

#include "opal/Dialect/OpalOps.h"
#include "opal/JIT/CompiledKernel.h"

#include "PrimUtils.h"
#include "TypeDirectedImpl.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Dominance.h"
#include "mlir/IR/Matchers.h"

namespace opal::ir {
#define GEN_PASS_DEF_OPALDERIVEDATACHECKS
#include "opal/Transforms/Passes.h.inc"
} // namespace opal::ir

using namespace mlir;
using opal::ir::detail::opNameOf;

namespace {

/// PyTorch's message for an integer division or remainder by zero.
constexpr const char *kZeroDivision = "ZeroDivisionError";

/// The integer prims whose second operand divides: they raise on a zero.
bool dividesByOperand1(Operation *op) {
  StringRef name = op->getName().getStringRef();
  if (name != "prims.div" && name != "prims.fmod" && name != "prims.remainder")
    return false;
  auto type = dyn_cast<RankedTensorType>(op->getOperand(1).getType());
  return type && isa<IntegerType>(type.getElementType()) &&
         !type.getElementType().isInteger(1);
}

/// The indices of row-major `position` (in range) in `tensor`.
SmallVector<Value> indicesAt(OpBuilder &b, Location loc, Value tensor, Value position) {
  auto type = cast<RankedTensorType>(tensor.getType());
  SmallVector<Value> sizes;
  for (int64_t dim = 0; dim < type.getRank(); ++dim)
    sizes.push_back(dim == 0 ? Value() : tensor::DimOp::create(b, loc, tensor, dim).getResult());
  return opal::ir::detail::delinearize(b, loc, position, sizes);
}

/// The row-major position of the first element of `tensor` that satisfies
/// `violates`, found by a scan that stops there (its last element's if none;
/// every read in range). Runs only when a violation was found.
Value scanForFirst(OpBuilder &b, Location loc, Value tensor,
                   function_ref<Value(OpBuilder &, Location, Value)> violates) {
  auto type = cast<RankedTensorType>(tensor.getType());
  Value count = arith::ConstantIndexOp::create(b, loc, 1);
  for (int64_t dim = 0; dim < type.getRank(); ++dim)
    count = arith::MulIOp::create(b, loc, count, tensor::DimOp::create(b, loc, tensor, dim));
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  Value one = arith::ConstantIndexOp::create(b, loc, 1);
  Value last = arith::SubIOp::create(b, loc, count, one);
  auto scan = scf::WhileOp::create(
      b, loc, TypeRange{b.getIndexType()}, ValueRange{zero},
      [&](OpBuilder &before, Location l, ValueRange args) {
        Value inRange =
            arith::CmpIOp::create(before, l, arith::CmpIPredicate::ult, args[0], count);
        Value at = arith::MinUIOp::create(before, l, args[0], last);
        Value element =
            tensor::ExtractOp::create(before, l, tensor, indicesAt(before, l, tensor, at));
        Value bad = violates(before, l, element);
        Value good = arith::XOrIOp::create(
            before, l, bad, arith::ConstantOp::create(before, l, before.getBoolAttr(true)));
        scf::ConditionOp::create(before, l, arith::AndIOp::create(before, l, inRange, good),
                                 args[0]);
      },
      [&](OpBuilder &after, Location l, ValueRange args) {
        scf::YieldOp::create(after, l, ValueRange{arith::AddIOp::create(after, l, args[0], one)});
      });
  return arith::MinUIOp::create(b, loc, scan.getResult(0), last);
}

/// 1 where any element of `tensor` over its last `reduced` dims satisfies
/// `flag` (an i1 of the element), else 0: an or-reduction (which the loop
/// vectorizer and opal-parallelize split) into an i64 tensor of the other
/// dims, which starts from a zero of its own: were CSE to merge the checks'
/// zeros into one tensor, bufferization could compute one check in the
/// buffer of another's word and copy that word over it first.
Value anyOf(OpBuilder &b, Location loc, Value tensor, int64_t reduced,
            function_ref<Value(OpBuilder &, Location, Value)> flag, int64_t &inits) {
  auto type = cast<RankedTensorType>(tensor.getType());
  int64_t rank = type.getRank(), kept = rank - reduced;
  Type i64 = b.getI64Type();
  SmallVector<Value> sizes;
  for (int64_t dim = 0; dim < kept; ++dim)
    if (type.isDynamicDim(dim))
      sizes.push_back(tensor::DimOp::create(b, loc, tensor, dim));
  Value empty = tensor::EmptyOp::create(b, loc, type.getShape().take_front(kept), i64, sizes);
  Value zero = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(0));
  auto init = linalg::FillOp::create(b, loc, zero, empty);
  init->setAttr("opal.data_check_init", b.getI64IntegerAttr(inits++));
  SmallVector<utils::IteratorType> iterators(kept, utils::IteratorType::parallel);
  iterators.append(reduced, utils::IteratorType::reduction);
  SmallVector<AffineExpr> keptDims;
  for (int64_t dim = 0; dim < kept; ++dim)
    keptDims.push_back(b.getAffineDimExpr(dim));
  AffineMap keptMap = AffineMap::get(rank, 0, keptDims, b.getContext());
  auto reduction = linalg::GenericOp::create(
      b, loc, TypeRange{init.getResult(0).getType()}, ValueRange{tensor},
      ValueRange{init.getResult(0)}, {b.getMultiDimIdentityMap(rank), keptMap}, iterators,
      [&](OpBuilder &nested, Location l, ValueRange args) {
        Value bad = flag(nested, l, args[0]);
        linalg::YieldOp::create(
            nested, l,
            ValueRange{arith::OrIOp::create(nested, l, args[1],
                                            arith::ExtUIOp::create(nested, l, i64, bad))});
      });
  return reduction.getResult(0);
}

/// The results of a check, 0-d int64 tensors: found, 1 if any element of
/// `tensor` satisfies `violates`; first, the first such element in
/// row-major order (0 if none; only with `withFirst`), or the element of
/// `firstOf` (a tensor of `tensor`'s shape) there if given; then `scalars`
/// (i64 values). What reads `tensor` whole is built at `b`: a tensor of two
/// dims or more is reduced row by row there (so that opal-fuse-rows can run
/// the check row by row with the op it guards, reading each row once), the
/// rows' results at `after`, with the rest.
SmallVector<Value> checkResult(OpBuilder &b, OpBuilder &after, Location loc, Value tensor,
                  function_ref<Value(OpBuilder &, Location, Value)> violates, bool withFirst,
                  int64_t &inits, ValueRange scalars = {}, Value firstOf = {}) {
  auto type = cast<RankedTensorType>(tensor.getType());
  Type i64 = after.getI64Type();
  Value found;
  if (type.getRank() >= 2) {
    Value rows = anyOf(b, loc, tensor, 1, violates, inits);
    found = anyOf(after, loc, rows, type.getRank() - 1,
                  [](OpBuilder &nested, Location l, Value flag) -> Value {
                    Value zero = arith::ConstantOp::create(nested, l, nested.getI64IntegerAttr(0));
                    return arith::CmpIOp::create(nested, l, arith::CmpIPredicate::ne, flag, zero);
                  },
                  inits);
  } else {
    found = anyOf(b, loc, tensor, type.getRank(), violates, inits);
  }
  SmallVector<Value> words = {found};
  if (withFirst) {
    // The first violation's value (0 if none), from a scan that runs only
    // when there is one.
    Value source = firstOf ? firstOf : tensor;
    AffineMap word = AffineMap::get(0, 0, after.getContext());
    auto first = linalg::FillOp::create(
        after, loc, arith::ConstantOp::create(after, loc, after.getI64IntegerAttr(0)).getResult(),
        tensor::EmptyOp::create(after, loc, ArrayRef<int64_t>{}, i64).getResult());
    first->setAttr("opal.data_check_init", after.getI64IntegerAttr(inits++));
    auto value = linalg::GenericOp::create(
        after, loc, TypeRange{first.getResult(0).getType()}, ValueRange{found},
        ValueRange{first.getResult(0)},
        {word, word}, ArrayRef<utils::IteratorType>{},
        [&](OpBuilder &nested, Location l, ValueRange args) {
          Value any = arith::CmpIOp::create(nested, l, arith::CmpIPredicate::ne, args[0],
                                            arith::ConstantOp::create(
                                                nested, l, nested.getI64IntegerAttr(0)));
          auto taken = scf::IfOp::create(
              nested, l, any,
              [&](OpBuilder &then, Location tl) {
                Value position = scanForFirst(then, tl, tensor, violates);
                Value element = tensor::ExtractOp::create(
                    then, tl, source, indicesAt(then, tl, source, position));
                scf::YieldOp::create(
                    then, tl, opal::ir::detail::convertScalar(then, tl, element, i64));
              },
              [&](OpBuilder &otherwise, Location el) {
                scf::YieldOp::create(otherwise, el, args[1]);
              });
          linalg::YieldOp::create(nested, l, taken.getResult(0));
        });
    words.push_back(value.getResult(0));
  }
  // Each word is a 0-d tensor of its own, so that on CUDA every one is made
  // on the device (a fill for a scalar); the JIT reads them after the call.
  for (Value scalar : scalars) {
    Value word = tensor::EmptyOp::create(after, loc, ArrayRef<int64_t>{}, i64);
    auto filled = linalg::FillOp::create(after, loc, scalar, word);
    // A word of its own: CSE must not merge it with the reductions' inits
    // (a fill of the same constant), whose buffers the reductions write.
    filled->setAttr("opal.data_check_word", after.getI64IntegerAttr(words.size()));
    words.push_back(filled.getResult(0));
  }
  return words;
}

/// `tensor` as signless integers for a check to compare: uint8 (ui8) as
/// its values in `wide` (zero-extended by opal-lower-unsigned), or as int8
/// when only a test against zero reads it. Others as they are.
Value signlessView(OpBuilder &b, Location loc, Value tensor, bool zeroTestOnly) {
  auto type = cast<RankedTensorType>(tensor.getType());
  if (!type.getElementType().isUnsignedInteger())
    return tensor;
  Type to = zeroTestOnly ? b.getIntegerType(8) : b.getI64Type();
  Value code = opal::ir::detail::constantI64(b, loc, *opal::ir::detail::scalarTypeCodeFor(to));
  return opal::ir::detail::createPrim(b, loc, "prims.convert_element_type", {tensor, code},
                                      type.clone(to));
}

/// The gathers and scatters, whose index (operand 2) must be in [0, size)
/// of `a`'s dim.
bool gathers(Operation *op) {
  StringRef name = op->getName().getStringRef();
  return (name == "prims.gather" || name == "prims.take" || name == "prims.scatter") &&
         isa<RankedTensorType>(op->getOperand(0).getType()) &&
         isa<RankedTensorType>(op->getOperand(2).getType());
}

/// True where every element of `violations` is known false when the kernel
/// compiles: a check of sizes that are all static folds to a `prims.full`
/// of false (or a constant). Such a check costs words and a read per call
/// and can never raise: it is dropped.
bool knownFalse(Value violations) {
  DenseElementsAttr constant;
  if (matchPattern(violations, m_Constant(&constant)))
    return constant.isSplat() && constant.getSplatValue<APInt>().isZero();
  Operation *def = violations.getDefiningOp();
  if (!def)
    return false;
  StringRef name = def->getName().getStringRef();
  if (name == "prims.broadcast_in_dim")
    return knownFalse(def->getOperand(0));
  if (name != "prims.full" || def->getNumOperands() < 2)
    return false;
  std::optional<int64_t> value = opal::ir::detail::constantInt(def->getOperand(1));
  return value && *value == 0;
}

struct DeriveDataChecks
    : public opal::ir::impl::OpalDeriveDataChecksBase<DeriveDataChecks> {
  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (function.isExternal())
      return;
    std::vector<opal::jit::DataCheck> checks;
    SmallVector<Value> results; // every check's words, in order
    // Each divisor is checked once, however many prims divide by it.
    llvm::DenseSet<Value> checked;
    SmallVector<opal::ir::DataCheckOp> declared;
    int64_t zeros = 0; // the reductions' zeros, numbered
    bool invalid = false;
    function.walk([&](Operation *op) {
      if (auto check = dyn_cast<opal::ir::DataCheckOp>(op)) {
        // An op's own check: any true element of its bool tensor raises.
        declared.push_back(check);
        if (!isa<RankedTensorType>(check.getViolations().getType()) ||
            !getElementTypeOrSelf(check.getViolations().getType()).isInteger(1)) {
          check.emitError("'opal.data_check' needs a ranked bool (i1) tensor");
          invalid = true;
          return;
        }
        Value first = check.getFirst();
        if (first && (!isa<RankedTensorType>(first.getType()) ||
                      cast<RankedTensorType>(first.getType()).getShape() !=
                          cast<RankedTensorType>(check.getViolations().getType()).getShape() ||
                      !isa<IntegerType>(getElementTypeOrSelf(first.getType())))) {
          check.emitError("'opal.data_check' needs `first` an integer tensor of the "
                          "violations' shape");
          invalid = true;
          return;
        }
        if (knownFalse(check.getViolations()))
          return;
        OpBuilder b(op), after(op->getContext());
        after.setInsertionPointAfter(op);
        SmallVector<Value> words =
            checkResult(b, after, op->getLoc(), check.getViolations(),
                        [](OpBuilder &, Location, Value bad) { return bad; },
                        /*withFirst=*/static_cast<bool>(first), zeros, check.getValues(),
                        first);
        llvm::append_range(results, words);
        std::string name = opNameOf(op->getLoc());
        checks.push_back({name.empty() ? function.getSymName().str() : name,
                          check.getMessage().str(), static_cast<uint32_t>(words.size())});
        return;
      }
      std::string name = opNameOf(op->getLoc());
      if (name.empty())
        name = function.getSymName().str();
      if (gathers(op)) {
        // index out of [0, size): PyTorch's message, with the first such
        // index, the dim and the size.
        auto aType = cast<RankedTensorType>(op->getOperand(0).getType());
        std::optional<int64_t> given = opal::ir::detail::constantInt(op->getOperand(1));
        int64_t extent = std::max<int64_t>(aType.getRank(), 1);
        if (!given || *given < -extent || *given >= extent)
          return;
        int64_t dim = *given < 0 ? *given + extent : *given;
        OpBuilder b(op), after(op->getContext());
        after.setInsertionPointAfter(op);
        Location loc = op->getLoc();
        Value size = aType.getRank() == 0
                         ? Value(arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(1)))
                         : Value(arith::IndexCastOp::create(
                               b, loc, b.getI64Type(),
                               tensor::DimOp::create(b, loc, op->getOperand(0), dim)));
        Value dimValue = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(dim));
        SmallVector<Value> words = checkResult(
            b, after, loc, signlessView(b, loc, op->getOperand(2), /*zeroTestOnly=*/false),
            [&](OpBuilder &nb, Location l, Value index) -> Value {
              Value zero = arith::ConstantOp::create(nb, l, nb.getI64IntegerAttr(0));
              Value low = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::slt, index, zero);
              Value high = arith::CmpIOp::create(nb, l, arith::CmpIPredicate::sge, index, size);
              return arith::OrIOp::create(nb, l, low, high);
            },
            /*withFirst=*/true, zeros, ValueRange{dimValue, size});
        llvm::append_range(results, words);
        checks.push_back({name, "index {0} is out of bounds for dimension {1} with size {2}",
                          static_cast<uint32_t>(words.size())});
        return;
      }
      if (!dividesByOperand1(op) || !checked.insert(op->getOperand(1)).second)
        return;
      OpBuilder b(op), after(op->getContext());
      after.setInsertionPointAfter(op);
      Location loc = op->getLoc();
      SmallVector<Value> words = checkResult(b, after, loc,
                                    signlessView(b, loc, op->getOperand(1), /*zeroTestOnly=*/true),
                                    [](OpBuilder &nb, Location l, Value divisor) -> Value {
                                      Value zero = arith::ConstantOp::create(
                                          nb, l, nb.getIntegerAttr(divisor.getType(), 0));
                                      return arith::CmpIOp::create(
                                          nb, l, arith::CmpIPredicate::eq, divisor, zero);
                                    },
                                    /*withFirst=*/false, zeros);
      llvm::append_range(results, words);
      checks.push_back({name, kZeroDivision, static_cast<uint32_t>(words.size())});
    });
    if (invalid)
      return signalPassFailure();
    for (opal::ir::DataCheckOp check : declared)
      check.erase();
    if (checks.empty())
      return;
    // The checks' results follow the function's own.
    for (Block &block : function.getBody()) {
      auto ret = dyn_cast<func::ReturnOp>(block.getTerminator());
      if (!ret)
        continue;
      for (Value result : results)
        if (!DominanceInfo(function).properlyDominates(result, ret)) {
          function.emitError("a data check's result does not dominate the return");
          return signalPassFailure();
        }
      ret->insertOperands(ret->getNumOperands(), results);
    }
    SmallVector<Type> resultTypes(function.getResultTypes());
    for (Value result : results)
      resultTypes.push_back(result.getType());
    function.setFunctionType(
        FunctionType::get(&getContext(), function.getArgumentTypes(), resultTypes));
    function->setAttr(opal::ir::kDataChecksAttrName,
                      StringAttr::get(&getContext(), opal::jit::describeDataChecks(checks)));
  }
};

} // namespace
