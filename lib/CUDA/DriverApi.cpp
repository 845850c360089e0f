//===- DriverApi.cpp - The CUDA driver, opened at run time ----------------===//

#include "opal/CUDA/DriverApi.h"

#include "opal/Support/Environment.h"
#include "opal/Support/Exceptions.h"

#include <dlfcn.h>
#include <mutex>

using namespace opal;
using namespace opal::cuda;

namespace {

struct Loaded {
  DriverApi api;
  bool ok = false;
  std::string whyNot;
};

/// The names of the errors opal is most likely to meet, for drivers (and
/// the toolkit's stub library) that do not name them.
const char *knownErrorName(CUresult error) {
  switch (error) {
  case 0: return "CUDA_SUCCESS: no error";
  case 1: return "CUDA_ERROR_INVALID_VALUE: invalid argument";
  case 2: return "CUDA_ERROR_OUT_OF_MEMORY: out of memory";
  case 3: return "CUDA_ERROR_NOT_INITIALIZED: initialization error";
  case 4: return "CUDA_ERROR_DEINITIALIZED: driver shutting down";
  case 34: return "CUDA_ERROR_STUB_LIBRARY: CUDA driver is a stub library";
  case 46: return "CUDA_ERROR_DEVICE_UNAVAILABLE: CUDA-capable device(s) is/are busy or unavailable";
  case 100: return "CUDA_ERROR_NO_DEVICE: no CUDA-capable device is detected";
  case 101: return "CUDA_ERROR_INVALID_DEVICE: invalid device ordinal";
  case 200: return "CUDA_ERROR_INVALID_IMAGE: device kernel image is invalid";
  case 201: return "CUDA_ERROR_INVALID_CONTEXT: invalid device context";
  case 209: return "CUDA_ERROR_NO_BINARY_FOR_GPU: no kernel image is available for execution on the device";
  case 218: return "CUDA_ERROR_INVALID_PTX: a PTX JIT compilation failed";
  case 222: return "CUDA_ERROR_UNSUPPORTED_PTX_VERSION: the provided PTX was compiled with an unsupported toolchain";
  case 400: return "CUDA_ERROR_INVALID_HANDLE: invalid resource handle";
  case 500: return "CUDA_ERROR_NOT_FOUND: named symbol not found";
  case 700: return "CUDA_ERROR_ILLEGAL_ADDRESS: an illegal memory access was encountered";
  case 701: return "CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES: too many resources requested for launch";
  case 710: return "CUDA_ERROR_ASSERT: device-side assert triggered";
  case 714: return "CUDA_ERROR_HARDWARE_STACK_ERROR: an illegal instruction was encountered";
  case 715: return "CUDA_ERROR_ILLEGAL_INSTRUCTION: an illegal instruction was encountered";
  case 716: return "CUDA_ERROR_MISALIGNED_ADDRESS: misaligned address";
  case 717: return "CUDA_ERROR_INVALID_ADDRESS_SPACE: operation not supported on global/shared address space";
  case 718: return "CUDA_ERROR_INVALID_PC: invalid program counter";
  case 719: return "CUDA_ERROR_LAUNCH_FAILED: unspecified launch failure";
  case 803: return "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH: system has unsupported display driver / cuda driver combination";
  case 804: return "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE: forward compatibility was attempted on non supported HW";
  case 999: return "CUDA_ERROR_UNKNOWN: unknown error";
  default: return nullptr;
  }
}

std::string describeWith(const DriverApi &api, CUresult error) {
  const char *name = nullptr, *text = nullptr;
  if (api.cuGetErrorName && api.cuGetErrorName(error, &name) == kSuccess && name &&
      api.cuGetErrorString(error, &text) == kSuccess && text)
    return std::string(name) + ": " + text;
  if (const char *known = knownErrorName(error))
    return known;
  return "CUresult " + std::to_string(error);
}

Loaded load() {
  Loaded loaded;
  std::optional<std::string> configured = readKnob("OPAL_LIBCUDA");
  std::string path = configured && !configured->empty() ? *configured : "libcuda.so.1";
  void *handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle) {
    const char *reason = ::dlerror();
    loaded.whyNot = std::string(reason ? reason : path + ": cannot be opened") +
                    " (no NVIDIA driver is installed, or OPAL_LIBCUDA names no driver)";
    return loaded;
  }
  DriverApi &api = loaded.api;
  api.path = path;
  // Resolve every entry point; a missing one means a driver too old for opal.
#define OPAL_CUDA_SYMBOL(name, parameters)                                                   \
  api.name = reinterpret_cast<decltype(api.name)>(::dlsym(handle, #name));                  \
  if (!api.name) {                                                                           \
    loaded.whyNot = path + " has no entry point " #name " (the driver is too old for opal)"; \
    return loaded;                                                                           \
  }
#include "opal/CUDA/DriverSymbols.def"
  CUresult result = api.cuInit(0);
  if (result != kSuccess) {
    loaded.whyNot = path + ": cuInit failed: " + describeWith(api, result);
    return loaded;
  }
  api.cuDriverGetVersion(&api.version);
  loaded.ok = true;
  return loaded;
}

const Loaded &loadedDriver() {
  static const Loaded loaded = load();
  return loaded;
}

} // namespace

const DriverApi *opal::cuda::driver(std::string *whyNot) {
  const Loaded &loaded = loadedDriver();
  if (!loaded.ok && whyNot)
    *whyNot = loaded.whyNot;
  return loaded.ok ? &loaded.api : nullptr;
}

bool opal::cuda::isAvailable() { return driver() != nullptr; }

const DriverApi &opal::cuda::requireDriver() {
  std::string whyNot;
  const DriverApi *api = driver(&whyNot);
  if (!api)
    throw OpalError("CUDA is not available: " + whyNot);
  return *api;
}

/// Whether `error` is a kernel's fault, which breaks the context for good:
/// every later call fails with it, and it may be reported by a call after
/// the kernel that made it (launches return before kernels run).
bool opal::cuda::isStickyError(CUresult error) {
  return error == 700 || error == 710 || (error >= 714 && error <= 719);
}

std::string opal::cuda::describeError(CUresult error) {
  std::string text = describeWith(loadedDriver().api, error);
  if (isStickyError(error))
    text += " (a kernel's fault, which CUDA reports at the first call after it, so it may "
            "come from a kernel launched earlier; the device cannot be used again in this "
            "process)";
  return text;
}

void opal::cuda::check(CUresult result, const char *what) {
  if (result != kSuccess)
    throw OpalError(std::string("CUDA error in ") + what + ": " + describeError(result));
}
