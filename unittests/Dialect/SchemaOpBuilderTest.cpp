//===- SchemaOpBuilderTest.cpp - buildSchemaOp fills defaults -------------===//

#include "opal/Dialect/BuiltinLibraries.h"
#include "opal/Dialect/OpalDialect.h"
#include "opal/Dialect/OpalOps.h"
#include "opal/Dialect/SchemaDialect.h"
#include "opal/Dialect/SchemaOpBuilder.h"
#include "opal/Schema/SchemaParser.h"
#include "opal/Transforms/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/raw_ostream.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace opal;

namespace {

const FunctionSchema &aten(const std::string &name) {
  for (const FunctionSchema &s : ir::builtinSchemas())
    if (ir::schemaOpName(s) == name)
      return s;
  throw std::runtime_error("no built-in schema " + name);
}

struct SchemaOpBuilderTest : public ::testing::Test {
  SchemaOpBuilderTest() : context(makeRegistry()) {
    context.loadAllAvailableDialects();
    module = ModuleOp::create(UnknownLoc::get(&context));
    builder = std::make_unique<OpBuilder>(OpBuilder::atBlockBegin(module->getBody()));
    auto type = builder->getFunctionType({tensor, tensor}, {});
    func = func::FuncOp::create(*builder, builder->getUnknownLoc(), "f", type);
    builder->setInsertionPointToStart(func.addEntryBlock());
  }
  static DialectRegistry makeRegistry() {
    DialectRegistry registry;
    registry.insert<ir::OpalDialect, func::FuncDialect, arith::ArithDialect,
                    tensor::TensorDialect>();
    ir::registerSchemaDialects(registry, ir::builtinSchemas());
    return registry;
  }
  std::string print(Operation *op) {
    std::string text;
    llvm::raw_string_ostream os(text);
    op->print(os);
    return text;
  }
  size_t opsInFunction() { return func.getBody().front().getOperations().size(); }

