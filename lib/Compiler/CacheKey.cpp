//===- CacheKey.cpp - The disk cache's keys -------------------------------===//

#include "opal/Compiler/CacheKey.h"

#include "opal/Config.h"
#include "opal/JIT/CompiledKernel.h"
#include "opal/Support/BuildId.h"
#include "opal/Support/Sha256.h"

#include "llvm/Config/llvm-config.h"

using namespace opal;

std::string opal::ir::diskCacheKey(const std::vector<std::string> &parts) {
  Sha256 hasher;
  for (const std::string &part : parts) {
    hasher.update(std::to_string(part.size()) + ":");
    hasher.update(part);
  }
  auto digest = hasher.finish();
  return toHex(digest.data(), digest.size());
}

const std::string &opal::ir::compilerIdentity() {
  static const std::string identity =
      std::string("opal ") + OPAL_VERSION + " (libopal " +
      buildIdOf(reinterpret_cast<const void *>(&jit::installKernelCompiler)) +
      ", libopal_compiler " + buildIdOf(reinterpret_cast<const void *>(&compilerIdentity)) +
      ") LLVM " LLVM_VERSION_STRING " cache-format 1";
  return identity;
}
