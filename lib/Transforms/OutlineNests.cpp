//===- OutlineNests.cpp - The opal-outline-nests pass ---------------------===//
//
// Moves each loop nest left in a kernel's function into a function of its
// own, merges the functions whose bodies are equal and puts back inline
// those called once (Passes.td says why).
//
//===----------------------------------------------------------------------===//

#include "opal/Transforms/Passes.h"

#include "Outlining.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/RegionUtils.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SetVector.h"

namespace opal::ir {
#define GEN_PASS_DEF_OPALOUTLINENESTS
#include "opal/Transforms/Passes.h.inc"
} // namespace opal::ir

using namespace mlir;

namespace {

/// The nests of `block` (linalg ops on buffers, loops without results and
/// opal-parallelize's choices between a parallel region and one thread),
/// and those of the blocks of its other scf.if ops.
void collectNests(Block &block, SmallVectorImpl<Operation *> &nests) {
  for (Operation &op : block) {
    if (auto branch = dyn_cast<scf::IfOp>(op)) {
      bool forks = false;
      branch.getThenRegion().walk([&](omp::ParallelOp) { forks = true; });
      if (forks && branch->getNumResults() == 0) {
        nests.push_back(&op);
        continue;
      }
      for (Region &region : branch->getRegions())
        for (Block &inner : region)
          collectNests(inner, nests);
      continue;
    }
    auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
    if ((linalgOp && linalgOp.hasPureBufferSemantics()) ||
        (isa<scf::ForOp>(op) && op.getNumResults() == 0))
      nests.push_back(&op);
  }
}

/// A buffer the nest's function may take with no other argument aliasing
/// it: an argument of the kernel's function, an allocation or a global.
bool isWholeBuffer(Value value, func::FuncOp func) {
  if (auto argument = dyn_cast<BlockArgument>(value))
    return argument.getOwner() == &func.getBody().front();
  return isa_and_nonnull<memref::AllocOp, memref::AllocaOp, memref::GetGlobalOp>(
      value.getDefiningOp());
}

class Outliner {
public:
  Outliner(ModuleOp module) : module(module), symbols(module) {}

  /// Moves `nest` (in `func`) into a new function and calls it; false when
  /// it takes a buffer that is not a whole one.
  bool outline(func::FuncOp func, Operation *nest) {
    llvm::SetVector<Value> used;
    nest->walk([&](Operation *inner) {
      for (Value operand : inner->getOperands())
        if (!nest->isAncestor(operand.getParentRegion()->getParentOp()))
          used.insert(operand);
    });
    llvm::SetVector<Value> passed;
    llvm::SetVector<Operation *> cloned;
    opal::ir::detail::splitUsedValues(used.getArrayRef(), passed, cloned);
    for (Value value : passed)
      if (isa<MemRefType>(value.getType()) && !isWholeBuffer(value, func))
        return false;
    Location loc = nest->getLoc();
    OpBuilder b(module.getContext());
    b.setInsertionPointToEnd(module.getBody());
    IRMapping mapping;
    func::FuncOp part = opal::ir::detail::createPart(b, symbols, func, loc, TypeRange(),
                                                     passed.getArrayRef(),
                                                     cloned.getArrayRef(), mapping);
    b.clone(*nest, mapping);
    func::ReturnOp::create(b, loc);
    OpBuilder at(nest);
    func::CallOp::create(at, loc, part, passed.getArrayRef());
    nest->erase();
    outlined.insert(part);
    return true;
  }

  /// Merges the outlined functions (these and opal-parallelize's parts)
  /// whose bodies are equal into the first of them, then puts back inline
  /// the functions this pass made that are called once. Merging runs in
  /// rounds: functions that call parts (opal-parallelize's choices between
  /// a parallel region and one thread) are equal only once the parts they
  /// call are merged.
  void mergeAndInline() {
    while (mergeRound()) {
    }
    llvm::DenseMap<Operation *, SmallVector<func::CallOp>> calls;
    module.walk([&](func::CallOp call) {
      if (Operation *callee = symbols.lookup(call.getCallee()))
        calls[callee].push_back(call);
    });
    for (func::FuncOp part : outlined) {
      SmallVector<func::CallOp> &callers = calls[part];
      if (callers.size() != 1)
        continue;
      func::CallOp call = callers.front();
      OpBuilder b(call);
      IRMapping mapping;
      mapping.map(part.getArguments(), call.getOperands());
      for (Operation &op : part.getBody().front().without_terminator())
        b.clone(op, mapping);
      call->erase();
      symbols.erase(part);
    }
  }

private:
  /// One round of merging; false when no two functions were equal.
  bool mergeRound() {
    SmallVector<func::FuncOp> parts;
    for (auto func : module.getOps<func::FuncOp>())
      if (func->hasAttr(opal::ir::kParallelPartAttrName) && !func.isDeclaration())
        parts.push_back(func);
    llvm::DenseMap<llvm::hash_code, SmallVector<func::FuncOp>> kept;
    llvm::DenseMap<StringAttr, func::FuncOp> replacement;
    for (func::FuncOp part : parts) {
      llvm::hash_code hash = mlir::hash_value(Type(part.getFunctionType()));
      part.getBody().walk([&](Operation *op) {
        hash = llvm::hash_combine(
            hash, OperationEquivalence::computeHash(op, OperationEquivalence::ignoreHashValue,
                                                    OperationEquivalence::ignoreHashValue,
                                                    OperationEquivalence::IgnoreLocations));
      });
      SmallVector<func::FuncOp> &same = kept[hash];
      auto equal = llvm::find_if(same, [&](func::FuncOp other) {
        return other.getFunctionType() == part.getFunctionType() &&
               other.getAllArgAttrs() == part.getAllArgAttrs() &&
               OperationEquivalence::isRegionEquivalentTo(&other.getBody(), &part.getBody(),
                                                          OperationEquivalence::IgnoreLocations);
      });
      if (equal == same.end())
        same.push_back(part);
      else
        replacement[part.getSymNameAttr()] = *equal;
    }
    if (replacement.empty())
      return false;
    module.walk([&](func::CallOp call) {
      auto found = replacement.find(call.getCalleeAttr().getAttr());
      if (found != replacement.end())
        call.setCallee(found->second.getSymName());
    });
    for (func::FuncOp part : parts)
      if (replacement.count(part.getSymNameAttr())) {
        outlined.remove(part);
        symbols.erase(part);
      }
    return true;
  }

  ModuleOp module;
  SymbolTable symbols;
  llvm::SetVector<func::FuncOp> outlined; ///< the functions this pass made
};

struct OpalOutlineNests : public opal::ir::impl::OpalOutlineNestsBase<OpalOutlineNests> {
  using OpalOutlineNestsBase::OpalOutlineNestsBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<std::pair<func::FuncOp, SmallVector<Operation *>>> functions;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isDeclaration() || func->hasAttr(opal::ir::kParallelPartAttrName))
        continue;
      SmallVector<Operation *> nests;
      collectNests(func.getBody().front(), nests);
      if (!nests.empty())
        functions.push_back({func, std::move(nests)});
    }
    if (functions.empty())
      return;
    Outliner outliner(module);
    for (auto &[func, nests] : functions) {
      for (Operation *nest : nests)
        outliner.outline(func, nest);
      // (The views and constants the outlined nests took copies of.)
      IRRewriter rewriter(module.getContext());
      (void)runRegionDCE(rewriter, func.getBody());
    }
    outliner.mergeAndInline();
  }
};

} // namespace
