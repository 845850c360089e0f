// RUN: opal-opt %s --allow-unregistered-dialect --opal-decompose | FileCheck %s

// An opal.library in the input supplies decompositions too; its ops appear
// in generic form because no --op-library registered their dialect.
// CHECK-LABEL: func.func @local
// CHECK: prims.neg
// CHECK-NOT: local.negate
opal.library "local" {
  opal.def "negate(Tensor x) -> Tensor"
  opal.decomposition "negate" {
  ^bb0(%x: !opal.tensor):
    %r = prims.neg %x : (!opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
}
func.func @local(%x: tensor<2xi32>) -> tensor<2xi32> {
  %r = "local.negate"(%x) : (tensor<2xi32>) -> tensor<2xi32>
  return %r : tensor<2xi32>
}
