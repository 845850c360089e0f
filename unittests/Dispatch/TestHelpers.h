//===- TestHelpers.h - Shared helpers of the dispatcher tests ---*- C++ -*-===//

#ifndef OPAL_UNITTESTS_DISPATCH_TESTHELPERS_H
#define OPAL_UNITTESTS_DISPATCH_TESTHELPERS_H

#include "opal/Dispatch/Library.h"

#include <gtest/gtest.h>

#include <map>
#include <sstream>

namespace opal::test {

/// A namespace no other test uses (the dispatcher is process-wide).
inline std::string freshNamespace() {
  static int counter = 0;
  return "test" + std::to_string(counter++);
}

inline Library makeLibrary(Library::Kind kind, const std::string &ns,
                           std::optional<DispatchKey> key = std::nullopt) {
  return Library(kind, ns, key, "test.cpp", 1);
}

/// The computed table of an op as `key → "debug [provenance]"`.
inline std::map<std::string, std::string> computedTable(const std::string &name) {
  auto op = Dispatcher::singleton().findOp(OperatorName{name, ""});
  EXPECT_TRUE(op.has_value()) << name;
  std::map<std::string, std::string> table;
  if (!op)
    return table;
  std::istringstream lines(op->dumpComputedTable());
  std::string line;
  while (std::getline(lines, line)) {
    size_t colon = line.find(": ");
    table[line.substr(0, colon)] = line.substr(colon + 2);
  }
  return table;
}

/// The provenance of one entry ("kernel", "math kernel", ...), or "missing".
inline std::string provenance(const std::string &name, const std::string &key) {
  auto table = computedTable(name);
  auto it = table.find(key);
  if (it == table.end())
    return "missing";
  const std::string &entry = it->second;
  size_t open = entry.rfind('[');
  std::string prov = entry.substr(open + 1, entry.size() - open - 2);
  if (entry.rfind("fallthrough ", 0) == 0)
    return "fallthrough " + prov;
  return prov;
}

inline Tensor cpuTensor() { return Tensor::empty({2}, ScalarType::Float, Device(DeviceType::CPU)); }
inline Tensor metaTensor() { return Tensor::empty({2}, ScalarType::Float, Device(DeviceType::Meta)); }

/// A kernel that records that it ran by returning a tensor of size `tag`.
inline auto tagKernel(int64_t tag) {
  return [tag](const Tensor &) { return Tensor::empty({tag}); };
}

/// Calls `ns::op(Tensor) -> Tensor` and returns the tag of the kernel that ran.
inline int64_t callTag(const std::string &name, const Tensor &x) {
  auto op = Dispatcher::singleton().findSchemaOrThrow(name, "");
  return op.typed<Tensor(const Tensor &)>().call(x).size(0);
}

/// An op `<fresh ns>::foo` with a DEF library (`lib`) and a FRAGMENT for
/// more kernels (`impls`).
struct TestOp {
  std::string ns = freshNamespace();
  std::string name = ns + "::foo";
  Library lib = makeLibrary(Library::DEF, ns);
  Library impls = makeLibrary(Library::FRAGMENT, ns);
  explicit TestOp(const char *schema = "foo(Tensor x) -> Tensor") { lib.def(schema); }
  /// Registers the tag kernel `tag` at `key`.
  void at(DispatchKey key, int64_t tag = 1) { impls.impl("foo", key, tagKernel(tag)); }
  std::string prov(const std::string &key) const { return provenance(name, key); }
  OperatorHandle handle() const { return Dispatcher::singleton().findSchemaOrThrow(name, ""); }
};

/// Captures warnings for its lifetime.
class WarningCapture {
public:
  WarningCapture() {
    previous_ = setWarningHandler([this](const std::string &m) { messages.push_back(m); });
  }
  ~WarningCapture() { setWarningHandler(previous_); }
  std::vector<std::string> messages;

private:
  WarningHandler previous_;
};

/// The message of the OpalError `f` throws ("" if none).
template <typename F> std::string errorOf(F &&f) {
  try {
    f();
  } catch (const std::exception &error) {
    return error.what();
  }
  return "";
}

} // namespace opal::test

#endif // OPAL_UNITTESTS_DISPATCH_TESTHELPERS_H
