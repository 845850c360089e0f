"""Differential testing of opal's aten ops against PyTorch 1.13.

For each op, seeded random arguments built from its schema: tensors of rank
0-4 with sizes 0, 1, 2, 3 and 5 (broadcastable with each other and not),
dims in and out of range, sizes that fit and do not. opal must raise exactly
when PyTorch raises and agree with it (dtype, shape, values) otherwise.

    differential.py [--seed N] [--cases N | --seconds S] [op ...]

With --device cuda, the reference is opal itself on the CPU (which the CPU
runs check against PyTorch) and the tensors of the op under test live on
the GPU: the same raises, messages, dtypes, shapes and values.

Prints one line per disagreement and `checked N cases of M ops`; exits 1 if
any disagreed. test_differential.py runs it, one process per group of ops.
"""

import argparse
import random
import sys
import time

import numpy as np
import torch

import opal

SIZES = [0, 1, 2, 3, 5]

# Ops whose arguments need shapes that relate in other ways than
# broadcasting; the generic generator handles the rest from the schema.
MATMUL_LIKE = {"mm", "bmm", "matmul", "linear", "addmm"}


class Case:
    def __init__(self, rng, mixed=True):
        self.rng = rng
        self.mixed = mixed

    def shape(self, rank=None):
        rank = self.rng.randint(0, 4) if rank is None else rank
        return tuple(self.rng.choice(SIZES) for _ in range(rank))

    def related(self, base):
        """A shape that usually broadcasts with `base`, sometimes not."""
        roll = self.rng.random()
        if roll < 0.15:
            return self.shape()
        shape = list(base[self.rng.randint(0, len(base)):]) if roll < 0.4 else list(base)
        for i in range(len(shape)):
            if self.rng.random() < 0.25:
                shape[i] = 1
        return tuple(shape)

    def dtype(self):
        """A tensor's dtype: mostly float32, sometimes float64, int64, int32,
        uint8, int8 or bool (PyTorch's promotion and per-dtype kernels then
        apply)."""
        if not self.mixed:
            return "float32"
        roll = self.rng.random()
        return ("float32" if roll < 0.6 else "float64" if roll < 0.7 else
                "int64" if roll < 0.8 else "uint8" if roll < 0.85 else
                "int8" if roll < 0.88 else "int32" if roll < 0.92 else "bool")

    def array(self, shape, dtype="float32"):
        if dtype == "bool":
            return np.asarray(np.random.default_rng(self.rng.getrandbits(32)).random(shape) > 0.5)
        values = np.random.default_rng(self.rng.getrandbits(32)).uniform(-2, 2, shape)
        if dtype in ("int64", "int32"):
            return np.asarray(np.round(values * 3).astype(dtype))
        if dtype in ("uint8", "int8"):
            # The whole range, so that signedness and wrapping show.
            low = 0 if dtype == "uint8" else -128
            return np.asarray(np.round(low + (values + 2) * 63.75).astype(dtype))
        return np.asarray(values.astype(dtype))

    def indices(self, source, shape, op):
        """Indices into `source` along some dim: mostly in range, sometimes
        negative or too large, sometimes int32 or float (wrong dtypes)."""
        bound = max(source.shape) if isinstance(source, np.ndarray) and source.ndim else 1
        if op == "index_select":
            shape = shape[:1]
        if (op == "gather" or op.startswith("scatter")) and isinstance(source, np.ndarray) \
                and self.rng.random() < 0.7:
            shape = tuple(self.rng.randint(0, s) for s in source.shape)
        values = np.random.default_rng(self.rng.getrandbits(32)).integers(0, max(bound, 1), shape)
        if self.rng.random() < 0.1 and values.size:
            values.flat[self.rng.randrange(values.size)] = self.rng.choice([-1, bound, bound + 3])
        roll = self.rng.random()
        dtype = "int64" if roll < 0.8 else "int32" if roll < 0.9 else "float32"
        return np.asarray(values.astype(dtype))

    def tensor_list(self, op):
        """1-3 tensors for cat/stack: mostly one shape (cat: but for the
        dim joined), sometimes 1-d empty ones (cat's legacy rule), 0-d ones
        or shapes that do not fit; mixed dtypes."""
        base = self.shape(self.rng.randint(1, 3) if self.rng.random() < 0.9 else 0)
        shapes = []
        for _ in range(self.rng.randint(1, 3)):
            shape = list(base)
            roll = self.rng.random()
            if op == "cat" and shape and roll < 0.5:
                shape[self.rng.randrange(len(shape))] = self.rng.choice(SIZES)
            elif roll < 0.1:
                shape = [0]
            elif roll < 0.15:
                shape = list(self.shape())
            shapes.append(tuple(shape))
        return [self.array(shape, self.dtype()) for shape in shapes]

    def index_list(self, source):
        """index.Tensor's indices into `source`: up to its rank (sometimes one
        more), each None, a long tensor (mostly in range, broadcastable with
        the others) or a bool mask of the dims it covers."""
        rank = source.ndim
        count = self.rng.randint(0, rank + (1 if self.rng.random() < 0.1 else 0))
        shape = self.shape(self.rng.randint(0, 2))
        indices, d = [], 0
        while len(indices) < count:
            roll = self.rng.random()
            if roll < 0.25:
                indices.append(None)
                d += 1
            elif roll < 0.4 and d < rank:
                covered = self.rng.randint(1, rank - d)
                mask_shape = source.shape[d:d + covered]
                if self.rng.random() < 0.1:
                    mask_shape = self.shape(covered)
                indices.append(self.array(mask_shape, "bool"))
                d += covered
            else:
                size = source.shape[d] if d < rank else 1
                values = np.random.default_rng(self.rng.getrandbits(32)).integers(
                    -size, max(size, 1), shape if self.rng.random() < 0.9 else self.shape())
                if self.rng.random() < 0.1 and values.size:
                    values.flat[0] = size + 1
                dtype = "int64" if self.rng.random() < 0.9 else "int32"
                indices.append(np.asarray(values.astype(dtype)))
                d += 1
        return indices

    def dim(self, rank):
        return self.rng.randint(-rank - 2, rank + 1)

    def dims(self, rank):
        return [self.dim(rank) for _ in range(self.rng.randint(0, 2))]

    def sizes_like(self, shape):
        """Sizes for expand/reshape/view: the shape varied, or not."""
        shape = list(shape)
        roll = self.rng.random()
        if roll < 0.2:
            return list(self.shape())
        if roll < 0.4 and shape:
            shape[self.rng.randrange(len(shape))] = -1
        elif roll < 0.6:
            shape = [self.rng.choice(SIZES)] + shape
        elif roll < 0.7:
            shape = [int(np.prod(shape))] if shape else []
        return shape


