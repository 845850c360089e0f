// RUN: opal-opt --op-library=%S/Inputs/sum-to.opal.mlir %s --opal-decompose | FileCheck %s

// A gradient of the broadcast shape sums the leading dim the operand lacks
// and the dim where it had size 1, which comes back as size 1.
// CHECK-LABEL: func.func @broadcast
// CHECK: %[[S:.*]] = prims.sum %{{.*}}, %{{.*}}, %{{.*}} : (tensor<2x3x4xf32>, !opal.list<i64>, !opal.none) -> tensor<4xf32>
// CHECK: prims.broadcast_in_dim %[[S]], %{{.*}}, %{{.*}} : (tensor<4xf32>, !opal.list<i64>, !opal.list<i64>) -> tensor<1x4xf32>
func.func @broadcast(%g: tensor<2x3x4xf32>, %x: tensor<1x4xf32>) -> tensor<1x4xf32> {
  %r = st.fit %g, %x : (tensor<2x3x4xf32>, tensor<1x4xf32>) -> tensor<1x4xf32>
  return %r : tensor<1x4xf32>
}

// Same shape, other dtype: only the conversion.
// CHECK-LABEL: func.func @dtype
// CHECK-NOT: prims.sum
// CHECK: prims.convert_element_type %{{.*}}, %{{.*}} : (tensor<3xf64>, i64) -> tensor<3xf32>
func.func @dtype(%g: tensor<3xf64>, %x: tensor<3xf32>) -> tensor<3xf32> {
  %r = st.fit %g, %x : (tensor<3xf64>, tensor<3xf32>) -> tensor<3xf32>
  return %r : tensor<3xf32>
}
