"""Autograd: gradients against PyTorch and finite differences,
PyTorch's errors for bad uses, grad mode, and a training loop whose losses
match PyTorch's step by step."""

import random
import re
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import opal

torch = pytest.importorskip("torch")
torch.set_num_threads(1)

F = torch.nn.functional


def _functional(name):
    return lambda m, *a, **k: (getattr(F, name) if m is torch else getattr(m, name))(*a, **k)


def _embedding(m, weight, padding_idx):
    indices = m.tensor([[0, 2], [2, 3]])
    if m is torch:
        return F.embedding(indices, weight, None if padding_idx < 0 else padding_idx)
    return m.ops.aten.embedding(weight, indices, padding_idx)


def _conv(m, x, w, b=None, stride=1, padding=0, dilation=1, groups=1, dims=2,
          transposed=False, output_padding=0):
    """conv{1,2}d / conv_transpose2d: PyTorch's functional, opal's aten op."""
    if m is torch:
        if transposed:
            return F.conv_transpose2d(x, w, b, stride, padding, output_padding, groups, dilation)
        return (F.conv1d if dims == 1 else F.conv2d)(x, w, b, stride, padding, dilation, groups)
    A = m.ops.aten
    rep = lambda v: [v] * dims  # noqa: E731
    if transposed:
        return A.conv_transpose2d.input(x, w, b, rep(stride), rep(padding), rep(output_padding),
                                        groups, rep(dilation))
    op = A.conv1d if dims == 1 else A.conv2d
    return op(x, w, b, rep(stride), rep(padding), rep(dilation), groups)


def _batch_norm(m, x, weight, bias, training):
    """Batch norm with running statistics (evaluation reads them, training
    updates copies of them)."""
    mean = m.tensor([0.5, -0.5], dtype=m.float64)
    var = m.tensor([2.0, 0.5], dtype=m.float64)
    if m is torch:
        return F.batch_norm(x, mean, var, weight, bias, training, 0.1, 1e-5)
    return m.ops.aten.batch_norm(x, weight, bias, mean, var, training, 0.1, 1e-5, False)


