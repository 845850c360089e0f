//===- ObjectLoader.h - Linking kernel objects without LLVM -----*- C++ -*-===//
//
// Loads an x86-64 ELF relocatable object of the kind opal's JIT emits (the
// disk cache's kernel.o) into the process: its allocated sections are copied
// into fresh pages, its relocations applied, and its undefined symbols bound
// to `extraSymbols`, then opal's kernel runtime (KernelRuntime.h), then the
// process's (libm, libc). This is what lets a
// process that finds its kernels on disk run them without loading LLVM
// (WarmStart.h); the compiler links the objects it makes the same way
// (Compiler/ObjectCode.h).
//
// Supported: relocations R_X86_64_64, PC32, PLT32 (through a jump stub when
// the target is out of reach), PC64, 32 and 32S, against defined,
// absolute and undefined symbols. Anything else (TLS, GOT-relative
// relocations, common symbols, initializers) is refused with an error that
// names it, and the caller compiles instead. Every offset, size, index,
// alignment and symbol value of the object is checked against the object
// and its sections before it is used: a damaged or hostile object is
// refused, never followed out of bounds (fuzz/ObjectLoaderFuzzer.cpp).
// Loaded code stays for the life of the process.
//
// Its unwind tables (.eh_frame, checked to be a well-formed run of records)
// are registered with the unwinder, so backtraces, perf's DWARF call graphs
// and gdb unwind through kernel frames. Loaded code is visible to tools:
// every object is registered with GDB's
// JIT interface (__jit_debug_register_code, a copy of the object whose
// section addresses are where its sections were placed), so gdb names the
// kernel's functions in backtraces; with OPAL_PERF_MAP=1 each function is
// also appended to /tmp/perf-<pid>.map as "<address> <size> opal <label>
// <symbol>", which `perf report` reads.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_JIT_OBJECTLOADER_H
#define OPAL_JIT_OBJECTLOADER_H

#include "opal/Support/Expected.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace opal::jit {

/// The addresses of the global symbols an object defines, by name.
using SymbolAddresses = std::map<std::string, void *>;

/// Objects that link together into one kernel (the compiler's code
/// generation split across threads), as one blob: "\x7fOPALGRP", the
/// count (4 bytes), each object's size (8 bytes each, little-endian), then
/// the objects. One object is its own blob. The disk cache stores the blob
/// as it stores an object, and loadNativeObject takes either.
std::string packObjectGroup(const std::vector<std::string> &objects);
/// The objects of a blob from packObjectGroup (one object: itself), or why
/// it is damaged.
Expected<std::vector<std::string>> unpackObjectGroup(const std::string &blob);

/// Loads `object` (one ELF object, or a group from packObjectGroup, each of
/// whose objects binds to the others' global symbols) for the life of the
/// process; `label` names its kernel for perf and gdb
/// ("aten::gelu(float32[?,?])").
Expected<SymbolAddresses> loadNativeObject(const std::string &object,
                                           const SymbolAddresses &extraSymbols = {},
                                           const std::string &label = "");

/// An object loaded until this is destroyed (fuzzers and tests: the
/// process's kernels use loadNativeObject).
class ScopedNativeObject {
public:
  static Expected<std::unique_ptr<ScopedNativeObject>>
  load(const std::string &object, const SymbolAddresses &extraSymbols = {});
  ~ScopedNativeObject();
  const SymbolAddresses &symbols() const { return symbols_; }

private:
  ScopedNativeObject() = default;
  SymbolAddresses symbols_;
  /// What each object of the group mapped and registered.
  struct Part {
    void *base = nullptr;
    size_t bytes = 0;
    void *debugEntry = nullptr;
    void *unwindTables = nullptr;
  };
  std::vector<Part> parts_;
};

} // namespace opal::jit

#endif // OPAL_JIT_OBJECTLOADER_H
