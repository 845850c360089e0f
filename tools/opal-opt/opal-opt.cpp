//===- opal-opt.cpp - opal's optimizer driver -----------------------------===//
//
// MlirOptMain with the opal dialect, the upstream dialects and passes opal
// compiles through, and the schema dialects of the op libraries named with
// --op-library=FILE (repeatable), which are loaded, parsed and verified
// whole (every decomposition body, as opal.library.load does) before the
// input is parsed.
//
//===----------------------------------------------------------------------===//

#include "opal/Dialect/OpalDialect.h"
#include "opal/Dialect/SchemaDialect.h"
#include "opal/Schema/OpLibraryFile.h"
#include "opal/Support/RegularFile.h"
#include "opal/Support/Version.h"
#include "opal/Dialect/BuiltinLibraries.h"
#include "opal/Compiler/CudaPipeline.h"
#include "opal/Transforms/Passes.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlow.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/LLVMIR/NVVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/PDL/IR/PDL.h"
#include "mlir/Dialect/PDLInterp/IR/PDLInterp.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/MemoryBuffer.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/Passes.h"

#include <iostream>
#include <map>
#include <string_view>
#include <vector>

/// Takes the --op-library=FILE options out of argv (MlirOptMain does not know
/// them) and returns the files.
static std::vector<std::string> takeOpLibraryOptions(int &argc, char **argv) {
  static constexpr std::string_view kOption = "--op-library=";
  std::vector<std::string> files;
  int kept = 1;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg.substr(0, kOption.size()) == kOption)
      files.emplace_back(arg.substr(kOption.size()));
    else
      argv[kept++] = argv[i];
  }
  argc = kept;
  argv[argc] = nullptr;
  return files;
}

/// The positional arguments: the input files (`-o FILE` names the output).
static std::vector<std::string> inputFiles(int argc, char **argv) {
  std::vector<std::string> files;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    if (arg == "-o") {
      ++i;
      continue;
    }
    if (!arg.empty() && arg[0] != '-')
      files.emplace_back(arg);
  }
  return files;
}

int main(int argc, char **argv) {
  // --version: opal's version and build, then LLVM's.
  llvm::cl::AddExtraVersionPrinter(
      [](llvm::raw_ostream &os) { os << opal::versionText() << "\n"; });
  std::vector<std::string> libraries = takeOpLibraryOptions(argc, argv);
  mlir::registerTransformsPasses();
  opal::ir::registerOpalPasses();
  opal::ir::registerOpalPipelines();

  mlir::DialectRegistry registry;
  registry.insert<opal::ir::OpalDialect>();
  // The built-in libraries (prims, ...) are always there.
  std::vector<opal::FunctionSchema> schemas = opal::ir::builtinSchemas();
  // Where each op was defined: a second definition is refused (MLIR cannot
  // register one op name twice), as the dispatcher refuses it.
  std::map<std::string, std::string> definedAt;
  for (const opal::FunctionSchema &schema : schemas)
    definedAt.emplace(opal::ir::schemaOpName(schema), "opal's built-in op library");
  for (const std::string &path : libraries) {
    auto text = opal::readOpLibraryText(path);
    if (!text) {
      std::cerr << text.error().message() << "\n";
      return 1;
    }
    opal::ir::addOpLibraryText(path, *text); // for opal-decompose
    auto found = opal::scanOpLibrarySchemas(*text, path);
    if (!found) {
      std::cerr << found.error().message() << "\n";
      return 1;
    }
    for (opal::FunctionSchema &schema : *found) {
      std::string problem = opal::ir::schemaOpProblem(schema);
      if (!problem.empty()) {
        std::cerr << path << ": error: " << problem << "\n";
        return 1;
      }
      auto [original, inserted] = definedAt.emplace(opal::ir::schemaOpName(schema), path);
      if (!inserted) {
        std::cerr << path << ": error: "
                  << opal::duplicateDefinitionMessage(schema, path, original->second) << "\n";
        return 1;
      }
      schemas.push_back(std::move(schema));
    }
  }
  opal::ir::registerSchemaDialects(registry, schemas);
  registry.insert<mlir::affine::AffineDialect, mlir::arith::ArithDialect,
                  mlir::bufferization::BufferizationDialect,
                  mlir::cf::ControlFlowDialect, mlir::func::FuncDialect,
                  mlir::gpu::GPUDialect, mlir::LLVM::LLVMDialect,
                  mlir::NVVM::NVVMDialect, mlir::linalg::LinalgDialect,
                  mlir::math::MathDialect, mlir::memref::MemRefDialect, mlir::omp::OpenMPDialect,
                  mlir::pdl::PDLDialect, mlir::pdl_interp::PDLInterpDialect,
                  mlir::scf::SCFDialect, mlir::tensor::TensorDialect, mlir::ub::UBDialect,
                  mlir::vector::VectorDialect>();
  opal::ir::registerCudaPipeline(registry); // and the CPU pipeline

  // Every library is parsed and verified whole before the input, as
  // opal.library.load does: a decomposition body no test reaches is
  // checked too.
  if (!libraries.empty()) {
    mlir::MLIRContext context(registry);
    context.loadAllAvailableDialects();
    context.printOpOnDiagnostic(false);
    for (const std::string &path : libraries) {
      auto text = opal::readOpLibraryText(path);
      llvm::SourceMgr sources;
      sources.AddNewSourceBuffer(llvm::MemoryBuffer::getMemBufferCopy(*text, path), llvm::SMLoc());
      mlir::SourceMgrDiagnosticHandler handler(sources, &context, llvm::errs());
      mlir::ParserConfig config(&context);
      if (!mlir::parseSourceFile<mlir::ModuleOp>(sources, config)) {
        llvm::errs() << path << ": error: the op library does not verify (opal-opt checks "
                                "every library whole before reading its input)\n";
        return 1;
      }
    }
  }

  // MLIR's parser recurses once per nesting level: an input nested deeper
  // than opal reads op libraries is refused before it overflows the stack.
  for (const std::string &path : inputFiles(argc, argv)) {
    auto text = opal::readRegularFile(path);
    if (!text)
      continue; // (MlirOptMain says what is wrong with it)
    if (auto nested = opal::checkTextNesting(*text, path); !nested) {
      std::cerr << nested.error().message() << "\n";
      return 1;
    }
  }

  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "opal optimizer driver\n", registry));
}
