// RUN: opal-opt %s --opal-to-llvm | mlir-runner -e main -entry-point-result=void %mlir_runner_libs | FileCheck %s

// aten composites compiled for the CPU and run; the expected values are
// PyTorch 1.13's, printed to 6 significant digits.

func.func @softplus() {
  %x = arith.constant dense<[-2.0, 0.0, 0.5, 30.0]> : tensor<4xf32>
  %b = arith.constant 1.0 : f64
  %t = arith.constant 20.0 : f64
  %r = aten.softplus %x, %b, %t : (tensor<4xf32>, f64, f64) -> tensor<4xf32>
  %buf = bufferization.to_buffer %r : tensor<4xf32> to memref<4xf32>
  %u = memref.cast %buf : memref<4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @gelu_none() {
  %x = arith.constant dense<[-1.5, -0.25, 0.0, 0.75, 2.0]> : tensor<5xf32>
  %a = opal.str "none"
  %r = aten.gelu %x, %a : (tensor<5xf32>, !opal.str) -> tensor<5xf32>
  %buf = bufferization.to_buffer %r : tensor<5xf32> to memref<5xf32>
  %u = memref.cast %buf : memref<5xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @gelu_tanh() {
  %x = arith.constant dense<[-1.5, -0.25, 0.0, 0.75, 2.0]> : tensor<5xf32>
  %a = opal.str "tanh"
  %r = aten.gelu %x, %a : (tensor<5xf32>, !opal.str) -> tensor<5xf32>
  %buf = bufferization.to_buffer %r : tensor<5xf32> to memref<5xf32>
  %u = memref.cast %buf : memref<5xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @softmax() {
  %x = arith.constant dense<[1.0, 2.0, 3.0, -1.0]> : tensor<4xf32>
  %d = arith.constant 0 : i64
  %n = opal.none
  %r = aten.softmax.int %x, %d, %n : (tensor<4xf32>, i64, !opal.none) -> tensor<4xf32>
  %buf = bufferization.to_buffer %r : tensor<4xf32> to memref<4xf32>
  %u = memref.cast %buf : memref<4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @add_broadcast_promote() {
  %x = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %y = arith.constant dense<[10, 20, 30]> : tensor<3xi32>
  %alpha = arith.constant 2 : i64
  %s = aten.add.Tensor %x, %y, %alpha : (tensor<2x3xf32>, tensor<3xi32>, i64) -> tensor<2x3xf32>
  %c0 = arith.constant 0 : i64
  %dims = opal.list %c0 : i64 -> !opal.list<i64>
  %false = arith.constant false
  %none = opal.none
  %r = aten.sum.dim_IntList %s, %dims, %false, %none : (tensor<2x3xf32>, !opal.list<i64>, i1, !opal.none) -> tensor<3xf32>
  %buf = bufferization.to_buffer %r : tensor<3xf32> to memref<3xf32>
  %u = memref.cast %buf : memref<3xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @layer_norm() {
  %x = arith.constant dense<[[1.0, 2.0, 4.0, 7.0]]> : tensor<1x4xf32>
  %w = arith.constant dense<[1.0, 0.5, 2.0, -1.0]> : tensor<4xf32>
  %b = arith.constant dense<[0.0, 1.0, 0.0, 0.5]> : tensor<4xf32>
  %c4 = arith.constant 4 : i64
  %ns = opal.list %c4 : i64 -> !opal.list<i64>
  %eps = arith.constant 1.0e-5 : f64
  %t = arith.constant true
  %y = aten.layer_norm %x, %ns, %w, %b, %eps, %t : (tensor<1x4xf32>, !opal.list<i64>, tensor<4xf32>, tensor<4xf32>, f64, i1) -> tensor<1x4xf32>
  %c0 = arith.constant 0 : i64
  %r = aten.squeeze.dim %y, %c0 : (tensor<1x4xf32>, i64) -> tensor<4xf32>
  %buf = bufferization.to_buffer %r : tensor<4xf32> to memref<4xf32>
  %u = memref.cast %buf : memref<4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @matmul_mv() {
  %m = arith.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]> : tensor<3x2xf32>
  %v = arith.constant dense<[0.5, -1.0]> : tensor<2xf32>
  %r = aten.matmul %m, %v : (tensor<3x2xf32>, tensor<2xf32>) -> tensor<3xf32>
  %buf = bufferization.to_buffer %r : tensor<3xf32> to memref<3xf32>
  %u = memref.cast %buf : memref<3xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
func.func @main() {
  // softplus: log1p(exp(x)) below the threshold, x above
  // CHECK: [0.126928,  0.693147,  0.974077,  30]
  call @softplus() : () -> ()
  // gelu, approximate=none (erf)
  // (0.75 gives 0.5800295 exactly; PyTorch's vectorized erf prints 0.58003)
  // CHECK: [-0.100211,  -0.100323,  0,  {{0\.58003|0\.580029}},  1.9545]
  call @gelu_none() : () -> ()
  // gelu, approximate=tanh
  // CHECK: [-0.100428,  -0.100325,  0,  0.579961,  1.9546]
  call @gelu_tanh() : () -> ()
  // softmax over the only dim
  // CHECK: [0.0889468,  0.241783,  0.657233,  0.0120376]
  call @softmax() : () -> ()
  // add.Tensor: float [2,3] + alpha * int32 [3], then summed over dim 0
  // CHECK: [45,  87,  129]
  call @add_broadcast_promote() : () -> ()
  // layer_norm with weight and bias, then the row taken with squeeze
  // CHECK: [-1.09109,  0.672673,  0.436435,  -1.02752]
  call @layer_norm() : () -> ()
  // matmul of a matrix and a vector
  // CHECK: [-1.5,  -2.5,  -3.5]
  call @matmul_mv() : () -> ()
  return
}

func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}
