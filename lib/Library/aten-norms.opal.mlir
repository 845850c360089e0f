// The aten library, continued: batch and group normalization. Statistics
// are computed in the input's dtype over every dim but the channels (batch
// norm) or per sample and group (group norm).
opal.library "aten" {
  // Batch normalization of input [N, C, ...] per channel: with `training`,
  // by the batch's mean and biased variance (returned as mean and 1/std,
  // [C]); otherwise by running_mean and running_var (the two extra results
  // are then empty). Training also updates running_mean and running_var in
  // place (momentum, unbiased variance): native_batch_norm's native kernel
  // does that after this body ran (opal's checks are stricter than PyTorch
  // 1.13's, which reads past a weight of the wrong size).
  opal.def "native_batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, bool training, float momentum, float eps) -> (Tensor, Tensor, Tensor)"
  opal.decomposition "native_batch_norm" {
  ^bb0(%input: !opal.tensor, %weight: !opal.tensor, %bias: !opal.tensor, %running_mean: !opal.tensor, %running_var: !opal.tensor, %training: i1, %momentum: f64, %eps: f64):
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %true = arith.constant true
    %none = opal.none
    // In training, both running statistics or neither (PyTorch 2).
    %no_rm = opal.is_none %running_mean : !opal.tensor -> i1
    %no_rv = opal.is_none %running_var : !opal.tensor -> i1
    %same_none = arith.cmpi eq, %no_rm, %no_rv : i1
    %not_training = arith.xori %training, %true : i1
    %stats_ok = arith.ori %not_training, %same_none : i1
    opal.check %stats_ok, "running_mean and running_var must either both be None or neither be None"
    // A channel dim (PyTorch's message for a 1-d input).
    %channel_dim = opal.normalize_dims %input, %c1 : !opal.tensor, i64 -> !opal.list<i64>
    %channels = opal.dim_size %input, 1 : !opal.tensor -> i64
    %code = opal.dtype_of %input, %none : !opal.tensor, !opal.none -> i64
    %float = opal.is_floating %code : i64 -> i1
    opal.check %float, "\"batch_norm\" not implemented for '{0:dtype}'" (%code : i64)
    // Each parameter: [C], of the input's dtype.
    %no_w = opal.is_none %weight : !opal.tensor -> i1
    opal.static_if %no_w {
      opal.yield
    } else {
      %one_d = opal.has_rank %weight, 1 : !opal.tensor -> i1
      %shape = opal.shape_of %weight : !opal.tensor -> !opal.list<i64>
      opal.check %one_d, "weight should contain {0} elements, as a 1-D tensor, not a tensor of shape [{1}]" (%channels, %shape : i64, !opal.list<i64>)
      %n = opal.dim_size %weight, 0 : !opal.tensor -> i64
      %fits = arith.cmpi eq, %n, %channels : i64
      opal.check %fits, "weight should contain {0} elements not {1}" (%channels, %n : i64, i64)
      %pc = opal.dtype_of %weight, %none : !opal.tensor, !opal.none -> i64
      %same = arith.cmpi eq, %pc, %code : i64
      opal.check %same, "mixed dtype (CPU): expect parameter to have scalar type of {0:dtype}" (%code : i64)
      opal.yield
    }
    %no_b = opal.is_none %bias : !opal.tensor -> i1
    opal.static_if %no_b {
      opal.yield
    } else {
      %one_d = opal.has_rank %bias, 1 : !opal.tensor -> i1
      %shape = opal.shape_of %bias : !opal.tensor -> !opal.list<i64>
      opal.check %one_d, "bias should contain {0} elements, as a 1-D tensor, not a tensor of shape [{1}]" (%channels, %shape : i64, !opal.list<i64>)
      %n = opal.dim_size %bias, 0 : !opal.tensor -> i64
      %fits = arith.cmpi eq, %n, %channels : i64
      opal.check %fits, "bias should contain {0} elements not {1}" (%channels, %n : i64, i64)
      %pc = opal.dtype_of %bias, %none : !opal.tensor, !opal.none -> i64
      %same = arith.cmpi eq, %pc, %code : i64
      opal.check %same, "mixed dtype (CPU): expect parameter to have scalar type of {0:dtype}" (%code : i64)
      opal.yield
    }
    %no_mean = opal.is_none %running_mean : !opal.tensor -> i1
    opal.static_if %no_mean {
      opal.yield
    } else {
      %one_d = opal.has_rank %running_mean, 1 : !opal.tensor -> i1
      %shape = opal.shape_of %running_mean : !opal.tensor -> !opal.list<i64>
      opal.check %one_d, "running_mean should contain {0} elements, as a 1-D tensor, not a tensor of shape [{1}]" (%channels, %shape : i64, !opal.list<i64>)
      %n = opal.dim_size %running_mean, 0 : !opal.tensor -> i64
      %fits = arith.cmpi eq, %n, %channels : i64
      opal.check %fits, "running_mean should contain {0} elements not {1}" (%channels, %n : i64, i64)
      %pc = opal.dtype_of %running_mean, %none : !opal.tensor, !opal.none -> i64
      %same = arith.cmpi eq, %pc, %code : i64
      opal.check %same, "mixed dtype (CPU): expect parameter to have scalar type of {0:dtype}" (%code : i64)
      opal.yield
    }
    %no_var = opal.is_none %running_var : !opal.tensor -> i1
    opal.static_if %no_var {
      opal.yield
    } else {
      %one_d = opal.has_rank %running_var, 1 : !opal.tensor -> i1
      %shape = opal.shape_of %running_var : !opal.tensor -> !opal.list<i64>
      opal.check %one_d, "running_var should contain {0} elements, as a 1-D tensor, not a tensor of shape [{1}]" (%channels, %shape : i64, !opal.list<i64>)
      %n = opal.dim_size %running_var, 0 : !opal.tensor -> i64
      %fits = arith.cmpi eq, %n, %channels : i64
      opal.check %fits, "running_var should contain {0} elements not {1}" (%channels, %n : i64, i64)
      %pc = opal.dtype_of %running_var, %none : !opal.tensor, !opal.none -> i64
      %same = arith.cmpi eq, %pc, %code : i64
      opal.check %same, "mixed dtype (CPU): expect parameter to have scalar type of {0:dtype}" (%code : i64)
      opal.yield
    }
    %has_mean = arith.xori %no_mean, %true : i1
    %has_var = arith.xori %no_var, %true : i1
    // The batch's statistics, or the running ones.
    %dims = opal.dims_except %input, 1 : !opal.tensor -> !opal.list<i64>
    %mean, %invstd, %save_mean, %save_invstd = opal.static_if %training -> !opal.tensor, !opal.tensor, !opal.tensor, !opal.tensor {
      %m = aten.mean.dim %input, %dims, %true, %none : (!opal.tensor, !opal.list<i64>, i1, !opal.none) -> !opal.tensor
      %v = aten.var.correction %input, %dims, %c0, %true : (!opal.tensor, !opal.list<i64>, i64, i1) -> !opal.tensor
      %ve = aten.add.Scalar %v, %eps, %c1 : (!opal.tensor, f64, i64) -> !opal.tensor
      %is = aten.rsqrt %ve : (!opal.tensor) -> !opal.tensor
      %sm = prims.squeeze %m, %dims : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
      %si = prims.squeeze %is, %dims : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
      opal.yield %m, %is, %sm, %si : !opal.tensor, !opal.tensor, !opal.tensor, !opal.tensor
    } else {
      opal.check %has_mean, "running_mean must be defined in evaluation mode"
      opal.check %has_var, "running_var must be defined in evaluation mode"
      %m = opal.keep_dims %running_mean, %dims, %true : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
      %v = opal.keep_dims %running_var, %dims, %true : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
      %ve = aten.add.Scalar %v, %eps, %c1 : (!opal.tensor, f64, i64) -> !opal.tensor
      %is = aten.rsqrt %ve : (!opal.tensor) -> !opal.tensor
      %empty = opal.list %c0 : i64 -> !opal.list<i64>
      %sm = aten.new_zeros %input, %empty, %none, %none, %none, %none : (!opal.tensor, !opal.list<i64>, !opal.none, !opal.none, !opal.none, !opal.none) -> !opal.tensor
      opal.yield %m, %is, %sm, %sm : !opal.tensor, !opal.tensor, !opal.tensor, !opal.tensor
    }
    // out = input * alpha + beta with alpha = invstd * weight and beta =
    // bias - mean * alpha computed per channel first, as PyTorch's CPU
    // kernel rounds them: one multiply and one add per element.
    %alpha = opal.static_if %no_w -> !opal.tensor {
      opal.yield %invstd : !opal.tensor
    } else {
      %w = opal.keep_dims %weight, %dims, %true : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
      %r = aten.mul.Tensor %invstd, %w : (!opal.tensor, !opal.tensor) -> !opal.tensor
      opal.yield %r : !opal.tensor
    }
    %shift = aten.mul.Tensor %mean, %alpha : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %beta = opal.static_if %no_b -> !opal.tensor {
      %r = aten.neg %shift : (!opal.tensor) -> !opal.tensor
      opal.yield %r : !opal.tensor
    } else {
      %b = opal.keep_dims %bias, %dims, %true : !opal.tensor, !opal.list<i64>, i1 -> !opal.tensor
      %r = aten.sub.Tensor %b, %shift, %c1 : (!opal.tensor, !opal.tensor, i64) -> !opal.tensor
      opal.yield %r : !opal.tensor
    }
    %scaled = aten.mul.Tensor %input, %alpha : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %out = aten.add.Tensor %scaled, %beta, %c1 : (!opal.tensor, !opal.tensor, i64) -> !opal.tensor
    opal.yield %out, %save_mean, %save_invstd : !opal.tensor, !opal.tensor, !opal.tensor
  }
  opal.def "batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, bool training, float momentum, float eps, bool cudnn_enabled) -> Tensor"
  opal.decomposition "batch_norm" {
  ^bb0(%input: !opal.tensor, %weight: !opal.tensor, %bias: !opal.tensor, %running_mean: !opal.tensor, %running_var: !opal.tensor, %training: i1, %momentum: f64, %eps: f64, %cudnn_enabled: i1):
    %r, %mean, %invstd = aten.native_batch_norm %input, %weight, %bias, %running_mean, %running_var, %training, %momentum, %eps : (!opal.tensor, !opal.tensor, !opal.tensor, !opal.tensor, !opal.tensor, i1, f64, f64) -> (!opal.tensor, !opal.tensor, !opal.tensor)
    opal.yield %r : !opal.tensor
  }
  // Group normalization of input [N, C, *] (HxW elements per channel):
  // per sample, each of `group` groups of C / group channels normalized by
  // its mean and biased variance (returned as mean and 1/std, [N, group]),
  // then weight and bias per channel. The body reshapes by N, C and HxW, so
  // group_norm compiles per input shape.
  opal.def "native_group_norm(Tensor input, Tensor? weight, Tensor? bias, SymInt N, SymInt C, SymInt HxW, int group, float eps) -> (Tensor, Tensor, Tensor)"
  opal.decomposition "native_group_norm" {
  ^bb0(%input: !opal.tensor, %weight: !opal.tensor, %bias: !opal.tensor, %n: i64, %c: i64, %hxw: i64, %group: i64, %eps: f64):
    %c0 = arith.constant 0 : i64
    %c1 = arith.constant 1 : i64
    %c2 = arith.constant 2 : i64
    %true = arith.constant true
    %none = opal.none
    %is = opal.shape_of %input : !opal.tensor -> !opal.list<i64>
    %has_c = arith.cmpi sgt, %c, %c0 : i64
    opal.check %has_c, "Expected number of channels to be greater than 0, got {0}" (%c : i64)
    %has_hxw = arith.cmpi sgt, %hxw, %c0 : i64
    opal.check %has_hxw, "Expected HxW to be greater than 0, got {0}" (%hxw : i64)
    %some = arith.cmpi sgt, %group, %c0 : i64
    opal.check %some, "Expected num groups to be greater than 0, got {0}" (%group : i64)
    %rest = arith.remsi %c, %group : i64
    %divisible = arith.cmpi eq, %rest, %c0 : i64
    opal.check %divisible, "Expected number of channels in input to be divisible by num_groups, but got input of shape [{0}] and num_groups={1}" (%is, %group : !opal.list<i64>, i64)
    %no_w = opal.is_none %weight : !opal.tensor -> i1
    %ws = opal.static_if %no_w -> !opal.list<i64> {
      %empty = opal.list %c0 : i64 -> !opal.list<i64>
      opal.yield %empty : !opal.list<i64>
    } else {
      %shape = opal.shape_of %weight : !opal.tensor -> !opal.list<i64>
      opal.yield %shape : !opal.list<i64>
    }
    %code = opal.dtype_of %input, %none : !opal.tensor, !opal.none -> i64
    opal.static_if %no_w {
      opal.yield
    } else {
      %one_d = opal.has_rank %weight, 1 : !opal.tensor -> i1
      opal.check %one_d, "Expected weight to be a vector of size equal to the number of channels in input, but got weight of shape [{0}] and input of shape [{1}]" (%ws, %is : !opal.list<i64>, !opal.list<i64>)
      %size = opal.dim_size %weight, 0 : !opal.tensor -> i64
      %fits = arith.cmpi eq, %size, %c : i64
      opal.check %fits, "Expected weight to be a vector of size equal to the number of channels in input, but got weight of shape [{0}] and input of shape [{1}]" (%ws, %is : !opal.list<i64>, !opal.list<i64>)
      opal.yield
    }
    // (PyTorch 1.13's message names the weight's shape here too.)
    %no_b = opal.is_none %bias : !opal.tensor -> i1
    opal.static_if %no_b {
      opal.yield
    } else {
      %one_d = opal.has_rank %bias, 1 : !opal.tensor -> i1
      opal.check %one_d, "Expected bias to be a vector of size equal to the number of channels in input, but got bias of shape [{0}] and input of shape [{1}]" (%ws, %is : !opal.list<i64>, !opal.list<i64>)
      %size = opal.dim_size %bias, 0 : !opal.tensor -> i64
      %fits = arith.cmpi eq, %size, %c : i64
      opal.check %fits, "Expected bias to be a vector of size equal to the number of channels in input, but got bias of shape [{0}] and input of shape [{1}]" (%ws, %is : !opal.list<i64>, !opal.list<i64>)
      opal.yield
    }
    %float = opal.is_floating %code : i64 -> i1
    opal.check %float, "\"GroupNormKernelImpl\" not implemented for '{0:dtype}'" (%code : i64)
    opal.static_if %no_w {
      opal.yield
    } else {
      %wc = opal.dtype_of %weight, %none : !opal.tensor, !opal.none -> i64
      %same = arith.cmpi eq, %wc, %code : i64
      opal.check %same, "expected scalar type {0:dtype} but found {1:dtype}" (%code, %wc : i64, i64)
      opal.yield
    }
    opal.static_if %no_b {
      opal.yield
    } else {
      %bc = opal.dtype_of %bias, %none : !opal.tensor, !opal.none -> i64
      %same = arith.cmpi eq, %bc, %code : i64
      opal.check %same, "expected scalar type {0:dtype} but found {1:dtype}" (%code, %bc : i64, i64)
      opal.yield
    }
    // [N, group, C / group, HxW]: statistics over the last two dims, and
    // the weight and bias as [group, C / group, 1] in the same layout, so
    // that one group of one sample is normalized, scaled and shifted in
    // one pass (opal-fuse-rows).
    %per_group = arith.divsi %c, %group : i64
    %grouped = opal.list %n, %group, %per_group, %hxw : i64, i64, i64, i64 -> !opal.list<i64>
    %x = aten.reshape %input, %grouped : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
    %c3 = arith.constant 3 : i64
    %last = opal.list %c2, %c3 : i64, i64 -> !opal.list<i64>
    // An empty group's mean is 0 (its variance stays 0/0, NaN), as in PyTorch.
    %sum = aten.sum.dim_IntList %x, %last, %true, %none : (!opal.tensor, !opal.list<i64>, i1, !opal.none) -> !opal.tensor
    %count = opal.count %x, %last : !opal.tensor, !opal.list<i64> -> i64
    %count1 = arith.maxsi %count, %c1 : i64
    %mean = aten.div.Scalar %sum, %count1 : (!opal.tensor, i64) -> !opal.tensor
    %var = aten.var.correction %x, %last, %c0, %true : (!opal.tensor, !opal.list<i64>, i64, i1) -> !opal.tensor
    %ve = aten.add.Scalar %var, %eps, %c1 : (!opal.tensor, f64, i64) -> !opal.tensor
    %rstd = aten.rsqrt %ve : (!opal.tensor) -> !opal.tensor
    %centered = aten.sub.Tensor %x, %mean, %c1 : (!opal.tensor, !opal.tensor, i64) -> !opal.tensor
    %normed = aten.mul.Tensor %centered, %rstd : (!opal.tensor, !opal.tensor) -> !opal.tensor
    %per_channel = opal.list %group, %per_group, %c1 : i64, i64, i64 -> !opal.list<i64>
    %scaled = opal.static_if %no_w -> !opal.tensor {
      opal.yield %normed : !opal.tensor
    } else {
      %w = aten.reshape %weight, %per_channel : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
      %r = aten.mul.Tensor %normed, %w : (!opal.tensor, !opal.tensor) -> !opal.tensor
      opal.yield %r : !opal.tensor
    }
    %shifted = opal.static_if %no_b -> !opal.tensor {
      opal.yield %scaled : !opal.tensor
    } else {
      %b = aten.reshape %bias, %per_channel : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
      %r = aten.add.Tensor %scaled, %b, %c1 : (!opal.tensor, !opal.tensor, i64) -> !opal.tensor
      opal.yield %r : !opal.tensor
    }
    %out = aten.reshape %shifted, %is : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
    %mean2 = prims.squeeze %mean, %last : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
    %rstd2 = prims.squeeze %rstd, %last : (!opal.tensor, !opal.list<i64>) -> !opal.tensor
    opal.yield %out, %mean2, %rstd2 : !opal.tensor, !opal.tensor, !opal.tensor
  }
  opal.def "group_norm(Tensor input, int num_groups, Tensor? weight=None, Tensor? bias=None, float eps=1.0000000000000001e-05, bool cudnn_enabled=True) -> Tensor"
  opal.decomposition "group_norm" {
  ^bb0(%input: !opal.tensor, %num_groups: i64, %weight: !opal.tensor, %bias: !opal.tensor, %eps: f64, %cudnn_enabled: i1):
    %c1 = arith.constant 1 : i64
    // A channel dim (PyTorch's message for a 1-d input).
    %channel_dim = opal.normalize_dims %input, %c1 : !opal.tensor, i64 -> !opal.list<i64>
    %n = opal.dim_size %input, 0 : !opal.tensor -> i64
    %c = opal.dim_size %input, 1 : !opal.tensor -> i64
    // HxW: the elements per channel of one sample.
    %spatial = opal.dims_except %input, 1 {start = 2} : !opal.tensor -> !opal.list<i64>
    %hxw = opal.count %input, %spatial : !opal.tensor, !opal.list<i64> -> i64
    %r, %mean, %rstd = aten.native_group_norm %input, %weight, %bias, %n, %c, %hxw, %num_groups, %eps : (!opal.tensor, !opal.tensor, !opal.tensor, i64, i64, i64, i64, f64) -> (!opal.tensor, !opal.tensor, !opal.tensor)
    opal.yield %r : !opal.tensor
  }
}
