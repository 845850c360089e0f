//===- DerivedGradients.cpp - Backwards derived from decompositions -------===//

#include "opal/JIT/DerivedGradients.h"

#include "opal/Autograd/VariableKernel.h"
#include "opal/Dispatch/Library.h"
#include "opal/JIT/CompiledKernel.h"
#include "opal/JIT/MlirKernel.h"
#include "opal/Schema/OpLibraryFile.h"
#include "opal/Support/Environment.h"

#include <unordered_map>
#include <memory>
#include <mutex>

using namespace opal;
using namespace opal::jit;

namespace {

struct Derived {
  const OperatorKernel *decomposition = nullptr;
  std::unique_ptr<Library> library; ///< defines the backward op
  KernelFunction kernel;            ///< invalid: not derivable
};

std::mutex mutex;
/// By operator (entries live as long as the process).
std::unordered_map<const OperatorEntry *, Derived> &derivedOps() {
  static auto *ops = new std::unordered_map<const OperatorEntry *, Derived>();
  return *ops;
}

void explain(const std::string &op, const std::string &why) {
  if (logEnabled(LogTopic::JIT))
    logLine(LogTopic::JIT, "no derived backward for " + op + " (its decomposition runs op by op "
                           "under autograd): " + why);
}

/// Derives, defines and binds the backward of `op`; sets `entry.kernel`.
void derive(const OperatorHandle &op, Derived &entry) {
  const std::string name = op.operatorName().str();
  auto compiler = kernelCompiler();
  if (!compiler)
    return explain(name, compiler.error().message());
  auto text = (*compiler)->deriveBackward(op.operatorName());
  if (!text)
    return explain(name, text.error().message());
  std::string source = "<derived backward of " + name + ">";
  auto contents = scanOpLibrary(*text, source);
  if (!contents || contents->schemas.size() != 1)
    return explain(name, contents ? "the derived library is not one op" : contents.error().message());
  const FunctionSchema &schema = contents->schemas.front();
  try {
    auto library = std::make_unique<Library>(Library::FRAGMENT, std::string(schema.ns()),
                                             std::nullopt, __FILE__, __LINE__);
    library->def(schema.str());
    library->impl(schema.operatorName().str(), DispatchKey::CompositeExplicitAutograd,
                  CppFunction::makeFromKernelFunction(MlirKernel::make()));
    addOpLibraryText(source, *text);
    auto formula = autograd::findFormula(op);
    if (!formula || !*formula)
      return explain(name, formula ? "the derived op was not found" : formula.error().message());
    entry.kernel = autograd::makeVariableKernel(
        op, std::make_shared<const autograd::Formula>(std::move(**formula)));
    entry.library = std::move(library);
    if (logEnabled(LogTopic::JIT))
      logLine(LogTopic::JIT, "derived the backward of " + name + " as " +
                                 schema.operatorName().str());
  } catch (const std::exception &error) {
    explain(name, error.what());
  }
}

} // namespace

KernelFunction jit::derivedVariableKernel(const OperatorHandle &op,
                                          const OperatorKernel *decomposition) {
  std::lock_guard<std::mutex> lock(mutex);
  Derived &entry = derivedOps()[&op.entry()];
  if (entry.decomposition != decomposition) {
    // First use, or the op's decomposition was registered again.
    entry.kernel = KernelFunction();
    entry.library.reset();
    entry.decomposition = decomposition;
    derive(op, entry);
  }
  return entry.kernel;
}
