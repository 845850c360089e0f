// The aten library, continued: gathers. Indices are int64 (index_select and
// embedding also take int32); one out of range raises PyTorch's error after
// the call, and the kernel never reads outside the tensor (prims.gather and
// prims.take check every index).
opal.library "aten" {
  opal.def "gather(Tensor self, int dim, Tensor index, *, bool sparse_grad=False) -> Tensor"
  opal.decomposition "gather" {
  ^bb0(%self: !opal.tensor, %dim: i64, %index: !opal.tensor, %sparse_grad: i1):
    %none = opal.none
    %code = opal.dtype_of %index, %none : !opal.tensor, !opal.none -> i64
    %c4 = arith.constant 4 : i64
    %long = arith.cmpi eq, %code, %c4 : i64
    opal.check %long, "gather(): Expected dtype int64 for index"
    // 0-d and 1-d tensors count as one rank (PyTorch's ensure_nonempty_dim).
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %true = arith.constant true
    %at0 = opal.list %c0 : i64 -> !opal.list<i64>
    %self_scalar = opal.has_rank %self, 0 : !opal.tensor -> i1
    %index_scalar = opal.has_rank %index, 0 : !opal.tensor -> i1
    %s1 = opal.static_if %self_scalar -> !opal.tensor {
      %v = opal.keep_dims %self, %at0, %true : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
      opal.yield %v : !opal.tensor
    } else {
      opal.yield %self : !opal.tensor
    }
    %i1 = opal.static_if %index_scalar -> !opal.tensor {
      %v = opal.keep_dims %index, %at0, %true : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
      opal.yield %v : !opal.tensor
    } else {
      opal.yield %index : !opal.tensor
    }
    %ss = opal.shape_of %s1 : !opal.tensor -> !opal.list<i64>
    %is = opal.shape_of %i1 : !opal.tensor -> !opal.list<i64>
    %sr = opal.list_len %ss : !opal.list<i64> -> i64
    %ir = opal.list_len %is : !opal.list<i64> -> i64
    %same_rank = arith.cmpi eq, %sr, %ir : i64
    opal.check %same_rank, "Index tensor must have the same number of dimensions as input tensor"
    %d = opal.normalize_dims %s1, %dim : !opal.tensor, i64 -> !opal.list<i64>
    %fits = opal.sizes_within %i1, %s1, %dim : !opal.tensor, !opal.tensor, i64 -> i1
    opal.check %fits, "Size does not match: expected index [{0}] to be smaller than self [{1}] apart from dimension {2}" (%is, %ss, %dim : !opal.list<i64>, !opal.list<i64>, i64)
    %g = prims.gather %s1, %dim, %i1 : (!opal.tensor, i64, !opal.tensor) -> !opal.tensor
    // The result has the index's shape.
    %r = opal.static_if %index_scalar -> !opal.tensor {
      %v = prims.squeeze %g, %at0 : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
      opal.yield %v : !opal.tensor
    } else {
      opal.yield %g : !opal.tensor
    }
    opal.yield %r : !opal.tensor
  }
  // self's elements at `index` (a vector, or one index) along dim.
  opal.def "index_select(Tensor self, int dim, Tensor index) -> Tensor"
  opal.decomposition "index_select" {
  ^bb0(%self: !opal.tensor, %dim: i64, %index: !opal.tensor):
    %none = opal.none
    %code = opal.dtype_of %index, %none : !opal.tensor, !opal.none -> i64
    %c3 = arith.constant 3 : i64
    %c4 = arith.constant 4 : i64
    %int = arith.cmpi eq, %code, %c3 : i64
    %long = arith.cmpi eq, %code, %c4 : i64
    %integral = arith.ori %int, %long : i1
    opal.check %integral, "index_select(): Expected dtype int32 or int64 for index"
    %is = opal.shape_of %index : !opal.tensor -> !opal.list<i64>
    %ir = opal.list_len %is : !opal.list<i64> -> i64
    %c1 = arith.constant 1 : i64
    %vector = arith.cmpi sle, %ir, %c1 : i64
    opal.check %vector, "index_select(): Index is supposed to be a vector"
    %d = opal.normalize_dims %self, %dim : !opal.tensor, i64 -> !opal.list<i64>
    %i64 = opal.to_dtype %index, %c4 : !opal.tensor, i64 -> !opal.tensor
    // One index is a vector of one.
    %scalar = opal.has_rank %i64, 0 : !opal.tensor -> i1
    %v = opal.static_if %scalar -> !opal.tensor {
      %c0 = arith.constant 0 : i64
      %at = opal.list %c0 : i64 -> !opal.list<i64>
      %true = arith.constant true
      %one = opal.keep_dims %i64, %at, %true : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
      opal.yield %one : !opal.tensor
    } else {
      opal.yield %i64 : !opal.tensor
    }
    %size = opal.size_at %self, %dim : !opal.tensor, i64 -> i64
    %c0 = arith.constant 0 : i64
    %vz, %zero, %n = opal.promote %v, %c0, %size : !opal.tensor, i64, i64 -> !opal.tensor, !opal.tensor, !opal.tensor
    %vb, %zb, %nb = opal.broadcast_tensors %v, %zero, %n : !opal.tensor, !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor, !opal.tensor
    %below = prims.lt %vb, %zb : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %above = prims.ge %vb, %nb : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %outside = prims.bitwise_or %below, %above : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.data_check %outside, "index out of range in self" : !opal.tensor
    // A 0-d self gives itself, whatever the (in-range) indices, as in PyTorch.
    %self_scalar = opal.has_rank %self, 0 : !opal.tensor -> i1
    %r = opal.static_if %self_scalar -> !opal.tensor {
      opal.yield %self : !opal.tensor
    } else {
      %t = prims.take %self, %dim, %v : (!opal.tensor, i64, !opal.tensor) -> !opal.tensor
      opal.yield %t : !opal.tensor
    }
    opal.yield %r : !opal.tensor
  }
  // The rows of weight (a matrix) at indices, of indices' shape + [dim].
  opal.def "embedding(Tensor weight, Tensor indices, int padding_idx=-1, bool scale_grad_by_freq=False, bool sparse=False) -> Tensor"
  opal.decomposition "embedding" {
  ^bb0(%weight: !opal.tensor, %indices: !opal.tensor, %padding_idx: i64, %scale_grad_by_freq: i1, %sparse: i1):
    %matrix = opal.has_rank %weight, 2 : !opal.tensor -> i1
    opal.check %matrix, "'weight' must be 2-D"
    %none = opal.none
    %code = opal.dtype_of %indices, %none : !opal.tensor, !opal.none -> i64
    %c3 = arith.constant 3 : i64
    %c4 = arith.constant 4 : i64
    %int = arith.cmpi eq, %code, %c3 : i64
    %long = arith.cmpi eq, %code, %c4 : i64
    %integral = arith.ori %int, %long : i1
    opal.check %integral, "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got torch.{0:dtype}Tensor instead (while checking arguments for embedding)" (%code : i64)
    %i64 = opal.to_dtype %indices, %c4 : !opal.tensor, i64 -> !opal.tensor
    %size = opal.dim_size %weight, 0 : !opal.tensor -> i64
    %c0 = arith.constant 0 : i64
    %vz, %zero, %n = opal.promote %i64, %c0, %size : !opal.tensor, i64, i64 -> !opal.tensor, !opal.tensor, !opal.tensor
    %vb, %zb, %nb = opal.broadcast_tensors %i64, %zero, %n : !opal.tensor, !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor, !opal.tensor
    %below = prims.lt %vb, %zb : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %above = prims.ge %vb, %nb : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %outside = prims.bitwise_or %below, %above : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.data_check %outside, "index out of range in self" : !opal.tensor
    %r = prims.take %weight, %c0, %i64 : (!opal.tensor, i64, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  // The coordinates of the nonzero elements, one row each ([n, rank],
  // int64): a native kernel, as n depends on the data.
  opal.def "nonzero(Tensor self) -> Tensor"
  // The first element as a Python number (what Tensor.item() reads): native.
  opal.def "_local_scalar_dense(Tensor self) -> Scalar"
}
