//===- OpLibrary.cpp - Registering ahead-of-time op libraries -------------===//

#include "opal/AOT/OpLibrary.h"

#include "opal/AOT/LoaderTrial.h"

#include "opal/CUDA/Launch.h"

#include "opal/Config.h"
#include "opal/Dispatch/Dispatcher.h"
#include "opal/Dispatch/Library.h"
#include "opal/JIT/MlirKernel.h"
#include "opal/Library/BuiltinOperators.h"
#include "opal/Schema/OpLibraryFile.h"
#include "opal/Schema/SchemaParser.h"
#include "opal/Support/ElfFile.h"
#include "opal/Support/Environment.h"
#include "opal/Support/Exceptions.h"

#include <dlfcn.h>

#include <cstring>
#include <iostream>
#include <map>
#include <memory>

using namespace opal;

namespace {

/// What a loaded library registered; deleting it removes all of it.
struct LoadedLibrary {
  std::vector<Library> libraries;
  /// The library's op-library text in the JIT (0: not added yet): taken
  /// back when the library is unregistered.
  uint64_t text = 0;
  LoadedLibrary() = default;
  LoadedLibrary(const LoadedLibrary &) = delete;
  LoadedLibrary &operator=(const LoadedLibrary &) = delete;
  ~LoadedLibrary() {
    if (text)
      jit::removeOpLibraryText(text);
  }
};

std::string hostArchitecture() {
#if defined(__x86_64__)
  return "x86_64";
#elif defined(__aarch64__)
  return "aarch64";
#else
  return "unknown";
#endif
}

std::string joined(const std::vector<std::string> &items) {
  std::string text;
  for (const std::string &item : items)
    text += (text.empty() ? "" : ", ") + item;
  return text;
}

/// Refuses a library this opal or this CPU cannot run.
void checkCompatible(const opal_aot_library &library, const std::string &name) {
  std::string rebuild = ": rebuild it with this opal's opal-aot";
  if (library.format != OPAL_AOT_FORMAT)
    throw OpalError(name + " is an ahead-of-time op library of format " +
                    std::to_string(library.format) + ", but this opal (" OPAL_VERSION
                    ") reads format " + std::to_string(OPAL_AOT_FORMAT) + rebuild);
  if (!library.opal_version || std::strcmp(library.opal_version, OPAL_VERSION) != 0)
    throw OpalError(name + " was built for opal " +
                    (library.opal_version ? library.opal_version : "(unknown)") +
                    ", but this is opal " OPAL_VERSION + rebuild);
  std::string target = library.target ? library.target : "";
  std::string arch = target.substr(0, target.find('-'));
  if (arch != hostArchitecture())
    throw OpalError(name + " was compiled for " + target + ", but this machine is " +
                    hostArchitecture() + rebuild + " on this machine");
  std::vector<std::string> missing =
      aot::missingCpuFeatures(library.features ? library.features : "");
  if (!missing.empty())
    throw OpalError(name + " was compiled for " + target + " and needs CPU features this "
                    "machine lacks (" + joined(missing) + ")" + rebuild +
                    " on this machine, or for an older CPU (opal-aot --cpu=x86-64)");
}

/// The shared object that holds `address` (the library's descriptor).
std::string sharedObjectOf(const void *address) {
  Dl_info info;
  if (::dladdr(address, &info) && info.dli_fname)
    return info.dli_fname;
  return "";
}

std::unique_ptr<LoadedLibrary> registerLibrary(const opal_aot_library &library) {
  std::string name = library.name ? library.name : "(unnamed op library)";
  std::string origin = sharedObjectOf(&library);
  origin = origin.empty() ? name : origin + " (" + name + ")";
  checkCompatible(library, name);
  Library::Kind kind = Library::DEF;
  if (library.kind && std::strcmp(library.kind, "FRAGMENT") == 0)
    kind = Library::FRAGMENT;
  else if (!library.kind || std::strcmp(library.kind, "DEF") != 0)
    throw OpalError(name + ": unknown library kind '" +
                    (library.kind ? library.kind : "(null)") + "' (expected DEF or FRAGMENT)");
  std::string text = library.text ? library.text : "";
  auto contents = scanOpLibrary(text, name);
  if (!contents)
    throw OpalError(contents.error().message());

  auto loaded = std::make_unique<LoadedLibrary>();
  std::map<std::string, size_t> byNamespace;
  auto libraryFor = [&](const std::string &ns) -> Library & {
    auto [it, inserted] = byNamespace.emplace(ns, loaded->libraries.size());
    if (inserted)
      loaded->libraries.emplace_back(kind, ns, std::nullopt, origin.c_str(), 0);
    return loaded->libraries[it->second];
  };
  for (const FunctionSchema &schema : contents->schemas)
    libraryFor(std::string(schema.ns())).def(schema.str());
  std::map<std::string, KernelFunction> mlirKernels;
  for (const std::string &qualname : contents->decomposed) {
    size_t colons = qualname.find("::");
    KernelFunction kernel = jit::MlirKernel::make();
    libraryFor(qualname.substr(0, colons))
        .impl(qualname.substr(colons + 2), DispatchKey::CompositeImplicitAutograd,
              CppFunction::makeFromKernelFunction(kernel));
    mlirKernels.emplace(qualname, kernel);
  }

  for (unsigned i = 0; i < library.kernel_count; ++i) {
    const opal_aot_kernel &entry = library.kernels[i];
    std::string op = entry.op ? entry.op : "";
    auto fail = [&](const std::string &why) {
      return OpalError(name + ": precompiled kernel " + op +
                       (entry.specialization ? entry.specialization : "") + ": " + why);
    };
    auto found = mlirKernels.find(op);
    if (found == mlirKernels.end())
      throw fail("the library has no decomposition of " + op);
    auto opName = parseOperatorName(op);
    auto handle = opName ? Dispatcher::singleton().findSchema(*opName) : std::nullopt;
    if (!handle)
      throw fail(op + " is not defined");
    auto sample = jit::parseSpecialization(handle->schema(),
                                           entry.specialization ? entry.specialization : "");
    if (!sample)
      throw fail(sample.error().message());
    auto kernel = std::make_shared<jit::CompiledKernel>();
    auto described = jit::readKernelDescription(entry.description ? entry.description : "",
                                                *kernel);
    if (!described)
      throw fail(described.error().message());
    if (!entry.run)
      throw fail("it has no entry point");
    kernel->run = entry.run;
    kernel->shapes = entry.shapes;
    bool onCuda = entry.cuda_capability != 0;
    DeviceType device = onCuda ? DeviceType::CUDA : DeviceType::CPU;
    for (const jit::ArgSpec &arg :
         jit::makeCallSpec(handle->schema(), sample->data(), device, false).args)
      kernel->argKinds.push_back(arg.kind);
    kernel->label = op + (entry.specialization ? entry.specialization : "");
    if (onCuda) {
      if (!entry.image || !entry.image_size || !entry.gpu_module)
        throw fail("its CUDA device code is missing");
      kernel->gpuModule = std::make_shared<cuda::KernelModule>(
          std::string(reinterpret_cast<const char *>(entry.image), entry.image_size),
          entry.image_ptx ? cuda::KernelModule::Format::Ptx : cuda::KernelModule::Format::Cubin,
          cuda::splitKernelNames(entry.kernel_names ? entry.kernel_names : ""));
      *entry.gpu_module = kernel->gpuModule.get();
    }
    kernel->cacheKey = "aot";
    // Compiled against opal's built-in definitions: a built-in op registered
    // on since (an override of aten::exp, say) makes the JIT compile it.
    std::string changed = changedBuiltinOp(kernel->reached, [&](const OperatorName &reached) {
      return mlirKernels.count(reached.str()) > 0; // the library's own ops
    });
    if (!changed.empty()) {
      if (logEnabled(LogTopic::JIT))
        logLine(LogTopic::JIT, name + ": not installing the precompiled kernel " + op +
                                 entry.specialization + ": " + changed +
                                 "; the JIT compiles it");
      continue;
    }
    auto added = jit::MlirKernel::addPrecompiled(found->second, handle->schema(), *sample,
                                                 std::move(kernel), device,
                                                 entry.cuda_capability);
    if (!added)
      throw fail(added.error().message());
  }
  loaded->text = jit::addOpLibraryText(name, text);
  if (logEnabled(LogTopic::JIT))
    logLine(LogTopic::JIT, "loaded ahead-of-time op library " + name + ": " +
                               std::to_string(contents->schemas.size()) + " ops, " +
                               std::to_string(library.kernel_count) + " precompiled kernels");
  return loaded;
}

} // namespace

