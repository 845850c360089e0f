// The aten library, continued: ops that move elements. slice, select,
// narrow and alias are views (native kernels that share the input's memory;
// these bodies are what composites compile through); split,
// split_with_sizes, chunk and unbind return lists of views, and cat and
// stack take lists of tensors: native kernels only, because the JIT does
// not compile Tensor[] arguments or results yet (a composite that reaches
// them runs op by op). sort and topk are native too. flip and
// constant_pad_nd compute new tensors.
opal.library "aten" {
  // Every step-th element of [start, end) along dim (None: from the start,
  // to the end); the bounds wrap and clamp.
  opal.def "slice.Tensor(Tensor(a) self, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1) -> Tensor(a)"
  opal.decomposition "slice.Tensor" {
  ^bb0(%self: !opal.tensor, %dim: i64, %start: i64, %end: i64, %step: i64):
    %true = arith.constant true
    %scalar = opal.has_rank %self, 0 : !opal.tensor -> i1
    %ranked = arith.xori %scalar, %true : i1
    opal.check %ranked, "slice() cannot be applied to a 0-dim tensor."
    %ds = opal.normalize_dims %self, %dim : !opal.tensor, i64 -> !opal.list<i64>
    %d = opal.list_item %ds, 0 : !opal.list<i64> -> i64
    %c0 = arith.constant 0 : i64
    %positive = arith.cmpi sgt, %step, %c0 : i64
    opal.check %positive, "slice step must be positive"
    %no_start = opal.is_none %start : i64 -> i1
    %s = opal.static_if %no_start -> i64 {
      opal.yield %c0 : i64
    } else {
      opal.yield %start : i64
    }
    %no_end = opal.is_none %end : i64 -> i1
    %e = opal.static_if %no_end -> i64 {
      %last = arith.constant 9223372036854775807 : i64
      opal.yield %last : i64
    } else {
      opal.yield %end : i64
    }
    %r = prims.slice_in_dim %self, %s, %e, %step, %d : (!opal.tensor, i64, i64, i64, i64) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  // The elements at `index` along dim, which is removed.
  opal.def "select.int(Tensor(a) self, int dim, SymInt index) -> Tensor(a)"
  opal.decomposition "select.int" {
  ^bb0(%self: !opal.tensor, %dim: i64, %index: i64):
    %true = arith.constant true
    %scalar = opal.has_rank %self, 0 : !opal.tensor -> i1
    %ranked = arith.xori %scalar, %true : i1
    opal.check %ranked, "select() cannot be applied to a 0-dim tensor."
    %ds = opal.normalize_dims %self, %dim : !opal.tensor, i64 -> !opal.list<i64>
    %d = opal.list_item %ds, 0 : !opal.list<i64> -> i64
    %size = opal.size_at %self, %dim : !opal.tensor, i64 -> i64
    %shape = opal.shape_of %self : !opal.tensor -> !opal.list<i64>
    %c0 = arith.constant 0 : i64
    %negative = arith.cmpi slt, %index, %c0 : i64
    %fits = opal.static_if %negative -> i1 {
      %back = arith.subi %c0, %index : i64
      %ok = arith.cmpi sge, %size, %back : i64
      opal.yield %ok : i1
    } else {
      %ok = arith.cmpi sgt, %size, %index : i64
      opal.yield %ok : i1
    }
    opal.check %fits, "select(): index {0} out of range for tensor of size [{1}] at dimension {2}" (%index, %shape, %d : i64, !opal.list<i64>, i64)
    %r = prims.select_in_dim %self, %index, %d : (!opal.tensor, i64, i64) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  // `length` elements from `start` along dim (start may count from the end).
  opal.def "narrow(Tensor(a) self, int dim, SymInt start, SymInt length) -> Tensor(a)"
  opal.decomposition "narrow" {
  ^bb0(%self: !opal.tensor, %dim: i64, %start: i64, %length: i64):
    %true = arith.constant true
    %scalar = opal.has_rank %self, 0 : !opal.tensor -> i1
    %ranked = arith.xori %scalar, %true : i1
    opal.check %ranked, "narrow() cannot be applied to a 0-dim tensor."
    %ds = opal.normalize_dims %self, %dim : !opal.tensor, i64 -> !opal.list<i64>
    %d = opal.list_item %ds, 0 : !opal.list<i64> -> i64
    %size = opal.size_at %self, %dim : !opal.tensor, i64 -> i64
    %c0 = arith.constant 0 : i64
    %negative = arith.cmpi slt, %start, %c0 : i64
    %back = arith.subi %c0, %start : i64
    %reach = opal.static_if %negative -> i1 {
      %ok = arith.cmpi sge, %size, %back : i64
      opal.yield %ok : i1
    } else {
      %ok = arith.cmpi sge, %size, %start : i64
      opal.yield %ok : i1
    }
    opal.check %reach, "start out of range (expected to be in range of [-{0}, {0}], but got {1})" (%size, %start : i64, i64)
    %nonnegative = arith.cmpi sge, %length, %c0 : i64
    %end = arith.addi %start, %length : i64
    %fits = opal.static_if %negative -> i1 {
      %ok = arith.cmpi sle, %end, %c0 : i64
      %both = arith.andi %ok, %nonnegative : i1
      opal.yield %both : i1
    } else {
      %ok = arith.cmpi sge, %size, %end : i64
      %both = arith.andi %ok, %nonnegative : i1
      opal.yield %both : i1
    }
    opal.check %fits, "start ({0}) + length ({1}) exceeds dimension size ({2})." (%start, %length, %size : i64, i64, i64)
    // A negative start's end may be 0: the dim's end.
    %to_end = arith.cmpi eq, %end, %c0 : i64
    %whole = arith.andi %negative, %to_end : i1
    %limit = opal.static_if %whole -> i64 {
      %last = arith.constant 9223372036854775807 : i64
      opal.yield %last : i64
    } else {
      opal.yield %end : i64
    }
    %c1 = arith.constant 1 : i64
    %r = prims.slice_in_dim %self, %start, %limit, %c1, %d : (!opal.tensor, i64, i64, i64, i64) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  // The same tensor (a view of all of it).
  opal.def "alias(Tensor(a) self) -> Tensor(a)"
  opal.decomposition "alias" {
  ^bb0(%self: !opal.tensor):
    opal.yield %self : !opal.tensor
  }
  // A view of self's storage with the given sizes, strides and offset (which
  // must stay inside the storage); the diagonal of dims dim1 and dim2 (both
  // removed, the diagonal last). Native kernels without MLIR bodies yet.
  opal.def "as_strided(Tensor(a) self, SymInt[] size, SymInt[] stride, SymInt? storage_offset=None) -> Tensor(a)"
  opal.def "diagonal(Tensor(a) self, int offset=0, int dim1=0, int dim2=1) -> Tensor(a)"
  // Lists of views along dim: pieces of split_size (the last may be
  // smaller), of the given sizes, `chunks` pieces of ceil(size / chunks),
  // or every index (unbind, which removes dim).
  opal.def "split.Tensor(Tensor(a -> *) self, SymInt split_size, int dim=0) -> Tensor(a)[]"
  opal.def "split_with_sizes(Tensor(a -> *) self, SymInt[] split_sizes, int dim=0) -> Tensor(a)[]"
  opal.def "chunk(Tensor(a -> *) self, int chunks, int dim=0) -> Tensor(a)[]"
  opal.def "unbind.int(Tensor(a -> *) self, int dim=0) -> Tensor(a)[]"
  // The tensors joined along an existing dim (cat) or a new one (stack),
  // in the dtype they promote to.
  opal.def "cat(Tensor[] tensors, int dim=0) -> Tensor"
  opal.def "stack(Tensor[] tensors, int dim=0) -> Tensor"
  // Each line along dim sorted (NaN last, or first when descending; equal
  // values in index order) with the indices the values came from; topk's k
  // largest (or smallest) of each line. Native kernels: sorting is not a
  // linalg op.
  opal.def "sort(Tensor self, int dim=-1, bool descending=False) -> (Tensor values, Tensor indices)"
  opal.def "sort.stable(Tensor self, *, bool? stable, int dim=-1, bool descending=False) -> (Tensor values, Tensor indices)"
  opal.def "topk(Tensor self, SymInt k, int dim=-1, bool largest=True, bool sorted=True) -> (Tensor values, Tensor indices)"
  // The elements in reverse order along each of dims.
  opal.def "flip(Tensor self, int[] dims) -> Tensor"
  opal.decomposition "flip" {
  ^bb0(%self: !opal.tensor, %dims: !opal.list<i64>):
    %n = opal.list_len %dims : !opal.list<i64> -> i64
    %c0 = arith.constant 0 : i64
    %none = arith.cmpi eq, %n, %c0 : i64
    %scalar = opal.has_rank %self, 0 : !opal.tensor -> i1
    // Checks the dims (in range, none twice) even where nothing flips.
    %ds = opal.normalize_dims %self, %dims : !opal.tensor, !opal.list<i64> -> !opal.list<i64>
    %keep = arith.ori %none, %scalar : i1
    %r = opal.static_if %keep -> !opal.tensor {
      opal.yield %self : !opal.tensor
    } else {
      %v = prims.rev %self, %ds : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
      opal.yield %v : !opal.tensor
    }
    opal.yield %r : !opal.tensor
  }
  // `value` around self: pad[0] before and pad[1] after the last dim, then
  // the dim before it; negative pads crop.
  opal.def "constant_pad_nd(Tensor self, SymInt[] pad, Scalar value=0) -> Tensor"
  opal.decomposition "constant_pad_nd" {
  ^bb0(%self: !opal.tensor, %pad: !opal.list<i64>, %value: f64):
    %n = opal.list_len %pad : !opal.list<i64> -> i64
    %c0 = arith.constant 0 : i64
    %c2 = arith.constant 2 : i64
    %odd = arith.remsi %n, %c2 : i64
    %even = arith.cmpi eq, %odd, %c0 : i64
    opal.check %even, "Length of pad must be even but instead it equals {0}" (%n : i64)
    %shape = opal.shape_of %self : !opal.tensor -> !opal.list<i64>
    %rank = opal.list_len %shape : !opal.list<i64> -> i64
    %half = arith.divsi %n, %c2 : i64
    %fits = arith.cmpi sle, %half, %rank : i64
    opal.check %fits, "Length of pad should be no more than twice the number of dimensions of the input. Pad length is {0}while the input has {1}dimensions." (%n, %rank : i64, i64)
    opal.check_padding %self, %pad : !opal.tensor, !opal.list<i64>
    %r = prims.pad %self, %value, %pad : (!opal.tensor, f64, !opal.list<i64>) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  // self's shape and dtype with src's values (broadcast to self's shape,
  // converted to its dtype): the functional form of self.copy_(src).
  opal.def "copy(Tensor self, Tensor src, bool non_blocking=False) -> Tensor"
  opal.decomposition "copy" {
  ^bb0(%self: !opal.tensor, %src: !opal.tensor, %non_blocking: i1):
    %none = opal.none
    %code = opal.dtype_of %self, %none : !opal.tensor, !opal.none -> i64
    %v = opal.to_dtype %src, %code : !opal.tensor, i64 -> !opal.tensor
    %shape = opal.shape_of %self : !opal.tensor -> !opal.list<i64>
    %r = opal.broadcast_to %v, %shape : !opal.tensor, !opal.list<i64> -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  // self repeated repeats[d] times along each dim (more counts than dims
  // add leading dims).
  opal.def "repeat(Tensor self, SymInt[] repeats) -> Tensor"
  opal.decomposition "repeat" {
  ^bb0(%self: !opal.tensor, %repeats: !opal.list<i64>):
    opal.check_repeats %self, %repeats : !opal.tensor, !opal.list<i64>
    %r = prims.tile %self, %repeats : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  // self with the slice slice.Tensor would take replaced by src (converted
  // to self's dtype), which must have the slice's shape.
  opal.def "slice_scatter(Tensor self, Tensor src, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1) -> Tensor"
  opal.decomposition "slice_scatter" {
  ^bb0(%self: !opal.tensor, %src: !opal.tensor, %dim: i64, %start: i64, %end: i64, %step: i64):
    %true = arith.constant true
    %scalar = opal.has_rank %self, 0 : !opal.tensor -> i1
    %ranked = arith.xori %scalar, %true : i1
    opal.check %ranked, "slice() cannot be applied to a 0-dim tensor."
    %ds = opal.normalize_dims %self, %dim : !opal.tensor, i64 -> !opal.list<i64>
    %d = opal.list_item %ds, 0 : !opal.list<i64> -> i64
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %positive = arith.cmpi sgt, %step, %c0 : i64
    opal.check %positive, "slice step must be positive"
    %ss = opal.shape_of %self : !opal.tensor -> !opal.list<i64>
    %xs = opal.shape_of %src : !opal.tensor -> !opal.list<i64>
    %sr = opal.list_len %ss : !opal.list<i64> -> i64
    %xr = opal.list_len %xs : !opal.list<i64> -> i64
    %same_rank = arith.cmpi eq, %sr, %xr : i64
    opal.check %same_rank, "expected src to have a size equal to the slice of self. src size = [{0}], self size = [{1}]" (%xs, %ss : !opal.list<i64>, !opal.list<i64>)
    %in_self = opal.sizes_within %src, %self, %d : !opal.tensor, !opal.tensor, i64 -> i1
    %in_src = opal.sizes_within %self, %src, %d : !opal.tensor, !opal.tensor, i64 -> i1
    %same = arith.andi %in_self, %in_src : i1
    opal.check %same, "expected src to have a size equal to the slice of self. src size = [{0}], self size = [{1}] apart from dimension {2}" (%xs, %ss, %d : !opal.list<i64>, !opal.list<i64>, i64)
    %no_start = opal.is_none %start : i64 -> i1
    %s = opal.static_if %no_start -> i64 {
      opal.yield %c0 : i64
    } else {
      opal.yield %start : i64
    }
    %no_end = opal.is_none %end : i64 -> i1
    %e = opal.static_if %no_end -> i64 {
      %last = arith.constant 9223372036854775807 : i64
      opal.yield %last : i64
    } else {
      opal.yield %end : i64
    }
    // The slice's length (known per call): bounds wrapped and clamped.
    %size = opal.size_at %self, %d : !opal.tensor, i64 -> i64
    %s_neg = arith.cmpi slt, %s, %c0 : i64
    %s_wrap = arith.addi %s, %size : i64
    %s_w = arith.select %s_neg, %s_wrap, %s : i64
    %s_lo = arith.maxsi %s_w, %c0 : i64
    %from = arith.minsi %s_lo, %size : i64
    %e_neg = arith.cmpi slt, %e, %c0 : i64
    %e_wrap = arith.addi %e, %size : i64
    %e_w = arith.select %e_neg, %e_wrap, %e : i64
    %e_lo = arith.maxsi %e_w, %c0 : i64
    %e_c = arith.minsi %e_lo, %size : i64
    %to = arith.maxsi %e_c, %from : i64
    %span = arith.subi %to, %from : i64
    %length = arith.ceildivsi %span, %step : i64
    %given = opal.size_at %src, %d : !opal.tensor, i64 -> i64
    %differs = arith.cmpi ne, %given, %length : i64
    %differs_t = opal.promote %differs : i1 -> !opal.tensor
    opal.data_check %differs_t, "expected src to have a size equal to the slice of self: src has {0} elements along dimension {1}, the slice {2}" (%given, %d, %length) : !opal.tensor
    %none = opal.none
    %code = opal.dtype_of %self, %none : !opal.tensor, !opal.none -> i64
    %x = opal.to_dtype %src, %code : !opal.tensor, i64 -> !opal.tensor
    %r = prims.slice_scatter %self, %x, %s, %e, %step, %d : (!opal.tensor, !opal.tensor, i64, i64, i64, i64) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  // self with the elements at index along dim replaced by src (self's shape
  // without dim, converted to self's dtype).
  opal.def "select_scatter(Tensor self, Tensor src, int dim, SymInt index) -> Tensor"
  opal.decomposition "select_scatter" {
  ^bb0(%self: !opal.tensor, %src: !opal.tensor, %dim: i64, %index: i64):
    %true = arith.constant true
    %scalar = opal.has_rank %self, 0 : !opal.tensor -> i1
    %ranked = arith.xori %scalar, %true : i1
    opal.check %ranked, "select() cannot be applied to a 0-dim tensor."
    %ds = opal.normalize_dims %self, %dim : !opal.tensor, i64 -> !opal.list<i64>
    %d = opal.list_item %ds, 0 : !opal.list<i64> -> i64
    %size = opal.size_at %self, %dim : !opal.tensor, i64 -> i64
    %ss = opal.shape_of %self : !opal.tensor -> !opal.list<i64>
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %negative = arith.cmpi slt, %index, %c0 : i64
    %fits = opal.static_if %negative -> i1 {
      %back = arith.subi %c0, %index : i64
      %ok = arith.cmpi sge, %size, %back : i64
      opal.yield %ok : i1
    } else {
      %ok = arith.cmpi sgt, %size, %index : i64
      opal.yield %ok : i1
    }
    opal.check %fits, "select(): index {0} out of range for tensor of size [{1}] at dimension {2}" (%index, %ss, %d : i64, !opal.list<i64>, i64)
    %xs = opal.shape_of %src : !opal.tensor -> !opal.list<i64>
    %sr = opal.list_len %ss : !opal.list<i64> -> i64
    %xr = opal.list_len %xs : !opal.list<i64> -> i64
    %xr1 = arith.addi %xr, %c1 : i64
    %one_less = arith.cmpi eq, %sr, %xr1 : i64
    opal.check %one_less, "expected src to have a size equal to the slice of self. src size = [{0}], self size = [{1}] without dimension {2}" (%xs, %ss, %d : !opal.list<i64>, !opal.list<i64>, i64)
    %at = opal.list %d : i64 -> !opal.list<i64>
    %xk = opal.keep_dims %src, %at, %true : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
    %in_self = opal.sizes_within %xk, %self, %d : !opal.tensor, !opal.tensor, i64 -> i1
    %in_src = opal.sizes_within %self, %xk, %d : !opal.tensor, !opal.tensor, i64 -> i1
    %same = arith.andi %in_self, %in_src : i1
    opal.check %same, "expected src to have a size equal to the slice of self. src size = [{0}], self size = [{1}] without dimension {2}" (%xs, %ss, %d : !opal.list<i64>, !opal.list<i64>, i64)
    %none = opal.none
    %code = opal.dtype_of %self, %none : !opal.tensor, !opal.none -> i64
    %x = opal.to_dtype %xk, %code : !opal.tensor, i64 -> !opal.tensor
    // index -1's limit 0 would wrap to the start: the end instead.
    %next = arith.addi %index, %c1 : i64
    %last = arith.cmpi eq, %next, %c0 : i64
    %limit = opal.static_if %last -> i64 {
      %end = arith.constant 9223372036854775807 : i64
      opal.yield %end : i64
    } else {
      opal.yield %next : i64
    }
    %r = prims.slice_scatter %self, %x, %index, %limit, %c1, %d : (!opal.tensor, !opal.tensor, i64, i64, i64, i64) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  // Padding with the input's own elements, along the last 1, 2 or 3 dims
  // (padding as constant_pad_nd's pad): mirrored about each edge
  // (reflection, pads smaller than the dim) or the edge repeated
  // (replication). Floating-point inputs, as in PyTorch's CPU kernels.
  opal.def "reflection_pad1d(Tensor self, SymInt[2] padding) -> Tensor"
  opal.decomposition "reflection_pad1d" {
  ^bb0(%self: !opal.tensor, %padding: !opal.list<i64>):
    %n = opal.list_len %padding : !opal.list<i64> -> i64
    %size = arith.constant 2 : i64
    %full = arith.cmpi eq, %n, %size : i64
    opal.check %full, "padding size is expected to be 2, but got: {0}" (%n : i64)
    %shape = opal.shape_of %self : !opal.tensor -> !opal.list<i64>
    %rank = opal.list_len %shape : !opal.list<i64> -> i64
    %clo = arith.constant 2 : i64
    %chi = arith.constant 3 : i64
    %is_lo = arith.cmpi eq, %rank, %clo : i64
    %is_hi = arith.cmpi eq, %rank, %chi : i64
    %ranked = arith.ori %is_lo, %is_hi : i1
    opal.check %ranked, "2D or 3D (batch mode) tensor expected for input, but got: [{0}]" (%shape : !opal.list<i64>)
    %none = opal.none
    %code = opal.dtype_of %self, %none : !opal.tensor, !opal.none -> i64
    %float = opal.is_floating %code : i64 -> i1
    opal.check %float, "\"reflection_pad1d\" not implemented for '{0:dtype}'" (%code : i64)
    opal.check_edge_padding %self, %padding, "reflect" {planes = 1, min_output = 1, leading_may_be_empty} : !opal.tensor, !opal.list<i64>
    %mode = opal.str "reflect"
    %r = prims.pad_edges %self, %padding, %mode : (!opal.tensor, !opal.list<i64>, !opal.str) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "reflection_pad2d(Tensor self, SymInt[4] padding) -> Tensor"
  opal.decomposition "reflection_pad2d" {
  ^bb0(%self: !opal.tensor, %padding: !opal.list<i64>):
    %n = opal.list_len %padding : !opal.list<i64> -> i64
    %size = arith.constant 4 : i64
    %full = arith.cmpi eq, %n, %size : i64
    opal.check %full, "padding size is expected to be 4, but got: {0}" (%n : i64)
    %shape = opal.shape_of %self : !opal.tensor -> !opal.list<i64>
    %rank = opal.list_len %shape : !opal.list<i64> -> i64
    %clo = arith.constant 3 : i64
    %chi = arith.constant 4 : i64
    %is_lo = arith.cmpi eq, %rank, %clo : i64
    %is_hi = arith.cmpi eq, %rank, %chi : i64
    %ranked = arith.ori %is_lo, %is_hi : i1
    opal.check %ranked, "3D or 4D (batch mode) tensor expected for input, but got: [{0}]" (%shape : !opal.list<i64>)
    %none = opal.none
    %code = opal.dtype_of %self, %none : !opal.tensor, !opal.none -> i64
    %float = opal.is_floating %code : i64 -> i1
    opal.check %float, "\"reflection_pad2d\" not implemented for '{0:dtype}'" (%code : i64)
    opal.check_edge_padding %self, %padding, "reflect" {planes = 2, min_output = 0, leading_may_be_empty} : !opal.tensor, !opal.list<i64>
    %mode = opal.str "reflect"
    %r = prims.pad_edges %self, %padding, %mode : (!opal.tensor, !opal.list<i64>, !opal.str) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "reflection_pad3d(Tensor self, SymInt[6] padding) -> Tensor"
  opal.decomposition "reflection_pad3d" {
  ^bb0(%self: !opal.tensor, %padding: !opal.list<i64>):
    %n = opal.list_len %padding : !opal.list<i64> -> i64
    %size = arith.constant 6 : i64
    %full = arith.cmpi eq, %n, %size : i64
    opal.check %full, "padding size is expected to be 6, but got: {0}" (%n : i64)
    %shape = opal.shape_of %self : !opal.tensor -> !opal.list<i64>
    %rank = opal.list_len %shape : !opal.list<i64> -> i64
    %clo = arith.constant 4 : i64
    %chi = arith.constant 5 : i64
    %is_lo = arith.cmpi eq, %rank, %clo : i64
    %is_hi = arith.cmpi eq, %rank, %chi : i64
    %ranked = arith.ori %is_lo, %is_hi : i1
    opal.check %ranked, "4D or 5D (batch mode) tensor expected for input, but got: [{0}]" (%shape : !opal.list<i64>)
    %none = opal.none
    %code = opal.dtype_of %self, %none : !opal.tensor, !opal.none -> i64
    %float = opal.is_floating %code : i64 -> i1
    opal.check %float, "\"reflection_pad3d\" not implemented for '{0:dtype}'" (%code : i64)
    opal.check_edge_padding %self, %padding, "reflect" {planes = 3, min_output = 0} : !opal.tensor, !opal.list<i64>
    %mode = opal.str "reflect"
    %r = prims.pad_edges %self, %padding, %mode : (!opal.tensor, !opal.list<i64>, !opal.str) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "replication_pad1d(Tensor self, SymInt[2] padding) -> Tensor"
  opal.decomposition "replication_pad1d" {
  ^bb0(%self: !opal.tensor, %padding: !opal.list<i64>):
    %n = opal.list_len %padding : !opal.list<i64> -> i64
    %size = arith.constant 2 : i64
    %full = arith.cmpi eq, %n, %size : i64
    opal.check %full, "padding size is expected to be 2, but got: {0}" (%n : i64)
    %shape = opal.shape_of %self : !opal.tensor -> !opal.list<i64>
    %rank = opal.list_len %shape : !opal.list<i64> -> i64
    %clo = arith.constant 2 : i64
    %chi = arith.constant 3 : i64
    %is_lo = arith.cmpi eq, %rank, %clo : i64
    %is_hi = arith.cmpi eq, %rank, %chi : i64
    %ranked = arith.ori %is_lo, %is_hi : i1
    opal.check %ranked, "2D or 3D (batch mode) tensor expected for input, but got: [{0}]" (%shape : !opal.list<i64>)
    %none = opal.none
    %code = opal.dtype_of %self, %none : !opal.tensor, !opal.none -> i64
    %float = opal.is_floating %code : i64 -> i1
    opal.check %float, "\"replication_pad1d\" not implemented for '{0:dtype}'" (%code : i64)
    opal.check_edge_padding %self, %padding, "replicate" {planes = 1, min_output = 1} : !opal.tensor, !opal.list<i64>
    %mode = opal.str "replicate"
    %r = prims.pad_edges %self, %padding, %mode : (!opal.tensor, !opal.list<i64>, !opal.str) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "replication_pad2d(Tensor self, SymInt[4] padding) -> Tensor"
  opal.decomposition "replication_pad2d" {
  ^bb0(%self: !opal.tensor, %padding: !opal.list<i64>):
    %n = opal.list_len %padding : !opal.list<i64> -> i64
    %size = arith.constant 4 : i64
    %full = arith.cmpi eq, %n, %size : i64
    opal.check %full, "padding size is expected to be 4, but got: {0}" (%n : i64)
    %shape = opal.shape_of %self : !opal.tensor -> !opal.list<i64>
    %rank = opal.list_len %shape : !opal.list<i64> -> i64
    %clo = arith.constant 3 : i64
    %chi = arith.constant 4 : i64
    %is_lo = arith.cmpi eq, %rank, %clo : i64
    %is_hi = arith.cmpi eq, %rank, %chi : i64
    %ranked = arith.ori %is_lo, %is_hi : i1
    opal.check %ranked, "3D or 4D (batch mode) tensor expected for input, but got: [{0}]" (%shape : !opal.list<i64>)
    %none = opal.none
    %code = opal.dtype_of %self, %none : !opal.tensor, !opal.none -> i64
    %float = opal.is_floating %code : i64 -> i1
    opal.check %float, "\"replication_pad2d\" not implemented for '{0:dtype}'" (%code : i64)
    opal.check_edge_padding %self, %padding, "replicate" {planes = 2, min_output = 0} : !opal.tensor, !opal.list<i64>
    %mode = opal.str "replicate"
    %r = prims.pad_edges %self, %padding, %mode : (!opal.tensor, !opal.list<i64>, !opal.str) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.def "replication_pad3d(Tensor self, SymInt[6] padding) -> Tensor"
  opal.decomposition "replication_pad3d" {
  ^bb0(%self: !opal.tensor, %padding: !opal.list<i64>):
    %n = opal.list_len %padding : !opal.list<i64> -> i64
    %size = arith.constant 6 : i64
    %full = arith.cmpi eq, %n, %size : i64
    opal.check %full, "padding size is expected to be 6, but got: {0}" (%n : i64)
    %shape = opal.shape_of %self : !opal.tensor -> !opal.list<i64>
    %rank = opal.list_len %shape : !opal.list<i64> -> i64
    %clo = arith.constant 4 : i64
    %chi = arith.constant 5 : i64
    %is_lo = arith.cmpi eq, %rank, %clo : i64
    %is_hi = arith.cmpi eq, %rank, %chi : i64
    %ranked = arith.ori %is_lo, %is_hi : i1
    opal.check %ranked, "4D or 5D (batch mode) tensor expected for input, but got: [{0}]" (%shape : !opal.list<i64>)
    %none = opal.none
    %code = opal.dtype_of %self, %none : !opal.tensor, !opal.none -> i64
    %float = opal.is_floating %code : i64 -> i1
    opal.check %float, "\"replication_pad3d\" not implemented for '{0:dtype}'" (%code : i64)
    opal.check_edge_padding %self, %padding, "replicate" {planes = 3, min_output = 0} : !opal.tensor, !opal.list<i64>
    %mode = opal.str "replicate"
    %r = prims.pad_edges %self, %padding, %mode : (!opal.tensor, !opal.list<i64>, !opal.str) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
}
