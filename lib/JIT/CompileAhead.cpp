//===- CompileAhead.cpp - Compiling the kernels of calls before them ------===//

#include "opal/JIT/CompileAhead.h"

#include "opal/Autograd/VariableKernel.h"
#include "opal/JIT/MlirKernel.h"
#include "opal/Runtime/Parallel.h"
#include "opal/Support/Decimal.h"
#include "opal/Support/Environment.h"
#include "opal/Support/Exceptions.h"

#include <algorithm>
#include <atomic>
#include <optional>
#include <thread>

using namespace opal;
using namespace opal::jit;

unsigned jit::compileThreads() {
  static const unsigned threads = [] {
    uint64_t number = 0;
    std::optional<std::string> text = readKnob("OPAL_COMPILE_THREADS");
    if (text && readDecimal(*text, 2, number) && number >= 1 && number <= 64)
      return static_cast<unsigned>(number);
    return static_cast<unsigned>(std::min<int64_t>(availableCores(), 16));
  }();
  return threads;
}

std::vector<AheadOutcome> jit::compileAhead(std::vector<AheadCall> &calls, unsigned threads) {
  std::vector<AheadOutcome> outcomes(calls.size());
  // Planned on this thread: the kernel each call dispatches to, and its key.
  std::vector<std::optional<MlirKernel::Ahead>> planned(calls.size());
  std::vector<size_t> work;
  for (size_t i = 0; i < calls.size(); ++i) {
    AheadCall &call = calls[i];
    const FunctionSchema &schema = call.op.schema();
    if (call.args.size() != schema.arguments().size()) {
      outcomes[i] = {AheadResult::Failed, call.op.operatorName().str() + " takes " +
                                              std::to_string(schema.arguments().size()) +
                                              " arguments, got " +
                                              std::to_string(call.args.size())};
      continue;
    }
    DispatchKeySet keys = call.op.callKeySet(call.args.data());
    KernelFunction kernel = call.op.entry().lookup(keys);
    // Through the op's autograd kernel where the call records nothing.
    if (auto passed = autograd::passThrough(kernel, call.op, keys, call.args.data())) {
      kernel = passed->kernel;
      keys = passed->keys;
    }
    planned[i] = MlirKernel::planAhead(kernel, call.op, keys, call.args.data());
    if (!planned[i]) {
      outcomes[i].result = AheadResult::NoKernel;
      continue;
    }
    // A key twice among the calls compiles once.
    bool again = std::any_of(work.begin(), work.end(), [&](size_t j) {
      return planned[j]->kernel == planned[i]->kernel && planned[j]->words == planned[i]->words;
    });
    outcomes[i].result = again ? AheadResult::InMemory : AheadResult::Compiled;
    if (!again)
      work.push_back(i);
  }
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t n; (n = next.fetch_add(1)) < work.size();) {
      size_t i = work[n];
      try {
        if (!MlirKernel::compileAhead(calls[i].op, calls[i].args.data(), *planned[i]))
          outcomes[i].result = AheadResult::InMemory;
      } catch (const std::exception &error) {
        outcomes[i] = {AheadResult::Failed, error.what()};
      }
    }
  };
  size_t count = std::min<size_t>(std::max(threads, 1u), work.size());
  std::vector<std::thread> workers;
  for (size_t t = 1; t < count; ++t)
    workers.emplace_back(worker);
  worker(); // (this thread is one of them)
  for (std::thread &thread : workers)
    thread.join();
  return outcomes;
}
