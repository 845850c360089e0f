//===- ParallelTest.cpp - The thread budget of compiled kernels -----------===//

#include "opal/Runtime/Parallel.h"

#include <gtest/gtest.h>

#include <cstdlib>

using namespace opal;

namespace {

TEST(ParallelTest, PassiveWaitsAreReadFromTheOpenMpRuntimesSettings) {
  EXPECT_FALSE(workersSleepAtOnce(std::nullopt, std::nullopt));
  EXPECT_TRUE(workersSleepAtOnce(std::string("PASSIVE"), std::nullopt));
  EXPECT_TRUE(workersSleepAtOnce(std::string("passive"), std::nullopt));
  EXPECT_TRUE(workersSleepAtOnce(std::string("Passive"), std::string("200")));
  EXPECT_FALSE(workersSleepAtOnce(std::string("ACTIVE"), std::nullopt));
  EXPECT_FALSE(workersSleepAtOnce(std::string("passively"), std::nullopt));
  EXPECT_TRUE(workersSleepAtOnce(std::nullopt, std::string("0")));
  EXPECT_TRUE(workersSleepAtOnce(std::string("ACTIVE"), std::string("0")));
  EXPECT_FALSE(workersSleepAtOnce(std::nullopt, std::string("200")));
  EXPECT_FALSE(workersSleepAtOnce(std::nullopt, std::string("infinite")));
}

TEST(ParallelTest, SmallNestsRunOnTheCallersThread) {
  int64_t least = minimumForkedWork();
  EXPECT_TRUE(least == 2 * kParallelGrain || least == 2 * kParallelGrain * kPassiveFactor);
  int64_t threads = opal_parallel_begin(least - 1);
  EXPECT_EQ(threads, 1);
  opal_parallel_end(least - 1, threads);
}

TEST(ParallelTest, LargeNestsGetAThreadPerGrainUpToTheSetting) {
  int64_t saved = getNumThreads();
  ASSERT_TRUE(setNumThreads(4).value());
  int64_t work = std::max<int64_t>(minimumForkedWork(), 3 * kParallelGrain);
  int64_t threads = opal_parallel_begin(work);
  EXPECT_EQ(threads, std::min<int64_t>(4, work / kParallelGrain));
  opal_parallel_end(work, threads);
  threads = opal_parallel_begin(100 * kParallelGrain);
  EXPECT_EQ(threads, 4);
  opal_parallel_end(100 * kParallelGrain, threads);
  ASSERT_TRUE(setNumThreads(saved).value());
}

// Each in a fresh process (the setting is read once per process).
TEST(ParallelTest, WithPassiveWaitsOnlyLargerNestsFork) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        setenv("OMP_WAIT_POLICY", "passive", 1);
        ASSERT_TRUE(setNumThreads(2).value());
        bool smallStays = opal_parallel_begin(2 * kParallelGrain) == 1;
        bool largeForks = opal_parallel_begin(2 * kParallelGrain * kPassiveFactor) == 2;
        std::exit(minimumForkedWork() == 2 * kParallelGrain * kPassiveFactor && smallStays &&
                          largeForks
                      ? 0
                      : 1);
      },
      ::testing::ExitedWithCode(0), "");
  EXPECT_EXIT(
      {
        setenv("KMP_BLOCKTIME", "0", 1);
        unsetenv("OMP_WAIT_POLICY");
        std::exit(minimumForkedWork() == 2 * kParallelGrain * kPassiveFactor ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
  EXPECT_EXIT(
      {
        unsetenv("KMP_BLOCKTIME");
        unsetenv("OMP_WAIT_POLICY");
        std::exit(minimumForkedWork() == 2 * kParallelGrain ? 0 : 1);
      },
      ::testing::ExitedWithCode(0), "");
}

} // namespace
