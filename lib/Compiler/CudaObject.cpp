//===- CudaObject.cpp - A kernel compiled for CUDA, as one blob -----------===//

#include "opal/Compiler/CudaObject.h"

#include "opal/CUDA/Launch.h"
#include "opal/Support/Environment.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"

#include "llvm/Support/FileSystem.h"

#include <cstring>

using namespace mlir;
using namespace opal::ir;

LogicalResult opal::ir::takeDeviceCode(ModuleOp module, CudaKernelObject &into,
                                       std::string &error) {
  auto binaries = llvm::to_vector(module.getOps<gpu::BinaryOp>());
  into.kernels.clear();
  auto launched = module->getAttrOfType<ArrayAttr>("opal.gpu_kernels");
  if (binaries.empty() && (!launched || launched.empty())) {
    // Nothing runs on the device (every output is empty, or the result is
    // known without computing): host code only, no image to load.
    into.image.clear();
    into.ptx = false;
    module->removeAttr("opal.gpu_kernels");
    module->removeAttr(gpu::GPUDialect::getContainerModuleAttrName());
    return success();
  }
  if (binaries.size() != 1) {
    error = "internal error: expected one gpu.binary after the CUDA pipeline, found " +
            std::to_string(binaries.size());
    return failure();
  }
  ArrayAttr objects = binaries.front().getObjects();
  if (objects.size() != 1) {
    error = "internal error: expected one object in the gpu.binary, found " +
            std::to_string(objects.size());
    return failure();
  }
  auto object = cast<gpu::ObjectAttr>(objects[0]);
  into.image = object.getObject().getValue().str();
  into.ptx = object.getFormat() == gpu::CompilationTarget::Assembly;
  if (launched)
    for (Attribute name : launched)
      into.kernels.push_back(cast<StringAttr>(name).getValue().str());
  binaries.front()->erase();
  module->removeAttr("opal.gpu_kernels");
  module->removeAttr(gpu::GPUDialect::getContainerModuleAttrName());
  return success();
}

namespace {
void appendPart(std::string &blob, const std::string &part) {
  uint64_t size = part.size();
  blob.append(reinterpret_cast<const char *>(&size), sizeof size);
  blob += part;
}
bool readPart(const std::string &blob, size_t &at, std::string &part) {
  uint64_t size = 0;
  if (blob.size() - at < sizeof size)
    return false;
  std::memcpy(&size, blob.data() + at, sizeof size);
  at += sizeof size;
  if (blob.size() - at < size)
    return false;
  part.assign(blob, at, size);
  at += size;
  return true;
}
constexpr const char *kMagic = "opal-cuda-kernel-1";
} // namespace

std::string opal::ir::serializeCudaObject(const CudaKernelObject &object) {
  std::string blob;
  appendPart(blob, kMagic);
  appendPart(blob, object.ptx ? "ptx" : "cubin");
  appendPart(blob, object.host);
  appendPart(blob, object.image);
  appendPart(blob, opal::cuda::joinKernelNames(object.kernels));
  return blob;
}

bool opal::ir::parseCudaObject(const std::string &blob, CudaKernelObject &into) {
  size_t at = 0;
  std::string magic, format, names;
  if (!readPart(blob, at, magic) || magic != kMagic || !readPart(blob, at, format) ||
      (format != "ptx" && format != "cubin") || !readPart(blob, at, into.host) ||
      !readPart(blob, at, into.image) || !readPart(blob, at, names) || at != blob.size())
    return false;
  into.ptx = format == "ptx";
  into.kernels = opal::cuda::splitKernelNames(names);
  return true;
}

void opal::ir::setJitCudaOptions(int capability, CudaPipelineOptions &options) {
  options.chip = "sm_" + std::to_string(capability);
  std::optional<std::string> format = opal::readKnob("OPAL_CUDA_FORMAT");
  if (format && (*format == "bin" || *format == "isa")) // others: warned of and ignored
    options.format = *format;
  else
    options.format = llvm::sys::fs::can_execute(defaultCudaToolkit() + "/bin/ptxas") ? "bin"
                                                                                     : "isa";
}

std::string opal::ir::cudaTargetDescription(const CudaPipelineOptions &options) {
  std::string toolkit = cudaToolkitOf(options);
  return "cuda " + options.chip.getValue() + " " + options.format.getValue() + ", ptxas " +
         ptxasVersion(toolkit);
}
