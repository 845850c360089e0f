//===- SchemaOpBuilder.h - Building schema ops with defaults ----*- C++ -*-===//
//
// Creates the op of a schema from the arguments a caller has, as PyTorch's
// calls do: positional arguments in schema order, keyword arguments by name,
// and every argument left out filled from its default (arith.constant,
// opal.none, opal.str or opal.list of constants). Used by the JIT to turn a
// call into IR, and by tools and tests that build IR by hand.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_DIALECT_SCHEMAOPBUILDER_H
#define OPAL_DIALECT_SCHEMAOPBUILDER_H

#include "opal/Schema/FunctionSchema.h"

#include "mlir/IR/Builders.h"

#include <string>
#include <utility>
#include <vector>

namespace opal::ir {

/// The value of `argument`'s default, created at `builder`; fails (with
/// `error`) if it has none or MLIR has no constant for it.
mlir::FailureOr<mlir::Value> materializeDefault(mlir::OpBuilder &builder, mlir::Location loc,
                                                const Argument &argument, std::string &error);

/// Creates the op of `schema` with `positional` for its leading non-keyword
/// arguments, `keywords` by name, defaults for the rest, and `resultTypes`.
/// On a missing, unknown, repeated or mistyped argument nothing is created
/// and `error` names the operator, the argument and what was expected.
mlir::FailureOr<mlir::Operation *>
buildSchemaOp(mlir::OpBuilder &builder, mlir::Location loc, const FunctionSchema &schema,
              mlir::ValueRange positional,
              const std::vector<std::pair<std::string, mlir::Value>> &keywords,
              mlir::TypeRange resultTypes, std::string &error);

} // namespace opal::ir

#endif // OPAL_DIALECT_SCHEMAOPBUILDER_H
