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

func.func @exp() {
  %x = arith.constant dense<[0.25, 0.5, 1.5, 3.0]> : tensor<4xf32>
  %r = aten.exp %x : (tensor<4xf32>) -> tensor<4xf32>
  %buf = bufferization.to_buffer %r : tensor<4xf32> to memref<4xf32>
  %u = memref.cast %buf : memref<4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @log() {
  %x = arith.constant dense<[0.25, 0.5, 1.5, 3.0]> : tensor<4xf32>
  %r = aten.log %x : (tensor<4xf32>) -> tensor<4xf32>
  %buf = bufferization.to_buffer %r : tensor<4xf32> to memref<4xf32>
  %u = memref.cast %buf : memref<4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @log1p() {
  %x = arith.constant dense<[0.25, 0.5, 1.5, 3.0]> : tensor<4xf32>
  %r = aten.log1p %x : (tensor<4xf32>) -> tensor<4xf32>
  %buf = bufferization.to_buffer %r : tensor<4xf32> to memref<4xf32>
  %u = memref.cast %buf : memref<4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @sqrt() {
  %x = arith.constant dense<[0.25, 0.5, 1.5, 3.0]> : tensor<4xf32>
  %r = aten.sqrt %x : (tensor<4xf32>) -> tensor<4xf32>
  %buf = bufferization.to_buffer %r : tensor<4xf32> to memref<4xf32>
  %u = memref.cast %buf : memref<4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @rsqrt() {
  %x = arith.constant dense<[0.25, 0.5, 1.5, 3.0]> : tensor<4xf32>
  %r = aten.rsqrt %x : (tensor<4xf32>) -> tensor<4xf32>
  %buf = bufferization.to_buffer %r : tensor<4xf32> to memref<4xf32>
  %u = memref.cast %buf : memref<4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @sin() {
  %x = arith.constant dense<[0.25, 0.5, 1.5, 3.0]> : tensor<4xf32>
  %r = aten.sin %x : (tensor<4xf32>) -> tensor<4xf32>
  %buf = bufferization.to_buffer %r : tensor<4xf32> to memref<4xf32>
  %u = memref.cast %buf : memref<4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @cos() {
  %x = arith.constant dense<[0.25, 0.5, 1.5, 3.0]> : tensor<4xf32>
  %r = aten.cos %x : (tensor<4xf32>) -> tensor<4xf32>
  %buf = bufferization.to_buffer %r : tensor<4xf32> to memref<4xf32>
  %u = memref.cast %buf : memref<4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @tanh() {
  %x = arith.constant dense<[0.25, 0.5, 1.5, 3.0]> : tensor<4xf32>
  %r = aten.tanh %x : (tensor<4xf32>) -> tensor<4xf32>
  %buf = bufferization.to_buffer %r : tensor<4xf32> to memref<4xf32>
  %u = memref.cast %buf : memref<4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @erf() {
  %x = arith.constant dense<[0.25, 0.5, 1.5, 3.0]> : tensor<4xf32>
  %r = aten.erf %x : (tensor<4xf32>) -> tensor<4xf32>
  %buf = bufferization.to_buffer %r : tensor<4xf32> to memref<4xf32>
  %u = memref.cast %buf : memref<4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @sigmoid() {
  %x = arith.constant dense<[0.25, 0.5, 1.5, 3.0]> : tensor<4xf32>
  %r = aten.sigmoid %x : (tensor<4xf32>) -> tensor<4xf32>
  %buf = bufferization.to_buffer %r : tensor<4xf32> to memref<4xf32>
  %u = memref.cast %buf : memref<4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @silu() {
  %x = arith.constant dense<[0.25, 0.5, 1.5, 3.0]> : tensor<4xf32>
  %r = aten.silu %x : (tensor<4xf32>) -> tensor<4xf32>
  %buf = bufferization.to_buffer %r : tensor<4xf32> to memref<4xf32>
  %u = memref.cast %buf : memref<4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @reciprocal() {
  %x = arith.constant dense<[0.25, 0.5, 1.5, 3.0]> : tensor<4xf32>
  %r = aten.reciprocal %x : (tensor<4xf32>) -> tensor<4xf32>
  %buf = bufferization.to_buffer %r : tensor<4xf32> to memref<4xf32>
  %u = memref.cast %buf : memref<4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @relu() {
  %x = arith.constant dense<[-3.0, -0.5, 0.5, 3.0]> : tensor<4xf32>
  %r = aten.relu %x : (tensor<4xf32>) -> tensor<4xf32>
  %buf = bufferization.to_buffer %r : tensor<4xf32> to memref<4xf32>
  %u = memref.cast %buf : memref<4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @leaky_relu() {
  %x = arith.constant dense<[-3.0, -0.5, 0.5, 3.0]> : tensor<4xf32>
  %s = arith.constant 0.1 : f64
  %r = aten.leaky_relu %x, %s : (tensor<4xf32>, f64) -> tensor<4xf32>
  %buf = bufferization.to_buffer %r : tensor<4xf32> to memref<4xf32>
  %u = memref.cast %buf : memref<4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @clamp() {
  %x = arith.constant dense<[-3.0, -0.5, 0.5, 3.0]> : tensor<4xf32>
  %lo = arith.constant -1 : i64
  %hi = arith.constant 2.0 : f64
  %r = aten.clamp %x, %lo, %hi : (tensor<4xf32>, i64, f64) -> tensor<4xf32>
  %buf = bufferization.to_buffer %r : tensor<4xf32> to memref<4xf32>
  %u = memref.cast %buf : memref<4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @div_int() {
  %x = arith.constant dense<[7, -7, 1, 0]> : tensor<4xi64>
  %y = arith.constant dense<[2, 2, 3, 5]> : tensor<4xi64>
  %r = aten.div.Tensor %x, %y : (tensor<4xi64>, tensor<4xi64>) -> tensor<4xf32>
  %buf = bufferization.to_buffer %r : tensor<4xf32> to memref<4xf32>
  %u = memref.cast %buf : memref<4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @pow_scalar() {
  %x = arith.constant dense<[0.25, 0.5, 1.5, 3.0]> : tensor<4xf32>
  %e = arith.constant 1.5 : f64
  %r = aten.pow.Tensor_Scalar %x, %e : (tensor<4xf32>, f64) -> tensor<4xf32>
  %buf = bufferization.to_buffer %r : tensor<4xf32> to memref<4xf32>
  %u = memref.cast %buf : memref<4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @log_softmax() {
  %x = arith.constant dense<[-3.0, -0.5, 0.5, 3.0]> : tensor<4xf32>
  %d = arith.constant -1 : i64
  %n = opal.none
  %r = aten.log_softmax.int %x, %d, %n : (tensor<4xf32>, i64, !opal.none) -> tensor<4xf32>
  %buf = bufferization.to_buffer %r : tensor<4xf32> to memref<4xf32>
  %u = memref.cast %buf : memref<4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @mean_keepdim_amax() {
  %x = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %c1 = arith.constant 1 : i64
  %dims = opal.list %c1 : i64 -> !opal.list<i64>
  %t = arith.constant true
  %n = opal.none
  %mean = aten.mean.dim %x, %dims, %t, %n : (tensor<2x3xf32>, !opal.list<i64>, i1, !opal.none) -> tensor<2x1xf32>
  %max = aten.amax %x, %dims, %t : (tensor<2x3xf32>, !opal.list<i64>, i1) -> tensor<2x1xf32>
  %one = arith.constant 1 : i64
  %d = aten.sub.Tensor %mean, %max, %one : (tensor<2x1xf32>, tensor<2x1xf32>, i64) -> tensor<2x1xf32>
  %r = aten.squeeze.dim %d, %c1 : (tensor<2x1xf32>, i64) -> tensor<2xf32>
  %buf = bufferization.to_buffer %r : tensor<2xf32> to memref<2xf32>
  %u = memref.cast %buf : memref<2xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @where_lt() {
  %x = arith.constant dense<[-3.0, -0.5, 0.5, 3.0]> : tensor<4xf32>
  %c0 = arith.constant 0 : i64
  %c = aten.lt.Scalar %x, %c0 : (tensor<4xf32>, i64) -> tensor<4xi1>
  %neg = aten.neg %x : (tensor<4xf32>) -> tensor<4xf32>
  %c2 = arith.constant 2 : i64
  %dbl = aten.mul.Scalar %x, %c2 : (tensor<4xf32>, i64) -> tensor<4xf32>
  %r = aten.where.self %c, %neg, %dbl : (tensor<4xi1>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  %buf = bufferization.to_buffer %r : tensor<4xf32> to memref<4xf32>
  %u = memref.cast %buf : memref<4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @mm_t() {
  %a = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %b = arith.constant dense<[[0.5, -1.0], [2.0, 1.0]]> : tensor<2x2xf32>
  %bt = aten.t %b : (tensor<2x2xf32>) -> tensor<2x2xf32>
  %y = aten.mm %a, %bt : (tensor<2x2xf32>, tensor<2x2xf32>) -> tensor<2x2xf32>
  %cm1 = arith.constant -1 : i64
  %flat_shape = opal.list %cm1 : i64 -> !opal.list<i64>
  %r = aten.reshape %y, %flat_shape : (tensor<2x2xf32>, !opal.list<i64>) -> tensor<4xf32>
  %buf = bufferization.to_buffer %r : tensor<4xf32> to memref<4xf32>
  %u = memref.cast %buf : memref<4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @bmm_expand() {
  %a = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %b = arith.constant dense<[[0.5, -1.0], [2.0, 1.0]]> : tensor<2x2xf32>
  %c2 = arith.constant 2 : i64
  %cm = arith.constant -1 : i64
  %sz = opal.list %c2, %cm, %cm : i64, i64, i64 -> !opal.list<i64>
  %f = arith.constant false
  %c0 = arith.constant 0 : i64
  %au = aten.unsqueeze %a, %c0 : (tensor<2x2xf32>, i64) -> tensor<1x2x2xf32>
  %ae = aten.expand %au, %sz, %f : (tensor<1x2x2xf32>, !opal.list<i64>, i1) -> tensor<2x2x2xf32>
  %bu = aten.unsqueeze %b, %c0 : (tensor<2x2xf32>, i64) -> tensor<1x2x2xf32>
  %be = aten.expand %bu, %sz, %f : (tensor<1x2x2xf32>, !opal.list<i64>, i1) -> tensor<2x2x2xf32>
  %c1 = arith.constant 1 : i64
  %c2b = arith.constant 2 : i64
  %perm = opal.list %c0, %c2b, %c1 : i64, i64, i64 -> !opal.list<i64>
  %bp = aten.permute %be, %perm : (tensor<2x2x2xf32>, !opal.list<i64>) -> tensor<2x2x2xf32>
  %y = aten.bmm %ae, %bp : (tensor<2x2x2xf32>, tensor<2x2x2xf32>) -> tensor<2x2x2xf32>
  %cm1 = arith.constant -1 : i64
  %flat_shape = opal.list %cm1 : i64 -> !opal.list<i64>
  %r = aten.reshape %y, %flat_shape : (tensor<2x2x2xf32>, !opal.list<i64>) -> tensor<8xf32>
  %buf = bufferization.to_buffer %r : tensor<8xf32> to memref<8xf32>
  %u = memref.cast %buf : memref<8xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @softmax_dim0() {
  %a = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %b = arith.constant dense<[[0.5, -1.0], [2.0, 1.0]]> : tensor<2x2xf32>
  %c0 = arith.constant 0 : i64
  %n = opal.none
  %y = aten.softmax.int %a, %c0, %n : (tensor<2x2xf32>, i64, !opal.none) -> tensor<2x2xf32>
  %cm1 = arith.constant -1 : i64
  %flat_shape = opal.list %cm1 : i64 -> !opal.list<i64>
  %r = aten.reshape %y, %flat_shape : (tensor<2x2xf32>, !opal.list<i64>) -> tensor<4xf32>
  %buf = bufferization.to_buffer %r : tensor<4xf32> to memref<4xf32>
  %u = memref.cast %buf : memref<4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @like() {
  %a = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %b = arith.constant dense<[[0.5, -1.0], [2.0, 1.0]]> : tensor<2x2xf32>
  %n = opal.none
  %h = arith.constant 0.5 : f64
  %full = aten.full_like %a, %h, %n, %n, %n, %n, %n : (tensor<2x2xf32>, f64, !opal.none, !opal.none, !opal.none, !opal.none, !opal.none) -> tensor<2x2xf32>
  %ones = aten.ones_like %a, %n, %n, %n, %n, %n : (tensor<2x2xf32>, !opal.none, !opal.none, !opal.none, !opal.none, !opal.none) -> tensor<2x2xf32>
  %zeros = aten.zeros_like %a, %n, %n, %n, %n, %n : (tensor<2x2xf32>, !opal.none, !opal.none, !opal.none, !opal.none, !opal.none) -> tensor<2x2xf32>
  %c1 = arith.constant 1 : i64
  %s = aten.add.Tensor %full, %ones, %c1 : (tensor<2x2xf32>, tensor<2x2xf32>, i64) -> tensor<2x2xf32>
  %y = aten.sub.Tensor %s, %zeros, %c1 : (tensor<2x2xf32>, tensor<2x2xf32>, i64) -> tensor<2x2xf32>
  %cm1 = arith.constant -1 : i64
  %flat_shape = opal.list %cm1 : i64 -> !opal.list<i64>
  %r = aten.reshape %y, %flat_shape : (tensor<2x2xf32>, !opal.list<i64>) -> tensor<4xf32>
  %buf = bufferization.to_buffer %r : tensor<4xf32> to memref<4xf32>
  %u = memref.cast %buf : memref<4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}

func.func @linear_bias() {
  %a = arith.constant dense<[[1.0, 2.0], [3.0, 4.0]]> : tensor<2x2xf32>
  %b = arith.constant dense<[[0.5, -1.0], [2.0, 1.0]]> : tensor<2x2xf32>
  %bias = arith.constant dense<[0.25, -0.25]> : tensor<2xf32>
  %y = aten.linear %a, %b, %bias : (tensor<2x2xf32>, tensor<2x2xf32>, tensor<2xf32>) -> tensor<2x2xf32>
  %cm1 = arith.constant -1 : i64
  %flat_shape = opal.list %cm1 : i64 -> !opal.list<i64>
  %r = aten.reshape %y, %flat_shape : (tensor<2x2xf32>, !opal.list<i64>) -> tensor<4xf32>
  %buf = bufferization.to_buffer %r : tensor<4xf32> to memref<4xf32>
  %u = memref.cast %buf : memref<4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
func.func @main() {
  // softplus: log1p(exp(x)) below the threshold, x above
  // CHECK: [0.126928,  0.693147,  0.974077,  30]
  call @softplus() : () -> ()
  // gelu, approximate=none (erf)
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
  // exp
  // CHECK: [1.28403,  1.64872,  4.48169,  20.0855]
  call @exp() : () -> ()
  // log
  // CHECK: [-1.38629,  -0.693147,  0.405465,  1.09861]
  call @log() : () -> ()
  // log1p
  // CHECK: [0.223144,  0.405465,  0.916291,  1.38629]
  call @log1p() : () -> ()
  // sqrt
  // CHECK: [0.5,  0.707107,  1.22474,  1.73205]
  call @sqrt() : () -> ()
  // rsqrt
  // CHECK: [2,  1.41421,  0.816497,  0.57735]
  call @rsqrt() : () -> ()
  // sin
  // CHECK: [0.247404,  0.479426,  0.997495,  0.14112]
  call @sin() : () -> ()
  // cos
  // CHECK: [0.968912,  0.877583,  0.0707372,  -0.989992]
  call @cos() : () -> ()
  // tanh
  // CHECK: [0.244919,  0.462117,  0.905148,  0.995055]
  call @tanh() : () -> ()
  // erf
  // CHECK: [0.276326,  0.5205,  0.966105,  0.999978]
  call @erf() : () -> ()
  // sigmoid
  // CHECK: [0.562177,  0.622459,  0.817574,  0.952574]
  call @sigmoid() : () -> ()
  // silu
  // CHECK: [0.140544,  0.31123,  1.22636,  2.85772]
  call @silu() : () -> ()
  // reciprocal
  // CHECK: [4,  2,  0.666667,  0.333333]
  call @reciprocal() : () -> ()
  // relu
  // CHECK: [0,  0,  0.5,  3]
  call @relu() : () -> ()
  // leaky_relu, slope 0.1
  // CHECK: [-0.3,  -0.05,  0.5,  3]
  call @leaky_relu() : () -> ()
  // clamp to [-1, 2] with an int and a float bound
  // CHECK: [-1,  -0.5,  0.5,  2]
  call @clamp() : () -> ()
  // div.Tensor of int64 tensors is true division in float32
  // CHECK: [3.5,  -3.5,  0.333333,  0]
  call @div_int() : () -> ()
  // pow.Tensor_Scalar
  // CHECK: [0.125,  0.353553,  1.83712,  5.19615]
  call @pow_scalar() : () -> ()
  // log_softmax
  // CHECK: [-6.10864,  -3.60864,  -2.60864,  -0.10864]
  call @log_softmax() : () -> ()
  // mean over dim 1 (keepdim) minus amax over dim 1, then squeezed
  // CHECK: [-1,  -1]
  call @mean_keepdim_amax() : () -> ()
  // where(x < 0, -x, 2 * x)
  // CHECK: [3,  0.5,  1,  6]
  call @where_lt() : () -> ()
  // mm(a, t(b)), flattened with reshape(-1)
  // CHECK: [-1.5,  4,  -2.5,  10]
  call @mm_t() : () -> ()
  // bmm of a expanded to a batch of 2 with a stacked pair
  // CHECK: [-1.5,  4,  -2.5,  10,  -1.5,  4,  -2.5,  10]
  call @bmm_expand() : () -> ()
  // softmax over dim 0 of a matrix
  // CHECK: [0.119203,  0.119203,  0.880797,  0.880797]
  call @softmax_dim0() : () -> ()
  // full_like(a, 0.5) + ones_like(a) - zeros_like(a)
  // CHECK: [1.5,  1.5,  1.5,  1.5]
  call @like() : () -> ()
  // linear with bias, then view(-1)
  // CHECK: [-1.25,  3.75,  -2.25,  9.75]
  call @linear_bias() : () -> ()
  return
}

func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}