def matmul_shapes(case, op):
    """Shapes for mm/bmm/matmul/linear that usually fit, sometimes not."""
    def inner(k):
        return k if case.rng.random() < 0.75 else case.rng.choice(SIZES)
    k = case.rng.choice(SIZES)
    if op == "mm":
        return [(case.rng.choice(SIZES), k), (inner(k), case.rng.choice(SIZES))]
    if op == "bmm":
        b = case.rng.choice(SIZES)
        return [(b, case.rng.choice(SIZES), k),
                (inner(b), inner(k), case.rng.choice(SIZES))]
    if op == "addmm":
        n, m = case.rng.choice(SIZES), case.rng.choice(SIZES)
        bias = case.rng.choice([(n, m), (m,), (1, m), (), (n, 1)])
        return [bias, (inner(n), k), (inner(k), m)]
    if op == "linear":
        out = case.rng.choice(SIZES)
        lead = case.shape(case.rng.randint(0, 2))
        return [lead + (k,), (out, inner(k)), (inner(out),)]
    left = case.shape(case.rng.randint(1, 4))
    right_rank = case.rng.randint(1, 4)
    k = left[-1]
    if right_rank == 1:
        return [left, (inner(k),)]
    batch = tuple(case.rng.choice([1, s]) for s in left[:-2])[-(right_rank - 2):] \
        if right_rank > 2 else ()
    return [left, batch + (inner(k), case.rng.choice(SIZES))]


CONV_OPS = {"conv1d": (1, False), "conv2d": (2, False), "conv3d": (3, False),
            "conv_transpose1d": (1, True), "conv_transpose2d": (2, True),
            "conv_transpose3d": (3, True)}


def conv_shapes(case, name):
    """An input [N, G*C, I...], a weight [G*F, C, K...] ([G*C, F, K...]
    transposed) with the input's channels (usually) and a bias of G*F
    (usually); sizes sometimes smaller than the kernel. Sets case.conv
    (spatial dims, transposed, groups) for the int arguments."""
    if name == "convolution":
        spatial, transposed = case.rng.choice([1, 2, 2, 3]), case.rng.random() < 0.4
    else:
        spatial, transposed = CONV_OPS[name]
    groups = case.rng.choice([1, 1, 2, 3])
    n, c, f = case.rng.choice([1, 2]), case.rng.choice([1, 2, 3]), case.rng.choice([1, 2, 3])
    sizes = [case.rng.choice([1, 2, 3, 5, 6] if spatial < 3 else [1, 2, 4])
             for _ in range(spatial)]
    kernel = [case.rng.choice([1, 2, 3]) for _ in range(spatial)]
    channels = groups * c if case.rng.random() < 0.85 else groups * c + 1
    batched = case.rng.random() < 0.9 or name == "convolution"
    weight = ((groups * c, f) if transposed else (groups * f, c)) + tuple(kernel)
    bias = groups * f if case.rng.random() < 0.9 else groups * f + 1
    case.conv = (spatial, transposed, groups)
    return [((n,) if batched else ()) + (channels,) + tuple(sizes), weight, (bias,)]


def conv_list(case, name):
    """stride, padding, dilation or output_padding: one entry per spatial
    dim (rarely one, or a wrong count)."""
    spatial, transposed, _ = case.conv
    low, high = {"stride": (1, 2), "dilation": (1, 2), "padding": (0, 2),
                 "output_padding": (0, 1)}[name]
    count = spatial if case.rng.random() < 0.9 else case.rng.choice([1, spatial + 1])
    values = [case.rng.randint(low, high) for _ in range(count)]
    if case.rng.random() < 0.03:
        values[0] = low - 1
    return values


def batch_norm_arguments(case, name):
    """input [N, C, ...] and parameters of C elements (sometimes not, or
    None). PyTorch 1.13's native_batch_norm checks nothing (it reads past
    a short weight, and dies without running statistics in evaluation
    mode, or divides by zero channels), so its calls are always well formed."""
    checked = name == "batch_norm"
    rank = case.rng.choice([2, 3, 4]) if not checked or case.rng.random() < 0.95 else 1
    shape = case.shape(rank) if checked else tuple(case.rng.choice([1, 2, 3, 5])
                                                    for _ in range(rank))
    channels = shape[1] if rank > 1 else 1
    dtype = case.dtype() if checked else case.rng.choice(["float32", "float64"])
    training = case.rng.random() < 0.5

    def parameter(stat):
        if checked and case.rng.random() < 0.2 and not (stat and not training and not checked):
            return None
        if not checked and stat and not training:
            return case.array((channels,), dtype) + (2 if stat == "var" else 0)
        if not checked:
            return case.array((channels,), dtype) if case.rng.random() < 0.8 else None
        size = channels if case.rng.random() < 0.9 else channels + 1
        values = case.array((size,), dtype if case.rng.random() < 0.95 else "float64")
        return values + 2 if stat == "var" else values
    args = [case.array(shape, dtype), parameter(None), parameter(None), parameter("mean"),
            parameter("var"), training, case.rng.choice([0.1, 0.0, 1.0]),
            case.rng.choice([1e-5, 0.5])]
    return args + [False] if checked else args


