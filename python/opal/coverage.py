"""PyTorch's Core ATen operator set and what opal has of it.

    python -m opal.coverage            # the table, as markdown
    python -m opal.coverage --missing  # only the ops opal lacks, with why

The list is the "Core Aten IR" table of PyTorch's torch.compiler_ir
documentation (the ops tagged `core` in native_functions.yaml, PyTorch 2.x).
For each op the table says whether opal.ops.aten defines it, what runs it
on the CPU (`mlir`: one kernel the JIT compiles from the op's MLIR
definition, for CPU and CUDA; `native`: a C++ kernel), and on which devices.
docs/coverage.md is this module's output (a test keeps it so).
"""

import argparse
import sys

CORE_ATEN = """
_adaptive_avg_pool2d _adaptive_avg_pool2d_backward _adaptive_avg_pool3d _cdist_forward
_embedding_bag _local_scalar_dense _log_softmax _native_batch_norm_legit
_native_batch_norm_legit.no_stats _native_batch_norm_legit_no_training _pdist_forward
_softmax _to_copy abs acos acosh adaptive_avg_pool1d add.Scalar add.Tensor addmm alias amax
amin any any.dim any.dims arange.start_step argmax argmin as_strided asin asinh atan atan2
atanh avg_pool1d avg_pool2d avg_pool2d_backward avg_pool3d bitwise_and.Scalar
bitwise_and.Tensor bitwise_not bitwise_or.Scalar bitwise_or.Tensor bitwise_xor.Scalar
bitwise_xor.Tensor bmm cat ceil clamp clamp.Tensor clone col2im constant_pad_nd convolution
convolution_backward copy cos cosh cumsum diagonal div.Scalar div.Scalar_mode div.Tensor
div.Tensor_mode embedding embedding_dense_backward empty.memory_format empty_strided eq.Scalar
eq.Tensor erf exp expand expm1 fill.Scalar flip floor fmod.Scalar fmod.Tensor full full_like
gather ge.Scalar ge.Tensor gelu grid_sampler_2d gt.Scalar gt.Tensor hardtanh index.Tensor
index_put index_select isinf isnan le.Scalar le.Tensor leaky_relu log log10 log1p log2
logical_and logical_not logical_or logical_xor lt.Scalar lt.Tensor masked_scatter max.dim
max_pool2d_with_indices max_pool2d_with_indices_backward max_pool3d_with_indices maximum mean
mean.dim min.dim minimum mm mul.Scalar mul.Tensor native_dropout native_group_norm
native_group_norm_backward native_layer_norm native_layer_norm_backward ne.Scalar ne.Tensor
neg nonzero permute pow.Scalar pow.Tensor_Scalar pow.Tensor_Tensor prod prod.dim_int rand randn
randperm reciprocal reflection_pad1d reflection_pad2d reflection_pad3d relu remainder.Scalar
remainder.Tensor repeat replication_pad2d replication_pad3d resize_ round rsqrt scalar_tensor
scatter.src scatter.value scatter_add scatter_reduce.two select.int select_scatter sigmoid sign
sin sinh slice.Tensor slice_scatter sort split_with_sizes sqrt squeeze.dim squeeze.dims
sub.Scalar sub.Tensor sum.dim_IntList sym_numel sym_size.int sym_storage_offset
sym_stride.int tan tanh topk trunc unsqueeze upsample_bilinear2d.vec upsample_nearest2d.vec
var.correction var.dim view where.self
""".split()

# Why an op is missing: not applicable to opal.
MISSING = {
    "_native_batch_norm_legit": "in place on its running statistics; opal defines "
                                "native_batch_norm (the same op)",
    "_native_batch_norm_legit.no_stats": "opal.torch computes it inside graphs "
                                         "(docs/pytorch.md); opal defines native_batch_norm",
    "_native_batch_norm_legit_no_training": "opal.torch runs it as native_batch_norm, which "
                                            "opal defines",
    "any.dims": "not yet: opal defines any.dim (one dim)",
    "squeeze.dims": "not yet: opal defines squeeze.dim (one dim)",
    "sym_numel": "symbolic shapes (torch.SymInt) only: opal's sizes are plain ints",
    "sym_size.int": "symbolic shapes (torch.SymInt) only: opal's sizes are plain ints",
    "sym_storage_offset": "symbolic shapes (torch.SymInt) only",
    "sym_stride.int": "symbolic shapes (torch.SymInt) only",
    "resize_": "in place on its input's storage: opal's aten ops are functional",
}

# Where native kernels run (MLIR ones compile for the CPU and for CUDA).
NATIVE_DEVICES = {
    "sort": "CPU, CUDA (sorted on the host), meta",
    "topk": "CPU, CUDA (sorted on the host), meta",
    "arange.start_step": "CPU, CUDA (filled on the host), meta",
    "nonzero": "CPU, CUDA (read on the host)",
    "_local_scalar_dense": "CPU, CUDA (read on the host)",
    "index.Tensor": "CPU, CUDA (gathered on the host), meta",
    "index_put": "CPU, CUDA (written on the host), meta",
    "randperm": "CPU, CUDA (shuffled on the host), meta",
}


# MLIR kernels whose CUDA form is serial where PyTorch's is parallel: a
# scatter's loop over its index runs in order in one GPU thread (so that
# repeated indices resolve as on the CPU), a scan runs a GPU thread per line.
CUDA_NOTES = {
    **{op: "CPU, CUDA (its loop over the index in one GPU thread, in order), meta"
       for op in ("scatter.src", "scatter.value", "scatter_add", "scatter_reduce.two",
                  "masked_scatter")},
    "cumsum": "CPU, CUDA (a GPU thread per line), meta",
}


def rows():
    """(op, status, kernel, devices) for every Core ATen op."""
    from opal import _C
    for op in CORE_ATEN:
        name = "aten::" + op
        try:
            kind = _C._cpu_kernel_kind(name)
        except RuntimeError:
            kind = None
        if kind is None or kind == "":
            yield op, "missing", "", MISSING.get(op, "not built yet")
            continue
        devices = (CUDA_NOTES.get(op, "CPU, CUDA, meta") if kind == "mlir"
                   else NATIVE_DEVICES.get(op, "CPU, CUDA, meta"))
        yield op, "yes", kind, devices


HEADER = """# PyTorch's Core ATen operators in opal

Generated by `python -m opal.coverage` (python/test/test_coverage.py keeps
this file equal to its output). `mlir`: one kernel the JIT compiles from
the op's MLIR definition; `native`: a C++ kernel (docs/op-libraries.md,
*Native kernels*). Dtypes are PyTorch's for each op (python/test/differential.py
checks float32, float64, int64, int32 and bool against PyTorch 2.15).

"""


def markdown(missing_only=False):
    lines = ["| op | in opal | kernel | devices, or why not |", "|---|---|---|---|"]
    count = have = 0
    for op, status, kind, where in rows():
        count += 1
        have += status == "yes"
        if missing_only and status == "yes":
            continue
        lines.append(f"| `{op}` | {status} | {kind} | {where} |")
    summary = f"opal defines {have} of the {count} Core ATen ops."
    return HEADER + summary + "\n\n" + "\n".join(lines) + "\n"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--missing", action="store_true", help="only the ops opal lacks")
    args = parser.parse_args(argv)
    sys.stdout.write(markdown(args.missing))
    return 0


if __name__ == "__main__":
    sys.exit(main())