extern "C" void *opal_aot_register(const opal_aot_library *library) {
  std::string name = library && library->name ? library->name : "(unnamed op library)";
  try {
    if (!library)
      throw OpalError("opal_aot_register: no library descriptor");
    return registerLibrary(*library).release();
  } catch (const std::exception &error) {
    std::string message = error.what();
    if (message.compare(0, name.size(), name) != 0)
      message = name + ": " + message;
    if (!detail::collectStaticRegistrationError(message))
      std::cerr << "opal: " << message << std::endl;
    return nullptr;
  }
}

extern "C" void opal_aot_unregister(void *handle) {
  delete static_cast<LoadedLibrary *>(handle);
}

std::vector<std::string> aot::loadLibrary(const std::string &path) {
  // A truncated or foreign file would crash inside dlopen (SIGBUS).
  if (std::string problem = sharedLibraryProblem(path); !problem.empty())
    throw OpalError("could not load op library: " + problem);
  // What the loader reads beyond the checks above, tried in a child process.
  if (std::string problem = loaderTrialProblem(path); !problem.empty())
    throw OpalError("could not load op library: " + problem);
  detail::beginCollectingStaticRegistrationErrors();
  void *handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  std::vector<std::string> errors = detail::endCollectingStaticRegistrationErrors();
  if (!handle)
    throw OpalError("could not load op library " + path + ": " + ::dlerror());
  return errors;
}
