//===- KernelBuilder.h - The IR of one call, and its entry points -*- C++ -*-===//
//
// The JIT turns a call into a module:
//
//   func.func @opal_kernel(%x: tensor<?x1xf32>, %beta: f64) -> !opal.tensor {
//     %threshold = arith.constant 20.0 : f64        // a specialized argument
//     %r = aten.softplus %x, %beta, %threshold : ... -> !opal.tensor
//     return %r : !opal.tensor
//   }
//
// Tensors are arguments (dims of size 1 static, others dynamic; on CUDA,
// those whose data is 16-byte aligned marked `opal.align = 16`), float and
// Scalar values are f64/i64 arguments, and every other argument is a
// constant. opal-decompose gives the result its concrete type; then
// splitEntryPoints makes the two entry points of CompiledKernel.h:
// `opal_kernel` writes its results into output arguments (destination-passing
// style), `opal_kernel_shapes` computes the dynamic output sizes.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_COMPILER_KERNELBUILDER_H
#define OPAL_COMPILER_KERNELBUILDER_H

#include "opal/JIT/CompiledKernel.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"

#include <string>

namespace opal::ir {

inline constexpr const char *kKernelName = "opal_kernel";
inline constexpr const char *kShapesName = "opal_kernel_shapes";

/// The module of a call to `schema` specialized as `spec`; on failure
/// `error` names the op and argument.
mlir::FailureOr<mlir::OwningOpRef<mlir::ModuleOp>>
buildCallModule(mlir::MLIRContext *context, const FunctionSchema &schema,
                const jit::CallSpec &spec, std::string &error);

/// After opal-decompose: the outputs of `opal_kernel` (dtype and static
/// sizes), with the module rewritten into the two entry points. A nonzero
/// `outputAlignment` marks the output buffers `opal.align` (the runtime
/// allocates them so aligned).
mlir::FailureOr<std::vector<jit::OutputSpec>>
splitEntryPoints(mlir::ModuleOp module, unsigned outputAlignment, std::string &error);

/// After splitEntryPoints, on the CPU: the non-contiguous tensor inputs
/// (ArgSpec::strided) both entry points read in place, through their
/// strides (`bufferization.buffer_layout` with dynamic strides and offset on
/// those arguments), as a mask of schema argument numbers
/// (CompiledKernel::readsInPlace). None when the kernel has matrix products,
/// convolutions or reshapes: those want dense operands (a reshape of a
/// strided view may not be a view), so the JIT copies the inputs first.
uint64_t readStridedInputsInPlace(mlir::ModuleOp module, const jit::CallSpec &spec);

/// After bufferization: where each dynamic output size comes from, when
/// `opal_kernel_shapes` does nothing but copy sizes of its tensor arguments
/// into the sizes buffer (CompiledKernel::sizeSources); empty when it
/// computes any size (a broadcast's, a reshape's) or does anything else.
/// `argKinds` has one entry per schema argument; the shapes entry takes the
/// non-constant ones, then the sizes buffer.
std::vector<jit::SizeSource> sizeSourcesOf(mlir::ModuleOp module,
                                           const std::vector<jit::ArgKind> &argKinds);

/// After opal-derive-shape-checks: the checks it recorded on
/// `opal_kernel`, with schema argument numbers (CompiledKernel::shapeChecks).
Expected<std::vector<jit::ShapeCheck>>
shapeChecksOf(mlir::ModuleOp module, const std::vector<jit::ArgKind> &argKinds);
/// Checks in the text of `opal.shape_checks` (function argument numbers),
/// with schema argument numbers.
Expected<std::vector<jit::ShapeCheck>>
readFunctionShapeChecks(const std::string &text, const std::vector<jit::ArgKind> &argKinds);

} // namespace opal::ir

#endif // OPAL_COMPILER_KERNELBUILDER_H
