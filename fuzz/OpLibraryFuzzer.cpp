//===- OpLibraryFuzzer.cpp - libFuzzer target: op-library files -----------===//
//
// Any text, read the way opal.library.load and opal-opt --op-library read a
// file: the MLIR-free scanner first (schemas, decompositions, precompiled
// specializations), then, with the schemas it found registered as dialects
// beside the built-in ones, MLIR's parser and opal's verifiers. Bad text must
// give diagnostics, never a crash or a heap error (ASan).
//
//===----------------------------------------------------------------------===//

#include "opal/Dialect/BuiltinLibraries.h"
#include "opal/Dialect/OpalDialect.h"
#include "opal/Dialect/SchemaDialect.h"
#include "opal/Schema/OpLibraryFile.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include <set>
#include <string>

using namespace mlir;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  auto contents = opal::scanOpLibrary(text, "fuzz.opal.mlir");
  if (!contents)
    return 0;
  // As opal.library.load: ops the dispatcher would refuse (defined twice,
  // or with no MLIR form) never reach the parser.
  std::vector<opal::FunctionSchema> schemas = opal::ir::builtinSchemas();
  std::set<std::string> names;
  for (const opal::FunctionSchema &schema : schemas)
    names.insert(opal::ir::schemaOpName(schema));
  for (const opal::FunctionSchema &schema : contents->schemas) {
    if (!opal::ir::schemaOpProblem(schema).empty() ||
        !names.insert(opal::ir::schemaOpName(schema)).second)
      return 0;
    schemas.push_back(schema);
  }
  DialectRegistry registry;
  registry.insert<opal::ir::OpalDialect, arith::ArithDialect, func::FuncDialect,
                  math::MathDialect, tensor::TensorDialect>();
  opal::ir::registerSchemaDialects(registry, schemas);
  MLIRContext context(registry, MLIRContext::Threading::DISABLED);
  context.loadAllAvailableDialects();
  context.getDiagEngine().registerHandler([](Diagnostic &) { return success(); });
  ParserConfig config(&context);
  OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, config, "fuzz.opal.mlir");
  return 0;
}
