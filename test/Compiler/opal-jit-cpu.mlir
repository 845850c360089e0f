// The JIT's (and opal-aot's) passes after decomposition, as opal-opt's
// --opal-jit-cpu pipeline: a kernel split into entry points (what
// OPAL_DUMP_DIR writes as 2-entry-points.mlir) becomes LLVM-dialect
// functions that write into the runtime's output buffer.
// RUN: opal-opt --opal-jit-cpu %s | FileCheck %s

func.func @opal_kernel(%x: tensor<?xf32> {llvm.noalias}, %y: tensor<?xf32> {llvm.noalias},
                       %out: memref<?xf32> {llvm.noalias}) {
  %m = prims.mul %x, %y : (tensor<?xf32>, tensor<?xf32>) -> tensor<?xf32>
  %e = prims.exp %m : (tensor<?xf32>) -> tensor<?xf32>
  bufferization.materialize_in_destination %e in restrict writable %out
      : (tensor<?xf32>, memref<?xf32>) -> ()
  return
}

// One fused loop: the product and the (polynomial) exp, no temporary buffer.
// CHECK-LABEL: llvm.func @opal_kernel(
// CHECK-NOT: llvm.call @malloc
// CHECK: llvm.fmul
// CHECK-NOT: llvm.call @expf
// CHECK: llvm.intr.fma
// CHECK: llvm.store
// CHECK: llvm.return
