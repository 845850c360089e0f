//===- ModuleSplit.h - A kernel's LLVM module split across threads -*- C++ -*-===//
//
// A large kernel (a whole torch.compile graph fused into one) is mostly LLVM
// time: O2 and code generation of its nest functions, the functions that
// opal-outline-nests and opal-parallelize keep out of line. Those functions
// call nothing of each other's but through calls, so they can be optimized
// and compiled in separate modules on separate threads, and the objects
// linked together when loaded (JIT/ObjectLoader.h, packObjectGroup).
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_COMPILER_MODULESPLIT_H
#define OPAL_COMPILER_MODULESPLIT_H

#include <cstddef>
#include <string>
#include <vector>

namespace llvm {
class Module;
}

namespace opal::ir {

/// The least number of instructions (before optimization) in its out-of-line
/// functions for which a module is split: below it, a split costs more
/// (cloning, bitcode, the duplicated helpers) than it saves.
constexpr size_t kSplitInstructions = 4000;

/// Splits `module` into at most `count` modules of about the same size:
/// its out-of-line functions (noinline and optimized, the nests; each made
/// a hidden global symbol) go to the lightest module in turn, everything
/// else stays in `module`, which keeps the entry points. A constant the
/// moved functions read is copied into their module; a function that
/// touches writable global data stays. Returns the other modules as
/// bitcode (to be read into contexts of their own, one per thread); none
/// when `module` is too small to split or has one such function.
std::vector<std::string> splitModule(llvm::Module &module, unsigned count);

} // namespace opal::ir

#endif // OPAL_COMPILER_MODULESPLIT_H
