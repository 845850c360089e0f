//===- Sha256.h - SHA-256 digests -------------------------------*- C++ -*-===//
//
// SHA-256 (FIPS 180-4) for the kernel caches' keys and checksums. It lives
// in the runtime core, which does not link LLVM: a process that finds its
// kernels on disk checks them without loading the compiler.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_SUPPORT_SHA256_H
#define OPAL_SUPPORT_SHA256_H

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace opal {

class Sha256 {
public:
  Sha256();
  void update(std::string_view bytes);
  /// The digest of everything updated so far; the hasher is spent after it.
  std::array<uint8_t, 32> finish();

private:
  void compress(const uint8_t *block);
  std::array<uint32_t, 8> state_;
  uint8_t buffer_[64];
  size_t buffered_ = 0;
  uint64_t length_ = 0; ///< bytes hashed so far
};

/// Lowercase hex of bytes.
std::string toHex(const uint8_t *bytes, size_t count);
/// Lowercase hex SHA-256 of a byte string.
std::string sha256Hex(std::string_view bytes);

} // namespace opal

#endif // OPAL_SUPPORT_SHA256_H
