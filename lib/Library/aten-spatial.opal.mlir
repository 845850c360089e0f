// The aten library, continued: folding sliding blocks back into images
// (col2im, the inverse of unfold) and sampling images at given points
// (grid_sampler_2d). Each checks its arguments as PyTorch 1.13 does, in its
// order and words; checks that need arithmetic on sizes raise after the
// call (data checks), the kernel reading nothing outside its inputs.
opal.library "aten" {
  // self [N, C*kh*kw, L] (or [C*kh*kw, L]) of L = bh x bw blocks, summed
  // into [N, C, H, W] (output_size [H, W]): prims.col2im.
  opal.def "col2im(Tensor self, SymInt[2] output_size, int[2] kernel_size, int[2] dilation, int[2] padding, int[2] stride) -> Tensor"
  opal.decomposition "col2im" {
  ^bb0(%self: !opal.tensor, %output_size: !opal.list<i64>, %kernel_size: !opal.list<i64>, %dilation: !opal.list<i64>, %padding: !opal.list<i64>, %stride: !opal.list<i64>):
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %c2 = arith.constant 2 : i64
    %true = arith.constant true
    %on = opal.list_len %output_size : !opal.list<i64> -> i64
    %o_ok = arith.cmpi eq, %on, %c2 : i64
    opal.check %o_ok, "It is expected output_size equals to 2, but got size {0}" (%on : i64)
    %kn = opal.list_len %kernel_size : !opal.list<i64> -> i64
    %k_ok = arith.cmpi eq, %kn, %c2 : i64
    opal.check %k_ok, "It is expected kernel_size equals to 2, but got size {0}" (%kn : i64)
    %dn = opal.list_len %dilation : !opal.list<i64> -> i64
    %d_ok = arith.cmpi eq, %dn, %c2 : i64
    opal.check %d_ok, "It is expected dilation equals to 2, but got size {0}" (%dn : i64)
    %pn = opal.list_len %padding : !opal.list<i64> -> i64
    %p_ok = arith.cmpi eq, %pn, %c2 : i64
    opal.check %p_ok, "It is expected padding equals to 2, but got size {0}" (%pn : i64)
    %sn = opal.list_len %stride : !opal.list<i64> -> i64
    %s_ok = arith.cmpi eq, %sn, %c2 : i64
    opal.check %s_ok, "It is expected stride equals to 2, but got size {0}" (%sn : i64)
    %kh = opal.list_item %kernel_size, 0 : !opal.list<i64> -> i64
    %kw = opal.list_item %kernel_size, 1 : !opal.list<i64> -> i64
    %dh = opal.list_item %dilation, 0 : !opal.list<i64> -> i64
    %dw = opal.list_item %dilation, 1 : !opal.list<i64> -> i64
    %ph = opal.list_item %padding, 0 : !opal.list<i64> -> i64
    %pw = opal.list_item %padding, 1 : !opal.list<i64> -> i64
    %sh = opal.list_item %stride, 0 : !opal.list<i64> -> i64
    %sw = opal.list_item %stride, 1 : !opal.list<i64> -> i64
    %oh = opal.list_item %output_size, 0 : !opal.list<i64> -> i64
    %ow = opal.list_item %output_size, 1 : !opal.list<i64> -> i64
    %kh_ok = arith.cmpi sgt, %kh, %c0 : i64
    %kw_ok = arith.cmpi sgt, %kw, %c0 : i64
    %kernel_ok = arith.andi %kh_ok, %kw_ok : i1
    opal.check %kernel_ok, "kernel size should be greater than zero, but got kernel_height: {0} kernel_width: {1}" (%kh, %kw : i64, i64)
    %sh_ok = arith.cmpi sgt, %sh, %c0 : i64
    %sw_ok = arith.cmpi sgt, %sw, %c0 : i64
    %stride_ok = arith.andi %sh_ok, %sw_ok : i1
    opal.check %stride_ok, "stride should be greater than zero, but got stride_height: {0} stride_width: {1}" (%sh, %sw : i64, i64)
    %dh_ok = arith.cmpi sgt, %dh, %c0 : i64
    %dw_ok = arith.cmpi sgt, %dw, %c0 : i64
    %dilation_ok = arith.andi %dh_ok, %dw_ok : i1
    opal.check %dilation_ok, "dilation should be greater than zero, but got dilation_height: {0} dilation_width: {1}" (%dh, %dw : i64, i64)
    %ph_ok = arith.cmpi sge, %ph, %c0 : i64
    %pw_ok = arith.cmpi sge, %pw, %c0 : i64
    %padding_ok = arith.andi %ph_ok, %pw_ok : i1
    opal.check %padding_ok, "padding should be non-negative, but got pad_height: {0} pad_width: {1}" (%ph, %pw : i64, i64)
    // PyTorch 1.13's CPU kernel: float32, float64, float16, bfloat16 (it
    // checks the sizes first).
    %none = opal.none
    %code = opal.dtype_of %self, %none : !opal.tensor, !opal.none -> i64
    %c5 = arith.constant 5 : i64
    %c6 = arith.constant 6 : i64
    %c7 = arith.constant 7 : i64
    %c15 = arith.constant 15 : i64
    %is_half = arith.cmpi eq, %code, %c5 : i64
    %is_f32 = arith.cmpi eq, %code, %c6 : i64
    %is_f64 = arith.cmpi eq, %code, %c7 : i64
    %is_bf16 = arith.cmpi eq, %code, %c15 : i64
    %f1 = arith.ori %is_half, %is_f32 : i1
    %f2 = arith.ori %f1, %is_f64 : i1
    %floating = arith.ori %f2, %is_bf16 : i1
    opal.check %floating, "\"col2im_out_cpu\" not implemented for '{0:dtype}'" (%code : i64)
    %shape = opal.shape_of %self : !opal.tensor -> !opal.list<i64>
    %unbatched = opal.has_rank %self, 2 : !opal.tensor -> i1
    %batched = opal.has_rank %self, 3 : !opal.tensor -> i1
    %rank_ok = arith.ori %unbatched, %batched : i1
    opal.check %rank_ok, "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero dimensions for input, but got: [{0}]" (%shape : !opal.list<i64>)
    %at0 = opal.list %c0 : i64 -> !opal.list<i64>
    %x = opal.static_if %unbatched -> !opal.tensor {
      %u = opal.keep_dims %self, %at0, %true : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
      opal.yield %u : !opal.tensor
    } else {
      opal.yield %self : !opal.tensor
    }
    // Only the batch may be empty.
    %planes = opal.dim_size %x, 1 : !opal.tensor -> i64
    %length = opal.dim_size %x, 2 : !opal.tensor -> i64
    %planes_ok = arith.cmpi ne, %planes, %c0 : i64
    %length_ok = arith.cmpi ne, %length, %c0 : i64
    %filled = arith.andi %planes_ok, %length_ok : i1
    opal.check %filled, "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero dimensions for input, but got: [{0}]" (%shape : !opal.list<i64>)
    %y = prims.col2im %x, %output_size, %kernel_size, %dilation, %padding, %stride : (!opal.tensor, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>) -> !opal.tensor
    // What needs arithmetic on the sizes, in PyTorch's order, after the call.
    %kernel_area = arith.muli %kh, %kw : i64
    %rem = arith.remsi %planes, %kernel_area : i64
    %indivisible = arith.cmpi ne, %rem, %c0 : i64
    %indivisible_t = opal.promote %indivisible : i1 -> !opal.tensor
    opal.data_check %indivisible_t, "Expected size of input's dimension 1 to be divisible by the product of kernel_size, but got input.size(1)={0} and kernel_size=({1}, {2})." (%planes, %kh, %kw) : !opal.tensor
    %kh1 = arith.subi %kh, %c1 : i64
    %kw1 = arith.subi %kw, %c1 : i64
    %reach_h = arith.muli %dh, %kh1 : i64
    %reach_w = arith.muli %dw, %kw1 : i64
    %ph2 = arith.addi %ph, %ph : i64
    %pw2 = arith.addi %pw, %pw : i64
    %span_h0 = arith.addi %oh, %ph2 : i64
    %span_w0 = arith.addi %ow, %pw2 : i64
    %span_h1 = arith.subi %span_h0, %reach_h : i64
    %span_w1 = arith.subi %span_w0, %reach_w : i64
    %span_h = arith.subi %span_h1, %c1 : i64
    %span_w = arith.subi %span_w1, %c1 : i64
    %bh0 = arith.floordivsi %span_h, %sh : i64
    %bw0 = arith.floordivsi %span_w, %sw : i64
    %bh = arith.addi %bh0, %c1 : i64
    %bw = arith.addi %bw0, %c1 : i64
    %blocks = arith.muli %bh, %bw : i64
    %mismatch = arith.cmpi ne, %length, %blocks : i64
    %mismatch_t = opal.promote %mismatch : i1 -> !opal.tensor
    opal.data_check %mismatch_t, "Given output_size=({0}, {1}), kernel_size=({2}, {3}), dilation=({4}, {5}), padding=({6}, {7}), stride=({8}, {9}), expected size of input's dimension 2 to match the calculated number of sliding blocks {10} * {11} = {12}, but got input.size(2)={13}." (%oh, %ow, %kh, %kw, %dh, %dw, %ph, %pw, %sh, %sw, %bh, %bw, %blocks, %length) : !opal.tensor
    %bh_ok = arith.cmpi sge, %bh, %c1 : i64
    %bw_ok = arith.cmpi sge, %bw, %c1 : i64
    %blocks_ok = arith.andi %bh_ok, %bw_ok : i1
    %no_blocks = arith.xori %blocks_ok, %true : i1
    %no_blocks_t = opal.promote %no_blocks : i1 -> !opal.tensor
    opal.data_check %no_blocks_t, "Given output_size=({0}, {1}), kernel_size=({2}, {3}), dilation=({4}, {5}), padding=({6}, {7}), stride=({8}, {9}), calculated shape of the array of sliding blocks as ({10}, {11}), which is too small (non-positive)" (%oh, %ow, %kh, %kw, %dh, %dw, %ph, %pw, %sh, %sw, %bh, %bw) : !opal.tensor
    %oh_ok = arith.cmpi sge, %oh, %c1 : i64
    %ow_ok = arith.cmpi sge, %ow, %c1 : i64
    %out_ok = arith.andi %oh_ok, %ow_ok : i1
    %no_out = arith.xori %out_ok, %true : i1
    %no_out_t = opal.promote %no_out : i1 -> !opal.tensor
    opal.data_check %no_out_t, "Expected output spatial size to be positive, but got: output_size=({0}, {1})." (%oh, %ow) : !opal.tensor
    %r = opal.static_if %unbatched -> !opal.tensor {
      %s = prims.squeeze %y, %at0 : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
      opal.yield %s : !opal.tensor
    } else {
      opal.yield %y : !opal.tensor
    }
    opal.yield %r : !opal.tensor
  }
  // input [N, C, H, W] sampled at grid [N, Ho, Wo, 2] (x, y in [-1, 1]):
  // interpolation_mode 0 bilinear, 1 nearest, 2 bicubic; padding_mode 0
  // zeros, 1 border, 2 reflection (prims.grid_sample). PyTorch 1.13 accepts
  // other modes and returns uninitialized memory; opal raises.
  opal.def "grid_sampler_2d(Tensor input, Tensor grid, int interpolation_mode, int padding_mode, bool align_corners) -> Tensor"
  opal.decomposition "grid_sampler_2d" {
  ^bb0(%input: !opal.tensor, %grid: !opal.tensor, %interpolation_mode: i64, %padding_mode: i64, %align_corners: i1):
    %c0 = arith.constant 0 : i64
    %c2 = arith.constant 2 : i64
    %c6 = arith.constant 6 : i64
    %c7 = arith.constant 7 : i64
    %mode_low = arith.cmpi sge, %interpolation_mode, %c0 : i64
    %mode_high = arith.cmpi sle, %interpolation_mode, %c2 : i64
    %mode_ok = arith.andi %mode_low, %mode_high : i1
    opal.check %mode_ok, "grid_sampler_2d(): interpolation_mode must be 0 (bilinear), 1 (nearest) or 2 (bicubic), but got {0}" (%interpolation_mode : i64)
    %pad_low = arith.cmpi sge, %padding_mode, %c0 : i64
    %pad_high = arith.cmpi sle, %padding_mode, %c2 : i64
    %pad_ok = arith.andi %pad_low, %pad_high : i1
    opal.check %pad_ok, "grid_sampler_2d(): padding_mode must be 0 (zeros), 1 (border) or 2 (reflection), but got {0}" (%padding_mode : i64)
    // PyTorch 1.13's CPU kernel: float32 and float64, the grid's the input's.
    %none = opal.none
    %code = opal.dtype_of %input, %none : !opal.tensor, !opal.none -> i64
    %grid_code = opal.dtype_of %grid, %none : !opal.tensor, !opal.none -> i64
    %is_f32 = arith.cmpi eq, %code, %c6 : i64
    %is_f64 = arith.cmpi eq, %code, %c7 : i64
    %floating = arith.ori %is_f32, %is_f64 : i1
    opal.check %floating, "grid_sampler_2d_cpu not implemented for {0:dtype}" (%code : i64)
    %same = arith.cmpi eq, %code, %grid_code : i64
    opal.check %same, "expected scalar type {0:dtype} but found {1:dtype}" (%code, %grid_code : i64, i64)
    %is = opal.shape_of %input : !opal.tensor -> !opal.list<i64>
    %gs = opal.shape_of %grid : !opal.tensor -> !opal.list<i64>
    %input4 = opal.has_rank %input, 4 : !opal.tensor -> i1
    %grid4 = opal.has_rank %grid, 4 : !opal.tensor -> i1
    %both4 = arith.andi %input4, %grid4 : i1
    opal.check %both4, "grid_sampler(): expected 4D input and grid with same number of dimensions, but got input with sizes [{0}] and grid with sizes [{1}]" (%is, %gs : !opal.list<i64>, !opal.list<i64>)
    %n = opal.dim_size %input, 0 : !opal.tensor -> i64
    %gn = opal.dim_size %grid, 0 : !opal.tensor -> i64
    %same_batch = arith.cmpi eq, %n, %gn : i64
    opal.check %same_batch, "grid_sampler(): expected grid and input to have same batch size, but got input with sizes [{0}] and grid with sizes [{1}]" (%is, %gs : !opal.list<i64>, !opal.list<i64>)
    %last = opal.dim_size %grid, 3 : !opal.tensor -> i64
    %pair = arith.cmpi eq, %last, %c2 : i64
    opal.check %pair, "grid_sampler(): expected grid to have size 2 in last dimension, but got grid with sizes [{0}]" (%gs : !opal.list<i64>)
    %h = opal.dim_size %input, 2 : !opal.tensor -> i64
    %w = opal.dim_size %input, 3 : !opal.tensor -> i64
    %h_ok = arith.cmpi ne, %h, %c0 : i64
    opal.check %h_ok, "grid_sampler(): expected input to have non-empty spatial dimensions, but input has sizes [{0}] with dimension 2 being empty" (%is : !opal.list<i64>)
    %w_ok = arith.cmpi ne, %w, %c0 : i64
    opal.check %w_ok, "grid_sampler(): expected input to have non-empty spatial dimensions, but input has sizes [{0}] with dimension 3 being empty" (%is : !opal.list<i64>)
    %r = prims.grid_sample %input, %grid, %interpolation_mode, %padding_mode, %align_corners : (!opal.tensor, !opal.tensor, i64, i64, i1) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
}
