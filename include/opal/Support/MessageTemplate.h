//===- MessageTemplate.h - Error messages with {i} placeholders -*- C++ -*-===//
//
// The messages of `opal.check` and of the call-time checks derived from it
// (opal-derive-shape-checks): "expected [{0}], got [{1}]", where `{i}` is
// replaced by the i-th value's text, and `{i:dtype}` by the name c10 gives
// the dtype whose code the i-th value is ('Long' for 4), `{i:ctype}` by its
// C++ element type's ("long int"), `{i:double}` by the double whose bits
// the i-th value (an int64) holds, as C++ streams print it ("1.5", "nan"). `{{` and `}}` stand
// for braces.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_SUPPORT_MESSAGETEMPLATE_H
#define OPAL_SUPPORT_MESSAGETEMPLATE_H

#include <cstddef>
#include <string>
#include <vector>

namespace opal {

/// Why `message` is not a template with placeholders below `values`, or ""
/// when it is one.
std::string messageTemplateProblem(const std::string &message, size_t values);

/// `message` with each `{i}` replaced by `values[i]` ("?" where there is
/// no such value) and `{{`/`}}` by one brace.
std::string fillMessage(const std::string &message, const std::vector<std::string> &values);

} // namespace opal

#endif // OPAL_SUPPORT_MESSAGETEMPLATE_H
