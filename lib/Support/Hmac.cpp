//===- Hmac.cpp - HMAC-SHA256 ---------------------------------------------===//

#include "opal/Support/Hmac.h"

#include "opal/Support/Sha256.h"

#include <array>

using namespace opal;

std::string opal::hmacSha256Hex(std::string_view key, std::string_view message) {
  constexpr size_t kBlock = 64;
  std::array<uint8_t, kBlock> block{};
  if (key.size() > kBlock) {
    Sha256 hasher;
    hasher.update(key);
    auto digest = hasher.finish();
    std::copy(digest.begin(), digest.end(), block.begin());
  } else {
    std::copy(key.begin(), key.end(), block.begin());
  }
  std::string inner(kBlock, '\0'), outer(kBlock, '\0');
  for (size_t i = 0; i < kBlock; ++i) {
    inner[i] = static_cast<char>(block[i] ^ 0x36);
    outer[i] = static_cast<char>(block[i] ^ 0x5c);
  }
  Sha256 first;
  first.update(inner);
  first.update(message);
  auto innerDigest = first.finish();
  Sha256 second;
  second.update(outer);
  second.update(std::string_view(reinterpret_cast<const char *>(innerDigest.data()),
                                 innerDigest.size()));
  auto digest = second.finish();
  return toHex(digest.data(), digest.size());
}

bool opal::equalInConstantTime(std::string_view a, std::string_view b) {
  if (a.size() != b.size())
    return false;
  unsigned char difference = 0;
  for (size_t i = 0; i < a.size(); ++i)
    difference |= static_cast<unsigned char>(a[i] ^ b[i]);
  return difference == 0;
}
