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
    %c3 = arith.constant 3 : i64
    %c4 = arith.constant 4 : i64
    %is_long = arith.cmpi eq, %code, %c4 : i64
    %is_int = arith.cmpi eq, %code, %c3 : i64
    %long = arith.ori %is_long, %is_int : i1
    opal.check %long, "gather(): Expected dtype int32/int64 for index"
    // (int32 indices are read as int64.)
    %index64 = opal.to_dtype %index, %c4 : !opal.tensor, i64 -> !opal.tensor
    // 0-d and 1-d tensors count as one rank (PyTorch's ensure_nonempty_dim).
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %true = arith.constant true
    %at0 = opal.list %c0 : i64 -> !opal.list<i64>
    %self_scalar = opal.has_rank %self, 0 : !opal.tensor -> i1
    %index_scalar = opal.has_rank %index64, 0 : !opal.tensor -> i1
    %s1 = opal.static_if %self_scalar -> !opal.tensor {
      %v = opal.keep_dims %self, %at0, %true : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
      opal.yield %v : !opal.tensor
    } else {
      opal.yield %self : !opal.tensor
    }
    %i1 = opal.static_if %index_scalar -> !opal.tensor {
      %v = opal.keep_dims %index64, %at0, %true : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
      opal.yield %v : !opal.tensor
    } else {
      opal.yield %index64 : !opal.tensor
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
  opal.def "embedding(Tensor weight, Tensor indices, SymInt padding_idx=-1, bool scale_grad_by_freq=False, bool sparse=False) -> Tensor"
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
  // Bags of embeddings reduced (mode 0 sum, 1 mean, 2 max): bag b takes
  // weight's rows at indices[offsets[b] .. offsets[b + 1]) (the last bag runs
  // to the end; include_last_offset: offsets ends with the end), skipping
  // padding_idx; per_sample_weights scales each row (sum only). PyTorch
  // 1.13's CPU results: (output, offset2bag — empty for a float32/float16
  // sum without padding_idx of non-empty rows, as PyTorch skips it —,
  // bag_size — zeros for a
  // sum —, max_indices — bag_size, or the maximum's index for max), the
  // last three of the indices' and offsets' common dtype. opal raises where
  // PyTorch 1.13 computes garbage or crashes: 2-d indices here (embedding_bag
  // flattens them), a mode other than 0 to 2, decreasing offsets.
  opal.def "_embedding_bag(Tensor weight, Tensor indices, Tensor offsets, bool scale_grad_by_freq=False, int mode=0, bool sparse=False, Tensor? per_sample_weights=None, bool include_last_offset=False, int padding_idx=-1) -> (Tensor, Tensor, Tensor, Tensor)"
  opal.decomposition "_embedding_bag" {
  ^bb0(%weight: !opal.tensor, %indices: !opal.tensor, %offsets: !opal.tensor, %scale_grad_by_freq: i1, %mode: i64, %sparse: i1, %per_sample_weights: !opal.tensor, %include_last_offset: i1, %padding_idx: i64):
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %c2 = arith.constant 2 : i64
    %c3 = arith.constant 3 : i64
    %c4 = arith.constant 4 : i64
    %c5 = arith.constant 5 : i64
    %c6 = arith.constant 6 : i64
    %c7 = arith.constant 7 : i64
    %true = arith.constant true
    %false = arith.constant false
    %none = opal.none
    %ishape = opal.shape_of %indices : !opal.tensor -> !opal.list<i64>
    %irank = opal.list_len %ishape : !opal.list<i64> -> i64
    %i1d = arith.cmpi eq, %irank, %c1 : i64
    %i2d = arith.cmpi eq, %irank, %c2 : i64
    %i12 = arith.ori %i1d, %i2d : i1
    opal.check %i12, "input has to be a 1D or 2D Tensor, but got Tensor of dimension {0}" (%irank : i64)
    opal.check %i1d, "opal takes 1-D indices for _embedding_bag, but got Tensor of dimension 2 (embedding_bag flattens 2-D input into bags of its rows)"
    %oshape = opal.shape_of %offsets : !opal.tensor -> !opal.list<i64>
    %orank = opal.list_len %oshape : !opal.list<i64> -> i64
    %o1d = arith.cmpi eq, %orank, %c1 : i64
    opal.check %o1d, "offsets has to be a 1D Tensor, but got Tensor of dimension {0}" (%orank : i64)
    %icode = opal.dtype_of %indices, %none : !opal.tensor, !opal.none -> i64
    %ocode = opal.dtype_of %offsets, %none : !opal.tensor, !opal.none -> i64
    %wcode = opal.dtype_of %weight, %none : !opal.tensor, !opal.none -> i64
    %i_int = arith.cmpi eq, %icode, %c3 : i64
    %i_long = arith.cmpi eq, %icode, %c4 : i64
    %i_ok = arith.ori %i_int, %i_long : i1
    opal.check %i_ok, "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; but got torch.{0:dtype}Tensor instead (while checking arguments for embedding_bag)" (%icode : i64)
    %o_int = arith.cmpi eq, %ocode, %c3 : i64
    %o_long = arith.cmpi eq, %ocode, %c4 : i64
    %o_ok = arith.ori %o_int, %o_long : i1
    opal.check %o_ok, "Expected tensor for argument #1 'offsets' to have one of the following scalar types: Long, Int; but got torch.{0:dtype}Tensor instead (while checking arguments for embedding_bag)" (%ocode : i64)
    %w_half = arith.cmpi eq, %wcode, %c5 : i64
    %w_float = arith.cmpi eq, %wcode, %c6 : i64
    %w_double = arith.cmpi eq, %wcode, %c7 : i64
    %w_hf = arith.ori %w_half, %w_float : i1
    %w_ok = arith.ori %w_hf, %w_double : i1
    opal.check %w_ok, "Expected tensor for argument #1 'weight' to have one of the following scalar types: Half, Float, Double; but got torch.{0:dtype}Tensor instead (while checking arguments for embedding_bag)" (%wcode : i64)
    %wmatrix = opal.has_rank %weight, 2 : !opal.tensor -> i1
    opal.check %wmatrix, "opal takes a 2-D weight for _embedding_bag"
    %mode_low = arith.cmpi sge, %mode, %c0 : i64
    %mode_high = arith.cmpi sle, %mode, %c2 : i64
    %mode_ok = arith.andi %mode_low, %mode_high : i1
    opal.check %mode_ok, "opal takes mode 0 (sum), 1 (mean) or 2 (max) for _embedding_bag, but got {0}" (%mode : i64)
    %no_weights = opal.is_none %per_sample_weights : !opal.tensor -> i1
    %n = opal.dim_size %indices, 0 : !opal.tensor -> i64
    %scale = opal.static_if %no_weights -> !opal.tensor {
      %empty_shape = opal.list -> !opal.list<i64>
      %cpu = opal.device "cpu"
      %one = prims.full %empty_shape, %c1, %wcode, %cpu, %false : (!opal.list<i64>, i64, i64, !opal.device, i1) -> !opal.tensor
      opal.yield %one : !opal.tensor
    } else {
      %is_sum = arith.cmpi eq, %mode, %c0 : i64
      opal.check %is_sum, "embedding_bag: per_sample_weights only supported with mode='sum'"
      %pcode = opal.dtype_of %per_sample_weights, %none : !opal.tensor, !opal.none -> i64
      %same = arith.cmpi eq, %pcode, %wcode : i64
      opal.check %same, "Expected tensor for argument #1 'weight' to have the same type as tensor for argument #1 'per_sample_weights'; but type torch.{0:dtype}Tensor does not equal torch.{1:dtype}Tensor (while checking arguments for embedding_bag)" (%wcode, %pcode : i64, i64)
      %p1d = opal.has_rank %per_sample_weights, 1 : !opal.tensor -> i1
      opal.check %p1d, "Expected per_sample_weights.value().dim() == 1 to be true, but got false.  (Could this error message be improved?  If so, please report an enhancement request to PyTorch.)"
      %pn = opal.dim_size %per_sample_weights, 0 : !opal.tensor -> i64
      %pn_ok = arith.cmpi eq, %pn, %n : i64
      opal.check %pn_ok, "Expected per_sample_weights.value().numel() == indices.numel() to be true, but got false.  (Could this error message be improved?  If so, please report an enhancement request to PyTorch.)"
      opal.yield %per_sample_weights : !opal.tensor
    }
    %given = opal.dim_size %offsets, 0 : !opal.tensor -> i64
    opal.static_if %include_last_offset {
      %some = arith.cmpi sge, %given, %c1 : i64
      opal.check %some, "include_last_offset: number of offset should be at least 1"
      opal.yield
    } else {
      opal.yield
    }
    // Indices and offsets in their common dtype.
    %either_long = arith.ori %i_long, %o_long : i1
    %index_code = arith.select %either_long, %c4, %c3 : i64
    %idx = opal.to_dtype %indices, %index_code : !opal.tensor, i64 -> !opal.tensor
    %off = opal.to_dtype %offsets, %index_code : !opal.tensor, i64 -> !opal.tensor
    %is_max = arith.cmpi eq, %mode, %c2 : i64
    %reduce = opal.static_if %is_max -> !opal.str {
      %r = opal.str "max"
      opal.yield %r : !opal.str
    } else {
      %r = opal.str "sum"
      opal.yield %r : !opal.str
    }
    %values, %arg, %counts = prims.embedding_bag %weight, %idx, %off, %scale, %padding_idx, %reduce, %include_last_offset : (!opal.tensor, !opal.tensor, !opal.tensor, !opal.tensor, i64, !opal.str, i1) -> (!opal.tensor, !opal.tensor, !opal.tensor)
    // PyTorch's checks of the offsets and indices, after the call.
    %first_end = arith.minsi %given, %c1 : i64
    %first = prims.slice_in_dim %off, %c0, %first_end, %c1, %c0 : (!opal.tensor, i64, i64, i64, i64) -> !opal.tensor
    %first_p, %zero_t = opal.promote %first, %c0 : !opal.tensor, i64 -> !opal.tensor, !opal.tensor
    %first_b, %zero_b = opal.broadcast_tensors %first_p, %zero_t : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %not_zero = prims.ne %first_b, %zero_b : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.data_check %not_zero first %first : !opal.tensor, "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from position 0. However, got {0}" : !opal.tensor
    %last_start = arith.subi %given, %first_end : i64
    %last = prims.slice_in_dim %off, %last_start, %given, %c1, %c0 : (!opal.tensor, i64, i64, i64, i64) -> !opal.tensor
    %last_p, %n_t = opal.promote %last, %n : !opal.tensor, i64 -> !opal.tensor, !opal.tensor
    %last_b, %n_b = opal.broadcast_tensors %last_p, %n_t : !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor
    %past = prims.gt %last_b, %n_b : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.data_check %past first %last : !opal.tensor, "offsets[-1] can not be greater than input's length {1} but got offsets[-1] of {0}" (%n) : !opal.tensor
    %later = prims.slice_in_dim %off, %first_end, %given, %c1, %c0 : (!opal.tensor, i64, i64, i64, i64) -> !opal.tensor
    %before_end = arith.subi %given, %first_end : i64
    %earlier = prims.slice_in_dim %off, %c0, %before_end, %c1, %c0 : (!opal.tensor, i64, i64, i64, i64) -> !opal.tensor
    %decreasing = prims.lt %later, %earlier : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.data_check %decreasing first %later : !opal.tensor, "opal takes non-decreasing offsets for _embedding_bag, but an offset of {0} follows a larger one" : !opal.tensor
    %rows = opal.dim_size %weight, 0 : !opal.tensor -> i64
    %vz, %zero_i, %rows_t = opal.promote %idx, %c0, %rows : !opal.tensor, i64, i64 -> !opal.tensor, !opal.tensor, !opal.tensor
    %ib, %zb, %rb = opal.broadcast_tensors %idx, %zero_i, %rows_t : !opal.tensor, !opal.tensor, !opal.tensor -> !opal.tensor, !opal.tensor, !opal.tensor
    %below = prims.lt %ib, %zb : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %above = prims.ge %ib, %rb : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %outside = prims.bitwise_or %below, %above : (!opal.tensor, !opal.tensor) -> !opal.tensor
    opal.data_check %outside first %idx : !opal.tensor, "embedding_bag: Expected idx >= 0 && idx < num_embeddings but found idx to be {0}" : !opal.tensor
    // offset2bag: for each index, how many of the bags' offsets are at or
    // before it, less one. PyTorch skips it (an empty tensor) on its fast
    // path: a float32 or float16 sum without padding_idx, of rows of at
    // least one element.
    %is_sum_mode = arith.cmpi eq, %mode, %c0 : i64
    %fast_dtype = arith.ori %w_float, %w_half : i1
    %no_padding = arith.cmpi slt, %padding_idx, %c0 : i64
    %fast0 = arith.andi %is_sum_mode, %fast_dtype : i1
    %fast = arith.andi %fast0, %no_padding : i1
    %width = opal.dim_size %weight, 1 : !opal.tensor -> i64
    %no_width = arith.cmpi eq, %width, %c0 : i64
    %skipped = arith.xori %no_width, %true : i1
    %skip = arith.andi %fast, %skipped : i1
    %o2b_length = arith.select %skip, %c0, %n : i64
    %cpu = opal.device "cpu"
    %bags = opal.dim_size %values, 0 : !opal.tensor -> i64
    %starts = prims.slice_in_dim %off, %c0, %bags, %c1, %c0 : (!opal.tensor, i64, i64, i64, i64) -> !opal.tensor
    %positions = prims.iota %o2b_length, %c0, %c1, %index_code, %cpu, %false : (i64, i64, i64, i64, !opal.device, i1) -> !opal.tensor
    %counted = prims.searchsorted %starts, %positions, %true : (!opal.tensor, !opal.tensor, i1) -> !opal.tensor
    %bag_of = aten.sub.Scalar %counted, %c1, %c1 : (!opal.tensor, i64, i64) -> !opal.tensor
    %offset2bag = opal.to_dtype %bag_of, %index_code : !opal.tensor, i64 -> !opal.tensor
    %output, %bag_size, %max_indices = opal.static_if %is_sum_mode -> !opal.tensor, !opal.tensor, !opal.tensor {
      %bshape = opal.list %bags : i64 -> !opal.list<i64>
      %z = prims.full %bshape, %c0, %index_code, %cpu, %false : (!opal.list<i64>, i64, i64, !opal.device, i1) -> !opal.tensor
      opal.yield %values, %z, %z : !opal.tensor, !opal.tensor, !opal.tensor
    } else {
      %r, %m = opal.static_if %is_max -> !opal.tensor, !opal.tensor {
        opal.yield %values, %arg : !opal.tensor, !opal.tensor
      } else {
        // The mean: the sum over max(bag_size, 1), in weight's dtype.
        %at_least = aten.clamp_min %counts, %c1 : (!opal.tensor, i64) -> !opal.tensor
        %divisor = opal.to_dtype %at_least, %wcode : !opal.tensor, i64 -> !opal.tensor
        %column = aten.unsqueeze %divisor, %c1 : (!opal.tensor, i64) -> !opal.tensor
        %mean = aten.div.Tensor %values, %column : (!opal.tensor, !opal.tensor) -> !opal.tensor
        opal.yield %mean, %counts : !opal.tensor, !opal.tensor
      }
      opal.yield %r, %counts, %m : !opal.tensor, !opal.tensor, !opal.tensor
    }
    opal.yield %output, %offset2bag, %bag_size, %max_indices : !opal.tensor, !opal.tensor, !opal.tensor, !opal.tensor
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
    %c3 = arith.constant 3 : i64
    %c4 = arith.constant 4 : i64
    %is_long = arith.cmpi eq, %code, %c4 : i64
    %is_int = arith.cmpi eq, %code, %c3 : i64
    %long = arith.ori %is_long, %is_int : i1
    opal.check %long, "scatter(): Expected dtype int32/int64 for index"
    // (int32 indices are read as int64.)
    %index64 = opal.to_dtype %index, %c4 : !opal.tensor, i64 -> !opal.tensor
    %self_code = opal.dtype_of %self, %none : !opal.tensor, !opal.none -> i64
    %src_code = opal.dtype_of %src, %none : !opal.tensor, !opal.none -> i64
    %same_dtype = arith.cmpi eq, %self_code, %src_code : i64
    opal.check %same_dtype, "scatter(): Expected self.dtype to be equal to src.dtype"
    // 0-d tensors count as one rank (PyTorch's ensure_nonempty_dim).
    %c0 = arith.constant 0 : i64
    %true = arith.constant true
    %at0 = opal.list %c0 : i64 -> !opal.list<i64>
    %self_scalar = opal.has_rank %self, 0 : !opal.tensor -> i1
    %index_scalar = opal.has_rank %index64, 0 : !opal.tensor -> i1
    %src_scalar = opal.has_rank %src, 0 : !opal.tensor -> i1
    %s1 = opal.static_if %self_scalar -> !opal.tensor {
      %v = opal.keep_dims %self, %at0, %true : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
      opal.yield %v : !opal.tensor
    } else {
      opal.yield %self : !opal.tensor
    }
    %i1 = opal.static_if %index_scalar -> !opal.tensor {
      %v = opal.keep_dims %index64, %at0, %true : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
      opal.yield %v : !opal.tensor
    } else {
      opal.yield %index64 : !opal.tensor
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
