//===- Device.h - Where a tensor lives --------------------------*- C++ -*-===//

#ifndef OPAL_RUNTIME_DEVICE_H
#define OPAL_RUNTIME_DEVICE_H

#include "opal/Dispatch/DispatchKey.h"
#include "opal/Support/Expected.h"

#include <cstdint>
#include <string>
#include <string_view>

namespace opal {

enum class DeviceType : int8_t { CPU = 0, CUDA = 1, Meta = 2 };

class Device {
public:
  constexpr Device(DeviceType type = DeviceType::CPU, int8_t index = -1)
      : type_(type), index_(index) {}

  /// Parses "cpu", "cuda", "cuda:1" or "meta".
  static Expected<Device> parse(std::string_view text);

  DeviceType type() const { return type_; }
  /// -1 when no index was given ("cuda" rather than "cuda:0").
  int8_t index() const { return index_; }
  bool hasIndex() const { return index_ >= 0; }
  bool isCPU() const { return type_ == DeviceType::CPU; }
  bool isCUDA() const { return type_ == DeviceType::CUDA; }
  bool isMeta() const { return type_ == DeviceType::Meta; }

  /// The backend component of the device's dispatch keys.
  BackendComponent backend() const;
  /// "cpu", "cuda:0", "meta".
  std::string str() const;

  bool operator==(const Device &other) const {
    return type_ == other.type_ && index_ == other.index_;
  }
  bool operator!=(const Device &other) const { return !(*this == other); }

private:
  DeviceType type_;
  int8_t index_;
};

} // namespace opal

#endif // OPAL_RUNTIME_DEVICE_H
