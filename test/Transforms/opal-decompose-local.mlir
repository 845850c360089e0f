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

// A check on sizes only known per call becomes an opal.assert, located at
// the op whose body has it; one known to hold disappears.
// CHECK-LABEL: func.func @checked
// CHECK: %[[A:.*]] = tensor.dim %arg0
// CHECK: %[[RA:.*]] = arith.index_cast %[[A]]
// CHECK: %[[B:.*]] = tensor.dim %arg1
// CHECK: %[[RB:.*]] = arith.index_cast %[[B]]
// CHECK: %[[SAME:.*]] = arith.cmpi eq, %[[RA]], %[[RB]]
// CHECK: opal.assert %[[SAME]], "rows differ: {0} vs {1}" groups [1, 1](%[[RA]], %[[RB]] : i64, i64)
// CHECK-NOT: opal.assert
// CHECK: prims.add
opal.library "mylib" {
  opal.def "pair(Tensor a, Tensor b) -> Tensor"
  opal.decomposition "pair" {
  ^bb0(%a: !opal.tensor, %b: !opal.tensor):
    %ra = opal.dim_size %a, 0 : !opal.tensor -> i64
    %rb = opal.dim_size %b, 0 : !opal.tensor -> i64
    %same = arith.cmpi eq, %ra, %rb : i64
    opal.check %same, "rows differ: {0} vs {1}" (%ra, %rb : i64, i64)
    %ca = opal.dim_size %a, 1 : !opal.tensor -> i64
    %two = arith.constant 2 : i64
    %cols = arith.cmpi eq, %ca, %two : i64
    opal.check %cols, "never"
    %r = prims.add %a, %b : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
}
func.func @checked(%a: tensor<?x2xf32>, %b: tensor<?x2xf32>) -> tensor<?x2xf32> {
  %r = "mylib.pair"(%a, %b) : (tensor<?x2xf32>, tensor<?x2xf32>) -> tensor<?x2xf32>
  return %r : tensor<?x2xf32>
}
