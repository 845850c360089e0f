//===- Device.h - CUDA devices, contexts, streams, memory -------*- C++ -*-===//
//
// Every function here opens the driver on first use (DriverApi.h) and
// raises OpalError("CUDA is not available: ...") without one, except
// deviceCount(), which is then 0. Each device runs opal's work on its
// primary context and one stream of its own (the current stream), so work
// on a device is ordered and the caching allocator may reuse a block as soon
// as its tensor dies.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_CUDA_DEVICE_H
#define OPAL_CUDA_DEVICE_H

#include "opal/CUDA/DriverApi.h"
#include "opal/Runtime/Allocator.h"
#include "opal/Runtime/Device.h"

#include <cstdint>
#include <string>

namespace opal::cuda {

/// The number of CUDA devices; 0 without a driver.
int deviceCount();

struct DeviceProperties {
  std::string name;
  int major = 0;
  int minor = 0;
  int multiprocessors = 0;
  int maxThreadsPerBlock = 0;
  size_t totalMemory = 0;
};

/// The properties of device `ordinal` (throws for an ordinal out of range).
DeviceProperties deviceProperties(int ordinal);

/// The current device of this thread (0 unless set).
int currentDevice();
/// Sets the current device of this thread.
void setCurrentDevice(int ordinal);
/// The ordinal of a CUDA `device` ("cuda" is the current device); throws
/// for an ordinal out of range.
int ordinalOf(Device device);

/// Makes device `ordinal`'s primary context current on this thread.
void activate(int ordinal);
/// The stream opal's work on device `ordinal` goes to (created on first use).
CUstream currentStream(int ordinal);
/// Waits for all work on `ordinal`'s current stream.
void synchronize(int ordinal);

/// Device memory: blocks are rounded up to a size class (multiples of 512
/// bytes up to 1 MiB, then of 2 MiB), kept in a per-device cache when freed
/// and reused by the next allocation of the class. When the driver runs out
/// of memory, the cache is emptied and the allocation retried once.
void *allocate(int ordinal, size_t nbytes);
void release(int ordinal, void *block, size_t nbytes);
/// Frees every cached block of every device.
void emptyCache();
AllocatorStats memoryStats();

/// Copies `nbytes` between host and device memory or within a device, on
/// the current stream; copies to the host wait for the stream to finish.
void copyBytes(void *destination, Device destinationDevice, const void *source,
               Device sourceDevice, size_t nbytes);

} // namespace opal::cuda

#endif // OPAL_CUDA_DEVICE_H
