//===- GpuHostToLlvm.cpp - The opal-gpu-host-to-llvm pass -----------------===//
//
// The host half of a CUDA kernel, after gpu-module-to-binary, to the LLVM
// dialect. Upstream's gpu-to-llvm would create a stream per launch and
// synchronize it, and load the binary in a global constructor of the host
// object; opal's runtime instead keeps the binary apart from the host code
// (the compiled binary is per arch, the loaded module per device), launches
// on the device's current stream without waiting, and allocates
// temporaries from the caching allocator. So launches and allocations
// become calls into that runtime (the ABI in include/opal/CUDA/Launch.h).
//
//===----------------------------------------------------------------------===//

#include "opal/Transforms/Passes.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/IndexToLLVM/IndexToLLVM.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/LLVMCommon/MemRefBuilder.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Conversion/LLVMCommon/TypeConverter.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Dialect/Arith/Transforms/Passes.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Transforms/DialectConversion.h"

namespace opal::ir {
#define GEN_PASS_DEF_OPALGPUHOSTTOLLVM
#include "opal/Transforms/Passes.h.inc"
} // namespace opal::ir

using namespace mlir;

namespace {

constexpr const char *kModuleGlobal = "opal_gpu_module";
constexpr const char *kLaunch = "opal_cuda_launch";
constexpr const char *kAlloc = "opal_cuda_alloc";
constexpr const char *kFree = "opal_cuda_free";

/// A constant of the LLVM integer type `type`.
Value constant(OpBuilder &b, Location loc, Type type, int64_t value) {
  return LLVM::ConstantOp::create(b, loc, type, b.getIntegerAttr(type, value));
}

struct LaunchLowering : public ConvertOpToLLVMPattern<gpu::LaunchFuncOp> {
  LaunchLowering(const LLVMTypeConverter &converter, const llvm::StringMap<int> &indices)
      : ConvertOpToLLVMPattern(converter), indices(indices) {}

  LogicalResult matchAndRewrite(gpu::LaunchFuncOp launch, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = launch.getLoc();
    MLIRContext *context = rewriter.getContext();
    auto pointer = LLVM::LLVMPointerType::get(context);
    Type i32 = rewriter.getI32Type(), i64 = rewriter.getI64Type();

    // One stack slot per parameter, in a struct, and the array of their
    // addresses that cuLaunchKernel reads.
    SmallVector<Value> params = getTypeConverter()->promoteOperands(
        loc, launch.getKernelOperands(), adaptor.getKernelOperands(), rewriter);
    SmallVector<Type> types;
    for (Value param : params)
      types.push_back(param.getType());
    auto storageType = LLVM::LLVMStructType::getLiteral(context, types);
    Value one = constant(rewriter, loc, i64, 1);
    Value storage = LLVM::AllocaOp::create(rewriter, loc, pointer, storageType, one);
    Value array = LLVM::AllocaOp::create(
        rewriter, loc, pointer, pointer,
        constant(rewriter, loc, i64, std::max<int64_t>(1, params.size())));
    for (auto [i, param] : llvm::enumerate(params)) {
      Value field = LLVM::GEPOp::create(rewriter, loc, pointer, storageType, storage,
                                        ArrayRef<LLVM::GEPArg>{0, static_cast<int32_t>(i)});
      LLVM::StoreOp::create(rewriter, loc, param, field);
      Value slot = LLVM::GEPOp::create(rewriter, loc, pointer, pointer, array,
                                       ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(i)});
      LLVM::StoreOp::create(rewriter, loc, field, slot);
    }

