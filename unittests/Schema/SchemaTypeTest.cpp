//===- SchemaTypeTest.cpp - Schema types ----------------------------------===//

#include "opal/Schema/SchemaParser.h"

#include <gtest/gtest.h>

using namespace opal;

namespace {

TypePtr type(const std::string &text) {
  ParseResult<TypePtr> result = parseType(text);
  if (!result) {
    ADD_FAILURE() << result.error().message();
    return SchemaType::get(TypeKind::None);
  }
  return *result;
}

TEST(SchemaType, SpellingsRoundTrip) {
  for (const char *text :
       {"Tensor", "Tensor?", "Tensor[]", "Tensor?[]", "Tensor(a!)", "Tensor(a!)[]",
        "Tensor(a)?", "int[2]", "int[2]?", "int[]?", "SymInt[]", "Dict(str, Tensor)",
        "(int, float)", "Tensor!", "Scalar", "ScalarType?", "Device", "Generator?",
        "Tensor(a -> *)", "Tensor(a|b)", "float[]"}) {
    SCOPED_TRACE(text);
    EXPECT_EQ(type(text)->str(), text);
  }
}

TEST(SchemaType, Structure) {
  TypePtr t = type("Tensor(a!)?[]");
  ASSERT_TRUE(t->isList());
  ASSERT_TRUE(t->element()->isOptional());
  EXPECT_EQ(t->element()->element()->kind(), TypeKind::Tensor);
  EXPECT_EQ(t->element()->element()->aliasInfo()->str(), "(a!)");
  EXPECT_EQ(*t->withoutAlias(), *type("Tensor?[]"));

  TypePtr sized = type("int[3]?");
  EXPECT_EQ(sized->element()->fixedSize(), 3);
}

TEST(SchemaType, PythonSpelling) {
  EXPECT_EQ(type("Tensor?")->pythonStr(), "Optional[Tensor]");
  EXPECT_EQ(type("int[]")->pythonStr(), "List[int]");
  EXPECT_EQ(type("Scalar")->pythonStr(), "number");
  EXPECT_EQ(type("Dict(str, Tensor[])")->pythonStr(), "Dict[str, List[Tensor]]");
  EXPECT_EQ(type("(int, float)")->pythonStr(), "Tuple[int, float]");
}

TEST(SchemaType, FakeTypes) {
  EXPECT_EQ(type("SymInt[]")->fakeType()->str(), "int[]");
  EXPECT_EQ(type("ScalarType?")->fakeType()->str(), "int?");
  EXPECT_EQ(type("MemoryFormat")->fakeType()->str(), "int");
  EXPECT_EQ(type("Layout")->fakeType()->str(), "int");
  EXPECT_EQ(type("Tensor")->fakeType()->str(), "Tensor");
}

TEST(SchemaType, TensorLikeArgumentsDispatch) {
  EXPECT_TRUE(type("Tensor")->isTensorLike());
  EXPECT_TRUE(type("Tensor?")->isTensorLike());
  EXPECT_TRUE(type("Tensor[]")->isTensorLike());
  EXPECT_TRUE(type("Tensor?[]")->isTensorLike());
  EXPECT_TRUE(type("Tensor(a!)")->isTensorLike());
  EXPECT_FALSE(type("int")->isTensorLike());
  EXPECT_FALSE(type("Dict(str, Tensor)")->isTensorLike());
  EXPECT_FALSE(type("Scalar")->isTensorLike());
}

TEST(SchemaType, TypeVariablesAndClasses) {
  TypePtr var = type("t[]");
  EXPECT_EQ(var->element()->kind(), TypeKind::TypeVar);
  EXPECT_EQ(var->element()->name(), "t");
  TypePtr cls = type("__torch__.torch.classes.mylib.Cache?");
  EXPECT_EQ(cls->element()->kind(), TypeKind::Class);
  EXPECT_EQ(cls->element()->name(), "__torch__.torch.classes.mylib.Cache");
  EXPECT_EQ(cls->pythonStr(), "Optional[__torch__.torch.classes.mylib.Cache]");
  EXPECT_NE(*type("t"), *type("u"));
}

TEST(SchemaType, Equality) {
  EXPECT_EQ(*type("int[2]"), *type("int[2]"));
  EXPECT_NE(*type("int[2]"), *type("int[3]"));
  EXPECT_NE(*type("int[2]"), *type("int[]"));
  EXPECT_NE(*type("Tensor(a)"), *type("Tensor(b)"));
  EXPECT_NE(*type("Tensor(a)"), *type("Tensor(a!)"));
  EXPECT_EQ(SchemaType::get(TypeKind::Int), SchemaType::get(TypeKind::Int));
}

TEST(SchemaType, BaseTypeNames) {
  EXPECT_EQ(lookupBaseType("Tensor"), TypeKind::Tensor);
  EXPECT_EQ(lookupBaseType("None"), TypeKind::None);
  EXPECT_EQ(lookupBaseType("tensor"), std::nullopt);
  EXPECT_STREQ(baseTypeName(TypeKind::Scalar), "Scalar");
  EXPECT_EQ(allBaseTypeNames().size(), 25u);
  EXPECT_EQ(lookupBaseType("SymBool"), TypeKind::SymBool);
}

TEST(SchemaType, InvalidStandaloneTypes) {
  auto error = parseType("Tensor x");
  ASSERT_FALSE(error);
  EXPECT_EQ(error.error().reason(), "unexpected 'x' after the end of the type");
  EXPECT_EQ(error.error().column(), 8u);
}

} // namespace
