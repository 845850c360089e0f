//===- OperatorEntry.h - One operator's kernels and table -------*- C++ -*-===//
//
// Everything the dispatcher knows about one `ns::name.overload`: its schema
// (once def'd), the kernels registered per dispatch key (newest first; older
// ones are kept and come back when the newest is removed), and the computed
// dispatch table with one entry per runtime key.
//
// Registration (under the dispatcher's lock) recomputes the whole table, so no
// entry can go stale. Calls read the table without locks: each entry is an
// atomic pointer to an immutable KernelFunction, and a kernel that is removed
// is retired, not freed, until the operator itself goes away.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_DISPATCH_OPERATORENTRY_H
#define OPAL_DISPATCH_OPERATORENTRY_H

#include "opal/Dispatch/KernelFunction.h"
#include "opal/Support/Environment.h"
#include "opal/Support/Exceptions.h"

#include <array>
#include <atomic>
#include <list>
#include <memory>
#include <optional>
#include <vector>

namespace opal {

class Dispatcher;

enum class AliasAnalysisKind { CONSERVATIVE, FROM_SCHEMA, PURE_FUNCTION };
const char *toString(AliasAnalysisKind kind);

/// A registered kernel with what the dumps show about it.
struct AnnotatedKernel {
  std::unique_ptr<KernelFunction> kernel;
  std::optional<FunctionSchema> inferredSchema;
  std::optional<CppSignature> cppSignature;
  std::string debug; // "registered at file:line"
};

/// A computed dispatch-table entry and why it was chosen.
struct ComputedEntry {
  const KernelFunction *kernel;
  const std::string *debug;
  const char *provenance; // "kernel", "math kernel", "backend fallback", ...
};

class OperatorEntry {
public:
  explicit OperatorEntry(OperatorName name);
  OperatorEntry(const OperatorEntry &) = delete;
  OperatorEntry &operator=(const OperatorEntry &) = delete;

  const OperatorName &operatorName() const { return name_; }
  bool hasSchema() const { return schema_.load(std::memory_order_acquire) != nullptr; }
  /// The schema; throws if there is none (never defined, or its Library
  /// was destroyed). The reference stays valid after that: a call in
  /// flight while another thread destroys the Library reads it safely.
  const FunctionSchema &schema() const { return schemaEntry().schema; }
  const std::string &schemaDebug() const { return schemaEntry().debug; }
  /// The positions of the arguments that carry dispatch keys (Tensor,
  /// Tensor?, Tensor[], Tensor?[]).
  const std::vector<uint32_t> &tensorArguments() const { return tensorArguments_; }
  size_t numArguments() const { return numArguments_; }
  const std::optional<CppSignature> &cppSignature() const { return cppSignature_; }

  //===--------------------------------------------------------------------===//
  // The call path: no locks.
  //===--------------------------------------------------------------------===//

  /// ((argument keys ∪ TLS included) − TLS excluded) minus the functionalities
  /// whose entry is a fallthrough for the arguments' highest backend.
  DispatchKeySet computeCallKeySet(DispatchKeySet argumentKeys) const;
  /// The kernel for a call keyset; raises NotImplementedError if missing.
  const KernelFunction &lookup(DispatchKeySet callKeys) const {
    DispatchKey key = callKeys.highestPriorityTypeId();
    const KernelFunction *kernel =
        table_[getDispatchTableIndexForDispatchKey(key)].load(
            std::memory_order_acquire);
    if (!kernel->isValid())
      reportError(key);
    if (logEnabled(LogTopic::Dispatch))
      logCall(callKeys, key);
    return *kernel;
  }
  /// The table entry for a runtime key (an invalid kernel if missing).
  const KernelFunction &tableEntry(DispatchKey key) const {
    return *table_[getDispatchTableIndexForDispatchKey(key)].load(std::memory_order_acquire);
  }
  /// The registration epoch of this op's table: the value of the global
  /// registration counter when the table last changed. Compiled kernels
  /// remember the epochs of the ops they reached and are dropped when one
  /// moves on.
  uint64_t epoch() const { return epoch_.load(std::memory_order_acquire); }
  /// The global registration counter (bumped by every table change).
  static uint64_t currentEpoch();