# (id, fn(module, *inputs), input shapes, positive inputs): every op with a
# derivative formula, through the spelling users write.
CASES = [
    ("add", lambda m, a, b: a + b, [(3, 4), (4,)], False),
    ("add_alpha", lambda m, a, b: m.add(a, b, alpha=2), [(3, 4), (3, 1)], False),
    ("add_scalar", lambda m, a: a + 2.5, [(3,)], False),
    ("sub", lambda m, a, b: a - b, [(3, 4), (1, 4)], False),
    ("sub_scalar", lambda m, a: a - 1, [(3,)], False),
    ("rsub", lambda m, a: 2 - a, [(3,)], False),
    ("mul", lambda m, a, b: a * b, [(2, 3, 4), (3, 1)], False),
    ("mul_scalar", lambda m, a: a * 3.5, [(3,)], False),
    ("div", lambda m, a, b: a / b, [(3, 4), (4,)], True),
    ("div_scalar", lambda m, a: a / 3, [(3,)], False),
    ("neg", lambda m, a: -a, [(3,)], False),
    ("pow_int", lambda m, a: a ** 3, [(3,)], False),
    ("pow_float", lambda m, a: a ** 0.7, [(3,)], True),
    ("pow_zero", lambda m, a: a ** 0, [(3,)], False),
    ("exp", lambda m, a: a.exp(), [(3,)], False),
    ("log", lambda m, a: a.log(), [(3,)], True),
    ("sqrt", lambda m, a: a.sqrt(), [(3,)], True),
    ("rsqrt", lambda m, a: a.rsqrt(), [(3,)], True),
    ("tanh", lambda m, a: a.tanh(), [(3,)], False),
    ("sigmoid", lambda m, a: a.sigmoid(), [(3,)], False),
    ("relu", lambda m, a: a.relu(), [(6,)], False),
    ("gelu", _functional("gelu"), [(5,)], False),
    ("gelu_tanh", lambda m, a: _functional("gelu")(m, a, approximate="tanh"), [(5,)], False),
    ("silu", _functional("silu"), [(5,)], False),
    ("sin", lambda m, a: a.sin(), [(3,)], False),
    ("cos", lambda m, a: a.cos(), [(3,)], False),
    ("abs", lambda m, a: a.abs(), [(3,)], False),
    ("where", lambda m, a, b: m.where(a > 0, a, b), [(3, 4), (4,)], False),
    ("tan", lambda m, a: a.tan(), [(4,)], False),
    ("asin", lambda m, a: (a * 0.3).asin(), [(4,)], False),
    ("acos", lambda m, a: (a * 0.3).acos(), [(4,)], False),
    ("atan", lambda m, a: a.atan(), [(4,)], False),
    ("sinh", lambda m, a: a.sinh(), [(4,)], False),
    ("cosh", lambda m, a: a.cosh(), [(4,)], False),
    ("asinh", lambda m, a: a.asinh(), [(4,)], False),
    ("acosh", lambda m, a: (a + 1).acosh(), [(4,)], True),
    ("atanh", lambda m, a: (a * 0.3).atanh(), [(4,)], False),
    ("expm1", lambda m, a: a.expm1(), [(4,)], False),
    ("log2", lambda m, a: a.log2(), [(4,)], True),
    ("log10", lambda m, a: a.log10(), [(4,)], True),
    ("reciprocal", lambda m, a: a.reciprocal(), [(4,)], True),
    ("floor", lambda m, a: a.floor() + a, [(4,)], False),
    ("sign", lambda m, a: a.sign() * a, [(4,)], False),
    ("elu", lambda m, a: F.elu(a, 0.7) if m is torch else m.ops.aten.elu(a, 0.7), [(6,)], False),
    ("hardsigmoid", lambda m, a: F.hardsigmoid(a * 4) if m is torch else
     m.ops.aten.hardsigmoid(a * 4), [(8,)], False),
    ("hardswish", lambda m, a: F.hardswish(a * 4) if m is torch else
     m.ops.aten.hardswish(a * 4), [(8,)], False),
    ("clamp", lambda m, a: a.clamp(-0.5, 0.4), [(8,)], False),
    ("clamp_min_only", lambda m, a: a.clamp(min=-0.5), [(8,)], False),
    ("masked_fill", lambda m, a: a.masked_fill(a > 0.3, 2.0), [(8,)], False),
    ("tril", lambda m, a: a.tril(1), [(3, 4)], False),
    ("triu", lambda m, a: a.triu(), [(3, 4)], False),
    ("flip", lambda m, a: a.flip(1), [(3, 4)], False),
    ("logsumexp", lambda m, a: a.logsumexp(1), [(3, 4)], False),
    ("pow_tensor", lambda m, a, b: a ** b, [(4,), (4,)], True),
    ("atan2", lambda m, a, b: m.atan2(a, b), [(3, 4), (4,)], False),
    ("sort", lambda m, a: a.sort(1)[0] * m.arange(4), [(3, 4)], False),
    ("topk", lambda m, a: a.topk(2, 1)[0], [(3, 4)], False),
    ("scatter_add", lambda m, a, b: a.scatter_add(1, m.tensor([[0, 1, 0], [2, 2, 1]]), b),
     [(2, 4), (2, 3)], False),
    ("scatter", lambda m, a, b: a.scatter(1, m.tensor([[0, 1], [3, 2]]), b),
     [(2, 4), (2, 2)], False),
    ("softplus", lambda m, a: _functional("softplus")(m, a, beta=2, threshold=1), [(6,)], False),
    ("log1p", lambda m, a: a.log1p(), [(3,)], True),
    ("erf", lambda m, a: a.erf(), [(4,)], False),
    ("leaky_relu", lambda m, a: _functional("leaky_relu")(m, a, 0.1), [(6,)], False),
    ("hardtanh", lambda m, a: _functional("hardtanh")(m, a, -0.5, 0.5), [(6,)], False),
    ("clamp_min", lambda m, a: a.clamp_min(0.1), [(6,)], False),
    ("clamp_max", lambda m, a: a.clamp_max(0.1), [(6,)], False),
    ("maximum", lambda m, a, b: m.maximum(a, b), [(3, 4), (4,)], False),
    ("minimum", lambda m, a, b: m.minimum(a, b), [(3, 4), (4,)], False),
    ("amax", lambda m, a: m.amax(a, 1), [(3, 4)], False),
    ("amin_keepdim", lambda m, a: m.amin(a, 0, keepdim=True), [(3, 4)], False),
    ("max_dim", lambda m, a: a.max(1)[0], [(3, 4)], False),
    ("min_dim_keepdim", lambda m, a: a.min(0, keepdim=True)[0], [(3, 4)], False),
    ("var", lambda m, a: a.var(1), [(3, 4)], False),
    ("var_all", lambda m, a: a.var(), [(3, 4)], False),
    ("std_keepdim", lambda m, a: a.std(0, keepdim=True), [(3, 4)], False),
    ("cumsum", lambda m, a: a.cumsum(1), [(3, 4)], False),
    ("gather", lambda m, a: a.gather(1, m.tensor([[0, 0], [1, 0], [3, 2]])), [(3, 4)], False),
    ("layer_norm", lambda m, a, w, b: _functional("layer_norm")(m, a, [4], w, b),
     [(2, 3, 4), (4,), (4,)], False),
    ("embedding", lambda m, w: _embedding(m, w, -1), [(4, 3)], False),
    ("embedding_padding", lambda m, w: _embedding(m, w, 2), [(4, 3)], False),
    ("batch_norm_training", lambda m, a, w, b: _batch_norm(m, a, w, b, True),
     [(3, 2, 4), (2,), (2,)], False),
    ("batch_norm_eval", lambda m, a, w, b: _batch_norm(m, a, w, b, False),
     [(3, 2, 4), (2,), (2,)], False),
    ("conv2d", lambda m, x, w, b: _conv(m, x, w, b, padding=1), [(2, 3, 5, 5), (4, 3, 3, 3), (4,)],
     False),
    ("conv2d_stride_uneven", lambda m, x, w: _conv(m, x, w, stride=2), [(1, 2, 6, 7), (3, 2, 3, 3)],
     False),
    ("conv2d_dilation", lambda m, x, w: _conv(m, x, w, dilation=2, padding=1),
     [(1, 2, 7, 7), (2, 2, 3, 3)], False),
    ("conv2d_groups", lambda m, x, w, b: _conv(m, x, w, b, groups=2, stride=2),
     [(2, 4, 6, 6), (6, 2, 3, 3), (6,)], False),
    ("conv1d", lambda m, x, w: _conv(m, x, w, padding=2, dims=1), [(2, 3, 8), (4, 3, 5)], False),
    ("conv_transpose2d", lambda m, x, w, b: _conv(m, x, w, b, stride=2, padding=1, transposed=True,
                                                  output_padding=1),
     [(1, 4, 3, 3), (4, 2, 3, 3), (2,)], False),
    ("max_pool2d", lambda m, x: F.max_pool2d(x, 2) if m is torch else
     m.ops.aten.max_pool2d(x, [2, 2]), [(2, 3, 4, 6)], False),
    ("max_pool2d_overlapping", lambda m, x: F.max_pool2d(x, 3, 2, 1) if m is torch else
     m.ops.aten.max_pool2d(x, [3, 3], [2, 2], [1, 1]), [(1, 2, 7, 7)], False),
    ("max_pool2d_unbatched", lambda m, x: F.max_pool2d(x, 2) if m is torch else
     m.ops.aten.max_pool2d(x, [2, 2]), [(3, 4, 4)], False),
    ("avg_pool2d", lambda m, x: F.avg_pool2d(x, 3, 2, 1) if m is torch else
     m.ops.aten.avg_pool2d(x, [3, 3], [2, 2], [1, 1]), [(2, 3, 7, 6)], False),
    ("avg_pool2d_ceil_no_pad_count", lambda m, x: F.avg_pool2d(x, [3, 2], 2, 1, True, False)
     if m is torch else m.ops.aten.avg_pool2d(x, [3, 2], [2, 2], [1, 1], True, False),
     [(1, 2, 7, 6)], False),
    ("avg_pool2d_divisor_unbatched", lambda m, x: F.avg_pool2d(x, 2, divisor_override=3)
     if m is torch else m.ops.aten.avg_pool2d(x, [2, 2], divisor_override=3), [(3, 4, 5)],
     False),
    ("avg_pool1d", lambda m, x: F.avg_pool1d(x, 3, 2, 1) if m is torch else
     m.ops.aten.avg_pool1d(x, [3], [2], [1]), [(2, 3, 8)], False),
    ("avg_pool3d", lambda m, x: F.avg_pool3d(x, 2, [2, 1, 2], 1) if m is torch else
     m.ops.aten.avg_pool3d(x, [2, 2, 2], [2, 1, 2], [1, 1, 1]), [(1, 2, 4, 3, 5)], False),
    ("adaptive_avg_pool2d", lambda m, x: F.adaptive_avg_pool2d(x, [3, 4]) if m is torch else
     m.ops.aten.adaptive_avg_pool2d(x, [3, 4]), [(2, 3, 7, 6)], False),
    ("adaptive_avg_pool2d_global", lambda m, x: F.adaptive_avg_pool2d(x, 1) if m is torch else
     m.ops.aten.adaptive_avg_pool2d(x, [1, 1]), [(2, 3, 4, 4)], False),
    ("adaptive_avg_pool1d", lambda m, x: F.adaptive_avg_pool1d(x, 3) if m is torch else
     m.ops.aten.adaptive_avg_pool1d(x, [3]), [(2, 3, 8)], False),
    ("adaptive_avg_pool3d", lambda m, x: F.adaptive_avg_pool3d(x, [2, 3, 2]) if m is torch else
     m.ops.aten.adaptive_avg_pool3d(x, [2, 3, 2]), [(1, 2, 5, 4, 3)], False),
    ("group_norm", lambda m, a, w, b: F.group_norm(a, 2, w, b) if m is torch else
     m.ops.aten.group_norm(a, 2, w, b), [(2, 4, 3, 2), (4,), (4,)], False),
    ("group_norm_plain", lambda m, a: F.group_norm(a, 3) if m is torch else
     m.ops.aten.group_norm(a, 3), [(2, 6, 5)], False),
    ("fmod", lambda m, a, b: m.fmod(a, b) if m is torch else m.ops.aten.fmod.Tensor(a, b),
     [(3, 4), (4,)], False),
    ("remainder", lambda m, a, b: m.remainder(a, b) if m is torch else
     m.ops.aten.remainder.Tensor(a, b), [(3, 4), (3, 4)], False),
    ("fmod_scalar", lambda m, a: m.fmod(a, 0.7) if m is torch else
     m.ops.aten.fmod.Scalar(a, 0.7), [(3, 4)], False),
    ("remainder_scalar", lambda m, a: m.remainder(a, 0.7) if m is torch else
     m.ops.aten.remainder.Scalar(a, 0.7), [(3, 4)], False),
    ("constant_pad_nd", lambda m, a: F.pad(a, (1, 2, 0, -1)) if m is torch else
     m.ops.aten.constant_pad_nd(a, [1, 2, 0, -1], 0.0), [(3, 4)], False),
    ("repeat", lambda m, a: a.repeat(2, 1, 3) if m is torch else m.ops.aten.repeat(a, [2, 1, 3]),
     [(3, 4)], False),
    ("max_pool3d", lambda m, x: F.max_pool3d(x, 3, 2, 1) if m is torch else
     m.ops.aten.max_pool3d(x, [3, 3, 3], [2, 2, 2], [1, 1, 1]), [(2, 3, 5, 4, 5)], False),
    ("max_pool3d_unbatched", lambda m, x: F.max_pool3d(x, 2) if m is torch else
     m.ops.aten.max_pool3d(x, [2, 2, 2]), [(2, 4, 4, 4)], False),
    ("prod", lambda m, a: a.prod() if m is torch else m.ops.aten.prod(a), [(3, 4)], False),
    ("prod_dim", lambda m, a: a.prod(1) if m is torch else m.ops.aten.prod.dim_int(a, 1),
     [(3, 4)], False),
    ("prod_dim_keepdim_zeros", lambda m, a: (a * (a > -0.3)).prod(0, keepdim=True)
     if m is torch else m.ops.aten.prod.dim_int(a * (a > -0.3), 0, True), [(3, 4)], False),
    ("pow_scalar_base", lambda m, e: m.pow(2.5, e) if m is torch else
     m.ops.aten.pow.Scalar(2.5, e), [(3, 4)], False),
    ("clamp_tensor", lambda m, a, lo, hi: m.clamp(a, lo - 0.5, hi + 0.5) if m is torch else
     m.ops.aten.clamp.Tensor(a, lo - 0.5, hi + 0.5), [(3, 4), (4,), (3, 1)], False),
    ("clamp_tensor_min", lambda m, a, lo: m.clamp(a, lo) if m is torch else
     m.ops.aten.clamp.Tensor(a, lo), [(3, 4), (3, 4)], False),
    ("reflection_pad1d", lambda m, x: F.pad(x, (2, 1), mode="reflect") if m is torch else
     m.ops.aten.reflection_pad1d(x, [2, 1]), [(2, 3, 5)], False),
    ("reflection_pad2d", lambda m, x: F.pad(x, (2, 1, 1, 2), mode="reflect") if m is torch else
     m.ops.aten.reflection_pad2d(x, [2, 1, 1, 2]), [(2, 4, 5)], False),
    ("reflection_pad3d", lambda m, x: F.pad(x, (1, 1, 1, 1, 1, 1), mode="reflect")
     if m is torch else m.ops.aten.reflection_pad3d(x, [1] * 6), [(1, 2, 3, 4, 3)], False),
    ("replication_pad1d", lambda m, x: F.pad(x, (3, 1), mode="replicate") if m is torch else
     m.ops.aten.replication_pad1d(x, [3, 1]), [(3, 4)], False),
    ("replication_pad2d", lambda m, x: F.pad(x, (2, 3, 1, 0), mode="replicate")
     if m is torch else m.ops.aten.replication_pad2d(x, [2, 3, 1, 0]), [(1, 3, 4, 5)], False),
    ("replication_pad3d", lambda m, x: F.pad(x, (1, 2, 0, 1, 2, 1), mode="replicate")
     if m is torch else m.ops.aten.replication_pad3d(x, [1, 2, 0, 1, 2, 1]), [(2, 3, 4, 3)],
     False),
    ("layer_norm_plain", lambda m, a: _functional("layer_norm")(m, a, [3, 4]), [(2, 3, 4)],
     False),
    ("sum", lambda m, a: a.sum(), [(3, 4)], False),
    ("sum_dim", lambda m, a: a.sum(1), [(3, 4)], False),
    ("sum_keepdim", lambda m, a: a.sum(0, keepdim=True), [(3, 4)], False),
    ("mean", lambda m, a: a.mean(), [(3, 4)], False),
    ("mean_dims", lambda m, a: a.mean((0, 2)), [(3, 4, 2)], False),
    ("softmax", lambda m, a: a.softmax(1), [(3, 4)], False),
    ("log_softmax", lambda m, a: a.log_softmax(-1), [(3, 4)], False),
    ("_softmax", lambda m, a: m.ops.aten._softmax(a, 0, False), [(3, 4)], False),
    ("_log_softmax", lambda m, a: m.ops.aten._log_softmax(a, 1, False), [(3, 4)], False),
    ("mm", lambda m, a, b: a.mm(b), [(3, 4), (4, 5)], False),
    ("bmm", lambda m, a, b: a.bmm(b), [(2, 3, 4), (2, 4, 5)], False),
    ("addmm", lambda m, a, b, c: m.addmm(a, b, c, beta=0.5, alpha=2) if m is torch
     else m.ops.aten.addmm(a, b, c, beta=0.5, alpha=2), [(5,), (3, 4), (4, 5)], False),
    ("matmul_3d_2d", lambda m, a, b: a @ b, [(2, 3, 4), (4, 5)], False),
    ("matmul_1d_2d", lambda m, a, b: a @ b, [(4,), (4, 5)], False),
    ("matmul_2d_1d", lambda m, a, b: a @ b, [(3, 4), (4,)], False),
    ("matmul_1d_1d", lambda m, a, b: a @ b, [(4,), (4,)], False),
    ("matmul_batch_broadcast", lambda m, a, b: a @ b, [(2, 1, 3, 4), (5, 4, 2)], False),
    ("linear", _functional("linear"), [(3, 4), (5, 4), (5,)], False),
    ("linear_3d", _functional("linear"), [(2, 3, 4), (5, 4)], False),
    ("linear_1d", _functional("linear"), [(4,), (5, 4)], False),
    ("view", lambda m, a: a.view(4, 3) * 2, [(3, 4)], False),
    ("reshape", lambda m, a: a.t().reshape(12), [(3, 4)], False),
    ("t", lambda m, a: a.t() * 1, [(3, 4)], False),
    ("transpose", lambda m, a: a.transpose(0, 2) * 1, [(2, 3, 4)], False),
    ("permute", lambda m, a: a.permute(2, 0, 1) * 1, [(2, 3, 4)], False),
    ("expand", lambda m, a: a.expand(2, 3, 4) * 1, [(3, 1)], False),
    ("unsqueeze", lambda m, a: a.unsqueeze(1) * 1, [(3, 4)], False),
    ("squeeze", lambda m, a: a.squeeze(1) * 1, [(3, 1, 4)], False),
    ("index_int_slice", lambda m, a: a[1, 1:3] * 1, [(3, 4)], False),
    ("index_ellipsis_none", lambda m, a: a[..., None, ::2] * 1, [(3, 4)], False),
    ("clone", lambda m, a: a.clone(), [(3,)], False),
    ("index_tensor", lambda m, a: a[m.tensor([0, 2, 0])], [(4, 3)], False),
    ("index_two_tensors", lambda m, a: a[m.tensor([0, 3, 3]), m.tensor([1, 0, 0])], [(4, 3)],
     False),
    ("index_mask", lambda m, a: a[a > 0], [(4, 3)], False),
    ("index_select", lambda m, a: a.index_select(1, m.tensor([2, 0, 2])), [(4, 3)], False),
    ("index_select_rows", lambda m, a: a.index_select(0, m.tensor([1, 1, 3])), [(4, 3)], False),
    ("cat", lambda m, a, b: m.cat([a, b], 1), [(2, 3), (2, 4)], False),
    ("stack", lambda m, a, b: m.stack([a, b], 0), [(2, 3), (2, 3)], False),
    ("split_one_used", lambda m, a: a.split(2, 1)[1] * 1, [(2, 5)], False),
    ("split_with_sizes", lambda m, a: m.cat([t * (i + 1) for i, t in
                                             enumerate(a.split([1, 3], 1))], 1), [(2, 4)], False),
    ("chunk", lambda m, a: a.chunk(2, 0)[0].exp(), [(4, 3)], False),
    ("unbind", lambda m, a: a.unbind(1)[2] * 2, [(3, 4)], False),
    ("to_dtype", lambda m, a: a.to(m.float32).to(m.float64), [(3,)], False),
    ("reused_input", lambda m, a: (a * a + a.exp() * a).sum(), [(3,)], False),
    ("ceil", lambda m, a: a.ceil() + a, [(4,)], False),
    ("round", lambda m, a: m.ops.aten.round(a) * a, [(4,)], False),
    ("trunc", lambda m, a: m.ops.aten.trunc(a) + a * 2, [(4,)], False),
    ("alias", lambda m, a: m.ops.aten.alias(a) * 3, [(2, 3)], False),
    ("max_pool3d_with_indices", lambda m, x: m.ops.aten.max_pool3d_with_indices(
        x, [2, 2, 2], [1, 2, 1], [0, 1, 0])[0], [(1, 2, 3, 4, 3)], False),
    # Composites that record through the ops they call.
    ("conv3d", lambda m, x, w: m.ops.aten.conv3d(x, w, None, [1, 1, 1], [1, 0, 1], [1, 1, 1], 1),
     [(1, 2, 3, 4, 3), (2, 2, 2, 2, 2)], False),
    ("conv_transpose1d", lambda m, x, w: m.ops.aten.conv_transpose1d(x, w, None, [2], [1], [1], 1,
                                                                     [1]), [(2, 2, 5), (2, 3, 3)], False),
    ("conv_transpose3d", lambda m, x, w: m.ops.aten.conv_transpose3d.input(
        x, w, None, [1, 2, 1], [0, 1, 0], [0, 1, 0], 1, [1, 1, 1]), [(1, 2, 2, 3, 2), (2, 1, 2, 2, 2)],
     False),
    # Views, scatters, resampling and distances (their own formulas).
    ("square", lambda m, a: m.ops.aten.square(a), [(3, 4)], False),
    ("narrow", lambda m, a: m.ops.aten.narrow(a, 1, -3, 2), [(3, 4)], False),
    ("narrow_method", lambda m, a: a.narrow(0, 1, 2) * 2, [(3, 4)], False),
    ("dropout_eval", lambda m, a: m.ops.aten.dropout(a, 0.5, False), [(3, 4)], False),
    ("native_dropout_eval", lambda m, a: m.ops.aten.native_dropout(a, 0.5, False)[0], [(3, 4)], False),
    ("fill_scalar", lambda m, a: m.ops.aten.fill.Scalar(a, 2.0) * a, [(3, 4)], False),
    ("fill_tensor", lambda m, a, b: m.ops.aten.fill.Tensor(a, b) * a, [(3, 4), ()], False),
    ("select_scatter", lambda m, a, b: m.ops.aten.select_scatter(a, b, 1, -1), [(3, 4), (3,)], False),
    ("slice_scatter", lambda m, a, b: m.ops.aten.slice_scatter(a, b, 1, 1, None, 2), [(3, 5), (3, 2)], False),
    ("diagonal", lambda m, a: m.ops.aten.diagonal(a, 1, 0, 2) * 3, [(3, 2, 4)], False),
    ("as_strided", lambda m, a: m.ops.aten.as_strided(a, [2, 2], [1, 2], 1) * 3, [(4, 4)], False),
    ("as_strided_overlap", lambda m, a: m.ops.aten.as_strided(a, [3, 3], [1, 1]) * 3, [(6,)], False),
    ("index_put", lambda m, a, b: m.ops.aten.index_put(a, [m.tensor([0, 2])], b), [(5, 3), (2, 3)], False),
    ("index_put_acc", lambda m, a, b: m.ops.aten.index_put(a, [m.tensor([0, 2, 0])], b, True), [(5, 3), (3,)], False),
    ("index_put_2d", lambda m, a, b: m.ops.aten.index_put(a, [m.tensor([0, 2]), m.tensor([1, 1])], b), [(5, 3), (1,)], False),
    ("masked_scatter", lambda m, a, b: m.ops.aten.masked_scatter(a, m.tensor([[True, False, True], [False, True, True]]), b), [(2, 3), (7,)], False),
    ("masked_scatter_bcast", lambda m, a, b: m.ops.aten.masked_scatter(a, m.tensor([True, False, True]), b), [(2, 3), (2, 3)], False),
    ("upsample_nearest2d", lambda m, a: m.ops.aten.upsample_nearest2d(a, [5, 7]), [(1, 2, 3, 3)], False),
    ("upsample_nearest2d_vec", lambda m, a: m.ops.aten.upsample_nearest2d.vec(a, None, [2.5, 1.5]), [(2, 1, 3, 4)], False),
    ("upsample_bilinear2d", lambda m, a: m.ops.aten.upsample_bilinear2d(a, [5, 7], False), [(1, 2, 3, 3)], False),
    ("upsample_bilinear2d_ac", lambda m, a: m.ops.aten.upsample_bilinear2d(a, [2, 7], True), [(1, 2, 3, 3)], False),
    ("upsample_bilinear2d_vec", lambda m, a: m.ops.aten.upsample_bilinear2d.vec(a, None, False, [1.7, 0.6]), [(2, 1, 4, 5)], False),
    ("col2im", lambda m, a: m.ops.aten.col2im(a, [4, 5], [2, 2], [1, 1], [1, 0], [1, 2]), [(1, 8, 10)], False),
    ("scatter_reduce_sum", lambda m, a, b: m.ops.aten.scatter_reduce.two(a, 0, m.tensor([0, 1, 0, 2]), b, "sum"), [(5,), (4,)], False),
    ("scatter_reduce_mean", lambda m, a, b: m.ops.aten.scatter_reduce.two(a, 0, m.tensor([0, 1, 0, 2]), b, "mean"), [(5,), (4,)], False),
    ("scatter_reduce_mean_noself", lambda m, a, b: m.ops.aten.scatter_reduce.two(a, 1, m.tensor([[0, 1, 0], [2, 2, 1]]), b, "mean", include_self=False), [(2, 4), (2, 3)], False),
    ("scatter_reduce_amax", lambda m, a, b: m.ops.aten.scatter_reduce.two(a, 0, m.tensor([0, 1, 0, 2]), b, "amax"), [(5,), (4,)], False),
    ("scatter_reduce_amin_noself", lambda m, a, b: m.ops.aten.scatter_reduce.two(a, 0, m.tensor([0, 1, 0, 2]), b, "amin", include_self=False), [(5,), (4,)], False),
    ("scatter_reduce_prod", lambda m, a, b: m.ops.aten.scatter_reduce.two(a, 0, m.tensor([0, 1, 0, 2]), b, "prod"), [(5,), (4,)], False),
    ("embedding_bag_sum", lambda m, w: m.ops.aten._embedding_bag(w, m.tensor([1, 2, 4, 5, 4, 3, 2, 9]), m.tensor([0, 4]))[0], [(10, 3)], False),
    ("embedding_bag_mean", lambda m, w: m.ops.aten._embedding_bag(w, m.tensor([1, 2, 4, 5, 4, 3, 2, 9]), m.tensor([0, 4, 4]), False, 1)[0], [(10, 3)], False),
    ("embedding_bag_max", lambda m, w: m.ops.aten._embedding_bag(w, m.tensor([1, 2, 4, 5, 4, 3, 2, 9]), m.tensor([0, 3]), False, 2)[0], [(10, 3)], False),
    ("embedding_bag_psw", lambda m, w, s: m.ops.aten._embedding_bag(w, m.tensor([1, 2, 4, 5, 4, 3, 2, 9]), m.tensor([0, 4]), False, 0, False, s, False, 4)[0], [(10, 3), (8,)], False),
    ("cdist", lambda m, a, b: m.ops.aten._cdist_forward(a, b, 2.0, None), [(2, 3, 4), (2, 5, 4)], False),
    ("cdist_p1", lambda m, a, b: m.ops.aten._cdist_forward(a, b, 1.0, None), [(3, 4), (5, 4)], False),
    ("cdist_p3", lambda m, a, b: m.ops.aten._cdist_forward(a, b, 3.0, None), [(3, 4), (5, 4)], False),
    ("cdist_inf", lambda m, a, b: m.ops.aten._cdist_forward(a, b, float("inf"), None), [(3, 4), (5, 4)], False),
    ("cdist_p0", lambda m, a, b: m.ops.aten._cdist_forward(a, b, 0.0, None), [(3, 4), (5, 4)], False),
    ("pdist", lambda m, a: m.ops.aten._pdist_forward(a, 2.0), [(5, 4)], False),
    ("pdist_p1", lambda m, a: m.ops.aten._pdist_forward(a, 1.0), [(5, 4)], False),
    ("pdist_p3", lambda m, a: m.ops.aten._pdist_forward(a, 3.0), [(5, 4)], False),
    ("pdist_inf", lambda m, a: m.ops.aten._pdist_forward(a, float("inf")), [(5, 4)], False),
    ("grid_sampler_bilinear", lambda m, a, g: m.ops.aten.grid_sampler_2d(a, g, 0, 0, False), [(2, 2, 4, 5), (2, 3, 3, 2)], False),
    ("grid_sampler_border_ac", lambda m, a, g: m.ops.aten.grid_sampler_2d(a, g, 0, 1, True), [(1, 2, 4, 5), (1, 3, 3, 2)], False),
    ("grid_sampler_reflection", lambda m, a, g: m.ops.aten.grid_sampler_2d(a, g, 0, 2, False), [(1, 2, 4, 5), (1, 3, 3, 2)], False),
    ("grid_sampler_nearest", lambda m, a, g: m.ops.aten.grid_sampler_2d(a, g, 1, 0, False), [(1, 2, 4, 5), (1, 3, 3, 2)], False),
    ("grid_sampler_bicubic", lambda m, a, g: m.ops.aten.grid_sampler_2d(a, g, 2, 0, False), [(1, 2, 4, 5), (1, 3, 3, 2)], False),
    ("grid_sampler_bicubic_refl", lambda m, a, g: m.ops.aten.grid_sampler_2d(a, g, 2, 2, True), [(1, 2, 4, 5), (1, 3, 3, 2)], False),
]


