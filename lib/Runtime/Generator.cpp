//===- Generator.cpp - The seed and offset of opal's random ops ----------===//

#include "opal/Runtime/Generator.h"

#include <chrono>
#include <random>

using namespace opal;

void Generator::manualSeed(uint64_t seed) {
  std::lock_guard<std::mutex> lock(mutex_);
  state_ = {seed, 0};
}

uint64_t Generator::seedNondeterministically() {
  std::random_device device;
  uint64_t seed = (static_cast<uint64_t>(device()) << 32) ^ device() ^
                  static_cast<uint64_t>(
                      std::chrono::high_resolution_clock::now().time_since_epoch().count());
  manualSeed(seed);
  return seed;
}

uint64_t Generator::initialSeed() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return state_.seed;
}

RandomState Generator::reserve(uint64_t streams) {
  std::lock_guard<std::mutex> lock(mutex_);
  RandomState taken = state_;
  state_.offset += streams;
  return taken;
}

RandomState Generator::state() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return state_;
}

void Generator::setState(RandomState state) {
  std::lock_guard<std::mutex> lock(mutex_);
  state_ = state;
}

Generator &opal::defaultGenerator(DeviceType type) {
  static Generator cpu, cuda;
  return type == DeviceType::CUDA ? cuda : cpu;
}

void opal::manualSeedAll(uint64_t seed) {
  defaultGenerator(DeviceType::CPU).manualSeed(seed);
  defaultGenerator(DeviceType::CUDA).manualSeed(seed);
}
