//===- MergeGpuModules.cpp - The opal-merge-gpu-modules pass --------------===//
//
// gpu-kernel-outlining gives every launch a gpu.module of its own; a kernel
// that runs several launches (a softmax: max, exp, sum, divide) would then
// load several modules. This pass moves every kernel into one gpu.module,
// so one op's kernels are one binary, loaded once.
//
//===----------------------------------------------------------------------===//

#include "opal/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

namespace opal::ir {
#define GEN_PASS_DEF_OPALMERGEGPUMODULES
#include "opal/Transforms/Passes.h.inc"
} // namespace opal::ir

using namespace mlir;

namespace {

struct OpalMergeGpuModules
    : public opal::ir::impl::OpalMergeGpuModulesBase<OpalMergeGpuModules> {
  using OpalMergeGpuModulesBase::OpalMergeGpuModulesBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<gpu::GPUModuleOp> kernels(module.getOps<gpu::GPUModuleOp>());
    if (kernels.empty())
      return;
    gpu::GPUModuleOp merged = kernels.front();
    SymbolTable topLevel(module);
    if (merged.getSymName() != moduleName) {
      if (topLevel.lookup(moduleName)) {
        module.emitError() << "opal-merge-gpu-modules: the name '" << moduleName
                           << "' is taken by another symbol";
        return signalPassFailure();
      }
      if (failed(topLevel.rename(merged, StringAttr::get(&getContext(), moduleName))))
        return signalPassFailure();
    }
    SymbolTable mergedSymbols(merged);
    for (gpu::GPUModuleOp other : llvm::drop_begin(kernels)) {
      // Each moved function keeps its name if it is free, else gets a new one;
      // the launches are redirected either way.
      llvm::DenseMap<StringAttr, StringAttr> renamed;
      for (Operation &inner : llvm::make_early_inc_range(other.getBody()->getOperations())) {
        auto symbol = dyn_cast<SymbolOpInterface>(inner);
        if (!symbol)
          continue;
        StringAttr before = symbol.getNameAttr();
        inner.remove();
        StringAttr after = mergedSymbols.insert(&inner);
        renamed[before] = after;
      }
      StringAttr otherName = other.getSymNameAttr();
      module.walk([&](gpu::LaunchFuncOp launch) {
        SymbolRefAttr kernel = launch.getKernel();
        if (kernel.getRootReference() != otherName)
          return;
        StringAttr function = renamed.lookup(kernel.getLeafReference());
        launch.setKernelAttr(SymbolRefAttr::get(merged.getSymNameAttr(),
                                                {FlatSymbolRefAttr::get(function)}));
      });
      other.erase();
    }
  }
};

} // namespace
