//===- Passes.td - opal's passes ---------------------------*- tablegen -*-===//

#ifndef OPAL_TRANSFORMS_PASSES_TD
#define OPAL_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def OpalLowerToLinalg : Pass<"opal-lower-to-linalg"> {
  let summary = "Lowers prims ops to linalg on tensors, tensor, arith and math";
  let description = [{
    Each elementwise prim (unary and binary math, comparisons, `where`,
    `convert_element_type`) becomes one `linalg.generic` over ranked tensors
    of one shape, writing into a `tensor.empty` whose dynamic sizes come from
    the first operand. A prim whose operands do not fit (unranked or
    different shapes, mixed or unsupported element types) is reported with
    the reason, and the pass fails.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

def OpalDecompose : Pass<"opal-decompose", "::mlir::ModuleOp"> {
  let summary = "Replaces composite ops with their decomposition bodies";
  let description = [{
    Every op whose op library gives an `opal.decomposition` is replaced by a
    copy of the body, with the op's operands for the block arguments; the
    body's ops that are themselves composites are decomposed in turn, down to
    prims and to ops named in `legal-ops`. Tensor types of the body
    (`!opal.tensor`) are inferred from the operands of each use, prim by
    prim. Each decomposition is a rewrite pattern for its op, applied to a
    fixed point by the greedy driver; a decomposition that reaches itself is
    reported as a cycle, not expanded forever.

    The decompositions come from the op libraries opal-opt loaded
    (`--op-library`), the built-in libraries, and any `opal.library` in the
    input.
  }];
  let options = [
    ListOption<"legalOps", "legal-ops", "std::string",
               "ops to keep, by MLIR name (e.g. mylib.softplus)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::tensor::TensorDialect"];
}

#endif // OPAL_TRANSFORMS_PASSES_TD

def OpalApproximateMath : Pass<"opal-approximate-math"> {
  let summary = "Replaces f32 transcendental math ops with polynomial approximations";
  let description = [{
    `math.exp`, `math.log` and the other ops named in `ops` on f32 (scalars
    or vectors) become MLIR's polynomial approximations: plain arithmetic
    that LLVM vectorizes, instead of one libm call per element, so that
    elementwise kernels with exp/log/tanh/erf stay memory-bound (the
    approximations' fused multiply-adds become `llvm.intr.fma`). f64 and
    every op not listed keep their libm calls. The error bound per op is
    measured against numpy in python/test/test_jit_precision.py and stated in
    docs/jit.md.
  }];
  let options = [
    ListOption<"ops", "ops", "std::string",
               "math ops to approximate, by name without the dialect "
               "(default: exp, expm1, log, log1p, log2, tanh, erf)">,
  ];
  let dependentDialects = ["::mlir::arith::ArithDialect", "::mlir::math::MathDialect",
                           "::mlir::vector::VectorDialect", "::mlir::LLVM::LLVMDialect"];
}

def OpalTileMatmul : Pass<"opal-tile-matmul", "::mlir::func::FuncOp"> {
  let summary = "Orders and tiles matrix products on buffers for CPU caches";
  let description = [{
    Each `linalg.matmul` and `linalg.batch_matmul` on memrefs becomes a
    `linalg.generic` whose loops run (batch,) row, reduction, column, so the
    innermost loop walks rows of B and C contiguously and LLVM vectorizes it
    with fused multiply-adds; the reduction and column loops are then tiled
    (`tile-k`, `tile-n`) so a block of B stays in the L2 cache while every
    row of A passes over it.
  }];
  let options = [
    Option<"tileK", "tile-k", "int64_t", "256", "reduction tile size">,
    Option<"tileN", "tile-n", "int64_t", "512", "column tile size">,
  ];
  let dependentDialects = ["::mlir::linalg::LinalgDialect", "::mlir::scf::SCFDialect",
                           "::mlir::affine::AffineDialect", "::mlir::memref::MemRefDialect"];
}
