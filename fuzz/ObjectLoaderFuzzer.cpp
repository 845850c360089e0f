//===- ObjectLoaderFuzzer.cpp - libFuzzer target: the kernel object loader -===//
//
// Feeds arbitrary bytes to opal's ELF loader (JIT/ObjectLoader.h), the code
// that links kernel objects from the disk and remote caches: each input is
// either refused with an error or loaded, relocated and unloaded, and no
// offset, size, index, alignment or symbol value in it may take the loader
// outside the object or the pages it mapped (ASan and UBSan watch). Nothing
// loaded is ever run. The seed corpus holds a JIT kernel (large code model)
// and an object from the C compiler (small code model, jump stubs).
//
//===----------------------------------------------------------------------===//

#include "opal/JIT/ObjectLoader.h"

#include <cstddef>
#include <cstdint>
#include <string>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string object(reinterpret_cast<const char *>(data), size);
  // Undefined symbols bind to this one address only: the loader must not
  // go to the process's own symbols for names the input makes up.
  static int placeholder;
  opal::jit::SymbolAddresses extra = {{"opal_fuzz_symbol", &placeholder}};
  auto loaded = opal::jit::ScopedNativeObject::load(object, extra);
  if (loaded)
    for (const auto &[name, address] : (*loaded)->symbols())
      if (name.empty() || !address)
        __builtin_trap();
  return 0;
}
