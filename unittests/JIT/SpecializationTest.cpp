//===- SpecializationTest.cpp - Specialization keys -----------------------===//

#include "opal/JIT/Specialization.h"

#include "opal/Runtime/Tensor.h"
#include "opal/Schema/SchemaParser.h"

#include <gtest/gtest.h>

#include <algorithm>

using namespace opal;
using namespace opal::jit;

namespace {

FunctionSchema schema(const char *text) { return *parseSchema(text); }

std::vector<uint64_t> keyOf(const FunctionSchema &s, std::vector<IValue> args,
                            bool staticShapes = false) {
  std::vector<uint64_t> words;
  auto ok = appendKeyWords(s, args.data(), DeviceType::CPU, staticShapes, words);
  EXPECT_TRUE(ok.hasValue());
  return words;
}

TEST(Specialization, FloatScalarsAreRuntimeValues) {
  auto s = schema("t::mul(Tensor x, Scalar s) -> Tensor");
  Tensor x = Tensor::empty({4, 5});
  EXPECT_EQ(keyOf(s, {x, 0.5}), keyOf(s, {x, 0.7}));
  // An int Scalar promotes differently: another kernel.
  EXPECT_NE(keyOf(s, {x, 0.5}), keyOf(s, {x, int64_t(2)}));
  EXPECT_EQ(keyOf(s, {x, int64_t(2)}), keyOf(s, {x, int64_t(3)}));
}

TEST(Specialization, DimsAndFlagsAreSpecialized) {
  auto s = schema("t::sum(Tensor x, int[] dim, bool keepdim) -> Tensor");
  Tensor x = Tensor::empty({4, 5});
  EXPECT_NE(keyOf(s, {x, std::vector<int64_t>{0}, false}),
            keyOf(s, {x, std::vector<int64_t>{1}, false}));
  EXPECT_NE(keyOf(s, {x, std::vector<int64_t>{0}, false}),
            keyOf(s, {x, std::vector<int64_t>{0}, true}));
  // A longer list is not a prefix match.
  EXPECT_NE(keyOf(s, {x, std::vector<int64_t>{0}, false}),
            keyOf(s, {x, std::vector<int64_t>{0, 1}, false}));
}

TEST(Specialization, TensorsByDtypeRankAndSizeOneDims) {
  auto s = schema("t::f(Tensor x) -> Tensor");
  EXPECT_EQ(keyOf(s, {Tensor::empty({4, 5})}), keyOf(s, {Tensor::empty({7, 9})}));
  EXPECT_NE(keyOf(s, {Tensor::empty({4, 5})}), keyOf(s, {Tensor::empty({4, 1})}));
  EXPECT_NE(keyOf(s, {Tensor::empty({4, 5})}), keyOf(s, {Tensor::empty({20})}));
  EXPECT_NE(keyOf(s, {Tensor::empty({4, 5})}),
            keyOf(s, {Tensor::empty({4, 5}, ScalarType::Double)}));
  // With static shapes every size counts.
  EXPECT_NE(keyOf(s, {Tensor::empty({4, 5})}, true), keyOf(s, {Tensor::empty({7, 9})}, true));
}

TEST(Specialization, StringsAreComparedWhole) {
  auto s = schema("t::gelu(Tensor x, str approximate) -> Tensor");
  Tensor x = Tensor::empty({3});
  EXPECT_NE(keyOf(s, {x, "none"}), keyOf(s, {x, "tanh"}));
  EXPECT_NE(keyOf(s, {x, "abcdefgh"}), keyOf(s, {x, "abcdefghi"}));
}

TEST(Specialization, SpecDescribesTheCall) {
  auto s = schema("t::f(Tensor x, float beta, int dim, Tensor? w=None) -> Tensor");
  std::vector<IValue> args = {Tensor::empty({4, 1}), 2.0, int64_t(1), IValue()};
  CallSpec spec = makeCallSpec(s, args.data(), DeviceType::CPU, false);
  EXPECT_EQ(spec.str(), "(float32[?,1], float, int=1, None)");
  ASSERT_EQ(spec.args.size(), 4u);
  EXPECT_EQ(spec.args[0].kind, ArgKind::Tensor);
  EXPECT_EQ(spec.args[0].sizeOneDims, 2u);
  EXPECT_EQ(spec.args[1].kind, ArgKind::Float);
  EXPECT_EQ(spec.args[2].kind, ArgKind::Constant);
  spec = makeCallSpec(s, args.data(), DeviceType::CPU, true);
  EXPECT_EQ(spec.str(), "(float32[4,1], float, int=1, None)");
}

TEST(Specialization, AFactorysSizesAreRuntimeValuesOnTheCpu) {
  // The `SymInt[] size` of an op that takes no tensor: keyed by its length
  // and its entries of 1, as a tensor's shape.
  auto s = schema("t::zeros(SymInt[] size, *, ScalarType? dtype=None) -> Tensor");
  using Sizes = std::vector<int64_t>;
  EXPECT_EQ(keyOf(s, {Sizes{3, 4}, IValue()}), keyOf(s, {Sizes{7, 0}, IValue()}));
  EXPECT_NE(keyOf(s, {Sizes{3, 4}, IValue()}), keyOf(s, {Sizes{1, 4}, IValue()}));
  EXPECT_NE(keyOf(s, {Sizes{3, 4}, IValue()}), keyOf(s, {Sizes{12}, IValue()}));
  EXPECT_NE(keyOf(s, {Sizes{3, 4}, IValue()}, true), keyOf(s, {Sizes{7, 4}, IValue()}, true));
  std::vector<IValue> args = {Sizes{5, 1}, IValue()};
  CallSpec spec = makeCallSpec(s, args.data(), DeviceType::CPU, false);
  EXPECT_EQ(spec.str(), "(sizes[?,1], None)");
  EXPECT_EQ(spec.args[0].kind, ArgKind::Sizes);
  EXPECT_EQ(spec.args[0].rank, 2);
  // Written back as text, the spec stands for the same kernel.
  auto parsed = parseSpecialization(s, spec.str());
  ASSERT_TRUE(parsed.hasValue()) << parsed.error().message();
  EXPECT_EQ(keyOf(s, *parsed), keyOf(s, args));
  // A negative size stays a constant (the factory's own check refuses it),
  // so does every size list on CUDA, and a list of an op that takes a
  // tensor (a view's size may be -1).
  args = {Sizes{-1, 4}, IValue()};
  EXPECT_EQ(makeCallSpec(s, args.data(), DeviceType::CPU, false).args[0].kind,
            ArgKind::Constant);
  args = {Sizes{5, 1}, IValue()};
  EXPECT_EQ(makeCallSpec(s, args.data(), DeviceType::CUDA, false).args[0].kind,
            ArgKind::Constant);
  auto view = schema("t::view(Tensor self, SymInt[] size) -> Tensor");
  args = {Tensor::empty({4}), Sizes{2, 2}};
  EXPECT_EQ(makeCallSpec(view, args.data(), DeviceType::CPU, false).args[1].kind,
            ArgKind::Constant);
  // A size list's dims are written as a tensor's.
  auto sized = parseSpecialization(s, "(sizes[?,3])");
  ASSERT_FALSE(sized.hasValue());
  EXPECT_NE(sized.error().message().find("dim '3' of sizes[?,3]: write '?' for any size or "
                                         "'1' for size one; other sizes only where kernels"),
            std::string::npos)
      << sized.error().message();
  auto wrong = parseSpecialization(view, "(float32[?], sizes[?,?])");
  ASSERT_FALSE(wrong.hasValue());
  EXPECT_NE(wrong.error().message().find("argument 'size': cannot read 'sizes[?,?]' as SymInt[]"),
            std::string::npos)
      << wrong.error().message();
}

TEST(Specialization, AConvolutionsGroupsAboveOneAreRuntimeValuesOnTheCpu) {
  // One kernel for every grouped (or depthwise) convolution of a kernel
  // size and stride: groups above 1 enters at run time; 1 (lowered as
  // products), a transposed convolution's (its output's channels), a
  // static-shape kernel's and every CUDA kernel's stay constants.
  auto s = schema("aten::convolution(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, "
                  "SymInt[] padding, SymInt[] dilation, bool transposed, SymInt[] "
                  "output_padding, SymInt groups) -> Tensor");
  using List = std::vector<int64_t>;
  auto call = [](int64_t groups, bool transposed = false) {
    return std::vector<IValue>{Tensor::empty({2, 12, 5, 5}), Tensor::empty({12, 12 / groups, 3, 3}),
                               IValue(), List{1, 1}, List{1, 1}, List{1, 1}, transposed,
                               List{0, 0}, groups};
  };
  EXPECT_EQ(keyOf(s, call(2)), keyOf(s, call(3)));
  EXPECT_NE(keyOf(s, call(1)), keyOf(s, call(2)));
  EXPECT_NE(keyOf(s, call(2, true)), keyOf(s, call(3, true)));
  auto args = call(4);
  EXPECT_EQ(makeCallSpec(s, args.data(), DeviceType::CPU, true).args[8].kind,
            ArgKind::Constant);
  CallSpec spec = makeCallSpec(s, args.data(), DeviceType::CPU, false);
  EXPECT_EQ(spec.args[8].kind, ArgKind::Int);
  EXPECT_EQ(spec.str(), "(float32[?,?,?,?], float32[?,?,?,?], None, List[int]=[1, 1], "
                        "List[int]=[1, 1], List[int]=[1, 1], bool=False, List[int]=[0, 0], int)");
  EXPECT_EQ(makeCallSpec(s, args.data(), DeviceType::CUDA, false).args[8].kind,
            ArgKind::Constant);
  args = call(1);
  EXPECT_EQ(makeCallSpec(s, args.data(), DeviceType::CPU, false).args[8].kind,
            ArgKind::Constant);
  // 8 channels per group or more (RegNet's): the count is in the key and
  // static in the kernel (products over shifted rows), groups still a
  // runtime value; fewer stay dynamic.
  auto grouped = [](int64_t groups, int64_t perGroup) {
    return std::vector<IValue>{Tensor::empty({2, groups * perGroup, 5, 5}),
                               Tensor::empty({groups * 2, perGroup, 3, 3}), IValue(),
                               List{1, 1}, List{1, 1}, List{1, 1}, false, List{0, 0}, groups};
  };
  EXPECT_EQ(keyOf(s, grouped(3, 8)), keyOf(s, grouped(55, 8)));
  EXPECT_NE(keyOf(s, grouped(3, 8)), keyOf(s, grouped(3, 16)));
  EXPECT_NE(keyOf(s, grouped(3, 8)), keyOf(s, grouped(3, 7)));
  EXPECT_EQ(keyOf(s, grouped(3, 7)), keyOf(s, grouped(4, 2)));
  auto wide = grouped(3, 8);
  CallSpec wideSpec = makeCallSpec(s, wide.data(), DeviceType::CPU, false);
  EXPECT_EQ(wideSpec.args[8].kind, ArgKind::Int);
  EXPECT_EQ(wideSpec.args[1].keyedDims, uint64_t(1) << 1);
  EXPECT_EQ(wideSpec.str(), "(float32[?,?,?,?], float32[?,8,?,?], None, List[int]=[1, 1], "
                            "List[int]=[1, 1], List[int]=[1, 1], bool=False, List[int]=[0, 0], "
                            "int)");
  auto wideParsed = parseSpecialization(s, wideSpec.str());
  ASSERT_TRUE(wideParsed.hasValue()) << wideParsed.error().message();
  EXPECT_EQ(keyOf(s, *wideParsed), keyOf(s, wide));
  // A size the key does not hold is refused: one group.
  auto unkeyed = parseSpecialization(
      s, "(float32[?,?,?,?], float32[?,8,?,?], None, [1, 1], [1, 1], [1, 1], False, [0, 0], 1)");
  ASSERT_FALSE(unkeyed.hasValue());
  EXPECT_NE(unkeyed.error().message().find("argument 'weight': dim '8' of float32[?,8,?,?]"),
            std::string::npos)
      << unkeyed.error().message();
  EXPECT_EQ(makeCallSpec(s, wide.data(), DeviceType::CPU, true).args[1].keyedDims, 0u);
  // Sizes whose count of elements overflows are an error, not a throw.
  auto huge = parseSpecialization(
      s, "(float32[?,?,?,?], float32[999999999999,999999999999,999999999999,9], None, [1, 1], "
         "[1, 1], [1, 1], False, [0, 0], int)");
  ASSERT_FALSE(huge.hasValue());
  EXPECT_NE(huge.error().message().find("argument 'weight': Storage size calculation overflowed"),
            std::string::npos)
      << huge.error().message();
  // Written back as text, the spec stands for the same kernel; `int` is
  // refused where groups is compiled in.
  auto parsed = parseSpecialization(s, spec.str());
  ASSERT_TRUE(parsed.hasValue()) << parsed.error().message();
  EXPECT_EQ(keyOf(s, *parsed), keyOf(s, call(6)));
  auto transposed = parseSpecialization(
      s, "(float32[?,?,?,?], float32[?,?,?,?], None, [1, 1], [1, 1], [1, 1], True, [0, 0], int)");
  ASSERT_FALSE(transposed.hasValue());
  EXPECT_NE(transposed.error().message().find(
                "argument 'groups': 'int' stands for a runtime number, but SymInt arguments "
                "are compiled in: give the value"),
            std::string::npos)
      << transposed.error().message();
}

TEST(Specialization, AConvolutionsInputOfNoChannelsIsSpecialized) {
  // PyTorch's empty convolution: an input of 0 channels gives 0 channels,
  // so its kernel has that size static (and no other op's size 0 is).
  auto s = schema("aten::convolution(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, "
                  "SymInt[] padding, SymInt[] dilation, bool transposed, SymInt[] "
                  "output_padding, SymInt groups) -> Tensor");
  using List = std::vector<int64_t>;
  auto call = [](int64_t channels, int64_t batch = 2) {
    return std::vector<IValue>{Tensor::empty({batch, channels, 5, 5}),
                               Tensor::empty({4, channels, 3, 3}), IValue(), List{1, 1},
                               List{1, 1}, List{1, 1}, false, List{0, 0}, int64_t(1)};
  };
  EXPECT_NE(keyOf(s, call(0)), keyOf(s, call(3)));
  EXPECT_EQ(keyOf(s, call(3)), keyOf(s, call(5)));
  // A batch of 0 is no different from any other.
  EXPECT_EQ(keyOf(s, call(3, 0)), keyOf(s, call(3)));
  auto args = call(0);
  CallSpec spec = makeCallSpec(s, args.data(), DeviceType::CPU, false);
  EXPECT_EQ(spec.args[0].keyedDims, uint64_t(1) << 1);
  EXPECT_EQ(spec.args[1].keyedDims, 0u);
  EXPECT_EQ(spec.str(), "(float32[?,0,?,?], float32[?,?,?,?], None, List[int]=[1, 1], "
                        "List[int]=[1, 1], List[int]=[1, 1], bool=False, List[int]=[0, 0], "
                        "int=1)");
  auto parsed = parseSpecialization(s, spec.str());
  ASSERT_TRUE(parsed.hasValue()) << parsed.error().message();
  EXPECT_EQ(keyOf(s, *parsed), keyOf(s, call(0)));
  auto f = schema("t::f(Tensor x) -> Tensor");
  EXPECT_EQ(keyOf(f, {Tensor::empty({2, 0})}), keyOf(f, {Tensor::empty({2, 3})}));
}

TEST(Specialization, RunningOpByOpUnderAModeIsPartOfTheKey) {
  // The same call with a dispatch mode active (CallSpec::opByOp) has its own
  // key, whatever its last argument: the flag is a bit of the first word.
  auto s = schema("t::f(Tensor x, int d) -> Tensor");
  std::vector<IValue> args = {Tensor::empty({2}), IValue(int64_t(-1))};
  std::vector<uint64_t> fused, byOp;
  ASSERT_TRUE(appendKeyWords(s, args.data(), DeviceType::CPU, false, fused).hasValue());
  ASSERT_TRUE(
      appendKeyWords(s, args.data(), DeviceType::CPU, false, byOp, 0, /*opByOp=*/true).hasValue());
  ASSERT_EQ(fused.size(), byOp.size());
  EXPECT_NE(fused[0], byOp[0]);
  EXPECT_TRUE(std::equal(fused.begin() + 1, fused.end(), byOp.begin() + 1));
}

TEST(Specialization, UncompilableArgumentsAreReported) {
  auto s = schema("t::f(Tensor x, Scalar s) -> Tensor");
  std::vector<IValue> args = {Tensor::empty({2}), IValue(std::complex<double>(1, 2))};
  std::vector<uint64_t> words;
  auto ok = appendKeyWords(s, args.data(), DeviceType::CPU, false, words);
  ASSERT_FALSE(ok.hasValue());
  EXPECT_EQ(ok.error().message(),
            "t::f: argument 's': the JIT cannot compile a call with a complex here");
}

} // namespace