def col2im_arguments(case):
    """An [N, C*kh*kw, L] input whose L usually matches the blocks of
    output_size; now and then a wrong L, channel count or list, or an empty
    dim."""
    kernel = [case.rng.choice([1, 2, 3]), case.rng.choice([1, 2])]
    dilation = [case.rng.choice([1, 1, 2]), 1]
    padding = [case.rng.choice([0, 1]), case.rng.choice([0, 1])]
    stride = [case.rng.choice([1, 2]), case.rng.choice([1, 1, 2])]
    size = [case.rng.randint(1, 6), case.rng.randint(1, 6)]
    blocks = [(size[d] + 2 * padding[d] - dilation[d] * (kernel[d] - 1) - 1) // stride[d] + 1
              for d in range(2)]
    length = blocks[0] * blocks[1] if case.rng.random() < 0.9 else case.rng.randint(0, 5)
    planes = case.rng.choice([1, 2]) * kernel[0] * kernel[1] + (case.rng.random() < 0.05)
    shape = [case.rng.choice([0, 1, 2, 2]), planes, max(length, 0)]
    if case.rng.random() < 0.2:
        shape = shape[1:]
    lists = [size, kernel, dilation, padding, stride]
    if case.rng.random() < 0.05:
        lists[case.rng.randrange(5)] = [case.rng.choice([0, -1, 1])] * case.rng.choice([1, 2, 3])
    dtype = case.rng.choice(["float32", "float64"]) if case.rng.random() < 0.9 else case.dtype()
    return [case.array(tuple(shape), dtype)] + lists


def grid_sampler_arguments(case):
    """An [N, C, H, W] input and an [N, Ho, Wo, 2] grid of points in and
    around [-1, 1], every mode; now and then other shapes or dtypes."""
    n = case.rng.choice([0, 1, 2, 2])
    input_shape = (n, case.rng.choice([0, 1, 3]), case.rng.randint(1, 5), case.rng.randint(1, 5))
    grid_shape = (n, case.rng.randint(0, 4), case.rng.randint(1, 4), 2)
    if case.rng.random() < 0.08:
        which = case.rng.randrange(3)
        if which == 0:
            grid_shape = (n + 1,) + grid_shape[1:]
        elif which == 1:
            grid_shape = grid_shape[:3] + (case.rng.choice([1, 3]),)
        else:
            input_shape = input_shape[:2] + (0,) + input_shape[3:]
    dtype = case.rng.choice(["float32", "float32", "float64"])
    grid_dtype = dtype if case.rng.random() < 0.95 else case.dtype()
    grid = case.array(grid_shape, grid_dtype) * 0.8
    return [case.array(input_shape, dtype if case.rng.random() < 0.95 else case.dtype()), grid,
            case.rng.randint(0, 2), case.rng.randint(0, 2), case.rng.random() < 0.5]


def embedding_bag_arguments(case):
    """Offsets that start at 0 and do not decrease (PyTorch 1.13 crashes or
    computes garbage on others, and on an empty offsets list off its fast
    path), include_last_offset with the list's length last; now and then an
    index out of range, a first offset other than 0 or a last past the end
    (PyTorch's checks), per-sample weights, padding_idx."""
    rows, width = case.rng.randint(1, 6), case.rng.randint(0, 3)
    n = case.rng.randint(0, 9)
    bound = rows + (2 if case.rng.random() < 0.05 else 0)
    indices = np.array([case.rng.randrange(bound) for _ in range(n)], dtype=np.int64)
    bags = case.rng.randint(1, 4)
    offsets = sorted([0] + [case.rng.randint(0, n) for _ in range(bags - 1)])
    last = case.rng.random() < 0.3
    if last:
        offsets.append(n)
    if case.rng.random() < 0.03:
        offsets[0] = 1
    elif case.rng.random() < 0.03:
        offsets[-1] = n + 1
    mode = case.rng.choice([0, 1, 2])
    pad = case.rng.choice([-1, -1, 0, 2])
    index_dtype = case.rng.choice(["int64", "int64", "int32"])
    offset_dtype = index_dtype if case.rng.random() < 0.8 else "int64"
    dtype = case.rng.choice(["float32", "float32", "float64"])
    weights = case.array((n,), dtype) if mode == 0 and case.rng.random() < 0.3 else None
    return [case.array((rows, width), dtype), indices.astype(index_dtype),
            np.array(offsets, dtype=offset_dtype), False, mode, False, weights, last, pad]


