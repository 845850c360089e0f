//===- OpalDialect.td - The opal dialect -------------------*- tablegen -*-===//
//
// The `opal` dialect holds what schema values need and builtin lacks (None,
// lists, strings, devices), the ops that make those values, and the container
// ops of an op library. Operator schemas themselves become ops of dynamic,
// per-namespace dialects (see SchemaDialect.h).
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_DIALECT_OPALDIALECT_TD
#define OPAL_DIALECT_OPALDIALECT_TD

include "mlir/IR/OpBase.td"

def Opal_Dialect : Dialect {
  let name = "opal";
  let summary = "Types and container ops for opal's operator schemas";
  let description = [{
    Values of schema types that builtin MLIR types do not cover: `!opal.none`
    (the value of an absent optional), `!opal.list<T>`, `!opal.str` and
    `!opal.device`. Tensors are builtin tensors; `int` is `i64`, `float` is
    `f64`, `bool` is `i1`.
  }];
  let cppNamespace = "::opal::ir";
  let useDefaultTypePrinterParser = 1;
}

class Opal_Op<string mnemonic, list<Trait> traits = []>
    : Op<Opal_Dialect, mnemonic, traits>;

#endif // OPAL_DIALECT_OPALDIALECT_TD
