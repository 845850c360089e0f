//===- SpecializationParserTest.cpp - Specializations written as text -----===//
//
// opal.precompile entries name specializations in CallSpec::str()'s words;
// the arguments parsed from them must key exactly like the calls they stand
// for, and print back as written.
//
//===----------------------------------------------------------------------===//

#include "opal/JIT/CompiledKernel.h"
#include "opal/JIT/DiskCache.h"
#include "opal/JIT/Specialization.h"

#include "opal/Runtime/Tensor.h"
#include "opal/Schema/SchemaParser.h"

#include <gtest/gtest.h>

using namespace opal;
using namespace opal::jit;

namespace {

FunctionSchema schema(const char *text) { return *parseSchema(text); }

std::vector<uint64_t> keyOf(const FunctionSchema &s, const std::vector<IValue> &args) {
  std::vector<uint64_t> words;
  EXPECT_TRUE(appendKeyWords(s, args.data(), DeviceType::CPU, false, words).hasValue());
  return words;
}

std::string parseError(const FunctionSchema &s, const char *text) {
  auto parsed = parseSpecialization(s, text);
  return parsed ? "(parsed)" : parsed.error().message();
}

TEST(SpecializationParser, KeysLikeTheCallsItDescribes) {
  auto s = schema("t::f(Tensor x, Tensor y, Scalar a, float b, int dim=-1, bool keep=False) -> Tensor");
  auto parsed = parseSpecialization(s, "(float32[?,1], float64[?], int, float, 0)");
  ASSERT_TRUE(parsed.hasValue()) << parsed.error().message();
  std::vector<IValue> call = {Tensor::empty({7, 1}), Tensor::empty({3}, ScalarType::Double),
                              int64_t(5), 0.25, int64_t(0), false};
  EXPECT_EQ(keyOf(s, *parsed), keyOf(s, call));
  EXPECT_EQ(makeCallSpec(s, parsed->data(), DeviceType::CPU, false).str(),
            "(float32[?,1], float64[?], int, float, int=0, bool=False)");
}

TEST(SpecializationParser, ReadsItsOwnPrintedForm) {
  auto s = schema("t::g(Tensor x, int[] dims, bool keepdim, str mode='tanh', Tensor? w=None) -> Tensor");
  const char *text = "(int64[?,?,1], List[int]=[0, 2], bool=True, str='none', None)";
  auto parsed = parseSpecialization(s, text);
  ASSERT_TRUE(parsed.hasValue()) << parsed.error().message();
  EXPECT_EQ(makeCallSpec(s, parsed->data(), DeviceType::CPU, false).str(), text);
  auto bare = parseSpecialization(s, "(int64[?,?,1], [0, 2], True)");
  ASSERT_TRUE(bare.hasValue()) << bare.error().message();
  EXPECT_EQ(makeCallSpec(s, bare->data(), DeviceType::CPU, false).str(),
            "(int64[?,?,1], List[int]=[0, 2], bool=True, str='tanh', None)");
}

TEST(SpecializationParser, ErrorsNameTheArgumentAndWhatWasExpected) {
  auto s = schema("t::h(Tensor x, float beta, int dim) -> Tensor");
  EXPECT_EQ(parseError(s, "(float32[?], float)"),
            "t::h: specialization (float32[?], float): argument 'dim': has no default, so the "
            "specialization must give it");
  EXPECT_EQ(parseError(s, "(float32[?], float, int)"),
            "t::h: specialization (float32[?], float, int): argument 'dim': 'int' stands for a "
            "runtime number, but int arguments are compiled in: give the value");
  EXPECT_EQ(parseError(s, "(float32[?], float, x)"),
            "t::h: specialization (float32[?], float, x): argument 'dim': cannot read 'x' as "
            "int: expected an integer (or Mean), but found x");
  EXPECT_EQ(parseError(s, "(3, float, 1)"),
            "t::h: specialization (3, float, 1): argument 'x': expected a tensor written "
            "dtype[dims], such as float32[?,1]");
  EXPECT_EQ(parseError(s, "(float32[?, float, 1)"),
            "t::h: specialization (float32[?, float, 1): unbalanced brackets or quotes");
}

/// The error readKernelDescription gives for `text` ("" if it reads it).
std::string descriptionError(const std::string &text) {
  CompiledKernel kernel;
  auto read = readKernelDescription(text, kernel);
  return read ? "" : read.error().message();
}

TEST(KernelDescription, RoundTrips) {
  CompiledKernel kernel;
  kernel.outputs = {{ScalarType::Float, {-1, 4}}, {ScalarType::Long, {}}};
  kernel.reached = {OperatorName{"aten::exp", ""}, OperatorName{"aten::mul", "Scalar"}};
  std::string text = describeKernel(kernel);
  EXPECT_EQ(text, "outputs: float32[?,4] int64[]\n"
                  "reached: aten::exp aten::mul.Scalar\n");
  CompiledKernel read;
  ASSERT_TRUE(readKernelDescription(text, read).hasValue());
  EXPECT_EQ(describeKernel(read), text);
  EXPECT_EQ(descriptionError("outputs: float32[x]\n"),
            "kernel description: output 'float32[x]': bad size 'x'");
}

TEST(KernelDescription, RandomKernelsSayHowManyOffsetsACallTakes) {
  CompiledKernel kernel;
  kernel.outputs = {{ScalarType::Float, {-1}}};
  kernel.randomStreams = 3;
  kernel.reached = {OperatorName{"aten::rand", ""}};
  std::string text = describeKernel(kernel);
  EXPECT_EQ(text, "outputs: float32[?]\nrandom: 3\nreached: aten::rand\n");
  CompiledKernel read;
  ASSERT_TRUE(readKernelDescription(text, read).hasValue());
  EXPECT_EQ(read.randomStreams, 3u);
  for (const char *bad : {"0", "-1", "x", "3x", "18446744073709551617", "2000000"})
    EXPECT_EQ(descriptionError(std::string("outputs: float32[?]\nrandom: ") +
                               bad + "\n"),
              std::string("kernel description: bad random stream count '") + bad + "'")
        << bad;
  EXPECT_EQ(descriptionError("outputs: float32[?]\nrandom: 1 2\n"),
            "kernel description: unexpected line 'random: 1 2'");
}

TEST(KernelDescription, InputsReadInPlaceByArgumentNumber) {
  CompiledKernel kernel;
  kernel.outputs = {{ScalarType::Float, {-1, -1}}};
  kernel.readsInPlace = (uint64_t(1) << 0) | (uint64_t(1) << 2) | (uint64_t(1) << 63);
  kernel.reached = {OperatorName{"aten::add", "Tensor"}};
  std::string text = describeKernel(kernel);
  EXPECT_EQ(text, "outputs: float32[?,?]\ninplace: 0 2 63\nreached: aten::add.Tensor\n");
  CompiledKernel read;
  ASSERT_TRUE(readKernelDescription(text, read).hasValue());
  EXPECT_EQ(read.readsInPlace, kernel.readsInPlace);
  // None: no line.
  kernel.readsInPlace = 0;
  EXPECT_EQ(describeKernel(kernel).find("inplace"), std::string::npos);
  for (const char *bad : {"64", "-1", "x", "1x", "0 0", "18446744073709551617"})
    EXPECT_EQ(descriptionError(std::string("outputs: float32[?]\ninplace: ") + bad + "\n")
                  .rfind("kernel description: bad in-place argument '", 0),
              0u)
        << bad;
  EXPECT_EQ(descriptionError("outputs: float32[?]\ninplace:\n"),
            "kernel description: unexpected line 'inplace:'");
}

TEST(KernelDescription, DynamicSizesFromInputs) {
  CompiledKernel kernel;
  kernel.outputs = {{ScalarType::Float, {-1, 3, -1}}};
  kernel.sizeSources = {{0, 0}, {2, 1}};
  kernel.reached = {OperatorName{"aten::add", "Tensor"}};
  std::string text = describeKernel(kernel);
  EXPECT_EQ(text, "outputs: float32[?,3,?]\nsizes: a0.0 a2.1\n"
                  "reached: aten::add.Tensor\n");
  CompiledKernel read;
  ASSERT_TRUE(readKernelDescription(text, read).hasValue());
  EXPECT_EQ(read.sizeSources, kernel.sizeSources);

  // The same field in a disk cache manifest, among others.
  auto fromManifest =
      readSizeSources(fieldOf("op: aten::add\nsizes: a1.0\nreached: x\n", "sizes"));
  ASSERT_TRUE(fromManifest.hasValue());
  EXPECT_EQ(*fromManifest, (std::vector<SizeSource>{{1, 0}}));
  auto none = readSizeSources(fieldOf("op: aten::add\n", "sizes"));
  ASSERT_TRUE(none.hasValue());
  EXPECT_TRUE(none->empty());
  EXPECT_FALSE(readSizeSources(fieldOf("sizes: a1.\n", "sizes")).hasValue());

  EXPECT_EQ(descriptionError("outputs: float32[?]\nsizes: b0.0\n"),
            "kernel description: size source 'b0.0': expected a<argument>.<dim>");
  EXPECT_EQ(descriptionError("outputs: float32[?,?]\nsizes: a0.0\n"),
            "kernel description: 1 size sources for 2 dynamic output sizes");
}

} // namespace

