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

#endif // OPAL_TRANSFORMS_PASSES_TD
