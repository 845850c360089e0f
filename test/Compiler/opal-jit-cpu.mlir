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

// A temporary (here one row's sum, shared by the row's divisions) comes from
// aligned_alloc: the pointer LLVM sees is the allocation itself, so it knows
// the temporary aliases no argument and adds no runtime alias checks (with
// malloc, the pointer was realigned through integers and LLVM lost track).
func.func @opal_kernel_rows(%x: tensor<?x?xf32> {llvm.noalias},
                            %out: memref<?x?xf32> {llvm.noalias}) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c0_i64 = arith.constant 0 : i64
  %c1_i64 = arith.constant 1 : i64
  %dims = opal.list %c1_i64 : i64 -> !opal.list<i64>
  %none = opal.none
  %s = prims.sum %x, %dims, %none : (tensor<?x?xf32>, !opal.list<i64>, !opal.none) -> tensor<?xf32>
  %d0 = tensor.dim %x, %c0 : tensor<?x?xf32>
  %r = arith.index_cast %d0 : index to i64
  %d1 = tensor.dim %x, %c1 : tensor<?x?xf32>
  %n = arith.index_cast %d1 : index to i64
  %shape = opal.list %r, %n : i64, i64 -> !opal.list<i64>
  %bdims = opal.list %c0_i64 : i64 -> !opal.list<i64>
  %b = prims.broadcast_in_dim %s, %shape, %bdims : (tensor<?xf32>, !opal.list<i64>, !opal.list<i64>) -> tensor<?x?xf32>
  %q = prims.div %x, %b : (tensor<?x?xf32>, tensor<?x?xf32>) -> tensor<?x?xf32>
  bufferization.materialize_in_destination %q in restrict writable %out
      : (tensor<?x?xf32>, memref<?x?xf32>) -> ()
  return
}

// CHECK-LABEL: llvm.func @opal_kernel_rows(
// CHECK-NOT: llvm.call @malloc
// CHECK: llvm.call @aligned_alloc
// CHECK: llvm.fadd
// CHECK: llvm.fdiv
// CHECK: llvm.call @free