  /// The OPAL_LOG=dispatch line of one call.
  void logCall(DispatchKeySet callKeys, DispatchKey key) const;
  [[noreturn]] void reportError(DispatchKey key) const;

  //===--------------------------------------------------------------------===//
  // Registration: the caller holds the dispatcher's lock.
  //===--------------------------------------------------------------------===//

  /// Checks that `schema` agrees with every kernel already registered.
  Expected<bool> checkSchemaAgainstKernels(const FunctionSchema &schema) const;
  void registerSchema(FunctionSchema schema, std::string debug,
                      AliasAnalysisKind kind, bool kindIsDefault);
  void deregisterSchema();

  using KernelHandle = std::list<AnnotatedKernel>::iterator;
  /// Checks a kernel against the schema and the other kernels' signatures.
  Expected<bool> checkKernel(DispatchKey key, const AnnotatedKernel &kernel) const;
  /// Registers `kernel`; if it overrides one at the same key, sets `warning`
  /// to the message to emit (after the caller has released its lock).
  KernelHandle registerKernel(const Dispatcher &dispatcher, DispatchKey key,
                              AnnotatedKernel kernel,
                              std::optional<std::string> &warning);
  void deregisterKernel(const Dispatcher &dispatcher, DispatchKey key,
                        KernelHandle handle);
  /// Recomputes every table entry and the fallthrough masks.
  void updateDispatchTable(const Dispatcher &dispatcher);

  /// The kernels registered at exactly `key` (newest first).
  const std::list<AnnotatedKernel> &kernelsAt(DispatchKey key) const {
    return kernels_[static_cast<size_t>(key)];
  }
  bool hasKernelAt(DispatchKey key) const { return !kernelsAt(key).empty(); }
  size_t registrationCount() const { return registrations_; }
  void addRegistration() { ++registrations_; }
  void removeRegistration() { --registrations_; }

  //===--------------------------------------------------------------------===//
  // Introspection, in PyTorch's text formats.
  //===--------------------------------------------------------------------===//

  /// The entry resolution picks for runtime key `key` (section 5 of the spec).
  ComputedEntry computeEntry(const Dispatcher &dispatcher, DispatchKey key) const;
  /// `_dispatch_dump_table`: `Key: debug [provenance]` per valid entry.
  std::string dumpComputedTable(const Dispatcher &dispatcher) const;
  /// `_dispatch_dump`: name, schema, and every registered kernel.
  std::string dumpState() const;
  /// `[CPU, BackendSelect, ...]`: the keys whose live entry is valid.
  std::string listAllDispatchKeys() const;
  /// Differences between the live table and a fresh computation (none if
  /// the invariant holds).
  std::vector<std::string> checkInvariants(const Dispatcher &dispatcher) const;
  /// True if the live entry for runtime key `key` is a real kernel.
  bool hasKernelForDispatchKey(DispatchKey key) const;

private:
  bool hasKernelForAnyDispatchKey(DispatchKeySet keys) const;

  struct SchemaEntry {
    FunctionSchema schema;
    std::string debug;
    AliasAnalysisKind aliasAnalysis;
    bool aliasAnalysisIsDefault;
  };

  static constexpr size_t kNumKeys =
      static_cast<size_t>(DispatchKey::EndOfAliasKeys) + 1;

  OperatorName name_;
  const SchemaEntry &schemaEntry() const;

  /// The current schema, or null. Every schema ever registered stays
  /// allocated in schemas_ (as retired kernels stay in retired_).
  std::atomic<SchemaEntry *> schema_{nullptr};
  std::vector<std::unique_ptr<SchemaEntry>> schemas_;
  std::vector<uint32_t> tensorArguments_;
  size_t numArguments_ = 0;
  std::optional<CppSignature> cppSignature_;
  std::array<std::list<AnnotatedKernel>, kNumKeys> kernels_;
  std::array<std::atomic<const KernelFunction *>, kNumRuntimeEntries> table_;
  std::array<std::atomic<uint64_t>, kNumBackends> nonFallthroughKeys_;
  std::vector<std::unique_ptr<KernelFunction>> retired_;
  size_t registrations_ = 0;
  std::atomic<uint64_t> epoch_{0};
};

} // namespace opal

#endif // OPAL_DISPATCH_OPERATORENTRY_H
