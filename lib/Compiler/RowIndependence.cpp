//===- RowIndependence.cpp - Kernels whose output rows are independent ----===//
//
// The analysis behind the JIT's two-thread split (CompiledKernel::
// rowsIndependent): a kernel whose every output row (index along dim 0)
// depends only on the same row of its row inputs can run on two slices of
// rows at once.
//
//===----------------------------------------------------------------------===//

#include "opal/Compiler/KernelBuilder.h"

#include "opal/Dialect/OpalOps.h"
#include "opal/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace opal;
using namespace opal::ir;

namespace {

/// Whether `size` (an i64 size in a shape list) is dim 0 of a value in
/// `rows`: `arith.index_cast(tensor.dim(%v, 0))`.
bool isRowCount(Value size, const llvm::DenseSet<Value> &rows) {
  if (auto cast = size.getDefiningOp<arith::IndexCastOp>())
    size = cast.getIn();
  auto dim = size.getDefiningOp<tensor::DimOp>();
  std::optional<int64_t> index = dim ? dim.getConstantIndex() : std::nullopt;
  return dim && index == 0 && rows.contains(dim.getSource());
}

/// The constant i64 elements of an opal.list, if all are constants.
std::optional<SmallVector<int64_t>> constantElements(Value list) {
  auto op = list.getDefiningOp<ListOp>();
  if (!op)
    return std::nullopt;
  SmallVector<int64_t> values;
  for (Value element : op.getElements()) {
    APInt value;
    if (!matchPattern(element, m_ConstantInt(&value)))
      return std::nullopt;
    values.push_back(value.getSExtValue());
  }
  return values;
}

} // namespace

bool opal::ir::rowsAreIndependent(ModuleOp module) {
  auto kernel = module.lookupSymbol<func::FuncOp>(kKernelName);
  auto ret = cast<func::ReturnOp>(kernel.getBody().back().getTerminator());
  int64_t rank = -1;
  for (Type type : ret.getOperandTypes()) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor || tensor.getRank() == 0 || !tensor.isDynamicDim(0) ||
        (rank >= 0 && tensor.getRank() != rank))
      return false;
    rank = tensor.getRank();
  }
  if (rank < 1)
    return false;
  // Row values: dim 0 is the outputs' row index. Every other tensor value
  // must not depend on the rows (the runtime passes those inputs whole).
  // Inputs of the outputs' rank are rows unless their dim 0 is 1; this is
  // the rule the runtime slices by.
  llvm::DenseSet<Value> rows;
  for (BlockArgument argument : kernel.getArguments())
    if (auto tensor = dyn_cast<RankedTensorType>(argument.getType())) {
      if (tensor.getRank() > rank)
        return false;
      if (tensor.getRank() == rank && tensor.isDynamicDim(0))
        rows.insert(argument);
      else if (tensor.getRank() == rank && tensor.getDimSize(0) != 1)
        return false;
    }
  auto isTensor = [](Value v) { return isa<RankedTensorType>(v.getType()); };
  WalkResult walked = kernel.walk([&](Operation *op) {
    // Scalars and sizes (arith, tensor.dim) and the opal value ops are fine.
    if (op->getNumRegions() || isa<func::ReturnOp, tensor::DimOp>(op) ||
        isa<arith::ArithDialect>(op->getDialect()) ||
        op->getDialect()->getNamespace() == "opal")
      return WalkResult::advance();
    StringRef name = op->getName().getStringRef();
    Value result = op->getNumResults() == 1 ? op->getResult(0) : Value();
    auto resultType = result ? dyn_cast<RankedTensorType>(result.getType()) : nullptr;
    if (isa<tensor::CastOp>(op)) {
      if (rows.contains(op->getOperand(0)))
        rows.insert(result);
      return WalkResult::advance();
    }
    if (name == "prims.broadcast_in_dim" || name == "prims.full") {
      bool broadcast = name == "prims.broadcast_in_dim";
      Value input = broadcast ? op->getOperand(0) : Value();
      auto dims = broadcast ? constantElements(op->getOperand(2)) : std::optional<SmallVector<int64_t>>();
      if (broadcast && !dims)
        return WalkResult::interrupt();
      if (broadcast && rows.contains(input)) {
        // A row value keeps its rows in dim 0.
        if (dims->empty() || (*dims)[0] != 0)
          return WalkResult::interrupt();
        rows.insert(result);
        return WalkResult::advance();
      }
      // Row-invariant values spread over the rows: a row value if its
      // dim 0 is sized by the rows (and only stretches a size-1 dim there).
      // (Lower-rank results stay row-invariant: broadcasts align right.)
      if (resultType.getRank() < rank || !resultType.isDynamicDim(0))
        return WalkResult::advance();
      auto shape = op->getOperand(broadcast ? 1 : 0).getDefiningOp<ListOp>();
      if (!shape || shape.getElements().empty() || !isRowCount(shape.getElements()[0], rows))
        return WalkResult::interrupt();
      if (broadcast) {
        auto inputType = cast<RankedTensorType>(input.getType());
        for (auto [i, d] : llvm::enumerate(*dims))
          if (d == 0 && inputType.getDimSize(i) != 1)
            return WalkResult::interrupt();
      }
      rows.insert(result);
      return WalkResult::advance();
    }
    if (name == "prims.sum" || name == "prims.amax" || name == "prims.amin" ||
        name == "prims.prod") {
      if (!rows.contains(op->getOperand(0)))
        return WalkResult::advance();
      // A reduction over other dims keeps the rows in dim 0.
      auto dims = constantElements(op->getOperand(1));
      if (!dims || llvm::is_contained(*dims, 0) || !resultType || resultType.getRank() == 0)
        return WalkResult::interrupt();
      rows.insert(result);
      return WalkResult::advance();
    }
    if (!elementwiseLoweringProblem(op).empty())
      return WalkResult::interrupt();
    // Elementwise: operands share the result's shape, so either all are
    // rows or none (rank-0 operands aside).
    bool anyRow = llvm::any_of(op->getOperands(), [&](Value v) { return rows.contains(v); });
    if (anyRow) {
      for (Value operand : op->getOperands())
        if (isTensor(operand) && !rows.contains(operand) &&
            cast<RankedTensorType>(operand.getType()).getRank() > 0)
          return WalkResult::interrupt();
      rows.insert(result);
    }
    return WalkResult::advance();
  });
  if (walked.wasInterrupted())
    return false;
  return llvm::all_of(ret.getOperands(), [&](Value v) { return rows.contains(v); });
}

