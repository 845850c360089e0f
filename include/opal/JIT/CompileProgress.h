//===- CompileProgress.h - One line for a compile that takes long -*- C++ -*-===//
//
// A compile that is still running after OPAL_COMPILE_PROGRESS_MS (default
// 1000) prints one line on stderr, so that a user at a terminal knows why a
// call waits:
//
//   opal: compiling aten::conv3d(float32[?,?,?,?,?], ...) for CPU (still
//   running after 1000 ms; OPAL_LOG=jit reports every compile)
//
// only when stderr is a terminal and OPAL_LOG is off (the log already says
// it), and never for a compile that finishes in time. Costs nothing
// otherwise: no thread is started.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_JIT_COMPILEPROGRESS_H
#define OPAL_JIT_COMPILEPROGRESS_H

#include <condition_variable>
#include <mutex>
#include <string>
#include <thread>

namespace opal::jit {

class CompileProgress {
public:
  /// Starts watching the compile of `what` ("aten::gelu(...) for CPU").
  explicit CompileProgress(std::string what);
  /// The compile is over: no line after this.
  ~CompileProgress();
  CompileProgress(const CompileProgress &) = delete;
  CompileProgress &operator=(const CompileProgress &) = delete;

  /// The milliseconds after which a line is printed; 0: never (the knob,
  /// and whether stderr is a terminal with OPAL_LOG off).
  static long thresholdMs();

private:
  std::mutex mutex_;
  std::condition_variable finished_;
  bool done_ = false;
  std::thread watcher_;
};

} // namespace opal::jit

#endif // OPAL_JIT_COMPILEPROGRESS_H
