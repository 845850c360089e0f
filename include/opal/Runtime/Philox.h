//===- Philox.h - The counter-based generator of opal's random ops -*- C++ -*-===//
//
// Philox4x32-10 (Salmon, Moraes, Dror and Shaw, "Parallel random numbers: as
// easy as 1, 2, 3", SC 2011): a 128-bit counter and a 64-bit key give four
// 32-bit words, the same on every device and in every order. opal's random
// ops draw element i of a call from
//
//   philox4x32_10(counter = {lo(i), hi(i), lo(offset), hi(offset)},
//                 key = {lo(seed), hi(seed)})
//
// where `seed` and `offset` are the generator's (Generator.h): each random
// op of a kernel takes its own offset, so no two calls share a counter. The
// compiled kernels compute the same function in MLIR (RandomToLinalg.cpp);
// this is the host's copy, for native kernels (randperm) and tests.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_RUNTIME_PHILOX_H
#define OPAL_RUNTIME_PHILOX_H

#include <array>
#include <cstdint>

namespace opal::philox {

/// The round multipliers and the key increments (Weyl sequence).
inline constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u;
inline constexpr uint32_t kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;
inline constexpr int kRounds = 10;

using Counter = std::array<uint32_t, 4>;
using Key = std::array<uint32_t, 2>;

constexpr Counter philox4x32_10(Counter c, Key k) {
  for (int round = 0; round < kRounds; ++round) {
    if (round) {
      k[0] += kW0;
      k[1] += kW1;
    }
    uint64_t p0 = static_cast<uint64_t>(kM0) * c[0];
    uint64_t p1 = static_cast<uint64_t>(kM1) * c[2];
    c = {static_cast<uint32_t>(p1 >> 32) ^ c[1] ^ k[0], static_cast<uint32_t>(p1),
         static_cast<uint32_t>(p0 >> 32) ^ c[3] ^ k[1], static_cast<uint32_t>(p0)};
  }
  return c;
}

/// The four words of element `index` of a random op at `offset` under `seed`.
constexpr Counter draw(uint64_t seed, uint64_t offset, uint64_t index) {
  return philox4x32_10({static_cast<uint32_t>(index), static_cast<uint32_t>(index >> 32),
                        static_cast<uint32_t>(offset), static_cast<uint32_t>(offset >> 32)},
                       {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32)});
}

/// A float in [0, 1) from the top 24 bits of a word (float32's precision).
constexpr float uniformFloat(uint32_t word) {
  return static_cast<float>(word >> 8) * (1.0f / 16777216.0f);
}

/// A double in [0, 1) from the top 53 bits of two words.
constexpr double uniformDouble(uint32_t high, uint32_t low) {
  uint64_t bits = (static_cast<uint64_t>(high) << 32 | low) >> 11;
  return static_cast<double>(bits) * (1.0 / 9007199254740992.0);
}

} // namespace opal::philox

#endif // OPAL_RUNTIME_PHILOX_H
