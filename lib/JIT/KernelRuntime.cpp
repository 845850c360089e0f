//===- KernelRuntime.cpp - The functions compiled kernels call ------------===//

#include "opal/JIT/KernelRuntime.h"

#include "opal/CUDA/Launch.h"
#include "opal/Runtime/Packing.h"
#include "opal/Runtime/Parallel.h"

#include <dlfcn.h>
#include <map>

using namespace opal;

namespace {

/// LLVM's libomp, which libopal links (by this name): its handle, to look
/// up the __kmpc_* entry points LLVM's OpenMP lowering emits, whichever a
/// kernel needs (kernels call nothing else of OpenMP's: GCC's libgomp,
/// which PyTorch loads, defines the omp_* functions too).
void *openMpLibrary() {
  static void *handle = ::dlopen("libomp.so.5", RTLD_LAZY | RTLD_NOLOAD);
  return handle;
}

bool startsWith(const std::string &name, const char *prefix) {
  return name.rfind(prefix, 0) == 0;
}

/// libomp's function `name` (an int of an ident_t pointer, which the
/// __kmpc_bound_* functions do not read).
using TeamQuery = int (*)(void *);
TeamQuery teamQuery(const char *name) {
  void *library = openMpLibrary();
  return library ? reinterpret_cast<TeamQuery>(::dlsym(library, name)) : nullptr;
}

} // namespace

// (Only parallel regions call these, which libomp forked.)
int64_t opal_parallel_thread() {
  static const TeamQuery query = teamQuery("__kmpc_bound_thread_num");
  return query(nullptr);
}

int64_t opal_parallel_team() {
  static const TeamQuery query = teamQuery("__kmpc_bound_num_threads");
  return query(nullptr);
}

void *jit::kernelRuntimeSymbol(const std::string &name) {
  static const std::map<std::string, void *> own = {
      {"opal_parallel_begin", reinterpret_cast<void *>(&opal_parallel_begin)},
      {"opal_parallel_end", reinterpret_cast<void *>(&opal_parallel_end)},
      {"opal_parallel_thread", reinterpret_cast<void *>(&opal_parallel_thread)},
      {"opal_parallel_team", reinterpret_cast<void *>(&opal_parallel_team)},
      {"opal_pack_panel_f32", reinterpret_cast<void *>(&opal_pack_panel_f32)},
      {"opal_pack_panel_f64", reinterpret_cast<void *>(&opal_pack_panel_f64)},
      {"opal_cuda_launch", reinterpret_cast<void *>(&opal_cuda_launch)},
      {"opal_cuda_alloc", reinterpret_cast<void *>(&opal_cuda_alloc)},
      {"opal_cuda_free", reinterpret_cast<void *>(&opal_cuda_free)}};
  auto found = own.find(name);
  if (found != own.end())
    return found->second;
  if (startsWith(name, "__kmpc_"))
    if (void *library = openMpLibrary())
      return ::dlsym(library, name.c_str());
  return nullptr;
}
