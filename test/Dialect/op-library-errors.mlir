// Op-library files are checked before the input is parsed; errors name the
// file, line and column.
// RUN: not opal-opt --op-library=%S/Inputs/bad-schema.opal.mlir %s 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not opal-opt --op-library=%S/Inputs/generic.opal.mlir %s 2>&1 | FileCheck %s --check-prefix=GENERIC
// RUN: not opal-opt --op-library=%S/Inputs/generator.opal.mlir %s 2>&1 | FileCheck %s --check-prefix=GEN
// RUN: not opal-opt --op-library=%S/Inputs/missing.opal.mlir %s 2>&1 | FileCheck %s --check-prefix=MISSING

// BAD: bad-schema.opal.mlir:3:43: error: invalid schema: non-default argument 'z' follows an argument with a default; give it a default or make it keyword-only (after '*')
// GENERIC: generic.opal.mlir:2:3: error: write opal.def in its custom form in op-library files (opal.def "schema"), not in the generic form
// GEN: generator.opal.mlir: error: argument 'gen' of genlib::sample has type Generator, which opal's MLIR ops do not support yet
// MISSING: missing.opal.mlir: error: cannot open op library: No such file or directory
func.func @unused() {
  return
}