def _inputs(shapes, positive, seed=0):
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal(s) for s in shapes]
    return [np.abs(a) + 0.5 for a in arrays] if positive else arrays


@pytest.mark.parametrize("name,fn,shapes,positive", CASES, ids=[c[0] for c in CASES])
def test_gradients_match_pytorch(name, fn, shapes, positive):
    arrays = _inputs(shapes, positive)
    ours = [opal.tensor(a, dtype=opal.float64, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, dtype=torch.float64, requires_grad=True) for a in arrays]
    y, expected = fn(opal, *ours), fn(torch, *theirs)
    np.testing.assert_allclose(y.detach().numpy(), expected.detach().numpy(), rtol=1e-12,
                               atol=1e-12)
    seed = np.random.default_rng(1).standard_normal(tuple(expected.shape))
    y.backward(opal.tensor(seed, dtype=opal.float64))
    expected.backward(torch.tensor(seed))
    for x, t in zip(ours, theirs):
        np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_aten_copy_has_no_derivative_as_in_pytorch_2():
    # PyTorch 2 computes aten::copy with backend kernels and no formula: a
    # gradient that reaches it raises, in both.
    def run(m):
        a = m.ones(3, 4, dtype=m.float64, requires_grad=True)
        b = m.ones(4, dtype=m.float64, requires_grad=True)
        (m.ops.aten.copy(a, b) * a).sum().backward()
    for m, words in ((opal, "the derivative for 'copy' is not implemented."),
                     (torch, "derivative for aten::copy is not implemented")):
        with pytest.raises(RuntimeError, match=re.escape(words)):
            run(m)


