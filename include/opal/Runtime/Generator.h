//===- Generator.h - The seed and offset of opal's random ops -*- C++ -*-===//
//
// One default generator per device type (CPU, CUDA), as PyTorch keeps one
// per device. A generator is a seed and an offset: a kernel with N random ops
// reserves N offsets per call (reserve), and its op k draws its elements from
// Philox at (seed, offset + k) (Philox.h). The numbers of a seeded program
// therefore do not depend on how its ops were fused, on the device or on the
// thread count. manualSeed sets the seed and restarts the offset at 0.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_RUNTIME_GENERATOR_H
#define OPAL_RUNTIME_GENERATOR_H

#include "opal/Runtime/Device.h"

#include <cstdint>
#include <mutex>

namespace opal {

struct RandomState {
  uint64_t seed = 0;
  uint64_t offset = 0;
  bool operator==(const RandomState &other) const {
    return seed == other.seed && offset == other.offset;
  }
};

class Generator {
public:
  /// PyTorch's default seed (c10's default_rng_seed_val).
  static constexpr uint64_t kDefaultSeed = 67280421310721ull;

  /// Sets the seed; the offset starts again at 0.
  void manualSeed(uint64_t seed);
  /// Seeds from a non-deterministic source and returns the seed.
  uint64_t seedNondeterministically();
  uint64_t initialSeed() const;
  /// The state before `streams` offsets are taken, which this call takes.
  RandomState reserve(uint64_t streams);
  RandomState state() const;
  void setState(RandomState state);

private:
  mutable std::mutex mutex_;
  RandomState state_{kDefaultSeed, 0};
};

/// The default generator of `type` (Meta shares CPU's: it draws nothing).
Generator &defaultGenerator(DeviceType type);

/// Seeds every default generator (opal.manual_seed).
void manualSeedAll(uint64_t seed);

} // namespace opal

#endif // OPAL_RUNTIME_GENERATOR_H