  MLIRContext context;
  Type tensor = RankedTensorType::get({2, 3}, Float32Type::get(&context));
  OwningOpRef<ModuleOp> module;
  std::unique_ptr<OpBuilder> builder;
  func::FuncOp func;
  std::string error;
};

TEST_F(SchemaOpBuilderTest, FillsScalarDefaults) {
  Value x = func.getArgument(0), y = func.getArgument(1);
  auto op = ir::buildSchemaOp(*builder, builder->getUnknownLoc(), aten("aten.add.Tensor"), {x, y},
                              {}, {tensor}, error);
  ASSERT_TRUE(succeeded(op)) << error;
  EXPECT_EQ((*op)->getNumOperands(), 3u);
  auto alpha = (*op)->getOperand(2).getDefiningOp<arith::ConstantIntOp>();
  ASSERT_TRUE(alpha);
  EXPECT_EQ(alpha.value(), 1);
  EXPECT_TRUE(alpha.getType().isInteger(64));
  EXPECT_TRUE(succeeded(verify(*op)));
}

TEST_F(SchemaOpBuilderTest, FillsStringListNoneAndFloatDefaults) {
  Value x = func.getArgument(0);
  auto gelu = ir::buildSchemaOp(*builder, builder->getUnknownLoc(), aten("aten.gelu"), {x}, {},
                                {tensor}, error);
  ASSERT_TRUE(succeeded(gelu)) << error;
  auto approximate = (*gelu)->getOperand(1).getDefiningOp<ir::StrOp>();
  ASSERT_TRUE(approximate);
  EXPECT_EQ(approximate.getValue(), "none");

  auto amax = ir::buildSchemaOp(*builder, builder->getUnknownLoc(), aten("aten.amax"), {x}, {},
                                {tensor}, error);
  ASSERT_TRUE(succeeded(amax)) << error;
  auto list = (*amax)->getOperand(1).getDefiningOp<ir::ListOp>();
  ASSERT_TRUE(list);
  EXPECT_EQ(list.getElements().size(), 0u); // dim=[]
  auto keepdim = (*amax)->getOperand(2).getDefiningOp<arith::ConstantIntOp>();
  ASSERT_TRUE(keepdim);
  EXPECT_TRUE(keepdim.getType().isInteger(1));

  Value c8 = arith::ConstantIntOp::create(*builder, builder->getUnknownLoc(), 3, 64);
  Value shape = ir::ListOp::create(*builder, builder->getUnknownLoc(),
                                   ir::ListType::get(&context, builder->getI64Type()),
                                   ValueRange{c8});
  auto norm = ir::buildSchemaOp(*builder, builder->getUnknownLoc(), aten("aten.layer_norm"),
                                {x, shape}, {}, {tensor}, error);
  ASSERT_TRUE(succeeded(norm)) << error;
  EXPECT_TRUE(isa<ir::NoneOp>((*norm)->getOperand(2).getDefiningOp())); // weight=None
  auto eps = (*norm)->getOperand(4).getDefiningOp<arith::ConstantFloatOp>();
  ASSERT_TRUE(eps);
  EXPECT_DOUBLE_EQ(eps.value().convertToDouble(), 1e-5);
  func::ReturnOp::create(*builder, builder->getUnknownLoc());
  EXPECT_TRUE(succeeded(verify(*module)));
}

TEST_F(SchemaOpBuilderTest, KeywordsOverrideDefaults) {
  Value x = func.getArgument(0), y = func.getArgument(1);
  Value two = arith::ConstantIntOp::create(*builder, builder->getUnknownLoc(), 2, 64);
  auto op = ir::buildSchemaOp(*builder, builder->getUnknownLoc(), aten("aten.add.Tensor"), {x},
                              {{"other", y}, {"alpha", two}}, {tensor}, error);
  ASSERT_TRUE(succeeded(op)) << error;
  EXPECT_EQ((*op)->getOperand(1), y);
  EXPECT_EQ((*op)->getOperand(2), two);
}

TEST_F(SchemaOpBuilderTest, BadArgumentsCreateNothing) {
  Value x = func.getArgument(0), y = func.getArgument(1);
  size_t before = opsInFunction();
  Location loc = builder->getUnknownLoc();
  EXPECT_TRUE(failed(ir::buildSchemaOp(*builder, loc, aten("aten.add.Tensor"), {x}, {}, {tensor},
                                       error)));
  EXPECT_EQ(error, "aten::add.Tensor() is missing argument 'other'");
  EXPECT_TRUE(failed(ir::buildSchemaOp(*builder, loc, aten("aten.add.Tensor"), {x, y, x}, {},
                                       {tensor}, error)));
  EXPECT_EQ(error, "aten::add.Tensor() takes 2 positional arguments but 3 were given");
  EXPECT_TRUE(failed(ir::buildSchemaOp(*builder, loc, aten("aten.add.Tensor"), {x, y},
                                       {{"beta", x}}, {tensor}, error)));
  EXPECT_EQ(error, "aten::add.Tensor() got an unexpected keyword argument 'beta'");
  EXPECT_TRUE(failed(ir::buildSchemaOp(*builder, loc, aten("aten.add.Tensor"), {x, y},
                                       {{"self", y}}, {tensor}, error)));
  EXPECT_EQ(error, "aten::add.Tensor() got multiple values for argument 'self'");
  EXPECT_TRUE(failed(ir::buildSchemaOp(*builder, loc, aten("aten.add.Tensor"), {x, y},
                                       {{"alpha", x}}, {tensor}, error)));
  EXPECT_EQ(error, "aten::add.Tensor(): argument 'alpha' must be i64, f64, i1 or a complex, but "
                   "is 'tensor<2x3xf32>'");
  EXPECT_TRUE(failed(
      ir::buildSchemaOp(*builder, loc, aten("aten.add.Tensor"), {x, y}, {}, {}, error)));
  EXPECT_EQ(error, "aten::add.Tensor() returns 1 values, but 0 result types were given");
  EXPECT_EQ(opsInFunction(), before);
}

TEST_F(SchemaOpBuilderTest, BuiltOpsDecompose) {
  Value x = func.getArgument(0), y = func.getArgument(1);
  Location loc = builder->getUnknownLoc();
  auto add = ir::buildSchemaOp(*builder, loc, aten("aten.add.Tensor"), {x, y}, {}, {tensor}, error);
  ASSERT_TRUE(succeeded(add)) << error;
  auto softmax = ir::buildSchemaOp(*builder, loc, aten("aten.softmax.int"),
                                   {(*add)->getResult(0),
                                    arith::ConstantIntOp::create(*builder, loc, 1, 64)},
                                   {}, {tensor}, error);
  ASSERT_TRUE(succeeded(softmax)) << error;
  func::ReturnOp::create(*builder, loc);
  func.setType(builder->getFunctionType({tensor, tensor}, {}));
  PassManager pm(&context);
  pm.addPass(ir::createOpalDecompose());
  ASSERT_TRUE(succeeded(pm.run(*module)));
  std::string text = print(*module);
  EXPECT_EQ(text.find("aten."), std::string::npos) << text;
  EXPECT_NE(text.find("prims.amax"), std::string::npos) << text;
}

} // namespace
