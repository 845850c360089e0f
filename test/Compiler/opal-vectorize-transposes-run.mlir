// RUN: opal-opt %s --pass-pipeline="builtin.module(func.func(opal-vectorize-transposes),convert-linalg-to-loops,lower-affine,convert-scf-to-cf,convert-vector-to-llvm,expand-strided-metadata,lower-affine,finalize-memref-to-llvm,convert-arith-to-llvm,convert-cf-to-llvm,convert-func-to-llvm,reconcile-unrealized-casts)" | mlir-runner -e main -entry-point-result=void %mlir_runner_libs | FileCheck %s

// opal-vectorize-transposes run: 19 x 3 x 11 made 11 x 3 x 19 (per j, two
// tiles of 8 x 8 and both edges), compared element by element with loops
// that read and write one element at a time. The mismatches are counted.

// CHECK: mismatches
// CHECK-NEXT: 0
// CHECK: corner
// CHECK-NEXT: 180210

func.func private @printString(!llvm.ptr) -> ()
llvm.mlir.global internal constant @mismatches("mismatches\0A\00")
llvm.mlir.global internal constant @corner("corner\0A\00")

func.func @main() {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c3 = arith.constant 3 : index
  %c10 = arith.constant 10 : index
  %c11 = arith.constant 11 : index
  %c18 = arith.constant 18 : index
  %c19 = arith.constant 19 : index
  %x = memref.alloc(%c19, %c3, %c11) : memref<?x?x?xf32>
  %y = memref.alloc(%c11, %c3, %c19) : memref<?x?x?xf32>
  %ref = memref.alloc(%c11, %c3, %c19) : memref<?x?x?xf32>
  // x[i, j, k] = 10000 i + 100 j + k
  scf.for %i = %c0 to %c19 step %c1 {
    scf.for %j = %c0 to %c3 step %c1 {
      scf.for %k = %c0 to %c11 step %c1 {
        %i1 = arith.index_cast %i : index to i64
        %j1 = arith.index_cast %j : index to i64
        %k1 = arith.index_cast %k : index to i64
        %h = arith.constant 10000 : i64
        %t = arith.constant 100 : i64
        %v0 = arith.muli %i1, %h : i64
        %v1 = arith.muli %j1, %t : i64
        %v2 = arith.addi %v0, %v1 : i64
        %v3 = arith.addi %v2, %k1 : i64
        %f = arith.sitofp %v3 : i64 to f32
        memref.store %f, %x[%i, %j, %k] : memref<?x?x?xf32>
      }
    }
  }
  // y[k, j, i] = x[i, j, k]: the source is dense along k, the destination
  // along i.
  linalg.transpose ins(%x : memref<?x?x?xf32>) outs(%y : memref<?x?x?xf32>) permutation = [2, 1, 0]
  scf.for %i = %c0 to %c19 step %c1 {
    scf.for %j = %c0 to %c3 step %c1 {
      scf.for %k = %c0 to %c11 step %c1 {
        %v = memref.load %x[%i, %j, %k] : memref<?x?x?xf32>
        memref.store %v, %ref[%k, %j, %i] : memref<?x?x?xf32>
      }
    }
  }
  %zero = arith.constant 0 : i64
  %one = arith.constant 1 : i64
  %count = scf.for %k = %c0 to %c11 step %c1 iter_args(%n0 = %zero) -> (i64) {
    %n1 = scf.for %j = %c0 to %c3 step %c1 iter_args(%m0 = %n0) -> (i64) {
      %n2 = scf.for %i = %c0 to %c19 step %c1 iter_args(%l0 = %m0) -> (i64) {
        %a = memref.load %y[%k, %j, %i] : memref<?x?x?xf32>
        %b = memref.load %ref[%k, %j, %i] : memref<?x?x?xf32>
        %ne = arith.cmpf une, %a, %b : f32
        %add = arith.extui %ne : i1 to i64
        %l1 = arith.addi %l0, %add : i64
        scf.yield %l1 : i64
      }
      scf.yield %n2 : i64
    }
    scf.yield %n1 : i64
  }
  %s = llvm.mlir.addressof @mismatches : !llvm.ptr
  call @printString(%s) : (!llvm.ptr) -> ()
  vector.print %count : i64
  // y[10, 2, 18] = x[18, 2, 10] = 180210
  %corner = memref.load %y[%c10, %c2, %c18] : memref<?x?x?xf32>
  %ci = arith.fptosi %corner : f32 to i64
  %s2 = llvm.mlir.addressof @corner : !llvm.ptr
  call @printString(%s2) : (!llvm.ptr) -> ()
  vector.print %ci : i64
  return
}