# padding_idx zeroes its row's gradient by definition (PyTorch's too), which
# finite differences do not see.
GRADCHECK_CASES = [c for c in CASES if c[0] != "embedding_padding"]


@pytest.mark.parametrize("name,fn,shapes,positive", GRADCHECK_CASES,
                         ids=[c[0] for c in GRADCHECK_CASES])
def test_gradcheck(name, fn, shapes, positive):
    inputs = [opal.tensor(a, dtype=opal.float64, requires_grad=True)
              for a in _inputs(shapes, positive, seed=2)]
    # A round trip through float32 differences only at float32's precision.
    tolerances = dict(eps=1e-3, rtol=1e-2) if name == "to_dtype" else {}
    assert opal.autograd.gradcheck(lambda *xs: fn(opal, *xs), inputs, **tolerances)


def test_float32_gradients_keep_dtype_and_sum_broadcasts():
    a = opal.ones(2, 3, requires_grad=True)
    b = opal.full((3,), 2.0, dtype=opal.float64, requires_grad=True)
    (a * b).sum().backward()
    assert a.grad.dtype == opal.float32 and b.grad.dtype == opal.float64
    assert a.grad.tolist() == [[2.0] * 3] * 2
    assert b.grad.tolist() == [2.0, 2.0, 2.0]


def test_tensor_api():
    x = opal.tensor([1.0, 2.0], requires_grad=True)
    assert x.requires_grad and x.is_leaf and x.grad is None and x.grad_fn is None
    y = x * 2
    assert y.requires_grad and not y.is_leaf
    assert repr(y.grad_fn).startswith("<MulBackward0 object at 0x")
    (fn, index), = y.grad_fn.next_functions[:1]
    assert fn.name() == "AccumulateGrad" and index == 0 and fn.variable.tolist() == [1.0, 2.0]
    z = y.detach()
    assert not z.requires_grad and z.grad_fn is None and z.data_ptr() == y.data_ptr()
    w = opal.zeros(2)
    assert w.requires_grad_() is not None and w.requires_grad
    w.requires_grad = False
    assert not w.requires_grad
    assert opal.ones(2, requires_grad=True).requires_grad
    assert opal.zeros_like(x, requires_grad=True).requires_grad
    assert not opal.ones(2).requires_grad


def test_grads_accumulate_until_cleared():
    x = opal.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (x * x).sum().backward()
    (x * 3).sum().backward()
    assert x.grad.tolist() == [5.0, 7.0, 9.0]
    x.grad = None
    (x * 3).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0, 3.0]


def test_retain_graph_allows_a_second_backward():
    x = opal.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp().sum()
    y.backward(retain_graph=True)
    y.backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.exp([1.0, 2.0]), rtol=1e-6)


def test_autograd_grad_returns_without_accumulating():
    x = opal.tensor([1.0, 2.0], requires_grad=True)
    w = opal.tensor([3.0, 4.0], requires_grad=True)
    unused = opal.tensor([1.0], requires_grad=True)
    y = (x * w).sum()
    gx, gu = opal.autograd.grad(y, [x, unused], allow_unused=True, retain_graph=True)
    assert gx.tolist() == [3.0, 4.0] and gu is None
    assert x.grad is None and w.grad is None
    gw, = opal.autograd.grad([y], [w])
    assert gw.tolist() == [1.0, 2.0]


def test_grad_mode():
    x = opal.ones(2, requires_grad=True)
    with opal.no_grad():
        assert not opal.is_grad_enabled()
        y = x * 2
        with opal.enable_grad():
            z = x * 2
    assert not y.requires_grad and y.grad_fn is None and z.requires_grad
    assert opal.is_grad_enabled()

    @opal.no_grad()
    def step():
        return x * 2
    assert not step().requires_grad
    opal.set_grad_enabled(False)
    try:
        assert not (x * 2).requires_grad
    finally:
        opal.set_grad_enabled(True)
    with opal.set_grad_enabled(False):
        assert not (x * 2).requires_grad
    assert (x * 2).requires_grad


