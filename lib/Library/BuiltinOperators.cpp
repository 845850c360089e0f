//===- BuiltinOperators.cpp - The operators opal ships --------------------===//

#include "opal/Library/BuiltinOperators.h"

#include "opal/Dispatch/Dispatcher.h"
#include "opal/Dispatch/Library.h"
#include "opal/JIT/MlirKernel.h"
#include "opal/Schema/OpLibraryFile.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>

using namespace opal;

const std::vector<std::pair<std::string_view, std::string_view>> &opal::builtinLibraryTexts() {
  static const std::vector<std::pair<std::string_view, std::string_view>> libraries = {
#include "opal/Library/BuiltinLibraries.inc"
  };
  return libraries;
}

const std::vector<FunctionSchema> &opal::builtinOperatorSchemas() {
  static const std::vector<FunctionSchema> schemas = [] {
    std::vector<FunctionSchema> all;
    for (auto [name, text] : builtinLibraryTexts()) {
      auto found = scanOpLibrarySchemas(text, name);
      if (!found) { // the build embeds these files; a bad one is a bug
        std::fprintf(stderr, "opal: built-in library: %s\n", found.error().message().c_str());
        std::abort();
      }
      all.insert(all.end(), found->begin(), found->end());
    }
    return all;
  }();
  return schemas;
}

namespace {

/// The aten view ops as native kernels (CompositeExplicitAutograd, as in
/// PyTorch): they return views sharing the input's memory. They are
/// declared equivalent to their MLIR definitions, so composites still
/// compile through them.
void registerViewKernels(Library &aten) {
  auto add = [&](const char *name, auto callable) {
    KernelFunction kernel = KernelFunction::makeFromUnboxedCallable(std::move(callable));
    jit::declareEquivalentToMlir(kernel);
    aten.impl(name, DispatchKey::CompositeExplicitAutograd,
              CppFunction::makeFromKernelFunction(std::move(kernel)));
  };
  using Sizes = std::vector<int64_t>;
  add("aten::view", [](const Tensor &self, Sizes size) { return self.view(size); });
  add("aten::reshape", [](const Tensor &self, Sizes shape) { return self.reshape(shape); });
  add("aten::transpose.int",
      [](const Tensor &self, int64_t dim0, int64_t dim1) { return self.transpose(dim0, dim1); });
  add("aten::t", [](const Tensor &self) { return self.t(); });
  add("aten::permute", [](const Tensor &self, Sizes dims) { return self.permute(dims); });
  add("aten::expand",
      [](const Tensor &self, Sizes size, bool) { return self.expand(size); });
  add("aten::unsqueeze", [](const Tensor &self, int64_t dim) { return self.unsqueeze(dim); });
  add("aten::squeeze.dim", [](const Tensor &self, int64_t dim) { return self.squeeze(dim); });
}

/// The aten view ops registerViewKernels gives native kernels at
/// CompositeExplicitAutograd (reshape's is beside its decomposition, which
/// is CompositeImplicitAutograd as in PyTorch).
bool isNativeView(const std::string &name) {
  static const std::set<std::string> names = {
      "aten::view",   "aten::transpose.int", "aten::t",           "aten::permute",
      "aten::expand", "aten::unsqueeze",     "aten::squeeze.dim"};
  return names.count(name) != 0;
}

/// The aten ops opal defines that PyTorch 1.13 implements as
/// CompositeImplicitAutograd (its other ones have backend kernels):
/// `torch._C._dispatch_has_kernel_for_dispatch_key(name,
/// "CompositeImplicitAutograd")` for each. Their decompositions run at the
/// Autograd keys, so a dispatch mode sees the ops they call, not them.
bool compositeImplicitInPyTorch(const std::string &name) {
  static const std::set<std::string> names = {
      "aten::layer_norm",        "aten::linear",  "aten::log_softmax.int",
      "aten::matmul",            "aten::reshape", "aten::softmax.int",
      "aten::square",            "aten::bitwise_or.Scalar", "aten::bitwise_xor.Scalar",
      "aten::floor_divide.Scalar", "aten::max.other",       "aten::min.other",
      "aten::var.dim",           "aten::var",             "aten::std.dim",
      "aten::std",               "aten::conv2d",          "aten::max_pool2d"};
  return names.count(name) != 0;
}

/// One DEF library per built-in namespace, alive as long as libopal. Every
/// op's kernel is its MLIR definition, which the JIT compiles: a prim's
/// lowering to linalg and a decomposition of an aten op that PyTorch
/// computes with backend kernels are CompositeExplicitAutograd kernels (so
/// a dispatch mode sees the op itself, as in PyTorch); the decompositions
/// of PyTorch's CompositeImplicitAutograd ops are CompositeImplicitAutograd
/// kernels.
struct BuiltinRegistration {
  BuiltinRegistration() {
    std::map<std::string, std::vector<const FunctionSchema *>> byNamespace;
    std::set<std::string> decomposed;
    for (auto [name, text] : builtinLibraryTexts()) {
      auto contents = scanOpLibrary(text, name);
      if (contents)
        decomposed.insert(contents->decomposed.begin(), contents->decomposed.end());
    }
    for (const FunctionSchema &schema : builtinOperatorSchemas())
      byNamespace[std::string(schema.ns())].push_back(&schema);
    for (const auto &[ns, schemas] : byNamespace) {
      Library &library = libraries.emplace_back(Library::DEF, ns, std::nullopt, __FILE__, __LINE__);
      for (const FunctionSchema *schema : schemas) {
        library.def(schema->str());
        std::string name = schema->operatorName().str();
        // A view op's kernel is native (registerViewKernels); its MLIR
        // definition is what composites compile through.
        if (ns == "aten" && isNativeView(name))
          continue;
        bool implicit = decomposed.count(name) && (ns != "aten" || compositeImplicitInPyTorch(name));
        library.impl(name, implicit ? DispatchKey::CompositeImplicitAutograd
                                    : DispatchKey::CompositeExplicitAutograd,
                     CppFunction::makeFromKernelFunction(jit::MlirKernel::make()));
      }
      if (ns == "aten")
        registerViewKernels(library);
    }
    for (const FunctionSchema &schema : builtinOperatorSchemas())
      if (auto handle = Dispatcher::singleton().findOp(schema.operatorName()))
        cpuKernels.emplace(schema.operatorName().str(),
                           handle->entry().tableEntry(DispatchKey::CPU).functor());
  }
  std::vector<Library> libraries;
  std::map<std::string, const OperatorKernel *> cpuKernels;
};

const BuiltinRegistration registration;

} // namespace

std::string opal::changedBuiltinOp(const std::vector<OperatorName> &reached,
                                   const std::function<bool(const OperatorName &)> &exempt) {
  for (const OperatorName &op : reached)
    if (!(exempt && exempt(op)) && !isBuiltinCpuKernelCurrent(op))
      return op.str();
  return "";
}

bool opal::isBuiltinCpuKernelCurrent(const OperatorName &op) {
  auto it = registration.cpuKernels.find(op.str());
  if (it == registration.cpuKernels.end())
    return false;
  auto handle = Dispatcher::singleton().findOp(op);
  return handle && handle->entry().tableEntry(DispatchKey::CPU).functor() == it->second;
}
