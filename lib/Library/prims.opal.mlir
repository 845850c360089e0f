// The primitive ops: the small set every composite decomposes into and that
// opal-lower-to-linalg lowers. Names and schemas follow PyTorch's prims.
// Elementwise prims take operands of one shape and one dtype (broadcasting
// and type promotion are the composites' job, through broadcast_in_dim and
// convert_element_type).
opal.library "prims" {
  // Elementwise, unary.
  opal.def "neg(Tensor self) -> Tensor"
  opal.def "abs(Tensor self) -> Tensor"
  opal.def "exp(Tensor self) -> Tensor"
  opal.def "log(Tensor self) -> Tensor"
  opal.def "log1p(Tensor self) -> Tensor"
  opal.def "sqrt(Tensor self) -> Tensor"
  opal.def "rsqrt(Tensor self) -> Tensor"
  opal.def "sin(Tensor self) -> Tensor"
  opal.def "cos(Tensor self) -> Tensor"
  opal.def "tanh(Tensor self) -> Tensor"
  opal.def "erf(Tensor self) -> Tensor"
  opal.def "expm1(Tensor self) -> Tensor"
  opal.def "log2(Tensor self) -> Tensor"
  opal.def "log10(Tensor self) -> Tensor"
  opal.def "tan(Tensor self) -> Tensor"
  opal.def "asin(Tensor self) -> Tensor"
  opal.def "acos(Tensor self) -> Tensor"
  opal.def "atan(Tensor self) -> Tensor"
  opal.def "sinh(Tensor self) -> Tensor"
  opal.def "cosh(Tensor self) -> Tensor"
  opal.def "asinh(Tensor self) -> Tensor"
  opal.def "acosh(Tensor self) -> Tensor"
  opal.def "atanh(Tensor self) -> Tensor"
  // Rounding: integers are kept as they are; round is to nearest even.
  opal.def "ceil(Tensor self) -> Tensor"
  opal.def "floor(Tensor self) -> Tensor"
  opal.def "round(Tensor self) -> Tensor"
  opal.def "trunc(Tensor self) -> Tensor"
  // -1, 0 or 1 (0 for NaN; bool stays itself).
  opal.def "sign(Tensor self) -> Tensor"
  // Elementwise, binary.
  opal.def "add(Tensor self, Tensor other) -> Tensor"
  opal.def "sub(Tensor self, Tensor other) -> Tensor"
  opal.def "mul(Tensor self, Tensor other) -> Tensor"
  opal.def "div(Tensor self, Tensor other) -> Tensor"
  opal.def "maximum(Tensor self, Tensor other) -> Tensor"
  opal.def "minimum(Tensor self, Tensor other) -> Tensor"
  opal.def "pow(Tensor self, Tensor other) -> Tensor"
  opal.def "atan2(Tensor self, Tensor other) -> Tensor"
  opal.def "copysign(Tensor self, Tensor other) -> Tensor"
  // Integer div, fmod and remainder by zero raise ZeroDivisionError
  // (opal-derive-data-checks). div truncates integers; fmod has the sign of
  // self, remainder that of other.
  opal.def "fmod(Tensor self, Tensor other) -> Tensor"
  opal.def "remainder(Tensor self, Tensor other) -> Tensor"
  // Bitwise: integer and bool elements only.
  opal.def "bitwise_and(Tensor self, Tensor other) -> Tensor"
  opal.def "bitwise_or(Tensor self, Tensor other) -> Tensor"
  opal.def "bitwise_xor(Tensor self, Tensor other) -> Tensor"
  opal.def "bitwise_not(Tensor self) -> Tensor"
  // Comparisons: the result is a bool (i1) tensor.
  opal.def "eq(Tensor self, Tensor other) -> Tensor"
  opal.def "ne(Tensor self, Tensor other) -> Tensor"
  opal.def "lt(Tensor self, Tensor other) -> Tensor"
  opal.def "le(Tensor self, Tensor other) -> Tensor"
  opal.def "gt(Tensor self, Tensor other) -> Tensor"
  opal.def "ge(Tensor self, Tensor other) -> Tensor"
  // Selection and conversion.
  opal.def "where(Tensor pred, Tensor a, Tensor b) -> Tensor"
  opal.def "convert_element_type(Tensor a, ScalarType dtype) -> Tensor"
  // Shapes: dims, shape and permutation operands must be constant lists.
  opal.def "broadcast_in_dim(Tensor(a) a, SymInt[] shape, int[] broadcast_dimensions) -> Tensor(a)"
  opal.def "transpose(Tensor(a) a, int[] permutation) -> Tensor(a)"
  opal.def "squeeze(Tensor(a) a, int[] dimensions) -> Tensor(a)"
  opal.def "reshape(Tensor a, SymInt[] shape) -> Tensor"
  // Moving elements (opal's forms; each reads only inside `a`).
  // slice_in_dim: every stride-th element of [start_index, limit_index)
  // along axis; the indices may be runtime values and wrap and clamp as
  // aten.slice's do (negative counts from the end, then into [0, size]).
  opal.def "slice_in_dim(Tensor(a) a, SymInt start_index, SymInt limit_index, int stride=1, int axis=0) -> Tensor(a)"
  // slice_scatter: a with the slice slice_in_dim would take replaced by
  // src's elements (src is read only inside it).
  opal.def "slice_scatter(Tensor a, Tensor src, SymInt start_index, SymInt limit_index, int stride=1, int axis=0) -> Tensor"
  // select_in_dim: the elements at `index` along axis, which is removed; the
  // index may be a runtime value (negative counts from the end; outside
  // the dim reads padding_value 0).
  opal.def "select_in_dim(Tensor(a) a, SymInt index, int axis) -> Tensor(a)"
  // pad: elements of padding_value before and after dims from the last, as
  // aten.constant_pad_nd's `pad` says ([before, after] of the last dim, then
  // of the one before, ...; at most two per dim); negative ones crop.
  opal.def "pad(Tensor a, Scalar padding_value, int[] pad) -> Tensor"
  // pad_edges: pad as `pad` says with the input's own elements: mirrored
  // about each end without repeating it (mode "reflect"), or the end
  // repeated ("replicate"); negative pads crop.
  opal.def "pad_edges(Tensor a, int[] pad, str mode) -> Tensor"
  // rev: the order of the elements along each of `dims` reversed.
  opal.def "rev(Tensor a, int[] dims) -> Tensor"
  // tile: a repeated repeats[d] times along each dim d; more counts than
  // dims read `a` as if it had leading dims of size 1 (a negative count
  // counts as 0).
  opal.def "tile(Tensor a, int[] repeats) -> Tensor"
  // Creation.
  opal.def "full(SymInt[] shape, Scalar fill_value, *, ScalarType dtype, Device device, bool requires_grad) -> Tensor"
  opal.def "iota(SymInt length, *, SymInt start, SymInt step, ScalarType dtype, Device device, bool requires_grad) -> Tensor"
  // Random numbers (Runtime/Philox.h): the element at row-major position i
  // is drawn from Philox4x32-10 at (seed, offset, i): uniform in [0, 1), or
  // standard normal (Box-Muller). `seed` and `offset` come from an
  // opal.random_stream (opal's additions to the prims set).
  opal.def "philox_uniform(SymInt[] shape, int seed, int offset, *, ScalarType dtype, Device device) -> Tensor"
  opal.def "philox_normal(SymInt[] shape, int seed, int offset, *, ScalarType dtype, Device device) -> Tensor"
  // Reductions over `dims` (all dimensions if None); the reduced dimensions
  // are removed.
  opal.def "sum(Tensor inp, int[]? dims, *, ScalarType? output_dtype=None) -> Tensor"
  opal.def "prod(Tensor inp, int[]? dims, *, ScalarType? output_dtype=None) -> Tensor"
  opal.def "amax(Tensor inp, int[]? dims, *, ScalarType? output_dtype=None) -> Tensor"
  opal.def "amin(Tensor inp, int[]? dims, *, ScalarType? output_dtype=None) -> Tensor"
  // The index (int64) of the first maximum or minimum along `dim`, which is
  // removed, or (dim None) into the flattened tensor, a 0-d result; NaN
  // counts as both (opal's additions to the prims set).
  opal.def "argmax(Tensor inp, int? dim) -> Tensor"
  opal.def "argmin(Tensor inp, int? dim) -> Tensor"
  // Gathers (opal's additions). An index out of [0, size) raises "index {i}
  // is out of bounds for dimension {d} with size {n}" after the call
  // (opal-derive-data-checks); the kernel reads no element outside `a`.
  // gather: out[i...] = a[i... with i_dim = index[i...]], index's shape,
  // which must fit in a's except along dim.
  opal.def "gather(Tensor a, int dim, Tensor index) -> Tensor"
  // take: out = a with dim replaced by index's dims (numpy's take):
  // out[p..., j..., q...] = a[p..., index[j...], q...].
  opal.def "take(Tensor a, int dim, Tensor index) -> Tensor"
  // scatter: a copy of `a` where, for each element of index (in order),
  // a[i... with i_dim = index[i...]] takes src[i...] (reduce "none": the
  // last write wins) or is combined with it ("sum", "prod", "amax", "amin",
  // "mean"), starting from a's element (include_self) or from the first
  // value written there. index, src and a have one rank; index fits in src,
  // and in a except along dim. An index out of range raises after the call
  // and writes nothing.
  opal.def "scatter(Tensor a, int dim, Tensor index, Tensor src, str reduce, bool include_self) -> Tensor"
  // cumsum: each element the sum of those before it along dim and itself,
  // summed in order (opal's addition).
  opal.def "cumsum(Tensor a, int dim) -> Tensor"
  // Convolution of an [N, groups*Cg, I...] input by a [groups*Fg, Cg, K...]
  // weight over 1 to 3 spatial dims (zero padding on both sides of each):
  // N x groups*Fg x ((I + 2p - d (K - 1) - 1) / s + 1) per spatial dim.
  opal.def "conv(Tensor input, Tensor weight, int[] stride, int[] padding, int[] dilation, int groups) -> Tensor"
  // The transposed convolution (the gradient of conv by its input) of an
  // [N, groups*Cg, I...] input by a [groups*Cg, Fg, K...] weight:
  // N x groups*Fg x ((I - 1) s - 2p + d (K - 1) + output_padding + 1).
  opal.def "conv_transpose(Tensor input, Tensor weight, int[] stride, int[] padding, int[] dilation, int[] output_padding, int groups) -> Tensor"
  // The inverse of unfolding (im2col): an [N, C*kh*kw, L] input of sliding
  // blocks summed into an [N, C, H, W] output of output_size [H, W]; block
  // (by, bx) of the bh x bw blocks (L = bh bw, bh = (H + 2p - d (k - 1) - 1)
  // / s + 1) puts its element (c, ki, kj) at (by s - p + ki d, bx s - p + kj
  // d), added in the order of (ki, kj). Nothing is read outside the input
  // when L does not match.
  opal.def "col2im(Tensor a, SymInt[] output_size, int[] kernel_size, int[] dilation, int[] padding, int[] stride) -> Tensor"
  // Max pooling of an NCHW input (2 spatial dims): the maximum of each window
  // (NaN wins; padding is -inf) and its index into the input's H x W plane.
  // Output sizes as PyTorch's, with ceil_mode's last window.
  opal.def "max_pool(Tensor input, int[] kernel_size, int[] stride, int[] padding, int[] dilation, bool ceil_mode) -> (Tensor values, Tensor indices)"
  // Average pooling of an NCHW input: each window's sum divided by its
  // size (clipped to the padded input, or to the input without
  // count_include_pad) or by divisor_override; integer inputs divide with
  // truncation. Output sizes as PyTorch's, with ceil_mode's last window.
  opal.def "avg_pool(Tensor input, int[] kernel_size, int[] stride, int[] padding, bool ceil_mode, bool count_include_pad, int? divisor_override) -> Tensor"
  // Adaptive average pooling of an NCHW input to output_size: cell i of n
  // over a dim of size L averages [floor(i L / n), ceil((i + 1) L / n)).
  opal.def "adaptive_avg_pool(Tensor input, int[] output_size) -> Tensor"
  // The gradient of avg_pool for `input` from the gradient of its output:
  // each element sums grad / divisor over the windows that cover it.
  opal.def "avg_pool_backward(Tensor grad, Tensor input, int[] kernel_size, int[] stride, int[] padding, bool ceil_mode, bool count_include_pad, int? divisor_override) -> Tensor"
  // The gradient of adaptive_avg_pool: each element sums grad / cell size
  // over the output cells that cover it.
  opal.def "adaptive_avg_pool_backward(Tensor grad, Tensor input) -> Tensor"
  // Nearest-neighbour upsampling of an NCHW input to output_size, or to
  // floor(size * factor) per spatial dim; each output pixel reads PyTorch's
  // nearest source pixel (scale_h and scale_w, when positive, set the
  // ratio as 1 / scale, as PyTorch's scales do).
  opal.def "upsample_nearest(Tensor input, SymInt[]? output_size, float[]? scale_factors, float? scale_h, float? scale_w) -> Tensor"
  // Bilinear upsampling of an NCHW input (sizes as upsample_nearest's): each
  // output pixel blends the 2 x 2 source pixels around PyTorch's source
  // coordinate (align_corners: corner pixels aligned; else half-pixel
  // centres, scale_h and scale_w setting the ratio when positive).
  opal.def "upsample_linear(Tensor input, SymInt[]? output_size, float[]? scale_factors, bool align_corners, float? scale_h, float? scale_w) -> Tensor"
  // Sampling of an NCHW input at the points of an [N, Ho, Wo, 2] grid of
  // (x, y), -1 and 1 the input's edges (align_corners: its corner pixels'
  // centres): interpolation_mode 0 bilinear, 1 nearest, 2 bicubic;
  // padding_mode 0 zeros, 1 border (clipped), 2 reflection. N, C, Ho, Wo.
  opal.def "grid_sample(Tensor input, Tensor grid, int interpolation_mode, int padding_mode, bool align_corners) -> Tensor"
  // For each value, how many of the 1-d sorted boundaries are below it
  // (right: at or below it), int64: numpy's searchsorted.
  opal.def "searchsorted(Tensor sorted, Tensor values, bool right) -> Tensor"
  // Rows of a [V, D] table reduced over bags of a 1-d index list: bag b
  // holds indices[offsets[b] .. offsets[b + 1]) (the last bag runs to the
  // end of the list; include_last_offset: offsets ends with one past the
  // last bag's end, so len(offsets) - 1 bags). reduce "sum" adds the rows
  // (each times scale[i] if scale is 1-d; 16-bit floats summed in float32),
  // "max" keeps each column's first maximum and the index it came from.
  // Indices equal to padding_idx are skipped; counts says how many of each
  // bag's are not. An empty bag is 0 (and index 0). Results: values
  // [B, D], indices [B, D] and counts [B] of the indices' dtype.
  opal.def "embedding_bag(Tensor table, Tensor indices, Tensor offsets, Tensor scale, int padding_idx, str reduce, bool include_last_offset) -> (Tensor values, Tensor indices, Tensor counts)"
  // Matrix products (opal's additions to the prims set).
  opal.def "mm(Tensor self, Tensor mat2) -> Tensor"
  opal.def "bmm(Tensor self, Tensor mat2) -> Tensor"
}
