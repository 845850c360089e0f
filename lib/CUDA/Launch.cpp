//===- Launch.cpp - Loading and launching compiled CUDA kernels -----------===//

#include "opal/CUDA/Launch.h"

#include "opal/CUDA/Device.h"
#include "opal/Support/Exceptions.h"

#include <algorithm>

using namespace opal;
using namespace opal::cuda;

namespace {

std::atomic<uint64_t> launches{0};

/// What the host code of the running kernel works with.
struct LaunchState {
  bool active = false;
  int ordinal = 0;
  CUstream stream = nullptr;
  std::string error; ///< the first failure
  std::vector<std::pair<void *, size_t>> temporaries;
};
thread_local LaunchState state;

void fail(std::string message) {
  if (state.error.empty())
    state.error = std::move(message);
}

} // namespace

KernelModule::KernelModule(std::string image, Format format, std::vector<std::string> kernelNames)
    : image_(std::move(image)), format_(format), names_(std::move(kernelNames)) {
  // The driver reads PTX as a C string.
  if (format_ == Format::Ptx && (image_.empty() || image_.back() != '\0'))
    image_.push_back('\0');
}

const CUfunction *KernelModule::functions(int ordinal) {
  if (ordinal < 0 || ordinal >= kMaxDevices)
    throw OpalError("CUDA device " + std::to_string(ordinal) + " is beyond the " +
                    std::to_string(kMaxDevices) + " devices opal supports");
  if (Loaded *loaded = loaded_[ordinal].load(std::memory_order_acquire))
    return loaded->functions.data();
  std::lock_guard<std::mutex> lock(mutex_);
  if (Loaded *loaded = loaded_[ordinal].load(std::memory_order_acquire))
    return loaded->functions.data();
  auto fresh = std::make_unique<Loaded>();
  if (names_.empty()) {
    // A kernel whose work is all on the host (empty outputs): no image.
    Loaded *published = fresh.release();
    loaded_[ordinal].store(published, std::memory_order_release);
    return published->functions.data();
  }
  const DriverApi &api = requireDriver();
  activate(ordinal);
  CUresult result = api.cuModuleLoadData(&fresh->module, image_.data());
  if (result != kSuccess)
    throw OpalError(std::string("cannot load the kernel's ") +
                    (format_ == Format::Ptx ? "PTX" : "cubin") + " on cuda:" +
                    std::to_string(ordinal) + ": " + describeError(result) +
                    (format_ == Format::Cubin ? " (a cubin runs only on the arch it was "
                                                "compiled for)"
                                              : ""));
  for (const std::string &name : names_) {
    CUfunction function = nullptr;
    result = api.cuModuleGetFunction(&function, fresh->module, name.c_str());
    if (result != kSuccess) {
      api.cuModuleUnload(fresh->module);
      throw OpalError("the kernel's image has no function " + name + ": " +
                      describeError(result));
    }
    fresh->functions.push_back(function);
  }
  Loaded *published = fresh.release();
  loaded_[ordinal].store(published, std::memory_order_release);
  return published->functions.data();
}

int KernelModule::loadCount() const {
  int count = 0;
  for (const auto &loaded : loaded_)
    count += loaded.load(std::memory_order_acquire) != nullptr;
  return count;
}

LaunchScope::LaunchScope(KernelModule &module, int ordinal, const std::string &kernel)
    : kernel_(kernel), ordinal_(ordinal) {
  state.ordinal = ordinal;
  try {
    state.stream = currentStream(ordinal); // activates the device's context
    module.functions(ordinal);             // loads before the host code runs
  } catch (const OpalError &error) {
    raise(error.what());
  }
  state.active = true;
}

LaunchScope::~LaunchScope() {
  // Reset in place: the thread's buffers are reused by its next call.
  for (auto &[block, bytes] : state.temporaries)
    release(state.ordinal, block, bytes);
  state.temporaries.clear();
  state.error.clear();
  state.active = false;
}

void LaunchScope::raise(const std::string &error) const {
  throw OpalError(kernel_ + " on cuda:" + std::to_string(ordinal_) + ": " + error);
}

void LaunchScope::finish() {
  if (!state.error.empty())
    raise(state.error); // the destructor clears it
}

uint64_t opal::cuda::launchCount() { return launches.load(std::memory_order_relaxed); }

std::string opal::cuda::joinKernelNames(const std::vector<std::string> &names) {
  std::string text;
  for (const std::string &name : names)
    text += name + "\n";
  return text;
}

std::vector<std::string> opal::cuda::splitKernelNames(const std::string &text) {
  std::vector<std::string> names;
  for (size_t start = 0, end; (end = text.find('\n', start)) != std::string::npos;
       start = end + 1)
    names.push_back(text.substr(start, end - start));
  return names;
}

extern "C" void opal_cuda_launch(void *module, int32_t kernel, int64_t gridX, int64_t gridY,
                                 int64_t gridZ, int64_t blockX, int64_t blockY, int64_t blockZ,
                                 int32_t shared, void **params) {
  if (!state.active || !state.error.empty())
    return fail("a kernel was launched outside a launch scope");
  auto *kernels = static_cast<KernelModule *>(module);
  if (!kernels || kernel < 0 || static_cast<size_t>(kernel) >= kernels->kernelNames().size())
    return fail("internal error: a launch names kernel " + std::to_string(kernel) +
                " of a module that does not have it");
  constexpr int64_t kMaxGrid = 0x7fffffff;
  if (gridX > kMaxGrid || gridY > 65535 || gridZ > 65535)
    return fail("kernel " + kernels->kernelNames()[kernel] + " needs a grid of (" +
                std::to_string(gridX) + ", " + std::to_string(gridY) + ", " +
                std::to_string(gridZ) + ") blocks, more than CUDA allows");
  try {
    CUfunction function = kernels->functions(state.ordinal)[kernel];
    CUresult result = requireDriver().cuLaunchKernel(
        function, static_cast<unsigned>(gridX), static_cast<unsigned>(gridY),
        static_cast<unsigned>(gridZ), static_cast<unsigned>(blockX),
        static_cast<unsigned>(blockY), static_cast<unsigned>(blockZ),
        static_cast<unsigned>(shared), state.stream, params, nullptr);
    if (result != kSuccess)
      return fail("CUDA error in cuLaunchKernel(" + kernels->kernelNames()[kernel] +
                  "): " + describeError(result));
    launches.fetch_add(1, std::memory_order_relaxed);
  } catch (const std::exception &error) {
    fail(error.what());
  }
}

extern "C" void *opal_cuda_alloc(int64_t bytes) {
  if (!state.active || !state.error.empty())
    return nullptr;
  try {
    size_t size = static_cast<size_t>(std::max<int64_t>(bytes, 0));
    void *block = allocate(state.ordinal, size);
    state.temporaries.emplace_back(block, size);
    return block;
  } catch (const std::exception &error) {
    fail(error.what());
    return nullptr;
  }
}

extern "C" void opal_cuda_free(void *pointer) {
  auto &temporaries = state.temporaries;
  auto it = std::find_if(temporaries.begin(), temporaries.end(),
                         [&](const auto &entry) { return entry.first == pointer; });
  if (it == temporaries.end())
    return; // never allocated (an earlier failure)
  release(state.ordinal, it->first, it->second);
  temporaries.erase(it);
}
