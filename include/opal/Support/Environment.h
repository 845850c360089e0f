//===- Environment.h - Every environment variable opal reads ----*- C++ -*-===//
//
// One table of knobs. Each says whether it changes what a compiled kernel
// contains (and so must be part of the kernel cache key) or not. Code reads
// the environment only through this table.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_SUPPORT_ENVIRONMENT_H
#define OPAL_SUPPORT_ENVIRONMENT_H

#include <optional>
#include <string>
#include <vector>

namespace opal {

struct EnvironmentKnob {
  const char *name;
  bool affectsKernelCache;
  const char *description;
  /// The values it takes, said when a value is not one of them (null:
  /// any value, or the knob checks its own).
  const char *accepted = nullptr;
  bool (*valid)(const std::string &value) = nullptr;
  /// Read by opal's scripts (tests, benchmarks), not by the library.
  bool readByScripts = false;
};

/// Every knob, in documentation order.
const std::vector<EnvironmentKnob> &environmentKnobs();
/// The value of a knob from the table; aborts on a name not in the table.
std::optional<std::string> readKnob(const char *name);

/// Checks the process's environment once (libopal does it when it is
/// loaded): warns on stderr, once each, of an OPAL_* variable that is not
/// in the table (naming the closest one), of a value a knob does not take
/// (naming what it takes), and of an unknown OPAL_LOG channel; OPAL_LOG=help
/// prints every channel and knob. Returns the warnings it printed.
std::vector<std::string> checkEnvironment(char **environment);

/// The text OPAL_LOG=help prints.
std::string environmentHelp();

//===----------------------------------------------------------------------===//
// Logging: OPAL_LOG=dispatch,jit,cache (comma-separated topics, or "all";
// "help" lists them).
//===----------------------------------------------------------------------===//

enum class LogTopic { Dispatch, JIT, Cache, Torch };

namespace detail {
extern bool logTopics[4];
} // namespace detail

/// True if OPAL_LOG names `topic` (read once, at load).
inline bool logEnabled(LogTopic topic) {
  return detail::logTopics[static_cast<int>(topic)];
}
/// Turns a topic on or off (tests and opal._C._set_log).
void setLogEnabled(LogTopic topic, bool enabled);
/// Writes one line to stderr: `[opal:<topic>] <message>`.
void logLine(LogTopic topic, const std::string &message);

} // namespace opal

#endif // OPAL_SUPPORT_ENVIRONMENT_H
