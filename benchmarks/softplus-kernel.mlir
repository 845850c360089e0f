// A small kernel for timing the compile path: opal-opt FILE --opal-to-llvm.
func.func @main() {
  %x = arith.constant dense<[-2.0, 0.0, 0.5, 30.0]> : tensor<4xf32>
  %b = arith.constant 1.0 : f64
  %t = arith.constant 20.0 : f64
  %r = aten.softplus %x, %b, %t : (tensor<4xf32>, f64, f64) -> tensor<4xf32>
  %m = bufferization.to_buffer %r : tensor<4xf32> to memref<4xf32>
  %u = memref.cast %m : memref<4xf32> to memref<*xf32>
  call @printMemrefF32(%u) : (memref<*xf32>) -> ()
  return
}
func.func private @printMemrefF32(memref<*xf32>) attributes {llvm.emit_c_interface}
