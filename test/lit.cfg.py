# -*- Python -*-
# lit configuration for opal: FileCheck tests of the tools and IR, and
# Python scripts run through %python.

import os

import lit.formats
from lit.llvm import llvm_config

config.name = "opal"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".schema", ".py"]
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
