// Refused options name the option and what was expected.
// RUN: not opal-opt %s --opal-jit-cuda="chip=volta" 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not opal-opt %s --opal-jit-cuda="chip=sm_90 format=cubin" 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not opal-opt %s --opal-jit-cuda="block-size=100" 2>&1 | FileCheck %s --check-prefix=BLOCK
// RUN: mkdir -p %t/bin %t/nvvm/libdevice && touch %t/nvvm/libdevice/libdevice.10.bc
// RUN: not opal-opt %s --opal-jit-cuda="chip=sm_90 toolkit=%t" 2>&1 | FileCheck %s --check-prefix=PTXAS -DTOOLKIT=%t
// RUN: not opal-opt %s --opal-jit-cuda="chip=sm_90 format=isa toolkit=/nonexistent" 2>&1 | FileCheck %s --check-prefix=TOOLKIT

// CHIP: error: opal-jit-cuda: chip must be sm_<capability> (sm_80, sm_90a), got 'volta'
// FORMAT: error: opal-jit-cuda: format must be isa, bin, fatbin or llvm, got 'cubin'
// BLOCK: error: opal-jit-cuda: block-size must be a multiple of 32 in [32, 1024], got 100
// PTXAS: error: opal-jit-cuda: format=bin needs ptxas, and there is none at [[TOOLKIT]]/bin/ptxas (format=isa gives PTX for the driver to compile)
// TOOLKIT: error: opal-jit-cuda: no libdevice at /nonexistent/nvvm/libdevice/libdevice.10.bc (set toolkit= or CUDA_HOME to a CUDA toolkit)

func.func @opal_kernel(%x: tensor<?xf32> {llvm.noalias}, %out: memref<?xf32> {llvm.noalias}) {
  %e = prims.exp %x : (tensor<?xf32>) -> tensor<?xf32>
  bufferization.materialize_in_destination %e in restrict writable %out
      : (tensor<?xf32>, memref<?xf32>) -> ()
  return
}