jit::HalvesCombine opal::ir::halvesCombine(ModuleOp module) {
  auto kernel = module.lookupSymbol<func::FuncOp>(kKernelName);
  auto ret = cast<func::ReturnOp>(kernel.getBody().back().getTerminator());
  if (ret.getNumOperands() != 1)
    return jit::HalvesCombine::None;
  Operation *reduction = ret.getOperand(0).getDefiningOp();
  auto result = dyn_cast_or_null<RankedTensorType>(ret.getOperand(0).getType());
  if (!reduction || !result || result.getRank() != 0 || reduction->getNumOperands() < 2)
    return jit::HalvesCombine::None;
  // Results the runtime can combine on the host.
  Type element = result.getElementType();
  if (!element.isF32() && !element.isF64() && !element.isInteger(64))
    return jit::HalvesCombine::None;
  StringRef name = reduction->getName().getStringRef();
  jit::HalvesCombine combine = name == "prims.sum"    ? jit::HalvesCombine::Sum
                               : name == "prims.prod" ? jit::HalvesCombine::Prod
                               : name == "prims.amax" ? jit::HalvesCombine::Max
                               : name == "prims.amin" ? jit::HalvesCombine::Min
                                                      : jit::HalvesCombine::None;
  if (combine == jit::HalvesCombine::None)
    return combine;
  // Of a kernel argument itself (the runtime slices it by rows), over all
  // its dims, in the argument's own element type (no conversion whose
  // rounding would differ between halves and whole).
  auto input = dyn_cast<BlockArgument>(reduction->getOperand(0));
  auto inputType = input ? dyn_cast<RankedTensorType>(input.getType()) : nullptr;
  auto dims = constantElements(reduction->getOperand(1));
  if (!inputType || inputType.getRank() == 0 || !inputType.isDynamicDim(0) || !dims ||
      inputType.getElementType() != element ||
      dims->size() != static_cast<size_t>(inputType.getRank()))
    return jit::HalvesCombine::None;
  for (int64_t dim = 0; dim < inputType.getRank(); ++dim)
    if (!llvm::is_contained(*dims, dim))
      return jit::HalvesCombine::None;
  // The only tensor argument.
  for (BlockArgument argument : kernel.getArguments())
    if (argument != input && isa<RankedTensorType>(argument.getType()))
      return jit::HalvesCombine::None;
  return combine;
}