    Value global = LLVM::AddressOfOp::create(rewriter, loc, pointer, kModuleGlobal);
    Value module = LLVM::LoadOp::create(rewriter, loc, pointer, global);
    int index = indices.lookup(launch.getKernelName().getValue());
    Value shared = adaptor.getDynamicSharedMemorySize();
    if (!shared)
      shared = constant(rewriter, loc, i32, 0);
    SmallVector<Value> arguments = {module, constant(rewriter, loc, i32, index)};
    for (Value size : {adaptor.getGridSizeX(), adaptor.getGridSizeY(), adaptor.getGridSizeZ(),
                       adaptor.getBlockSizeX(), adaptor.getBlockSizeY(),
                       adaptor.getBlockSizeZ()})
      arguments.push_back(size);
    arguments.push_back(shared);
    arguments.push_back(array);
    LLVM::CallOp::create(rewriter, loc, TypeRange(), kLaunch, arguments);
    rewriter.eraseOp(launch);
    return success();
  }

  const llvm::StringMap<int> &indices;
};

struct AllocLowering : public ConvertOpToLLVMPattern<gpu::AllocOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult matchAndRewrite(gpu::AllocOp alloc, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    MemRefType type = alloc.getType();
    if (!isConvertibleAndHasIdentityMaps(type))
      return rewriter.notifyMatchFailure(alloc, "not an identity-layout memref");
    Location loc = alloc.getLoc();
    SmallVector<Value> sizes, strides;
    Value bytes;
    getMemRefDescriptorSizes(loc, type, adaptor.getDynamicSizes(), rewriter, sizes, strides,
                             bytes);
    auto pointer = LLVM::LLVMPointerType::get(rewriter.getContext());
    Value data = LLVM::CallOp::create(rewriter, loc, TypeRange{pointer}, kAlloc,
                                      ValueRange{bytes})
                     .getResult();
    rewriter.replaceOp(alloc, {createMemRefDescriptor(loc, type, data, data, sizes, strides,
                                                      rewriter)});
    return success();
  }
};

struct DeallocLowering : public ConvertOpToLLVMPattern<gpu::DeallocOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;

  LogicalResult matchAndRewrite(gpu::DeallocOp dealloc, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = dealloc.getLoc();
    Value data = MemRefDescriptor(adaptor.getMemref()).allocatedPtr(rewriter, loc);
    LLVM::CallOp::create(rewriter, loc, TypeRange(), kFree, ValueRange{data});
    rewriter.eraseOp(dealloc);
    return success();
  }
};