def group_norm_arguments(case, name):
    """input [N, C, ...], groups that usually divide C, parameters of C
    elements (sometimes not, or None). native_group_norm's N, C and HxW are
    the input's (PyTorch 1.13 checks only their product)."""
    rank = case.rng.choice([2, 3, 4]) if case.rng.random() < 0.95 else 1
    shape = case.shape(rank)
    channels = shape[1] if rank > 1 else 1
    groups = [g for g in range(1, 6) if channels % g == 0] if channels else [1, 2, 3]
    group = case.rng.choice(groups) if case.rng.random() < 0.85 else case.rng.randint(0, 4)
    dtype = case.dtype()

    def parameter():
        if case.rng.random() < 0.25:
            return None
        size = channels if case.rng.random() < 0.9 else channels + 1
        return case.array((size,), dtype if case.rng.random() < 0.9 else "float64")
    eps = case.rng.choice([1e-5, 0.5])
    if name == "group_norm":
        return [case.array(shape, dtype), group, parameter(), parameter(), eps]
    if rank < 2:
        shape = (2, 2)
        channels, group = 2, 2
    return [case.array(shape, dtype), parameter(), parameter(), shape[0], channels,
            int(np.prod(shape[2:])), group, eps]


DISTANCE_OPS = ("_cdist_forward", "_pdist_forward")
POOL2D_OPS = ("max_pool2d_with_indices", "max_pool2d", "avg_pool2d")
POOL3D_OPS = ("max_pool3d_with_indices", "max_pool3d", "avg_pool3d", "_adaptive_avg_pool3d",
              "adaptive_avg_pool3d")


def pool_list(case, name, n):
    """A pooling op's kernel_size, stride, padding or dilation: one int per
    spatial dim or a single one, now and then a wrong length or value."""
    if case.rng.random() < 0.04:
        return [case.rng.choice([1, 2])] * case.rng.choice([0, n - 1, n + 1])
    if name == "stride" and case.rng.random() < 0.3:
        return []
    low, high, bad = {"kernel_size": (1, 3, [0, -1]), "stride": (1, 2, [0, -1]),
                      "padding": (0, 1, [-1, 2]), "dilation": (1, 2, [0])}[name]
    if case.rng.random() < 0.05:
        return [case.rng.choice(bad)] * (1 if case.rng.random() < 0.5 else n)
    if case.rng.random() < 0.2:
        return [case.rng.randint(low, high)]
    return [case.rng.randint(low, high) for _ in range(n)]


