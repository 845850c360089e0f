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
// names it, and the caller compiles instead. Loaded code stays for the life
// of the process.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_JIT_OBJECTLOADER_H
#define OPAL_JIT_OBJECTLOADER_H

#include "opal/Support/Expected.h"

#include <map>
#include <string>

namespace opal::jit {

/// The addresses of the global symbols an object defines, by name.
using SymbolAddresses = std::map<std::string, void *>;

Expected<SymbolAddresses> loadNativeObject(const std::string &object,
                                           const SymbolAddresses &extraSymbols = {});

} // namespace opal::jit

#endif // OPAL_JIT_OBJECTLOADER_H
