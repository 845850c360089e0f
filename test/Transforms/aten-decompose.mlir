// RUN: opal-opt %s --opal-decompose --split-input-file | FileCheck %s
// RUN: opal-opt %s --opal-to-linalg --split-input-file | FileCheck %s --check-prefix=LOWER
// Every case also goes all the way to linalg.
// LOWER-NOT: aten.
// LOWER-NOT: prims.
// LOWER: linalg.
// LOWER-NOT: aten.
// LOWER-NOT: prims.
// One test per aten composite: the prims it becomes, with PyTorch's type
// promotion (convert_element_type, full) and broadcasting (broadcast_in_dim).

// add.Tensor: int tensor broadcast to the float one, alpha scales other
// CHECK-LABEL: func.func @add_tensor
// CHECK: prims.convert_element_type {{.*}} : (tensor<3xi32>, i64) -> tensor<3xf32>
// CHECK: prims.full {{.*}} : (!opal.list<i64>, i64, i64, !opal.device, i1) -> tensor<f32>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<f32>, !opal.list<i64>, !opal.list<i64>) -> tensor<3xf32>
// CHECK: prims.mul {{.*}} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<3xf32>, !opal.list<i64>, !opal.list<i64>) -> tensor<2x3xf32>
// CHECK: prims.add {{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NOT: aten.
func.func @add_tensor(%x: tensor<2x3xf32>, %y: tensor<3xi32>) -> tensor<2x3xf32> {
  %c2 = arith.constant 2 : i64
  %r = aten.add.Tensor %x, %y, %c2 : (tensor<2x3xf32>, tensor<3xi32>, i64) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// add.Scalar: a float scalar makes an int tensor float32
// CHECK-LABEL: func.func @add_scalar
// CHECK: prims.convert_element_type {{.*}} : (tensor<2x3xi64>, i64) -> tensor<2x3xf32>
// CHECK: prims.full {{.*}} : (!opal.list<i64>, f64, i64, !opal.device, i1) -> tensor<f32>
// CHECK: prims.full {{.*}} : (!opal.list<i64>, i64, i64, !opal.device, i1) -> tensor<f32>
// CHECK: prims.mul {{.*}} : (tensor<f32>, tensor<f32>) -> tensor<f32>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<f32>, !opal.list<i64>, !opal.list<i64>) -> tensor<2x3xf32>
// CHECK: prims.add {{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NOT: aten.
func.func @add_scalar(%x: tensor<2x3xi64>) -> tensor<2x3xf32> {
  %s = arith.constant 1.5 : f64
  %c1 = arith.constant 1 : i64
  %r = aten.add.Scalar %x, %s, %c1 : (tensor<2x3xi64>, f64, i64) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// sub.Tensor: int tensor broadcast to the float one, alpha scales other
// CHECK-LABEL: func.func @sub_tensor
// CHECK: prims.convert_element_type {{.*}} : (tensor<3xi32>, i64) -> tensor<3xf32>
// CHECK: prims.full {{.*}} : (!opal.list<i64>, i64, i64, !opal.device, i1) -> tensor<f32>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<f32>, !opal.list<i64>, !opal.list<i64>) -> tensor<3xf32>
// CHECK: prims.mul {{.*}} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<3xf32>, !opal.list<i64>, !opal.list<i64>) -> tensor<2x3xf32>
// CHECK: prims.sub {{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NOT: aten.
func.func @sub_tensor(%x: tensor<2x3xf32>, %y: tensor<3xi32>) -> tensor<2x3xf32> {
  %c2 = arith.constant 2 : i64
  %r = aten.sub.Tensor %x, %y, %c2 : (tensor<2x3xf32>, tensor<3xi32>, i64) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// sub.Scalar: a float scalar makes an int tensor float32
// CHECK-LABEL: func.func @sub_scalar
// CHECK: prims.convert_element_type {{.*}} : (tensor<2x3xi64>, i64) -> tensor<2x3xf32>
// CHECK: prims.full {{.*}} : (!opal.list<i64>, f64, i64, !opal.device, i1) -> tensor<f32>
// CHECK: prims.full {{.*}} : (!opal.list<i64>, i64, i64, !opal.device, i1) -> tensor<f32>
// CHECK: prims.mul {{.*}} : (tensor<f32>, tensor<f32>) -> tensor<f32>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<f32>, !opal.list<i64>, !opal.list<i64>) -> tensor<2x3xf32>
// CHECK: prims.sub {{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NOT: aten.
func.func @sub_scalar(%x: tensor<2x3xi64>) -> tensor<2x3xf32> {
  %s = arith.constant 1.5 : f64
  %c1 = arith.constant 1 : i64
  %r = aten.sub.Scalar %x, %s, %c1 : (tensor<2x3xi64>, f64, i64) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// mul.Tensor: same dtype, rank-1 operand broadcast
// CHECK-LABEL: func.func @mul_tensor
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<3xf32>, !opal.list<i64>, !opal.list<i64>) -> tensor<2x3xf32>
// CHECK: prims.mul {{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NOT: aten.
func.func @mul_tensor(%x: tensor<2x3xf32>, %y: tensor<3xf32>) -> tensor<2x3xf32> {
  %r = aten.mul.Tensor %x, %y : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// mul.Scalar: an int scalar keeps an int tensor int
// CHECK-LABEL: func.func @mul_scalar
// CHECK: prims.full {{.*}} : (!opal.list<i64>, i64, i64, !opal.device, i1) -> tensor<i64>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<i64>, !opal.list<i64>, !opal.list<i64>) -> tensor<2x3xi64>
// CHECK: prims.mul {{.*}} : (tensor<2x3xi64>, tensor<2x3xi64>) -> tensor<2x3xi64>
// CHECK-NOT: aten.
func.func @mul_scalar(%x: tensor<2x3xi64>) -> tensor<2x3xi64> {
  %s = arith.constant 3 : i64
  %r = aten.mul.Scalar %x, %s : (tensor<2x3xi64>, i64) -> tensor<2x3xi64>
  return %r : tensor<2x3xi64>
}

// -----

// div.Tensor: true division of ints computes in float32
// CHECK-LABEL: func.func @div_tensor
// CHECK: prims.convert_element_type {{.*}} : (tensor<2x3xi64>, i64) -> tensor<2x3xf32>
// CHECK: prims.convert_element_type {{.*}} : (tensor<2x3xi64>, i64) -> tensor<2x3xf32>
// CHECK: prims.div {{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NOT: aten.
func.func @div_tensor(%x: tensor<2x3xi64>, %y: tensor<2x3xi64>) -> tensor<2x3xf32> {
  %r = aten.div.Tensor %x, %y : (tensor<2x3xi64>, tensor<2x3xi64>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// div.Scalar
// CHECK-LABEL: func.func @div_scalar
// CHECK: prims.full {{.*}} : (!opal.list<i64>, f64, i64, !opal.device, i1) -> tensor<f32>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<f32>, !opal.list<i64>, !opal.list<i64>) -> tensor<2x3xf32>
// CHECK: prims.div {{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NOT: aten.
func.func @div_scalar(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %s = arith.constant 2.0 : f64
  %r = aten.div.Scalar %x, %s : (tensor<2x3xf32>, f64) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// pow.Tensor_Tensor: a 0-d float64 tensor does not widen float32 (same category)
// CHECK-LABEL: func.func @pow_tensor_tensor
// CHECK: prims.convert_element_type {{.*}} : (tensor<f64>, i64) -> tensor<f32>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<f32>, !opal.list<i64>, !opal.list<i64>) -> tensor<2x3xf32>
// CHECK: prims.pow {{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NOT: aten.
func.func @pow_tensor_tensor(%x: tensor<2x3xf32>, %y: tensor<f64>) -> tensor<2x3xf32> {
  %r = aten.pow.Tensor_Tensor %x, %y : (tensor<2x3xf32>, tensor<f64>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// pow.Tensor_Scalar
// CHECK-LABEL: func.func @pow_tensor_scalar
// CHECK: prims.full {{.*}} : (!opal.list<i64>, f64, i64, !opal.device, i1) -> tensor<f32>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<f32>, !opal.list<i64>, !opal.list<i64>) -> tensor<2x3xf32>
// CHECK: prims.pow {{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NOT: aten.
func.func @pow_tensor_scalar(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %s = arith.constant 2.0 : f64
  %r = aten.pow.Tensor_Scalar %x, %s : (tensor<2x3xf32>, f64) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// maximum: a 0-d float tensor of higher category makes an int tensor float
// CHECK-LABEL: func.func @maximum
// CHECK: prims.convert_element_type {{.*}} : (tensor<2x3xi64>, i64) -> tensor<2x3xf64>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<f64>, !opal.list<i64>, !opal.list<i64>) -> tensor<2x3xf64>
// CHECK: prims.maximum {{.*}} : (tensor<2x3xf64>, tensor<2x3xf64>) -> tensor<2x3xf64>
// CHECK-NOT: aten.
func.func @maximum(%x: tensor<2x3xi64>, %y: tensor<f64>) -> tensor<2x3xf64> {
  %r = aten.maximum %x, %y : (tensor<2x3xi64>, tensor<f64>) -> tensor<2x3xf64>
  return %r : tensor<2x3xf64>
}

// -----

// minimum: float16 with bfloat16 gives float32
// CHECK-LABEL: func.func @minimum
// CHECK: prims.convert_element_type {{.*}} : (tensor<2x3xf16>, i64) -> tensor<2x3xf32>
// CHECK: prims.convert_element_type {{.*}} : (tensor<2x3xbf16>, i64) -> tensor<2x3xf32>
// CHECK: prims.minimum {{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NOT: aten.
func.func @minimum(%x: tensor<2x3xf16>, %y: tensor<2x3xbf16>) -> tensor<2x3xf32> {
  %r = aten.minimum %x, %y : (tensor<2x3xf16>, tensor<2x3xbf16>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// eq.Tensor: compared in the promoted dtype, bool result
// CHECK-LABEL: func.func @eq_tensor
// CHECK: prims.convert_element_type {{.*}} : (tensor<3xi32>, i64) -> tensor<3xf32>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<3xf32>, !opal.list<i64>, !opal.list<i64>) -> tensor<2x3xf32>
// CHECK: prims.eq {{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
// CHECK-NOT: aten.
func.func @eq_tensor(%x: tensor<2x3xf32>, %y: tensor<3xi32>) -> tensor<2x3xi1> {
  %r = aten.eq.Tensor %x, %y : (tensor<2x3xf32>, tensor<3xi32>) -> tensor<2x3xi1>
  return %r : tensor<2x3xi1>
}

// -----

// eq.Scalar
// CHECK-LABEL: func.func @eq_scalar
// CHECK: prims.full {{.*}} : (!opal.list<i64>, i64, i64, !opal.device, i1) -> tensor<i64>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<i64>, !opal.list<i64>, !opal.list<i64>) -> tensor<2x3xi64>
// CHECK: prims.eq {{.*}} : (tensor<2x3xi64>, tensor<2x3xi64>) -> tensor<2x3xi1>
// CHECK-NOT: aten.
func.func @eq_scalar(%x: tensor<2x3xi64>) -> tensor<2x3xi1> {
  %s = arith.constant 0 : i64
  %r = aten.eq.Scalar %x, %s : (tensor<2x3xi64>, i64) -> tensor<2x3xi1>
  return %r : tensor<2x3xi1>
}

// -----

// ne.Tensor: compared in the promoted dtype, bool result
// CHECK-LABEL: func.func @ne_tensor
// CHECK: prims.convert_element_type {{.*}} : (tensor<3xi32>, i64) -> tensor<3xf32>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<3xf32>, !opal.list<i64>, !opal.list<i64>) -> tensor<2x3xf32>
// CHECK: prims.ne {{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
// CHECK-NOT: aten.
func.func @ne_tensor(%x: tensor<2x3xf32>, %y: tensor<3xi32>) -> tensor<2x3xi1> {
  %r = aten.ne.Tensor %x, %y : (tensor<2x3xf32>, tensor<3xi32>) -> tensor<2x3xi1>
  return %r : tensor<2x3xi1>
}

// -----

// ne.Scalar
// CHECK-LABEL: func.func @ne_scalar
// CHECK: prims.full {{.*}} : (!opal.list<i64>, i64, i64, !opal.device, i1) -> tensor<i64>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<i64>, !opal.list<i64>, !opal.list<i64>) -> tensor<2x3xi64>
// CHECK: prims.ne {{.*}} : (tensor<2x3xi64>, tensor<2x3xi64>) -> tensor<2x3xi1>
// CHECK-NOT: aten.
func.func @ne_scalar(%x: tensor<2x3xi64>) -> tensor<2x3xi1> {
  %s = arith.constant 0 : i64
  %r = aten.ne.Scalar %x, %s : (tensor<2x3xi64>, i64) -> tensor<2x3xi1>
  return %r : tensor<2x3xi1>
}

// -----

// lt.Tensor: compared in the promoted dtype, bool result
// CHECK-LABEL: func.func @lt_tensor
// CHECK: prims.convert_element_type {{.*}} : (tensor<3xi32>, i64) -> tensor<3xf32>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<3xf32>, !opal.list<i64>, !opal.list<i64>) -> tensor<2x3xf32>
// CHECK: prims.lt {{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
// CHECK-NOT: aten.
func.func @lt_tensor(%x: tensor<2x3xf32>, %y: tensor<3xi32>) -> tensor<2x3xi1> {
  %r = aten.lt.Tensor %x, %y : (tensor<2x3xf32>, tensor<3xi32>) -> tensor<2x3xi1>
  return %r : tensor<2x3xi1>
}

// -----

// lt.Scalar
// CHECK-LABEL: func.func @lt_scalar
// CHECK: prims.full {{.*}} : (!opal.list<i64>, i64, i64, !opal.device, i1) -> tensor<i64>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<i64>, !opal.list<i64>, !opal.list<i64>) -> tensor<2x3xi64>
// CHECK: prims.lt {{.*}} : (tensor<2x3xi64>, tensor<2x3xi64>) -> tensor<2x3xi1>
// CHECK-NOT: aten.
func.func @lt_scalar(%x: tensor<2x3xi64>) -> tensor<2x3xi1> {
  %s = arith.constant 0 : i64
  %r = aten.lt.Scalar %x, %s : (tensor<2x3xi64>, i64) -> tensor<2x3xi1>
  return %r : tensor<2x3xi1>
}

// -----

// le.Tensor: compared in the promoted dtype, bool result
// CHECK-LABEL: func.func @le_tensor
// CHECK: prims.convert_element_type {{.*}} : (tensor<3xi32>, i64) -> tensor<3xf32>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<3xf32>, !opal.list<i64>, !opal.list<i64>) -> tensor<2x3xf32>
// CHECK: prims.le {{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
// CHECK-NOT: aten.
func.func @le_tensor(%x: tensor<2x3xf32>, %y: tensor<3xi32>) -> tensor<2x3xi1> {
  %r = aten.le.Tensor %x, %y : (tensor<2x3xf32>, tensor<3xi32>) -> tensor<2x3xi1>
  return %r : tensor<2x3xi1>
}

// -----

// le.Scalar
// CHECK-LABEL: func.func @le_scalar
// CHECK: prims.full {{.*}} : (!opal.list<i64>, i64, i64, !opal.device, i1) -> tensor<i64>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<i64>, !opal.list<i64>, !opal.list<i64>) -> tensor<2x3xi64>
// CHECK: prims.le {{.*}} : (tensor<2x3xi64>, tensor<2x3xi64>) -> tensor<2x3xi1>
// CHECK-NOT: aten.
func.func @le_scalar(%x: tensor<2x3xi64>) -> tensor<2x3xi1> {
  %s = arith.constant 0 : i64
  %r = aten.le.Scalar %x, %s : (tensor<2x3xi64>, i64) -> tensor<2x3xi1>
  return %r : tensor<2x3xi1>
}

// -----

// gt.Tensor: compared in the promoted dtype, bool result
// CHECK-LABEL: func.func @gt_tensor
// CHECK: prims.convert_element_type {{.*}} : (tensor<3xi32>, i64) -> tensor<3xf32>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<3xf32>, !opal.list<i64>, !opal.list<i64>) -> tensor<2x3xf32>
// CHECK: prims.gt {{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
// CHECK-NOT: aten.
func.func @gt_tensor(%x: tensor<2x3xf32>, %y: tensor<3xi32>) -> tensor<2x3xi1> {
  %r = aten.gt.Tensor %x, %y : (tensor<2x3xf32>, tensor<3xi32>) -> tensor<2x3xi1>
  return %r : tensor<2x3xi1>
}

// -----

// gt.Scalar
// CHECK-LABEL: func.func @gt_scalar
// CHECK: prims.full {{.*}} : (!opal.list<i64>, i64, i64, !opal.device, i1) -> tensor<i64>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<i64>, !opal.list<i64>, !opal.list<i64>) -> tensor<2x3xi64>
// CHECK: prims.gt {{.*}} : (tensor<2x3xi64>, tensor<2x3xi64>) -> tensor<2x3xi1>
// CHECK-NOT: aten.
func.func @gt_scalar(%x: tensor<2x3xi64>) -> tensor<2x3xi1> {
  %s = arith.constant 0 : i64
  %r = aten.gt.Scalar %x, %s : (tensor<2x3xi64>, i64) -> tensor<2x3xi1>
  return %r : tensor<2x3xi1>
}

// -----

// ge.Tensor: compared in the promoted dtype, bool result
// CHECK-LABEL: func.func @ge_tensor
// CHECK: prims.convert_element_type {{.*}} : (tensor<3xi32>, i64) -> tensor<3xf32>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<3xf32>, !opal.list<i64>, !opal.list<i64>) -> tensor<2x3xf32>
// CHECK: prims.ge {{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
// CHECK-NOT: aten.
func.func @ge_tensor(%x: tensor<2x3xf32>, %y: tensor<3xi32>) -> tensor<2x3xi1> {
  %r = aten.ge.Tensor %x, %y : (tensor<2x3xf32>, tensor<3xi32>) -> tensor<2x3xi1>
  return %r : tensor<2x3xi1>
}

// -----

// ge.Scalar
// CHECK-LABEL: func.func @ge_scalar
// CHECK: prims.full {{.*}} : (!opal.list<i64>, i64, i64, !opal.device, i1) -> tensor<i64>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<i64>, !opal.list<i64>, !opal.list<i64>) -> tensor<2x3xi64>
// CHECK: prims.ge {{.*}} : (tensor<2x3xi64>, tensor<2x3xi64>) -> tensor<2x3xi1>
// CHECK-NOT: aten.
func.func @ge_scalar(%x: tensor<2x3xi64>) -> tensor<2x3xi1> {
  %s = arith.constant 0 : i64
  %r = aten.ge.Scalar %x, %s : (tensor<2x3xi64>, i64) -> tensor<2x3xi1>
  return %r : tensor<2x3xi1>
}

// -----

// neg keeps an int dtype
// CHECK-LABEL: func.func @neg
// CHECK: prims.neg {{.*}} : (tensor<2x3xi64>) -> tensor<2x3xi64>
// CHECK-NOT: aten.
func.func @neg(%x: tensor<2x3xi64>) -> tensor<2x3xi64> {
  %r = aten.neg %x : (tensor<2x3xi64>) -> tensor<2x3xi64>
  return %r : tensor<2x3xi64>
}

// -----

// abs
// CHECK-LABEL: func.func @abs
// CHECK: prims.abs {{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NOT: aten.
func.func @abs(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = aten.abs %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// exp: an int tensor is computed in float32
// CHECK-LABEL: func.func @exp
// CHECK: prims.convert_element_type {{.*}} : (tensor<2x3xi64>, i64) -> tensor<2x3xf32>
// CHECK: prims.exp {{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NOT: aten.
func.func @exp(%x: tensor<2x3xi64>) -> tensor<2x3xf32> {
  %r = aten.exp %x : (tensor<2x3xi64>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// log: an int tensor is computed in float32
// CHECK-LABEL: func.func @log
// CHECK: prims.convert_element_type {{.*}} : (tensor<2x3xi64>, i64) -> tensor<2x3xf32>
// CHECK: prims.log {{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NOT: aten.
func.func @log(%x: tensor<2x3xi64>) -> tensor<2x3xf32> {
  %r = aten.log %x : (tensor<2x3xi64>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// log1p: an int tensor is computed in float32
// CHECK-LABEL: func.func @log1p
// CHECK: prims.convert_element_type {{.*}} : (tensor<2x3xi64>, i64) -> tensor<2x3xf32>
// CHECK: prims.log1p {{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NOT: aten.
func.func @log1p(%x: tensor<2x3xi64>) -> tensor<2x3xf32> {
  %r = aten.log1p %x : (tensor<2x3xi64>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// sqrt: an int tensor is computed in float32
// CHECK-LABEL: func.func @sqrt
// CHECK: prims.convert_element_type {{.*}} : (tensor<2x3xi64>, i64) -> tensor<2x3xf32>
// CHECK: prims.sqrt {{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NOT: aten.
func.func @sqrt(%x: tensor<2x3xi64>) -> tensor<2x3xf32> {
  %r = aten.sqrt %x : (tensor<2x3xi64>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// rsqrt: an int tensor is computed in float32
// CHECK-LABEL: func.func @rsqrt
// CHECK: prims.convert_element_type {{.*}} : (tensor<2x3xi64>, i64) -> tensor<2x3xf32>
// CHECK: prims.rsqrt {{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NOT: aten.
func.func @rsqrt(%x: tensor<2x3xi64>) -> tensor<2x3xf32> {
  %r = aten.rsqrt %x : (tensor<2x3xi64>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// sin: an int tensor is computed in float32
// CHECK-LABEL: func.func @sin
// CHECK: prims.convert_element_type {{.*}} : (tensor<2x3xi64>, i64) -> tensor<2x3xf32>
// CHECK: prims.sin {{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NOT: aten.
func.func @sin(%x: tensor<2x3xi64>) -> tensor<2x3xf32> {
  %r = aten.sin %x : (tensor<2x3xi64>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// cos: an int tensor is computed in float32
// CHECK-LABEL: func.func @cos
// CHECK: prims.convert_element_type {{.*}} : (tensor<2x3xi64>, i64) -> tensor<2x3xf32>
// CHECK: prims.cos {{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NOT: aten.
func.func @cos(%x: tensor<2x3xi64>) -> tensor<2x3xf32> {
  %r = aten.cos %x : (tensor<2x3xi64>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// tanh: an int tensor is computed in float32
// CHECK-LABEL: func.func @tanh
// CHECK: prims.convert_element_type {{.*}} : (tensor<2x3xi64>, i64) -> tensor<2x3xf32>
// CHECK: prims.tanh {{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NOT: aten.
func.func @tanh(%x: tensor<2x3xi64>) -> tensor<2x3xf32> {
  %r = aten.tanh %x : (tensor<2x3xi64>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// erf: an int tensor is computed in float32
// CHECK-LABEL: func.func @erf
// CHECK: prims.convert_element_type {{.*}} : (tensor<2x3xi64>, i64) -> tensor<2x3xf32>
// CHECK: prims.erf {{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NOT: aten.
func.func @erf(%x: tensor<2x3xi64>) -> tensor<2x3xf32> {
  %r = aten.erf %x : (tensor<2x3xi64>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// relu: maximum with a broadcast zero
// CHECK-LABEL: func.func @relu
// CHECK: prims.full {{.*}} : (!opal.list<i64>, i64, i64, !opal.device, i1) -> tensor<f32>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<f32>, !opal.list<i64>, !opal.list<i64>) -> tensor<2x3xf32>
// CHECK: prims.maximum {{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NOT: aten.
func.func @relu(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = aten.relu %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// sigmoid: 1 / (1 + exp(-x))
// CHECK-LABEL: func.func @sigmoid
// CHECK: prims.full {{.*}} : (!opal.list<i64>, f64, i64, !opal.device, i1) -> tensor<f32>
// CHECK: prims.neg {{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: prims.exp {{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<f32>, !opal.list<i64>, !opal.list<i64>) -> tensor<2x3xf32>
// CHECK: prims.add {{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: prims.div {{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NOT: aten.
func.func @sigmoid(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = aten.sigmoid %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// silu: x * sigmoid(x), through aten.sigmoid
// CHECK-LABEL: func.func @silu
// CHECK: prims.full {{.*}} : (!opal.list<i64>, f64, i64, !opal.device, i1) -> tensor<f32>
// CHECK: prims.neg {{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: prims.exp {{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<f32>, !opal.list<i64>, !opal.list<i64>) -> tensor<2x3xf32>
// CHECK: prims.add {{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: prims.div {{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: prims.mul {{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NOT: aten.
func.func @silu(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %r = aten.silu %x : (tensor<2x3xf32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// where.self: the condition broadcasts too
// CHECK-LABEL: func.func @where_self
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<3xi1>, !opal.list<i64>, !opal.list<i64>) -> tensor<2x3xi1>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<f32>, !opal.list<i64>, !opal.list<i64>) -> tensor<2x3xf32>
// CHECK: prims.where {{.*}} : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NOT: aten.
func.func @where_self(%c: tensor<3xi1>, %x: tensor<2x3xf32>, %y: tensor<f32>) -> tensor<2x3xf32> {
  %r = aten.where.self %c, %x, %y : (tensor<3xi1>, tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// softplus: linear above threshold / beta, log1p(exp(x * beta)) / beta below
// CHECK-LABEL: func.func @softplus
// CHECK: prims.full {{.*}} : (!opal.list<i64>, f64, i64, !opal.device, i1) -> tensor<f32>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<f32>, !opal.list<i64>, !opal.list<i64>) -> tensor<2x3xf32>
// CHECK: prims.mul {{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: prims.full {{.*}} : (!opal.list<i64>, f64, i64, !opal.device, i1) -> tensor<f32>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<f32>, !opal.list<i64>, !opal.list<i64>) -> tensor<2x3xf32>
// CHECK: prims.gt {{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
// CHECK: prims.exp {{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: prims.log1p {{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: prims.div {{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: prims.where {{.*}} : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NOT: aten.
func.func @softplus(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %b = arith.constant 1.0 : f64
  %t = arith.constant 20.0 : f64
  %r = aten.softplus %x, %b, %t : (tensor<2x3xf32>, f64, f64) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// leaky_relu: where(x > 0, x, x * slope)
// CHECK-LABEL: func.func @leaky_relu
// CHECK: prims.full {{.*}} : (!opal.list<i64>, f64, i64, !opal.device, i1) -> tensor<f32>
// CHECK: prims.full {{.*}} : (!opal.list<i64>, i64, i64, !opal.device, i1) -> tensor<f32>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<f32>, !opal.list<i64>, !opal.list<i64>) -> tensor<2x3xf32>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<f32>, !opal.list<i64>, !opal.list<i64>) -> tensor<2x3xf32>
// CHECK: prims.gt {{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>
// CHECK: prims.mul {{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: prims.where {{.*}} : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NOT: aten.
func.func @leaky_relu(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %s = arith.constant 0.01 : f64
  %r = aten.leaky_relu %x, %s : (tensor<2x3xf32>, f64) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// hardtanh: minimum(maximum(x, min_val), max_val)
// CHECK-LABEL: func.func @hardtanh
// CHECK: prims.full {{.*}} : (!opal.list<i64>, f64, i64, !opal.device, i1) -> tensor<f32>
// CHECK: prims.full {{.*}} : (!opal.list<i64>, f64, i64, !opal.device, i1) -> tensor<f32>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<f32>, !opal.list<i64>, !opal.list<i64>) -> tensor<2x3xf32>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<f32>, !opal.list<i64>, !opal.list<i64>) -> tensor<2x3xf32>
// CHECK: prims.maximum {{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: prims.minimum {{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NOT: aten.
func.func @hardtanh(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %lo = arith.constant -1.0 : f64
  %hi = arith.constant 1.0 : f64
  %r = aten.hardtanh %x, %lo, %hi : (tensor<2x3xf32>, f64, f64) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// clamp_min: an int bound keeps a float tensor float
// CHECK-LABEL: func.func @clamp_min
// CHECK: prims.full {{.*}} : (!opal.list<i64>, i64, i64, !opal.device, i1) -> tensor<f32>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<f32>, !opal.list<i64>, !opal.list<i64>) -> tensor<2x3xf32>
// CHECK: prims.maximum {{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NOT: aten.
func.func @clamp_min(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %m = arith.constant 0 : i64
  %r = aten.clamp_min %x, %m : (tensor<2x3xf32>, i64) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// clamp_max
// CHECK-LABEL: func.func @clamp_max
// CHECK: prims.full {{.*}} : (!opal.list<i64>, i64, i64, !opal.device, i1) -> tensor<i64>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<i64>, !opal.list<i64>, !opal.list<i64>) -> tensor<2x3xi64>
// CHECK: prims.minimum {{.*}} : (tensor<2x3xi64>, tensor<2x3xi64>) -> tensor<2x3xi64>
// CHECK-NOT: aten.
func.func @clamp_max(%x: tensor<2x3xi64>) -> tensor<2x3xi64> {
  %m = arith.constant 5 : i64
  %r = aten.clamp_max %x, %m : (tensor<2x3xi64>, i64) -> tensor<2x3xi64>
  return %r : tensor<2x3xi64>
}

// -----

// rsub.Scalar: other - alpha * self
// CHECK-LABEL: func.func @rsub_scalar
// CHECK: prims.full {{.*}} : (!opal.list<i64>, f64, i64, !opal.device, i1) -> tensor<f32>
// CHECK: prims.full {{.*}} : (!opal.list<i64>, i64, i64, !opal.device, i1) -> tensor<f32>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<f32>, !opal.list<i64>, !opal.list<i64>) -> tensor<2x3xf32>
// CHECK: prims.mul {{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<f32>, !opal.list<i64>, !opal.list<i64>) -> tensor<2x3xf32>
// CHECK: prims.sub {{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NOT: aten.
func.func @rsub_scalar(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %o = arith.constant 1.0 : f64
  %c1 = arith.constant 1 : i64
  %r = aten.rsub.Scalar %x, %o, %c1 : (tensor<2x3xf32>, f64, i64) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// reciprocal: 1 / x, in float32 for ints
// CHECK-LABEL: func.func @reciprocal
// CHECK: prims.convert_element_type {{.*}} : (tensor<2x3xi64>, i64) -> tensor<2x3xf32>
// CHECK: prims.full {{.*}} : (!opal.list<i64>, f64, i64, !opal.device, i1) -> tensor<f32>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<f32>, !opal.list<i64>, !opal.list<i64>) -> tensor<2x3xf32>
// CHECK: prims.div {{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NOT: aten.
func.func @reciprocal(%x: tensor<2x3xi64>) -> tensor<2x3xf32> {
  %r = aten.reciprocal %x : (tensor<2x3xi64>) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// square: x * x
// CHECK-LABEL: func.func @square
// CHECK: prims.mul {{.*}} : (tensor<2x3xi64>, tensor<2x3xi64>) -> tensor<2x3xi64>
// CHECK-NOT: aten.
func.func @square(%x: tensor<2x3xi64>) -> tensor<2x3xi64> {
  %r = aten.square %x : (tensor<2x3xi64>) -> tensor<2x3xi64>
  return %r : tensor<2x3xi64>
}

// -----

// mm: operands of one dtype (PyTorch refuses mixed ones)
// CHECK-LABEL: func.func @mm
// CHECK: prims.mm {{.*}} : (tensor<2x3xf16>, tensor<3x4xf16>) -> tensor<2x4xf16>
// CHECK-NOT: aten.
func.func @mm(%a: tensor<2x3xf16>, %b: tensor<3x4xf16>) -> tensor<2x4xf16> {
  %r = aten.mm %a, %b : (tensor<2x3xf16>, tensor<3x4xf16>) -> tensor<2x4xf16>
  return %r : tensor<2x4xf16>
}

// -----

// bmm
// CHECK-LABEL: func.func @bmm
// CHECK: prims.bmm {{.*}} : (tensor<5x2x3xf32>, tensor<5x3x4xf32>) -> tensor<5x2x4xf32>
// CHECK-NOT: aten.
func.func @bmm(%a: tensor<5x2x3xf32>, %b: tensor<5x3x4xf32>) -> tensor<5x2x4xf32> {
  %r = aten.bmm %a, %b : (tensor<5x2x3xf32>, tensor<5x3x4xf32>) -> tensor<5x2x4xf32>
  return %r : tensor<5x2x4xf32>
}

// -----

// sum.dim_IntList: int32 sums in int64, a negative dim is normalized
// CHECK-LABEL: func.func @sum_dim
// CHECK: prims.convert_element_type {{.*}} : (tensor<2x3xi32>, i64) -> tensor<2x3xi64>
// CHECK: prims.sum {{.*}} : (tensor<2x3xi64>, !opal.list<i64>, !opal.none) -> tensor<2xi64>
// CHECK-NOT: aten.
func.func @sum_dim(%x: tensor<2x3xi32>) -> tensor<2xi64> {
  %d = arith.constant -1 : i64
  %l = opal.list %d : i64 -> !opal.list<i64>
  %k = arith.constant false
  %n = opal.none
  %r = aten.sum.dim_IntList %x, %l, %k, %n : (tensor<2x3xi32>, !opal.list<i64>, i1, !opal.none) -> tensor<2xi64>
  return %r : tensor<2xi64>
}

// -----

// sum.dim_IntList: None means every dim; keepdim restores them as size 1; dtype converts first
// CHECK-LABEL: func.func @sum_all_keepdim
// CHECK: prims.convert_element_type {{.*}} : (tensor<2x3xf32>, i64) -> tensor<2x3xf64>
// CHECK: prims.sum {{.*}} : (tensor<2x3xf64>, !opal.list<i64>, !opal.none) -> tensor<f64>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<f64>, !opal.list<i64>, !opal.list<i64>) -> tensor<1x1xf64>
// CHECK-NOT: aten.
func.func @sum_all_keepdim(%x: tensor<2x3xf32>) -> tensor<1x1xf64> {
  %n = opal.none
  %k = arith.constant true
  %dt = arith.constant 7 : i64
  %r = aten.sum.dim_IntList %x, %n, %k, %dt : (tensor<2x3xf32>, !opal.none, i1, i64) -> tensor<1x1xf64>
  return %r : tensor<1x1xf64>
}

// -----

// mean.dim: sum divided by the count of the reduced dims (read at run time when dynamic)
// CHECK-LABEL: func.func @mean_dim
// CHECK: prims.sum {{.*}} : (tensor<?x4xf32>, !opal.list<i64>, !opal.none) -> tensor<4xf32>
// CHECK: prims.full {{.*}} : (!opal.list<i64>, i64, i64, !opal.device, i1) -> tensor<f32>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<f32>, !opal.list<i64>, !opal.list<i64>) -> tensor<4xf32>
// CHECK: prims.div {{.*}} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<4xf32>, !opal.list<i64>, !opal.list<i64>) -> tensor<1x4xf32>
// CHECK-NOT: aten.
func.func @mean_dim(%x: tensor<?x4xf32>) -> tensor<1x4xf32> {
  %d = arith.constant 0 : i64
  %l = opal.list %d : i64 -> !opal.list<i64>
  %k = arith.constant true
  %n = opal.none
  %r = aten.mean.dim %x, %l, %k, %n : (tensor<?x4xf32>, !opal.list<i64>, i1, !opal.none) -> tensor<1x4xf32>
  return %r : tensor<1x4xf32>
}

// -----

// amax: [] means every dim
// CHECK-LABEL: func.func @amax
// CHECK: prims.amax {{.*}} : (tensor<2x3xf32>, !opal.list<i64>, !opal.none) -> tensor<f32>
// CHECK-NOT: aten.
func.func @amax(%x: tensor<2x3xf32>) -> tensor<f32> {
  %l = opal.list -> !opal.list<i64>
  %k = arith.constant false
  %r = aten.amax %x, %l, %k : (tensor<2x3xf32>, !opal.list<i64>, i1) -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// amin: [] means every dim
// CHECK-LABEL: func.func @amin
// CHECK: prims.amin {{.*}} : (tensor<2x3xf32>, !opal.list<i64>, !opal.none) -> tensor<f32>
// CHECK-NOT: aten.
func.func @amin(%x: tensor<2x3xf32>) -> tensor<f32> {
  %l = opal.list -> !opal.list<i64>
  %k = arith.constant false
  %r = aten.amin %x, %l, %k : (tensor<2x3xf32>, !opal.list<i64>, i1) -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// softmax.int: exp(x - amax) * (1 / sum), along a dynamic batch: one
// division per row
// CHECK-LABEL: func.func @softmax
// CHECK: prims.amax {{.*}} : (tensor<?x4xf32>, !opal.list<i64>, !opal.none) -> tensor<?xf32>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<?xf32>, !opal.list<i64>, !opal.list<i64>) -> tensor<?x1xf32>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<?x1xf32>, !opal.list<i64>, !opal.list<i64>) -> tensor<?x4xf32>
// CHECK: prims.sub {{.*}} : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
// CHECK: prims.exp {{.*}} : (tensor<?x4xf32>) -> tensor<?x4xf32>
// CHECK: prims.sum {{.*}} : (tensor<?x4xf32>, !opal.list<i64>, !opal.none) -> tensor<?xf32>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<?xf32>, !opal.list<i64>, !opal.list<i64>) -> tensor<?x1xf32>
// CHECK: prims.div {{.*}} : (tensor<?x1xf32>, tensor<?x1xf32>) -> tensor<?x1xf32>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<?x1xf32>, !opal.list<i64>, !opal.list<i64>) -> tensor<?x4xf32>
// CHECK: prims.mul {{.*}} : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
// CHECK-NOT: aten.
func.func @softmax(%x: tensor<?x4xf32>) -> tensor<?x4xf32> {
  %d = arith.constant 1 : i64
  %n = opal.none
  %r = aten.softmax.int %x, %d, %n : (tensor<?x4xf32>, i64, !opal.none) -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}

// -----

// log_softmax.int: (x - amax) - log(sum(exp(x - amax)))
// CHECK-LABEL: func.func @log_softmax
// CHECK: prims.amax {{.*}} : (tensor<2x3xf32>, !opal.list<i64>, !opal.none) -> tensor<2xf32>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<2xf32>, !opal.list<i64>, !opal.list<i64>) -> tensor<2x1xf32>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<2x1xf32>, !opal.list<i64>, !opal.list<i64>) -> tensor<2x3xf32>
// CHECK: prims.sub {{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: prims.exp {{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: prims.sum {{.*}} : (tensor<2x3xf32>, !opal.list<i64>, !opal.none) -> tensor<2xf32>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<2xf32>, !opal.list<i64>, !opal.list<i64>) -> tensor<2x1xf32>
// CHECK: prims.log {{.*}} : (tensor<2x1xf32>) -> tensor<2x1xf32>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<2x1xf32>, !opal.list<i64>, !opal.list<i64>) -> tensor<2x3xf32>
// CHECK: prims.sub {{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NOT: aten.
func.func @log_softmax(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %d = arith.constant -1 : i64
  %n = opal.none
  %r = aten.log_softmax.int %x, %d, %n : (tensor<2x3xf32>, i64, !opal.none) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// transpose.int: negative dims count from the end
// CHECK-LABEL: func.func @transpose_int
// CHECK: prims.transpose {{.*}} : (tensor<2x3x4xf32>, !opal.list<i64>) -> tensor<4x3x2xf32>
// CHECK-NOT: aten.
func.func @transpose_int(%x: tensor<2x3x4xf32>) -> tensor<4x3x2xf32> {
  %a = arith.constant 0 : i64
  %b = arith.constant -1 : i64
  %r = aten.transpose.int %x, %a, %b : (tensor<2x3x4xf32>, i64, i64) -> tensor<4x3x2xf32>
  return %r : tensor<4x3x2xf32>
}

// -----

// t
// CHECK-LABEL: func.func @t
// CHECK: prims.transpose {{.*}} : (tensor<2x?xf32>, !opal.list<i64>) -> tensor<?x2xf32>
// CHECK-NOT: aten.
func.func @t(%x: tensor<2x?xf32>) -> tensor<?x2xf32> {
  %r = aten.t %x : (tensor<2x?xf32>) -> tensor<?x2xf32>
  return %r : tensor<?x2xf32>
}

// -----

// permute
// CHECK-LABEL: func.func @permute
// CHECK: prims.transpose {{.*}} : (tensor<2x3x4xf32>, !opal.list<i64>) -> tensor<4x2x3xf32>
// CHECK-NOT: aten.
func.func @permute(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %a = arith.constant 2 : i64
  %b = arith.constant 0 : i64
  %c = arith.constant -2 : i64
  %l = opal.list %a, %b, %c : i64, i64, i64 -> !opal.list<i64>
  %r = aten.permute %x, %l : (tensor<2x3x4xf32>, !opal.list<i64>) -> tensor<4x2x3xf32>
  return %r : tensor<4x2x3xf32>
}

// -----

// gelu, approximate="none": 0.5 * x * (1 + erf(x / sqrt(2)))
// CHECK-LABEL: func.func @gelu_none
// CHECK: prims.full {{.*}} : (!opal.list<i64>, f64, i64, !opal.device, i1) -> tensor<f32>
// CHECK: prims.full {{.*}} : (!opal.list<i64>, f64, i64, !opal.device, i1) -> tensor<f32>
// CHECK: prims.full {{.*}} : (!opal.list<i64>, f64, i64, !opal.device, i1) -> tensor<f32>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<f32>, !opal.list<i64>, !opal.list<i64>) -> tensor<2x3xf32>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<f32>, !opal.list<i64>, !opal.list<i64>) -> tensor<2x3xf32>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<f32>, !opal.list<i64>, !opal.list<i64>) -> tensor<2x3xf32>
// CHECK: prims.mul {{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: prims.erf {{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: prims.add {{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: prims.mul {{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: prims.mul {{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NOT: aten.
func.func @gelu_none(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %a = opal.str "none"
  %r = aten.gelu %x, %a : (tensor<2x3xf32>, !opal.str) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// gelu, approximate="tanh": the tanh formula, and no erf
// CHECK-LABEL: func.func @gelu_tanh
// CHECK: prims.full {{.*}} : (!opal.list<i64>, f64, i64, !opal.device, i1) -> tensor<f32>
// CHECK: prims.full {{.*}} : (!opal.list<i64>, f64, i64, !opal.device, i1) -> tensor<f32>
// CHECK: prims.full {{.*}} : (!opal.list<i64>, f64, i64, !opal.device, i1) -> tensor<f32>
// CHECK: prims.full {{.*}} : (!opal.list<i64>, f64, i64, !opal.device, i1) -> tensor<f32>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<f32>, !opal.list<i64>, !opal.list<i64>) -> tensor<2x3xf32>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<f32>, !opal.list<i64>, !opal.list<i64>) -> tensor<2x3xf32>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<f32>, !opal.list<i64>, !opal.list<i64>) -> tensor<2x3xf32>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<f32>, !opal.list<i64>, !opal.list<i64>) -> tensor<2x3xf32>
// CHECK: prims.mul {{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: prims.mul {{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: prims.mul {{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: prims.add {{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: prims.mul {{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: prims.tanh {{.*}} : (tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: prims.add {{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: prims.mul {{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: prims.mul {{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NOT: aten.
func.func @gelu_tanh(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %a = opal.str "tanh"
  %r = aten.gelu %x, %a : (tensor<2x3xf32>, !opal.str) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// clamp with both bounds: maximum, then minimum
// CHECK-LABEL: func.func @clamp_both
// CHECK: prims.full {{.*}} : (!opal.list<i64>, f64, i64, !opal.device, i1) -> tensor<f32>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<f32>, !opal.list<i64>, !opal.list<i64>) -> tensor<2x3xf32>
// CHECK: prims.maximum {{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK: prims.full {{.*}} : (!opal.list<i64>, f64, i64, !opal.device, i1) -> tensor<f32>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<f32>, !opal.list<i64>, !opal.list<i64>) -> tensor<2x3xf32>
// CHECK: prims.minimum {{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NOT: aten.
func.func @clamp_both(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %lo = arith.constant -1.0 : f64
  %hi = arith.constant 1.0 : f64
  %r = aten.clamp %x, %lo, %hi : (tensor<2x3xf32>, f64, f64) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// clamp with min=None: only the minimum
// CHECK-LABEL: func.func @clamp_max_only
// CHECK: prims.full {{.*}} : (!opal.list<i64>, f64, i64, !opal.device, i1) -> tensor<f32>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<f32>, !opal.list<i64>, !opal.list<i64>) -> tensor<2x3xf32>
// CHECK: prims.minimum {{.*}} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
// CHECK-NOT: aten.
func.func @clamp_max_only(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %n = opal.none
  %hi = arith.constant 1.0 : f64
  %r = aten.clamp %x, %n, %hi : (tensor<2x3xf32>, !opal.none, f64) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// unsqueeze: a negative dim counts in the result's rank
// CHECK-LABEL: func.func @unsqueeze
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<2x?xf32>, !opal.list<i64>, !opal.list<i64>) -> tensor<2x?x1xf32>
// CHECK-NOT: aten.
func.func @unsqueeze(%x: tensor<2x?xf32>) -> tensor<2x?x1xf32> {
  %d = arith.constant -1 : i64
  %r = aten.unsqueeze %x, %d : (tensor<2x?xf32>, i64) -> tensor<2x?x1xf32>
  return %r : tensor<2x?x1xf32>
}

// -----

// expand: -1 keeps a size, a new leading dim is added
// CHECK-LABEL: func.func @expand
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<3x1xf32>, !opal.list<i64>, !opal.list<i64>) -> tensor<2x3x4xf32>
// CHECK-NOT: aten.
func.func @expand(%x: tensor<3x1xf32>) -> tensor<2x3x4xf32> {
  %a = arith.constant 2 : i64
  %b = arith.constant -1 : i64
  %c = arith.constant 4 : i64
  %l = opal.list %a, %b, %c : i64, i64, i64 -> !opal.list<i64>
  %f = arith.constant false
  %r = aten.expand %x, %l, %f : (tensor<3x1xf32>, !opal.list<i64>, i1) -> tensor<2x3x4xf32>
  return %r : tensor<2x3x4xf32>
}

// -----

// reshape: -1 is inferred
// CHECK-LABEL: func.func @reshape
// CHECK: prims.reshape {{.*}} : (tensor<2x6xf32>, !opal.list<i64>) -> tensor<3x4xf32>
// CHECK-NOT: aten.
func.func @reshape(%x: tensor<2x6xf32>) -> tensor<3x4xf32> {
  %a = arith.constant -1 : i64
  %b = arith.constant 4 : i64
  %l = opal.list %a, %b : i64, i64 -> !opal.list<i64>
  %r = aten.reshape %x, %l : (tensor<2x6xf32>, !opal.list<i64>) -> tensor<3x4xf32>
  return %r : tensor<3x4xf32>
}

// -----

// view
// CHECK-LABEL: func.func @view
// CHECK: prims.reshape {{.*}} : (tensor<12xi32>, !opal.list<i64>) -> tensor<3x4xi32>
// CHECK-NOT: aten.
func.func @view(%x: tensor<12xi32>) -> tensor<3x4xi32> {
  %a = arith.constant 3 : i64
  %b = arith.constant 4 : i64
  %l = opal.list %a, %b : i64, i64 -> !opal.list<i64>
  %r = aten.view %x, %l : (tensor<12xi32>, !opal.list<i64>) -> tensor<3x4xi32>
  return %r : tensor<3x4xi32>
}

// -----

// zeros_like: the shape is read at run time where dynamic
// CHECK-LABEL: func.func @zeros_like
// CHECK: prims.full {{.*}} : (!opal.list<i64>, i64, i64, !opal.device, i1) -> tensor<?x3xf32>
// CHECK-NOT: aten.
func.func @zeros_like(%x: tensor<?x3xf32>) -> tensor<?x3xf32> {
  %n = opal.none
  %r = aten.zeros_like %x, %n, %n, %n, %n, %n : (tensor<?x3xf32>, !opal.none, !opal.none, !opal.none, !opal.none, !opal.none) -> tensor<?x3xf32>
  return %r : tensor<?x3xf32>
}

// -----

// zeros of sizes known per call: a tensor's size (and products of sizes)
// is never negative, so the negative-size check folds away
// CHECK-LABEL: func.func @zeros_of_sizes
// CHECK-NOT: opal.assert
// CHECK: prims.full {{.*}} : (!opal.list<i64>, i64, i64, !opal.device, i1) -> tensor<?x4xf32>
// CHECK-NOT: aten.
func.func @zeros_of_sizes(%x: tensor<?x?xf32>) -> tensor<?x4xf32> {
  %n = opal.none
  %c0 = arith.constant 0 : index
  %d = tensor.dim %x, %c0 : tensor<?x?xf32>
  %s = arith.index_cast %d : index to i64
  %c2 = arith.constant 2 : i64
  %t = arith.muli %s, %c2 : i64
  %c4 = arith.constant 4 : i64
  %size = opal.list %t, %c4 : i64, i64 -> !opal.list<i64>
  %r = aten.zeros %size, %n, %n, %n, %n : (!opal.list<i64>, !opal.none, !opal.none, !opal.none, !opal.none) -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}

// -----

// zeros of an int that may be negative: checked per call, with PyTorch's
// message
// CHECK-LABEL: func.func @zeros_of_ints
// CHECK: %[[NEG:.*]] = arith.cmpi slt, %arg0
// CHECK: %[[FIRST:.*]] = arith.select %[[NEG]], %arg0
// CHECK: %[[OK:.*]] = arith.cmpi eq, %[[FIRST]]
// CHECK: opal.assert %[[OK]], "Dimension size must be non-negative."
// CHECK: prims.full
func.func @zeros_of_ints(%a: i64) -> tensor<?x4xf32> {
  %n = opal.none
  %c4 = arith.constant 4 : i64
  %size = opal.list %a, %c4 : i64, i64 -> !opal.list<i64>
  %r = aten.zeros %size, %n, %n, %n, %n : (!opal.list<i64>, !opal.none, !opal.none, !opal.none, !opal.none) -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}

// -----

// ones_like with a dtype (float64 = 7)
// CHECK-LABEL: func.func @ones_like
// CHECK: prims.full {{.*}} : (!opal.list<i64>, i64, i64, !opal.device, i1) -> tensor<2x3xf64>
// CHECK-NOT: aten.
func.func @ones_like(%x: tensor<2x3xi64>) -> tensor<2x3xf64> {
  %n = opal.none
  %dt = arith.constant 7 : i64
  %r = aten.ones_like %x, %dt, %n, %n, %n, %n : (tensor<2x3xi64>, i64, !opal.none, !opal.none, !opal.none, !opal.none) -> tensor<2x3xf64>
  return %r : tensor<2x3xf64>
}

// -----

// full_like
// CHECK-LABEL: func.func @full_like
// CHECK: prims.full {{.*}} : (!opal.list<i64>, f64, i64, !opal.device, i1) -> tensor<2x3xf32>
// CHECK-NOT: aten.
func.func @full_like(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %n = opal.none
  %v = arith.constant 2.5 : f64
  %r = aten.full_like %x, %v, %n, %n, %n, %n, %n : (tensor<2x3xf32>, f64, !opal.none, !opal.none, !opal.none, !opal.none, !opal.none) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// layer_norm over the last dim, with weight and bias
// CHECK-LABEL: func.func @layer_norm
// CHECK: prims.sum {{.*}} : (tensor<?x8xf32>, !opal.list<i64>, !opal.none) -> tensor<?xf32>
// CHECK: prims.full {{.*}} : (!opal.list<i64>, i64, i64, !opal.device, i1) -> tensor<f32>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<f32>, !opal.list<i64>, !opal.list<i64>) -> tensor<?xf32>
// CHECK: prims.div {{.*}} : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<?xf32>, !opal.list<i64>, !opal.list<i64>) -> tensor<?x1xf32>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<?x1xf32>, !opal.list<i64>, !opal.list<i64>) -> tensor<?x8xf32>
// CHECK: prims.sub {{.*}} : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
// CHECK: prims.mul {{.*}} : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
// CHECK: prims.sum {{.*}} : (tensor<?x8xf32>, !opal.list<i64>, !opal.none) -> tensor<?xf32>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<f32>, !opal.list<i64>, !opal.list<i64>) -> tensor<?xf32>
// CHECK: prims.div {{.*}} : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
// CHECK: prims.full {{.*}} : (!opal.list<i64>, f64, i64, !opal.device, i1) -> tensor<f32>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<f32>, !opal.list<i64>, !opal.list<i64>) -> tensor<?xf32>
// CHECK: prims.add {{.*}} : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
// CHECK: prims.rsqrt {{.*}} : (tensor<?xf32>) -> tensor<?xf32>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<?xf32>, !opal.list<i64>, !opal.list<i64>) -> tensor<?x1xf32>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<?x1xf32>, !opal.list<i64>, !opal.list<i64>) -> tensor<?x8xf32>
// CHECK: prims.mul {{.*}} : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<8xf32>, !opal.list<i64>, !opal.list<i64>) -> tensor<?x8xf32>
// CHECK: prims.mul {{.*}} : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<8xf32>, !opal.list<i64>, !opal.list<i64>) -> tensor<?x8xf32>
// CHECK: prims.add {{.*}} : (tensor<?x8xf32>, tensor<?x8xf32>) -> tensor<?x8xf32>
// CHECK-NOT: aten.
func.func @layer_norm(%x: tensor<?x8xf32>, %w: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<?x8xf32> {
  %c8 = arith.constant 8 : i64
  %ns = opal.list %c8 : i64 -> !opal.list<i64>
  %eps = arith.constant 1.0e-5 : f64
  %t = arith.constant true
  %r = aten.layer_norm %x, %ns, %w, %b, %eps, %t : (tensor<?x8xf32>, !opal.list<i64>, tensor<8xf32>, tensor<8xf32>, f64, i1) -> tensor<?x8xf32>
  return %r : tensor<?x8xf32>
}

// -----

// squeeze.dim: removes a dim of size 1
// CHECK-LABEL: func.func @squeeze_dim
// CHECK: prims.squeeze {{.*}} : (tensor<2x1x?xf32>, !opal.list<i64>) -> tensor<2x?xf32>
// CHECK-NOT: aten.
func.func @squeeze_dim(%x: tensor<2x1x?xf32>) -> tensor<2x?xf32> {
  %d = arith.constant -2 : i64
  %r = aten.squeeze.dim %x, %d : (tensor<2x1x?xf32>, i64) -> tensor<2x?xf32>
  return %r : tensor<2x?xf32>
}

// -----

// squeeze.dim: a dim of another size stays
// CHECK-LABEL: func.func @squeeze_dim_kept
// CHECK: prims.squeeze {{.*}} : (tensor<2x3xf32>, !opal.list<i64>) -> tensor<2x3xf32>
// CHECK-NOT: aten.
func.func @squeeze_dim_kept(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %d = arith.constant 0 : i64
  %r = aten.squeeze.dim %x, %d : (tensor<2x3xf32>, i64) -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

// matmul of two vectors: a dot product (0-d)
// CHECK-LABEL: func.func @matmul_dot
// CHECK: prims.mul {{.*}} : (tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32>
// CHECK: prims.sum {{.*}} : (tensor<3xf32>, !opal.none, !opal.none) -> tensor<f32>
// CHECK-NOT: aten.
func.func @matmul_dot(%a: tensor<3xf32>) -> tensor<f32> {
  %r = aten.matmul %a, %a : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>
  return %r : tensor<f32>
}

// -----

// matmul vector @ matrix: unsqueeze, mm, squeeze
// CHECK-LABEL: func.func @matmul_vm
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<3xf32>, !opal.list<i64>, !opal.list<i64>) -> tensor<1x3xf32>
// CHECK: prims.mm {{.*}} : (tensor<1x3xf32>, tensor<3x4xf32>) -> tensor<1x4xf32>
// CHECK: prims.squeeze {{.*}} : (tensor<1x4xf32>, !opal.list<i64>) -> tensor<4xf32>
// CHECK-NOT: aten.
func.func @matmul_vm(%a: tensor<3xf32>, %b: tensor<3x4xf32>) -> tensor<4xf32> {
  %r = aten.matmul %a, %b : (tensor<3xf32>, tensor<3x4xf32>) -> tensor<4xf32>
  return %r : tensor<4xf32>
}

// -----

// matmul matrix @ vector
// CHECK-LABEL: func.func @matmul_mv
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<3xf32>, !opal.list<i64>, !opal.list<i64>) -> tensor<3x1xf32>
// CHECK: prims.mm {{.*}} : (tensor<5x3xf32>, tensor<3x1xf32>) -> tensor<5x1xf32>
// CHECK: prims.squeeze {{.*}} : (tensor<5x1xf32>, !opal.list<i64>) -> tensor<5xf32>
// CHECK-NOT: aten.
func.func @matmul_mv(%a: tensor<5x3xf32>, %b: tensor<3xf32>) -> tensor<5xf32> {
  %r = aten.matmul %a, %b : (tensor<5x3xf32>, tensor<3xf32>) -> tensor<5xf32>
  return %r : tensor<5xf32>
}

// -----

// matmul of matrices: mm
// CHECK-LABEL: func.func @matmul_mm
// CHECK: prims.mm {{.*}} : (tensor<5x3xf32>, tensor<3x4xf32>) -> tensor<5x4xf32>
// CHECK-NOT: aten.
func.func @matmul_mm(%a: tensor<5x3xf32>, %b: tensor<3x4xf32>) -> tensor<5x4xf32> {
  %r = aten.matmul %a, %b : (tensor<5x3xf32>, tensor<3x4xf32>) -> tensor<5x4xf32>
  return %r : tensor<5x4xf32>
}

// -----

// matmul 3-d @ 2-d: the matrix is broadcast along the (dynamic) batch, then bmm
// CHECK-LABEL: func.func @matmul_batched
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<3x4xf32>, !opal.list<i64>, !opal.list<i64>) -> tensor<?x3x4xf32>
// CHECK: prims.bmm {{.*}} : (tensor<?x5x3xf32>, tensor<?x3x4xf32>) -> tensor<?x5x4xf32>
// CHECK-NOT: aten.
func.func @matmul_batched(%a: tensor<?x5x3xf32>, %b: tensor<3x4xf32>) -> tensor<?x5x4xf32> {
  %r = aten.matmul %a, %b : (tensor<?x5x3xf32>, tensor<3x4xf32>) -> tensor<?x5x4xf32>
  return %r : tensor<?x5x4xf32>
}

// -----

// linear: input @ weight.t() + bias
// CHECK-LABEL: func.func @linear
// CHECK: prims.transpose {{.*}} : (tensor<4x3xf32>, !opal.list<i64>) -> tensor<3x4xf32>
// CHECK: prims.mm {{.*}} : (tensor<?x3xf32>, tensor<3x4xf32>) -> tensor<?x4xf32>
// CHECK: prims.broadcast_in_dim {{.*}} : (tensor<4xf32>, !opal.list<i64>, !opal.list<i64>) -> tensor<?x4xf32>
// CHECK: prims.add {{.*}} : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
// CHECK-NOT: aten.
func.func @linear(%x: tensor<?x3xf32>, %w: tensor<4x3xf32>, %b: tensor<4xf32>) -> tensor<?x4xf32> {
  %r = aten.linear %x, %w, %b : (tensor<?x3xf32>, tensor<4x3xf32>, tensor<4xf32>) -> tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}
