//===- PrintGpuObjects.cpp - The opal-print-gpu-objects pass --------------===//
//
// Prints what gpu-module-to-binary produced, so lit tests can FileCheck the
// PTX of a kernel and hand it to ptxas: for each gpu.binary and object, a
// comment line naming them and the target, then the assembly text (PTX) or,
// for cubins and fatbins, their size.
//
//===----------------------------------------------------------------------===//

#include "opal/Transforms/Passes.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/BuiltinOps.h"

#include "llvm/Support/raw_ostream.h"

namespace opal::ir {
#define GEN_PASS_DEF_OPALPRINTGPUOBJECTS
#include "opal/Transforms/Passes.h.inc"
} // namespace opal::ir

using namespace mlir;

namespace {

const char *formatName(gpu::CompilationTarget format) {
  switch (format) {
  case gpu::CompilationTarget::Offload:
    return "llvm";
  case gpu::CompilationTarget::Assembly:
    return "isa";
  case gpu::CompilationTarget::Binary:
    return "bin";
  case gpu::CompilationTarget::Fatbin:
    return "fatbin";
  }
  return "unknown";
}

struct OpalPrintGpuObjects
    : public opal::ir::impl::OpalPrintGpuObjectsBase<OpalPrintGpuObjects> {
  using OpalPrintGpuObjectsBase::OpalPrintGpuObjectsBase;

  void runOnOperation() override {
    llvm::raw_ostream &out = llvm::outs();
    for (auto binary : getOperation().getOps<gpu::BinaryOp>()) {
      for (Attribute attribute : binary.getObjects()) {
        auto object = dyn_cast<gpu::ObjectAttr>(attribute);
        if (!object)
          continue;
        out << "// gpu.binary @" << binary.getSymName() << " target " << object.getTarget()
            << " format " << formatName(object.getFormat()) << "\n";
        StringRef bytes = object.getObject().getValue();
        if (object.getFormat() == gpu::CompilationTarget::Assembly ||
            object.getFormat() == gpu::CompilationTarget::Offload)
          out << bytes << (bytes.ends_with("\n") ? "" : "\n");
        else
          out << "// " << bytes.size() << " bytes\n";
      }
    }
    out.flush();
    markAllAnalysesPreserved();
  }
};

} // namespace
