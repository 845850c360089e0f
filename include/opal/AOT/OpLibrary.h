//===- OpLibrary.h - Ahead-of-time op libraries -----------------*- C++ -*-===//
//
// `opal-aot mylib.opal.mlir -o libmylib.so` compiles an op-library file into
// a shared library: the library text, one object per `opal.precompile`
// specialization and a small generated C file whose initializer passes an
// `opal_aot_library` descriptor to opal_aot_register when the library is
// loaded (dlopen, opal.ops.load_library). Registration checks the format,
// the opal version and the CPU features the kernels need, defines the ops
// (one Library per namespace, DEF unless built with --fragment), registers
// every decomposition as its op's CompositeImplicitAutograd MLIR kernel and
// installs the precompiled kernels in those MLIR kernels, so the listed
// specializations run without compiling and every other one is JIT-compiled
// on demand. Failures register nothing: the message goes to the collector
// of opal.ops.load_library / loadLibrary, else to stderr.
//
// The descriptor is plain C (the generated file includes no opal header and
// declares the same layout); OPAL_AOT_FORMAT in opal/Config.h versions it.
//
//===----------------------------------------------------------------------===//

#ifndef OPAL_AOT_OPLIBRARY_H
#define OPAL_AOT_OPLIBRARY_H

#ifdef __cplusplus
#include <string>
#include <string_view>
#include <vector>
extern "C" {
#endif

struct opal_aot_kernel {
  const char *op;             /* "ns::op" or "ns::op.overload" */
  const char *specialization; /* "(float32[?], float)" (parseSpecialization) */
  const char *description;    /* describeKernel's text */
  void (*run)(void **);       /* the packed entry points (CompiledKernel.h) */
  void (*shapes)(void **);    /* NULL when every output size is static */
  /* CUDA kernels (opal-aot --cuda): `run` is host code that launches the
     device code of `image` (CUDA/Launch.h) on cuda tensors of devices of
     this compute capability (90: sm_90); 0 for a CPU kernel. */
  int cuda_capability;
  const unsigned char *image; /* the cubin, or PTX for the driver to compile */
  unsigned long image_size;
  int image_ptx;              /* 1: `image` is PTX */
  const char *kernel_names;   /* the device functions by launch index: "a\nb\n" */
  void **gpu_module;          /* the host code's module handle, set at load */
};

struct opal_aot_library {
  unsigned format;            /* OPAL_AOT_FORMAT of the opal-aot that built it */
  const char *opal_version;   /* OPAL_VERSION of that opal */
  const char *name;           /* the op-library file it was built from */
  const char *kind;           /* "DEF" or "FRAGMENT" */
  const char *text;           /* the op-library text */
  const char *target;         /* "triple cpu" the kernels were compiled for */
  const char *features;       /* their CPU features: "+avx2,+fma,..." */
  unsigned kernel_count;
  const struct opal_aot_kernel *kernels;
};

/* Registers a library; returns its handle, or NULL after reporting why not. */
void *opal_aot_register(const struct opal_aot_library *library);
/* Removes what opal_aot_register registered (the library's destructor). */
void opal_aot_unregister(void *handle);

#ifdef __cplusplus
} // extern "C"

namespace opal::aot {

/// dlopens a shared library of ops (ahead-of-time op libraries and
/// libraries with OPAL_LIBRARY blocks) and returns the registration errors
/// it reported (empty: everything registered). Throws if it cannot be
/// loaded at all.
std::vector<std::string> loadLibrary(const std::string &path);

/// The features of `features` ("+a,+b,-c") that this CPU lacks (x86-64:
/// read with CPUID). It fails closed: a feature opal cannot check is
/// reported as "<name> (unknown to this opal)", and the library refused.
std::vector<std::string> missingCpuFeatures(std::string_view features);

} // namespace opal::aot
#endif

#endif // OPAL_AOT_OPLIBRARY_H
