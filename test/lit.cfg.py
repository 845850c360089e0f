# -*- Python -*-
# lit configuration for opal: FileCheck tests of the tools and IR, and
# Python scripts run through %python.

import os

import lit.formats
from lit.llvm import llvm_config

config.name = "opal"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".schema", ".py", ".test"]
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py", "Inputs"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.opal_obj_root, "test")

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.add_tool_substitutions(["opal-opt", "opal-schema", "opal-aot"],
                                   [config.opal_tools_dir])

# %python: Debian's interpreter with the built opal package importable.
config.substitutions.append(("%python", config.opal_python))
llvm_config.with_environment("PYTHONPATH", config.opal_python_dir,
                             append_path=True)

# %mlir_runner_libs: the runtime libraries mlir-runner needs to print memrefs.
_llvm_lib = os.path.join(os.path.dirname(config.llvm_tools_dir), "lib")
config.substitutions.append(("%mlir_runner_libs", "-shared-libs=" + ",".join(
    os.path.join(_llvm_lib, lib) for lib in
    ["libmlir_c_runner_utils.so", "libmlir_runner_utils.so"])))

# %ptxas: the CUDA toolkit's assembler, to check that generated PTX
# assembles; tests that use it say REQUIRES: ptxas.
_ptxas = os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "ptxas")
if os.path.exists(_ptxas):
    config.available_features.add("ptxas")
    config.substitutions.append(("%ptxas", _ptxas))

# The libFuzzer targets (fuzz/) are built with clang, ASan and UBSan in their
# own build tree (make test builds <build>/fuzz); tests that run them say
# REQUIRES: fuzzers. %fuzz_options: a fixed seed, so that make test runs the
# same inputs every time; OPAL_FUZZ_SECONDS=N runs each fuzzer for N seconds
# instead (a later -runs overrides the test's own).
_fuzz_bin = os.environ.get("OPAL_FUZZ_BIN_DIR",
                           os.path.join(config.opal_obj_root, "fuzz", "bin"))
_fuzzers = ["opal-fuzz-schema", "opal-fuzz-op-library", "opal-fuzz-tensor-sizes",
            "opal-fuzz-object-loader"]
if all(os.access(os.path.join(_fuzz_bin, f), os.X_OK) for f in _fuzzers):
    config.available_features.add("fuzzers")
config.substitutions.append(("%fuzz_dir", _fuzz_bin))
# %run_fuzzer LOG FUZZER ARGS: the whole output goes to LOG; stdout gets the
# summary lines for FileCheck, stderr what ended a failed run (fuzz/run-fuzzer.py).
config.substitutions.append(
    ("%run_fuzzer", f"{config.opal_python} {config.opal_src_root}/fuzz/run-fuzzer.py"))
_fuzz_seconds = os.environ.get("OPAL_FUZZ_SECONDS")
config.substitutions.append(
    ("%fuzz_options", f"-runs=-1 -max_total_time={int(_fuzz_seconds)}"
     if _fuzz_seconds else "-seed=1"))
config.substitutions.append(("%opal_src", config.opal_src_root))
