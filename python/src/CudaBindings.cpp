//===- CudaBindings.cpp - opal._C._cuda_*: devices, streams, memory -------===//

#include "Bindings.h"
#include "PythonValues.h"

#include "opal/CUDA/Device.h"

#include <pybind11/stl.h>

namespace py = pybind11;
using namespace opal;
using namespace opal::python;

void opal::python::bindCuda(py::module_ &m) {
  m.def("_cuda_is_available", [] { return cuda::isAvailable(); });
  m.def("_cuda_unavailable_reason", []() -> std::optional<std::string> {
    std::string whyNot;
    if (cuda::driver(&whyNot))
      return std::nullopt;
    return whyNot;
  });
  m.def("_cuda_device_count", [] { return cuda::deviceCount(); });
  m.def("_cuda_driver_version", [] { return cuda::requireDriver().version; });
  m.def("_cuda_device_properties", [](int ordinal) {
    cuda::DeviceProperties p = cuda::deviceProperties(ordinal);
    py::dict properties;
    properties["name"] = p.name;
    properties["major"] = p.major;
    properties["minor"] = p.minor;
    properties["multi_processor_count"] = p.multiprocessors;
    properties["max_threads_per_block"] = p.maxThreadsPerBlock;
    properties["total_memory"] = p.totalMemory;
    return properties;
  });
  m.def("_cuda_current_device", [] {
    cuda::requireDriver();
    return cuda::currentDevice();
  });
  m.def("_cuda_set_device", &cuda::setCurrentDevice);
  m.def("_cuda_synchronize", [](std::optional<int> ordinal) {
    cuda::requireDriver();
    py::gil_scoped_release release;
    cuda::synchronize(ordinal ? *ordinal : cuda::currentDevice());
  }, py::arg("device") = py::none());
  m.def("_cuda_empty_cache", &cuda::emptyCache);
  m.def("_cuda_memory_stats", [] { return allocatorStatsDict(cuda::memoryStats()); });
}
