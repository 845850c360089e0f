//===- CacheKey.h - The disk cache's keys -----------------------*- C++ -*-===//
//
// A disk cache entry (JIT/DiskCache.h) is named by the sha256 of everything
// that decides its object code: the compiler's identity, the pass pipeline,
// the target and the kernel's decomposed IR (which holds the
// specialization).
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_COMPILER_CACHEKEY_H
#define OPAL_COMPILER_CACHEKEY_H

#include <string>
#include <vector>

namespace opal::ir {

/// Lowercase hex sha256 of the parts (each length-prefixed).
std::string diskCacheKey(const std::vector<std::string> &parts);

/// "opal <version> (libopal <build id>, libopal_compiler <build id>) LLVM
/// <version> cache-format 1": a rebuilt opal never reuses old entries.
const std::string &compilerIdentity();

} // namespace opal::ir

#endif // OPAL_COMPILER_CACHEKEY_H
