//===- Hmac.h - HMAC-SHA256 -------------------------------------*- C++ -*-===//
//
// HMAC-SHA256 (RFC 2104 over FIPS 180-4) for the kernel caches: every entry
// they keep carries a tag under the user's cache key, checked before any
// byte of it is used (JIT/CacheSecret.h).
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_SUPPORT_HMAC_H
#define OPAL_SUPPORT_HMAC_H

#include <string>
#include <string_view>

namespace opal {

/// Lowercase hex HMAC-SHA256 of `message` under `key`.
std::string hmacSha256Hex(std::string_view key, std::string_view message);

/// Compares two strings in time that depends only on their lengths.
bool equalInConstantTime(std::string_view a, std::string_view b);

} // namespace opal

#endif // OPAL_SUPPORT_HMAC_H