def arguments(case, overload):
    """Positional arguments for one call (numpy arrays for tensors)."""
    schema = overload._schema
    name = schema.name.split("::")[1]
    if name in ("batch_norm", "native_batch_norm"):
        return batch_norm_arguments(case, name)
    if name in ("group_norm", "native_group_norm"):
        return group_norm_arguments(case, name)
    if name == "col2im":
        return col2im_arguments(case)
    if name == "grid_sampler_2d":
        return grid_sampler_arguments(case)
    if name == "_embedding_bag":
        return embedding_bag_arguments(case)
    args = []
    tensors = [a for a in schema.arguments if str(a.type) in ("Tensor", "Tensor?")]
    if name in MATMUL_LIKE:
        shapes = matmul_shapes(case, name)
    elif name in CONV_OPS or name == "convolution":
        shapes = conv_shapes(case, name)
    elif name.startswith("max_pool2d") or "avg_pool2d" in name or name.startswith("upsample"):
        shapes = [tuple(case.rng.choice([1, 2, 3, 5]) for _ in range(case.rng.choice([3, 4, 4])))]
        if case.rng.random() < 0.05:
            shapes = [tuple(case.rng.choice([0, 1, 3]) for _ in range(case.rng.choice([2, 4, 5])))]
    elif name in POOL3D_OPS:
        shapes = [tuple(case.rng.choice([1, 2, 3, 4]) for _ in range(case.rng.choice([4, 5, 5])))]
        if case.rng.random() < 0.05:
            shapes = [tuple(case.rng.choice([0, 1, 3]) for _ in range(case.rng.choice([3, 4, 5])))]
    elif name in DISTANCE_OPS:
        # Rows of M columns (batch dims that broadcast), now and then other
        # ranks, column counts or more than 25 rows (PyTorch's matrix
        # product form).
        m = case.rng.choice([0, 1, 3, 4])
        batch = tuple(case.rng.choice([1, 2]) for _ in range(case.rng.choice([0, 0, 1, 2])))
        rows = lambda: case.rng.choice([0, 1, 2, 5, 30]) if case.rng.random() < 0.3 else \
            case.rng.choice([1, 2, 3, 4])
        shapes = [batch + (rows(), m), batch[case.rng.randint(0, len(batch)):] + (rows(), m)]
        if name == "_pdist_forward":
            shapes = [(rows(), m)]
        if case.rng.random() < 0.08:
            shapes[case.rng.randint(0, len(shapes) - 1)] = case.shape(case.rng.choice([0, 1, 2, 3]))
    elif "pool1d" in name:
        shapes = [tuple(case.rng.choice([0, 1, 2, 3, 5, 8])
                        for _ in range(case.rng.choice([1, 2, 3, 3])))]
    else:
        base = case.shape()
        shapes = [base] + [case.related(base) for _ in tensors[1:]]
    shapes_iter = iter(shapes)
    first = None
    for arg in schema.arguments:
        kind = str(arg.type)
        if kind in ("Tensor", "Tensor?"):
            if kind == "Tensor?" and case.rng.random() < 0.3:
                args.append(None)
                next(shapes_iter, None)
                continue
            shape = next(shapes_iter, None) or case.shape()
            if name in ("layer_norm", "native_layer_norm") and first is not None:
                shape = args[1] if case.rng.random() < 0.7 else case.shape(len(args[1]))
                shape = tuple(shape)
            if arg.name in ("index", "indices"):
                args.append(case.indices(args[0] if args else None, shape, name))
                continue
            wants_bool = (name == "where" and arg.name == "condition") or arg.name == "mask"
            dtype = "bool" if wants_bool and case.rng.random() < 0.9 else case.dtype()
            if name == "index_put" and arg.name == "values":
                shape = () if case.rng.random() < 0.6 else shape
                dtype = first.dtype.name if case.rng.random() < 0.9 else dtype
            if name.startswith("scatter") and arg.name == "src":
                shape = first.shape if case.rng.random() < 0.8 else shape
                dtype = first.dtype.name if case.rng.random() < 0.9 else dtype
            value = case.array(shape, dtype)
            if first is None:
                first = value
            args.append(value)
        elif arg.name == "include_self":
            args.append(Keyword("include_self", case.rng.random() < 0.6))
            continue
        elif kind == "str" and arg.name == "reduce":
            args.append(case.rng.choice(["sum", "prod", "mean", "amax", "amin", "sum", "bad"]))
        elif arg.has_default_value and (arg.kwarg_only or case.rng.random() < 0.3):
            if arg.kwarg_only:
                args.append(SKIP)  # its default
                continue
            break
        elif kind == "int[1]" and "pool1d" in name:
            # kernel_size, stride, padding, output_size: one int (rarely
            # two, or none for stride).
            if arg.name == "stride" and case.rng.random() < 0.3:
                args.append([])
            elif case.rng.random() < 0.05:
                args.append([2, 1])
            else:
                low = 0 if arg.name in ("padding", "output_size") else 1
                args.append([case.rng.randint(low, 3)])
        elif (name in CONV_OPS or name == "convolution") and arg.name in (
                "stride", "padding", "dilation", "output_padding"):
            args.append(conv_list(case, arg.name))
        elif (name in CONV_OPS or name == "convolution") and arg.name == "groups":
            args.append(case.conv[2] if case.rng.random() < 0.95 else case.rng.choice([0, 4]))
        elif name == "convolution" and arg.name == "transposed":
            args.append(case.conv[1])
        elif kind in ("int[2]", "int[3]") and name in POOL2D_OPS + POOL3D_OPS \
                and arg.name != "output_size":
            args.append(pool_list(case, arg.name, int(kind[4])))
        elif kind in ("int[3]", "SymInt[3]") and arg.name == "output_size":
            size = [case.rng.randint(0, 3) for _ in range(3)]
            args.append(size if case.rng.random() < 0.9 else size[:2] or [-1, 2, 2])
        elif kind == "int[2]" and arg.name == "kernel_size":
            args.append([case.rng.choice([1, 2, 3]), case.rng.choice([1, 2, 3])])
        elif kind == "int[2]" and arg.name == "stride":
            args.append([] if case.rng.random() < 0.4 else
                        [case.rng.choice([1, 2]), case.rng.choice([1, 2])])
        elif kind in ("int[2]", "int[4]", "int[6]") and name.endswith(("pad1d", "pad2d", "pad3d")):
            count = int(kind[4]) if case.rng.random() < 0.95 else int(kind[4]) - 1
            args.append([case.rng.randint(-1, 3) for _ in range(count)])
        elif kind == "int[2]" and arg.name == "padding":
            args.append([case.rng.choice([0, 1]), case.rng.choice([0, 1])])
        elif kind == "int[2]" and arg.name == "dilation":
            args.append([case.rng.choice([1, 1, 2]), case.rng.choice([1, 2])])
        elif kind == "bool" and arg.name == "ceil_mode":
            args.append(case.rng.random() < 0.5)
        elif kind == "SymInt[]?" and arg.name == "output_size":
            vec_sizes = case.rng.random() < 0.5
            args.append([case.rng.randint(0, 6), case.rng.randint(1, 6)] if vec_sizes else None)
        elif kind == "float[]?" and arg.name == "scale_factors":
            sizes = args[1]  # output_size
            given = sizes is None if case.rng.random() < 0.9 else case.rng.random() < 0.5
            args.append([case.rng.choice([0.5, 1.0, 1.7, 2.0, 2.5, -1.0]) for _ in range(2)]
                        if given else None)
        elif kind == "float?" and arg.name.startswith("scales_"):
            # Scales that contradict output_size take different paths in
            # PyTorch 1.13's kernels (one plane: size == input or twice it
            # ignores the scale; several: not): only None and non-positive
            # ones (which mean "none") are compared.
            args.append(case.rng.choice([None, None, -1.0, 0.0]))
        elif kind == "SymInt[2]" and arg.name == "output_size":
            size = [case.rng.randint(0, 4), case.rng.randint(0, 4)]
            args.append(size if case.rng.random() < 0.9 else size[:1] or [-1, 2])
        elif kind == "int" and arg.name == "groups":
            args.append(1)
        elif kind == "bool" and arg.name == "transposed":
            args.append(False)
        elif kind == "Tensor?[]" and arg.name == "indices":
            args.append(case.index_list(first))
            continue
        elif kind == "Tensor[]":
            args.append(case.tensor_list(name))
            first = args[-1][0]
            continue
        elif kind in ("int", "SymInt") and arg.name == "index":
            args.append(case.rng.randint(-6, 6))
        elif kind in ("int", "SymInt?", "SymInt") and arg.name in ("start", "end"):
            args.append(None if "?" in kind and case.rng.random() < 0.3
                        else case.rng.randint(-7, 7))
        elif kind == "SymInt" and arg.name == "step":
            args.append(case.rng.choice([1, 1, 2, 3, 0, -1]))
        elif kind == "int" and arg.name == "length":
            args.append(case.rng.randint(-1, 5))
        elif kind == "int" and arg.name in ("split_size", "chunks"):
            args.append(case.rng.randint(-1, 4))
        elif kind == "int[]" and arg.name == "split_sizes":
            size = first.shape[0] if first is not None and first.ndim else 0
            sizes = []
            while sum(sizes) < size:
                sizes.append(case.rng.randint(0, size - sum(sizes)))
            if case.rng.random() < 0.2:
                sizes.append(case.rng.choice([-1, 1, 2]))
            args.append(sizes)
        elif arg.name == "repeats":
            rank = first.ndim if first is not None else 0
            count = max(0, rank + case.rng.choice([0, 0, 1, 2, -1]))
            args.append([case.rng.choice([0, 1, 2, 3, 1, 2, -1]) for _ in range(count)])
        elif kind == "int[]" and arg.name == "pad":
            rank = first.ndim if first is not None else 0
            pairs = case.rng.randint(0, rank + (1 if case.rng.random() < 0.1 else 0))
            pad = [case.rng.randint(-2, 2) for _ in range(2 * pairs)]
            if case.rng.random() < 0.05:
                pad.append(1)
            args.append(pad)
        elif kind == "int" and arg.name == "k":
            size = first.shape[-1] if first is not None and first.ndim else 1
            args.append(case.rng.randint(-1, size + 1))
        elif kind == "int" and arg.name == "diagonal":
            args.append(case.rng.randint(-3, 3))
        elif kind == "int" and name == "randperm":
            args.append(case.rng.choice([-1, 0, 1, 5, 40]))
        elif kind == "int":
            args.append(case.dim(first.ndim if first is not None else 0))
        elif kind == "int?" and case.rng.random() < 0.3:
            args.append(None)
        elif kind == "int?" and arg.name == "correction":
            args.append(case.rng.randint(0, 2))
        elif kind == "int?":
            args.append(case.dim(first.ndim if first is not None else 0))
        elif kind in ("int[]", "int[1]", "int[1]?", "SymInt[]", "int[]?"):
            rank = first.ndim if first is not None else 0
            if arg.name in ("stride", "dilation"):
                args.append([case.rng.choice([1, 1, 2]), case.rng.choice([1, 1, 2])])
            elif arg.name == "padding":
                args.append([case.rng.choice([0, 0, 1, 2]), case.rng.choice([0, 1])])
            elif arg.name == "output_padding":
                args.append([0, 0])
            elif arg.name in ("size",) and first is None:
                # A factory's size: sometimes with a negative entry.
                size = list(case.shape())
                if size and case.rng.random() < 0.1:
                    size[case.rng.randrange(len(size))] = -1
                args.append(size)
            elif arg.name in ("size",):
                args.append(case.sizes_like(first.shape))
            elif arg.name == "dims":
                perm = list(range(rank))
                case.rng.shuffle(perm)
                if case.rng.random() < 0.2:
                    perm = case.dims(rank)
                args.append(perm)
            elif arg.name == "normalized_shape":
                k = case.rng.randint(0, rank)
                shape = list(first.shape[rank - k:])
                if case.rng.random() < 0.2:
                    shape = list(case.shape(case.rng.randint(0, 2)))
                args.append(shape)
            else:
                args.append(case.dims(rank))
        elif kind == "float" and arg.name == "p" and name in DISTANCE_OPS:
            args.append(case.rng.choice([0.0, 1.0, 2.0, 2.0, 3.5, 0.5, float("inf"), -1.0]))
        elif kind == "int?" and arg.name == "compute_mode":
            args.append(case.rng.choice([None, None, 0, 1, 2, 3]))
        elif kind == "float" and arg.name == "p":
            args.append(case.rng.choice([-0.5, 0.0, 0.25, 0.5, 1.0, 1.5, float("nan")]))
        elif kind == "float":
            args.append(case.rng.choice([-1.5, 0.0, 0.5, 2.0, 3.0]))
        elif kind == "bool?":
            args.append(case.rng.choice([None, True, False]))
        elif kind == "Scalar":
            # Python ints and floats promote differently. (Not bools:
            # PyTorch 1.13's torch.ops reads a bool Scalar as an int, unlike
            # its public API; test_aten_dtypes.py checks bools against that.)
            args.append(case.rng.choice([-1.5, 0.0, 0.5, 2.0, 3.0, 2, -1, 0]))
        elif kind == "bool":
            args.append(case.rng.random() < 0.5)
        else:
            break  # optional dtypes, layouts, devices, strings: their defaults
    # Keyword-only arguments go by name.
    return [Keyword(a.name, v) if a.kwarg_only and not isinstance(v, Keyword) else v
            for a, v in zip(schema.arguments, args) if v is not SKIP]