def _error(fn):
    with pytest.raises(Exception) as info:
        fn()
    return info.type, str(info.value)


def _same_error(ours, theirs):
    """Both raise, with the same type and words (opal. for torch.)."""
    our_type, our_text = _error(ours)
    their_type, their_text = _error(theirs)
    assert issubclass(our_type, their_type), (our_type, their_type)
    assert our_text == their_text.replace("torch.", "opal."), (our_text, their_text)


@pytest.mark.parametrize("case", [
    "backward_twice", "non_scalar", "no_grad_fn", "leaf_in_place", "int_requires_grad",
    "non_leaf_requires_grad", "unused_input", "input_without_grad", "shape_mismatch"])
def test_bad_uses_raise_pytorch_errors(case):
    def run(m):
        x = m.tensor([1.0, 2.0, 3.0], requires_grad=True)
        if case == "backward_twice":
            y = x.exp().sum()
            y.backward()
            y.backward()
        elif case == "non_scalar":
            (x * 2).backward()
        elif case == "no_grad_fn":
            m.ones(2).sum().backward()
        elif case == "leaf_in_place":
            x.add_(1)
        elif case == "int_requires_grad":
            m.ones(2, dtype=m.int64).requires_grad_()
        elif case == "non_leaf_requires_grad":
            (x * 2).requires_grad_(False)
        elif case == "unused_input":
            m.autograd.grad((x * 2).sum(), [m.ones(2, requires_grad=True)])
        elif case == "input_without_grad":
            m.autograd.grad((x * 2).sum(), [m.ones(2)])
        elif case == "shape_mismatch":
            (x * 2).backward(m.ones(2))
    _same_error(lambda: run(opal), lambda: run(torch))


def test_in_place_write_of_a_saved_tensor_raises():
    def run(m):
        x = m.tensor([1.0, 2.0, 3.0], requires_grad=True)
        y = x.exp()
        y.add_(1)
        y.sum().backward()
    _, ours = _error(lambda: run(opal))
    _, theirs = _error(lambda: run(torch))
    prefix = theirs[:theirs.index(" Hint:")].replace("torch.", "opal.")
    assert ours.startswith(prefix), (ours, prefix)
    assert ours == prefix + " Hint: the backward of ExpBackward0 reads this tensor; write into " \
                            "a clone() of it instead."


def test_in_place_on_a_result_rebases_its_history():
    for m in (opal, torch):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        y = x * 3
        y.mul_(2)
        y.sum().backward()
        assert x.grad.tolist() == [6.0, 6.0]
    buf = opal.zeros(2)
    x = opal.tensor([1.0, 2.0], requires_grad=True)
    buf.copy_(x * x)
    assert buf.grad_fn.name() == "CopyBackwards"
    buf.sum().backward()
    assert x.grad.tolist() == [2.0, 4.0]


def _write_select(m, a, b):
    x = a * 2
    x[1] = b * 3
    return x * x


def _in_place_on_a_slice(m, a, b):
    x = a * 2
    v = x[:, 1:3]
    v.mul_(b[:2])  # reads the slice's old value
    return x.sin()


def _write_into_a_buffer(m, a, b):
    buf = m.zeros(3, 4, dtype=m.float64)  # requires no grad until written
    buf[0] = b
    buf[2, 1:] = a[0, :3]
    return buf * 2


def _overlapping_views(m, a, b):
    x = a + 0
    v1, v2 = x[0:2], x[1:3]
    v1.add_(1)  # v2 shares a row with v1: its history follows the base's
    return v2 * b


def _fill_a_row(m, a, b):
    x = a * 1
    x[1].fill_(0.5)
    return x * a


def _view_of_a_view(m, a, b):
    x = a.t() * 1
    x.t()[0].mul_(3)
    return x


def _divide_and_clamp_in_place(m, a, b):
    x = a * 1
    x[:, 0] /= b[:3]
    x[0].clamp_(-1, 5)
    return x.exp()


def _write_the_base_whole(m, a, b):
    x = a * 1
    v = x[1]
    x.mul_(2)
    return v * b


WRITES_INTO_VIEWS = [_write_select, _in_place_on_a_slice, _write_into_a_buffer,
                     _overlapping_views, _fill_a_row, _view_of_a_view,
                     _divide_and_clamp_in_place, _write_the_base_whole]


@pytest.mark.parametrize("fn", WRITES_INTO_VIEWS, ids=[f.__name__[1:] for f in WRITES_INTO_VIEWS])
def test_writes_into_views_rebase_the_base_as_in_pytorch(fn):
    # PyTorch's CopySlices: the base's history becomes the write.
    def run(m):
        a = m.tensor(np.arange(1.0, 13.0).reshape(3, 4), dtype=m.float64, requires_grad=True)
        b = m.tensor(np.linspace(-1, 1, 4), dtype=m.float64, requires_grad=True)
        out = fn(m, a, b)
        seed = np.random.default_rng(0).standard_normal(tuple(out.shape))
        out.backward(m.tensor(seed, dtype=m.float64))
        name = out.grad_fn.name() if m is opal else type(out.grad_fn).__name__
        return out.detach().numpy(), a.grad.numpy(), b.grad, name
    ours, theirs = run(opal), run(torch)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-12)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-12)
    assert (ours[2] is None) == (theirs[2] is None)
    if theirs[2] is not None:
        np.testing.assert_allclose(ours[2].numpy(), theirs[2].numpy(), rtol=1e-12)
    assert ours[3] == theirs[3]


def test_writes_into_views_and_their_bases():
    x = opal.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x * 1
    v = y[0:2]
    v.copy_(opal.ones(2))
    assert y.grad_fn.name() == "CopySlices" and v.grad_fn.name() == "AsStridedBackward0"
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 0.0, 1.0]
    # A view of a leaf that requires grad cannot be written (PyTorch's words).
    with pytest.raises(RuntimeError, match=r"^a view of a leaf Variable that requires grad is "
                                           r"being used in an in-place operation\.$"):
        x[0:2].mul_(2)
    # A view made by a kernel (not a view op) has no base opal knows.
    z = x * 1
    with pytest.raises(RuntimeError, match="writing under autograd into a view whose base opal "
                                           "does not know"):
        z.detach()[0:2].copy_(x[0:2])


def test_op_without_a_derivative_raises_when_a_gradient_reaches_it():
    x = opal.ones(2, 3, requires_grad=True)
    # (PyTorch 1.13 has no derivative for floor_divide either.)
    y = opal.floor_divide(x, x + 1)
    assert y.grad_fn.name() == "NotImplemented"
    with pytest.raises(RuntimeError, match=r"^the derivative for 'floor_divide' is not "
                                           r"implemented\.$"):
        y.sum().backward()
    # A branch no gradient reaches does not raise.
    z = opal.ones(2, requires_grad=True)
    (z * 2).sum().backward()
    assert z.grad.tolist() == [2.0, 2.0]


def test_amax_shares_the_gradient_between_ties():
    for m in (opal, torch):
        x = m.tensor([[1.0, 3.0, 3.0], [2.0, 0.0, 2.0]], requires_grad=True)
        m.amax(x, 1).sum().backward()
        assert x.grad.tolist() == [[0.0, 0.5, 0.5], [0.5, 0.0, 0.5]]


def test_indexing_that_mixes_tensors_with_slices_is_refused_under_autograd():
    x = opal.ones(3, 4, requires_grad=True)
    with pytest.raises(NotImplementedError, match=r"indexing a tensor that requires grad with "
                                                  r"tensors mixed with ints, slices or None"):
        x[opal.tensor([0, 2]), 1:]
    with opal.no_grad():
        assert x[opal.tensor([0, 2]), 1:].shape == (2, 3)


def test_integer_results_do_not_require_grad():
    x = opal.tensor([3.0, 1.0, 2.0], requires_grad=True)
    assert not (x > 1).requires_grad
    assert not x.argmax().requires_grad


# Every aten op opal defines either has a derivative formula (an op of
# aten_backward, tested by CASES above and the tests below) or is one of
# these, each for its reason.
RECORD_THROUGH_THEIR_DECOMPOSITIONS = {
    # PyTorch's CompositeImplicitAutograd ops: the ops they call record.
    "aten::adaptive_avg_pool1d", "aten::adaptive_avg_pool2d", "aten::adaptive_avg_pool3d",
    "aten::avg_pool1d", "aten::batch_norm", "aten::conv1d", "aten::conv2d", "aten::conv3d",
    "aten::conv_transpose1d", "aten::conv_transpose2d.input", "aten::conv_transpose3d.input",
    "aten::copy", "aten::dropout", "aten::group_norm", "aten::layer_norm",
}
NOT_DIFFERENTIABLE = {
    # Integer or boolean results.
    "aten::all", "aten::all.dim", "aten::any", "aten::any.dim", "aten::argmax", "aten::argmin",
    "aten::bitwise_and.Scalar", "aten::bitwise_and.Tensor", "aten::bitwise_not",
    "aten::bitwise_or.Scalar", "aten::bitwise_or.Tensor", "aten::bitwise_xor.Scalar",
    "aten::bitwise_xor.Tensor", "aten::eq.Scalar", "aten::eq.Tensor", "aten::ge.Scalar",
    "aten::ge.Tensor", "aten::gt.Scalar", "aten::gt.Tensor", "aten::isinf", "aten::isnan",
    "aten::le.Scalar", "aten::le.Tensor", "aten::logical_and", "aten::logical_not",
    "aten::logical_or", "aten::logical_xor", "aten::lt.Scalar", "aten::lt.Tensor",
    "aten::ne.Scalar", "aten::ne.Tensor", "aten::nonzero", "aten::_local_scalar_dense",
    # Factories and draws: new tensors whose values do not depend on an input's.
    "aten::arange", "aten::arange.start", "aten::arange.start_step", "aten::empty.memory_format",
    "aten::empty_like", "aten::empty_strided", "aten::full", "aten::full_like", "aten::new_full",
    "aten::new_ones", "aten::new_zeros", "aten::ones", "aten::ones_like", "aten::rand",
    "aten::rand_like", "aten::randn", "aten::randn_like", "aten::randperm", "aten::scalar_tensor",
    "aten::zeros", "aten::zeros_like",
}
# PyTorch 1.13 has no derivative for floor_divide either.
NO_DERIVATIVE_AS_IN_PYTORCH = {"aten::floor_divide", "aten::floor_divide.Scalar"}
# PyTorch's backward ops: their own derivatives are double backward, which
# needs create_graph (not yet).
BACKWARD_OPS = {
    "aten::_adaptive_avg_pool2d_backward", "aten::_adaptive_avg_pool3d_backward",
    "aten::avg_pool2d_backward", "aten::avg_pool3d_backward", "aten::convolution_backward",
    "aten::embedding_dense_backward", "aten::max_pool2d_with_indices_backward",
    "aten::native_group_norm_backward", "aten::native_layer_norm_backward",
}


