//===- RandomTest.cpp - Philox4x32-10 and the default generators ----------===//

#include "opal/Runtime/Generator.h"
#include "opal/Runtime/Philox.h"

#include <gtest/gtest.h>

using namespace opal;

namespace {

// Random123's published known-answer vectors (its tests/kat_vectors).
TEST(Philox, KnownAnswers) {
  EXPECT_EQ(philox::philox4x32_10({0, 0, 0, 0}, {0, 0}),
            (philox::Counter{0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}));
  EXPECT_EQ(philox::philox4x32_10({0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff},
                                  {0xffffffff, 0xffffffff}),
            (philox::Counter{0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}));
  EXPECT_EQ(philox::philox4x32_10({0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344},
                                  {0xa4093822, 0x299f31d0}),
            (philox::Counter{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
}

TEST(Philox, DrawSplitsIndexOffsetAndSeedIntoWords) {
  EXPECT_EQ(philox::draw(0x299f31d0a4093822ull, 0x0370734413198a2eull, 0x85a308d3243f6a88ull),
            (philox::Counter{0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}));
}

TEST(Philox, UniformsStayBelowOne) {
  EXPECT_EQ(philox::uniformFloat(0), 0.0f);
  EXPECT_LT(philox::uniformFloat(0xffffffffu), 1.0f);
  EXPECT_EQ(philox::uniformFloat(0x80000000u), 0.5f);
  EXPECT_LT(philox::uniformDouble(0xffffffffu, 0xffffffffu), 1.0);
  EXPECT_EQ(philox::uniformDouble(0x80000000u, 0), 0.5);
}

TEST(Generator, ReserveTakesConsecutiveOffsets) {
  Generator g;
  EXPECT_EQ(g.initialSeed(), Generator::kDefaultSeed);
  g.manualSeed(7);
  EXPECT_EQ(g.reserve(3), (RandomState{7, 0}));
  EXPECT_EQ(g.reserve(1), (RandomState{7, 3}));
  EXPECT_EQ(g.state(), (RandomState{7, 4}));
  g.setState({9, 2});
  EXPECT_EQ(g.reserve(0), (RandomState{9, 2}));
  g.manualSeed(7);
  EXPECT_EQ(g.state(), (RandomState{7, 0}));
}

TEST(Generator, SeedsOfDevicesAreSetTogether) {
  manualSeedAll(123);
  EXPECT_EQ(defaultGenerator(DeviceType::CPU).state(), (RandomState{123, 0}));
  EXPECT_EQ(defaultGenerator(DeviceType::CUDA).state(), (RandomState{123, 0}));
  EXPECT_EQ(&defaultGenerator(DeviceType::Meta), &defaultGenerator(DeviceType::CPU));
  Generator g;
  uint64_t seed = g.seedNondeterministically();
  EXPECT_EQ(g.initialSeed(), seed);
}

} // namespace
