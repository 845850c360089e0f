//===- Exceptions.h - Errors raised by calls and registrations --*- C++ -*-===//
//
// The core returns errors as values (Expected) where it can. Operator calls
// cannot: a kernel's failure must unwind through the dispatcher and any number
// of redispatches, so calls and the user-facing Library API throw these. The
// Python binding maps NotImplementedError to Python's NotImplementedError and
// every other OpalError to RuntimeError, keeping the message.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_SUPPORT_EXCEPTIONS_H
#define OPAL_SUPPORT_EXCEPTIONS_H

#include <functional>
#include <stdexcept>
#include <string>

namespace opal {

class OpalError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// No kernel for a call's dispatch key (PyTorch raises NotImplementedError).
class NotImplementedError : public OpalError {
public:
  using OpalError::OpalError;
};

/// Emits a warning: by default to stderr as `Warning: <message>`. The Python
/// binding installs a handler that raises a Python UserWarning.
void warn(const std::string &message);
using WarningHandler = std::function<void(const std::string &)>;
/// Installs `handler` (an empty one restores the default) and returns the
/// previous one.
WarningHandler setWarningHandler(WarningHandler handler);

} // namespace opal

#endif // OPAL_SUPPORT_EXCEPTIONS_H
