//===- BuiltinOperators.cpp - The operators opal ships --------------------===//

#include "opal/Library/BuiltinOperators.h"

#include "NativeKernels.h"

#include "opal/Autograd/VariableKernel.h"
#include "opal/Dispatch/Dispatcher.h"
#include "opal/Dispatch/Library.h"
#include "opal/JIT/CompiledKernel.h"
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

const std::vector<library_detail::NativeKernel> &library_detail::nativeKernels() {
  static const std::vector<NativeKernel> kernels = [] {
    std::vector<NativeKernel> all;
    appendViewKernels(all);
    appendJoinKernels(all);
    appendSortKernels(all);
    appendNormKernels(all);
    appendFactoryKernels(all);
    appendRandomKernels(all);
    appendDataKernels(all);
    appendIndexKernels(all);
    appendDerivativeKernels(all);
    appendConvolutionDerivativeKernels(all);
    appendIndexingDerivativeKernels(all);
    appendSpatialDerivativeKernels(all);
    appendDistanceDerivativeKernels(all);
    appendBackwardKernels(all);
    return all;
  }();
  return kernels;
}

namespace {

/// Whether `name` has a native kernel that replaces its MLIR kernel.
bool replacedByNativeKernel(const std::string &name) {
  static const std::set<std::string> names = [] {
    std::set<std::string> all;
    for (const library_detail::NativeKernel &native : library_detail::nativeKernels())
      if (native.replacesMlirKernel)
        all.insert(native.name);
    return all;
  }();
  return names.count(name) != 0;
}

/// The aten ops opal defines that PyTorch 2 implements as
/// CompositeImplicitAutograd (its other ones have backend kernels):
/// `torch._C._dispatch_has_kernel_for_dispatch_key(name,
/// "CompositeImplicitAutograd")` for each. Their decompositions run at the
/// Autograd keys, so a dispatch mode sees the ops they call, not them.
bool compositeImplicitInPyTorch(const std::string &name) {
  static const std::set<std::string> names = {
      "aten::layer_norm",        "aten::linear",          "aten::log_softmax.int",
      "aten::matmul",            "aten::reshape",         "aten::softmax.int",
      "aten::square",            "aten::max.other",       "aten::min.other",
      "aten::var.dim",           "aten::var",             "aten::std.dim",
      "aten::std",               "aten::conv2d",          "aten::max_pool2d",
      "aten::narrow",            "aten::batch_norm",      "aten::adaptive_avg_pool2d",
      "aten::group_norm",        "aten::dropout",         "aten::avg_pool1d",
      "aten::adaptive_avg_pool1d", "aten::conv1d",        "aten::conv3d",
      "aten::conv_transpose1d",  "aten::conv_transpose2d.input",
      "aten::conv_transpose3d.input", "aten::max_pool3d", "aten::adaptive_avg_pool3d",
      "aten::upsample_nearest2d.vec", "aten::upsample_bilinear2d.vec"};
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
        // A view's kernel is native (NativeKernels.h); its MLIR definition
        // is what composites compile through. Ops of lists have only one.
        if (replacedByNativeKernel(name))
          continue;
        // The ops that write a Scalar argument into their result check it
        // fits the result's dtype, as PyTorch's do.
        if (name == "aten::full" || name == "aten::full_like" || name == "aten::new_full" ||
            name == "aten::scalar_tensor" || name == "aten::fill.Scalar" ||
            name == "aten::masked_fill.Scalar")
          for (size_t i = 0; i < schema->arguments().size(); ++i)
            if (schema->arguments()[i].type()->kind() == TypeKind::Scalar)
              jit::declareElementScalar(schema->operatorName(), i);
        bool implicit = decomposed.count(name) && (ns != "aten" || compositeImplicitInPyTorch(name));
        KernelFunction kernel = jit::MlirKernel::make();
        if (implicit)
          compositeKernels.emplace(name, kernel);
        library.impl(name, implicit ? DispatchKey::CompositeImplicitAutograd
                                    : DispatchKey::CompositeExplicitAutograd,
                     CppFunction::makeFromKernelFunction(std::move(kernel)));
      }
      for (const library_detail::NativeKernel &native : library_detail::nativeKernels())
        if (native.name.rfind(ns + "::", 0) == 0)
          library.impl(native.name, native.key,
                       CppFunction::makeFromKernelFunction(native.kernel));
    }
    registerVariableKernels();
    for (const FunctionSchema &schema : builtinOperatorSchemas())
      if (auto handle = Dispatcher::singleton().findOp(schema.operatorName()))
        cpuKernels.emplace(schema.operatorName().str(),
                           handle->entry().tableEntry(DispatchKey::CPU).functor());
  }
  /// PyTorch's VariableType: an Autograd kernel for every aten and prims op,
  /// with its formula from aten_backward if there is one.
  void registerVariableKernels() {
    for (const char *ns : {"aten", "prims"}) {
      Library &library =
          libraries.emplace_back(Library::IMPL, ns, std::nullopt, __FILE__, __LINE__);
      for (const FunctionSchema &schema : builtinOperatorSchemas()) {
        if (schema.ns() != ns)
          continue;
        std::string name = schema.operatorName().str();
        auto handle = Dispatcher::singleton().findOp(schema.operatorName());
        // A CompositeImplicitAutograd kernel (a decomposition, or chunk's
        // native one) serves the Autograd keys unless one is registered there.
        bool implicit = handle->hasKernelForDispatchKey(DispatchKey::CompositeImplicitAutograd);
        auto formula = autograd::findFormula(*handle);
        if (!formula) { // the build embeds the formulas; a bad one is a bug
          std::fprintf(stderr, "opal: built-in library: %s\n", formula.error().message().c_str());
          std::abort();
        }
        // A decomposition without a formula of its own runs op by op when
        // recording, and its ops record themselves (PyTorch's
        // CompositeImplicitAutograd); one with a formula is one node.
        if (implicit && !*formula)
          continue;
        std::shared_ptr<const autograd::Formula> shared;
        if (*formula)
          shared = std::make_shared<const autograd::Formula>(std::move(**formula));
        // Not recording, a decomposition runs as before: its composite
        // kernel, unless a native kernel serves the op below autograd
        // (reshape's view).
        auto composite = compositeKernels.find(name);
        bool native = false;
        for (const library_detail::NativeKernel &kernel : library_detail::nativeKernels())
          native = native || kernel.name == name;
        KernelFunction kernel = autograd::makeVariableKernel(
            *handle, std::move(shared),
            implicit && !native && composite != compositeKernels.end() ? composite->second
                                                                       : KernelFunction());
        // The Autograd alias key comes after CompositeImplicitAutograd in a
        // table entry: a decomposition's formula goes to the runtime keys.
        if (!implicit) {
          library.impl(name, DispatchKey::Autograd, CppFunction::makeFromKernelFunction(kernel));
          continue;
        }
        for (DispatchKey key :
             {DispatchKey::AutogradCPU, DispatchKey::AutogradCUDA, DispatchKey::AutogradMeta})
          library.impl(name, key, CppFunction::makeFromKernelFunction(kernel));
      }
    }
  }

  std::vector<Library> libraries;
  std::map<std::string, const OperatorKernel *> cpuKernels;
  /// The CompositeImplicitAutograd kernels, by op.
  std::map<std::string, KernelFunction> compositeKernels;
};

const BuiltinRegistration registration;

} // namespace

std::string opal::changedBuiltinOp(const std::vector<OperatorName> &reached,
                                   const std::function<bool(const OperatorName &)> &exempt) {
  for (const OperatorName &op : reached) {
    if (exempt && exempt(op))
      continue;
    if (!isBuiltinCpuKernelCurrent(op))
      return op.str() + " has a CPU kernel other than opal's built-in one";
    // A decomposition added since (register_decomposition, an op-library
    // file) changes what the op compiles to though its kernel is the same.
    std::string source = jit::addedDecompositionOf(op);
    if (!source.empty())
      return op.str() + " has a decomposition other than opal's built-in one (from " + source +
             ")";
  }
  return "";
}

bool opal::isBuiltinCpuKernelCurrent(const OperatorName &op) {
  auto it = registration.cpuKernels.find(op.str());
  if (it == registration.cpuKernels.end())
    return false;
  auto handle = Dispatcher::singleton().findOp(op);
  return handle && handle->entry().tableEntry(DispatchKey::CPU).functor() == it->second;
}