TEST(KernelDescription, ShapeChecksRoundTrip) {
  CompiledKernel kernel;
  kernel.outputs = {{ScalarType::Float, {-1, -1}}};
  ShapeCheck broadcast;
  broadcast.op = "aten::add.Tensor";
  broadcast.dim = 1;
  broadcast.lhs = {false, 0, 0, 1};
  broadcast.rhs = {false, 0, 2, 0};
  ShapeCheck product;
  product.kind = ShapeCheck::Kind::Matmul;
  product.op = "aten::mm";
  product.dim = 2;
  product.lhs = {false, 0, 0, 1};
  product.rhs = {true, 1, 0, 0};
  product.lhsShape = {{false, 0, 0, 0}, {false, 0, 0, 1}};
  product.rhsShape = {{true, 1, 0, 0}, {false, 0, 1, 1}};
  kernel.shapeChecks = {broadcast, product};
  kernel.reached = {OperatorName{"aten::mm", ""}};
  std::string text = describeKernel(kernel);
  EXPECT_EQ(text, "outputs: float32[?,?]\n"
                  "checks: broadcast,aten::add.Tensor,1,a0.1,a2.0 "
                  "matmul,aten::mm,2,a0.1,1,a0.0xa0.1,1xa1.1\n"
                  "reached: aten::mm\n");
  CompiledKernel read;
  ASSERT_TRUE(readKernelDescription(text, read).hasValue());
  ASSERT_EQ(read.shapeChecks.size(), 2u);
  EXPECT_EQ(describeShapeChecks(read.shapeChecks), describeShapeChecks(kernel.shapeChecks));
  EXPECT_EQ(read.shapeChecks[1].rhsShape[0], (SizeRef{true, 1, 0, 0}));

  // A runtime int argument's own value (a convolution's groups): a<n>.value.
  auto value = readShapeChecks("expect,aten::convolution,ge,a1.0,a8.value,at%20least%20%7B0%7D,a8.value");
  ASSERT_TRUE(value.hasValue()) << value.error().message();
  EXPECT_EQ(value->front().rhs.argument, 8u);
  EXPECT_EQ(value->front().rhs.dim, SizeRef::kArgumentValue);
  EXPECT_EQ(describeShapeChecks(*value),
            "expect,aten::convolution,ge,a1.0,a8.value,at%20least%20%7B0%7D,a8.value");
  EXPECT_FALSE(readShapeChecks("expect,aten::convolution,ge,a1.0,ax.value,m,").hasValue());

  // A 0-d shape is "-"; every malformed word is refused with its reason.
  auto scalar = readShapeChecks("batch,aten::bmm,0,a0.0,a1.0,-,a1.0xa1.1");
  ASSERT_TRUE(scalar.hasValue());
  EXPECT_TRUE((*scalar)[0].lhsShape.empty());
  EXPECT_EQ(readShapeChecks("resize,x,0,a0.0,a1.0").error().message(),
            "shape check 'resize,x,0,a0.0,a1.0': unknown kind 'resize'");
  EXPECT_EQ(readShapeChecks("broadcast,x,0,a0.0").error().message(),
            "shape check 'broadcast,x,0,a0.0': expected 5 comma-separated fields");
  EXPECT_EQ(readShapeChecks("broadcast,,0,a0.0,a1.0").error().message(),
            "shape check 'broadcast,,0,a0.0,a1.0': no op name");
  EXPECT_EQ(readShapeChecks("broadcast,x,-1,a0.0,a1.0").error().message(),
            "shape check 'broadcast,x,-1,a0.0,a1.0': bad dim '-1'");
  EXPECT_EQ(readShapeChecks("broadcast,x,0,a0.0,b3").error().message(),
            "shape check 'broadcast,x,0,a0.0,b3': expected sizes a<argument>.<dim> or constants");
  EXPECT_EQ(readShapeChecks("matmul,x,0,a0.0,a1.0,a0.0xb,a1.0").error().message(),
            "shape check 'matmul,x,0,a0.0,a1.0,a0.0xb,a1.0': bad shape");
  // An op's own check: its relation, its message as one word (%XX for
  // what would split it) and the sizes of its placeholders.
  ShapeCheck expect;
  expect.kind = ShapeCheck::Kind::Expect;
  expect.relation = ShapeCheck::Relation::Ne;
  expect.op = "mylib::f";
  expect.lhs = {false, 0, 1, 0};
  expect.rhs = {true, -1, 0, 0};
  expect.message = "got {0}, want [{1}] 100%/{{x}}";
  expect.values = {{{false, 0, 1, 0}}, {}, {{true, 2, 0, 0}, {false, 0, 0, 1}}};
  std::string described = describeShapeChecks({expect});
  EXPECT_EQ(described, "expect,mylib::f,ne,a1.0,-1,got%20%7B0%7D%2C%20want%20[%7B1%7D]%20100%25%2F"
                       "%7B%7Bx%7D%7D,a1.0/-/2xa0.1");
  auto expectRead = readShapeChecks(described);
  ASSERT_TRUE(expectRead.hasValue());
  EXPECT_EQ(describeShapeChecks(*expectRead), described);
  EXPECT_EQ((*expectRead)[0].message, expect.message);
  EXPECT_FALSE((*expectRead)[0].holds(3, 3));
  EXPECT_TRUE((*expectRead)[0].holds(3, 4));
  EXPECT_EQ(readShapeChecks("expect,f,eq,a0.0,1,bad%2").error().message(),
            "shape check 'expect,f,eq,a0.0,1,bad%2': expected expect,<op>,<relation>,<lhs>,"
            "<rhs>,<message>,<values>");
  EXPECT_EQ(readShapeChecks("expect,f,is,a0.0,1,m,").error().message(),
            "shape check 'expect,f,is,a0.0,1,m,': expected expect,<op>,<relation>,<lhs>,"
            "<rhs>,<message>,<values>");
  EXPECT_EQ(descriptionError("outputs: float32[?]\nchecks: broadcast,x\n"),
            "kernel description: shape check 'broadcast,x': expected 5 comma-separated fields");
  // A reshape's element counts: the input's sizes, the factors asked for
  // and each size's factors (-1 for the inferred one).
  ShapeCheck numel;
  numel.kind = ShapeCheck::Kind::NumelDivides;
  numel.op = "aten::view";
  numel.lhsShape = {{false, 0, 0, 0}, {true, 6, 0, 0}};
  numel.rhsShape = {{false, 0, 1, 0}, {true, 4, 0, 0}};
  numel.values = {{{true, -1, 0, 0}}, {{false, 0, 1, 0}, {true, 4, 0, 0}}};
  std::string numelText = describeShapeChecks({numel});
  EXPECT_EQ(numelText, "numel_divides,aten::view,a0.0x6,a1.0x4,-1/a1.0x4");
  auto numelRead = readShapeChecks(numelText);
  ASSERT_TRUE(numelRead.hasValue());
  EXPECT_EQ(describeShapeChecks(*numelRead), numelText);
  EXPECT_EQ((*numelRead)[0].kind, ShapeCheck::Kind::NumelDivides);
  EXPECT_EQ(readShapeChecks("numel,f,a0.0,a1.0").error().message(),
            "shape check 'numel,f,a0.0,a1.0': expected numel,<op>,<input shape>,<factors>,"
            "<sizes>");
}