def test_every_aten_op_has_a_derivative_or_a_reason():
    # The built-in registry alone, in a process of its own (tests here
    # register ops of their own).
    listing = subprocess.run([sys.executable, "-c", "import opal; print(' '.join("
                              "opal._C._dispatch_all_op_names()))"],
                             capture_output=True, text=True, check=True)
    names = listing.stdout.split()
    base = lambda name: name.split("::")[1].split(".")[0]  # noqa: E731
    with_formulas = {base(n) for n in names if n.startswith("aten_backward::")}
    explained = (RECORD_THROUGH_THEIR_DECOMPOSITIONS | NOT_DIFFERENTIABLE
                 | NO_DERIVATIVE_AS_IN_PYTORCH | BACKWARD_OPS)
    without = {n for n in names if n.startswith("aten::") and base(n) not in with_formulas}
    assert sorted(without - explained) == []
    # ... and every op listed exists.
    assert sorted(explained - without) == []


def test_dropout_gradient_is_the_kept_mask_scaled():
    x = opal.randn(4000, dtype=opal.float64, requires_grad=True)
    y = opal.ops.aten.dropout(x, 0.25, True)
    assert y.grad_fn.name() == "NativeDropoutBackward0"
    g = opal.randn(4000, dtype=opal.float64)
    y.backward(g)
    kept = (y != 0).to(opal.float64)
    np.testing.assert_allclose(x.grad.numpy(), (g * kept / 0.75).numpy(), rtol=1e-12)
    assert 0.7 < kept.mean().item() < 0.8
    # Not training, dropout is the identity and so is its gradient.
    x.grad = None
    opal.ops.aten.dropout(x, 0.25, False).backward(g)
    np.testing.assert_array_equal(x.grad.numpy(), g.numpy())
    # p = 1 drops everything; PyTorch's scale is 0, not 1 / 0.
    x.grad = None
    opal.ops.aten.native_dropout(x, 1.0, True)[0].backward(g)
    assert not x.grad.numpy().any()
    with pytest.raises(RuntimeError,
                       match=r"^dropout probability has to be between 0 and 1, but got 1\.5$"):
        opal.ops.aten.dropout(x, 1.5, True)


def test_draws_give_their_probabilities_no_gradient():
    p = opal.full((5,), 0.5, dtype=opal.float64, requires_grad=True)
    y = opal.ops.aten.bernoulli(p)
    assert y.grad_fn.name() == "BernoulliBackward0"
    (y * p).sum().backward()
    # Only the product's own path reaches p: d(y * p)/dp = y.
    np.testing.assert_array_equal(p.grad.numpy(), y.detach().numpy())


def _mlp_losses(m, steps=8):
    """An MLP (linear, relu, linear) trained with cross-entropy and SGD on
    fixed synthetic data; the same numbers for opal and PyTorch."""
    rng = np.random.default_rng(3)
    data = rng.standard_normal((32, 10)).astype(np.float32)
    labels = rng.integers(0, 4, 32)
    onehot = np.eye(4, dtype=np.float32)[labels]
    params = [rng.standard_normal(s).astype(np.float32) * 0.3
              for s in [(16, 10), (16,), (4, 16), (4,)]]
    w1, b1, w2, b2 = [m.tensor(p, requires_grad=True) for p in params]
    x, target = m.tensor(data), m.tensor(onehot)
    linear = F.linear if m is torch else m.linear
    losses = []
    for _ in range(steps):
        logits = linear(linear(x, w1, b1).relu(), w2, b2)
        losses.append(_sgd_step(m, logits, target, (w1, b1, w2, b2), 0.5))
    return losses


def _sgd_step(m, logits, target, params, lr):
    """Cross-entropy of `logits` against one-hot `target`, its backward and
    an SGD step on `params`; returns the loss."""
    loss = -(logits.log_softmax(1) * target).sum(1).mean()
    loss.backward()
    with m.no_grad():
        for p in params:
            p -= lr * p.grad
            p.grad = None
    return loss.item()


def test_mlp_training_matches_pytorch_step_by_step():
    ours, theirs = _mlp_losses(opal), _mlp_losses(torch)
    np.testing.assert_allclose(ours, theirs, rtol=2e-5, atol=2e-6)
    assert ours[-1] < ours[0] * 0.8


def _cnn_losses(m, steps=5):
    """A small CNN (conv, batch norm in training, relu, max pooling, conv,
    relu, global mean, linear) trained with cross-entropy and SGD; the same
    numbers for opal and PyTorch."""
    rng = np.random.default_rng(6)
    images = rng.standard_normal((8, 3, 8, 8)).astype(np.float32)
    onehot = np.eye(4, dtype=np.float32)[rng.integers(0, 4, 8)]
    shapes = [(6, 3, 3, 3), (6,), (6,), (6,), (8, 6, 3, 3), (8,), (4, 8), (4,)]
    params = [m.tensor((rng.standard_normal(s) * 0.3).astype(np.float32), requires_grad=True)
              for s in shapes]
    c1, g1, b1, cb1, c2, cb2, w, b = params
    x, target = m.tensor(images), m.tensor(onehot)
    losses = []
    for _ in range(steps):
        h = _conv(m, x, c1, cb1, padding=1)
        if m is torch:
            h = F.batch_norm(h, None, None, g1, b1, True)
            h = F.max_pool2d(h.relu(), 2)
        else:
            h = m.ops.aten.batch_norm(h, g1, b1, None, None, True, 0.1, 1e-5, False)
            h = m.ops.aten.max_pool2d(h.relu(), [2, 2])
        h = _conv(m, h, c2, cb2, stride=2).relu().mean((2, 3))
        logits = (F.linear if m is torch else m.linear)(h, w, b)
        losses.append(_sgd_step(m, logits, target, params, 0.3))
    return losses


def test_cnn_training_matches_pytorch_step_by_step():
    ours, theirs = _cnn_losses(opal), _cnn_losses(torch)
    np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=1e-5)
    assert ours[-1] < ours[0]


def test_backward_formulas_are_cached_kernels():
    """A second backward of the same shapes compiles nothing."""
    def step():
        x = opal.ones(4, 5, requires_grad=True)
        (x.tanh() * x).sum().backward()
        return x.grad
    step()
    before = opal.jit.stats()["compiles"]
    step()
    assert opal.jit.stats()["compiles"] == before


# --- Gradients derived from decompositions -----------------------------------

@pytest.fixture(scope="module")
def derived_ops():
    """mish and rms_norm as a user's ops defined by traced decompositions,
    and one whose decomposition reaches an op without a derivative."""
    lib = opal.library.Library("gradlib", "DEF")
    lib.define("mish(Tensor x) -> Tensor")
    lib.define("rms_norm(Tensor x, Tensor w, float eps=1e-6) -> Tensor")
    lib.define("floored(Tensor x) -> Tensor")
    A = opal.ops.aten

    @opal.library.register_decomposition("gradlib::mish", lib=lib)
    def mish(x):
        return x * A.tanh(A.softplus(x))

    @opal.library.register_decomposition("gradlib::rms_norm", lib=lib)
    def rms_norm(x, w, eps):
        return x * A.rsqrt((x * x).mean(-1, keepdim=True) + eps) * w

    @opal.library.register_decomposition("gradlib::floored", lib=lib)
    def floored(x):
        return x * A.floor_divide(x, x + 1)

    yield opal.ops.gradlib
    lib._destroy()


def _torch_mish(x):
    return x * torch.tanh(F.softplus(x))


def _torch_rms_norm(x, w, eps=1e-6):
    return x * torch.rsqrt((x * x).mean(-1, keepdim=True) + eps) * w


