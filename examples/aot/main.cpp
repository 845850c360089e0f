//===- main.cpp - Calling an ahead-of-time op library from C++ ------------===//
//
//   myops-demo [path/to/libmyops.so]
//
// Loads the library (its initializer registers the ops and their
// precompiled kernels), calls myops::softplus and myops::rms_norm through
// the dispatcher, checks them against the formulas and shows that nothing
// was compiled.
//
//===----------------------------------------------------------------------===//

#include "opal/AOT/OpLibrary.h"
#include "opal/Dispatch/Dispatcher.h"
#include "opal/JIT/MlirKernel.h"
#include "opal/Runtime/Factories.h"

#include <cmath>
#include <cstdio>
#include <string>

using namespace opal;

int main(int argc, char **argv) {
  std::string path = argc > 1 ? argv[1] : "libmyops.so";
  try {
    for (const std::string &error : aot::loadLibrary(path)) {
      std::fprintf(stderr, "%s\n", error.c_str());
      return 1;
    }
    Dispatcher &dispatcher = Dispatcher::singleton();
    auto softplus = dispatcher.findSchemaOrThrow("myops::softplus", "")
                        .typed<Tensor(const Tensor &, double)>();
    auto rmsNorm = dispatcher.findSchemaOrThrow("myops::rms_norm", "")
                       .typed<Tensor(const Tensor &, int64_t, double)>();

    Tensor x = arange(-4, 4, 0.5);
    Tensor y = softplus.call(x, 2.0);
    double worst = 0;
    for (int64_t i = 0; i < x.numel(); ++i) {
      double v = x.data<float>()[i];
      worst = std::fmax(worst, std::fabs(y.data<float>()[i] - std::log1p(std::exp(2 * v)) / 2));
    }
    std::printf("softplus(x, beta=2) over %lld values: max error %.2g\n",
                static_cast<long long>(x.numel()), worst);

    Tensor m = arange(1, 13, 1).view({3, 4});
    Tensor r = rmsNorm.call(m, -1, 1e-6);
    double rowError = 0;
    for (int64_t i = 0; i < 3; ++i) {
      double sum = 0;
      for (int64_t j = 0; j < 4; ++j)
        sum += std::pow(m.data<float>()[i * 4 + j], 2);
      double scale = 1 / std::sqrt(sum / 4 + 1e-6);
      for (int64_t j = 0; j < 4; ++j)
        rowError = std::fmax(rowError, std::fabs(r.data<float>()[i * 4 + j] -
                                                 m.data<float>()[i * 4 + j] * scale));
    }
    std::printf("rms_norm(3x4) : max error %.2g\n", rowError);
    jit::JitStats stats = jit::jitStats();
    std::printf("precompiled kernels installed: %llu, compiles: %llu, calls served: %llu\n",
                static_cast<unsigned long long>(stats.precompiled),
                static_cast<unsigned long long>(stats.compiles),
                static_cast<unsigned long long>(stats.hits));
    return worst < 1e-5 && rowError < 1e-5 && stats.compiles == 0 ? 0 : 1;
  } catch (const std::exception &error) {
    std::fprintf(stderr, "myops-demo: %s\n", error.what());
    return 1;
  }
}
