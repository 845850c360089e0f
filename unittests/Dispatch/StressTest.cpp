//===- StressTest.cpp - Calls racing registrations, under ThreadSanitizer -===//
//
// Built with -fsanitize=thread (its own target, DispatchStressTests): reader
// threads call an op in a loop while writer threads register and remove
// kernels for its keys and define other ops. Every call must return the
// result of one of the kernels that could be current, and ThreadSanitizer
// must find no data race (it makes the process exit non-zero if it does).
//
//===----------------------------------------------------------------------===//

#include "TestHelpers.h"

#include <atomic>
#include <thread>

using namespace opal;
using namespace opal::test;
using K = DispatchKey;

namespace {

TEST(Stress, CallsRaceRegistrations) {
  WarningCapture quiet; // overriding kernels warns on every registration
  std::string ns = freshNamespace();
  Library def = makeLibrary(Library::DEF, ns);
  def.def("foo(Tensor x) -> Tensor");
  def.impl("foo", K::CPU, tagKernel(1));
  auto op = Dispatcher::singleton().findSchemaOrThrow(ns + "::foo", "")
                .typed<Tensor(const Tensor &)>();

  std::atomic<bool> stop{false};
  std::atomic<int64_t> calls{0}, unexpected{0};
  auto reader = [&] {
    Tensor x = cpuTensor();
    while (!stop.load(std::memory_order_relaxed)) {
      int64_t tag = op.call(x).size(0);
      if (tag < 1 || tag > 3)
        unexpected.fetch_add(1);
      calls.fetch_add(1, std::memory_order_relaxed);
    }
  };
  auto kernelWriter = [&] {
    for (int i = 0; i < 300; ++i) {
      Library impl = makeLibrary(Library::IMPL, ns, K::CPU);
      impl.impl("foo", tagKernel(2));
      Library autograd = makeLibrary(Library::IMPL, ns, K::AutogradCPU);
      // A fallthrough at AutogradCPU keeps calls on the CPU kernels.
      autograd.impl("foo", CppFunction::makeFallthrough());
      Library math = makeLibrary(Library::FRAGMENT, ns);
      math.impl("foo", K::CompositeImplicitAutograd, tagKernel(3));
    }
  };
  auto defWriter = [&] {
    for (int i = 0; i < 300; ++i) {
      Library other = makeLibrary(Library::DEF, ns + "_other" + std::to_string(i % 7));
      other.def("bar(Tensor x) -> Tensor");
      other.impl("bar", K::CPU, tagKernel(1));
    }
  };

  std::vector<std::thread> threads;
  threads.emplace_back(reader);
  threads.emplace_back(reader);
  std::thread writer1(kernelWriter), writer2(defWriter);
  writer1.join();
  writer2.join();
  stop = true;
  for (auto &thread : threads)
    thread.join();

  EXPECT_GT(calls.load(), 0);
  EXPECT_EQ(unexpected.load(), 0);
  EXPECT_EQ(callTag(ns + "::foo", cpuTensor()), 1); // the original kernel is back
  auto handle = Dispatcher::singleton().findSchemaOrThrow(ns + "::foo", "");
  EXPECT_TRUE(handle.checkInvariants().empty());
}

} // namespace
