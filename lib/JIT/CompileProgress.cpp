//===- CompileProgress.cpp - One line for a compile that takes long -------===//

#include "opal/JIT/CompileProgress.h"

#include "opal/Support/Decimal.h"
#include "opal/Support/Environment.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>

using namespace opal;
using namespace opal::jit;

long CompileProgress::thresholdMs() {
  static const long threshold = [] {
    if (!::isatty(STDERR_FILENO) || logEnabled(LogTopic::JIT) || logEnabled(LogTopic::Cache) ||
        logEnabled(LogTopic::Dispatch))
      return 0L;
    std::optional<std::string> text = readKnob("OPAL_COMPILE_PROGRESS_MS");
    uint64_t threshold = 1000; // unset, or a value the environment check warned of
    if (text && readDecimal(*text, 6, threshold) && threshold <= 600000)
      return static_cast<long>(threshold);
    return 1000L;
  }();
  return threshold;
}

CompileProgress::CompileProgress(std::string what) {
  long threshold = thresholdMs();
  if (threshold <= 0)
    return;
  watcher_ = std::thread([this, threshold, what = std::move(what)] {
    std::unique_lock<std::mutex> lock(mutex_);
    if (finished_.wait_for(lock, std::chrono::milliseconds(threshold), [this] { return done_; }))
      return;
    std::fprintf(stderr,
                 "opal: compiling %s (still running after %ld ms; OPAL_LOG=jit reports every "
                 "compile)\n",
                 what.c_str(), threshold);
  });
}

CompileProgress::~CompileProgress() {
  if (!watcher_.joinable())
    return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    done_ = true;
  }
  finished_.notify_one();
  watcher_.join();
}
