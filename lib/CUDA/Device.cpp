//===- Device.cpp - CUDA devices, contexts and streams --------------------===//

#include "opal/CUDA/Device.h"

#include "opal/Support/Exceptions.h"

#include <mutex>
#include <vector>

using namespace opal;
using namespace opal::cuda;

namespace {

struct DeviceState {
  CUcontext context = nullptr;
  CUstream stream = nullptr;
};

std::mutex stateMutex;
std::vector<DeviceState> &states() {
  static std::vector<DeviceState> all(static_cast<size_t>(deviceCount()));
  return all;
}

thread_local int current = 0;

void checkOrdinal(int ordinal) {
  int count = deviceCount();
  if (ordinal < 0 || ordinal >= count)
    throw OpalError("CUDA device " + std::to_string(ordinal) + " does not exist (there " +
                    (count == 1 ? "is 1 device" : "are " + std::to_string(count) + " devices") +
                    ")");
}

} // namespace

int opal::cuda::deviceCount() {
  static const int count = [] {
    const DriverApi *api = driver();
    int n = 0;
    if (api && api->cuDeviceGetCount(&n) != kSuccess)
      n = 0;
    return n;
  }();
  return count;
}

DeviceProperties opal::cuda::deviceProperties(int ordinal) {
  const DriverApi &api = requireDriver();
  checkOrdinal(ordinal);
  CUdevice device;
  check(api.cuDeviceGet(&device, ordinal), "cuDeviceGet");
  DeviceProperties properties;
  char name[256] = {0};
  check(api.cuDeviceGetName(name, sizeof(name) - 1, device), "cuDeviceGetName");
  properties.name = name;
  check(api.cuDeviceGetAttribute(&properties.major, kComputeCapabilityMajor, device),
        "cuDeviceGetAttribute");
  check(api.cuDeviceGetAttribute(&properties.minor, kComputeCapabilityMinor, device),
        "cuDeviceGetAttribute");
  check(api.cuDeviceGetAttribute(&properties.multiprocessors, kMultiprocessorCount, device),
        "cuDeviceGetAttribute");
  check(api.cuDeviceGetAttribute(&properties.maxThreadsPerBlock, kMaxThreadsPerBlock, device),
        "cuDeviceGetAttribute");
  check(api.cuDeviceTotalMem_v2(&properties.totalMemory, device), "cuDeviceTotalMem");
  return properties;
}

int opal::cuda::currentDevice() { return current; }

void opal::cuda::setCurrentDevice(int ordinal) {
  requireDriver();
  checkOrdinal(ordinal);
  current = ordinal;
}

int opal::cuda::ordinalOf(Device device) {
  requireDriver();
  int ordinal = device.hasIndex() ? device.index() : current;
  checkOrdinal(ordinal);
  return ordinal;
}

void opal::cuda::activate(int ordinal) {
  const DriverApi &api = requireDriver();
  checkOrdinal(ordinal);
  CUcontext context;
  {
    std::lock_guard<std::mutex> lock(stateMutex);
    DeviceState &state = states()[ordinal];
    if (!state.context) {
      CUdevice device;
      check(api.cuDeviceGet(&device, ordinal), "cuDeviceGet");
      check(api.cuDevicePrimaryCtxRetain(&state.context, device), "cuDevicePrimaryCtxRetain");
    }
    context = state.context;
  }
  check(api.cuCtxSetCurrent(context), "cuCtxSetCurrent");
}

CUstream opal::cuda::currentStream(int ordinal) {
  activate(ordinal);
  std::lock_guard<std::mutex> lock(stateMutex);
  DeviceState &state = states()[ordinal];
  if (!state.stream)
    check(requireDriver().cuStreamCreate(&state.stream, 0), "cuStreamCreate");
  return state.stream;
}

void opal::cuda::synchronize(int ordinal) {
  CUstream stream = currentStream(ordinal);
  check(requireDriver().cuStreamSynchronize(stream), "cuStreamSynchronize");
}

void opal::cuda::copyBytes(void *destination, Device destinationDevice, const void *source,
                           Device sourceDevice, size_t nbytes) {
  if (nbytes == 0)
    return;
  const DriverApi &api = requireDriver();
  bool toDevice = destinationDevice.isCUDA(), fromDevice = sourceDevice.isCUDA();
  int ordinal = ordinalOf(toDevice ? destinationDevice : sourceDevice);
  CUstream stream = currentStream(ordinal);
  auto pointer = [](const void *p) { return static_cast<CUdeviceptr>(reinterpret_cast<uintptr_t>(p)); };
  if (toDevice && fromDevice) {
    check(api.cuMemcpyDtoDAsync_v2(pointer(destination), pointer(source), nbytes, stream),
          "cuMemcpyDtoDAsync");
  } else if (toDevice) {
    // The host block may be freed as soon as this returns: wait.
    check(api.cuMemcpyHtoDAsync_v2(pointer(destination), source, nbytes, stream),
          "cuMemcpyHtoDAsync");
    check(api.cuStreamSynchronize(stream), "cuStreamSynchronize");
  } else {
    check(api.cuMemcpyDtoHAsync_v2(destination, pointer(source), nbytes, stream),
          "cuMemcpyDtoHAsync");
    check(api.cuStreamSynchronize(stream), "cuStreamSynchronize");
  }
}