TEST(KernelDescription, DataChecksRoundTripAndOwnTheirWords) {
  CompiledKernel kernel;
  kernel.outputs = {{ScalarType::Float, {-1}},
                    {ScalarType::Long, {}},
                    {ScalarType::Long, {}},
                    {ScalarType::Long, {}},
                    {ScalarType::Long, {}},
                    {ScalarType::Long, {}}};
  kernel.dataChecks = {{"aten::floor_divide", "ZeroDivisionError", 1},
                       {"aten::gather", "index {0} is out of bounds for dimension {1} with size {2}",
                        4}};
  kernel.reached = {OperatorName{"aten::gather", ""}};
  std::string text = describeKernel(kernel);
  EXPECT_NE(text.find("\ndata: aten::floor_divide,1,ZeroDivisionError aten::gather,4,"
                      "index%20%7B0%7D%20is%20out%20of%20bounds%20for%20dimension%20%7B1%7D%20"
                      "with%20size%20%7B2%7D\n"),
            std::string::npos)
      << text;
  CompiledKernel read;
  ASSERT_TRUE(readKernelDescription(text, read).hasValue());
  EXPECT_EQ(read.dataChecks, kernel.dataChecks);
  // The words are the last outputs, 0-d int64 each.
  EXPECT_EQ(descriptionError("outputs: float32[?]\n"
                             "data: aten::div,2,ZeroDivisionError\n"),
            "kernel description: more data check words than outputs");
  EXPECT_EQ(descriptionError("outputs: float32[?] float32[]\n"
                             "data: aten::div,1,ZeroDivisionError\n"),
            "kernel description: a data check's words must be 0-d int64 outputs");
  EXPECT_EQ(descriptionError("outputs: int64[]\ndata: aten::div,0,x\n"),
            "kernel description: data check 'aten::div,0,x': expected <op>,<words>,<message>");
}
