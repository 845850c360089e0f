//===- SchemaDialect.h - Operator schemas as MLIR ops ----------*- C++ -*-===//
//
// Every op namespace becomes a dynamic MLIR dialect and every schema an op of
// it: `mylib::softplus` is `mylib.softplus`, `aten::add.Tensor` is
// `aten.add.Tensor`. Operands follow the schema's arguments and results its
// returns; the verifier checks counts and types:
//
//   Tensor → any builtin tensor        int, SymInt, ScalarType, Layout,
//   float → f64, bool → i1                MemoryFormat → i64
//   Scalar → i64, f64, i1 or complex   str → !opal.str, Device → !opal.device
//   T? → T or !opal.none               T[] → !opal.list<T>
//
// The custom form is `%r = mylib.softplus %x, %beta : (tensor<?xf32>, f64) ->
// tensor<?xf32>`.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_DIALECT_SCHEMADIALECT_H
#define OPAL_DIALECT_SCHEMADIALECT_H

#include "opal/Schema/FunctionSchema.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/Types.h"

#include <string>
#include <vector>

namespace opal::ir {

/// The MLIR name of a schema's op: "ns.name" or "ns.name.overload".
std::string schemaOpName(const FunctionSchema &schema);

/// True if values of MLIR type `type` can stand for schema type `schemaType`.
bool typeFitsSchema(mlir::Type type, const SchemaType &schemaType);
/// What typeFitsSchema accepts, for diagnostics ("a tensor", "i64", ...).
std::string describeSchemaType(const SchemaType &schemaType);

/// Why `schema` cannot become an MLIR op (an argument type MLIR has no form
/// for, no namespace, varargs), or an empty string if it can.
std::string schemaOpProblem(const FunctionSchema &schema);

/// Adds to `registry` one dynamic dialect per namespace of `schemas`, with an
/// op per schema. Schemas must not have problems (schemaOpProblem).
void registerSchemaDialects(mlir::DialectRegistry &registry,
                            const std::vector<FunctionSchema> &schemas);

} // namespace opal::ir

#endif // OPAL_DIALECT_SCHEMADIALECT_H
