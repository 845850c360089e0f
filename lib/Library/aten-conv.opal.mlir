// The aten library, continued: convolutions. aten.convolution checks its
// arguments as PyTorch 1.13 does (opal.conv_params for the int lists, the
// sizes per call: simple comparisons before the kernel, those that need
// arithmetic as data checks after it, with PyTorch's messages, a 1-d
// convolution's showing the height 1 that PyTorch's kernels add), then is
// prims.conv or prims.conv_transpose (a batched matrix product, see
// lib/Transforms/ConvolutionToLinalg.cpp) plus the bias. The dtypes are
// those of PyTorch 1.13's CPU kernels: no float16 or bool; a dilated
// convolution takes float32, float64, bfloat16 and int64, a transposed one
// float32, float64 and int64. conv1d/2d/3d and conv_transpose1d/2d/3d are
// CompositeImplicit, as in PyTorch: an unbatched input is a batch of one.
// An input of 0 channels gives an output of 0 channels, as PyTorch's empty
// convolution does (its kernel is specialized on that size 0).
// Written by scripts/generate-conv-library.py (the per-rank checks): edit
// that script and run it, not this file.
opal.library "aten" {
  opal.def "convolution(Tensor input, Tensor weight, Tensor? bias, SymInt[] stride, SymInt[] padding, SymInt[] dilation, bool transposed, SymInt[] output_padding, SymInt groups) -> Tensor"
  opal.decomposition "convolution" {
  ^bb0(%input: !opal.tensor, %weight: !opal.tensor, %bias: !opal.tensor, %stride: !opal.list<i64>, %padding: !opal.list<i64>, %dilation: !opal.list<i64>, %transposed: i1, %output_padding: !opal.list<i64>, %groups: i64):
    %yes = arith.constant true
    %none = opal.none
    %s, %p, %d, %op = opal.conv_params %weight, %stride, %padding, %dilation, %output_padding, %groups, %transposed : !opal.tensor, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, i64, i1 -> !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>
    %ws = opal.shape_of %weight : !opal.tensor -> !opal.list<i64>
    %is = opal.shape_of %input : !opal.tensor -> !opal.list<i64>
    %wr = opal.list_len %ws : !opal.list<i64> -> i64
    %ir = opal.list_len %is : !opal.list<i64> -> i64
    %same_rank = arith.cmpi eq, %ir, %wr : i64
    opal.check %same_rank, "Expected {0}-dimensional input for {1}-dimensional weight [{2}], but got {3}-dimensional input of size [{4}] instead" (%wr, %wr, %ws, %ir, %is : i64, i64, !opal.list<i64>, i64, !opal.list<i64>)
    %w0 = opal.dim_size %weight, 0 : !opal.tensor -> i64
    %enough = arith.cmpi sge, %w0, %groups : i64
    opal.check %enough, "Given groups={0}, expected weight to be at least {1} at dimension 0, but got weight of size [{2}] instead" (%groups, %groups, %ws : i64, i64, !opal.list<i64>)
    %ic = opal.dtype_of %input, %none : !opal.tensor, !opal.none -> i64
    %wc = opal.dtype_of %weight, %none : !opal.tensor, !opal.none -> i64
    %same = arith.cmpi eq, %ic, %wc : i64
    opal.check %same, "Input type ({0:ctype}) and weight type ({1:ctype}) should be the same" (%ic, %wc : i64, i64)
    %no_bias = opal.is_none %bias : !opal.tensor -> i1
    %empty = opal.has_static_size %input, 1, 0 : !opal.tensor -> i1
    %no_bias_added = arith.ori %no_bias, %empty : i1
    opal.static_if %no_bias {
      opal.yield
    } else {
      %bc = opal.dtype_of %bias, %none : !opal.tensor, !opal.none -> i64
      %bias_same = arith.cmpi eq, %ic, %bc : i64
      opal.check %bias_same, "Input type ({0:ctype}) and bias type ({1:ctype}) should be the same" (%ic, %bc : i64, i64)
      opal.yield
    }
    %y = opal.static_if %transposed -> !opal.tensor {
      %channels = opal.dim_size %input, 1 : !opal.tensor -> i64
      %fits = arith.cmpi eq, %channels, %w0 : i64
      opal.check %fits, "Given transposed=1, weight of size [{0}], expected input[{1}] to have {2} channels, but got {3} channels instead" (%ws, %is, %w0, %channels : !opal.list<i64>, !opal.list<i64>, i64, i64)
      opal.static_if %no_bias {
        opal.yield
      } else {
        %bs = opal.shape_of %bias : !opal.tensor -> !opal.list<i64>
        %vector = opal.has_rank %bias, 1 : !opal.tensor -> i1
        %w1 = opal.dim_size %weight, 1 : !opal.tensor -> i64
        %wf = arith.muli %w1, %groups : i64
        opal.check %vector, "Given transposed=1, weight of size [{0}], expected bias to be 1-dimensional with {1} elements, but got bias of size [{2}] instead" (%ws, %wf, %bs : !opal.list<i64>, i64, !opal.list<i64>)
        opal.yield
      }
      %tr3 = opal.has_rank %weight, 3 : !opal.tensor -> i1
      opal.static_if %tr3 {
        %t1w0 = opal.dim_size %weight, 0 : !opal.tensor -> i64
        %t1w1 = opal.dim_size %weight, 1 : !opal.tensor -> i64
        %t1w2 = opal.dim_size %weight, 2 : !opal.tensor -> i64
        %t1x0 = opal.dim_size %input, 0 : !opal.tensor -> i64
        %t1x1 = opal.dim_size %input, 1 : !opal.tensor -> i64
        %t1x2 = opal.dim_size %input, 2 : !opal.tensor -> i64
        %t1s0 = opal.list_item %s, 0 : !opal.list<i64> -> i64
        %t1p0 = opal.list_item %p, 0 : !opal.list<i64> -> i64
        %t1d0 = opal.list_item %d, 0 : !opal.list<i64> -> i64
        %t1o0 = opal.list_item %op, 0 : !opal.list<i64> -> i64
        %t1one = arith.constant 1 : i64
        %t1zero = arith.constant 0 : i64
        %t1ones = opal.list %t1one : i64 -> !opal.list<i64>
        %t1undilated = opal.list_eq %d, %t1ones : !opal.list<i64>, !opal.list<i64> -> i1
        %t1nobias = opal.is_none %bias : !opal.tensor -> i1
        opal.static_if %t1nobias {
          opal.yield
        } else {
          %t1b0 = opal.dim_size %bias, 0 : !opal.tensor -> i64
          %t1fb = arith.muli %t1w1, %groups : i64
          %t1badbias = arith.cmpi ne, %t1b0, %t1fb : i64
          %t1bias_t = opal.promote %t1badbias : i1 -> !opal.tensor
          opal.data_check %t1bias_t, "Given transposed=1, weight of size [{0}, {1}, {2}], expected bias to be 1-dimensional with {3} elements, but got bias of size [{4}] instead" (%t1w0, %t1w1, %t1w2, %t1fb, %t1b0) : !opal.tensor
          opal.yield
        }
        %t1kz0 = arith.cmpi eq, %t1w2, %t1zero : i64
        %t1f0 = arith.cmpi eq, %t1w1, %t1zero : i64
        %t1wempty_t = opal.promote %t1f0 : i1 -> !opal.tensor
        opal.data_check %t1wempty_t, "non-empty 2D or 4D weight tensor expected, but got: [{0}, {1}, {2}, {3}]" (%t1w0, %t1w1, %t1one, %t1w2) : !opal.tensor
        %t1kernel_t = opal.promote %t1kz0 : i1 -> !opal.tensor
        opal.data_check %t1kernel_t, "kernel size should be greater than zero, but got kernel_height: {0} kernel_width: {1}" (%t1one, %t1w2) : !opal.tensor
        %t1n0 = arith.cmpi ne, %t1x0, %t1zero : i64
        %t1c0 = arith.cmpi ne, %t1x1, %t1zero : i64
        %t1filled = arith.andi %t1n0, %t1c0 : i1
        %t1ez0 = arith.cmpi eq, %t1x2, %t1zero : i64
        %t1hollow = arith.andi %t1filled, %t1ez0 : i1
        %t1hollow_t = opal.promote %t1hollow : i1 -> !opal.tensor
        opal.data_check %t1hollow_t, "Only zero batch or zero channel inputs are supported, but got input shape: [{0}, {1}, {2}, {3}]" (%t1x0, %t1x1, %t1one, %t1x2) : !opal.tensor
        %t1batch1 = arith.cmpi eq, %t1x0, %t1one : i64
        %t1least = arith.select %t1batch1, %t1one, %t1zero : i64
        %t1im0 = arith.subi %t1x2, %t1one : i64
        %t1is0 = arith.muli %t1im0, %t1s0 : i64
        %t1pp0 = arith.addi %t1p0, %t1p0 : i64
        %t1km0 = arith.subi %t1w2, %t1one : i64
        %t1kd0 = arith.muli %t1km0, %t1d0 : i64
        %t1sa0 = arith.subi %t1is0, %t1pp0 : i64
        %t1sb0 = arith.addi %t1sa0, %t1kd0 : i64
        %t1sc0 = arith.addi %t1sb0, %t1o0 : i64
        %t1os0 = arith.addi %t1sc0, %t1one : i64
        %t1small0 = arith.cmpi slt, %t1os0, %t1least : i64
        %t1out_t = opal.promote %t1small0 : i1 -> !opal.tensor
        opal.data_check %t1out_t, "Given input size per channel: ({0} x {1}). Calculated output size per channel: ({2} x {3}). Output size is too small" (%t1one, %t1x2, %t1one, %t1os0) : !opal.tensor
        %t1dt_k4 = arith.constant 4 : i64
        %t1dt_is4 = arith.cmpi eq, %ic, %t1dt_k4 : i64
        %t1dt_k6 = arith.constant 6 : i64
        %t1dt_is6 = arith.cmpi eq, %ic, %t1dt_k6 : i64
        %t1dt_k7 = arith.constant 7 : i64
        %t1dt_is7 = arith.cmpi eq, %ic, %t1dt_k7 : i64
        %t1dt_or0 = arith.ori %t1dt_is4, %t1dt_is6 : i1
        %t1dt_or1 = arith.ori %t1dt_or0, %t1dt_is7 : i1
        opal.check %t1dt_or1, "\"slow_conv_transpose2d_out_cpu\" not implemented for '{0:dtype}'" (%ic : i64)
        opal.yield
      } else {
        %tr4 = opal.has_rank %weight, 4 : !opal.tensor -> i1
        opal.static_if %tr4 {
          %t2w0 = opal.dim_size %weight, 0 : !opal.tensor -> i64
          %t2w1 = opal.dim_size %weight, 1 : !opal.tensor -> i64
          %t2w2 = opal.dim_size %weight, 2 : !opal.tensor -> i64
          %t2w3 = opal.dim_size %weight, 3 : !opal.tensor -> i64
          %t2x0 = opal.dim_size %input, 0 : !opal.tensor -> i64
          %t2x1 = opal.dim_size %input, 1 : !opal.tensor -> i64
          %t2x2 = opal.dim_size %input, 2 : !opal.tensor -> i64
          %t2x3 = opal.dim_size %input, 3 : !opal.tensor -> i64
          %t2s0 = opal.list_item %s, 0 : !opal.list<i64> -> i64
          %t2p0 = opal.list_item %p, 0 : !opal.list<i64> -> i64
          %t2d0 = opal.list_item %d, 0 : !opal.list<i64> -> i64
          %t2o0 = opal.list_item %op, 0 : !opal.list<i64> -> i64
          %t2s1 = opal.list_item %s, 1 : !opal.list<i64> -> i64
          %t2p1 = opal.list_item %p, 1 : !opal.list<i64> -> i64
          %t2d1 = opal.list_item %d, 1 : !opal.list<i64> -> i64
          %t2o1 = opal.list_item %op, 1 : !opal.list<i64> -> i64
          %t2one = arith.constant 1 : i64
          %t2zero = arith.constant 0 : i64
          %t2ones = opal.list %t2one, %t2one : i64, i64 -> !opal.list<i64>
          %t2undilated = opal.list_eq %d, %t2ones : !opal.list<i64>, !opal.list<i64> -> i1
          %t2nobias = opal.is_none %bias : !opal.tensor -> i1
          opal.static_if %t2nobias {
            opal.yield
          } else {
            %t2b0 = opal.dim_size %bias, 0 : !opal.tensor -> i64
            %t2fb = arith.muli %t2w1, %groups : i64
            %t2badbias = arith.cmpi ne, %t2b0, %t2fb : i64
            %t2bias_t = opal.promote %t2badbias : i1 -> !opal.tensor
            opal.data_check %t2bias_t, "Given transposed=1, weight of size [{0}, {1}, {2}, {3}], expected bias to be 1-dimensional with {4} elements, but got bias of size [{5}] instead" (%t2w0, %t2w1, %t2w2, %t2w3, %t2fb, %t2b0) : !opal.tensor
            opal.yield
          }
          %t2kz0 = arith.cmpi eq, %t2w2, %t2zero : i64
          %t2kz1 = arith.cmpi eq, %t2w3, %t2zero : i64
          %t2kz_or0 = arith.ori %t2kz0, %t2kz1 : i1
          %t2f0 = arith.cmpi eq, %t2w1, %t2zero : i64
          %t2wempty_t = opal.promote %t2f0 : i1 -> !opal.tensor
          opal.data_check %t2wempty_t, "non-empty 2D or 4D weight tensor expected, but got: [{0}, {1}, {2}, {3}]" (%t2w0, %t2w1, %t2w2, %t2w3) : !opal.tensor
          %t2kernel_t = opal.promote %t2kz_or0 : i1 -> !opal.tensor
          opal.data_check %t2kernel_t, "kernel size should be greater than zero, but got kernel_height: {0} kernel_width: {1}" (%t2w2, %t2w3) : !opal.tensor
          %t2n0 = arith.cmpi ne, %t2x0, %t2zero : i64
          %t2c0 = arith.cmpi ne, %t2x1, %t2zero : i64
          %t2filled = arith.andi %t2n0, %t2c0 : i1
          %t2ez0 = arith.cmpi eq, %t2x2, %t2zero : i64
          %t2ez1 = arith.cmpi eq, %t2x3, %t2zero : i64
          %t2ez_or0 = arith.ori %t2ez0, %t2ez1 : i1
          %t2hollow = arith.andi %t2filled, %t2ez_or0 : i1
          %t2hollow_t = opal.promote %t2hollow : i1 -> !opal.tensor
          opal.data_check %t2hollow_t, "Only zero batch or zero channel inputs are supported, but got input shape: [{0}, {1}, {2}, {3}]" (%t2x0, %t2x1, %t2x2, %t2x3) : !opal.tensor
          %t2batch1 = arith.cmpi eq, %t2x0, %t2one : i64
          %t2least = arith.select %t2batch1, %t2one, %t2zero : i64
          %t2im0 = arith.subi %t2x2, %t2one : i64
          %t2is0 = arith.muli %t2im0, %t2s0 : i64
          %t2pp0 = arith.addi %t2p0, %t2p0 : i64
          %t2km0 = arith.subi %t2w2, %t2one : i64
          %t2kd0 = arith.muli %t2km0, %t2d0 : i64
          %t2sa0 = arith.subi %t2is0, %t2pp0 : i64
          %t2sb0 = arith.addi %t2sa0, %t2kd0 : i64
          %t2sc0 = arith.addi %t2sb0, %t2o0 : i64
          %t2os0 = arith.addi %t2sc0, %t2one : i64
          %t2small0 = arith.cmpi slt, %t2os0, %t2least : i64
          %t2im1 = arith.subi %t2x3, %t2one : i64
          %t2is1 = arith.muli %t2im1, %t2s1 : i64
          %t2pp1 = arith.addi %t2p1, %t2p1 : i64
          %t2km1 = arith.subi %t2w3, %t2one : i64
          %t2kd1 = arith.muli %t2km1, %t2d1 : i64
          %t2sa1 = arith.subi %t2is1, %t2pp1 : i64
          %t2sb1 = arith.addi %t2sa1, %t2kd1 : i64
          %t2sc1 = arith.addi %t2sb1, %t2o1 : i64
          %t2os1 = arith.addi %t2sc1, %t2one : i64
          %t2small1 = arith.cmpi slt, %t2os1, %t2least : i64
          %t2small_or0 = arith.ori %t2small0, %t2small1 : i1
          %t2out_t = opal.promote %t2small_or0 : i1 -> !opal.tensor
          opal.data_check %t2out_t, "Given input size per channel: ({0} x {1}). Calculated output size per channel: ({2} x {3}). Output size is too small" (%t2x2, %t2x3, %t2os0, %t2os1) : !opal.tensor
          %t2dt_k4 = arith.constant 4 : i64
          %t2dt_is4 = arith.cmpi eq, %ic, %t2dt_k4 : i64
          %t2dt_k6 = arith.constant 6 : i64
          %t2dt_is6 = arith.cmpi eq, %ic, %t2dt_k6 : i64
          %t2dt_k7 = arith.constant 7 : i64
          %t2dt_is7 = arith.cmpi eq, %ic, %t2dt_k7 : i64
          %t2dt_or0 = arith.ori %t2dt_is4, %t2dt_is6 : i1
          %t2dt_or1 = arith.ori %t2dt_or0, %t2dt_is7 : i1
          opal.check %t2dt_or1, "\"slow_conv_transpose2d_out_cpu\" not implemented for '{0:dtype}'" (%ic : i64)
          opal.yield
        } else {
          %t3w0 = opal.dim_size %weight, 0 : !opal.tensor -> i64
          %t3w1 = opal.dim_size %weight, 1 : !opal.tensor -> i64
          %t3w2 = opal.dim_size %weight, 2 : !opal.tensor -> i64
          %t3w3 = opal.dim_size %weight, 3 : !opal.tensor -> i64
          %t3w4 = opal.dim_size %weight, 4 : !opal.tensor -> i64
          %t3x0 = opal.dim_size %input, 0 : !opal.tensor -> i64
          %t3x1 = opal.dim_size %input, 1 : !opal.tensor -> i64
          %t3x2 = opal.dim_size %input, 2 : !opal.tensor -> i64
          %t3x3 = opal.dim_size %input, 3 : !opal.tensor -> i64
          %t3x4 = opal.dim_size %input, 4 : !opal.tensor -> i64
          %t3s0 = opal.list_item %s, 0 : !opal.list<i64> -> i64
          %t3p0 = opal.list_item %p, 0 : !opal.list<i64> -> i64
          %t3d0 = opal.list_item %d, 0 : !opal.list<i64> -> i64
          %t3o0 = opal.list_item %op, 0 : !opal.list<i64> -> i64
          %t3s1 = opal.list_item %s, 1 : !opal.list<i64> -> i64
          %t3p1 = opal.list_item %p, 1 : !opal.list<i64> -> i64
          %t3d1 = opal.list_item %d, 1 : !opal.list<i64> -> i64
          %t3o1 = opal.list_item %op, 1 : !opal.list<i64> -> i64
          %t3s2 = opal.list_item %s, 2 : !opal.list<i64> -> i64
          %t3p2 = opal.list_item %p, 2 : !opal.list<i64> -> i64
          %t3d2 = opal.list_item %d, 2 : !opal.list<i64> -> i64
          %t3o2 = opal.list_item %op, 2 : !opal.list<i64> -> i64
          %t3one = arith.constant 1 : i64
          %t3zero = arith.constant 0 : i64
          %t3ones = opal.list %t3one, %t3one, %t3one : i64, i64, i64 -> !opal.list<i64>
          %t3undilated = opal.list_eq %d, %t3ones : !opal.list<i64>, !opal.list<i64> -> i1
          %t3nobias = opal.is_none %bias : !opal.tensor -> i1
          opal.static_if %t3nobias {
            opal.yield
          } else {
            %t3b0 = opal.dim_size %bias, 0 : !opal.tensor -> i64
            %t3fb = arith.muli %t3w1, %groups : i64
            %t3badbias = arith.cmpi ne, %t3b0, %t3fb : i64
            %t3bias_t = opal.promote %t3badbias : i1 -> !opal.tensor
            opal.data_check %t3bias_t, "Given transposed=1, weight of size [{0}, {1}, {2}, {3}, {4}], expected bias to be 1-dimensional with {5} elements, but got bias of size [{6}] instead" (%t3w0, %t3w1, %t3w2, %t3w3, %t3w4, %t3fb, %t3b0) : !opal.tensor
            opal.yield
          }
          %t3kz0 = arith.cmpi eq, %t3w2, %t3zero : i64
          %t3kz1 = arith.cmpi eq, %t3w3, %t3zero : i64
          %t3kz2 = arith.cmpi eq, %t3w4, %t3zero : i64
          %t3kz_or0 = arith.ori %t3kz0, %t3kz1 : i1
          %t3kz_or1 = arith.ori %t3kz_or0, %t3kz2 : i1
          %t3f0 = arith.cmpi eq, %t3w1, %t3zero : i64
          %t3wempty = arith.ori %t3kz_or1, %t3f0 : i1
          %t3kernel_t = opal.promote %t3wempty : i1 -> !opal.tensor
          opal.data_check %t3kernel_t, "non-empty 5D (n_output_plane x n_input_plane x kernel_depth x kernel_height x kernel_width) tensor expected for weight, but got: [{0}, {1}, {2}, {3}, {4}]" (%t3w0, %t3w1, %t3w2, %t3w3, %t3w4) : !opal.tensor
          %t3n0 = arith.cmpi ne, %t3x0, %t3zero : i64
          %t3c0 = arith.cmpi ne, %t3x1, %t3zero : i64
          %t3filled = arith.andi %t3n0, %t3c0 : i1
          %t3ez0 = arith.cmpi eq, %t3x2, %t3zero : i64
          %t3ez1 = arith.cmpi eq, %t3x3, %t3zero : i64
          %t3ez2 = arith.cmpi eq, %t3x4, %t3zero : i64
          %t3ez_or0 = arith.ori %t3ez0, %t3ez1 : i1
          %t3ez_or1 = arith.ori %t3ez_or0, %t3ez2 : i1
          %t3hollow = arith.andi %t3filled, %t3ez_or1 : i1
          %t3hollow_t = opal.promote %t3hollow : i1 -> !opal.tensor
          opal.data_check %t3hollow_t, "Only zero batch or zero channel inputs are supported, but got input shape: [{0}, {1}, {2}, {3}, {4}]" (%t3x0, %t3x1, %t3x2, %t3x3, %t3x4) : !opal.tensor
          %t3batch1 = arith.cmpi eq, %t3x0, %t3one : i64
          %t3least = arith.select %t3batch1, %t3one, %t3zero : i64
          %t3im0 = arith.subi %t3x2, %t3one : i64
          %t3is0 = arith.muli %t3im0, %t3s0 : i64
          %t3pp0 = arith.addi %t3p0, %t3p0 : i64
          %t3km0 = arith.subi %t3w2, %t3one : i64
          %t3kd0 = arith.muli %t3km0, %t3d0 : i64
          %t3sa0 = arith.subi %t3is0, %t3pp0 : i64
          %t3sb0 = arith.addi %t3sa0, %t3kd0 : i64
          %t3sc0 = arith.addi %t3sb0, %t3o0 : i64
          %t3os0 = arith.addi %t3sc0, %t3one : i64
          %t3small0 = arith.cmpi slt, %t3os0, %t3least : i64
          %t3im1 = arith.subi %t3x3, %t3one : i64
          %t3is1 = arith.muli %t3im1, %t3s1 : i64
          %t3pp1 = arith.addi %t3p1, %t3p1 : i64
          %t3km1 = arith.subi %t3w3, %t3one : i64
          %t3kd1 = arith.muli %t3km1, %t3d1 : i64
          %t3sa1 = arith.subi %t3is1, %t3pp1 : i64
          %t3sb1 = arith.addi %t3sa1, %t3kd1 : i64
          %t3sc1 = arith.addi %t3sb1, %t3o1 : i64
          %t3os1 = arith.addi %t3sc1, %t3one : i64
          %t3small1 = arith.cmpi slt, %t3os1, %t3least : i64
          %t3im2 = arith.subi %t3x4, %t3one : i64
          %t3is2 = arith.muli %t3im2, %t3s2 : i64
          %t3pp2 = arith.addi %t3p2, %t3p2 : i64
          %t3km2 = arith.subi %t3w4, %t3one : i64
          %t3kd2 = arith.muli %t3km2, %t3d2 : i64
          %t3sa2 = arith.subi %t3is2, %t3pp2 : i64
          %t3sb2 = arith.addi %t3sa2, %t3kd2 : i64
          %t3sc2 = arith.addi %t3sb2, %t3o2 : i64
          %t3os2 = arith.addi %t3sc2, %t3one : i64
          %t3small2 = arith.cmpi slt, %t3os2, %t3least : i64
          %t3small_or0 = arith.ori %t3small0, %t3small1 : i1
          %t3small_or1 = arith.ori %t3small_or0, %t3small2 : i1
          %t3out_t = opal.promote %t3small_or1 : i1 -> !opal.tensor
          opal.data_check %t3out_t, "Given input size per channel: ({0} x {1} x {2}). Calculated output size per channel: ({3} x {4} x {5}). Output size is too small" (%t3x2, %t3x3, %t3x4, %t3os0, %t3os1, %t3os2) : !opal.tensor
          %t3dt_k4 = arith.constant 4 : i64
          %t3dt_is4 = arith.cmpi eq, %ic, %t3dt_k4 : i64
          %t3dt_k6 = arith.constant 6 : i64
          %t3dt_is6 = arith.cmpi eq, %ic, %t3dt_k6 : i64
          %t3dt_k7 = arith.constant 7 : i64
          %t3dt_is7 = arith.cmpi eq, %ic, %t3dt_k7 : i64
          %t3dt_or0 = arith.ori %t3dt_is4, %t3dt_is6 : i1
          %t3dt_or1 = arith.ori %t3dt_or0, %t3dt_is7 : i1
          opal.check %t3dt_or1, "\"slow_conv_transpose3d_out_cpu\" not implemented for '{0:dtype}'" (%ic : i64)
          opal.yield
        }
        opal.yield
      }
      %t = prims.conv_transpose %input, %weight, %s, %p, %d, %op, %groups : (!opal.tensor, !opal.tensor, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, i64) -> !opal.tensor
      opal.yield %t : !opal.tensor
    } else {
      opal.static_if %no_bias {
        opal.yield
      } else {
        %bs = opal.shape_of %bias : !opal.tensor -> !opal.list<i64>
        %one_f = opal.list %w0 : i64 -> !opal.list<i64>
        %bias_fits = opal.list_eq %bs, %one_f : !opal.list<i64>, !opal.list<i64> -> i1
        opal.check %bias_fits, "Given weight of size [{0}], expected bias to be 1-dimensional with {1} elements, but got bias of size [{2}] instead" (%ws, %w0, %bs : !opal.list<i64>, i64, !opal.list<i64>)
        opal.yield
      }
      %dr3 = opal.has_rank %weight, 3 : !opal.tensor -> i1
      opal.static_if %dr3 {
        %d1w0 = opal.dim_size %weight, 0 : !opal.tensor -> i64
        %d1w1 = opal.dim_size %weight, 1 : !opal.tensor -> i64
        %d1w2 = opal.dim_size %weight, 2 : !opal.tensor -> i64
        %d1x0 = opal.dim_size %input, 0 : !opal.tensor -> i64
        %d1x1 = opal.dim_size %input, 1 : !opal.tensor -> i64
        %d1x2 = opal.dim_size %input, 2 : !opal.tensor -> i64
        %d1s0 = opal.list_item %s, 0 : !opal.list<i64> -> i64
        %d1p0 = opal.list_item %p, 0 : !opal.list<i64> -> i64
        %d1d0 = opal.list_item %d, 0 : !opal.list<i64> -> i64
        %d1one = arith.constant 1 : i64
        %d1zero = arith.constant 0 : i64
        %d1ones = opal.list %d1one : i64 -> !opal.list<i64>
        %d1undilated = opal.list_eq %d, %d1ones : !opal.list<i64>, !opal.list<i64> -> i1
        %d1rem = arith.remsi %d1w0, %groups : i64
        %d1indivisible = arith.cmpi ne, %d1rem, %d1zero : i64
        %d1div_t = opal.promote %d1indivisible : i1 -> !opal.tensor
        opal.data_check %d1div_t, "Given groups={0}, expected weight to be divisible by {0} at dimension 0, but got weight of size [[{1}, {2}, {3}]] instead" (%groups, %d1w0, %d1w1, %d1w2) : !opal.tensor
        %d1want = arith.muli %d1w1, %groups : i64
        %d1short = arith.cmpi ne, %d1x1, %d1want : i64
        %d1ch_t = opal.promote %d1short : i1 -> !opal.tensor
        opal.data_check %d1ch_t, "Given groups={0}, weight of size [{1}, {2}, {3}], expected input[{4}, {5}, {6}] to have {7} channels, but got {8} channels instead" (%groups, %d1w0, %d1w1, %d1w2, %d1x0, %d1x1, %d1x2, %d1want, %d1x1) : !opal.tensor
        %d1kz0 = arith.cmpi eq, %d1w2, %d1zero : i64
        %d1kernel_t = opal.promote %d1kz0 : i1 -> !opal.tensor
        opal.data_check %d1kernel_t, "kernel size should be greater than zero, but got kernel_height: {0} kernel_width: {1}" (%d1one, %d1w2) : !opal.tensor
        %d1n0 = arith.cmpi ne, %d1x0, %d1zero : i64
        %d1c0 = arith.cmpi ne, %d1x1, %d1zero : i64
        %d1filled = arith.andi %d1n0, %d1c0 : i1
        %d1ez0 = arith.cmpi eq, %d1x2, %d1zero : i64
        %d1hollow = arith.andi %d1filled, %d1ez0 : i1
        %d1pp0 = arith.addi %d1p0, %d1p0 : i64
        %d1ip0 = arith.addi %d1x2, %d1pp0 : i64
        %d1km0 = arith.subi %d1w2, %d1one : i64
        %d1kd0x:2 = arith.mulsi_extended %d1km0, %d1d0 : i64
        %d1kd0c63 = arith.constant 63 : i64
        %d1kd0sg = arith.shrsi %d1kd0x#0, %d1kd0c63 : i64
        %d1kd0ov = arith.cmpi ne, %d1kd0x#1, %d1kd0sg : i64
        %d1kd0max = arith.constant 9223372036854775807 : i64
        %d1kd0 = arith.select %d1kd0ov, %d1kd0max, %d1kd0x#0 : i64
        %d1ke0s = arith.addi %d1kd0, %d1one : i64
        %d1ke0ov = arith.cmpi slt, %d1ke0s, %d1kd0 : i64
        %d1ke0max = arith.constant 9223372036854775807 : i64
        %d1ke0 = arith.select %d1ke0ov, %d1ke0max, %d1ke0s : i64
        %d1lt0 = arith.cmpi slt, %d1ip0, %d1ke0 : i64
        %d1size_t = opal.promote %d1lt0 : i1 -> !opal.tensor
        opal.data_check %d1size_t, "Calculated padded input size per channel: ({0}). Kernel size: ({1}). Kernel size can't be greater than actual input size" (%d1ip0, %d1ke0) : !opal.tensor
        %d1hollow_t = opal.promote %d1hollow : i1 -> !opal.tensor
        opal.data_check %d1hollow_t, "Only zero batch or zero channel inputs are supported, but got input shape: [{0}, {1}, {2}, {3}]" (%d1x0, %d1x1, %d1one, %d1x2) : !opal.tensor
        %d1dtype = opal.static_if %d1undilated -> i1 {
          %d1dt_k0 = arith.constant 0 : i64
          %d1dt_is0 = arith.cmpi eq, %ic, %d1dt_k0 : i64
          %d1dt_k1 = arith.constant 1 : i64
          %d1dt_is1 = arith.cmpi eq, %ic, %d1dt_k1 : i64
          %d1dt_k2 = arith.constant 2 : i64
          %d1dt_is2 = arith.cmpi eq, %ic, %d1dt_k2 : i64
          %d1dt_k3 = arith.constant 3 : i64
          %d1dt_is3 = arith.cmpi eq, %ic, %d1dt_k3 : i64
          %d1dt_k4 = arith.constant 4 : i64
          %d1dt_is4 = arith.cmpi eq, %ic, %d1dt_k4 : i64
          %d1dt_k6 = arith.constant 6 : i64
          %d1dt_is6 = arith.cmpi eq, %ic, %d1dt_k6 : i64
          %d1dt_k7 = arith.constant 7 : i64
          %d1dt_is7 = arith.cmpi eq, %ic, %d1dt_k7 : i64
          %d1dt_k15 = arith.constant 15 : i64
          %d1dt_is15 = arith.cmpi eq, %ic, %d1dt_k15 : i64
          %d1dt_or0 = arith.ori %d1dt_is0, %d1dt_is1 : i1
          %d1dt_or1 = arith.ori %d1dt_or0, %d1dt_is2 : i1
          %d1dt_or2 = arith.ori %d1dt_or1, %d1dt_is3 : i1
          %d1dt_or3 = arith.ori %d1dt_or2, %d1dt_is4 : i1
          %d1dt_or4 = arith.ori %d1dt_or3, %d1dt_is6 : i1
          %d1dt_or5 = arith.ori %d1dt_or4, %d1dt_is7 : i1
          %d1dt_or6 = arith.ori %d1dt_or5, %d1dt_is15 : i1
          opal.check %d1dt_or6, "\"slow_conv2d_cpu\" not implemented for '{0:dtype}'" (%ic : i64)
          opal.yield %d1undilated : i1
        } else {
          %d1dd_k4 = arith.constant 4 : i64
          %d1dd_is4 = arith.cmpi eq, %ic, %d1dd_k4 : i64
          %d1dd_k6 = arith.constant 6 : i64
          %d1dd_is6 = arith.cmpi eq, %ic, %d1dd_k6 : i64
          %d1dd_k7 = arith.constant 7 : i64
          %d1dd_is7 = arith.cmpi eq, %ic, %d1dd_k7 : i64
          %d1dd_k15 = arith.constant 15 : i64
          %d1dd_is15 = arith.cmpi eq, %ic, %d1dd_k15 : i64
          %d1dd_or0 = arith.ori %d1dd_is4, %d1dd_is6 : i1
          %d1dd_or1 = arith.ori %d1dd_or0, %d1dd_is7 : i1
          %d1dd_or2 = arith.ori %d1dd_or1, %d1dd_is15 : i1
          opal.check %d1dd_or2, "\"slow_conv_dilated<>\" not implemented for '{0:dtype}'" (%ic : i64)
          opal.yield %d1undilated : i1
        }
        opal.yield
      } else {
        %dr4 = opal.has_rank %weight, 4 : !opal.tensor -> i1
        opal.static_if %dr4 {
          %d2w0 = opal.dim_size %weight, 0 : !opal.tensor -> i64
          %d2w1 = opal.dim_size %weight, 1 : !opal.tensor -> i64
          %d2w2 = opal.dim_size %weight, 2 : !opal.tensor -> i64
          %d2w3 = opal.dim_size %weight, 3 : !opal.tensor -> i64
          %d2x0 = opal.dim_size %input, 0 : !opal.tensor -> i64
          %d2x1 = opal.dim_size %input, 1 : !opal.tensor -> i64
          %d2x2 = opal.dim_size %input, 2 : !opal.tensor -> i64
          %d2x3 = opal.dim_size %input, 3 : !opal.tensor -> i64
          %d2s0 = opal.list_item %s, 0 : !opal.list<i64> -> i64
          %d2p0 = opal.list_item %p, 0 : !opal.list<i64> -> i64
          %d2d0 = opal.list_item %d, 0 : !opal.list<i64> -> i64
          %d2s1 = opal.list_item %s, 1 : !opal.list<i64> -> i64
          %d2p1 = opal.list_item %p, 1 : !opal.list<i64> -> i64
          %d2d1 = opal.list_item %d, 1 : !opal.list<i64> -> i64
          %d2one = arith.constant 1 : i64
          %d2zero = arith.constant 0 : i64
          %d2ones = opal.list %d2one, %d2one : i64, i64 -> !opal.list<i64>
          %d2undilated = opal.list_eq %d, %d2ones : !opal.list<i64>, !opal.list<i64> -> i1
          %d2rem = arith.remsi %d2w0, %groups : i64
          %d2indivisible = arith.cmpi ne, %d2rem, %d2zero : i64
          %d2div_t = opal.promote %d2indivisible : i1 -> !opal.tensor
          opal.data_check %d2div_t, "Given groups={0}, expected weight to be divisible by {0} at dimension 0, but got weight of size [[{1}, {2}, {3}, {4}]] instead" (%groups, %d2w0, %d2w1, %d2w2, %d2w3) : !opal.tensor
          %d2want = arith.muli %d2w1, %groups : i64
          %d2short = arith.cmpi ne, %d2x1, %d2want : i64
          %d2ch_t = opal.promote %d2short : i1 -> !opal.tensor
          opal.data_check %d2ch_t, "Given groups={0}, weight of size [{1}, {2}, {3}, {4}], expected input[{5}, {6}, {7}, {8}] to have {9} channels, but got {10} channels instead" (%groups, %d2w0, %d2w1, %d2w2, %d2w3, %d2x0, %d2x1, %d2x2, %d2x3, %d2want, %d2x1) : !opal.tensor
          %d2kz0 = arith.cmpi eq, %d2w2, %d2zero : i64
          %d2kz1 = arith.cmpi eq, %d2w3, %d2zero : i64
          %d2kz_or0 = arith.ori %d2kz0, %d2kz1 : i1
          %d2kernel_t = opal.promote %d2kz_or0 : i1 -> !opal.tensor
          opal.data_check %d2kernel_t, "kernel size should be greater than zero, but got kernel_height: {0} kernel_width: {1}" (%d2w2, %d2w3) : !opal.tensor
          %d2n0 = arith.cmpi ne, %d2x0, %d2zero : i64
          %d2c0 = arith.cmpi ne, %d2x1, %d2zero : i64
          %d2filled = arith.andi %d2n0, %d2c0 : i1
          %d2ez0 = arith.cmpi eq, %d2x2, %d2zero : i64
          %d2ez1 = arith.cmpi eq, %d2x3, %d2zero : i64
          %d2ez_or0 = arith.ori %d2ez0, %d2ez1 : i1
          %d2hollow = arith.andi %d2filled, %d2ez_or0 : i1
          %d2pp0 = arith.addi %d2p0, %d2p0 : i64
          %d2ip0 = arith.addi %d2x2, %d2pp0 : i64
          %d2km0 = arith.subi %d2w2, %d2one : i64
          %d2kd0x:2 = arith.mulsi_extended %d2km0, %d2d0 : i64
          %d2kd0c63 = arith.constant 63 : i64
          %d2kd0sg = arith.shrsi %d2kd0x#0, %d2kd0c63 : i64
          %d2kd0ov = arith.cmpi ne, %d2kd0x#1, %d2kd0sg : i64
          %d2kd0max = arith.constant 9223372036854775807 : i64
          %d2kd0 = arith.select %d2kd0ov, %d2kd0max, %d2kd0x#0 : i64
          %d2ke0s = arith.addi %d2kd0, %d2one : i64
          %d2ke0ov = arith.cmpi slt, %d2ke0s, %d2kd0 : i64
          %d2ke0max = arith.constant 9223372036854775807 : i64
          %d2ke0 = arith.select %d2ke0ov, %d2ke0max, %d2ke0s : i64
          %d2lt0 = arith.cmpi slt, %d2ip0, %d2ke0 : i64
          %d2pp1 = arith.addi %d2p1, %d2p1 : i64
          %d2ip1 = arith.addi %d2x3, %d2pp1 : i64
          %d2km1 = arith.subi %d2w3, %d2one : i64
          %d2kd1x:2 = arith.mulsi_extended %d2km1, %d2d1 : i64
          %d2kd1c63 = arith.constant 63 : i64
          %d2kd1sg = arith.shrsi %d2kd1x#0, %d2kd1c63 : i64
          %d2kd1ov = arith.cmpi ne, %d2kd1x#1, %d2kd1sg : i64
          %d2kd1max = arith.constant 9223372036854775807 : i64
          %d2kd1 = arith.select %d2kd1ov, %d2kd1max, %d2kd1x#0 : i64
          %d2ke1s = arith.addi %d2kd1, %d2one : i64
          %d2ke1ov = arith.cmpi slt, %d2ke1s, %d2kd1 : i64
          %d2ke1max = arith.constant 9223372036854775807 : i64
          %d2ke1 = arith.select %d2ke1ov, %d2ke1max, %d2ke1s : i64
          %d2lt1 = arith.cmpi slt, %d2ip1, %d2ke1 : i64
          %d2big_or0 = arith.ori %d2lt0, %d2lt1 : i1
          %d2size_t = opal.promote %d2big_or0 : i1 -> !opal.tensor
          opal.data_check %d2size_t, "Calculated padded input size per channel: ({0} x {1}). Kernel size: ({2} x {3}). Kernel size can't be greater than actual input size" (%d2ip0, %d2ip1, %d2ke0, %d2ke1) : !opal.tensor
          %d2hollow_t = opal.promote %d2hollow : i1 -> !opal.tensor
          opal.data_check %d2hollow_t, "Only zero batch or zero channel inputs are supported, but got input shape: [{0}, {1}, {2}, {3}]" (%d2x0, %d2x1, %d2x2, %d2x3) : !opal.tensor
          %d2dtype = opal.static_if %d2undilated -> i1 {
            %d2dt_k0 = arith.constant 0 : i64
            %d2dt_is0 = arith.cmpi eq, %ic, %d2dt_k0 : i64
            %d2dt_k1 = arith.constant 1 : i64
            %d2dt_is1 = arith.cmpi eq, %ic, %d2dt_k1 : i64
            %d2dt_k2 = arith.constant 2 : i64
            %d2dt_is2 = arith.cmpi eq, %ic, %d2dt_k2 : i64
            %d2dt_k3 = arith.constant 3 : i64
            %d2dt_is3 = arith.cmpi eq, %ic, %d2dt_k3 : i64
            %d2dt_k4 = arith.constant 4 : i64
            %d2dt_is4 = arith.cmpi eq, %ic, %d2dt_k4 : i64
            %d2dt_k6 = arith.constant 6 : i64
            %d2dt_is6 = arith.cmpi eq, %ic, %d2dt_k6 : i64
            %d2dt_k7 = arith.constant 7 : i64
            %d2dt_is7 = arith.cmpi eq, %ic, %d2dt_k7 : i64
            %d2dt_k15 = arith.constant 15 : i64
            %d2dt_is15 = arith.cmpi eq, %ic, %d2dt_k15 : i64
            %d2dt_or0 = arith.ori %d2dt_is0, %d2dt_is1 : i1
            %d2dt_or1 = arith.ori %d2dt_or0, %d2dt_is2 : i1
            %d2dt_or2 = arith.ori %d2dt_or1, %d2dt_is3 : i1
            %d2dt_or3 = arith.ori %d2dt_or2, %d2dt_is4 : i1
            %d2dt_or4 = arith.ori %d2dt_or3, %d2dt_is6 : i1
            %d2dt_or5 = arith.ori %d2dt_or4, %d2dt_is7 : i1
            %d2dt_or6 = arith.ori %d2dt_or5, %d2dt_is15 : i1
            opal.check %d2dt_or6, "\"slow_conv2d_cpu\" not implemented for '{0:dtype}'" (%ic : i64)
            opal.yield %d2undilated : i1
          } else {
            %d2dd_k4 = arith.constant 4 : i64
            %d2dd_is4 = arith.cmpi eq, %ic, %d2dd_k4 : i64
            %d2dd_k6 = arith.constant 6 : i64
            %d2dd_is6 = arith.cmpi eq, %ic, %d2dd_k6 : i64
            %d2dd_k7 = arith.constant 7 : i64
            %d2dd_is7 = arith.cmpi eq, %ic, %d2dd_k7 : i64
            %d2dd_k15 = arith.constant 15 : i64
            %d2dd_is15 = arith.cmpi eq, %ic, %d2dd_k15 : i64
            %d2dd_or0 = arith.ori %d2dd_is4, %d2dd_is6 : i1
            %d2dd_or1 = arith.ori %d2dd_or0, %d2dd_is7 : i1
            %d2dd_or2 = arith.ori %d2dd_or1, %d2dd_is15 : i1
            opal.check %d2dd_or2, "\"slow_conv_dilated<>\" not implemented for '{0:dtype}'" (%ic : i64)
            opal.yield %d2undilated : i1
          }
          opal.yield
        } else {
          %d3w0 = opal.dim_size %weight, 0 : !opal.tensor -> i64
          %d3w1 = opal.dim_size %weight, 1 : !opal.tensor -> i64
          %d3w2 = opal.dim_size %weight, 2 : !opal.tensor -> i64
          %d3w3 = opal.dim_size %weight, 3 : !opal.tensor -> i64
          %d3w4 = opal.dim_size %weight, 4 : !opal.tensor -> i64
          %d3x0 = opal.dim_size %input, 0 : !opal.tensor -> i64
          %d3x1 = opal.dim_size %input, 1 : !opal.tensor -> i64
          %d3x2 = opal.dim_size %input, 2 : !opal.tensor -> i64
          %d3x3 = opal.dim_size %input, 3 : !opal.tensor -> i64
          %d3x4 = opal.dim_size %input, 4 : !opal.tensor -> i64
          %d3s0 = opal.list_item %s, 0 : !opal.list<i64> -> i64
          %d3p0 = opal.list_item %p, 0 : !opal.list<i64> -> i64
          %d3d0 = opal.list_item %d, 0 : !opal.list<i64> -> i64
          %d3s1 = opal.list_item %s, 1 : !opal.list<i64> -> i64
          %d3p1 = opal.list_item %p, 1 : !opal.list<i64> -> i64
          %d3d1 = opal.list_item %d, 1 : !opal.list<i64> -> i64
          %d3s2 = opal.list_item %s, 2 : !opal.list<i64> -> i64
          %d3p2 = opal.list_item %p, 2 : !opal.list<i64> -> i64
          %d3d2 = opal.list_item %d, 2 : !opal.list<i64> -> i64
          %d3one = arith.constant 1 : i64
          %d3zero = arith.constant 0 : i64
          %d3ones = opal.list %d3one, %d3one, %d3one : i64, i64, i64 -> !opal.list<i64>
          %d3undilated = opal.list_eq %d, %d3ones : !opal.list<i64>, !opal.list<i64> -> i1
          %d3rem = arith.remsi %d3w0, %groups : i64
          %d3indivisible = arith.cmpi ne, %d3rem, %d3zero : i64
          %d3div_t = opal.promote %d3indivisible : i1 -> !opal.tensor
          opal.data_check %d3div_t, "Given groups={0}, expected weight to be divisible by {0} at dimension 0, but got weight of size [[{1}, {2}, {3}, {4}, {5}]] instead" (%groups, %d3w0, %d3w1, %d3w2, %d3w3, %d3w4) : !opal.tensor
          %d3want = arith.muli %d3w1, %groups : i64
          %d3short = arith.cmpi ne, %d3x1, %d3want : i64
          %d3ch_t = opal.promote %d3short : i1 -> !opal.tensor
          opal.data_check %d3ch_t, "Given groups={0}, weight of size [{1}, {2}, {3}, {4}, {5}], expected input[{6}, {7}, {8}, {9}, {10}] to have {11} channels, but got {12} channels instead" (%groups, %d3w0, %d3w1, %d3w2, %d3w3, %d3w4, %d3x0, %d3x1, %d3x2, %d3x3, %d3x4, %d3want, %d3x1) : !opal.tensor
          %d3kz0 = arith.cmpi eq, %d3w2, %d3zero : i64
          %d3kz1 = arith.cmpi eq, %d3w3, %d3zero : i64
          %d3kz2 = arith.cmpi eq, %d3w4, %d3zero : i64
          %d3kz_or0 = arith.ori %d3kz0, %d3kz1 : i1
          %d3kz_or1 = arith.ori %d3kz_or0, %d3kz2 : i1
          %d3kernel_t = opal.promote %d3kz_or1 : i1 -> !opal.tensor
          opal.data_check %d3kernel_t, "kernel size should be greater than zero, but got: {0} x {1} x {2} (TxHxW)" (%d3w2, %d3w3, %d3w4) : !opal.tensor
          %d3n0 = arith.cmpi ne, %d3x0, %d3zero : i64
          %d3c0 = arith.cmpi ne, %d3x1, %d3zero : i64
          %d3filled = arith.andi %d3n0, %d3c0 : i1
          %d3ez0 = arith.cmpi eq, %d3x2, %d3zero : i64
          %d3ez1 = arith.cmpi eq, %d3x3, %d3zero : i64
          %d3ez2 = arith.cmpi eq, %d3x4, %d3zero : i64
          %d3ez_or0 = arith.ori %d3ez0, %d3ez1 : i1
          %d3ez_or1 = arith.ori %d3ez_or0, %d3ez2 : i1
          %d3hollow = arith.andi %d3filled, %d3ez_or1 : i1
          %d3pp0 = arith.addi %d3p0, %d3p0 : i64
          %d3ip0 = arith.addi %d3x2, %d3pp0 : i64
          %d3km0 = arith.subi %d3w2, %d3one : i64
          %d3kd0x:2 = arith.mulsi_extended %d3km0, %d3d0 : i64
          %d3kd0c63 = arith.constant 63 : i64
          %d3kd0sg = arith.shrsi %d3kd0x#0, %d3kd0c63 : i64
          %d3kd0ov = arith.cmpi ne, %d3kd0x#1, %d3kd0sg : i64
          %d3kd0max = arith.constant 9223372036854775807 : i64
          %d3kd0 = arith.select %d3kd0ov, %d3kd0max, %d3kd0x#0 : i64
          %d3ke0s = arith.addi %d3kd0, %d3one : i64
          %d3ke0ov = arith.cmpi slt, %d3ke0s, %d3kd0 : i64
          %d3ke0max = arith.constant 9223372036854775807 : i64
          %d3ke0 = arith.select %d3ke0ov, %d3ke0max, %d3ke0s : i64
          %d3lt0 = arith.cmpi slt, %d3ip0, %d3ke0 : i64
          %d3pp1 = arith.addi %d3p1, %d3p1 : i64
          %d3ip1 = arith.addi %d3x3, %d3pp1 : i64
          %d3km1 = arith.subi %d3w3, %d3one : i64
          %d3kd1x:2 = arith.mulsi_extended %d3km1, %d3d1 : i64
          %d3kd1c63 = arith.constant 63 : i64
          %d3kd1sg = arith.shrsi %d3kd1x#0, %d3kd1c63 : i64
          %d3kd1ov = arith.cmpi ne, %d3kd1x#1, %d3kd1sg : i64
          %d3kd1max = arith.constant 9223372036854775807 : i64
          %d3kd1 = arith.select %d3kd1ov, %d3kd1max, %d3kd1x#0 : i64
          %d3ke1s = arith.addi %d3kd1, %d3one : i64
          %d3ke1ov = arith.cmpi slt, %d3ke1s, %d3kd1 : i64
          %d3ke1max = arith.constant 9223372036854775807 : i64
          %d3ke1 = arith.select %d3ke1ov, %d3ke1max, %d3ke1s : i64
          %d3lt1 = arith.cmpi slt, %d3ip1, %d3ke1 : i64
          %d3pp2 = arith.addi %d3p2, %d3p2 : i64
          %d3ip2 = arith.addi %d3x4, %d3pp2 : i64
          %d3km2 = arith.subi %d3w4, %d3one : i64
          %d3kd2x:2 = arith.mulsi_extended %d3km2, %d3d2 : i64
          %d3kd2c63 = arith.constant 63 : i64
          %d3kd2sg = arith.shrsi %d3kd2x#0, %d3kd2c63 : i64
          %d3kd2ov = arith.cmpi ne, %d3kd2x#1, %d3kd2sg : i64
          %d3kd2max = arith.constant 9223372036854775807 : i64
          %d3kd2 = arith.select %d3kd2ov, %d3kd2max, %d3kd2x#0 : i64
          %d3ke2s = arith.addi %d3kd2, %d3one : i64
          %d3ke2ov = arith.cmpi slt, %d3ke2s, %d3kd2 : i64
          %d3ke2max = arith.constant 9223372036854775807 : i64
          %d3ke2 = arith.select %d3ke2ov, %d3ke2max, %d3ke2s : i64
          %d3lt2 = arith.cmpi slt, %d3ip2, %d3ke2 : i64
          %d3big_or0 = arith.ori %d3lt0, %d3lt1 : i1
          %d3big_or1 = arith.ori %d3big_or0, %d3lt2 : i1
          %d3size_t = opal.promote %d3big_or1 : i1 -> !opal.tensor
          opal.data_check %d3size_t, "Calculated padded input size per channel: ({0} x {1} x {2}). Kernel size: ({3} x {4} x {5}). Kernel size can't be greater than actual input size" (%d3ip0, %d3ip1, %d3ip2, %d3ke0, %d3ke1, %d3ke2) : !opal.tensor
          %d3hollow_t = opal.promote %d3hollow : i1 -> !opal.tensor
          opal.data_check %d3hollow_t, "Only zero batch or zero channel inputs are supported, but got input shape: [{0}, {1}, {2}, {3}, {4}]" (%d3x0, %d3x1, %d3x2, %d3x3, %d3x4) : !opal.tensor
          %d3dtype = opal.static_if %d3undilated -> i1 {
            %d3dt_k0 = arith.constant 0 : i64
            %d3dt_is0 = arith.cmpi eq, %ic, %d3dt_k0 : i64
            %d3dt_k1 = arith.constant 1 : i64
            %d3dt_is1 = arith.cmpi eq, %ic, %d3dt_k1 : i64
            %d3dt_k2 = arith.constant 2 : i64
            %d3dt_is2 = arith.cmpi eq, %ic, %d3dt_k2 : i64
            %d3dt_k3 = arith.constant 3 : i64
            %d3dt_is3 = arith.cmpi eq, %ic, %d3dt_k3 : i64
            %d3dt_k4 = arith.constant 4 : i64
            %d3dt_is4 = arith.cmpi eq, %ic, %d3dt_k4 : i64
            %d3dt_k6 = arith.constant 6 : i64
            %d3dt_is6 = arith.cmpi eq, %ic, %d3dt_k6 : i64
            %d3dt_k7 = arith.constant 7 : i64
            %d3dt_is7 = arith.cmpi eq, %ic, %d3dt_k7 : i64
            %d3dt_k15 = arith.constant 15 : i64
            %d3dt_is15 = arith.cmpi eq, %ic, %d3dt_k15 : i64
            %d3dt_or0 = arith.ori %d3dt_is0, %d3dt_is1 : i1
            %d3dt_or1 = arith.ori %d3dt_or0, %d3dt_is2 : i1
            %d3dt_or2 = arith.ori %d3dt_or1, %d3dt_is3 : i1
            %d3dt_or3 = arith.ori %d3dt_or2, %d3dt_is4 : i1
            %d3dt_or4 = arith.ori %d3dt_or3, %d3dt_is6 : i1
            %d3dt_or5 = arith.ori %d3dt_or4, %d3dt_is7 : i1
            %d3dt_or6 = arith.ori %d3dt_or5, %d3dt_is15 : i1
            opal.check %d3dt_or6, "\"compute_columns3d\" not implemented for '{0:dtype}'" (%ic : i64)
            opal.yield %d3undilated : i1
          } else {
            %d3dd_k4 = arith.constant 4 : i64
            %d3dd_is4 = arith.cmpi eq, %ic, %d3dd_k4 : i64
            %d3dd_k6 = arith.constant 6 : i64
            %d3dd_is6 = arith.cmpi eq, %ic, %d3dd_k6 : i64
            %d3dd_k7 = arith.constant 7 : i64
            %d3dd_is7 = arith.cmpi eq, %ic, %d3dd_k7 : i64
            %d3dd_k15 = arith.constant 15 : i64
            %d3dd_is15 = arith.cmpi eq, %ic, %d3dd_k15 : i64
            %d3dd_or0 = arith.ori %d3dd_is4, %d3dd_is6 : i1
            %d3dd_or1 = arith.ori %d3dd_or0, %d3dd_is7 : i1
            %d3dd_or2 = arith.ori %d3dd_or1, %d3dd_is15 : i1
            opal.check %d3dd_or2, "\"slow_conv_dilated<>\" not implemented for '{0:dtype}'" (%ic : i64)
            opal.yield %d3undilated : i1
          }
          opal.yield
        }
        opal.yield
      }
      // An input of 0 channels gives 0 channels, whatever the weight's count
      // (PyTorch's empty convolution): the key holds that size 0, so the
      // kernel of such a call convolves with none of the weight's filters.
      %c = opal.static_if %empty -> !opal.tensor {
        %e0 = arith.constant 0 : i64
        %e1 = arith.constant 1 : i64
        %none_f = prims.slice_in_dim %weight, %e0, %e0, %e1, %e0 : (!opal.tensor, i64, i64, i64, i64) -> !opal.tensor
        %e = prims.conv %input, %none_f, %s, %p, %d, %groups : (!opal.tensor, !opal.tensor, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, i64) -> !opal.tensor
        opal.yield %e : !opal.tensor
      } else {
        %f = prims.conv %input, %weight, %s, %p, %d, %groups : (!opal.tensor, !opal.tensor, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, i64) -> !opal.tensor
        opal.yield %f : !opal.tensor
      }
      opal.yield %c : !opal.tensor
    }
    // The bias along dim 1 (none on an empty convolution's 0 channels).
    %r = opal.static_if %no_bias_added -> !opal.tensor {
      opal.yield %y : !opal.tensor
    } else {
      %ys = opal.shape_of %y : !opal.tensor -> !opal.list<i64>
      %c1 = arith.constant 1 : i64
      %at = opal.list %c1 : i64 -> !opal.list<i64>
      %b = prims.broadcast_in_dim %bias, %ys, %at : (!opal.tensor, !opal.list<i64>, !opal.list<i64>) -> !opal.tensor
      %a = prims.add %y, %b : (!opal.tensor, !opal.tensor) -> !opal.tensor
      opal.yield %a : !opal.tensor
    }
    opal.yield %r : !opal.tensor
  }
  opal.def "conv1d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[1] stride=[1], SymInt[1] padding=[0], SymInt[1] dilation=[1], SymInt groups=1) -> Tensor"
  opal.decomposition "conv1d" {
  ^bb0(%input: !opal.tensor, %weight: !opal.tensor, %bias: !opal.tensor, %stride: !opal.list<i64>, %padding: !opal.list<i64>, %dilation: !opal.list<i64>, %groups: i64):
    %tr = arith.constant false
    %is = opal.shape_of %input : !opal.tensor -> !opal.list<i64>
    %unbatched = opal.has_rank %input, 2 : !opal.tensor -> i1
    %batched = opal.has_rank %input, 3 : !opal.tensor -> i1
    %rank_ok = arith.ori %unbatched, %batched : i1
    opal.check %rank_ok, "Expected 2D (unbatched) or 3D (batched) input to conv1d, but got input of size: [{0}]" (%is : !opal.list<i64>)
    %c0 = arith.constant 0 : i64
    %none_padding = opal.list %c0 : i64 -> !opal.list<i64>
    %r = opal.static_if %unbatched -> !opal.tensor {
      %z = arith.constant 0 : i64
      %at = opal.list %z : i64 -> !opal.list<i64>
      %yes = arith.constant true
      %x = opal.keep_dims %input, %at, %yes : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
      %y = aten.convolution %x, %weight, %bias, %stride, %padding, %dilation, %tr, %none_padding, %groups : (!opal.tensor, !opal.tensor, !opal.tensor, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, i1, !opal.list<i64>, i64) -> !opal.tensor
      %s = prims.squeeze %y, %at : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
      opal.yield %s : !opal.tensor
    } else {
      %y = aten.convolution %input, %weight, %bias, %stride, %padding, %dilation, %tr, %none_padding, %groups : (!opal.tensor, !opal.tensor, !opal.tensor, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, i1, !opal.list<i64>, i64) -> !opal.tensor
      opal.yield %y : !opal.tensor
    }
    opal.yield %r : !opal.tensor
  }
  opal.def "conv2d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=[1, 1], SymInt[2] padding=[0, 0], SymInt[2] dilation=[1, 1], SymInt groups=1) -> Tensor"
  opal.decomposition "conv2d" {
  ^bb0(%input: !opal.tensor, %weight: !opal.tensor, %bias: !opal.tensor, %stride: !opal.list<i64>, %padding: !opal.list<i64>, %dilation: !opal.list<i64>, %groups: i64):
    %tr = arith.constant false
    %is = opal.shape_of %input : !opal.tensor -> !opal.list<i64>
    %unbatched = opal.has_rank %input, 3 : !opal.tensor -> i1
    %batched = opal.has_rank %input, 4 : !opal.tensor -> i1
    %rank_ok = arith.ori %unbatched, %batched : i1
    opal.check %rank_ok, "Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: [{0}]" (%is : !opal.list<i64>)
    %c0 = arith.constant 0 : i64
    %none_padding = opal.list %c0 : i64 -> !opal.list<i64>
    %r = opal.static_if %unbatched -> !opal.tensor {
      %z = arith.constant 0 : i64
      %at = opal.list %z : i64 -> !opal.list<i64>
      %yes = arith.constant true
      %x = opal.keep_dims %input, %at, %yes : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
      %y = aten.convolution %x, %weight, %bias, %stride, %padding, %dilation, %tr, %none_padding, %groups : (!opal.tensor, !opal.tensor, !opal.tensor, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, i1, !opal.list<i64>, i64) -> !opal.tensor
      %s = prims.squeeze %y, %at : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
      opal.yield %s : !opal.tensor
    } else {
      %y = aten.convolution %input, %weight, %bias, %stride, %padding, %dilation, %tr, %none_padding, %groups : (!opal.tensor, !opal.tensor, !opal.tensor, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, i1, !opal.list<i64>, i64) -> !opal.tensor
      opal.yield %y : !opal.tensor
    }
    opal.yield %r : !opal.tensor
  }
  opal.def "conv3d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[3] stride=[1, 1, 1], SymInt[3] padding=[0, 0, 0], SymInt[3] dilation=[1, 1, 1], SymInt groups=1) -> Tensor"
  opal.decomposition "conv3d" {
  ^bb0(%input: !opal.tensor, %weight: !opal.tensor, %bias: !opal.tensor, %stride: !opal.list<i64>, %padding: !opal.list<i64>, %dilation: !opal.list<i64>, %groups: i64):
    %tr = arith.constant false
    %is = opal.shape_of %input : !opal.tensor -> !opal.list<i64>
    %unbatched = opal.has_rank %input, 4 : !opal.tensor -> i1
    %batched = opal.has_rank %input, 5 : !opal.tensor -> i1
    %rank_ok = arith.ori %unbatched, %batched : i1
    opal.check %rank_ok, "Expected 4D (unbatched) or 5D (batched) input to conv3d, but got input of size: [{0}]" (%is : !opal.list<i64>)
    %c0 = arith.constant 0 : i64
    %none_padding = opal.list %c0 : i64 -> !opal.list<i64>
    %r = opal.static_if %unbatched -> !opal.tensor {
      %z = arith.constant 0 : i64
      %at = opal.list %z : i64 -> !opal.list<i64>
      %yes = arith.constant true
      %x = opal.keep_dims %input, %at, %yes : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
      %y = aten.convolution %x, %weight, %bias, %stride, %padding, %dilation, %tr, %none_padding, %groups : (!opal.tensor, !opal.tensor, !opal.tensor, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, i1, !opal.list<i64>, i64) -> !opal.tensor
      %s = prims.squeeze %y, %at : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
      opal.yield %s : !opal.tensor
    } else {
      %y = aten.convolution %input, %weight, %bias, %stride, %padding, %dilation, %tr, %none_padding, %groups : (!opal.tensor, !opal.tensor, !opal.tensor, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, i1, !opal.list<i64>, i64) -> !opal.tensor
      opal.yield %y : !opal.tensor
    }
    opal.yield %r : !opal.tensor
  }
  opal.def "conv_transpose1d(Tensor input, Tensor weight, Tensor? bias=None, SymInt[1] stride=[1], SymInt[1] padding=[0], SymInt[1] output_padding=[0], SymInt groups=1, SymInt[1] dilation=[1]) -> Tensor"
  opal.decomposition "conv_transpose1d" {
  ^bb0(%input: !opal.tensor, %weight: !opal.tensor, %bias: !opal.tensor, %stride: !opal.list<i64>, %padding: !opal.list<i64>, %output_padding: !opal.list<i64>, %groups: i64, %dilation: !opal.list<i64>):
    %tr = arith.constant true
    %is = opal.shape_of %input : !opal.tensor -> !opal.list<i64>
    %unbatched = opal.has_rank %input, 2 : !opal.tensor -> i1
    %batched = opal.has_rank %input, 3 : !opal.tensor -> i1
    %rank_ok = arith.ori %unbatched, %batched : i1
    opal.check %rank_ok, "Expected 2D (unbatched) or 3D (batched) input to conv_transpose1d, but got input of size: [{0}]" (%is : !opal.list<i64>)
    %r = opal.static_if %unbatched -> !opal.tensor {
      %z = arith.constant 0 : i64
      %at = opal.list %z : i64 -> !opal.list<i64>
      %yes = arith.constant true
      %x = opal.keep_dims %input, %at, %yes : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
      %y = aten.convolution %x, %weight, %bias, %stride, %padding, %dilation, %tr, %output_padding, %groups : (!opal.tensor, !opal.tensor, !opal.tensor, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, i1, !opal.list<i64>, i64) -> !opal.tensor
      %s = prims.squeeze %y, %at : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
      opal.yield %s : !opal.tensor
    } else {
      %y = aten.convolution %input, %weight, %bias, %stride, %padding, %dilation, %tr, %output_padding, %groups : (!opal.tensor, !opal.tensor, !opal.tensor, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, i1, !opal.list<i64>, i64) -> !opal.tensor
      opal.yield %y : !opal.tensor
    }
    opal.yield %r : !opal.tensor
  }
  opal.def "conv_transpose2d.input(Tensor input, Tensor weight, Tensor? bias=None, SymInt[2] stride=[1, 1], SymInt[2] padding=[0, 0], SymInt[2] output_padding=[0, 0], SymInt groups=1, SymInt[2] dilation=[1, 1]) -> Tensor"
  opal.decomposition "conv_transpose2d.input" {
  ^bb0(%input: !opal.tensor, %weight: !opal.tensor, %bias: !opal.tensor, %stride: !opal.list<i64>, %padding: !opal.list<i64>, %output_padding: !opal.list<i64>, %groups: i64, %dilation: !opal.list<i64>):
    %tr = arith.constant true
    %is = opal.shape_of %input : !opal.tensor -> !opal.list<i64>
    %unbatched = opal.has_rank %input, 3 : !opal.tensor -> i1
    %batched = opal.has_rank %input, 4 : !opal.tensor -> i1
    %rank_ok = arith.ori %unbatched, %batched : i1
    opal.check %rank_ok, "Expected 3D (unbatched) or 4D (batched) input to conv_transpose2d, but got input of size: [{0}]" (%is : !opal.list<i64>)
    %r = opal.static_if %unbatched -> !opal.tensor {
      %z = arith.constant 0 : i64
      %at = opal.list %z : i64 -> !opal.list<i64>
      %yes = arith.constant true
      %x = opal.keep_dims %input, %at, %yes : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
      %y = aten.convolution %x, %weight, %bias, %stride, %padding, %dilation, %tr, %output_padding, %groups : (!opal.tensor, !opal.tensor, !opal.tensor, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, i1, !opal.list<i64>, i64) -> !opal.tensor
      %s = prims.squeeze %y, %at : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
      opal.yield %s : !opal.tensor
    } else {
      %y = aten.convolution %input, %weight, %bias, %stride, %padding, %dilation, %tr, %output_padding, %groups : (!opal.tensor, !opal.tensor, !opal.tensor, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, i1, !opal.list<i64>, i64) -> !opal.tensor
      opal.yield %y : !opal.tensor
    }
    opal.yield %r : !opal.tensor
  }
  opal.def "conv_transpose3d.input(Tensor input, Tensor weight, Tensor? bias=None, SymInt[3] stride=[1, 1, 1], SymInt[3] padding=[0, 0, 0], SymInt[3] output_padding=[0, 0, 0], SymInt groups=1, SymInt[3] dilation=[1, 1, 1]) -> Tensor"
  opal.decomposition "conv_transpose3d.input" {
  ^bb0(%input: !opal.tensor, %weight: !opal.tensor, %bias: !opal.tensor, %stride: !opal.list<i64>, %padding: !opal.list<i64>, %output_padding: !opal.list<i64>, %groups: i64, %dilation: !opal.list<i64>):
    %tr = arith.constant true
    %is = opal.shape_of %input : !opal.tensor -> !opal.list<i64>
    %unbatched = opal.has_rank %input, 4 : !opal.tensor -> i1
    %batched = opal.has_rank %input, 5 : !opal.tensor -> i1
    %rank_ok = arith.ori %unbatched, %batched : i1
    opal.check %rank_ok, "Expected 4D (unbatched) or 5D (batched) input to conv_transpose3d, but got input of size: [{0}]" (%is : !opal.list<i64>)
    %r = opal.static_if %unbatched -> !opal.tensor {
      %z = arith.constant 0 : i64
      %at = opal.list %z : i64 -> !opal.list<i64>
      %yes = arith.constant true
      %x = opal.keep_dims %input, %at, %yes : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
      %y = aten.convolution %x, %weight, %bias, %stride, %padding, %dilation, %tr, %output_padding, %groups : (!opal.tensor, !opal.tensor, !opal.tensor, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, i1, !opal.list<i64>, i64) -> !opal.tensor
      %s = prims.squeeze %y, %at : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
      opal.yield %s : !opal.tensor
    } else {
      %y = aten.convolution %input, %weight, %bias, %stride, %padding, %dilation, %tr, %output_padding, %groups : (!opal.tensor, !opal.tensor, !opal.tensor, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, i1, !opal.list<i64>, i64) -> !opal.tensor
      opal.yield %y : !opal.tensor
    }
    opal.yield %r : !opal.tensor
  }
}
