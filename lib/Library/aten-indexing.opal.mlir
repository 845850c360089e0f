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
  // self at index tensors (None keeps a dim; bool masks select their true
  // elements): PyTorch's advanced indexing, a native kernel (the JIT does
  // not compile Tensor?[] arguments yet).
  opal.def "index.Tensor(Tensor self, Tensor?[] indices) -> Tensor"
  // A copy of self with values (broadcast to self[indices]'s shape) written
  // where index.Tensor reads, or added there (accumulate): native.
  opal.def "index_put(Tensor self, Tensor?[] indices, Tensor values, bool accumulate=False) -> Tensor"
  // The coordinates of the nonzero elements, one row each ([n, rank],
  // int64): a native kernel, as n depends on the data.
  opal.def "nonzero(Tensor self) -> Tensor"
  // The first element as a Python number (what Tensor.item() reads): native.
  opal.def "_local_scalar_dense(Tensor self) -> Scalar"
  // self with src's elements written at the positions index names along dim
  // (the last write wins), or a value everywhere index names; scatter_add
  // adds them, scatter_reduce combines them. Out-of-range indices raise
  // after the call and write nothing.
  opal.def "scatter.src(Tensor self, int dim, Tensor index, Tensor src) -> Tensor"
  opal.decomposition "scatter.src" {
  ^bb0(%self: !opal.tensor, %dim: i64, %index: !opal.tensor, %src: !opal.tensor):
    %reduce = opal.str "none"
    %true = arith.constant true
    %r = aten.scatter_reduce.two %self, %dim, %index, %src, %reduce, %true : (!opal.tensor, i64, !opal.tensor, !opal.tensor, !opal.str, i1) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "scatter.value(Tensor self, int dim, Tensor index, Scalar value) -> Tensor"
  opal.decomposition "scatter.value" {
  ^bb0(%self: !opal.tensor, %dim: i64, %index: !opal.tensor, %value: f64):
    // src: the value in self's dtype, of index's shape.
    %none = opal.none
    %shape = opal.shape_of %index : !opal.tensor -> !opal.list<i64>
    %code = opal.dtype_of %self, %none : !opal.tensor, !opal.none -> i64
    %cpu = opal.device "cpu"
    %false = arith.constant false
    %src = prims.full %shape, %value, %code, %cpu, %false : (!opal.list<i64>, f64, i64, !opal.device, i1) -> !opal.tensor
    %reduce = opal.str "none"
    %true = arith.constant true
    %r = aten.scatter_reduce.two %self, %dim, %index, %src, %reduce, %true : (!opal.tensor, i64, !opal.tensor, !opal.tensor, !opal.str, i1) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "scatter_add(Tensor self, int dim, Tensor index, Tensor src) -> Tensor"
  opal.decomposition "scatter_add" {
  ^bb0(%self: !opal.tensor, %dim: i64, %index: !opal.tensor, %src: !opal.tensor):
    %reduce = opal.str "sum"
    %true = arith.constant true
    %r = aten.scatter_reduce.two %self, %dim, %index, %src, %reduce, %true : (!opal.tensor, i64, !opal.tensor, !opal.tensor, !opal.str, i1) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  // reduce is "sum", "prod", "mean", "amax" or "amin" (opal also takes
  // "none": scatter's own). With include_self=False an element some index
  // names starts from the first value written there, not self's.
  opal.def "scatter_reduce.two(Tensor self, int dim, Tensor index, Tensor src, str reduce, *, bool include_self=True) -> Tensor"
  opal.decomposition "scatter_reduce.two" {
  ^bb0(%self: !opal.tensor, %dim: i64, %index: !opal.tensor, %src: !opal.tensor, %reduce: !opal.str, %include_self: i1):
    %is_none = opal.str_eq %reduce, "none" : !opal.str -> i1
    %is_sum = opal.str_eq %reduce, "sum" : !opal.str -> i1
    %is_prod = opal.str_eq %reduce, "prod" : !opal.str -> i1
    %is_mean = opal.str_eq %reduce, "mean" : !opal.str -> i1
    %is_amax = opal.str_eq %reduce, "amax" : !opal.str -> i1
    %is_amin = opal.str_eq %reduce, "amin" : !opal.str -> i1
    %r1 = arith.ori %is_none, %is_sum : i1
    %r2 = arith.ori %r1, %is_prod : i1
    %r3 = arith.ori %r2, %is_mean : i1
    %r4 = arith.ori %r3, %is_amax : i1
    %known = arith.ori %r4, %is_amin : i1
    opal.check %known, "reduce argument must be either sum, prod, mean, amax or amin."
    %none = opal.none
    %code = opal.dtype_of %index, %none : !opal.tensor, !opal.none -> i64
    %c4 = arith.constant 4 : i64
    %long = arith.cmpi eq, %code, %c4 : i64
    opal.check %long, "scatter(): Expected dtype int64 for index"
    %self_code = opal.dtype_of %self, %none : !opal.tensor, !opal.none -> i64
    %src_code = opal.dtype_of %src, %none : !opal.tensor, !opal.none -> i64
    %same_dtype = arith.cmpi eq, %self_code, %src_code : i64
    opal.check %same_dtype, "scatter(): Expected self.dtype to be equal to src.dtype"
    // 0-d tensors count as one rank (PyTorch's ensure_nonempty_dim).
    %c0 = arith.constant 0 : i64
    %true = arith.constant true
    %at0 = opal.list %c0 : i64 -> !opal.list<i64>
    %self_scalar = opal.has_rank %self, 0 : !opal.tensor -> i1
    %index_scalar = opal.has_rank %index, 0 : !opal.tensor -> i1
    %src_scalar = opal.has_rank %src, 0 : !opal.tensor -> i1
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
    %x1 = opal.static_if %src_scalar -> !opal.tensor {
      %v = opal.keep_dims %src, %at0, %true : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
      opal.yield %v : !opal.tensor
    } else {
      opal.yield %src : !opal.tensor
    }
    %ss = opal.shape_of %s1 : !opal.tensor -> !opal.list<i64>
    %is = opal.shape_of %i1 : !opal.tensor -> !opal.list<i64>
    %xs = opal.shape_of %x1 : !opal.tensor -> !opal.list<i64>
    %sr = opal.list_len %ss : !opal.list<i64> -> i64
    %ir = opal.list_len %is : !opal.list<i64> -> i64
    %xr = opal.list_len %xs : !opal.list<i64> -> i64
    %same_rank = arith.cmpi eq, %sr, %ir : i64
    opal.check %same_rank, "Index tensor must have the same number of dimensions as self tensor"
    %same_src_rank = arith.cmpi eq, %xr, %ir : i64
    opal.check %same_src_rank, "Index tensor must have the same number of dimensions as src tensor"
    %d = opal.normalize_dims %s1, %dim : !opal.tensor, i64 -> !opal.list<i64>
    %in_self = opal.sizes_within %i1, %s1, %dim : !opal.tensor, !opal.tensor, i64 -> i1
    %in_src = opal.sizes_within %i1, %x1, %dim : !opal.tensor, !opal.tensor, i64 -> i1
    %n_index = opal.size_at %i1, %dim : !opal.tensor, i64 -> i64
    %n_src = opal.size_at %x1, %dim : !opal.tensor, i64 -> i64
    %along = arith.cmpi sle, %n_index, %n_src : i64
    %in_src_all = arith.andi %in_src, %along : i1
    %fits = arith.andi %in_self, %in_src_all : i1
    opal.check %fits, "Expected index [{0}] to be smaller than self [{1}] apart from dimension {2} and to be smaller size than src [{3}]" (%is, %ss, %dim, %xs : !opal.list<i64>, !opal.list<i64>, i64, !opal.list<i64>)
    %r = prims.scatter %s1, %dim, %i1, %x1, %reduce, %include_self : (!opal.tensor, i64, !opal.tensor, !opal.tensor, !opal.str, i1) -> !opal.tensor
    %out = opal.static_if %self_scalar -> !opal.tensor {
      %v = prims.squeeze %r, %at0 : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
      opal.yield %v : !opal.tensor
    } else {
      opal.yield %r : !opal.tensor
    }
    opal.yield %out : !opal.tensor
  }
  // self with its elements where mask (bool, or uint8 of 0s and 1s;
  // broadcast together with self) is true replaced by source's first elements in order: the k-th true
  // element takes source's k-th element (its index a cumsum of the mask,
  // so CPU only for now, like cumsum).
  opal.def "masked_scatter(Tensor self, Tensor mask, Tensor source) -> Tensor"
  opal.decomposition "masked_scatter" {
  ^bb0(%self: !opal.tensor, %mask: !opal.tensor, %source: !opal.tensor):
    %none = opal.none
    %code = opal.dtype_of %self, %none : !opal.tensor, !opal.none -> i64
    %source_code = opal.dtype_of %source, %none : !opal.tensor, !opal.none -> i64
    %same = arith.cmpi eq, %code, %source_code : i64
    opal.check %same, "masked_scatter: expected self and source to have same dtypes but got{0:dtype} and {1:dtype}" (%code, %source_code : i64, i64)
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %c4 = arith.constant 4 : i64
    %cm1 = arith.constant -1 : i64
    %c11 = arith.constant 11 : i64
    // A bool mask, or (deprecated in PyTorch) a uint8 one of 0s and 1s.
    %mask_code = opal.dtype_of %mask, %none : !opal.tensor, !opal.none -> i64
    %bool_mask = arith.cmpi eq, %mask_code, %c11 : i64
    %byte_mask = arith.cmpi eq, %mask_code, %c0 : i64
    %mask_ok = arith.ori %bool_mask, %byte_mask : i1
    opal.check %mask_ok, "masked_scatter_ only supports boolean masks, but got mask with dtype {0:dtype}" (%mask_code : i64)
    %m_any, %s = opal.broadcast_tensors %mask, %self : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    opal.static_if %byte_mask {
      %m0, %zero, %one = opal.promote %m_any, %c0, %c1 : !opal.tensor, i64, i64 -> !opal.tensor, !opal.tensor, !opal.tensor
      %mb, %zb, %ob = opal.broadcast_tensors %m0, %zero, %one : !opal.tensor, !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor, !opal.tensor
      %not0 = prims.ne %mb, %zb : (!opal.tensor, !opal.tensor) -> !opal.tensor
      %not1 = prims.ne %mb, %ob : (!opal.tensor, !opal.tensor) -> !opal.tensor
      %neither = prims.bitwise_and %not0, %not1 : (!opal.tensor, !opal.tensor) -> !opal.tensor
      opal.data_check %neither, "Mask tensor can take 0 and 1 values only" : !opal.tensor
      opal.yield
    } else {
      opal.yield
    }
    %m = opal.to_dtype %m_any, %c11 : !opal.tensor, i64 -> !opal.tensor
    %shape = opal.shape_of %s : !opal.tensor -> !opal.list<i64>
    %flat = opal.list %cm1 : i64 -> !opal.list<i64>
    %m_flat = aten.reshape %m, %flat : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
    %ones = opal.to_dtype %m_flat, %c4 : !opal.tensor, i64 -> !opal.tensor
    %running = aten.cumsum %ones, %c0, %none : (!opal.tensor, i64, !opal.none) -> !opal.tensor
    %index = aten.sub.Scalar %running, %c1, %c1 : (!opal.tensor, i64, i64) -> !opal.tensor
    %all = opal.normalize_dims %source, %none : !opal.tensor, !opal.none -> !opal.list<i64>
    %available = opal.count %source, %all : !opal.tensor, !opal.list<i64> -> i64
    %past = aten.ge.Scalar %index, %available : (!opal.tensor, i64) -> !opal.tensor
    %short = aten.logical_and %m_flat, %past : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.data_check %short, "Number of elements of source < number of ones in mask" : !opal.tensor
    // Read from source with one element more (0), at an index clamped into
    // it: in range also where the mask is false or source is empty.
    %src_flat = aten.reshape %source, %flat : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
    %pad = opal.list %c0, %c1 : i64, i64 -> !opal.list<i64>
    %padded = aten.constant_pad_nd %src_flat, %pad, %c0 : (!opal.tensor, !opal.list<i64>, i64) -> !opal.tensor
    %low = aten.clamp_min %index, %c0 : (!opal.tensor, i64) -> !opal.tensor
    %safe = aten.clamp_max %low, %available : (!opal.tensor, i64) -> !opal.tensor
    %picked = aten.index_select %padded, %c0, %safe : (!opal.tensor, i64, !opal.tensor) -> !opal.tensor
    %values = aten.reshape %picked, %shape : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
    %r = aten.where.self %m, %values, %s : (!opal.tensor, !opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
}
