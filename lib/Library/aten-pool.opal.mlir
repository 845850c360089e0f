// The aten library, continued: max and average pooling of [N,] C, spatial...
// planes over 2 and 3 spatial dims, and adaptive average pooling over 3 (2:
// aten-nn.opal.mlir). Each op checks its arguments as PyTorch 2 does, in
// its order and words: the lengths of the int lists (one entry repeats),
// each spatial dim's stride and padding, then the input's sizes (simple
// comparisons before the kernel, those that need arithmetic as data checks
// after it); the dtypes are those of PyTorch's CPU kernels. They are
// prims.max_pool, prims.avg_pool and prims.adaptive_avg_pool (see
// lib/Transforms/PoolingToLinalg.cpp); max_pool2d/3d and adaptive_avg_pool3d
// are CompositeImplicit, as in PyTorch. Written by
// scripts/generate-pool-library.py: edit that script and run it, not this
// file.
opal.library "aten" {
  opal.def "max_pool2d_with_indices(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, int[2] dilation=1, bool ceil_mode=False) -> (Tensor, Tensor)"
  opal.decomposition "max_pool2d_with_indices" {
  ^bb0(%self: !opal.tensor, %kernel_given: !opal.list<i64>, %stride_given: !opal.list<i64>, %padding_given: !opal.list<i64>, %dilation_given: !opal.list<i64>, %ceil_mode: i1):
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %c2 = arith.constant 2 : i64
    %c3 = arith.constant 3 : i64
    %c4 = arith.constant 4 : i64
    %c5 = arith.constant 5 : i64
    %yes = arith.constant true
    %none = opal.none
    %c_uint8 = arith.constant 0 : i64
    %c_int8 = arith.constant 1 : i64
    %c_int16 = arith.constant 2 : i64
    %c_int32 = arith.constant 3 : i64
    %c_int64 = arith.constant 4 : i64
    %c_float16 = arith.constant 5 : i64
    %c_float32 = arith.constant 6 : i64
    %c_float64 = arith.constant 7 : i64
    %c_bfloat16 = arith.constant 15 : i64
    %kernel_n = opal.list_len %kernel_given : !opal.list<i64> -> i64
    %kernel_is1 = arith.cmpi eq, %kernel_n, %c1 : i64
    %kernel_is2 = arith.cmpi eq, %kernel_n, %c2 : i64
    %kernel_ok0 = arith.ori %kernel_is1, %kernel_is2 : i1
    opal.check %kernel_ok0, "max_pool2d: kernel_size must either be a single int, or a tuple of two ints"
    %stride_n = opal.list_len %stride_given : !opal.list<i64> -> i64
    %stride_is0 = arith.cmpi eq, %stride_n, %c0 : i64
    %stride_is1 = arith.cmpi eq, %stride_n, %c1 : i64
    %stride_is2 = arith.cmpi eq, %stride_n, %c2 : i64
    %stride_ok0 = arith.ori %stride_is0, %stride_is1 : i1
    %stride_ok1 = arith.ori %stride_ok0, %stride_is2 : i1
    opal.check %stride_ok1, "max_pool2d: stride must either be omitted, a single int, or a tuple of two ints"
    %padding_n = opal.list_len %padding_given : !opal.list<i64> -> i64
    %padding_is1 = arith.cmpi eq, %padding_n, %c1 : i64
    %padding_is2 = arith.cmpi eq, %padding_n, %c2 : i64
    %padding_ok0 = arith.ori %padding_is1, %padding_is2 : i1
    opal.check %padding_ok0, "max_pool2d: padding must be either be a single int, or a tuple of two ints"
    %dilation_n = opal.list_len %dilation_given : !opal.list<i64> -> i64
    %dilation_is1 = arith.cmpi eq, %dilation_n, %c1 : i64
    %dilation_is2 = arith.cmpi eq, %dilation_n, %c2 : i64
    %dilation_ok0 = arith.ori %dilation_is1, %dilation_is2 : i1
    opal.check %dilation_ok0, "max_pool2d: dilation must be either a single int, or a tuple of two ints"
    %rank0 = opal.shape_of %self : !opal.tensor -> !opal.list<i64>
    %rank1 = opal.list_len %rank0 : !opal.list<i64> -> i64
    %r_low = arith.cmpi eq, %rank1, %c3 : i64
    %r_high = arith.cmpi eq, %rank1, %c4 : i64
    %r_ok = arith.ori %r_low, %r_high : i1
    opal.check %r_ok, "non-empty 3D or 4D (batch mode) tensor expected for input"
    %kernel = opal.static_if %kernel_is1 -> !opal.list<i64> {
      %e = opal.list_item %kernel_given, 0 : !opal.list<i64> -> i64
      %l = opal.list %e, %e : i64, i64 -> !opal.list<i64>
      opal.yield %l : !opal.list<i64>
    } else {
      opal.yield %kernel_given : !opal.list<i64>
    }
    %kernel0 = opal.list_item %kernel, 0 : !opal.list<i64> -> i64
    %kernel1 = opal.list_item %kernel, 1 : !opal.list<i64> -> i64
    %stride_one = opal.static_if %stride_is1 -> !opal.list<i64> {
      %e = opal.list_item %stride_given, 0 : !opal.list<i64> -> i64
      %l = opal.list %e, %e : i64, i64 -> !opal.list<i64>
      opal.yield %l : !opal.list<i64>
    } else {
      opal.yield %stride_given : !opal.list<i64>
    }
    %stride = opal.static_if %stride_is0 -> !opal.list<i64> {
      opal.yield %kernel : !opal.list<i64>
    } else {
      opal.yield %stride_one : !opal.list<i64>
    }
    %stride0 = opal.list_item %stride, 0 : !opal.list<i64> -> i64
    %stride1 = opal.list_item %stride, 1 : !opal.list<i64> -> i64
    %padding = opal.static_if %padding_is1 -> !opal.list<i64> {
      %e = opal.list_item %padding_given, 0 : !opal.list<i64> -> i64
      %l = opal.list %e, %e : i64, i64 -> !opal.list<i64>
      opal.yield %l : !opal.list<i64>
    } else {
      opal.yield %padding_given : !opal.list<i64>
    }
    %padding0 = opal.list_item %padding, 0 : !opal.list<i64> -> i64
    %padding1 = opal.list_item %padding, 1 : !opal.list<i64> -> i64
    %dilation = opal.static_if %dilation_is1 -> !opal.list<i64> {
      %e = opal.list_item %dilation_given, 0 : !opal.list<i64> -> i64
      %l = opal.list %e, %e : i64, i64 -> !opal.list<i64>
      opal.yield %l : !opal.list<i64>
    } else {
      opal.yield %dilation_given : !opal.list<i64>
    }
    %dilation0 = opal.list_item %dilation, 0 : !opal.list<i64> -> i64
    %dilation1 = opal.list_item %dilation, 1 : !opal.list<i64> -> i64
    %s0_nz = arith.cmpi ne, %stride0, %c0 : i64
    opal.check %s0_nz, "stride should not be zero"
    %p0_nn = arith.cmpi sge, %padding0, %c0 : i64
    opal.check %p0_nn, "pad must be non-negative, but got pad: {0}" (%padding0 : i64)
    %k0_m1 = arith.subi %kernel0, %c1 : i64
    %k0_dm = arith.muli %k0_m1, %dilation0 : i64
    %k0_eff = arith.addi %k0_dm, %c1 : i64
    %k0_half = arith.divsi %k0_eff, %c2 : i64
    %p0_half = arith.cmpi sle, %padding0, %k0_half : i64
    opal.check %p0_half, "pad should be at most half of effective kernel size, but got pad={0}, kernel_size={1} and dilation={2}" (%padding0, %kernel0, %dilation0 : i64, i64, i64)
    %s1_nz = arith.cmpi ne, %stride1, %c0 : i64
    opal.check %s1_nz, "stride should not be zero"
    %p1_nn = arith.cmpi sge, %padding1, %c0 : i64
    opal.check %p1_nn, "pad must be non-negative, but got pad: {0}" (%padding1 : i64)
    %k1_m1 = arith.subi %kernel1, %c1 : i64
    %k1_dm = arith.muli %k1_m1, %dilation1 : i64
    %k1_eff = arith.addi %k1_dm, %c1 : i64
    %k1_half = arith.divsi %k1_eff, %c2 : i64
    %p1_half = arith.cmpi sle, %padding1, %k1_half : i64
    opal.check %p1_half, "pad should be at most half of effective kernel size, but got pad={0}, kernel_size={1} and dilation={2}" (%padding1, %kernel1, %dilation1 : i64, i64, i64)
    %ss = opal.shape_of %self : !opal.tensor -> !opal.list<i64>
    %rank = opal.list_len %ss : !opal.list<i64> -> i64
    %unbatched = arith.cmpi eq, %rank, %c3 : i64
    %at0 = opal.list %c0 : i64 -> !opal.list<i64>
    %x = opal.static_if %unbatched -> !opal.tensor {
      %b = opal.keep_dims %self, %at0, %yes : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
      opal.yield %b : !opal.tensor
    } else {
      opal.yield %self : !opal.tensor
    }
    %channels = opal.dim_size %x, 1 : !opal.tensor -> i64
    %i0 = opal.dim_size %x, 2 : !opal.tensor -> i64
    %i1 = opal.dim_size %x, 3 : !opal.tensor -> i64
    %kernel0_pos = arith.cmpi sgt, %kernel0, %c0 : i64
    %kernel1_pos = arith.cmpi sgt, %kernel1, %c0 : i64
    %kernel_pos_all0 = arith.andi %kernel0_pos, %kernel1_pos : i1
    opal.check %kernel_pos_all0, "kernel size should be greater than zero, but got kH: {0} kW: {1}" (%kernel0, %kernel1 : i64, i64)
    %stride0_pos = arith.cmpi sgt, %stride0, %c0 : i64
    %stride1_pos = arith.cmpi sgt, %stride1, %c0 : i64
    %stride_pos_all0 = arith.andi %stride0_pos, %stride1_pos : i1
    opal.check %stride_pos_all0, "stride should be greater than zero, but got dH: {0} dW: {1}" (%stride0, %stride1 : i64, i64)
    %dilation0_pos = arith.cmpi sgt, %dilation0, %c0 : i64
    %dilation1_pos = arith.cmpi sgt, %dilation1, %c0 : i64
    %dilation_pos_all0 = arith.andi %dilation0_pos, %dilation1_pos : i1
    opal.check %dilation_pos_all0, "dilation should be greater than zero, but got dilationH: {0} dilationW: {1}" (%dilation0, %dilation1 : i64, i64)
    %kh0 = arith.divsi %kernel0, %c2 : i64
    %ph0 = arith.cmpi sle, %padding0, %kh0 : i64
    %kh1 = arith.divsi %kernel1, %c2 : i64
    %ph1 = arith.cmpi sle, %padding1, %kh1 : i64
    %pad_in_kernel_all0 = arith.andi %ph0, %ph1 : i1
    opal.check %pad_in_kernel_all0, "pad should be smaller than or equal to half of kernel size, but got padW = {0}, padH = {1}, kW = {2}, kH = {3}" (%padding1, %padding0, %kernel1, %kernel0 : i64, i64, i64, i64)
    %f0 = arith.cmpi ne, %channels, %c0 : i64
    %f1 = arith.cmpi ne, %i0, %c0 : i64
    %f2 = arith.cmpi ne, %i1, %c0 : i64
    %filled_all0 = arith.andi %f0, %f1 : i1
    %filled_all1 = arith.andi %filled_all0, %f2 : i1
    opal.check %filled_all1, "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:[{0}]" (%ss : !opal.list<i64>)
    %code = opal.dtype_of %self, %none : !opal.tensor, !opal.none -> i64
    %is_uint8 = arith.cmpi eq, %code, %c_uint8 : i64
    %is_int8 = arith.cmpi eq, %code, %c_int8 : i64
    %is_int16 = arith.cmpi eq, %code, %c_int16 : i64
    %is_int32 = arith.cmpi eq, %code, %c_int32 : i64
    %is_int64 = arith.cmpi eq, %code, %c_int64 : i64
    %is_float16 = arith.cmpi eq, %code, %c_float16 : i64
    %is_float32 = arith.cmpi eq, %code, %c_float32 : i64
    %is_float64 = arith.cmpi eq, %code, %c_float64 : i64
    %is_bfloat16 = arith.cmpi eq, %code, %c_bfloat16 : i64
    %dtype_ok0 = arith.ori %is_uint8, %is_int8 : i1
    %dtype_ok1 = arith.ori %dtype_ok0, %is_int16 : i1
    %dtype_ok2 = arith.ori %dtype_ok1, %is_int32 : i1
    %dtype_ok3 = arith.ori %dtype_ok2, %is_int64 : i1
    %dtype_ok4 = arith.ori %dtype_ok3, %is_float16 : i1
    %dtype_ok5 = arith.ori %dtype_ok4, %is_float32 : i1
    %dtype_ok6 = arith.ori %dtype_ok5, %is_float64 : i1
    %dtype_ok7 = arith.ori %dtype_ok6, %is_bfloat16 : i1
    opal.check %dtype_ok7, "\"max_pool2d\" not implemented for '{0:dtype}'" (%code : i64)
    %v, %i = prims.max_pool %x, %kernel, %stride, %padding, %dilation, %ceil_mode : (!opal.tensor, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, i1) -> (!opal.tensor, !opal.tensor)
    %km0 = arith.subi %kernel0, %c1 : i64
    %reach0 = arith.muli %dilation0, %km0 : i64
    %pp0 = arith.muli %padding0, %c2 : i64
    %span0a = arith.addi %i0, %pp0 : i64
    %span0b = arith.subi %span0a, %reach0 : i64
    %span0c = arith.subi %span0b, %c1 : i64
    %sm0 = arith.subi %stride0, %c1 : i64
    %up0 = arith.select %ceil_mode, %sm0, %c0 : i64
    %span0 = arith.addi %span0c, %up0 : i64
    %fq0 = arith.floordivsi %span0, %stride0 : i64
    %o0a = arith.addi %fq0, %c1 : i64
    %o0m = arith.subi %o0a, %c1 : i64
    %start0 = arith.muli %o0m, %stride0 : i64
    %end0 = arith.addi %i0, %padding0 : i64
    %past0a = arith.cmpi sge, %start0, %end0 : i64
    %past0 = arith.andi %past0a, %ceil_mode : i1
    %o0 = arith.select %past0, %o0m, %o0a : i64
    %o0_ok = arith.cmpi sge, %o0, %c1 : i64
    %km1 = arith.subi %kernel1, %c1 : i64
    %reach1 = arith.muli %dilation1, %km1 : i64
    %pp1 = arith.muli %padding1, %c2 : i64
    %span1a = arith.addi %i1, %pp1 : i64
    %span1b = arith.subi %span1a, %reach1 : i64
    %span1c = arith.subi %span1b, %c1 : i64
    %sm1 = arith.subi %stride1, %c1 : i64
    %up1 = arith.select %ceil_mode, %sm1, %c0 : i64
    %span1 = arith.addi %span1c, %up1 : i64
    %fq1 = arith.floordivsi %span1, %stride1 : i64
    %o1a = arith.addi %fq1, %c1 : i64
    %o1m = arith.subi %o1a, %c1 : i64
    %start1 = arith.muli %o1m, %stride1 : i64
    %end1 = arith.addi %i1, %padding1 : i64
    %past1a = arith.cmpi sge, %start1, %end1 : i64
    %past1 = arith.andi %past1a, %ceil_mode : i1
    %o1 = arith.select %past1, %o1m, %o1a : i64
    %o1_ok = arith.cmpi sge, %o1, %c1 : i64
    %big_all0 = arith.andi %o0_ok, %o1_ok : i1
    %small = arith.xori %big_all0, %yes : i1
    %small_t = opal.promote %small : i1 -> !opal.tensor
    opal.data_check %small_t, "Given input size: ({0}x{1}x{2}). Calculated output size: ({0}x{3}x{4}). Output size is too small" (%channels, %i0, %i1, %o0, %o1) : !opal.tensor
    %u0, %u1 = opal.static_if %unbatched -> !opal.tensor, !opal.tensor {
      %q0 = prims.squeeze %v, %at0 : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
      %q1 = prims.squeeze %i, %at0 : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
      opal.yield %q0, %q1 : !opal.tensor, !opal.tensor
    } else {
      opal.yield %v, %i : !opal.tensor, !opal.tensor
    }
    opal.yield %u0, %u1 : !opal.tensor, !opal.tensor
  }
  opal.def "max_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, int[2] dilation=1, bool ceil_mode=False) -> Tensor"
  opal.decomposition "max_pool2d" {
  ^bb0(%self: !opal.tensor, %kernel: !opal.list<i64>, %stride: !opal.list<i64>, %padding: !opal.list<i64>, %dilation: !opal.list<i64>, %ceil_mode: i1):
    %v, %i = aten.max_pool2d_with_indices %self, %kernel, %stride, %padding, %dilation, %ceil_mode : (!opal.tensor, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, i1) -> (!opal.tensor, !opal.tensor)
    opal.yield %v : !opal.tensor
  }
  opal.def "max_pool3d_with_indices(Tensor self, int[3] kernel_size, int[3] stride=[], int[3] padding=0, int[3] dilation=1, bool ceil_mode=False) -> (Tensor, Tensor)"
  opal.decomposition "max_pool3d_with_indices" {
  ^bb0(%self: !opal.tensor, %kernel_given: !opal.list<i64>, %stride_given: !opal.list<i64>, %padding_given: !opal.list<i64>, %dilation_given: !opal.list<i64>, %ceil_mode: i1):
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %c2 = arith.constant 2 : i64
    %c3 = arith.constant 3 : i64
    %c4 = arith.constant 4 : i64
    %c5 = arith.constant 5 : i64
    %yes = arith.constant true
    %none = opal.none
    %c_uint8 = arith.constant 0 : i64
    %c_int8 = arith.constant 1 : i64
    %c_int16 = arith.constant 2 : i64
    %c_int32 = arith.constant 3 : i64
    %c_int64 = arith.constant 4 : i64
    %c_float16 = arith.constant 5 : i64
    %c_float32 = arith.constant 6 : i64
    %c_float64 = arith.constant 7 : i64
    %c_bfloat16 = arith.constant 15 : i64
    %kernel_n = opal.list_len %kernel_given : !opal.list<i64> -> i64
    %kernel_is1 = arith.cmpi eq, %kernel_n, %c1 : i64
    %kernel_is3 = arith.cmpi eq, %kernel_n, %c3 : i64
    %kernel_ok0 = arith.ori %kernel_is1, %kernel_is3 : i1
    opal.check %kernel_ok0, "max_pool3d: kernel_size must either be a single int, or a tuple of three ints"
    %stride_n = opal.list_len %stride_given : !opal.list<i64> -> i64
    %stride_is0 = arith.cmpi eq, %stride_n, %c0 : i64
    %stride_is1 = arith.cmpi eq, %stride_n, %c1 : i64
    %stride_is3 = arith.cmpi eq, %stride_n, %c3 : i64
    %stride_ok0 = arith.ori %stride_is0, %stride_is1 : i1
    %stride_ok1 = arith.ori %stride_ok0, %stride_is3 : i1
    opal.check %stride_ok1, "max_pool3d: stride must either be omitted, a single int, or a tuple of three ints"
    %padding_n = opal.list_len %padding_given : !opal.list<i64> -> i64
    %padding_is1 = arith.cmpi eq, %padding_n, %c1 : i64
    %padding_is3 = arith.cmpi eq, %padding_n, %c3 : i64
    %padding_ok0 = arith.ori %padding_is1, %padding_is3 : i1
    opal.check %padding_ok0, "max_pool3d: padding must be either be a single int, or a tuple of three ints"
    %dilation_n = opal.list_len %dilation_given : !opal.list<i64> -> i64
    %dilation_is1 = arith.cmpi eq, %dilation_n, %c1 : i64
    %dilation_is3 = arith.cmpi eq, %dilation_n, %c3 : i64
    %dilation_ok0 = arith.ori %dilation_is1, %dilation_is3 : i1
    opal.check %dilation_ok0, "max_pool3d: dilation must be either a single int, or a tuple of three ints"
    %rank0 = opal.shape_of %self : !opal.tensor -> !opal.list<i64>
    %rank1 = opal.list_len %rank0 : !opal.list<i64> -> i64
    %r_low = arith.cmpi eq, %rank1, %c4 : i64
    %r_high = arith.cmpi eq, %rank1, %c5 : i64
    %r_ok = arith.ori %r_low, %r_high : i1
    opal.check %r_ok, "non-empty 4D or 5D (batch mode) tensor expected for input"
    %kernel = opal.static_if %kernel_is1 -> !opal.list<i64> {
      %e = opal.list_item %kernel_given, 0 : !opal.list<i64> -> i64
      %l = opal.list %e, %e, %e : i64, i64, i64 -> !opal.list<i64>
      opal.yield %l : !opal.list<i64>
    } else {
      opal.yield %kernel_given : !opal.list<i64>
    }
    %kernel0 = opal.list_item %kernel, 0 : !opal.list<i64> -> i64
    %kernel1 = opal.list_item %kernel, 1 : !opal.list<i64> -> i64
    %kernel2 = opal.list_item %kernel, 2 : !opal.list<i64> -> i64
    %stride_one = opal.static_if %stride_is1 -> !opal.list<i64> {
      %e = opal.list_item %stride_given, 0 : !opal.list<i64> -> i64
      %l = opal.list %e, %e, %e : i64, i64, i64 -> !opal.list<i64>
      opal.yield %l : !opal.list<i64>
    } else {
      opal.yield %stride_given : !opal.list<i64>
    }
    %stride = opal.static_if %stride_is0 -> !opal.list<i64> {
      opal.yield %kernel : !opal.list<i64>
    } else {
      opal.yield %stride_one : !opal.list<i64>
    }
    %stride0 = opal.list_item %stride, 0 : !opal.list<i64> -> i64
    %stride1 = opal.list_item %stride, 1 : !opal.list<i64> -> i64
    %stride2 = opal.list_item %stride, 2 : !opal.list<i64> -> i64
    %padding = opal.static_if %padding_is1 -> !opal.list<i64> {
      %e = opal.list_item %padding_given, 0 : !opal.list<i64> -> i64
      %l = opal.list %e, %e, %e : i64, i64, i64 -> !opal.list<i64>
      opal.yield %l : !opal.list<i64>
    } else {
      opal.yield %padding_given : !opal.list<i64>
    }
    %padding0 = opal.list_item %padding, 0 : !opal.list<i64> -> i64
    %padding1 = opal.list_item %padding, 1 : !opal.list<i64> -> i64
    %padding2 = opal.list_item %padding, 2 : !opal.list<i64> -> i64
    %dilation = opal.static_if %dilation_is1 -> !opal.list<i64> {
      %e = opal.list_item %dilation_given, 0 : !opal.list<i64> -> i64
      %l = opal.list %e, %e, %e : i64, i64, i64 -> !opal.list<i64>
      opal.yield %l : !opal.list<i64>
    } else {
      opal.yield %dilation_given : !opal.list<i64>
    }
    %dilation0 = opal.list_item %dilation, 0 : !opal.list<i64> -> i64
    %dilation1 = opal.list_item %dilation, 1 : !opal.list<i64> -> i64
    %dilation2 = opal.list_item %dilation, 2 : !opal.list<i64> -> i64
    %s0_nz = arith.cmpi ne, %stride0, %c0 : i64
    opal.check %s0_nz, "stride should not be zero"
    %p0_nn = arith.cmpi sge, %padding0, %c0 : i64
    opal.check %p0_nn, "pad must be non-negative, but got pad: {0}" (%padding0 : i64)
    %k0_m1 = arith.subi %kernel0, %c1 : i64
    %k0_dm = arith.muli %k0_m1, %dilation0 : i64
    %k0_eff = arith.addi %k0_dm, %c1 : i64
    %k0_half = arith.divsi %k0_eff, %c2 : i64
    %p0_half = arith.cmpi sle, %padding0, %k0_half : i64
    opal.check %p0_half, "pad should be at most half of effective kernel size, but got pad={0}, kernel_size={1} and dilation={2}" (%padding0, %kernel0, %dilation0 : i64, i64, i64)
    %s1_nz = arith.cmpi ne, %stride1, %c0 : i64
    opal.check %s1_nz, "stride should not be zero"
    %p1_nn = arith.cmpi sge, %padding1, %c0 : i64
    opal.check %p1_nn, "pad must be non-negative, but got pad: {0}" (%padding1 : i64)
    %k1_m1 = arith.subi %kernel1, %c1 : i64
    %k1_dm = arith.muli %k1_m1, %dilation1 : i64
    %k1_eff = arith.addi %k1_dm, %c1 : i64
    %k1_half = arith.divsi %k1_eff, %c2 : i64
    %p1_half = arith.cmpi sle, %padding1, %k1_half : i64
    opal.check %p1_half, "pad should be at most half of effective kernel size, but got pad={0}, kernel_size={1} and dilation={2}" (%padding1, %kernel1, %dilation1 : i64, i64, i64)
    %s2_nz = arith.cmpi ne, %stride2, %c0 : i64
    opal.check %s2_nz, "stride should not be zero"
    %p2_nn = arith.cmpi sge, %padding2, %c0 : i64
    opal.check %p2_nn, "pad must be non-negative, but got pad: {0}" (%padding2 : i64)
    %k2_m1 = arith.subi %kernel2, %c1 : i64
    %k2_dm = arith.muli %k2_m1, %dilation2 : i64
    %k2_eff = arith.addi %k2_dm, %c1 : i64
    %k2_half = arith.divsi %k2_eff, %c2 : i64
    %p2_half = arith.cmpi sle, %padding2, %k2_half : i64
    opal.check %p2_half, "pad should be at most half of effective kernel size, but got pad={0}, kernel_size={1} and dilation={2}" (%padding2, %kernel2, %dilation2 : i64, i64, i64)
    %ss = opal.shape_of %self : !opal.tensor -> !opal.list<i64>
    %rank = opal.list_len %ss : !opal.list<i64> -> i64
    %unbatched = arith.cmpi eq, %rank, %c4 : i64
    %at0 = opal.list %c0 : i64 -> !opal.list<i64>
    %x = opal.static_if %unbatched -> !opal.tensor {
      %b = opal.keep_dims %self, %at0, %yes : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
      opal.yield %b : !opal.tensor
    } else {
      opal.yield %self : !opal.tensor
    }
    %channels = opal.dim_size %x, 1 : !opal.tensor -> i64
    %i0 = opal.dim_size %x, 2 : !opal.tensor -> i64
    %i1 = opal.dim_size %x, 3 : !opal.tensor -> i64
    %i2 = opal.dim_size %x, 4 : !opal.tensor -> i64
    %kernel0_pos = arith.cmpi sgt, %kernel0, %c0 : i64
    %kernel1_pos = arith.cmpi sgt, %kernel1, %c0 : i64
    %kernel2_pos = arith.cmpi sgt, %kernel2, %c0 : i64
    %kernel_pos_all0 = arith.andi %kernel0_pos, %kernel1_pos : i1
    %kernel_pos_all1 = arith.andi %kernel_pos_all0, %kernel2_pos : i1
    opal.check %kernel_pos_all1, "kernel size should be greater than zero, but got kT: {0} kH: {1} kW: {2}" (%kernel0, %kernel1, %kernel2 : i64, i64, i64)
    %stride0_pos = arith.cmpi sgt, %stride0, %c0 : i64
    %stride1_pos = arith.cmpi sgt, %stride1, %c0 : i64
    %stride2_pos = arith.cmpi sgt, %stride2, %c0 : i64
    %stride_pos_all0 = arith.andi %stride0_pos, %stride1_pos : i1
    %stride_pos_all1 = arith.andi %stride_pos_all0, %stride2_pos : i1
    opal.check %stride_pos_all1, "stride should be greater than zero, but got dT: {0} dH: {1} dW: {2}" (%stride0, %stride1, %stride2 : i64, i64, i64)
    %dilation0_pos = arith.cmpi sgt, %dilation0, %c0 : i64
    %dilation1_pos = arith.cmpi sgt, %dilation1, %c0 : i64
    %dilation2_pos = arith.cmpi sgt, %dilation2, %c0 : i64
    %dilation_pos_all0 = arith.andi %dilation0_pos, %dilation1_pos : i1
    %dilation_pos_all1 = arith.andi %dilation_pos_all0, %dilation2_pos : i1
    opal.check %dilation_pos_all1, "dilation should be greater than zero, but got dilationT: {0} dilationH: {1} dilationW: {2}" (%dilation0, %dilation1, %dilation2 : i64, i64, i64)
    %kh0 = arith.divsi %kernel0, %c2 : i64
    %ph0 = arith.cmpi sle, %padding0, %kh0 : i64
    %kh1 = arith.divsi %kernel1, %c2 : i64
    %ph1 = arith.cmpi sle, %padding1, %kh1 : i64
    %kh2 = arith.divsi %kernel2, %c2 : i64
    %ph2 = arith.cmpi sle, %padding2, %kh2 : i64
    %pad_in_kernel_all0 = arith.andi %ph0, %ph1 : i1
    %pad_in_kernel_all1 = arith.andi %pad_in_kernel_all0, %ph2 : i1
    opal.check %pad_in_kernel_all1, "pad should be smaller than or equal to half of kernel size, but got kT: {0} kW: {1} kH: {2} padT: {3} padW: {4} padH: {5}" (%kernel0, %kernel2, %kernel1, %padding0, %padding2, %padding1 : i64, i64, i64, i64, i64, i64)
    %nb0_ok = arith.cmpi sgt, %channels, %c0 : i64
    %nb1_ok = arith.cmpi sgt, %i0, %c0 : i64
    %nb2_ok = arith.cmpi sgt, %i1, %c0 : i64
    %nb3_ok = arith.cmpi sgt, %i2, %c0 : i64
    %nonbatch_all0 = arith.andi %nb0_ok, %nb1_ok : i1
    %nonbatch_all1 = arith.andi %nonbatch_all0, %nb2_ok : i1
    %nonbatch_all2 = arith.andi %nonbatch_all1, %nb3_ok : i1
    opal.check %nonbatch_all2, "max_pool3d_with_indices_out_cpu_template(): Expected input's non-batch dimensions to have positive length, but input has a shape of [{0}] and non-batch dimension 0 has length zero!" (%ss : !opal.list<i64>)
    %code = opal.dtype_of %self, %none : !opal.tensor, !opal.none -> i64
    %is_uint8 = arith.cmpi eq, %code, %c_uint8 : i64
    %is_int8 = arith.cmpi eq, %code, %c_int8 : i64
    %is_int16 = arith.cmpi eq, %code, %c_int16 : i64
    %is_int32 = arith.cmpi eq, %code, %c_int32 : i64
    %is_int64 = arith.cmpi eq, %code, %c_int64 : i64
    %is_float16 = arith.cmpi eq, %code, %c_float16 : i64
    %is_float32 = arith.cmpi eq, %code, %c_float32 : i64
    %is_float64 = arith.cmpi eq, %code, %c_float64 : i64
    %is_bfloat16 = arith.cmpi eq, %code, %c_bfloat16 : i64
    %dtype_ok0 = arith.ori %is_uint8, %is_int8 : i1
    %dtype_ok1 = arith.ori %dtype_ok0, %is_int16 : i1
    %dtype_ok2 = arith.ori %dtype_ok1, %is_int32 : i1
    %dtype_ok3 = arith.ori %dtype_ok2, %is_int64 : i1
    %dtype_ok4 = arith.ori %dtype_ok3, %is_float16 : i1
    %dtype_ok5 = arith.ori %dtype_ok4, %is_float32 : i1
    %dtype_ok6 = arith.ori %dtype_ok5, %is_float64 : i1
    %dtype_ok7 = arith.ori %dtype_ok6, %is_bfloat16 : i1
    opal.check %dtype_ok7, "\"max_pool3d\" not implemented for '{0:dtype}'" (%code : i64)
    %v, %i = prims.max_pool %x, %kernel, %stride, %padding, %dilation, %ceil_mode : (!opal.tensor, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, i1) -> (!opal.tensor, !opal.tensor)
    %km0 = arith.subi %kernel0, %c1 : i64
    %reach0 = arith.muli %dilation0, %km0 : i64
    %pp0 = arith.muli %padding0, %c2 : i64
    %span0a = arith.addi %i0, %pp0 : i64
    %span0b = arith.subi %span0a, %reach0 : i64
    %span0c = arith.subi %span0b, %c1 : i64
    %sm0 = arith.subi %stride0, %c1 : i64
    %up0 = arith.select %ceil_mode, %sm0, %c0 : i64
    %span0 = arith.addi %span0c, %up0 : i64
    %fq0 = arith.floordivsi %span0, %stride0 : i64
    %o0a = arith.addi %fq0, %c1 : i64
    %o0m = arith.subi %o0a, %c1 : i64
    %start0 = arith.muli %o0m, %stride0 : i64
    %end0 = arith.addi %i0, %padding0 : i64
    %past0a = arith.cmpi sge, %start0, %end0 : i64
    %past0 = arith.andi %past0a, %ceil_mode : i1
    %o0 = arith.select %past0, %o0m, %o0a : i64
    %o0_ok = arith.cmpi sge, %o0, %c1 : i64
    %km1 = arith.subi %kernel1, %c1 : i64
    %reach1 = arith.muli %dilation1, %km1 : i64
    %pp1 = arith.muli %padding1, %c2 : i64
    %span1a = arith.addi %i1, %pp1 : i64
    %span1b = arith.subi %span1a, %reach1 : i64
    %span1c = arith.subi %span1b, %c1 : i64
    %sm1 = arith.subi %stride1, %c1 : i64
    %up1 = arith.select %ceil_mode, %sm1, %c0 : i64
    %span1 = arith.addi %span1c, %up1 : i64
    %fq1 = arith.floordivsi %span1, %stride1 : i64
    %o1a = arith.addi %fq1, %c1 : i64
    %o1m = arith.subi %o1a, %c1 : i64
    %start1 = arith.muli %o1m, %stride1 : i64
    %end1 = arith.addi %i1, %padding1 : i64
    %past1a = arith.cmpi sge, %start1, %end1 : i64
    %past1 = arith.andi %past1a, %ceil_mode : i1
    %o1 = arith.select %past1, %o1m, %o1a : i64
    %o1_ok = arith.cmpi sge, %o1, %c1 : i64
    %km2 = arith.subi %kernel2, %c1 : i64
    %reach2 = arith.muli %dilation2, %km2 : i64
    %pp2 = arith.muli %padding2, %c2 : i64
    %span2a = arith.addi %i2, %pp2 : i64
    %span2b = arith.subi %span2a, %reach2 : i64
    %span2c = arith.subi %span2b, %c1 : i64
    %sm2 = arith.subi %stride2, %c1 : i64
    %up2 = arith.select %ceil_mode, %sm2, %c0 : i64
    %span2 = arith.addi %span2c, %up2 : i64
    %fq2 = arith.floordivsi %span2, %stride2 : i64
    %o2a = arith.addi %fq2, %c1 : i64
    %o2m = arith.subi %o2a, %c1 : i64
    %start2 = arith.muli %o2m, %stride2 : i64
    %end2 = arith.addi %i2, %padding2 : i64
    %past2a = arith.cmpi sge, %start2, %end2 : i64
    %past2 = arith.andi %past2a, %ceil_mode : i1
    %o2 = arith.select %past2, %o2m, %o2a : i64
    %o2_ok = arith.cmpi sge, %o2, %c1 : i64
    %big_all0 = arith.andi %o0_ok, %o1_ok : i1
    %big_all1 = arith.andi %big_all0, %o2_ok : i1
    %small = arith.xori %big_all1, %yes : i1
    %small_t = opal.promote %small : i1 -> !opal.tensor
    opal.data_check %small_t, "Given input size: ({0}x{1}x{2}x{3}). Calculated output size: ({0}x{4}x{5}x{6}). Output size is too small" (%channels, %i0, %i1, %i2, %o0, %o1, %o2) : !opal.tensor
    %u0, %u1 = opal.static_if %unbatched -> !opal.tensor, !opal.tensor {
      %q0 = prims.squeeze %v, %at0 : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
      %q1 = prims.squeeze %i, %at0 : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
      opal.yield %q0, %q1 : !opal.tensor, !opal.tensor
    } else {
      opal.yield %v, %i : !opal.tensor, !opal.tensor
    }
    opal.yield %u0, %u1 : !opal.tensor, !opal.tensor
  }
  opal.def "max_pool3d(Tensor self, int[3] kernel_size, int[3] stride=[], int[3] padding=0, int[3] dilation=1, bool ceil_mode=False) -> Tensor"
  opal.decomposition "max_pool3d" {
  ^bb0(%self: !opal.tensor, %kernel: !opal.list<i64>, %stride: !opal.list<i64>, %padding: !opal.list<i64>, %dilation: !opal.list<i64>, %ceil_mode: i1):
    %v, %i = aten.max_pool3d_with_indices %self, %kernel, %stride, %padding, %dilation, %ceil_mode : (!opal.tensor, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, i1) -> (!opal.tensor, !opal.tensor)
    opal.yield %v : !opal.tensor
  }
  opal.def "avg_pool2d(Tensor self, int[2] kernel_size, int[2] stride=[], int[2] padding=0, bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None) -> Tensor"
  opal.decomposition "avg_pool2d" {
  ^bb0(%self: !opal.tensor, %kernel_given: !opal.list<i64>, %stride_given: !opal.list<i64>, %padding_given: !opal.list<i64>, %ceil_mode: i1, %count_include_pad: i1, %divisor_override: i64):
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %c2 = arith.constant 2 : i64
    %c3 = arith.constant 3 : i64
    %c4 = arith.constant 4 : i64
    %c5 = arith.constant 5 : i64
    %yes = arith.constant true
    %none = opal.none
    %c_int64 = arith.constant 4 : i64
    %c_float16 = arith.constant 5 : i64
    %c_float32 = arith.constant 6 : i64
    %c_float64 = arith.constant 7 : i64
    %c_bfloat16 = arith.constant 15 : i64
    %kernel_n = opal.list_len %kernel_given : !opal.list<i64> -> i64
    %kernel_is1 = arith.cmpi eq, %kernel_n, %c1 : i64
    %kernel_is2 = arith.cmpi eq, %kernel_n, %c2 : i64
    %kernel_ok0 = arith.ori %kernel_is1, %kernel_is2 : i1
    opal.check %kernel_ok0, "avg_pool2d: kernel_size must either be a single int, or a tuple of two ints"
    %stride_n = opal.list_len %stride_given : !opal.list<i64> -> i64
    %stride_is0 = arith.cmpi eq, %stride_n, %c0 : i64
    %stride_is1 = arith.cmpi eq, %stride_n, %c1 : i64
    %stride_is2 = arith.cmpi eq, %stride_n, %c2 : i64
    %stride_ok0 = arith.ori %stride_is0, %stride_is1 : i1
    %stride_ok1 = arith.ori %stride_ok0, %stride_is2 : i1
    opal.check %stride_ok1, "avg_pool2d: stride must either be omitted, a single int, or a tuple of two ints"
    %padding_n = opal.list_len %padding_given : !opal.list<i64> -> i64
    %padding_is1 = arith.cmpi eq, %padding_n, %c1 : i64
    %padding_is2 = arith.cmpi eq, %padding_n, %c2 : i64
    %padding_ok0 = arith.ori %padding_is1, %padding_is2 : i1
    opal.check %padding_ok0, "avg_pool2d: padding must either be a single int, or a tuple of two ints"
    %rank0 = opal.shape_of %self : !opal.tensor -> !opal.list<i64>
    %rank1 = opal.list_len %rank0 : !opal.list<i64> -> i64
    %no_divisor = opal.is_none %divisor_override : i64 -> i1
    opal.static_if %no_divisor {
      opal.yield
    } else {
      %nonzero = arith.cmpi ne, %divisor_override, %c0 : i64
      opal.check %nonzero, "divisor must be not zero"
      opal.yield
    }
    %has_planes = arith.cmpi sge, %rank1, %c3 : i64
    %neg_rank = arith.subi %c0, %rank1 : i64
    %top = arith.subi %rank1, %c1 : i64
    %cm3 = arith.constant -3 : i64
    opal.check %has_planes, "Dimension out of range (expected to be in range of [{0}, {1}], but got {2})" (%neg_rank, %top, %cm3 : i64, i64, i64)
    %kernel = opal.static_if %kernel_is1 -> !opal.list<i64> {
      %e = opal.list_item %kernel_given, 0 : !opal.list<i64> -> i64
      %l = opal.list %e, %e : i64, i64 -> !opal.list<i64>
      opal.yield %l : !opal.list<i64>
    } else {
      opal.yield %kernel_given : !opal.list<i64>
    }
    %kernel0 = opal.list_item %kernel, 0 : !opal.list<i64> -> i64
    %kernel1 = opal.list_item %kernel, 1 : !opal.list<i64> -> i64
    %stride_one = opal.static_if %stride_is1 -> !opal.list<i64> {
      %e = opal.list_item %stride_given, 0 : !opal.list<i64> -> i64
      %l = opal.list %e, %e : i64, i64 -> !opal.list<i64>
      opal.yield %l : !opal.list<i64>
    } else {
      opal.yield %stride_given : !opal.list<i64>
    }
    %stride = opal.static_if %stride_is0 -> !opal.list<i64> {
      opal.yield %kernel : !opal.list<i64>
    } else {
      opal.yield %stride_one : !opal.list<i64>
    }
    %stride0 = opal.list_item %stride, 0 : !opal.list<i64> -> i64
    %stride1 = opal.list_item %stride, 1 : !opal.list<i64> -> i64
    %padding = opal.static_if %padding_is1 -> !opal.list<i64> {
      %e = opal.list_item %padding_given, 0 : !opal.list<i64> -> i64
      %l = opal.list %e, %e : i64, i64 -> !opal.list<i64>
      opal.yield %l : !opal.list<i64>
    } else {
      opal.yield %padding_given : !opal.list<i64>
    }
    %padding0 = opal.list_item %padding, 0 : !opal.list<i64> -> i64
    %padding1 = opal.list_item %padding, 1 : !opal.list<i64> -> i64
    %s0_nz = arith.cmpi ne, %stride0, %c0 : i64
    opal.check %s0_nz, "stride should not be zero"
    %p0_nn = arith.cmpi sge, %padding0, %c0 : i64
    opal.check %p0_nn, "pad must be non-negative, but got pad: {0}" (%padding0 : i64)
    %k0_m1 = arith.subi %kernel0, %c1 : i64
    %k0_dm = arith.muli %k0_m1, %c1 : i64
    %k0_eff = arith.addi %k0_dm, %c1 : i64
    %k0_half = arith.divsi %k0_eff, %c2 : i64
    %p0_half = arith.cmpi sle, %padding0, %k0_half : i64
    opal.check %p0_half, "pad should be at most half of effective kernel size, but got pad={0}, kernel_size={1} and dilation={2}" (%padding0, %kernel0, %c1 : i64, i64, i64)
    %s1_nz = arith.cmpi ne, %stride1, %c0 : i64
    opal.check %s1_nz, "stride should not be zero"
    %p1_nn = arith.cmpi sge, %padding1, %c0 : i64
    opal.check %p1_nn, "pad must be non-negative, but got pad: {0}" (%padding1 : i64)
    %k1_m1 = arith.subi %kernel1, %c1 : i64
    %k1_dm = arith.muli %k1_m1, %c1 : i64
    %k1_eff = arith.addi %k1_dm, %c1 : i64
    %k1_half = arith.divsi %k1_eff, %c2 : i64
    %p1_half = arith.cmpi sle, %padding1, %k1_half : i64
    opal.check %p1_half, "pad should be at most half of effective kernel size, but got pad={0}, kernel_size={1} and dilation={2}" (%padding1, %kernel1, %c1 : i64, i64, i64)
    %r_low = arith.cmpi eq, %rank1, %c3 : i64
    %r_high = arith.cmpi eq, %rank1, %c4 : i64
    %r_ok = arith.ori %r_low, %r_high : i1
    %kernel0_pos = arith.cmpi sgt, %kernel0, %c0 : i64
    %kernel1_pos = arith.cmpi sgt, %kernel1, %c0 : i64
    %kernel_pos_all0 = arith.andi %kernel0_pos, %kernel1_pos : i1
    opal.check %kernel_pos_all0, "kernel size should be greater than zero, but got kH: {0} kW: {1}" (%kernel0, %kernel1 : i64, i64)
    %stride0_pos = arith.cmpi sgt, %stride0, %c0 : i64
    %stride1_pos = arith.cmpi sgt, %stride1, %c0 : i64
    %stride_pos_all0 = arith.andi %stride0_pos, %stride1_pos : i1
    opal.check %stride_pos_all0, "stride should be greater than zero, but got dH: {0} dW: {1}" (%stride0, %stride1 : i64, i64)
    opal.check %r_ok, "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:[{0}]" (%rank0 : !opal.list<i64>)
    %ss = opal.shape_of %self : !opal.tensor -> !opal.list<i64>
    %rank = opal.list_len %ss : !opal.list<i64> -> i64
    %unbatched = arith.cmpi eq, %rank, %c3 : i64
    %at0 = opal.list %c0 : i64 -> !opal.list<i64>
    %x = opal.static_if %unbatched -> !opal.tensor {
      %b = opal.keep_dims %self, %at0, %yes : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
      opal.yield %b : !opal.tensor
    } else {
      opal.yield %self : !opal.tensor
    }
    %channels = opal.dim_size %x, 1 : !opal.tensor -> i64
    %i0 = opal.dim_size %x, 2 : !opal.tensor -> i64
    %i1 = opal.dim_size %x, 3 : !opal.tensor -> i64
    %f0 = arith.cmpi ne, %channels, %c0 : i64
    %f1 = arith.cmpi ne, %i0, %c0 : i64
    %f2 = arith.cmpi ne, %i1, %c0 : i64
    %filled_all0 = arith.andi %f0, %f1 : i1
    %filled_all1 = arith.andi %filled_all0, %f2 : i1
    opal.check %filled_all1, "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:[{0}]" (%ss : !opal.list<i64>)
    %code = opal.dtype_of %self, %none : !opal.tensor, !opal.none -> i64
    %is_int64 = arith.cmpi eq, %code, %c_int64 : i64
    %is_float16 = arith.cmpi eq, %code, %c_float16 : i64
    %is_float32 = arith.cmpi eq, %code, %c_float32 : i64
    %is_float64 = arith.cmpi eq, %code, %c_float64 : i64
    %is_bfloat16 = arith.cmpi eq, %code, %c_bfloat16 : i64
    %dtype_ok0 = arith.ori %is_int64, %is_float16 : i1
    %dtype_ok1 = arith.ori %dtype_ok0, %is_float32 : i1
    %dtype_ok2 = arith.ori %dtype_ok1, %is_float64 : i1
    %dtype_ok3 = arith.ori %dtype_ok2, %is_bfloat16 : i1
    opal.check %dtype_ok3, "\"avg_pool2d\" not implemented for '{0:dtype}'" (%code : i64)
    %r = prims.avg_pool %x, %kernel, %stride, %padding, %ceil_mode, %count_include_pad, %divisor_override : (!opal.tensor, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, i1, i1, i64) -> !opal.tensor
    %km0 = arith.subi %kernel0, %c1 : i64
    %reach0 = arith.muli %c1, %km0 : i64
    %pp0 = arith.muli %padding0, %c2 : i64
    %span0a = arith.addi %i0, %pp0 : i64
    %span0b = arith.subi %span0a, %reach0 : i64
    %span0c = arith.subi %span0b, %c1 : i64
    %sm0 = arith.subi %stride0, %c1 : i64
    %up0 = arith.select %ceil_mode, %sm0, %c0 : i64
    %span0 = arith.addi %span0c, %up0 : i64
    %fq0 = arith.floordivsi %span0, %stride0 : i64
    %o0a = arith.addi %fq0, %c1 : i64
    %o0m = arith.subi %o0a, %c1 : i64
    %start0 = arith.muli %o0m, %stride0 : i64
    %end0 = arith.addi %i0, %padding0 : i64
    %past0a = arith.cmpi sge, %start0, %end0 : i64
    %past0 = arith.andi %past0a, %ceil_mode : i1
    %o0 = arith.select %past0, %o0m, %o0a : i64
    %o0_ok = arith.cmpi sge, %o0, %c1 : i64
    %km1 = arith.subi %kernel1, %c1 : i64
    %reach1 = arith.muli %c1, %km1 : i64
    %pp1 = arith.muli %padding1, %c2 : i64
    %span1a = arith.addi %i1, %pp1 : i64
    %span1b = arith.subi %span1a, %reach1 : i64
    %span1c = arith.subi %span1b, %c1 : i64
    %sm1 = arith.subi %stride1, %c1 : i64
    %up1 = arith.select %ceil_mode, %sm1, %c0 : i64
    %span1 = arith.addi %span1c, %up1 : i64
    %fq1 = arith.floordivsi %span1, %stride1 : i64
    %o1a = arith.addi %fq1, %c1 : i64
    %o1m = arith.subi %o1a, %c1 : i64
    %start1 = arith.muli %o1m, %stride1 : i64
    %end1 = arith.addi %i1, %padding1 : i64
    %past1a = arith.cmpi sge, %start1, %end1 : i64
    %past1 = arith.andi %past1a, %ceil_mode : i1
    %o1 = arith.select %past1, %o1m, %o1a : i64
    %o1_ok = arith.cmpi sge, %o1, %c1 : i64
    %big_all0 = arith.andi %o0_ok, %o1_ok : i1
    %small = arith.xori %big_all0, %yes : i1
    %small_t = opal.promote %small : i1 -> !opal.tensor
    opal.data_check %small_t, "Given input size: ({0}x{1}x{2}). Calculated output size: ({0}x{3}x{4}). Output size is too small" (%channels, %i0, %i1, %o0, %o1) : !opal.tensor
    %u0 = opal.static_if %unbatched -> !opal.tensor {
      %q0 = prims.squeeze %r, %at0 : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
      opal.yield %q0 : !opal.tensor
    } else {
      opal.yield %r : !opal.tensor
    }
    opal.yield %u0 : !opal.tensor
  }
  opal.def "avg_pool3d(Tensor self, int[3] kernel_size, int[3] stride=[], int[3] padding=0, bool ceil_mode=False, bool count_include_pad=True, int? divisor_override=None) -> Tensor"
  opal.decomposition "avg_pool3d" {
  ^bb0(%self: !opal.tensor, %kernel_given: !opal.list<i64>, %stride_given: !opal.list<i64>, %padding_given: !opal.list<i64>, %ceil_mode: i1, %count_include_pad: i1, %divisor_override: i64):
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %c2 = arith.constant 2 : i64
    %c3 = arith.constant 3 : i64
    %c4 = arith.constant 4 : i64
    %c5 = arith.constant 5 : i64
    %yes = arith.constant true
    %none = opal.none
    %c_int64 = arith.constant 4 : i64
    %c_float32 = arith.constant 6 : i64
    %c_float64 = arith.constant 7 : i64
    %kernel_n = opal.list_len %kernel_given : !opal.list<i64> -> i64
    %kernel_is1 = arith.cmpi eq, %kernel_n, %c1 : i64
    %kernel_is3 = arith.cmpi eq, %kernel_n, %c3 : i64
    %kernel_ok0 = arith.ori %kernel_is1, %kernel_is3 : i1
    opal.check %kernel_ok0, "avg_pool3d: kernel_size must be a single int, or a tuple of three ints"
    %stride_n = opal.list_len %stride_given : !opal.list<i64> -> i64
    %stride_is0 = arith.cmpi eq, %stride_n, %c0 : i64
    %stride_is1 = arith.cmpi eq, %stride_n, %c1 : i64
    %stride_is3 = arith.cmpi eq, %stride_n, %c3 : i64
    %stride_ok0 = arith.ori %stride_is0, %stride_is1 : i1
    %stride_ok1 = arith.ori %stride_ok0, %stride_is3 : i1
    opal.check %stride_ok1, "avg_pool3d: stride must be omitted, a single int, or a tuple of three ints"
    %padding_n = opal.list_len %padding_given : !opal.list<i64> -> i64
    %padding_is1 = arith.cmpi eq, %padding_n, %c1 : i64
    %padding_is3 = arith.cmpi eq, %padding_n, %c3 : i64
    %padding_ok0 = arith.ori %padding_is1, %padding_is3 : i1
    opal.check %padding_ok0, "avg_pool3d: padding must be a single int, or a tuple of three ints"
    %rank0 = opal.shape_of %self : !opal.tensor -> !opal.list<i64>
    %rank1 = opal.list_len %rank0 : !opal.list<i64> -> i64
    %r_low = arith.cmpi eq, %rank1, %c4 : i64
    %r_high = arith.cmpi eq, %rank1, %c5 : i64
    %r_ok = arith.ori %r_low, %r_high : i1
    opal.check %r_ok, "non-empty 4D or 5D (batch mode) tensor expected for input"
    %no_divisor = opal.is_none %divisor_override : i64 -> i1
    opal.static_if %no_divisor {
      opal.yield
    } else {
      %nonzero = arith.cmpi ne, %divisor_override, %c0 : i64
      opal.check %nonzero, "divisor must be not zero"
      opal.yield
    }
    %kernel = opal.static_if %kernel_is1 -> !opal.list<i64> {
      %e = opal.list_item %kernel_given, 0 : !opal.list<i64> -> i64
      %l = opal.list %e, %e, %e : i64, i64, i64 -> !opal.list<i64>
      opal.yield %l : !opal.list<i64>
    } else {
      opal.yield %kernel_given : !opal.list<i64>
    }
    %kernel0 = opal.list_item %kernel, 0 : !opal.list<i64> -> i64
    %kernel1 = opal.list_item %kernel, 1 : !opal.list<i64> -> i64
    %kernel2 = opal.list_item %kernel, 2 : !opal.list<i64> -> i64
    %stride_one = opal.static_if %stride_is1 -> !opal.list<i64> {
      %e = opal.list_item %stride_given, 0 : !opal.list<i64> -> i64
      %l = opal.list %e, %e, %e : i64, i64, i64 -> !opal.list<i64>
      opal.yield %l : !opal.list<i64>
    } else {
      opal.yield %stride_given : !opal.list<i64>
    }
    %stride = opal.static_if %stride_is0 -> !opal.list<i64> {
      opal.yield %kernel : !opal.list<i64>
    } else {
      opal.yield %stride_one : !opal.list<i64>
    }
    %stride0 = opal.list_item %stride, 0 : !opal.list<i64> -> i64
    %stride1 = opal.list_item %stride, 1 : !opal.list<i64> -> i64
    %stride2 = opal.list_item %stride, 2 : !opal.list<i64> -> i64
    %padding = opal.static_if %padding_is1 -> !opal.list<i64> {
      %e = opal.list_item %padding_given, 0 : !opal.list<i64> -> i64
      %l = opal.list %e, %e, %e : i64, i64, i64 -> !opal.list<i64>
      opal.yield %l : !opal.list<i64>
    } else {
      opal.yield %padding_given : !opal.list<i64>
    }
    %padding0 = opal.list_item %padding, 0 : !opal.list<i64> -> i64
    %padding1 = opal.list_item %padding, 1 : !opal.list<i64> -> i64
    %padding2 = opal.list_item %padding, 2 : !opal.list<i64> -> i64
    %s0_nz = arith.cmpi ne, %stride0, %c0 : i64
    opal.check %s0_nz, "stride should not be zero"
    %p0_nn = arith.cmpi sge, %padding0, %c0 : i64
    opal.check %p0_nn, "pad must be non-negative, but got pad: {0}" (%padding0 : i64)
    %k0_m1 = arith.subi %kernel0, %c1 : i64
    %k0_dm = arith.muli %k0_m1, %c1 : i64
    %k0_eff = arith.addi %k0_dm, %c1 : i64
    %k0_half = arith.divsi %k0_eff, %c2 : i64
    %p0_half = arith.cmpi sle, %padding0, %k0_half : i64
    opal.check %p0_half, "pad should be at most half of effective kernel size, but got pad={0}, kernel_size={1} and dilation={2}" (%padding0, %kernel0, %c1 : i64, i64, i64)
    %s1_nz = arith.cmpi ne, %stride1, %c0 : i64
    opal.check %s1_nz, "stride should not be zero"
    %p1_nn = arith.cmpi sge, %padding1, %c0 : i64
    opal.check %p1_nn, "pad must be non-negative, but got pad: {0}" (%padding1 : i64)
    %k1_m1 = arith.subi %kernel1, %c1 : i64
    %k1_dm = arith.muli %k1_m1, %c1 : i64
    %k1_eff = arith.addi %k1_dm, %c1 : i64
    %k1_half = arith.divsi %k1_eff, %c2 : i64
    %p1_half = arith.cmpi sle, %padding1, %k1_half : i64
    opal.check %p1_half, "pad should be at most half of effective kernel size, but got pad={0}, kernel_size={1} and dilation={2}" (%padding1, %kernel1, %c1 : i64, i64, i64)
    %s2_nz = arith.cmpi ne, %stride2, %c0 : i64
    opal.check %s2_nz, "stride should not be zero"
    %p2_nn = arith.cmpi sge, %padding2, %c0 : i64
    opal.check %p2_nn, "pad must be non-negative, but got pad: {0}" (%padding2 : i64)
    %k2_m1 = arith.subi %kernel2, %c1 : i64
    %k2_dm = arith.muli %k2_m1, %c1 : i64
    %k2_eff = arith.addi %k2_dm, %c1 : i64
    %k2_half = arith.divsi %k2_eff, %c2 : i64
    %p2_half = arith.cmpi sle, %padding2, %k2_half : i64
    opal.check %p2_half, "pad should be at most half of effective kernel size, but got pad={0}, kernel_size={1} and dilation={2}" (%padding2, %kernel2, %c1 : i64, i64, i64)
    %ss = opal.shape_of %self : !opal.tensor -> !opal.list<i64>
    %rank = opal.list_len %ss : !opal.list<i64> -> i64
    %unbatched = arith.cmpi eq, %rank, %c4 : i64
    %at0 = opal.list %c0 : i64 -> !opal.list<i64>
    %x = opal.static_if %unbatched -> !opal.tensor {
      %b = opal.keep_dims %self, %at0, %yes : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
      opal.yield %b : !opal.tensor
    } else {
      opal.yield %self : !opal.tensor
    }
    %channels = opal.dim_size %x, 1 : !opal.tensor -> i64
    %i0 = opal.dim_size %x, 2 : !opal.tensor -> i64
    %i1 = opal.dim_size %x, 3 : !opal.tensor -> i64
    %i2 = opal.dim_size %x, 4 : !opal.tensor -> i64
    %kernel0_pos = arith.cmpi sgt, %kernel0, %c0 : i64
    %kernel1_pos = arith.cmpi sgt, %kernel1, %c0 : i64
    %kernel2_pos = arith.cmpi sgt, %kernel2, %c0 : i64
    %kernel_pos_all0 = arith.andi %kernel0_pos, %kernel1_pos : i1
    %kernel_pos_all1 = arith.andi %kernel_pos_all0, %kernel2_pos : i1
    opal.check %kernel_pos_all1, "kernel size should be greater than zero, but got kT: {0} kH: {1} kW: {2}" (%kernel0, %kernel1, %kernel2 : i64, i64, i64)
    %stride0_pos = arith.cmpi sgt, %stride0, %c0 : i64
    %stride1_pos = arith.cmpi sgt, %stride1, %c0 : i64
    %stride2_pos = arith.cmpi sgt, %stride2, %c0 : i64
    %stride_pos_all0 = arith.andi %stride0_pos, %stride1_pos : i1
    %stride_pos_all1 = arith.andi %stride_pos_all0, %stride2_pos : i1
    opal.check %stride_pos_all1, "stride should be greater than zero, but got dT: {0} dH: {1} dW: {2}" (%stride0, %stride1, %stride2 : i64, i64, i64)
    %nb0_ok = arith.cmpi sgt, %channels, %c0 : i64
    %nb1_ok = arith.cmpi sgt, %i0, %c0 : i64
    %nb2_ok = arith.cmpi sgt, %i1, %c0 : i64
    %nb3_ok = arith.cmpi sgt, %i2, %c0 : i64
    %nonbatch_all0 = arith.andi %nb0_ok, %nb1_ok : i1
    %nonbatch_all1 = arith.andi %nonbatch_all0, %nb2_ok : i1
    %nonbatch_all2 = arith.andi %nonbatch_all1, %nb3_ok : i1
    opal.check %nonbatch_all2, "avg_pool3d(): Expected input's non-batch dimensions to have positive length, but input has a shape of [{0}] and non-batch dimension 0 has length zero!" (%ss : !opal.list<i64>)
    %big0 = arith.cmpi sge, %i0, %kernel0 : i64
    %big1 = arith.cmpi sge, %i1, %kernel1 : i64
    %big2 = arith.cmpi sge, %i2, %kernel2 : i64
    %input_big_all0 = arith.andi %big0, %big1 : i1
    %input_big_all1 = arith.andi %input_big_all0, %big2 : i1
    opal.check %input_big_all1, "input image (T: {0} H: {1} W: {2}) smaller than kernel size (kT: {3} kH: {4} kW: {5})" (%i0, %i1, %i2, %kernel0, %kernel1, %kernel2 : i64, i64, i64, i64, i64, i64)
    %code = opal.dtype_of %self, %none : !opal.tensor, !opal.none -> i64
    %is_int64 = arith.cmpi eq, %code, %c_int64 : i64
    %is_float32 = arith.cmpi eq, %code, %c_float32 : i64
    %is_float64 = arith.cmpi eq, %code, %c_float64 : i64
    %dtype_ok0 = arith.ori %is_int64, %is_float32 : i1
    %dtype_ok1 = arith.ori %dtype_ok0, %is_float64 : i1
    opal.check %dtype_ok1, "\"avg_pool3d_out_frame\" not implemented for '{0:dtype}'" (%code : i64)
    %r = prims.avg_pool %x, %kernel, %stride, %padding, %ceil_mode, %count_include_pad, %divisor_override : (!opal.tensor, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, i1, i1, i64) -> !opal.tensor
    %km0 = arith.subi %kernel0, %c1 : i64
    %reach0 = arith.muli %c1, %km0 : i64
    %pp0 = arith.muli %padding0, %c2 : i64
    %span0a = arith.addi %i0, %pp0 : i64
    %span0b = arith.subi %span0a, %reach0 : i64
    %span0c = arith.subi %span0b, %c1 : i64
    %sm0 = arith.subi %stride0, %c1 : i64
    %up0 = arith.select %ceil_mode, %sm0, %c0 : i64
    %span0 = arith.addi %span0c, %up0 : i64
    %fq0 = arith.floordivsi %span0, %stride0 : i64
    %o0a = arith.addi %fq0, %c1 : i64
    %o0m = arith.subi %o0a, %c1 : i64
    %start0 = arith.muli %o0m, %stride0 : i64
    %end0 = arith.addi %i0, %padding0 : i64
    %past0a = arith.cmpi sge, %start0, %end0 : i64
    %past0 = arith.andi %past0a, %ceil_mode : i1
    %o0 = arith.select %past0, %o0m, %o0a : i64
    %o0_ok = arith.cmpi sge, %o0, %c1 : i64
    %km1 = arith.subi %kernel1, %c1 : i64
    %reach1 = arith.muli %c1, %km1 : i64
    %pp1 = arith.muli %padding1, %c2 : i64
    %span1a = arith.addi %i1, %pp1 : i64
    %span1b = arith.subi %span1a, %reach1 : i64
    %span1c = arith.subi %span1b, %c1 : i64
    %sm1 = arith.subi %stride1, %c1 : i64
    %up1 = arith.select %ceil_mode, %sm1, %c0 : i64
    %span1 = arith.addi %span1c, %up1 : i64
    %fq1 = arith.floordivsi %span1, %stride1 : i64
    %o1a = arith.addi %fq1, %c1 : i64
    %o1m = arith.subi %o1a, %c1 : i64
    %start1 = arith.muli %o1m, %stride1 : i64
    %end1 = arith.addi %i1, %padding1 : i64
    %past1a = arith.cmpi sge, %start1, %end1 : i64
    %past1 = arith.andi %past1a, %ceil_mode : i1
    %o1 = arith.select %past1, %o1m, %o1a : i64
    %o1_ok = arith.cmpi sge, %o1, %c1 : i64
    %km2 = arith.subi %kernel2, %c1 : i64
    %reach2 = arith.muli %c1, %km2 : i64
    %pp2 = arith.muli %padding2, %c2 : i64
    %span2a = arith.addi %i2, %pp2 : i64
    %span2b = arith.subi %span2a, %reach2 : i64
    %span2c = arith.subi %span2b, %c1 : i64
    %sm2 = arith.subi %stride2, %c1 : i64
    %up2 = arith.select %ceil_mode, %sm2, %c0 : i64
    %span2 = arith.addi %span2c, %up2 : i64
    %fq2 = arith.floordivsi %span2, %stride2 : i64
    %o2a = arith.addi %fq2, %c1 : i64
    %o2m = arith.subi %o2a, %c1 : i64
    %start2 = arith.muli %o2m, %stride2 : i64
    %end2 = arith.addi %i2, %padding2 : i64
    %past2a = arith.cmpi sge, %start2, %end2 : i64
    %past2 = arith.andi %past2a, %ceil_mode : i1
    %o2 = arith.select %past2, %o2m, %o2a : i64
    %o2_ok = arith.cmpi sge, %o2, %c1 : i64
    %big_all0 = arith.andi %o0_ok, %o1_ok : i1
    %big_all1 = arith.andi %big_all0, %o2_ok : i1
    %small = arith.xori %big_all1, %yes : i1
    %small_t = opal.promote %small : i1 -> !opal.tensor
    opal.data_check %small_t, "Given input size: ({0}x{1}x{2}x{3}). Calculated output size: ({0}x{4}x{5}x{6}). Output size is too small" (%channels, %i0, %i1, %i2, %o0, %o1, %o2) : !opal.tensor
    %u0 = opal.static_if %unbatched -> !opal.tensor {
      %q0 = prims.squeeze %r, %at0 : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
      opal.yield %q0 : !opal.tensor
    } else {
      opal.yield %r : !opal.tensor
    }
    opal.yield %u0 : !opal.tensor
  }
  opal.def "_adaptive_avg_pool3d(Tensor self, SymInt[3] output_size) -> Tensor"
  opal.decomposition "_adaptive_avg_pool3d" {
  ^bb0(%self: !opal.tensor, %output_size: !opal.list<i64>):
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %c2 = arith.constant 2 : i64
    %c3 = arith.constant 3 : i64
    %c4 = arith.constant 4 : i64
    %c5 = arith.constant 5 : i64
    %yes = arith.constant true
    %none = opal.none
    %c_float16 = arith.constant 5 : i64
    %c_float32 = arith.constant 6 : i64
    %c_float64 = arith.constant 7 : i64
    %c_bfloat16 = arith.constant 15 : i64
    %n = opal.list_len %output_size : !opal.list<i64> -> i64
    %three = arith.cmpi eq, %n, %c3 : i64
    opal.check %three, "adaptive_avg_pool3d: output_size must be 3"
    %ss = opal.shape_of %self : !opal.tensor -> !opal.list<i64>
    %rank = opal.list_len %ss : !opal.list<i64> -> i64
    %has1 = arith.cmpi sgt, %rank, %c1 : i64
    opal.static_if %has1 {
      %s1 = opal.dim_size %self, 1 : !opal.tensor -> i64
      %s1_ok = arith.cmpi ne, %s1, %c0 : i64
      opal.check %s1_ok, "adaptive_avg_pool3d(): Expected input to have non-zero size for non-batch dimensions, but input has sizes [{0}] with dimension {1} being empty" (%ss, %c1 : !opal.list<i64>, i64)
      opal.yield
    } else {
      opal.yield
    }
    %has2 = arith.cmpi sgt, %rank, %c2 : i64
    opal.static_if %has2 {
      %s2 = opal.dim_size %self, 2 : !opal.tensor -> i64
      %s2_ok = arith.cmpi ne, %s2, %c0 : i64
      opal.check %s2_ok, "adaptive_avg_pool3d(): Expected input to have non-zero size for non-batch dimensions, but input has sizes [{0}] with dimension {1} being empty" (%ss, %c2 : !opal.list<i64>, i64)
      opal.yield
    } else {
      opal.yield
    }
    %has3 = arith.cmpi sgt, %rank, %c3 : i64
    opal.static_if %has3 {
      %s3 = opal.dim_size %self, 3 : !opal.tensor -> i64
      %s3_ok = arith.cmpi ne, %s3, %c0 : i64
      opal.check %s3_ok, "adaptive_avg_pool3d(): Expected input to have non-zero size for non-batch dimensions, but input has sizes [{0}] with dimension {1} being empty" (%ss, %c3 : !opal.list<i64>, i64)
      opal.yield
    } else {
      opal.yield
    }
    %has4 = arith.cmpi sgt, %rank, %c4 : i64
    opal.static_if %has4 {
      %s4 = opal.dim_size %self, 4 : !opal.tensor -> i64
      %s4_ok = arith.cmpi ne, %s4, %c0 : i64
      opal.check %s4_ok, "adaptive_avg_pool3d(): Expected input to have non-zero size for non-batch dimensions, but input has sizes [{0}] with dimension {1} being empty" (%ss, %c4 : !opal.list<i64>, i64)
      opal.yield
    } else {
      opal.yield
    }
    %r4 = arith.cmpi eq, %rank, %c4 : i64
    %r5 = arith.cmpi eq, %rank, %c5 : i64
    %r_ok = arith.ori %r4, %r5 : i1
    opal.check %r_ok, "adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got [{0}]" (%ss : !opal.list<i64>)
    %o0 = opal.list_item %output_size, 0 : !opal.list<i64> -> i64
    %o0_ok = arith.cmpi sge, %o0, %c0 : i64
    %o1 = opal.list_item %output_size, 1 : !opal.list<i64> -> i64
    %o1_ok = arith.cmpi sge, %o1, %c0 : i64
    %o2 = opal.list_item %output_size, 2 : !opal.list<i64> -> i64
    %o2_ok = arith.cmpi sge, %o2, %c0 : i64
    %sizes_all0 = arith.andi %o0_ok, %o1_ok : i1
    %sizes_all1 = arith.andi %sizes_all0, %o2_ok : i1
    opal.check %sizes_all1, "numel: integer multiplication overflow"
    %code = opal.dtype_of %self, %none : !opal.tensor, !opal.none -> i64
    %is_float16 = arith.cmpi eq, %code, %c_float16 : i64
    %is_float32 = arith.cmpi eq, %code, %c_float32 : i64
    %is_float64 = arith.cmpi eq, %code, %c_float64 : i64
    %is_bfloat16 = arith.cmpi eq, %code, %c_bfloat16 : i64
    %dtype_ok0 = arith.ori %is_float16, %is_float32 : i1
    %dtype_ok1 = arith.ori %dtype_ok0, %is_float64 : i1
    %dtype_ok2 = arith.ori %dtype_ok1, %is_bfloat16 : i1
    opal.check %dtype_ok2, "\"adaptive_avg_pool3d_cpu\" not implemented for '{0:dtype}'" (%code : i64)
    %unbatched = arith.cmpi eq, %rank, %c4 : i64
    %at0 = opal.list %c0 : i64 -> !opal.list<i64>
    %x = opal.static_if %unbatched -> !opal.tensor {
      %b = opal.keep_dims %self, %at0, %yes : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
      opal.yield %b : !opal.tensor
    } else {
      opal.yield %self : !opal.tensor
    }
    %r = prims.adaptive_avg_pool %x, %output_size : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
    %u0 = opal.static_if %unbatched -> !opal.tensor {
      %q0 = prims.squeeze %r, %at0 : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
      opal.yield %q0 : !opal.tensor
    } else {
      opal.yield %r : !opal.tensor
    }
    opal.yield %u0 : !opal.tensor
  }
  opal.def "adaptive_avg_pool3d(Tensor self, SymInt[3] output_size) -> Tensor"
  opal.decomposition "adaptive_avg_pool3d" {
  ^bb0(%self: !opal.tensor, %output_size: !opal.list<i64>):
    %c1 = arith.constant 1 : i64
    %ones = opal.list %c1, %c1, %c1 : i64, i64, i64 -> !opal.list<i64>
    %global = opal.list_eq %output_size, %ones : !opal.list<i64>, !opal.list<i64> -> i1
    %r = opal.static_if %global -> !opal.tensor {
      %cm1 = arith.constant -1 : i64
      %cm2 = arith.constant -2 : i64
      %cm3 = arith.constant -3 : i64
      %dims = opal.list %cm1, %cm2, %cm3 : i64, i64, i64 -> !opal.list<i64>
      %true = arith.constant true
      %none = opal.none
      %m = aten.mean.dim %self, %dims, %true, %none : (!opal.tensor, !opal.list<i64>, i1, !opal.none) -> !opal.tensor
      opal.yield %m : !opal.tensor
    } else {
      %p = aten._adaptive_avg_pool3d %self, %output_size : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
      opal.yield %p : !opal.tensor
    }
    opal.yield %r : !opal.tensor
  }
}