SKIP = object()


class Keyword:
    """A keyword-only argument's value."""
    def __init__(self, name, value):
        self.name, self.value = name, value

    def __repr__(self):
        return f"{self.name}={self.value!r}"


def convert(values, to):
    return [Keyword(v.name, to(v.value)) if isinstance(v, Keyword) else to(v) for v in values]


def is_tensor_list(value):
    return (isinstance(value, list) and value and
            all(v is None or isinstance(v, np.ndarray) for v in value) and
            any(isinstance(v, np.ndarray) for v in value))


def to_torch(value):
    if value is None:
        return None
    if is_tensor_list(value):
        return [to_torch(v) for v in value]
    return torch.from_numpy(value.copy()) if isinstance(value, np.ndarray) else value


def to_opal(value, device="cpu"):
    if is_tensor_list(value):
        return [None if v is None else to_opal(v, device) for v in value]
    return opal.tensor(value, device=device) if isinstance(value, np.ndarray) else value


def results_as(fn, convert):
    """`fn` with each opal tensor it returns passed through `convert`."""
    def each(value):
        if isinstance(value, (tuple, list)):
            return type(value)(each(v) for v in value)
        return convert(value) if isinstance(value, opal.Tensor) else value
    return lambda *args, **kwargs: each(fn(*args, **kwargs))


