//===- Device.cpp - Where a tensor lives ----------------------------------===//

#include "opal/Runtime/Device.h"

#include <charconv>

using namespace opal;

Expected<Device> Device::parse(std::string_view text) {
  std::string_view type = text.substr(0, text.find(':'));
  DeviceType deviceType;
  if (type == "cpu")
    deviceType = DeviceType::CPU;
  else if (type == "cuda")
    deviceType = DeviceType::CUDA;
  else if (type == "meta")
    deviceType = DeviceType::Meta;
  else
    return makeUnexpected(Error("invalid device '" + std::string(text) +
                                "': expected cpu, cuda, cuda:N or meta"));
  if (type.size() == text.size())
    return Device(deviceType);
  std::string_view indexText = text.substr(type.size() + 1);
  int index = -1;
  auto [ptr, ec] = std::from_chars(indexText.data(),
                                   indexText.data() + indexText.size(), index);
  if (ec != std::errc() || ptr != indexText.data() + indexText.size() ||
      index < 0 || index > 127 || deviceType == DeviceType::Meta)
    return makeUnexpected(Error("invalid device '" + std::string(text) +
                                "': expected cpu, cuda, cuda:N or meta"));
  if (deviceType == DeviceType::CPU && index != 0)
    return makeUnexpected(Error("invalid device '" + std::string(text) +
                                "': the CPU device has index 0 only"));
  return Device(deviceType, static_cast<int8_t>(index));
}

BackendComponent Device::backend() const {
  switch (type_) {
  case DeviceType::CPU:
    return BackendComponent::CPUBit;
  case DeviceType::CUDA:
    return BackendComponent::CUDABit;
  case DeviceType::Meta:
    return BackendComponent::MetaBit;
  }
  return BackendComponent::InvalidBit;
}

std::string Device::str() const {
  const char *name = type_ == DeviceType::CPU    ? "cpu"
                     : type_ == DeviceType::CUDA ? "cuda"
                                                 : "meta";
  return hasIndex() ? std::string(name) + ":" + std::to_string(index_) : name;
}
