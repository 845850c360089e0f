//===- Launch.h - Loading and launching compiled CUDA kernels ---*- C++ -*-===//
//
// A kernel compiled for CUDA is two parts: host code (an object linked into
// the process like a CPU kernel) and device code (one cubin or PTX image
// with the kernel functions, per arch). The host code computes grid sizes
// and calls back into this runtime, through the C functions below, to
// launch kernels and allocate temporaries (the ABI opal-gpu-host-to-llvm
// lowers to):
//
//   void  opal_cuda_launch(void *module, int32_t kernel, int64_t gridX,
//                          int64_t gridY, int64_t gridZ, int64_t blockX,
//                          int64_t blockY, int64_t blockZ, int32_t shared,
//                          void **params);
//   void *opal_cuda_alloc(int64_t bytes);
//   void  opal_cuda_free(void *pointer);
//
// `module` is the KernelModule the runtime stores in the host object's
// global `opal_gpu_module`; `kernel` indexes its kernel names. Launches go
// to the current stream of the device the LaunchScope names, without
// waiting. The host code cannot unwind C++ exceptions, so these functions
// never throw: the first error is kept and LaunchScope::finish throws it.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_CUDA_LAUNCH_H
#define OPAL_CUDA_LAUNCH_H

#include "opal/CUDA/DriverApi.h"

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace opal::cuda {

/// The device code of one compiled kernel: its image and kernel names, and
/// the module loaded from it on each device, on first use there. Loaded
/// modules stay for the process's life (like loaded host code).
class KernelModule {
public:
  enum class Format : uint8_t { Cubin, Ptx };
  KernelModule(std::string image, Format format, std::vector<std::string> kernelNames);
  KernelModule(const KernelModule &) = delete;
  KernelModule &operator=(const KernelModule &) = delete;

  const std::string &image() const { return image_; }
  Format format() const { return format_; }
  const std::vector<std::string> &kernelNames() const { return names_; }

  /// The kernel functions on device `ordinal`, in kernelNames() order;
  /// loads the image there on first use. Throws OpalError with the
  /// driver's reason (an image for another arch, a PTX too new for the
  /// driver) if it cannot.
  const CUfunction *functions(int ordinal);
  /// How many devices the image was loaded on.
  int loadCount() const;

private:
  static constexpr int kMaxDevices = 64;
  struct Loaded {
    CUmodule module = nullptr;
    std::vector<CUfunction> functions;
  };
  std::string image_;
  Format format_;
  std::vector<std::string> names_;
  std::mutex mutex_;
  std::array<std::atomic<Loaded *>, kMaxDevices> loaded_{};
};

/// The launch state of this thread while host code of `module` runs on
/// device `ordinal`: activates the device's context and loads the module
/// there. Temporaries the host code leaves allocated are released when the
/// scope ends. Errors start with "<kernel> on cuda:<ordinal>" (`kernel`,
/// e.g. "aten::exp(float32[?])", must outlive the scope).
class LaunchScope {
public:
  LaunchScope(KernelModule &module, int ordinal, const std::string &kernel);
  ~LaunchScope();
  LaunchScope(const LaunchScope &) = delete;
  LaunchScope &operator=(const LaunchScope &) = delete;
  /// Throws OpalError("<kernel> on cuda:<ordinal>: <first error>") if a
  /// launch or allocation failed while the scope was active.
  void finish();

private:
  [[noreturn]] void raise(const std::string &error) const;
  const std::string &kernel_;
  int ordinal_;
};

/// Launches counted since the process started (for tests and opal.jit).
uint64_t launchCount();

/// Kernel names as one text, each followed by a newline (how the disk cache
/// and ahead-of-time libraries store a KernelModule's names), and back.
std::string joinKernelNames(const std::vector<std::string> &names);
std::vector<std::string> splitKernelNames(const std::string &text);

} // namespace opal::cuda

extern "C" {
void opal_cuda_launch(void *module, int32_t kernel, int64_t gridX, int64_t gridY, int64_t gridZ,
                      int64_t blockX, int64_t blockY, int64_t blockZ, int32_t shared,
                      void **params);
void *opal_cuda_alloc(int64_t bytes);
void opal_cuda_free(void *pointer);
}

#endif // OPAL_CUDA_LAUNCH_H