def call(fn, args):
    positional = [v for v in args if not isinstance(v, Keyword)]
    keywords = {v.name: v.value for v in args if isinstance(v, Keyword)}
    try:
        return fn(*positional, **keywords), None
    except (RuntimeError, IndexError, ValueError, TypeError) as error:
        return None, f"{type(error).__name__}: {str(error).splitlines()[0][:160]}"


def closer_to_exact(theirs, values, got, problem):
    """A float32 result that differs from PyTorch's may be the more exact
    one (PyTorch's layer_norm of one element is off by its rounding of the
    mean): it agrees if it is within tolerance of PyTorch computing in
    float64."""
    widened = convert(values, lambda v: torch.from_numpy(v.astype(np.float64))
                      if isinstance(v, np.ndarray) and v.dtype == np.float32 else to_torch(v))
    exact, error = call(theirs, widened)
    if error:
        return problem
    ours = got if isinstance(got, (tuple, list)) else [got]
    exact = exact if isinstance(exact, (tuple, list)) else [exact]
    for o, e in zip(ours, exact):
        o, e = np.asarray(o), e.numpy()
        if o.dtype != np.float32 or not np.allclose(o, e, rtol=1e-4, atol=1e-5, equal_nan=True):
            return problem
    return None


def pytorch_bug(name, values, their_error):
    """Cases where PyTorch 1.13 raises by mistake (opal computes the result):
    logsumexp over no dims (all of them) cannot write its 0-d result into
    the output it made for a non-empty input without keepdim; index and
    index_put by Nones only fail an internal assertion (opal raises for a
    non-empty tensor and returns an empty one as it is)."""
    if name in ("index.Tensor", "index_put") and their_error and (
            "called on an undefined Tensor" in their_error or "INTERNAL ASSERT" in their_error):
        return True  # indexed by Nones only: an internal error, an empty tensor or not
    return (name == "logsumexp" and their_error and "doesn't match the broadcast shape" in
            their_error and list(values[1]) == [])


def opal_stricter(error):
    """Checks opal makes on every call that PyTorch 1.13 makes only on some
    of its backends' paths, or not at all: a convolution's bias must have
    the input's dtype; _local_scalar_dense of an empty tensor (PyTorch reads
    past its end) raises; reflection_pad takes exactly two pads per dim
    (PyTorch 1.13's reads past a shorter list); index.Tensor refuses an
    index past the dims a mask covered; masked_scatter refuses masks other
    than bool and uint8 (PyTorch 1.13 reads their bytes as bools); dropout checks its input's dtype
    also where PyTorch returns the input unchanged (p = 0, or an empty
    input)."""
    return ("and bias type" in error or "0 elements cannot be converted to Scalar" in error or
            "padding size is expected to be" in error or "after its masks" in error or
            "can't be cast to the desired output type" in error or
            "only supports boolean masks" in error or "opal takes a 2-d input" in error)


def dtype_error_on_empty(error, values):
    """PyTorch 1.13 checks dtypes in its kernels, which it does not run when
    a tensor is empty: `mm` of int64 and float32 operands, softmax of an
    int64 tensor, or gather with an empty float index succeed then. opal
    checks dtypes and sizes on every call (a documented difference); such a
    case agrees."""
    values = [v.value if isinstance(v, Keyword) else v for v in values]
    empty = any(isinstance(v, np.ndarray) and v.size == 0 for v in values)
    return empty and ("not implemented for" in error or "expected scalar type" in error or
                      "must have the same dtype" in error or "Expected dtype" in error or
                      "Size does not match" in error or "same number of dimensions" in error or
                      "to be smaller than self" in error)


def empty_batch_norm(name, values):
    """PyTorch 1.13's batch_norm skips its checks on an empty input (and
    multiplies by weight[0], raising for an empty weight); opal checks the
    parameters on every call (a documented difference)."""
    return name == "batch_norm" and values[0].size == 0


def describe(args):
    def one(v):
        if isinstance(v, Keyword):
            return f"{v.name}={one(v.value)}"
        if is_tensor_list(v):
            return "[" + ", ".join("None" if t is None else one(t) for t in v) + "]"
        return f"{v.dtype}{list(v.shape)}" if isinstance(v, np.ndarray) else repr(v)
    return ", ".join(one(v) for v in args)


# Ops whose values PyTorch leaves unspecified: only dtype and shape compare.
UNSPECIFIED_VALUES = {"empty_like", "empty.memory_format", "empty_strided",
                      # Random: opal's generator is not PyTorch's (test_aten_random.py
                      # checks the values against Philox).
                      "rand", "randn", "rand_like", "randn_like", "bernoulli", "bernoulli.p",
                      "native_dropout", "dropout", "randperm"}


def values_specified(name, values):
    """Whether PyTorch's result values are defined: not empty_like's, nor
    index_select's of a 0-d tensor with no indices (left uninitialized)."""
    if name in UNSPECIFIED_VALUES:
        return False
    if name == "index_select" and len(values) == 3 and isinstance(values[0], np.ndarray):
        return not (values[0].ndim == 0 and getattr(values[2], "size", 1) == 0)
    return True


