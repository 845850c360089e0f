//===- SchemaDialectTest.cpp - Schemas as MLIR ops ------------------------===//

#include "opal/Dialect/BuiltinLibraries.h"
#include "opal/Dialect/OpalDialect.h"
#include "opal/Dialect/OpalTypes.h"
#include "opal/Dialect/SchemaDialect.h"
#include "opal/Schema/SchemaParser.h"
#include "opal/Dialect/OpalOps.h"
#include "opal/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Parser/Parser.h"

#include <gtest/gtest.h>

#include <map>
#include <set>

using namespace mlir;
using namespace opal;

namespace {

FunctionSchema schema(const std::string &text) { return *parseSchema(text); }

TypePtr type(const std::string &text) { return *parseType(text); }

TEST(SchemaDialect, OpNames) {
  EXPECT_EQ(ir::schemaOpName(schema("mylib::softplus(Tensor x) -> Tensor")), "mylib.softplus");
  EXPECT_EQ(ir::schemaOpName(schema("aten::add.Tensor(Tensor a, Tensor b) -> Tensor")),
            "aten.add.Tensor");
}

TEST(SchemaDialect, TypeMapping) {
  MLIRContext context;
  context.loadDialect<ir::OpalDialect>();
  Builder b(&context);
  Type f32Tensor = RankedTensorType::get({2}, b.getF32Type());
  Type unranked = UnrankedTensorType::get(b.getI64Type());
  Type indexTensor = RankedTensorType::get({2}, b.getIndexType());
  Type none = ir::NoneType::get(&context);
  Type intList = ir::ListType::get(&context, b.getI64Type());
  EXPECT_TRUE(ir::typeFitsSchema(f32Tensor, *type("Tensor")));
  EXPECT_TRUE(ir::typeFitsSchema(unranked, *type("Tensor")));
  EXPECT_FALSE(ir::typeFitsSchema(indexTensor, *type("Tensor")));
  EXPECT_TRUE(ir::typeFitsSchema(none, *type("Tensor?")));
  EXPECT_FALSE(ir::typeFitsSchema(none, *type("Tensor")));
  EXPECT_TRUE(ir::typeFitsSchema(b.getI64Type(), *type("SymInt")));
  EXPECT_TRUE(ir::typeFitsSchema(b.getI64Type(), *type("ScalarType")));
  EXPECT_TRUE(ir::typeFitsSchema(b.getF64Type(), *type("float")));
  EXPECT_FALSE(ir::typeFitsSchema(b.getF32Type(), *type("float")));
  EXPECT_TRUE(ir::typeFitsSchema(b.getI1Type(), *type("Scalar")));
  EXPECT_TRUE(ir::typeFitsSchema(intList, *type("int[2]")));
  EXPECT_FALSE(ir::typeFitsSchema(intList, *type("float[]")));
  EXPECT_EQ(ir::describeSchemaType(*type("int[]?")), "!opal.list of i64 or !opal.none");
}

TEST(SchemaDialect, Problems) {
  EXPECT_EQ(ir::schemaOpProblem(schema("mylib::f(Tensor x) -> Tensor")), "");
  EXPECT_EQ(ir::schemaOpProblem(schema("f(Tensor x) -> Tensor")),
            "schema f(Tensor x) -> Tensor has no namespace");
  EXPECT_EQ(ir::schemaOpProblem(schema("mylib::f(...) -> ...")),
            "schema mylib::f(...) -> ... has '...', which MLIR ops cannot have");
  EXPECT_EQ(ir::schemaOpProblem(schema("mylib::f(Tensor x, Generator g) -> Tensor")),
            "argument 'g' of mylib::f has type Generator, which opal's MLIR ops do not "
            "support yet");
  // An optional generator is always None (one generator per device type).
  EXPECT_EQ(ir::schemaOpProblem(schema("mylib::f(Tensor x, Generator? g=None) -> Tensor")), "");
}

TEST(SchemaDialect, RegisteredOpsVerifyAgainstTheirSchema) {
  DialectRegistry registry;
  registry.insert<ir::OpalDialect, func::FuncDialect>();
  ir::registerSchemaDialects(registry, {schema("mylib::scale(Tensor x, float f) -> Tensor")});
  MLIRContext context(registry);
  std::string diagnostics;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &d) {
    diagnostics += d.str();
    return success();
  });
  auto good = parseSourceString<ModuleOp>(
      "func.func @f(%x: tensor<3xf32>, %s: f64) -> tensor<3xf32> {\n"
      "  %r = mylib.scale %x, %s : (tensor<3xf32>, f64) -> tensor<3xf32>\n"
      "  return %r : tensor<3xf32>\n}",
      &context);
  ASSERT_TRUE(good) << diagnostics;
  EXPECT_TRUE(succeeded(verify(*good)));
  auto bad = parseSourceString<ModuleOp>(
      "func.func @f(%x: tensor<3xf32>, %s: i64) -> tensor<3xf32> {\n"
      "  %r = mylib.scale %x, %s : (tensor<3xf32>, i64) -> tensor<3xf32>\n"
      "  return %r : tensor<3xf32>\n}",
      &context);
  EXPECT_FALSE(bad);
  EXPECT_EQ(diagnostics, "'mylib.scale' op operand #1 ('f' of type float) must be f64, but got 'i64'");
}