struct OpalGpuHostToLlvm : public opal::ir::impl::OpalGpuHostToLlvmBase<OpalGpuHostToLlvm> {
  using OpalGpuHostToLlvmBase::OpalGpuHostToLlvmBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(checkSupported(module)))
      return signalPassFailure();
    llvm::StringMap<int> indices = numberKernels(module);
    declareRuntime(module);

    LLVMTypeConverter converter(&getContext());
    RewritePatternSet patterns(&getContext());
    // The grid sizes divide rounding up.
    arith::populateCeilFloorDivExpandOpsPatterns(patterns);
    arith::populateArithToLLVMConversionPatterns(converter, patterns);
    cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);
    populateFuncToLLVMConversionPatterns(converter, patterns);
    index::populateIndexToLLVMConversionPatterns(converter, patterns);
    populateFinalizeMemRefToLLVMConversionPatterns(converter, patterns);
    ub::populateUBToLLVMConversionPatterns(converter, patterns);
    patterns.add<LaunchLowering>(converter, indices);
    patterns.add<AllocLowering, DeallocLowering>(converter);

    LLVMConversionTarget target(getContext());
    target.addLegalOp<ModuleOp, gpu::BinaryOp>();
    if (failed(applyFullConversion(module, target, std::move(patterns))))
      signalPassFailure();
  }

  /// Refuses what the runtime does not run, naming the op. A gpu.module
  /// left over is an error rather than marked recursively legal:
  /// ConversionTarget::markOpRecursivelyLegal corrupts the heap in Debian's
  /// MLIR 22 (an invalid write valgrind shows inside libMLIR).
  LogicalResult checkSupported(ModuleOp module) {
    if (auto left = llvm::to_vector(module.getOps<gpu::GPUModuleOp>()); !left.empty()) {
      left.front().emitError("opal-gpu-host-to-llvm: run gpu-module-to-binary first: "
                             "this gpu.module is not compiled to a gpu.binary");
      return failure();
    }
    auto binaries = llvm::to_vector(module.getOps<gpu::BinaryOp>());
    if (binaries.size() > 1) {
      binaries[1].emitError("opal-gpu-host-to-llvm: expected one gpu.binary (run "
                            "opal-merge-gpu-modules before outlining to binaries), found ")
          << binaries.size();
      return failure();
    }
    WalkResult walked = module.walk([&](Operation *op) {
      auto refuse = [&](const char *what) {
        op->emitError("opal-gpu-host-to-llvm: ") << what;
        return WalkResult::interrupt();
      };
      if (auto launch = dyn_cast<gpu::LaunchFuncOp>(op)) {
        if (launch.getAsyncToken() || !launch.getAsyncDependencies().empty())
          return refuse("asynchronous launches are not supported: opal orders work on "
                        "the device's current stream");
        if (launch.hasClusterSize())
          return refuse("thread block clusters are not supported");
        if (binaries.empty() ||
            launch.getKernelModuleName() != binaries.front().getSymNameAttr())
          return refuse("the launched kernel is not in the module's gpu.binary");
      } else if (auto alloc = dyn_cast<gpu::AllocOp>(op)) {
        if (alloc.getAsyncToken() || alloc.getHostShared())
          return refuse("only synchronous device allocations are supported");
      } else if (auto dealloc = dyn_cast<gpu::DeallocOp>(op)) {
        if (dealloc.getAsyncToken())
          return refuse("only synchronous deallocations are supported");
      }
      return WalkResult::advance();
    });
    return failure(walked.wasInterrupted());
  }

  /// Each launched kernel's index, in order of first launch; recorded in
  /// the module attribute `opal.gpu_kernels`.
  llvm::StringMap<int> numberKernels(ModuleOp module) {
    llvm::StringMap<int> indices;
    SmallVector<Attribute> names;
    module.walk([&](gpu::LaunchFuncOp launch) {
      StringAttr name = launch.getKernelName();
      if (indices.try_emplace(name.getValue(), static_cast<int>(names.size())).second)
        names.push_back(name);
    });
    module->setAttr("opal.gpu_kernels", ArrayAttr::get(&getContext(), names));
    return indices;
  }

  /// The runtime's functions and the module handle's global.
  void declareRuntime(ModuleOp module) {
    OpBuilder b(module.getBodyRegion());
    Location loc = module.getLoc();
    MLIRContext *context = &getContext();
    auto pointer = LLVM::LLVMPointerType::get(context);
    Type i32 = b.getI32Type(), i64 = b.getI64Type();
    auto voidType = LLVM::LLVMVoidType::get(context);
    auto declare = [&](StringRef name, Type result, ArrayRef<Type> parameters) {
      if (!module.lookupSymbol(name))
        LLVM::LLVMFuncOp::create(b, loc, name,
                                 LLVM::LLVMFunctionType::get(result, parameters));
    };
    declare(kLaunch, voidType, {pointer, i32, i64, i64, i64, i64, i64, i64, i32, pointer});
    declare(kAlloc, pointer, {i64});
    declare(kFree, voidType, {pointer});
    if (module.lookupSymbol(kModuleGlobal))
      return;
    auto global = LLVM::GlobalOp::create(b, loc, pointer, /*isConstant=*/false,
                                         LLVM::Linkage::External, kModuleGlobal, Attribute());
    Block *init = b.createBlock(&global.getInitializerRegion());
    b.setInsertionPointToStart(init);
    LLVM::ReturnOp::create(b, loc, LLVM::ZeroOp::create(b, loc, pointer).getResult());
  }
};

} // namespace