def compare(ours, theirs, values_matter=True):
    """Why two results differ, or None."""
    if isinstance(theirs, (tuple, list)):
        if len(ours) != len(theirs):
            return f"{len(ours)} results, PyTorch {len(theirs)}"
        for o, t in zip(ours, theirs):
            if (problem := compare(o, t, values_matter)):
                return problem
        return None
    if isinstance(theirs, (bool, int, float)):  # a Python number (_local_scalar_dense)
        if type(ours) is not type(theirs):
            return f"{type(ours).__name__} {ours!r}, PyTorch {type(theirs).__name__} {theirs!r}"
        same = ours == theirs or (ours != ours and theirs != theirs)
        return None if same or (isinstance(ours, float) and abs(ours - theirs) <= 1e-6 *
                                max(1.0, abs(theirs))) else f"{ours!r}, PyTorch {theirs!r}"
    got = np.asarray(ours)
    want = theirs.numpy()
    if got.shape != want.shape:
        return f"shape {got.shape}, PyTorch {want.shape}"
    if got.dtype != want.dtype:
        return f"dtype {got.dtype}, PyTorch {want.dtype}"
    if not values_matter:
        return None
    if want.dtype == np.bool_ or np.issubdtype(want.dtype, np.integer):
        return None if np.array_equal(got, want) else "values differ"
    if got.dtype == np.float64:
        tolerance = dict(rtol=1e-10, atol=1e-12)
    else:
        tolerance = dict(rtol=1e-4, atol=1e-5)
    if got.dtype == np.float32:
        # PyTorch's vectorized cosh and sinh overflow to inf from |x| ~ 88.7,
        # where the value (up to 3.4e38 at 89.4) still fits float32.
        overflowed = np.isinf(want) & (np.abs(got) > 1e38) & (np.sign(got) == np.sign(want))
        got = np.where(overflowed, want, got)
    if not np.allclose(got, want, equal_nan=True, **tolerance):
        return f"values differ (max error {np.nanmax(np.abs(got - want))})"
    return None


def compare_topk(ours, theirs, values):
    """topk's values must be PyTorch's (in any order with sorted=False);
    which of equal values' indices it returns is open, so the indices must
    point at the values."""
    dim = values[2] if len(values) > 2 and not isinstance(values[2], Keyword) else -1
    if len(values) > 4 and values[4] is False and theirs[0].dim():
        ordered = theirs[0].sort(dim)[0].numpy()
        if (problem := compare(np.sort(np.asarray(ours[0]), axis=dim), torch.from_numpy(ordered))):
            return problem
    elif (problem := compare(ours[0], theirs[0])):
        return problem
    if (problem := compare(ours[1], theirs[1], values_matter=False)):
        return problem
    source = torch.from_numpy(values[0].copy())
    indices = torch.from_numpy(np.asarray(ours[1]))
    picked = source.gather(dim, indices) if source.dim() else source.reshape(indices.shape)
    return compare(picked.numpy(), torch.from_numpy(np.asarray(ours[0])))


def overloads(names):
    for name in names:
        packet_name, _, overload_name = name.partition(".")
        yield (name, getattr(getattr(opal.ops.aten, packet_name), overload_name or "default"),
               getattr(getattr(torch.ops.aten, packet_name), overload_name or "default"))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--cases", type=int, default=20, help="cases per op")
    parser.add_argument("--seconds", type=float, default=0,
                        help="run each op this long instead of --cases")
    parser.add_argument("--float32-only", action="store_true",
                        help="only float32 tensors (else also float64, int64, int32, bool)")
    parser.add_argument("--device", help="run opal on this device (cuda) against opal on the CPU")
    parser.add_argument("ops", nargs="+")
    args = parser.parse_args()
    torch.set_num_threads(1)
    disagreements = checked = 0
    device = args.device
    for name, overload, theirs in overloads(args.ops):
        ours, to_ours, to_theirs = overload, to_opal, to_torch
        if device:
            theirs = results_as(overload, lambda t: torch.from_numpy(np.array(t.numpy())))
            ours = results_as(overload, lambda t: t.cpu())
            to_ours, to_theirs = (lambda v: to_opal(v, device)), to_opal
        rng = random.Random(f"{args.seed}:{name}")
        start = time.monotonic()
        n = 0
        while (time.monotonic() - start < args.seconds) if args.seconds else n < args.cases:
            n += 1
            values = arguments(Case(rng, mixed=not args.float32_only), overload)
            want, their_error = call(theirs, convert(values, to_theirs))
            got, our_error = call(ours, convert(values, to_ours))
            if device and (their_error or our_error):
                problem = None if their_error == our_error else \
                    f"on {device}: {our_error or 'no error'}; on cpu: {their_error or 'no error'}"
            elif (their_error or our_error) and empty_batch_norm(name, values):
                problem = None
            elif their_error and not our_error:
                problem = None if pytorch_bug(name, values, their_error) else \
                    f"PyTorch raises ({their_error}), opal does not"
            elif our_error and not their_error:
                problem = None if dtype_error_on_empty(our_error, values) or \
                    opal_stricter(our_error) else \
                    f"opal raises ({our_error}), PyTorch does not"
            elif our_error:
                problem = None
            elif name == "topk":
                problem = compare_topk(got, want, values)
            elif name == "native_dropout" and values[0].size == 0:
                # PyTorch 1.13's mask of an empty input has the input's
                # dtype; opal's is always bool (as PyTorch's otherwise).
                problem = compare(got[0], want[0], False)
            else:
                problem = compare(got, want, values_specified(name, values))
                if problem and problem.startswith("values differ") and not device:
                    problem = closer_to_exact(theirs, values, got, problem)
            if problem:
                disagreements += 1
                print(f"aten::{name}({describe(values)}): {problem}", flush=True)
        checked += n
    print(f"checked {checked} cases of {len(args.ops)} ops, {disagreements} disagreements")
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
