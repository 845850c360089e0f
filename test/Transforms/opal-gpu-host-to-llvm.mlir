// RUN: opal-opt %s --split-input-file --opal-gpu-host-to-llvm --verify-diagnostics | FileCheck %s

// Launches become calls into opal's CUDA runtime with the kernel's index in
// opal.gpu_kernels (in order of first launch), the grid and block sizes as
// i64, and the address of an array of pointers to the parameters, memref
// descriptors exploded as the kernel's signature has them. Temporaries come
// from the caching allocator. The gpu.binary stays.
// CHECK: module attributes {gpu.container_module, opal.gpu_kernels = ["scale", "copy"]}
// CHECK-DAG: llvm.func @opal_cuda_launch(!llvm.ptr, i32, i64, i64, i64, i64, i64, i64, i32, !llvm.ptr)
// CHECK-DAG: llvm.func @opal_cuda_alloc(i64) -> !llvm.ptr
// CHECK-DAG: llvm.func @opal_cuda_free(!llvm.ptr)
// CHECK-DAG: llvm.mlir.global external @opal_gpu_module() {{.*}} : !llvm.ptr
// CHECK-LABEL: llvm.func @host(
// CHECK: %[[BYTES:.*]] = llvm.ptrtoint
// CHECK: llvm.call @opal_cuda_alloc(%[[BYTES]]) : (i64) -> !llvm.ptr
// One f32 scalar and two 1-D descriptors (5 fields each): 11 parameters.
// CHECK: %[[STORAGE:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(f32, ptr, ptr, i64, i64, i64, ptr, ptr, i64, i64, i64)>
// CHECK: %[[N:.*]] = llvm.mlir.constant(11 : i64) : i64
// CHECK: %[[PARAMS:.*]] = llvm.alloca %[[N]] x !llvm.ptr
// CHECK: llvm.store %{{.*}}, %{{.*}} : f32, !llvm.ptr
// CHECK: %[[GLOBAL:.*]] = llvm.mlir.addressof @opal_gpu_module : !llvm.ptr
// CHECK: %[[MODULE:.*]] = llvm.load %[[GLOBAL]] : !llvm.ptr -> !llvm.ptr
// CHECK: %[[SHARED:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK: %[[ZERO:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK: llvm.call @opal_cuda_launch(%[[MODULE]], %[[ZERO]], %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[SHARED]], %[[PARAMS]])
// CHECK: %[[ONE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK: llvm.call @opal_cuda_launch(%{{.*}}, %[[ONE]],
// CHECK: %[[ALLOCATED:.*]] = llvm.extractvalue %[[DESCRIPTOR:.*]][0]
// CHECK-NEXT: llvm.call @opal_cuda_free(%[[ALLOCATED]]) : (!llvm.ptr) -> ()
// CHECK: gpu.binary @kernels
module attributes {gpu.container_module} {
  func.func @host(%x: memref<?xf32>, %out: memref<?xf32>, %n: index, %s: f32) {
    %c1 = arith.constant 1 : index
    %c256 = arith.constant 256 : index
    %grid = arith.ceildivui %n, %c256 : index
    %tmp = gpu.alloc (%n) : memref<?xf32>
    gpu.launch_func @kernels::@scale blocks in (%grid, %c1, %c1) threads in (%c256, %c1, %c1)
        args(%s : f32, %x : memref<?xf32>, %tmp : memref<?xf32>)
    gpu.launch_func @kernels::@copy blocks in (%grid, %c1, %c1) threads in (%c256, %c1, %c1)
        args(%tmp : memref<?xf32>, %out : memref<?xf32>)
    gpu.dealloc %tmp : memref<?xf32>
    return
  }
  gpu.binary @kernels [#gpu.object<#nvvm.target, "BLOB">]
}

// -----

module attributes {gpu.container_module} {
  func.func @async(%n: index) {
    %c1 = arith.constant 1 : index
    %t = gpu.wait async
    // expected-error @+1 {{opal-gpu-host-to-llvm: asynchronous launches are not supported: opal orders work on the device's current stream}}
    %done = gpu.launch_func async [%t] @kernels::@k blocks in (%n, %c1, %c1) threads in (%c1, %c1, %c1)
    return
  }
  gpu.binary @kernels [#gpu.object<#nvvm.target, "BLOB">]
}

// -----

module attributes {gpu.container_module} {
  func.func @shared(%n: index) {
    // expected-error @+1 {{opal-gpu-host-to-llvm: only synchronous device allocations are supported}}
    %m = gpu.alloc host_shared (%n) : memref<?xf32>
    return
  }
  gpu.binary @kernels [#gpu.object<#nvvm.target, "BLOB">]
}

// -----

module attributes {gpu.container_module} {
  gpu.binary @kernels [#gpu.object<#nvvm.target, "BLOB">]
  // expected-error @+1 {{opal-gpu-host-to-llvm: expected one gpu.binary (run opal-merge-gpu-modules before outlining to binaries), found 2}}
  gpu.binary @more [#gpu.object<#nvvm.target, "BLOB">]
}

// -----

module attributes {gpu.container_module} {
  // expected-error @+1 {{opal-gpu-host-to-llvm: run gpu-module-to-binary first: this gpu.module is not compiled to a gpu.binary}}
  gpu.module @kernels {
    gpu.func @k() kernel { gpu.return }
  }
}