def test_derived_gradients_match_pytorch(derived_ops):
    rng = np.random.default_rng(4)
    a, wv, g = rng.standard_normal((5, 8)), rng.standard_normal(8), rng.standard_normal((5, 8))
    x = opal.tensor(a, dtype=opal.float64, requires_grad=True)
    w = opal.tensor(wv, dtype=opal.float64, requires_grad=True)
    tx, tw = torch.tensor(a, requires_grad=True), torch.tensor(wv, requires_grad=True)
    y = derived_ops.rms_norm(x, w)
    # One node for the whole op, straight to the leaves.
    assert y.grad_fn.name() == "GradlibRmsNormBackward0"
    assert [fn.name() for fn, _ in y.grad_fn.next_functions] == ["AccumulateGrad"] * 2
    y.backward(opal.tensor(g, dtype=opal.float64))
    _torch_rms_norm(tx, tw).backward(torch.tensor(g))
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(w.grad.numpy(), tw.grad.numpy(), rtol=1e-10, atol=1e-12)

    x = opal.tensor(a, dtype=opal.float64, requires_grad=True)
    tx = torch.tensor(a, requires_grad=True)
    derived_ops.mish(x).backward(opal.tensor(g, dtype=opal.float64))
    _torch_mish(tx).backward(torch.tensor(g))
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_derived_gradients_pass_gradcheck(derived_ops):
    rng = np.random.default_rng(5)
    x = opal.tensor(rng.standard_normal((3, 4)), dtype=opal.float64, requires_grad=True)
    w = opal.tensor(rng.standard_normal(4), dtype=opal.float64, requires_grad=True)
    assert opal.autograd.gradcheck(lambda a: derived_ops.mish(a), [x])
    assert opal.autograd.gradcheck(lambda a, b: derived_ops.rms_norm(a, b, 0.1), [x, w])


def test_derived_backward_of_float32_calls_and_only_what_needs_it(derived_ops):
    x = opal.ones(2, 4, requires_grad=True)
    w = opal.full((4,), 2.0)
    derived_ops.rms_norm(x, w).sum().backward()
    assert x.grad.dtype == opal.float32 and w.grad is None
    expected = torch.ones(2, 4, requires_grad=True)
    _torch_rms_norm(expected, torch.full((4,), 2.0)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), expected.grad.numpy(), rtol=1e-5, atol=1e-6)


def test_a_decomposition_that_cannot_be_derived_records_op_by_op(derived_ops):
    x = opal.tensor([1.5, 2.5], requires_grad=True)
    y = derived_ops.floored(x)
    assert y.grad_fn.name() == "MulBackward0"
    with pytest.raises(RuntimeError,
                       match=r"^the derivative for 'floor_divide' is not implemented\.$"):
        y.sum().backward()
    # Without grad the op still runs fused, and records nothing.
    with opal.no_grad():
        assert derived_ops.floored(x).grad_fn is None


def test_derived_gradients_of_an_op_library_file(load_op_library):
    ops = load_op_library("filegrad", textwrap.dedent("""\
        opal.library "filegrad" {
          opal.def "filegrad::swish_scale(Tensor x, float beta) -> Tensor"
          opal.decomposition "swish_scale" {
          ^bb0(%x: !opal.tensor, %beta: f64):
            %bx = aten.mul.Scalar %x, %beta : (!opal.tensor, f64) -> !opal.tensor
            %s = aten.sigmoid %bx : (!opal.tensor) -> !opal.tensor
            %y = aten.mul.Tensor %x, %s : (!opal.tensor, !opal.tensor) -> !opal.tensor
            opal.yield %y : !opal.tensor
          }
        }
        """))
    a = np.linspace(-2, 2, 7)
    x = opal.tensor(a, dtype=opal.float64, requires_grad=True)
    y = ops.swish_scale(x, 1.5)
    assert y.grad_fn.name() == "FilegradSwishScaleBackward0"
    y.sum().backward()
    t = torch.tensor(a, requires_grad=True)
    (t * torch.sigmoid(1.5 * t)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), t.grad.numpy(), rtol=1e-10)


# --- register_autograd -------------------------------------------------------

def test_register_autograd_gives_an_opaque_op_its_backward():
    lib = opal.library.Library("ralib", "DEF")
    try:
        lib.define("cube(Tensor x, float scale) -> Tensor")
        lib.impl("cube", lambda x, s: opal.tensor(x.numpy() ** 3 * s, dtype=x.dtype), "CPU")
        seen = {}

        def setup_context(ctx, inputs, output):
            x, scale = inputs
            ctx.save_for_backward(x)
            ctx.scale = scale
            seen["needs"] = ctx.needs_input_grad

        def backward(ctx, grad):
            x, = ctx.saved_tensors
            return grad * 3 * x * x * ctx.scale, None

        opal.library.register_autograd("ralib::cube", backward, setup_context=setup_context,
                                       lib=lib)
        x = opal.tensor([1.0, 2.0, 3.0], dtype=opal.float64, requires_grad=True)
        y = opal.ops.ralib.cube(x, 2.0)
        assert y.grad_fn.name() == "RalibCubeBackward0" and seen["needs"] == (True, False)
        y.sum().backward()
        assert x.grad.tolist() == [6.0, 24.0, 54.0]
        assert opal.autograd.gradcheck(lambda a: opal.ops.ralib.cube(a, 0.5), [x])
        # Nothing records without grad, and the op runs as before.
        assert opal.ops.ralib.cube(opal.tensor([2.0]), 1.0).grad_fn is None
        with opal.no_grad():
            assert opal.ops.ralib.cube(x, 1.0).grad_fn is None
    finally:
        lib._destroy()


def test_register_autograd_errors():
    lib = opal.library.Library("ralib2", "DEF")
    try:
        lib.define("twice(Tensor x) -> Tensor")
        lib.impl("twice", lambda x: opal.tensor(x.numpy() * 2, dtype=x.dtype), "CPU")
        with pytest.raises(TypeError, match="expected backward to be a function"):
            opal.library.register_autograd("ralib2::twice", 3, lib=lib)
        opal.library.register_autograd("ralib2::twice", lambda ctx, g: (g * 2, g), lib=lib)
        x = opal.ones(2, requires_grad=True)
        with pytest.raises(RuntimeError, match=r"ralib2::twice: the backward returned 2 "
                                               r"gradients, expected 1"):
            opal.ops.ralib2.twice(x).sum().backward()
    finally:
        lib._destroy()


def test_register_autograd_takes_precedence_over_the_derived_backward():
    lib = opal.library.Library("ralib3", "DEF")
    try:
        lib.define("square(Tensor x) -> Tensor")

        @opal.library.register_decomposition("ralib3::square", lib=lib)
        def square(x):
            return x * x

        x = opal.tensor([3.0], requires_grad=True)
        assert opal.ops.ralib3.square(x).grad_fn.name() == "Ralib3SquareBackward0"
        # A deliberately different backward shows which one runs.
        opal.library.register_autograd("ralib3::square", lambda ctx, g: (g * 10,), lib=lib)
        opal.ops.ralib3.square(x).backward()
        assert x.grad.tolist() == [10.0]
    finally:
        lib._destroy()


# --- PyTorch's backward ops (Core ATen) ---------------------------------------

def _both(fn):
    """fn(module, tensor) run on opal and PyTorch, results as numpy (None
    where a result is None)."""
    def tensor(m, a):
        return m.tensor(a) if m is opal else torch.tensor(a)
    out = []
    for m in (opal, torch):
        result = fn(m, lambda a, m=m: tensor(m, a))
        result = result if isinstance(result, (tuple, list)) else (result,)
        out.append([None if r is None else r.detach().numpy() for r in result])
    return out


def _assert_same(ours, theirs):
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)


def test_native_layer_norm_backward_matches_pytorch():
    rng = np.random.default_rng(7)
    x, g, w, b = (rng.standard_normal(s) for s in [(2, 3, 4), (2, 3, 4), (4,), (4,)])

    def run(m, t):
        out, mean, rstd = m.ops.aten.native_layer_norm(t(x), [4], t(w), t(b), 1e-5)
        return m.ops.aten.native_layer_norm_backward(t(g), t(x), [4], mean, rstd, t(w), t(b),
                                                     [True, True, True])
    _assert_same(*_both(run))

    def masked(m, t):
        out, mean, rstd = m.ops.aten.native_layer_norm(t(x), [4], t(w), t(b), 1e-5)
        return m.ops.aten.native_layer_norm_backward(t(g), t(x), [4], mean, rstd, t(w), t(b),
                                                     [True, False, False])
    _assert_same(*_both(masked))


def test_convolution_backward_matches_pytorch():
    rng = np.random.default_rng(8)
    x, w = rng.standard_normal((2, 4, 7, 7)), rng.standard_normal((6, 2, 3, 3))
    g = rng.standard_normal((2, 6, 4, 4))

    def run(m, t):
        return m.ops.aten.convolution_backward(t(g), t(x), t(w), [6], [2, 2], [1, 1], [1, 1],
                                               False, [0, 0], 2, [True, True, True])
    _assert_same(*_both(run))

    def no_bias(m, t):
        return m.ops.aten.convolution_backward(t(g), t(x), t(w), None, [2, 2], [1, 1], [1, 1],
                                               False, [0, 0], 2, [False, True, False])
    _assert_same(*_both(no_bias))


@pytest.mark.parametrize("seed", range(3))
def test_convolution_gradients_match_pytorch_across_forms(seed):
    # The weight's gradient as im2col products, the input's as a flipped
    # convolution, a col2im of W^T times the gradient (strided, or small
    # planes) or a transposed convolution: random 1-3d, grouped, dilated,
    # padded, strided and transposed convolutions in float64, and an empty
    # batch (the gradients of a weight and bias with no samples are zeros).
    rng = random.Random(seed)
    cases = 0
    while cases < 12:
        rank, transposed = rng.choice([1, 2, 2, 3]), rng.random() < 0.3
        groups, cg, fg = rng.choice([1, 1, 2]), rng.choice([1, 2, 3]), rng.choice([1, 2])
        kernel = [rng.choice([1, 2, 3]) for _ in range(rank)]
        stride = [rng.choice([1, 1, 2]) for _ in range(rank)]
        dilation = [rng.choice([1, 2]) for _ in range(rank)]
        padding = [rng.choice([0, 1, 3]) for _ in range(rank)]
        out_pad = [min(rng.choice([0, 1]), max(s, d) - 1) for s, d in zip(stride, dilation)] \
            if transposed else [0] * rank
        batch = rng.choice([0, 1, 2])
        data = np.random.default_rng(cases + 100 * seed)
        x = data.standard_normal([batch, groups * cg] + [rng.choice([2, 5, 6])] * rank)
        w = data.standard_normal(([groups * cg, fg] if transposed else [groups * fg, cg]) +
                                 kernel)
        try:
            out = torch.ops.aten.convolution(torch.tensor(x), torch.tensor(w), None, stride,
                                             padding, dilation, transposed, out_pad, groups)
        except RuntimeError:
            continue  # (a size PyTorch refuses)
        g = data.standard_normal(list(out.shape))
        bias = [w.shape[1] * groups if transposed else w.shape[0]]

        def run(m, t):
            return m.ops.aten.convolution_backward(t(g), t(x), t(w), bias, stride, padding,
                                                   dilation, transposed, out_pad, groups,
                                                   [True, True, True])
        _assert_same(*_both(run))
        cases += 1


