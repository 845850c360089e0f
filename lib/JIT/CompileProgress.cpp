//===- CompileProgress.cpp - One line for a compile that takes long -------===//

#include "opal/JIT/CompileProgress.h"

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
    if (!text || text->empty() || text->find_first_not_of("0123456789") != std::string::npos ||
        text->size() > 6)
      return 1000L; // unset, or a value the environment check already warned of
    return std::strtol(text->c_str(), nullptr, 10);
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
