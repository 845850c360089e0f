//===- DeriveDataChecks.cpp - The opal-derive-data-checks pass ------------===//
//
// Conditions on a call's data that its sizes cannot show (an integer divisor
// of zero, a gather's index out of range) become results of the function: a reduction over the operand
// writes [found, values...], which the JIT reads after the call and raises
// (CompiledKernel.h's DataCheck).
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
#include "mlir/IR/Dominance.h"

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

/// The results of a check, 0-d int64 tensors: found, 1 if any element of
/// `tensor` satisfies `violates` (a reduction over all of its dims, in
/// order); first, the first such element (0 if none; only with
/// `withFirst`), or the element of `firstOf` (a tensor of `tensor`'s shape)
/// there if given; then `scalars` (i64 values).
SmallVector<Value> checkResult(OpBuilder &b, Location loc, Value tensor,
                  function_ref<Value(OpBuilder &, Location, Value)> violates, bool withFirst,
                  int64_t &inits, ValueRange scalars = {}, Value firstOf = {}) {
  auto type = cast<RankedTensorType>(tensor.getType());
  Type i64 = b.getI64Type();
  Value zero = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(0));
  // Each reduction starts from a zero of its own: were CSE to merge the
  // checks' zeros into one tensor, bufferization could compute one check in
  // the buffer of another's word and copy that word over it first.
  auto freshZero = [&] {
    Value empty = tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{}, i64);
    auto fill = linalg::FillOp::create(b, loc, zero, empty);
    fill->setAttr("opal.data_check_init", b.getI64IntegerAttr(inits++));
    return fill.getResult(0);
  };
  Value init = freshZero();
  AffineMap scalarMap = AffineMap::get(type.getRank(), 0, b.getContext());
  SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(type.getRank())};
  SmallVector<Value> inputs = {tensor};
  if (firstOf) {
    maps.push_back(b.getMultiDimIdentityMap(type.getRank()));
    inputs.push_back(firstOf);
  }
  maps.push_back(scalarMap);
  SmallVector<Value> outputs = {init};
  if (withFirst) {
    maps.push_back(scalarMap);
    outputs.push_back(freshZero());
  }
  unsigned accumulators = inputs.size();
  SmallVector<utils::IteratorType> iterators(type.getRank(), utils::IteratorType::reduction);
  auto reduction = linalg::GenericOp::create(
      b, loc, ValueRange(outputs).getTypes(), inputs, outputs, maps, iterators,
      [&](OpBuilder &nested, Location l, ValueRange args) {
        Value bad = violates(nested, l, args[0]);
        Value seen = args[accumulators];
        Value found = arith::OrIOp::create(nested, l, seen,
                                           arith::ExtUIOp::create(nested, l, i64, bad));
        if (!withFirst) {
          linalg::YieldOp::create(nested, l, found);
          return;
        }
        // The first violation's value: taken while none was found yet.
        Value none = arith::CmpIOp::create(nested, l, arith::CmpIPredicate::eq, seen, zero);
        Value take = arith::AndIOp::create(nested, l, none, bad);
        Value value = opal::ir::detail::convertScalar(nested, l, args[accumulators - 1], i64);
        linalg::YieldOp::create(
            nested, l,
            ValueRange{found, arith::SelectOp::create(nested, l, take, value,
                                                      args[accumulators + 1])});
      });
  // Each word is a 0-d tensor of its own, so that on CUDA every one is made
  // on the device (a fill for a scalar); the JIT reads them after the call.
  SmallVector<Value> words(reduction.getResults());
  for (Value scalar : scalars) {
    Value word = tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{}, i64);
    auto filled = linalg::FillOp::create(b, loc, scalar, word);
    // A word of its own: CSE must not merge it with the reductions' inits
    // (a fill of the same constant), whose buffers the reductions write.
    filled->setAttr("opal.data_check_word", b.getI64IntegerAttr(words.size()));
    words.push_back(filled.getResult(0));
  }
  return words;
}

/// The gathers and scatters, whose index (operand 2) must be in [0, size)
/// of `a`'s dim.
bool gathers(Operation *op) {
  StringRef name = op->getName().getStringRef();
  return (name == "prims.gather" || name == "prims.take" || name == "prims.scatter") &&
         isa<RankedTensorType>(op->getOperand(0).getType()) &&
         isa<RankedTensorType>(op->getOperand(2).getType());
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
        OpBuilder b(op);
        SmallVector<Value> words =
            checkResult(b, op->getLoc(), check.getViolations(),
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
        OpBuilder b(op);
        Location loc = op->getLoc();
        Value size = aType.getRank() == 0
                         ? Value(arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(1)))
                         : Value(arith::IndexCastOp::create(
                               b, loc, b.getI64Type(),
                               tensor::DimOp::create(b, loc, op->getOperand(0), dim)));
        Value dimValue = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(dim));
        SmallVector<Value> words = checkResult(
            b, loc, op->getOperand(2),
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
      OpBuilder b(op);
      Location loc = op->getLoc();
      SmallVector<Value> words = checkResult(b, loc, op->getOperand(1),
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