def test_embedding_and_max_pool_backward_match_pytorch():
    rng = np.random.default_rng(9)
    g = rng.standard_normal((2, 3, 5))
    idx = np.array([[1, 4, 1], [0, 4, 2]])

    def embedding(m, t):
        return m.ops.aten.embedding_dense_backward(t(g), t(idx), 6, 4, False)
    _assert_same(*_both(embedding))

    x = rng.standard_normal((1, 2, 6, 6))
    gp = rng.standard_normal((1, 2, 3, 3))

    def pool(m, t):
        out, indices = m.ops.aten.max_pool2d_with_indices(t(x), [3, 3], [2, 2], [1, 1])
        return m.ops.aten.max_pool2d_with_indices_backward(t(gp), t(x), [3, 3], [2, 2], [1, 1],
                                                           [1, 1], False, indices)
    _assert_same(*_both(pool))


def test_average_pooling_backward_ops_match_pytorch():
    rng = np.random.default_rng(10)
    x = rng.standard_normal((2, 3, 7, 6))
    cases = [([3, 2], [2, 2], [1, 1], True, False, None), ([3, 3], [], [1, 0], False, True, None),
             ([2, 2], [1, 2], [0, 1], True, True, 5)]
    for kernel, stride, padding, ceil, count_pad, divisor in cases:
        shape = F.avg_pool2d(torch.tensor(x), kernel, stride or None, padding, ceil, count_pad,
                             divisor).shape
        g = rng.standard_normal(tuple(shape))
        _assert_same(*_both(lambda m, t: m.ops.aten.avg_pool2d_backward(
            t(g), t(x), kernel, stride, padding, ceil, count_pad, divisor)))
    x5 = rng.standard_normal((2, 2, 5, 4, 6))
    g5 = rng.standard_normal((2, 2, 3, 3, 4))
    _assert_same(*_both(lambda m, t: m.ops.aten.avg_pool3d_backward(
        t(g5), t(x5), [2, 3, 2], [2, 2, 2], [1, 1, 1], True, False, None)))
    for size in ([3, 4], [7, 6], [1, 1], [5, 2]):
        g = rng.standard_normal((2, 3, *size))
        _assert_same(*_both(lambda m, t: m.ops.aten._adaptive_avg_pool2d_backward(t(g), t(x))))
    g3 = rng.standard_normal((2, 2, 2, 3, 4))
    _assert_same(*_both(lambda m, t: m.ops.aten._adaptive_avg_pool3d_backward(t(g3), t(x5))))
    # int64: each window's share truncates, as in PyTorch.
    xi = rng.integers(-9, 9, (1, 2, 5, 5))
    gi = rng.integers(-20, 20, (1, 2, 3, 3))
    ours, theirs = _both(lambda m, t: m.ops.aten.avg_pool2d_backward(
        t(gi), t(xi), [3, 3], [2, 2], [1, 1], False, True, None))
    assert ours[0].dtype == np.int64 and np.array_equal(ours[0], theirs[0])


def test_group_norm_backward_matches_pytorch():
    rng = np.random.default_rng(11)
    n, c, hxw, group = 2, 6, 12, 3
    x, w = rng.standard_normal((n, c, 3, 4)), rng.standard_normal(c)
    g = rng.standard_normal((n, c, 3, 4))
    for mask in ([True, True, True], [True, False, True], [False, True, False]):
        def run(m, t):
            out, mean, rstd = m.ops.aten.native_group_norm(t(x), t(w), None, n, c, hxw, group,
                                                           1e-5)
            return m.ops.aten.native_group_norm_backward(t(g), t(x), mean, rstd, t(w), n, c,
                                                         hxw, group, mask)
        _assert_same(*_both(run))


def test_retain_grad_keeps_a_non_leaf_gradient():
    results = []
    for m in (opal, torch):
        x = m.tensor([1.0, 2.0], requires_grad=True)
        y = x * 2
        y.retain_grad()
        z = y.exp()
        assert y.retains_grad and not x.retains_grad
        if m is opal:  # (PyTorch warns when a non-leaf's .grad is read)
            assert z.grad is None
        (z * y).sum().backward(retain_graph=True)
        first = y.grad.tolist()
        (z * y).sum().backward()
        results.append((first, y.grad.tolist(), x.grad.tolist()))
        x.retain_grad()  # a leaf keeps its .grad anyway
        assert not x.retains_grad
    np.testing.assert_allclose(np.array(results[0][0]), np.array(results[1][0]), rtol=1e-6)
    np.testing.assert_allclose(np.array(results[0][1]), np.array(results[1][1]), rtol=1e-6)
    np.testing.assert_allclose(np.array(results[0][2]), np.array(results[1][2]), rtol=1e-6)
    _same_error(lambda: opal.ones(2).retain_grad(), lambda: torch.ones(2).retain_grad())


def test_backward_into_inputs_matches_pytorch():
    """backward(inputs=...) fills the .grad of those tensors only: leaves
    and non-leaves (which then retain their gradient), in place where a
    .grad exists; an unreachable input keeps None."""
    results = {}
    for m in (opal, torch):
        x = m.ones(2, requires_grad=True)
        y = m.ones(2, requires_grad=True)
        (x * y * 3).sum().backward(inputs=[x])
        first = (x.grad.tolist(), y.grad)
        (x * y * 3).sum().backward(inputs=x)
        h = x * 2
        z = (h * y).sum()
        z.backward(inputs=[h], retain_graph=True)
        nonleaf = (h.grad.tolist(), h.retains_grad, x.grad.tolist())
        z.backward()
        held = x.grad
        (x * 5).sum().backward(inputs=[x])
        (x * 2).sum().backward(inputs=[y])
        seed = m.ones(2)
        w = m.ones(2, requires_grad=True)
        (w * 1).backward(seed, inputs=[w])
        w.grad.add_(1) if m is torch else w.grad.copy_(w.grad + 1)
        results[m.__name__] = (first, nonleaf, h.grad.tolist(), held.tolist(), x.grad.tolist(),
                               y.grad.tolist(), seed.tolist())
    assert results["opal"] == results["torch"]
    assert results["opal"][0] == ([3.0, 3.0], None)


def test_backward_into_inputs_errors():
    x = opal.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"^'inputs' argument to backward\(\) cannot be "
                                           r"empty\.$"):
        (x * 2).sum().backward(inputs=[])
    with pytest.raises(RuntimeError, match=r"^can't retain_grad on Tensor that has "
                                           r"requires_grad=False$"):
        (x * 2).sum().backward(inputs=[opal.ones(2)])
    assert x.grad is None


def _hook_story(m):
    """register_hook on leaves and non-leaves, in backward and grad;
    replacing hooks, removed hooks, and the errors."""
    out = []
    x = m.ones(3, requires_grad=True)
    seen = []
    x.register_hook(lambda g: seen.append(g.tolist()))
    (x * 2).sum().backward()
    out.append((seen[-1], x.grad.tolist()))
    handle = x.register_hook(lambda g: g * 10)
    (x * 2).sum().backward()
    out.append((seen[-1], x.grad.tolist()))
    handle.remove()
    (x * 2).sum().backward()
    out.append(x.grad.tolist())
    y = x * 3
    z = y * y
    ys = []
    y.register_hook(lambda g: ys.append(g.tolist()) or g * 0 + 1)
    z.sum().backward()
    out.append((ys, x.grad.tolist()))
    a = m.ones(2, requires_grad=True)
    b = a * 4
    b.register_hook(lambda g: g * 2)
    out.append(m.autograd.grad(b.sum(), [a])[0].tolist())
    try:
        m.ones(2).register_hook(lambda g: g)
    except RuntimeError as error:
        out.append(str(error))

    def widen(g):
        return m.ones(3)
    c = m.ones(2, requires_grad=True)
    c.register_hook(widen)
    try:
        (c * 2).sum().backward()
    except RuntimeError as error:
        out.append(str(error).splitlines()[0])
    return out


def test_register_hook_matches_pytorch():
    assert _hook_story(opal) == _hook_story(torch)
    assert _hook_story(opal)[-1] == "hook 'widen' has changed the size of value"


def test_register_hook_bad_uses():
    x = opal.ones(2, requires_grad=True)
    with pytest.raises(TypeError, match="register_hook expects a callable, got int"):
        x.register_hook(3)
    x.register_hook(lambda g: "text")
    with pytest.raises(RuntimeError, match="a gradient hook must return a Tensor or None, "
                                           "got str"):
        (x * 2).sum().backward()
    # A failed backward left the tensor usable; the handle removes once.
    y = opal.ones(2, requires_grad=True)
    handle = y.register_hook(lambda g: g * 3)
    handle.remove()
    handle.remove()
    (y * 2).sum().backward()
    assert y.grad.tolist() == [2.0, 2.0]
