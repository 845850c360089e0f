// The aten library, continued: distances between rows (_cdist_forward,
// _pdist_forward) as PyTorch 1.13's CPU kernels compute them, with its
// checks and messages. p is known per call only: each kind of norm is
// computed and the one p names is selected.
opal.library "aten" {
  // Distances between the rows of x1 [..., P, M] and x2 [..., R, M] (batch
  // dims broadcast): [..., P, R]. As PyTorch's kernel: p = 0 counts unequal
  // columns, p = inf takes the largest difference, else (sum |d|^p)^(1/p);
  // p = 2 with compute_mode 1, or 0 (None) and more than 25 rows, is
  // sqrt(|x1|^2 + |x2|^2 - 2 x1.x2) by a matrix product.
  opal.def "_cdist_forward(Tensor x1, Tensor x2, float p, int? compute_mode) -> Tensor"
  opal.decomposition "_cdist_forward" {
  ^bb0(%x1: !opal.tensor, %x2: !opal.tensor, %p: f64, %compute_mode: i64):
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %c2 = arith.constant 2 : i64
    %c6 = arith.constant 6 : i64
    %c7 = arith.constant 7 : i64
    %c25 = arith.constant 25 : i64
    %cm1 = arith.constant -1 : i64
    %cm2 = arith.constant -2 : i64
    %cm3 = arith.constant -3 : i64
    %false = arith.constant false
    %true = arith.constant true
    %none = opal.none
    %s1 = opal.shape_of %x1 : !opal.tensor -> !opal.list<i64>
    %s2 = opal.shape_of %x2 : !opal.tensor -> !opal.list<i64>
    %r1 = opal.list_len %s1 : !opal.list<i64> -> i64
    %r2 = opal.list_len %s2 : !opal.list<i64> -> i64
    %r1_ok = arith.cmpi sge, %r1, %c2 : i64
    opal.check %r1_ok, "cdist only supports at least 2D tensors, X1 got: {0}D" (%r1 : i64)
    %r2_ok = arith.cmpi sge, %r2, %c2 : i64
    opal.check %r2_ok, "cdist only supports at least 2D tensors, X2 got: {0}D" (%r2 : i64)
    %m1 = opal.dim_size %x1, -1 : !opal.tensor -> i64
    %m2 = opal.dim_size %x2, -1 : !opal.tensor -> i64
    %same_m = arith.cmpi eq, %m1, %m2 : i64
    opal.check %same_m, "X1 and X2 must have the same number of columns. X1: {0} X2: {1}" (%m1, %m2 : i64, i64)
    %code1 = opal.dtype_of %x1, %none : !opal.tensor, !opal.none -> i64
    %code2 = opal.dtype_of %x2, %none : !opal.tensor, !opal.none -> i64
    %float1 = opal.is_floating %code1 : i64 -> i1
    opal.check %float1, "cdist only supports floating-point dtypes, X1 got: {0:dtype}" (%code1 : i64)
    %float2 = opal.is_floating %code2 : i64 -> i1
    opal.check %float2, "cdist only supports floating-point dtypes, X2 got: {0:dtype}" (%code2 : i64)
    // p (known per call) not negative (nor NaN): checked as data.
    %zero_f = arith.constant 0.0 : f64
    %negative = arith.cmpf ult, %p, %zero_f : f64
    %negative_t = opal.promote %negative : i1 -> !opal.tensor
    opal.data_check %negative_t, "cdist only supports non-negative p values" : !opal.tensor
    %no_mode = opal.is_none %compute_mode : i64 -> i1
    %mode = opal.static_if %no_mode -> i64 {
      opal.yield %c0 : i64
    } else {
      opal.yield %compute_mode : i64
    }
    %mode_low = arith.cmpi sge, %mode, %c0 : i64
    %mode_high = arith.cmpi sle, %mode, %c2 : i64
    %mode_ok = arith.andi %mode_low, %mode_high : i1
    opal.check %mode_ok, "possible modes: 0, 1, 2, but was: {0}" (%mode : i64)
    // PyTorch 1.13's CPU kernel: float32 and float64, both operands alike.
    %is_f32 = arith.cmpi eq, %code1, %c6 : i64
    %is_f64 = arith.cmpi eq, %code1, %c7 : i64
    %supported = arith.ori %is_f32, %is_f64 : i1
    opal.check %supported, "\"cdist\" not implemented for '{0:dtype}'" (%code1 : i64)
    %alike = arith.cmpi eq, %code1, %code2 : i64
    opal.check %alike, "expected scalar type {0:dtype} but found {1:dtype}" (%code1, %code2 : i64, i64)
    %a = aten.unsqueeze %x1, %cm2 : (!opal.tensor, i64) -> !opal.tensor
    %b = aten.unsqueeze %x2, %cm3 : (!opal.tensor, i64) -> !opal.tensor
    %d = aten.sub.Tensor %a, %b, %c1 : (!opal.tensor, !opal.tensor, i64) -> !opal.tensor
    %ad = aten.abs %d : (!opal.tensor) -> !opal.tensor
    %last = opal.list %cm1 : i64 -> !opal.list<i64>
    %f0 = arith.constant 0.0 : f64
    %f1 = arith.constant 1.0 : f64
    %nz = aten.ne.Scalar %ad, %f0 : (!opal.tensor, f64) -> !opal.tensor
    %count = aten.sum.dim_IntList %nz, %last, %false, %code1 : (!opal.tensor, !opal.list<i64>, i1, i64) -> !opal.tensor
    %pw = aten.pow.Tensor_Scalar %ad, %p : (!opal.tensor, f64) -> !opal.tensor
    %sp = aten.sum.dim_IntList %pw, %last, %false, %none : (!opal.tensor, !opal.list<i64>, i1, !opal.none) -> !opal.tensor
    %inv = arith.divf %f1, %p : f64
    %general = aten.pow.Tensor_Scalar %sp, %inv : (!opal.tensor, f64) -> !opal.tensor
    // (An empty last dim's maximum is 0: the prim's -inf, clamped.)
    %dims = opal.normalize_dims %ad, %last : !opal.tensor, !opal.list<i64> -> !opal.list<i64>
    %max = prims.amax %ad, %dims, %none : (!opal.tensor, !opal.list<i64>, !opal.none) -> !opal.tensor
    %largest = aten.clamp_min %max, %f0 : (!opal.tensor, f64) -> !opal.tensor
    %inf = arith.constant 0x7FF0000000000000 : f64
    %is0 = arith.cmpf oeq, %p, %f0 : f64
    %isinf = arith.cmpf oeq, %p, %inf : f64
    %is0_t = opal.promote %is0 : i1 -> !opal.tensor
    %isinf_t = opal.promote %isinf : i1 -> !opal.tensor
    // The matrix-product form, where PyTorch takes it.
    %two = arith.constant 2.0 : f64
    %minus_two = arith.constant -2.0 : f64
    %is2 = arith.cmpf oeq, %p, %two : f64
    %rows1 = opal.dim_size %x1, -2 : !opal.tensor -> i64
    %rows2 = opal.dim_size %x2, -2 : !opal.tensor -> i64
    %many1 = arith.cmpi sgt, %rows1, %c25 : i64
    %many2 = arith.cmpi sgt, %rows2, %c25 : i64
    %many = arith.ori %many1, %many2 : i1
    %mode0 = arith.cmpi eq, %mode, %c0 : i64
    %mode1 = arith.cmpi eq, %mode, %c1 : i64
    %if_needed = arith.andi %mode0, %many : i1
    %mm_mode = arith.ori %mode1, %if_needed : i1
    %use_mm = arith.andi %is2, %mm_mode : i1
    %use_mm_t = opal.promote %use_mm : i1 -> !opal.tensor
    %sq1 = aten.pow.Tensor_Scalar %x1, %two : (!opal.tensor, f64) -> !opal.tensor
    %sq2 = aten.pow.Tensor_Scalar %x2, %two : (!opal.tensor, f64) -> !opal.tensor
    %n1 = aten.sum.dim_IntList %sq1, %last, %true, %none : (!opal.tensor, !opal.list<i64>, i1, !opal.none) -> !opal.tensor
    %n2 = aten.sum.dim_IntList %sq2, %last, %true, %none : (!opal.tensor, !opal.list<i64>, i1, !opal.none) -> !opal.tensor
    %x1m2 = aten.mul.Scalar %x1, %minus_two : (!opal.tensor, f64) -> !opal.tensor
    %x2t = aten.transpose.int %x2, %cm1, %cm2 : (!opal.tensor, i64, i64) -> !opal.tensor
    %n2t = aten.transpose.int %n2, %cm1, %cm2 : (!opal.tensor, i64, i64) -> !opal.tensor
    %cross = aten.matmul %x1m2, %x2t : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %plus1 = aten.add.Tensor %cross, %n1, %c1 : (!opal.tensor, !opal.tensor, i64) -> !opal.tensor
    %plus2 = aten.add.Tensor %plus1, %n2t, %c1 : (!opal.tensor, !opal.tensor, i64) -> !opal.tensor
    %clamped = aten.clamp_min %plus2, %zero_f : (!opal.tensor, f64) -> !opal.tensor
    %euclid = aten.sqrt %clamped : (!opal.tensor) -> !opal.tensor
    %pick_mm = aten.where.self %use_mm_t, %euclid, %general : (!opal.tensor, !opal.tensor, !opal.tensor) -> !opal.tensor
    %pick_inf = aten.where.self %isinf_t, %largest, %pick_mm : (!opal.tensor, !opal.tensor, !opal.tensor) -> !opal.tensor
    %r = aten.where.self %is0_t, %count, %pick_inf : (!opal.tensor, !opal.tensor, !opal.tensor) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  // Distances between the rows of self [N, M], i < j in row-major order:
  // N (N - 1) / 2 of them, each the p-norm of cdist. Pair k's rows are
  // PyTorch's closed form: i = floor(n2 - sqrt(n2^2 - 1 - 2k)) with n2 = N -
  // 0.5, j = k - N i + i (i + 1) / 2 + i + 1. (A tensor of more dims is read
  // as PyTorch's kernel reads it: its first N x M elements.)
  opal.def "_pdist_forward(Tensor self, float p=2.) -> Tensor"
  opal.decomposition "_pdist_forward" {
  ^bb0(%self: !opal.tensor, %p: f64):
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %c2 = arith.constant 2 : i64
    %c4 = arith.constant 4 : i64
    %c6 = arith.constant 6 : i64
    %c7 = arith.constant 7 : i64
    %cm1 = arith.constant -1 : i64
    %false = arith.constant false
    %none = opal.none
    %shape = opal.shape_of %self : !opal.tensor -> !opal.list<i64>
    %rank = opal.list_len %shape : !opal.list<i64> -> i64
    %scalar = arith.cmpi ne, %rank, %c0 : i64
    opal.check %scalar, "Dimension specified as 1 but tensor has no dimensions"
    // PyTorch 1.13 reads a tensor of more dims as its first N x M elements
    // (a contiguous read, not a view): opal refuses it.
    %at_most_2 = arith.cmpi sle, %rank, %c2 : i64
    opal.check %at_most_2, "_pdist_forward: opal takes a 2-d input, got {0} dims (PyTorch reads the first N x M elements of a tensor of more)" (%rank : i64)
    %one_d = arith.cmpi eq, %rank, %c1 : i64
    %code1 = opal.dtype_of %self, %none : !opal.tensor, !opal.none -> i64
    %is_f32 = arith.cmpi eq, %code1, %c6 : i64
    %is_f64 = arith.cmpi eq, %code1, %c7 : i64
    %supported = arith.ori %is_f32, %is_f64 : i1
    %n = opal.dim_size %self, 0 : !opal.tensor -> i64
    %m = opal.static_if %one_d -> i64 {
      // A vector of more than one element: PyTorch's index error.
      %alone = arith.cmpi sle, %n, %c1 : i64
      opal.check %alone, "Dimension out of range (expected to be in range of [-1, 0], but got 1)"
      opal.yield %c0 : i64
    } else {
      %cols = opal.dim_size %self, 1 : !opal.tensor -> i64
      opal.yield %cols : i64
    }
    %nm1 = arith.subi %n, %c1 : i64
    %nn = arith.muli %n, %nm1 : i64
    %pairs = arith.divsi %nn, %c2 : i64
    %cpu = opal.device "cpu"
    %out = opal.static_if %supported -> !opal.tensor {
      %rows = opal.static_if %one_d -> !opal.tensor {
        // (A vector of at most one element has no pairs: a 0 x 0 matrix.)
        %l2 = opal.list %c0, %c0 : i64, i64 -> !opal.list<i64>
        %e = prims.full %l2, %c0, %code1, %cpu, %false : (!opal.list<i64>, i64, i64, !opal.device, i1) -> !opal.tensor
        opal.yield %e : !opal.tensor
      } else {
        opal.yield %self : !opal.tensor
      }
      // The pairs: k = 0 .. K - 1.
      %k = prims.iota %pairs, %c0, %c1, %c4, %cpu, %false : (i64, i64, i64, i64, !opal.device, i1) -> !opal.tensor
      %kf = opal.to_dtype %k, %c7 : !opal.tensor, i64 -> !opal.tensor
      %nf = arith.sitofp %n : i64 to f64
      %half = arith.constant 0.5 : f64
      %one_f = arith.constant 1.0 : f64
      %minus_two = arith.constant -2.0 : f64
      %n2 = arith.subf %nf, %half : f64
      %n2sq = arith.mulf %n2, %n2 : f64
      %n2sqm1 = arith.subf %n2sq, %one_f : f64
      %k2 = aten.mul.Scalar %kf, %minus_two : (!opal.tensor, f64) -> !opal.tensor
      %under = aten.add.Scalar %k2, %n2sqm1, %c1 : (!opal.tensor, f64, i64) -> !opal.tensor
      %root = aten.sqrt %under : (!opal.tensor) -> !opal.tensor
      %if = aten.rsub.Scalar %root, %n2, %c1 : (!opal.tensor, f64, i64) -> !opal.tensor
      %i = opal.to_dtype %if, %c4 : !opal.tensor, i64 -> !opal.tensor
      %ni = aten.mul.Scalar %i, %n : (!opal.tensor, i64) -> !opal.tensor
      %i1 = aten.add.Scalar %i, %c1, %c1 : (!opal.tensor, i64, i64) -> !opal.tensor
      %ii1 = aten.mul.Tensor %i, %i1 : (!opal.tensor, !opal.tensor) -> !opal.tensor
      %tri = aten.floor_divide.Scalar %ii1, %c2 : (!opal.tensor, i64) -> !opal.tensor
      %j0 = aten.sub.Tensor %k, %ni, %c1 : (!opal.tensor, !opal.tensor, i64) -> !opal.tensor
      %j1 = aten.add.Tensor %j0, %tri, %c1 : (!opal.tensor, !opal.tensor, i64) -> !opal.tensor
      %j = aten.add.Tensor %j1, %i1, %c1 : (!opal.tensor, !opal.tensor, i64) -> !opal.tensor
      %ri = aten.index_select %rows, %c0, %i : (!opal.tensor, i64, !opal.tensor) -> !opal.tensor
      %rj = aten.index_select %rows, %c0, %j : (!opal.tensor, i64, !opal.tensor) -> !opal.tensor
      %d = aten.sub.Tensor %ri, %rj, %c1 : (!opal.tensor, !opal.tensor, i64) -> !opal.tensor
      %ad = aten.abs %d : (!opal.tensor) -> !opal.tensor
      %last = opal.list %cm1 : i64 -> !opal.list<i64>
      %f0 = arith.constant 0.0 : f64
      %f1 = arith.constant 1.0 : f64
      %nz = aten.ne.Scalar %ad, %f0 : (!opal.tensor, f64) -> !opal.tensor
      %count = aten.sum.dim_IntList %nz, %last, %false, %code1 : (!opal.tensor, !opal.list<i64>, i1, i64) -> !opal.tensor
      %pw = aten.pow.Tensor_Scalar %ad, %p : (!opal.tensor, f64) -> !opal.tensor
      %sp = aten.sum.dim_IntList %pw, %last, %false, %none : (!opal.tensor, !opal.list<i64>, i1, !opal.none) -> !opal.tensor
      %inv = arith.divf %f1, %p : f64
      %general = aten.pow.Tensor_Scalar %sp, %inv : (!opal.tensor, f64) -> !opal.tensor
      // (An empty last dim's maximum is 0: the prim's -inf, clamped.)
      %dims = opal.normalize_dims %ad, %last : !opal.tensor, !opal.list<i64> -> !opal.list<i64>
      %max = prims.amax %ad, %dims, %none : (!opal.tensor, !opal.list<i64>, !opal.none) -> !opal.tensor
      %largest = aten.clamp_min %max, %f0 : (!opal.tensor, f64) -> !opal.tensor
      %inf = arith.constant 0x7FF0000000000000 : f64
      %is0 = arith.cmpf oeq, %p, %f0 : f64
      %isinf = arith.cmpf oeq, %p, %inf : f64
      %is0_t = opal.promote %is0 : i1 -> !opal.tensor
      %isinf_t = opal.promote %isinf : i1 -> !opal.tensor
      %pick_inf = aten.where.self %isinf_t, %largest, %general : (!opal.tensor, !opal.tensor, !opal.tensor) -> !opal.tensor
      %picked = aten.where.self %is0_t, %count, %pick_inf : (!opal.tensor, !opal.tensor, !opal.tensor) -> !opal.tensor
      // No columns: zeros whatever p (PyTorch fills them).
      %no_columns = arith.cmpi eq, %m, %c0 : i64
      %no_columns_t = opal.promote %no_columns : i1 -> !opal.tensor
      %zero_t = opal.promote %c0 : i64 -> !opal.tensor
      %r = aten.where.self %no_columns_t, %zero_t, %picked : (!opal.tensor, !opal.tensor, !opal.tensor) -> !opal.tensor
      opal.yield %r : !opal.tensor
    } else {
      // Other dtypes: PyTorch returns the empty or zero result before its
      // kernel refuses the dtype (sizes known per call: a data check).
      %sizes = opal.list %pairs : i64 -> !opal.list<i64>
      %zeros = prims.full %sizes, %c0, %code1, %cpu, %false : (!opal.list<i64>, i64, i64, !opal.device, i1) -> !opal.tensor
      %several = arith.cmpi sgt, %n, %c1 : i64
      %columns = arith.cmpi sgt, %m, %c0 : i64
      %work = arith.andi %several, %columns : i1
      %work_t = opal.promote %work : i1 -> !opal.tensor
      opal.data_check %work_t, "\"pdist\" not implemented for '{0:dtype}'" (%code1) : !opal.tensor
      opal.yield %zeros : !opal.tensor
    }
    opal.yield %out : !opal.tensor
  }
}
