//===- opal-aot.cpp - The ahead-of-time op-library compiler ---------------===//
//
//   opal-aot mylib.opal.mlir -o libmylib.so
//   opal-aot mylib.opal.mlir --archive=mylib_kernels.a --stub=mylib_register.c
//   opal-aot mylib.opal.mlir --emit=llvm    (or asm: each kernel, for lit tests)
//
// Compiles every `opal.precompile` specialization of an op-library file
// and builds a shared library that registers the file's ops, decompositions
// and precompiled kernels when loaded (AOT/OpLibrary.h), linking it with
// the system C compiler ($CC, else cc) against this opal's libopal. The
// second form writes the two parts for a build system to compile and link
// (CMake's opal_add_op_library does).
//
//===----------------------------------------------------------------------===//

#include "opal/Support/Version.h"
#include "opal/AOT/OpLibrary.h"
#include "opal/Compiler/AotCompiler.h"
#include "opal/Schema/OpLibraryFile.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <dlfcn.h>

#include <cstdlib>
#include <fstream>
#include <iostream>

namespace cl = llvm::cl;

static cl::OptionCategory category("opal-aot options");
static cl::opt<std::string> input(cl::Positional, cl::desc("<op-library file>"), cl::Required,
                                  cl::cat(category));
static cl::opt<std::string> output("o", cl::desc("the shared library to build (lib<name>.so)"),
                                   cl::value_desc("file"), cl::cat(category));
static cl::opt<std::string> archivePath("archive",
                                        cl::desc("write the kernels' object archive here"),
                                        cl::value_desc("file.a"), cl::cat(category));
static cl::opt<std::string> stubPath("stub",
                                     cl::desc("write the registering C source here"),
                                     cl::value_desc("file.c"), cl::cat(category));
static cl::opt<std::string> cpu("cpu",
                                cl::desc("the CPU to compile for: native (default), x86-64, "
                                         "x86-64-v2, x86-64-v3, x86-64-v4 or a CPU name"),
                                cl::init("native"), cl::cat(category));
static cl::list<std::string> cudaArchs(
    "cuda",
    cl::desc("GPU archs to compile every specialization for too: sm_90 (a cubin, through ptxas), "
             "compute_90 (PTX, compiled by the driver at load); comma-separated"),
    cl::CommaSeparated, cl::value_desc("arch,..."), cl::cat(category));
static cl::opt<bool> fragment("fragment",
                              cl::desc("register the namespaces as FRAGMENT libraries "
                                       "(default: DEF, one per namespace)"),
                              cl::cat(category));
static cl::opt<opal::ir::ObjectOptions::Output> emit(
    "emit", cl::desc("what to produce"), cl::init(opal::ir::ObjectOptions::Output::Object),
    cl::values(clEnumValN(opal::ir::ObjectOptions::Output::Object, "library",
                          "the shared library (-o) or its parts (--archive, --stub)"),
               clEnumValN(opal::ir::ObjectOptions::Output::LLVMIR, "llvm",
                          "each kernel's optimized LLVM IR, on stdout"),
               clEnumValN(opal::ir::ObjectOptions::Output::Assembly, "asm",
                          "each kernel's assembly, on stdout")),
    cl::cat(category));
static cl::opt<bool> verbose("v", cl::desc("report each kernel as its compile starts and ends"),
                             cl::cat(category));

namespace {

int failWith(const std::string &message) {
  std::cerr << "opal-aot: " << message << std::endl;
  return 1;
}

bool writeFile(const std::string &path, const std::string &bytes) {
  std::ofstream file(path, std::ios::binary);
  file << bytes;
  file.close();
  return static_cast<bool>(file);
}

/// The directory of the libopal.so this tool runs with.
std::string libopalDirectory() {
  Dl_info info;
  if (!::dladdr(reinterpret_cast<void *>(&opal_aot_register), &info) || !info.dli_fname)
    return "";
  return llvm::sys::path::parent_path(info.dli_fname).str();
}

/// Compiles the stub and links it with the archive into `out`.
int linkLibrary(const std::string &stub, const std::string &archive, const std::string &out) {
  const char *cc = std::getenv("CC");
  auto program = llvm::sys::findProgramByName(cc && *cc ? cc : "cc");
  if (!program)
    return failWith(std::string("cannot find the C compiler '") + (cc && *cc ? cc : "cc") +
                    "' to link " + out + " (set CC)");
  std::string libdir = libopalDirectory();
  if (libdir.empty())
    return failWith("cannot find libopal.so to link " + out + " against");
  std::vector<std::string> args = {*program, "-shared", "-fPIC", "-O1", "-o", out, stub,
                                   archive,  "-L" + libdir, "-Wl,-rpath," + libdir, "-lopal", "-lm"};
  std::vector<llvm::StringRef> refs(args.begin(), args.end());
  std::string error;
  int status = llvm::sys::ExecuteAndWait(*program, refs, std::nullopt, {}, 0, 0, &error);
  if (status != 0) {
    std::string command;
    for (const std::string &arg : args)
      command += (command.empty() ? "" : " ") + arg;
    return failWith("linking " + out + " failed" + (error.empty() ? "" : ": " + error) +
                    "\n  command: " + command);
  }
  return 0;
}

} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::AddExtraVersionPrinter([](llvm::raw_ostream &os) { os << opal::versionText() << "\n"; });
  cl::HideUnrelatedOptions(category);
  cl::ParseCommandLineOptions(
      argc, argv,
      "opal-aot: compiles an op-library file into a shared library that registers its ops "
      "and precompiled kernels when loaded\n");
  bool listing = emit != opal::ir::ObjectOptions::Output::Object;
  if (!listing && output.empty() && (archivePath.empty() || stubPath.empty()))
    return failWith("give -o lib<name>.so, or both --archive=FILE.a and --stub=FILE.c");

  auto text = opal::readOpLibraryText(input);
  if (!text)
    return failWith(text.error().message());

  opal::ir::AotOptions options;
  options.cpu = cpu;
  options.fragment = fragment;
  options.cudaArchs.assign(cudaArchs.begin(), cudaArchs.end());
  options.output = emit;
  if (verbose) {
    options.onKernelStart = [](const std::string &label) {
      std::cerr << "opal-aot: compiling " << label << "\n" << std::flush;
    };
    options.onKernelDone = [](const std::string &label, double ms) {
      std::cerr << "opal-aot: compiled " << label << " in " << static_cast<long>(ms + 0.5)
                << " ms\n";
    };
  }
  auto parts = opal::ir::compileOpLibrary(input, *text, options);
  if (!parts)
    return failWith(parts.error().message());

  if (listing) {
    std::cout << parts->listing;
    return 0;
  }
  if (!archivePath.empty() && !writeFile(archivePath, parts->archive))
    return failWith("cannot write " + archivePath);
  if (!stubPath.empty() && !writeFile(stubPath, parts->stubSource))
    return failWith("cannot write " + stubPath);
  if (output.empty())
    return 0;

  llvm::SmallString<128> dir;
  if (llvm::sys::fs::createUniqueDirectory("opal-aot", dir))
    return failWith("cannot create a temporary directory");
  std::string stub = (dir + "/register.c").str(), archive = (dir + "/kernels.a").str();
  int status = 0;
  if (!writeFile(stub, parts->stubSource) || !writeFile(archive, parts->archive))
    status = failWith("cannot write in " + dir.str().str());
  else
    status = linkLibrary(stub, archive, output);
  llvm::sys::fs::remove_directories(dir);
  return status;
}
