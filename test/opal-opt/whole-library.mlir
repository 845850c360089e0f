// opal-opt parses and verifies each --op-library whole before its input,
// as opal.library.load does: a decomposition that does not verify is
// reported even though the input only uses another op of the library.
// RUN: not opal-opt --op-library=%S/Inputs/bad-body.opal.mlir %s 2>&1 | FileCheck %s
// CHECK: bad-body.opal.mlir:12:3: error: 'opal.decomposition' op yields 'i64' as result #0, which must be a tensor
// CHECK-NOT: see current operation
// CHECK: bad-body.opal.mlir: error: the op library does not verify (opal-opt checks every library whole before reading its input)

// A library that verifies is loaded as before.
// RUN: opal-opt --op-library=%S/../Transforms/Inputs/composites.opal.mlir %S/Inputs/uses-square.mlir | FileCheck %s --check-prefix=GOOD
// GOOD: comp.square

func.func @f(%x: !opal.tensor) -> !opal.tensor {
  %r = badbody.fine %x : (!opal.tensor) -> !opal.tensor
  return %r : !opal.tensor
}