TEST(SchemaDialect, BuiltinLibrariesParse) {
  ASSERT_FALSE(ir::builtinLibraries().empty());
  EXPECT_EQ(ir::builtinLibraries().front().first, "prims.opal.mlir");
  const auto &schemas = ir::builtinSchemas();
  std::map<std::string, int> perNamespace;
  for (const FunctionSchema &s : schemas) {
    ++perNamespace[std::string(s.ns())];
    EXPECT_EQ(ir::schemaOpProblem(s), "") << s.str();
  }
  EXPECT_EQ(perNamespace.size(), 3u);
  EXPECT_EQ(perNamespace["prims"], 91);
  EXPECT_EQ(perNamespace["aten"], 253);
  // The derivative formulas (derivatives.opal.mlir).
  EXPECT_EQ(perNamespace["aten_backward"], 184);
}

TEST(SchemaDialect, DecompositionsAreFoundInTheLibraryTexts) {
  // opal-decompose parses a built-in library only when a module needs one
  // of the decompositions a scan of its text finds: the scan must find
  // exactly those that parsing does.
  DialectRegistry registry;
  registry.insert<ir::OpalDialect, arith::ArithDialect, func::FuncDialect>();
  ir::registerSchemaDialects(registry, ir::builtinSchemas());
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  size_t total = 0;
  for (const auto &[name, text] : ir::builtinLibraries()) {
    OwningOpRef<ModuleOp> module = parseSourceString<ModuleOp>(text, &context, name);
    ASSERT_TRUE(module) << name;
    std::multiset<std::string> parsed;
    module->walk([&](ir::DecompositionOp decomposition) {
      llvm::StringRef op = decomposition.getOp();
      auto [ns, rest] = op.split("::");
      parsed.insert(rest.empty()
                        ? (decomposition->getParentOfType<ir::LibraryOp>().getNs() + "." + op).str()
                        : (ns + "." + rest).str());
    });
    std::vector<std::string> scanned = ir::scanOpLibraryText(text).decompositions;
    EXPECT_EQ(std::multiset<std::string>(scanned.begin(), scanned.end()), parsed) << name;
    total += parsed.size();
  }
  EXPECT_GT(total, 300u);
  ir::ScannedOpLibrary small = ir::scanOpLibraryText(
      "opal.library \"a\" {\n  opal.decomposition \"f.x\" {}\n"
      "  opal.decomposition \"b::g\" {}\n}");
  EXPECT_EQ(small.decompositions, (std::vector<std::string>{"a.f.x", "b.g"}));
  EXPECT_EQ(small.namespaces, (std::vector<std::string>{"a"}));
  // Several libraries in one text: each decomposition takes the namespace
  // of the library it follows.
  ir::ScannedOpLibrary two = ir::scanOpLibraryText(
      "opal.library \"a\" {\n  opal.decomposition \"f\" {}\n  opal.decomposition \"g\" {}\n}\n"
      "opal.library \"c\" {\n  opal.decomposition \"h\" {}\n}\n"
      "opal.library \"d\" {\n}\n");
  EXPECT_EQ(two.decompositions, (std::vector<std::string>{"a.f", "a.g", "c.h"}));
  EXPECT_EQ(two.namespaces, (std::vector<std::string>{"a", "c", "d"}));
}

} // namespace
