//===- DeriveDataChecks.cpp - The opal-derive-data-checks pass ------------===//
//
// Conditions on a call's data that its sizes cannot show (an integer divisor
// of zero) become results of the function: a reduction over the operand
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

/// A 1-element int64 tensor: 1 if any element of `tensor` satisfies
/// `violates`, else 0 (a reduction over all of its dims).
Value anyViolation(OpBuilder &b, Location loc, Value tensor,
                   function_ref<Value(OpBuilder &, Location, Value)> violates) {
  auto type = cast<RankedTensorType>(tensor.getType());
  Type i64 = b.getI64Type();
  Value zero = arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(0));
  Value empty = tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{}, i64);
  Value init = linalg::FillOp::create(b, loc, zero, empty).getResult(0);
  SmallVector<AffineMap> maps = {b.getMultiDimIdentityMap(type.getRank()),
                                 AffineMap::get(type.getRank(), 0, b.getContext())};
  SmallVector<utils::IteratorType> iterators(type.getRank(), utils::IteratorType::reduction);
  auto found = linalg::GenericOp::create(
      b, loc, TypeRange{init.getType()}, ValueRange{tensor}, ValueRange{init}, maps, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        Value bad = violates(nested, nestedLoc, args[0]);
        Value asWord = arith::ExtUIOp::create(nested, nestedLoc, i64, bad);
        Value any = arith::OrIOp::create(nested, nestedLoc, args[1], asWord);
        linalg::YieldOp::create(nested, nestedLoc, any);
      });
  Value flag = tensor::ExtractOp::create(b, loc, found.getResult(0), ValueRange{});
  return tensor::FromElementsOp::create(b, loc, RankedTensorType::get({1}, i64),
                                        ValueRange{flag});
}

struct DeriveDataChecks
    : public opal::ir::impl::OpalDeriveDataChecksBase<DeriveDataChecks> {
  void runOnOperation() override {
    func::FuncOp function = getOperation();
    if (function.isExternal())
      return;
    std::vector<opal::jit::DataCheck> checks;
    SmallVector<Value> results;
    // Each divisor is checked once, however many prims divide by it.
    llvm::DenseSet<Value> checked;
    SmallVector<opal::ir::DataCheckOp> declared;
    function.walk([&](Operation *op) {
      if (auto check = dyn_cast<opal::ir::DataCheckOp>(op)) {
        // An op's own check: any true element of its bool tensor raises.
        declared.push_back(check);
        if (!isa<RankedTensorType>(check.getViolations().getType()) ||
            !getElementTypeOrSelf(check.getViolations().getType()).isInteger(1)) {
          check.emitError("'opal.data_check' needs a ranked bool (i1) tensor");
          return;
        }
        OpBuilder b(op);
        results.push_back(anyViolation(b, op->getLoc(), check.getViolations(),
                                       [](OpBuilder &, Location, Value bad) { return bad; }));
        std::string name = opNameOf(op->getLoc());
        checks.push_back({name.empty() ? function.getSymName().str() : name,
                          check.getMessage().str()});
        return;
      }
      if (!dividesByOperand1(op) || !checked.insert(op->getOperand(1)).second)
        return;
      OpBuilder b(op);
      Location loc = op->getLoc();
      results.push_back(anyViolation(b, loc, op->getOperand(1),
                                     [](OpBuilder &nb, Location l, Value divisor) -> Value {
                                       Value zero = arith::ConstantOp::create(
                                           nb, l, nb.getIntegerAttr(divisor.getType(), 0));
                                       return arith::CmpIOp::create(
                                           nb, l, arith::CmpIPredicate::eq, divisor, zero);
                                     }));
      std::string name = opNameOf(loc);
      checks.push_back({name.empty() ? function.getSymName().str() : name, kZeroDivision});
    });
    for (opal::ir::DataCheckOp check : declared) {
      if (!getElementTypeOrSelf(check.getViolations().getType()).isInteger(1))
        return signalPassFailure();
      check.erase();
    }
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
