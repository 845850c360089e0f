//===- DriverApi.h - The CUDA driver, opened at run time --------*- C++ -*-===//
//
// opal never links libcuda: the driver is opened with dlopen on first use
// (OPAL_LIBCUDA, default libcuda.so.1) and its entry points are resolved
// from the table in DriverSymbols.def into a DriverApi. Without a driver,
// everything on the CPU works and every CUDA call raises an OpalError that
// says why CUDA is unavailable.
//
// The handful of driver types opal needs are declared here with their ABI
// (opaque handles, 64-bit device pointers, int results), so opal builds
// without the CUDA toolkit; a unit test checks them against cuda.h where
// the toolkit is installed.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_CUDA_DRIVERAPI_H
#define OPAL_CUDA_DRIVERAPI_H

#include <cstddef>
#include <cstdint>
#include <string>

namespace opal::cuda {

using CUresult = int;
using CUdevice = int;
using CUdeviceptr = unsigned long long;
using CUcontext = struct CUctx_st *;
using CUstream = struct CUstream_st *;
using CUmodule = struct CUmod_st *;
using CUfunction = struct CUfunc_st *;

inline constexpr CUresult kSuccess = 0;

/// Device attributes opal reads (CUdevice_attribute values).
enum DeviceAttribute : int {
  kMaxThreadsPerBlock = 1,
  kMultiprocessorCount = 16,
  kComputeCapabilityMajor = 75,
  kComputeCapabilityMinor = 76,
};

/// The resolved entry points.
struct DriverApi {
#define OPAL_CUDA_SYMBOL(name, parameters) CUresult(*name) parameters = nullptr;
#include "opal/CUDA/DriverSymbols.def"
  /// The file that was opened and the driver's version (12040 is 12.4).
  std::string path;
  int version = 0;
};

/// The driver, opened and initialized on the first call; null if there is
/// none (then `whyNot`, if given, says why: no libcuda, a missing entry
/// point, or cuInit's error).
const DriverApi *driver(std::string *whyNot = nullptr);

/// True if a driver was opened and initialized (cuInit succeeded).
bool isAvailable();

/// The driver, or throws OpalError("CUDA is not available: <why>").
const DriverApi &requireDriver();

/// "CUDA_ERROR_OUT_OF_MEMORY: out of memory": the driver's name and text
/// for an error, or opal's own table where the driver gives none; for a
/// kernel's fault (isStickyError), followed by what it means.
std::string describeError(CUresult error);
/// Whether `error` is a kernel's fault (an illegal address, a device-side
/// assert, an unspecified launch failure, ...): the context is broken for
/// good, and the call that reports it may come after the kernel that made
/// it. describeError says so.
bool isStickyError(CUresult error);

/// Throws OpalError("CUDA error in <what>: <describeError>") if `result`
/// is not success.
void check(CUresult result, const char *what);

} // namespace opal::cuda

#endif // OPAL_CUDA_DRIVERAPI_H
