// The aten library, continued: the ops graphs PyTorch exports call where
// users call softmax, linear and masking (_softmax, _log_softmax, addmm,
// masked_fill), the triangular masks of attention (tril, triu), adaptive
// average pooling over 2 spatial dims and the 1-d pools, and upsampling
// (nearest and bilinear).
opal.library "aten" {
  opal.def "_softmax(Tensor self, int dim, bool half_to_float) -> Tensor"
  opal.decomposition "_softmax" {
  ^bb0(%self: !opal.tensor, %dim: i64, %half_to_float: i1):
    %yes = arith.constant true
    %same_dtype = arith.xori %half_to_float, %yes : i1
    opal.check %same_dtype, "softmax with half to float conversion is not supported on CPU"
    %none = opal.none
    %r = aten.softmax.int %self, %dim, %none : (!opal.tensor, i64, !opal.none) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "_log_softmax(Tensor self, int dim, bool half_to_float) -> Tensor"
  opal.decomposition "_log_softmax" {
  ^bb0(%self: !opal.tensor, %dim: i64, %half_to_float: i1):
    %yes = arith.constant true
    %same_dtype = arith.xori %half_to_float, %yes : i1
    opal.check %same_dtype, "softmax with half to float conversion is not supported on CPU"
    %none = opal.none
    %r = aten.log_softmax.int %self, %dim, %none : (!opal.tensor, i64, !opal.none) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  // beta * self + alpha * (mat1 @ mat2), self expanded to the product; with
  // beta == 0 self is ignored (its NaNs too).
  opal.def "addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor"
  opal.decomposition "addmm" {
  ^bb0(%self: !opal.tensor, %mat1: !opal.tensor, %mat2: !opal.tensor, %beta: f64, %alpha: f64):
    %none = opal.none
    %sc = opal.dtype_of %self, %none : !opal.tensor, !opal.none -> i64
    %mc = opal.dtype_of %mat2, %none : !opal.tensor, !opal.none -> i64
    %same = arith.cmpi eq, %sc, %mc : i64
    opal.check %same, "self and mat2 must have the same dtype"
    %p = aten.mm %mat1, %mat2 : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %shape = opal.shape_of %p : !opal.tensor -> !opal.list<i64>
    %s = opal.broadcast_to %self, %shape : !opal.tensor, !opal.list<i64> -> !opal.tensor
    %c0 = arith.constant 0 : i64
    %p1, %al = opal.promote %p, %alpha : !opal.tensor, f64 -> !opal.tensor, !opal.tensor
    %s1, %be, %zero = opal.promote %s, %beta, %c0 : !opal.tensor, f64, i64 -> !opal.tensor, !opal.tensor, !opal.tensor
    %pb, %alb = opal.broadcast_tensors %p1, %al : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %sb, %beb, %zb = opal.broadcast_tensors %s1, %be, %zero : !opal.tensor, !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor, !opal.tensor
    %scaled = prims.mul %pb, %alb : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %bias = prims.mul %sb, %beb : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %ignored = prims.eq %beb, %zb : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %kept = prims.where %ignored, %zb, %bias : (!opal.tensor, !opal.tensor, !opal.tensor) -> !opal.tensor
    %sum = prims.add %scaled, %kept : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %r = opal.to_dtype %sum, %mc : !opal.tensor, i64 -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  // self where mask is false, value where it is true (in self's dtype;
  // out of place, self and mask broadcast together).
  opal.def "masked_fill.Scalar(Tensor self, Tensor mask, Scalar value) -> Tensor"
  opal.decomposition "masked_fill.Scalar" {
  ^bb0(%self: !opal.tensor, %mask: !opal.tensor, %value: f64):
    %none = opal.none
    %code = opal.dtype_of %self, %none : !opal.tensor, !opal.none -> i64
    %c11 = arith.constant 11 : i64
    %mask_code = opal.dtype_of %mask, %none : !opal.tensor, !opal.none -> i64
    %bool_mask = arith.cmpi eq, %mask_code, %c11 : i64
    opal.static_if %bool_mask {
      opal.yield
    } else {
      // Another dtype's mask may only hold 0 and 1 (known per call).
      %mc0 = arith.constant 0 : i64
      %mc1 = arith.constant 1 : i64
      %m0, %zero, %one = opal.promote %mask, %mc0, %mc1 : !opal.tensor, i64, i64 -> !opal.tensor, !opal.tensor, !opal.tensor
      // Only the elements the result takes (the mask broadcast with self).
      %mb, %zb, %ob, %unused = opal.broadcast_tensors %m0, %zero, %one, %self : !opal.tensor, !opal.tensor, !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor, !opal.tensor, !opal.tensor
      %not0 = prims.ne %mb, %zb : (!opal.tensor, !opal.tensor) -> !opal.tensor
      %not1 = prims.ne %mb, %ob : (!opal.tensor, !opal.tensor) -> !opal.tensor
      %neither = prims.bitwise_and %not0, %not1 : (!opal.tensor, !opal.tensor) -> !opal.tensor
      opal.data_check %neither, "Mask tensor can take 0 and 1 values only" : !opal.tensor
      opal.yield
    }
    %m = opal.to_dtype %mask, %c11 : !opal.tensor, i64 -> !opal.tensor
    %x, %v = opal.promote %self, %value : !opal.tensor, f64 -> !opal.tensor, !opal.tensor
    %vc = opal.to_dtype %v, %code : !opal.tensor, i64 -> !opal.tensor
    %mb, %xb, %vb = opal.broadcast_tensors %m, %self, %vc : !opal.tensor, !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor, !opal.tensor
    %r = prims.where %mb, %vb, %xb : (!opal.tensor, !opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "masked_fill.Tensor(Tensor self, Tensor mask, Tensor value) -> Tensor"
  opal.decomposition "masked_fill.Tensor" {
  ^bb0(%self: !opal.tensor, %mask: !opal.tensor, %value: !opal.tensor):
    %vs = opal.shape_of %value : !opal.tensor -> !opal.list<i64>
    %vr = opal.list_len %vs : !opal.list<i64> -> i64
    %c0 = arith.constant 0 : i64
    %scalar = arith.cmpi eq, %vr, %c0 : i64
    opal.check %scalar, "masked_fill_ only supports a 0-dimensional value tensor, but got tensor with {0} dimension(s)." (%vr : i64)
    %none = opal.none
    %code = opal.dtype_of %self, %none : !opal.tensor, !opal.none -> i64
    %c11 = arith.constant 11 : i64
    %mask_code = opal.dtype_of %mask, %none : !opal.tensor, !opal.none -> i64
    %bool_mask = arith.cmpi eq, %mask_code, %c11 : i64
    opal.static_if %bool_mask {
      opal.yield
    } else {
      // Another dtype's mask may only hold 0 and 1 (known per call).
      %mc0 = arith.constant 0 : i64
      %mc1 = arith.constant 1 : i64
      %m0, %zero, %one = opal.promote %mask, %mc0, %mc1 : !opal.tensor, i64, i64 -> !opal.tensor, !opal.tensor, !opal.tensor
      // Only the elements the result takes (the mask broadcast with self).
      %mb, %zb, %ob, %unused = opal.broadcast_tensors %m0, %zero, %one, %self : !opal.tensor, !opal.tensor, !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor, !opal.tensor, !opal.tensor
      %not0 = prims.ne %mb, %zb : (!opal.tensor, !opal.tensor) -> !opal.tensor
      %not1 = prims.ne %mb, %ob : (!opal.tensor, !opal.tensor) -> !opal.tensor
      %neither = prims.bitwise_and %not0, %not1 : (!opal.tensor, !opal.tensor) -> !opal.tensor
      opal.data_check %neither, "Mask tensor can take 0 and 1 values only" : !opal.tensor
      opal.yield
    }
    %m = opal.to_dtype %mask, %c11 : !opal.tensor, i64 -> !opal.tensor
    %v = opal.promote %value : !opal.tensor -> !opal.tensor
    %vc = opal.to_dtype %v, %code : !opal.tensor, i64 -> !opal.tensor
    %mb, %xb, %vb = opal.broadcast_tensors %m, %self, %vc : !opal.tensor, !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor, !opal.tensor
    %r = prims.where %mb, %vb, %xb : (!opal.tensor, !opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  // Keeps the elements with column - row <= diagonal in the last two dims.
  opal.def "tril(Tensor self, SymInt diagonal=0) -> Tensor"
  opal.decomposition "tril" {
  ^bb0(%self: !opal.tensor, %diagonal: i64):
    %shape = opal.shape_of %self : !opal.tensor -> !opal.list<i64>
    %rank = opal.list_len %shape : !opal.list<i64> -> i64
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %c2 = arith.constant 2 : i64
    %matrix = arith.cmpi sge, %rank, %c2 : i64
    opal.check %matrix, "tril: input tensor must have at least 2 dimensions"
    // A vector passes only when empty (PyTorch returns before checking).
    %vector = arith.cmpi eq, %rank, %c1 : i64
    %r = opal.static_if %vector -> !opal.tensor {
      %n = opal.dim_size %self, 0 : !opal.tensor -> i64
      %empty = arith.cmpi eq, %n, %c0 : i64
      opal.check %empty, "Dimension out of range (expected to be in range of [-1, 0], but got -2)"
      opal.yield %self : !opal.tensor
    } else {
      %rows = opal.dim_size %self, -2 : !opal.tensor -> i64
      %cols = opal.dim_size %self, -1 : !opal.tensor -> i64
      %c4 = arith.constant 4 : i64
      %cpu = opal.device "cpu"
      %false = arith.constant false
      %ri = prims.iota %rows, %c0, %c1, %c4, %cpu, %false : (i64, i64, i64, i64, !opal.device, i1) -> !opal.tensor
      %ci = prims.iota %cols, %c0, %c1, %c4, %cpu, %false : (i64, i64, i64, i64, !opal.device, i1) -> !opal.tensor
      %at1 = opal.list %c1 : i64 -> !opal.list<i64>
      %at0 = opal.list %c0 : i64 -> !opal.list<i64>
      %true = arith.constant true
      %column = opal.keep_dims %ri, %at1, %true : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
      %row = opal.keep_dims %ci, %at0, %true : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
      %rb, %cb = opal.broadcast_tensors %column, %row : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
      %offset = prims.sub %cb, %rb : (!opal.tensor, !opal.tensor) -> !opal.tensor
      %o, %d = opal.promote %offset, %diagonal : !opal.tensor, i64 -> !opal.tensor, !opal.tensor
      %ob, %db = opal.broadcast_tensors %o, %d : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
      %keep = prims.le %ob, %db : (!opal.tensor, !opal.tensor) -> !opal.tensor
      %x, %zero = opal.promote %self, %c0 : !opal.tensor, i64 -> !opal.tensor, !opal.tensor
      %none = opal.none
      %code = opal.dtype_of %self, %none : !opal.tensor, !opal.none -> i64
      %zc = opal.to_dtype %zero, %code : !opal.tensor, i64 -> !opal.tensor
      %kb, %xb, %zb = opal.broadcast_tensors %keep, %self, %zc : !opal.tensor, !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor, !opal.tensor
      %w = prims.where %kb, %xb, %zb : (!opal.tensor, !opal.tensor, !opal.tensor) -> !opal.tensor
      opal.yield %w : !opal.tensor
    }
    opal.yield %r : !opal.tensor
  }
  // Keeps the elements with column - row >= diagonal in the last two dims.
  opal.def "triu(Tensor self, SymInt diagonal=0) -> Tensor"
  opal.decomposition "triu" {
  ^bb0(%self: !opal.tensor, %diagonal: i64):
    %shape = opal.shape_of %self : !opal.tensor -> !opal.list<i64>
    %rank = opal.list_len %shape : !opal.list<i64> -> i64
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %c2 = arith.constant 2 : i64
    %matrix = arith.cmpi sge, %rank, %c2 : i64
    opal.check %matrix, "triu: input tensor must have at least 2 dimensions"
    // A vector passes only when empty (PyTorch returns before checking).
    %vector = arith.cmpi eq, %rank, %c1 : i64
    %r = opal.static_if %vector -> !opal.tensor {
      %n = opal.dim_size %self, 0 : !opal.tensor -> i64
      %empty = arith.cmpi eq, %n, %c0 : i64
      opal.check %empty, "Dimension out of range (expected to be in range of [-1, 0], but got -2)"
      opal.yield %self : !opal.tensor
    } else {
      %rows = opal.dim_size %self, -2 : !opal.tensor -> i64
      %cols = opal.dim_size %self, -1 : !opal.tensor -> i64
      %c4 = arith.constant 4 : i64
      %cpu = opal.device "cpu"
      %false = arith.constant false
      %ri = prims.iota %rows, %c0, %c1, %c4, %cpu, %false : (i64, i64, i64, i64, !opal.device, i1) -> !opal.tensor
      %ci = prims.iota %cols, %c0, %c1, %c4, %cpu, %false : (i64, i64, i64, i64, !opal.device, i1) -> !opal.tensor
      %at1 = opal.list %c1 : i64 -> !opal.list<i64>
      %at0 = opal.list %c0 : i64 -> !opal.list<i64>
      %true = arith.constant true
      %column = opal.keep_dims %ri, %at1, %true : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
      %row = opal.keep_dims %ci, %at0, %true : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
      %rb, %cb = opal.broadcast_tensors %column, %row : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
      %offset = prims.sub %cb, %rb : (!opal.tensor, !opal.tensor) -> !opal.tensor
      %o, %d = opal.promote %offset, %diagonal : !opal.tensor, i64 -> !opal.tensor, !opal.tensor
      %ob, %db = opal.broadcast_tensors %o, %d : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
      %keep = prims.ge %ob, %db : (!opal.tensor, !opal.tensor) -> !opal.tensor
      %x, %zero = opal.promote %self, %c0 : !opal.tensor, i64 -> !opal.tensor, !opal.tensor
      %none = opal.none
      %code = opal.dtype_of %self, %none : !opal.tensor, !opal.none -> i64
      %zc = opal.to_dtype %zero, %code : !opal.tensor, i64 -> !opal.tensor
      %kb, %xb, %zb = opal.broadcast_tensors %keep, %self, %zc : !opal.tensor, !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor, !opal.tensor
      %w = prims.where %kb, %xb, %zb : (!opal.tensor, !opal.tensor, !opal.tensor) -> !opal.tensor
      opal.yield %w : !opal.tensor
    }
    opal.yield %r : !opal.tensor
  }
  // Adaptive average pooling to output_size (H', W') cells of [N,] C, H, W.
  opal.def "_adaptive_avg_pool2d(Tensor self, SymInt[2] output_size) -> Tensor"
  opal.decomposition "_adaptive_avg_pool2d" {
  ^bb0(%self: !opal.tensor, %output_size: !opal.list<i64>):
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %c2 = arith.constant 2 : i64
    %c3 = arith.constant 3 : i64
    %c4 = arith.constant 4 : i64
    %yes = arith.constant true
    %n = opal.list_len %output_size : !opal.list<i64> -> i64
    %two = arith.cmpi eq, %n, %c2 : i64
    opal.check %two, "adaptive_avg_pool2d: output_size must be 2"
    %oh = opal.list_item %output_size, 0 : !opal.list<i64> -> i64
    %ow = opal.list_item %output_size, 1 : !opal.list<i64> -> i64
    %oh_ok = arith.cmpi sge, %oh, %c0 : i64
    %ow_ok = arith.cmpi sge, %ow, %c0 : i64
    %sizes_ok = arith.andi %oh_ok, %ow_ok : i1
    opal.check %sizes_ok, "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but received {{{0}, {1}}}" (%oh, %ow : i64, i64)
    %ss = opal.shape_of %self : !opal.tensor -> !opal.list<i64>
    %rank = opal.list_len %ss : !opal.list<i64> -> i64
    %r3 = arith.cmpi eq, %rank, %c3 : i64
    %r4 = arith.cmpi eq, %rank, %c4 : i64
    %planes = arith.ori %r3, %r4 : i1
    opal.check %planes, "adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got [{0}]" (%ss : !opal.list<i64>)
    %none = opal.none
    %code = opal.dtype_of %self, %none : !opal.tensor, !opal.none -> i64
    %float = opal.is_floating %code : i64 -> i1
    // (PyTorch checks the dtype only where there is an output to compute.)
    %cells = arith.muli %oh, %ow : i64
    %no_cells = arith.cmpi eq, %cells, %c0 : i64
    %dtype_ok = arith.ori %float, %no_cells : i1
    opal.check %dtype_ok, "\"adaptive_avg_pool2d\" not implemented for '{0:dtype}'" (%code : i64)
    %unbatched = arith.cmpi eq, %rank, %c3 : i64
    %at0 = opal.list %c0 : i64 -> !opal.list<i64>
    %x = opal.static_if %unbatched -> !opal.tensor {
      %b = opal.keep_dims %self, %at0, %yes : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
      opal.yield %b : !opal.tensor
    } else {
      opal.yield %self : !opal.tensor
    }
    // H and W have elements: sizes known per call.
    %first = opal.static_if %unbatched -> i64 {
      opal.yield %c0 : i64
    } else {
      opal.yield %c1 : i64
    }
    %channels = opal.dim_size %x, 1 : !opal.tensor -> i64
    %h = opal.dim_size %x, 2 : !opal.tensor -> i64
    %w = opal.dim_size %x, 3 : !opal.tensor -> i64
    // (PyTorch 1.13 checks H and W only: no channels give an empty result.)
    %h_ok = arith.cmpi ne, %h, %c0 : i64
    %d_h = arith.addi %first, %c1 : i64
    opal.check %h_ok, "adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch dimensions, but input has sizes [{0}] with dimension {1} being empty" (%ss, %d_h : !opal.list<i64>, i64)
    %w_ok = arith.cmpi ne, %w, %c0 : i64
    %d_w = arith.addi %first, %c2 : i64
    opal.check %w_ok, "adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch dimensions, but input has sizes [{0}] with dimension {1} being empty" (%ss, %d_w : !opal.list<i64>, i64)
    %r = prims.adaptive_avg_pool %x, %output_size : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
    %out = opal.static_if %unbatched -> !opal.tensor {
      %v = prims.squeeze %r, %at0 : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
      opal.yield %v : !opal.tensor
    } else {
      opal.yield %r : !opal.tensor
    }
    opal.yield %out : !opal.tensor
  }
  opal.def "adaptive_avg_pool2d(Tensor self, SymInt[2] output_size) -> Tensor"
  // (An output of 1 x 1 is the mean over H and W, as PyTorch computes it:
  // an empty plane then gives NaN instead of an error.)
  opal.decomposition "adaptive_avg_pool2d" {
  ^bb0(%self: !opal.tensor, %output_size: !opal.list<i64>):
    %c1 = arith.constant 1 : i64
    %ones = opal.list %c1, %c1 : i64, i64 -> !opal.list<i64>
    %global = opal.list_eq %output_size, %ones : !opal.list<i64>, !opal.list<i64> -> i1
    %r = opal.static_if %global -> !opal.tensor {
      %cm1 = arith.constant -1 : i64
      %cm2 = arith.constant -2 : i64
      %dims = opal.list %cm1, %cm2 : i64, i64 -> !opal.list<i64>
      %true = arith.constant true
      %none = opal.none
      %m = aten.mean.dim %self, %dims, %true, %none : (!opal.tensor, !opal.list<i64>, i1, !opal.none) -> !opal.tensor
      opal.yield %m : !opal.tensor
    } else {
      %p = aten._adaptive_avg_pool2d %self, %output_size : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
      opal.yield %p : !opal.tensor
    }
    opal.yield %r : !opal.tensor
  }
  // The 1-d pools: the 2-d ones over (N,) C, 1, L, as PyTorch computes them
  // (their size errors name that shape).
  opal.def "avg_pool1d(Tensor self, int[1] kernel_size, int[1] stride=[], int[1] padding=0, bool ceil_mode=False, bool count_include_pad=True) -> Tensor"
  opal.decomposition "avg_pool1d" {
  ^bb0(%self: !opal.tensor, %kernel_size: !opal.list<i64>, %stride: !opal.list<i64>, %padding: !opal.list<i64>, %ceil_mode: i1, %count_include_pad: i1):
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %c2 = arith.constant 2 : i64
    %c3 = arith.constant 3 : i64
    %ss = opal.shape_of %self : !opal.tensor -> !opal.list<i64>
    %rank = opal.list_len %ss : !opal.list<i64> -> i64
    %r_low = arith.cmpi sge, %rank, %c2 : i64
    %r_high = arith.cmpi sle, %rank, %c3 : i64
    %r_ok = arith.andi %r_low, %r_high : i1
    opal.check %r_ok, "Expected 2 to 3 dimensions, but got {0}-dimensional tensor for argument #1 'self' (while checking arguments for avg_pool1d)" (%rank : i64)
    %kn = opal.list_len %kernel_size : !opal.list<i64> -> i64
    %k_ok = arith.cmpi eq, %kn, %c1 : i64
    opal.check %k_ok, "avg_pool1d() argument 'kernel_size' should contain one int (got {0})" (%kn : i64)
    %k = opal.list_item %kernel_size, 0 : !opal.list<i64> -> i64
    %kernel2 = opal.list %c1, %k : i64, i64 -> !opal.list<i64>
    %sn = opal.list_len %stride : !opal.list<i64> -> i64
    %no_stride = arith.cmpi eq, %sn, %c0 : i64
    %stride2 = opal.static_if %no_stride -> !opal.list<i64> {
      opal.yield %kernel2 : !opal.list<i64>
    } else {
      %s_ok = arith.cmpi eq, %sn, %c1 : i64
      opal.check %s_ok, "avg_pool1d() argument 'stride' should contain one int (got {0})" (%sn : i64)
      %s = opal.list_item %stride, 0 : !opal.list<i64> -> i64
      %l = opal.list %c1, %s : i64, i64 -> !opal.list<i64>
      opal.yield %l : !opal.list<i64>
    }
    %pn = opal.list_len %padding : !opal.list<i64> -> i64
    %p_ok = arith.cmpi eq, %pn, %c1 : i64
    opal.check %p_ok, "avg_pool1d() argument 'padding' should contain one int (got {0})" (%pn : i64)
    %p = opal.list_item %padding, 0 : !opal.list<i64> -> i64
    %padding2 = opal.list %c0, %p : i64, i64 -> !opal.list<i64>
    %cm2 = arith.constant -2 : i64
    %x = aten.unsqueeze %self, %cm2 : (!opal.tensor, i64) -> !opal.tensor
    %none = opal.none
    %y = aten.avg_pool2d %x, %kernel2, %stride2, %padding2, %ceil_mode, %count_include_pad, %none : (!opal.tensor, !opal.list<i64>, !opal.list<i64>, !opal.list<i64>, i1, i1, !opal.none) -> !opal.tensor
    %r = aten.squeeze.dim %y, %cm2 : (!opal.tensor, i64) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "adaptive_avg_pool1d(Tensor self, int[1] output_size) -> Tensor"
  opal.decomposition "adaptive_avg_pool1d" {
  ^bb0(%self: !opal.tensor, %output_size: !opal.list<i64>):
    %c1 = arith.constant 1 : i64
    %c2 = arith.constant 2 : i64
    %c3 = arith.constant 3 : i64
    %ss = opal.shape_of %self : !opal.tensor -> !opal.list<i64>
    %rank = opal.list_len %ss : !opal.list<i64> -> i64
    %r_low = arith.cmpi sge, %rank, %c2 : i64
    %r_high = arith.cmpi sle, %rank, %c3 : i64
    %r_ok = arith.andi %r_low, %r_high : i1
    opal.check %r_ok, "Expected 2 to 3 dimensions, but got {0}-dimensional tensor for argument #1 'self' (while checking arguments for adaptive_avg_pool1d)" (%rank : i64)
    %n = opal.list_len %output_size : !opal.list<i64> -> i64
    %n_ok = arith.cmpi eq, %n, %c1 : i64
    opal.check %n_ok, "adaptive_avg_pool1d() argument 'output_size' should contain one int (got {0})" (%n : i64)
    %o = opal.list_item %output_size, 0 : !opal.list<i64> -> i64
    %size2 = opal.list %c1, %o : i64, i64 -> !opal.list<i64>
    %cm2 = arith.constant -2 : i64
    %x = aten.unsqueeze %self, %cm2 : (!opal.tensor, i64) -> !opal.tensor
    %y = aten.adaptive_avg_pool2d %x, %size2 : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
    %r = aten.squeeze.dim %y, %cm2 : (!opal.tensor, i64) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  // Nearest-neighbour upsampling of N, C, H, W planes to output_size (or,
  // .vec, to floor(size * factor)), each output pixel reading PyTorch's
  // nearest source pixel.
  opal.def "upsample_nearest2d(Tensor self, SymInt[2] output_size, float? scales_h=None, float? scales_w=None) -> Tensor"
  opal.decomposition "upsample_nearest2d" {
  ^bb0(%input: !opal.tensor, %output_size: !opal.list<i64>, %scales_h: f64, %scales_w: f64):
    %n = opal.list_len %output_size : !opal.list<i64> -> i64
    %c2 = arith.constant 2 : i64
    %two = arith.cmpi eq, %n, %c2 : i64
    opal.check %two, "It is expected output_size equals to 2, but got size {0}" (%n : i64)
    %c0 = arith.constant 0 : i64
    %c4 = arith.constant 4 : i64
    %shape = opal.shape_of %input : !opal.tensor -> !opal.list<i64>
    %rank = opal.list_len %shape : !opal.list<i64> -> i64
    %four = arith.cmpi eq, %rank, %c4 : i64
    opal.check %four, "It is expected input_size equals to 4, but got size {0}" (%rank : i64)
    // PyTorch 2's CPU kernels: uint8 and the floating-point dtypes.
    %none = opal.none
    %code = opal.dtype_of %input, %none : !opal.tensor, !opal.none -> i64
    %is_u8 = arith.cmpi eq, %code, %c0 : i64
    %is_float = opal.is_floating %code : i64 -> i1
    %supported = arith.ori %is_u8, %is_float : i1
    opal.check %supported, "\"upsample_nearest2d_channels_last\" not implemented for '{0:dtype}'" (%code : i64)
    %channels = opal.dim_size %input, 1 : !opal.tensor -> i64
    %h = opal.dim_size %input, 2 : !opal.tensor -> i64
    %w = opal.dim_size %input, 3 : !opal.tensor -> i64
    %c_ok = arith.cmpi ne, %channels, %c0 : i64
    %h_ok = arith.cmpi ne, %h, %c0 : i64
    %w_ok = arith.cmpi ne, %w, %c0 : i64
    %ch_ok = arith.andi %c_ok, %h_ok : i1
    %filled = arith.andi %ch_ok, %w_ok : i1
    opal.check %filled, "Non-empty 4D data tensor expected but got a tensor with sizes [{0}]" (%shape : !opal.list<i64>)
    %oh = opal.list_item %output_size, 0 : !opal.list<i64> -> i64
    %ow = opal.list_item %output_size, 1 : !opal.list<i64> -> i64
    %oh_ok = arith.cmpi sgt, %oh, %c0 : i64
    %ow_ok = arith.cmpi sgt, %ow, %c0 : i64
    %out_ok = arith.andi %oh_ok, %ow_ok : i1
    opal.check %out_ok, "Input and output sizes should be greater than 0, but got input (H: {0}, W: {1}) output (H: {2}, W: {3})" (%h, %w, %oh, %ow : i64, i64, i64, i64)
    %no_factors = opal.none
    %r = prims.upsample_nearest %input, %output_size, %no_factors, %scales_h, %scales_w : (!opal.tensor, !opal.list<i64>, !opal.none, f64, f64) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "upsample_nearest2d.vec(Tensor input, SymInt[]? output_size, float[]? scale_factors) -> Tensor"
  opal.decomposition "upsample_nearest2d.vec" {
  ^bb0(%input: !opal.tensor, %output_size: !opal.list<i64>, %scale_factors: !opal.list<f64>):
    %no_size = opal.is_none %output_size : !opal.list<i64> -> i1
    %no_factors = opal.is_none %scale_factors : !opal.list<f64> -> i1
    %one = arith.xori %no_size, %no_factors : i1
    opal.check %one, "Must specify exactly one of output_size and scale_factors"
    %c0 = arith.constant 0 : i64
    %c4 = arith.constant 4 : i64
    %true = arith.constant true
    %shape = opal.shape_of %input : !opal.tensor -> !opal.list<i64>
    %rank = opal.list_len %shape : !opal.list<i64> -> i64
    %four = arith.cmpi eq, %rank, %c4 : i64
    opal.check %four, "It is expected input_size equals to 4, but got size {0}" (%rank : i64)
    // PyTorch 2's CPU kernels: uint8 and the floating-point dtypes.
    %none = opal.none
    %code = opal.dtype_of %input, %none : !opal.tensor, !opal.none -> i64
    %is_u8 = arith.cmpi eq, %code, %c0 : i64
    %is_float = opal.is_floating %code : i64 -> i1
    %supported = arith.ori %is_u8, %is_float : i1
    opal.check %supported, "\"upsample_nearest2d_channels_last\" not implemented for '{0:dtype}'" (%code : i64)
    %channels = opal.dim_size %input, 1 : !opal.tensor -> i64
    %h = opal.dim_size %input, 2 : !opal.tensor -> i64
    %w = opal.dim_size %input, 3 : !opal.tensor -> i64
    %c_ok = arith.cmpi ne, %channels, %c0 : i64
    %h_ok = arith.cmpi ne, %h, %c0 : i64
    %w_ok = arith.cmpi ne, %w, %c0 : i64
    %ch_ok = arith.andi %c_ok, %h_ok : i1
    %filled = arith.andi %ch_ok, %w_ok : i1
    opal.check %filled, "Non-empty 4D data tensor expected but got a tensor with sizes [{0}]" (%shape : !opal.list<i64>)
    %c2 = arith.constant 2 : i64
    %r = opal.static_if %no_factors -> !opal.tensor {
      %n = opal.list_len %output_size : !opal.list<i64> -> i64
      %two = arith.cmpi eq, %n, %c2 : i64
      opal.check %two, "Expected static_cast<int64_t>(output_size->size()) == spatial_dimensions to be true, but got false.  (Could this error message be improved?  If so, please report an enhancement request to PyTorch.)"
      %oh = opal.list_item %output_size, 0 : !opal.list<i64> -> i64
      %ow = opal.list_item %output_size, 1 : !opal.list<i64> -> i64
      %oh_ok = arith.cmpi sgt, %oh, %c0 : i64
      %ow_ok = arith.cmpi sgt, %ow, %c0 : i64
      %out_ok = arith.andi %oh_ok, %ow_ok : i1
      opal.check %out_ok, "Input and output sizes should be greater than 0, but got input (H: {0}, W: {1}) output (H: {2}, W: {3})" (%h, %w, %oh, %ow : i64, i64, i64, i64)
      %nf = opal.none
      %v = prims.upsample_nearest %input, %output_size, %nf, %nf, %nf : (!opal.tensor, !opal.list<i64>, !opal.none, !opal.none, !opal.none) -> !opal.tensor
      opal.yield %v : !opal.tensor
    } else {
      %n = opal.list_len %scale_factors : !opal.list<f64> -> i64
      %two = arith.cmpi eq, %n, %c2 : i64
      opal.check %two, "Expected static_cast<int64_t>(scale_factors->size()) == spatial_dimensions to be true, but got false.  (Could this error message be improved?  If so, please report an enhancement request to PyTorch.)"
      %ns = opal.none
      %v = prims.upsample_nearest %input, %ns, %scale_factors, %ns, %ns : (!opal.tensor, !opal.none, !opal.list<f64>, !opal.none, !opal.none) -> !opal.tensor
      // Each output size floor(size * factor) at least 1: sizes known per
      // call, checked as data.
      %c1 = arith.constant 1 : i64
      %oh = opal.dim_size %v, 2 : !opal.tensor -> i64
      %ow = opal.dim_size %v, 3 : !opal.tensor -> i64
      %oh_ok = arith.cmpi sge, %oh, %c1 : i64
      %ow_ok = arith.cmpi sge, %ow, %c1 : i64
      %big = arith.andi %oh_ok, %ow_ok : i1
      %small = arith.xori %big, %true : i1
      %small_t = opal.promote %small : i1 -> !opal.tensor
      opal.data_check %small_t, "Input and output sizes should be greater than 0, but got input (H: {0}, W: {1}) output (H: {2}, W: {3})" (%h, %w, %oh, %ow) : !opal.tensor
      opal.yield %v : !opal.tensor
    }
    opal.yield %r : !opal.tensor
  }
  // Bilinear upsampling of N, C, H, W planes to output_size (or, .vec, to
  // floor(size * factor)), as PyTorch's CPU kernel computes it
  // (prims.upsample_linear); PyTorch 1.13's checks, order and messages.
  opal.def "upsample_bilinear2d(Tensor self, SymInt[2] output_size, bool align_corners, float? scales_h=None, float? scales_w=None) -> Tensor"
  opal.decomposition "upsample_bilinear2d" {
  ^bb0(%input: !opal.tensor, %output_size: !opal.list<i64>, %align_corners: i1, %scales_h: f64, %scales_w: f64):
    %c0 = arith.constant 0 : i64
    %c2 = arith.constant 2 : i64
    %c4 = arith.constant 4 : i64
    %n = opal.list_len %output_size : !opal.list<i64> -> i64
    %two = arith.cmpi eq, %n, %c2 : i64
    opal.check %two, "It is expected output_size equals to 2, but got size {0}" (%n : i64)
    %shape = opal.shape_of %input : !opal.tensor -> !opal.list<i64>
    %rank = opal.list_len %shape : !opal.list<i64> -> i64
    %four = arith.cmpi eq, %rank, %c4 : i64
    opal.check %four, "It is expected input_size equals to 4, but got size {0}" (%rank : i64)
    %h = opal.dim_size %input, 2 : !opal.tensor -> i64
    %w = opal.dim_size %input, 3 : !opal.tensor -> i64
    %oh = opal.list_item %output_size, 0 : !opal.list<i64> -> i64
    %ow = opal.list_item %output_size, 1 : !opal.list<i64> -> i64
    %h_ok = arith.cmpi sgt, %h, %c0 : i64
    %w_ok = arith.cmpi sgt, %w, %c0 : i64
    %oh_ok = arith.cmpi sgt, %oh, %c0 : i64
    %ow_ok = arith.cmpi sgt, %ow, %c0 : i64
    %in_ok = arith.andi %h_ok, %w_ok : i1
    %out_ok = arith.andi %oh_ok, %ow_ok : i1
    %sizes_ok = arith.andi %in_ok, %out_ok : i1
    opal.check %sizes_ok, "Input and output sizes should be greater than 0, but got input (H: {0}, W: {1}) output (H: {2}, W: {3})" (%h, %w, %oh, %ow : i64, i64, i64, i64)
    %channels = opal.dim_size %input, 1 : !opal.tensor -> i64
    %c_ok = arith.cmpi ne, %channels, %c0 : i64
    opal.check %c_ok, "Non-empty 4D data tensor expected but got a tensor with sizes [{0}]" (%shape : !opal.list<i64>)
    // PyTorch 2's CPU kernels: the floating-point dtypes (and uint8, whose
    // rounding opal does not reproduce: refused).
    %none = opal.none
    %code = opal.dtype_of %input, %none : !opal.tensor, !opal.none -> i64
    %u8_code = arith.constant 0 : i64
    %is_u8 = arith.cmpi eq, %code, %u8_code : i64
    %yes = arith.constant true
    %not_u8 = arith.xori %is_u8, %yes : i1
    opal.check %not_u8, "upsample_bilinear2d of uint8 is not supported by opal (PyTorch's uint8 kernel rounds in its own way)"
    %supported = opal.is_floating %code : i64 -> i1
    opal.check %supported, "\"upsample_bilinear2d_channels_last\" not implemented for '{0:dtype}'" (%code : i64)
    %no_factors = opal.none
    %r = prims.upsample_linear %input, %output_size, %no_factors, %align_corners, %scales_h, %scales_w : (!opal.tensor, !opal.list<i64>, !opal.none, i1, f64, f64) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "upsample_bilinear2d.vec(Tensor input, SymInt[]? output_size, bool align_corners, float[]? scale_factors) -> Tensor"
  opal.decomposition "upsample_bilinear2d.vec" {
  ^bb0(%input: !opal.tensor, %output_size: !opal.list<i64>, %align_corners: i1, %scale_factors: !opal.list<f64>):
    %no_size = opal.is_none %output_size : !opal.list<i64> -> i1
    %no_factors = opal.is_none %scale_factors : !opal.list<f64> -> i1
    %one = arith.xori %no_size, %no_factors : i1
    opal.check %one, "Must specify exactly one of output_size and scale_factors"
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %c2 = arith.constant 2 : i64
    %c4 = arith.constant 4 : i64
    %true = arith.constant true
    %shape = opal.shape_of %input : !opal.tensor -> !opal.list<i64>
    %rank = opal.list_len %shape : !opal.list<i64> -> i64
    %spatial = arith.subi %rank, %c2 : i64
    // PyTorch computes the output size for every spatial dim, then checks
    // that there are two.
    %r = opal.static_if %no_factors -> !opal.tensor {
      %n = opal.list_len %output_size : !opal.list<i64> -> i64
      %per_dim = arith.cmpi eq, %n, %spatial : i64
      opal.check %per_dim, "Expected static_cast<int64_t>(output_size->size()) == spatial_dimensions to be true, but got false.  (Could this error message be improved?  If so, please report an enhancement request to PyTorch.)"
      %none_h = opal.none
      %none_w = opal.none
      %v = aten.upsample_bilinear2d %input, %output_size, %align_corners, %none_h, %none_w : (!opal.tensor, !opal.list<i64>, i1, !opal.none, !opal.none) -> !opal.tensor
      opal.yield %v : !opal.tensor
    } else {
      %n = opal.list_len %scale_factors : !opal.list<f64> -> i64
      %per_dim = arith.cmpi eq, %n, %spatial : i64
      opal.check %per_dim, "Expected static_cast<int64_t>(scale_factors->size()) == spatial_dimensions to be true, but got false.  (Could this error message be improved?  If so, please report an enhancement request to PyTorch.)"
      %two = arith.cmpi eq, %n, %c2 : i64
      opal.check %two, "It is expected output_size equals to 2, but got size {0}" (%n : i64)
      %four = arith.cmpi eq, %rank, %c4 : i64
      opal.check %four, "It is expected input_size equals to 4, but got size {0}" (%rank : i64)
      %h = opal.dim_size %input, 2 : !opal.tensor -> i64
      %w = opal.dim_size %input, 3 : !opal.tensor -> i64
      %channels = opal.dim_size %input, 1 : !opal.tensor -> i64
      %none = opal.none
      %code = opal.dtype_of %input, %none : !opal.tensor, !opal.none -> i64
      %u8_code = arith.constant 0 : i64
      %is_u8 = arith.cmpi eq, %code, %u8_code : i64
      %not_u8 = arith.xori %is_u8, %true : i1
      opal.check %not_u8, "upsample_bilinear2d of uint8 is not supported by opal (PyTorch's uint8 kernel rounds in its own way)"
      %supported = opal.is_floating %code : i64 -> i1
      opal.check %supported, "\"upsample_bilinear2d_channels_last\" not implemented for '{0:dtype}'" (%code : i64)
      %ns = opal.none
      %v = prims.upsample_linear %input, %ns, %scale_factors, %align_corners, %ns, %ns : (!opal.tensor, !opal.none, !opal.list<f64>, i1, !opal.none, !opal.none) -> !opal.tensor
      // Input and output sizes of at least 1 (the output's floor(size *
      // factor), known per call): checked as data after the kernel.
      %oh = opal.dim_size %v, 2 : !opal.tensor -> i64
      %ow = opal.dim_size %v, 3 : !opal.tensor -> i64
      %h_ok = arith.cmpi sge, %h, %c1 : i64
      %w_ok = arith.cmpi sge, %w, %c1 : i64
      %oh_ok = arith.cmpi sge, %oh, %c1 : i64
      %ow_ok = arith.cmpi sge, %ow, %c1 : i64
      %in_ok = arith.andi %h_ok, %w_ok : i1
      %out_ok = arith.andi %oh_ok, %ow_ok : i1
      %big = arith.andi %in_ok, %out_ok : i1
      %small = arith.xori %big, %true : i1
      %small_t = opal.promote %small : i1 -> !opal.tensor
      opal.data_check %small_t, "Input and output sizes should be greater than 0, but got input (H: {0}, W: {1}) output (H: {2}, W: {3})" (%h, %w, %oh, %ow) : !opal.tensor
      %c_ok = arith.cmpi ne, %channels, %c0 : i64
      opal.check %c_ok, "Non-empty 4D data tensor expected but got a tensor with sizes [{0}]" (%shape : !opal.list<i64>)
      opal.yield %v : !opal.tensor
    }
    opal.yield %r : !opal.tensor
  }
}
