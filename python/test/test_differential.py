"""opal's aten ops against PyTorch 1.13 on seeded random shapes
(differential.py): raise exactly when PyTorch raises, agree otherwise.

Each group of ops runs in its own process, so that a crash fails its group
instead of the whole run. OPAL_FUZZ_SECONDS=N runs each op N seconds instead
of a fixed number of cases; OPAL_FUZZ_SEED picks other cases.
OPAL_TEST_DEVICE=cuda runs opal on the GPU against opal on the CPU instead
(test_cuda.py does so on a machine with a GPU).
"""

import glob
import os
import re
import subprocess
import sys

import pytest


pytest.importorskip("torch", reason="PyTorch 1.13 is the behavioural reference")

HERE = os.path.dirname(os.path.abspath(__file__))
GROUPS = {
    "binary": "add.Tensor add.Scalar sub.Tensor sub.Scalar mul.Tensor mul.Scalar div.Tensor "
              "div.Scalar pow.Tensor_Tensor pow.Tensor_Scalar pow.Scalar maximum minimum "
              "rsub.Scalar "
              "where.self",
    "compare": "eq.Tensor eq.Scalar ne.Tensor ne.Scalar lt.Tensor lt.Scalar le.Tensor "
               "le.Scalar gt.Tensor gt.Scalar ge.Tensor ge.Scalar",
    "unary": "neg abs exp log log1p sqrt rsqrt sin cos tanh erf relu sigmoid silu softplus "
             "leaky_relu hardtanh clamp_min clamp_max clamp reciprocal square gelu",
    "reduce": "sum sum.dim_IntList mean mean.dim amax amin softmax.int log_softmax.int layer_norm "
              "native_layer_norm _softmax _log_softmax",
    "reduce2": "prod prod.dim_int any any.dim all all.dim var.correction var.dim var std.correction "
               "std.dim std logsumexp max min argmax argmin max.dim min.dim cumsum",
    "nn": "addmm masked_fill.Scalar masked_fill.Tensor tril triu",
    "norms": "batch_norm native_batch_norm group_norm native_group_norm",
    # Shapes, dtypes and errors (opal's generator is not PyTorch's).
    "random": "rand randn rand_like randn_like bernoulli bernoulli.p native_dropout dropout "
              "randperm",
    "indexing": "gather index_select embedding nonzero _local_scalar_dense index.Tensor index_put "
                "scatter.src "
                "scatter.value scatter_add scatter_reduce.two masked_scatter",
    "movement": "slice.Tensor select.int narrow alias split.Tensor split_with_sizes chunk "
                "unbind.int cat stack flip constant_pad_nd sort sort.stable topk copy repeat "
                "as_strided diagonal slice_scatter select_scatter reflection_pad1d "
                "reflection_pad2d reflection_pad3d replication_pad1d replication_pad2d "
                "replication_pad3d",
    "distance": "_cdist_forward _pdist_forward",
    "spatial": "col2im grid_sampler_2d _embedding_bag",
    "conv": "conv1d conv2d conv3d conv_transpose1d conv_transpose2d.input conv_transpose3d.input "
            "convolution",
    "pool": "max_pool2d_with_indices max_pool2d avg_pool2d "
            "adaptive_avg_pool2d _adaptive_avg_pool2d upsample_nearest2d upsample_nearest2d.vec "
            "avg_pool1d adaptive_avg_pool1d max_pool3d_with_indices max_pool3d avg_pool3d "
            "_adaptive_avg_pool3d adaptive_avg_pool3d upsample_bilinear2d upsample_bilinear2d.vec",
    "shape": "transpose.int t permute unsqueeze squeeze.dim expand reshape view zeros_like "
             "ones_like full_like",
    "matmul": "mm bmm matmul linear",
    "math": "ceil floor round trunc sign expm1 log2 log10 tan asin acos atan sinh cosh asinh "
            "acosh atanh atan2 isnan isinf elu hardsigmoid hardswish",
    "division": "fmod.Tensor fmod.Scalar remainder.Tensor remainder.Scalar floor_divide "
                "floor_divide.Scalar div.Tensor_mode div.Scalar_mode",
    "logical": "logical_and logical_or logical_xor logical_not clamp.Tensor max.other min.other",
    "factories": "full zeros ones scalar_tensor new_zeros new_ones new_full empty_like clone "
                 "_to_copy arange arange.start arange.start_step empty.memory_format "
                 "empty_strided fill.Scalar fill.Tensor",
    "bitwise": "bitwise_and.Tensor bitwise_and.Scalar bitwise_or.Tensor bitwise_or.Scalar "
               "bitwise_xor.Tensor bitwise_xor.Scalar bitwise_not",
}


def test_every_aten_op_is_in_a_group():
    listed = {op for ops in GROUPS.values() for op in ops.split()}
    defined = set()
    for path in glob.glob(os.path.join(HERE, "..", "..", "lib", "Library", "aten*.opal.mlir")):
        # PyTorch's backward ops take a forward's results: test_autograd.py
        # and test_aten_pooling.py compare each with PyTorch on them.
        if path.endswith(("aten-backward.opal.mlir", "aten-pool-backward.opal.mlir")):
            continue
        defined |= {m.group(1) for m in re.finditer(r'opal\.def "([^"(]+)\(', open(path).read())}
    assert listed == defined


@pytest.mark.parametrize("group", sorted(GROUPS))
def test_ops_agree_with_pytorch(group):
    command = [sys.executable, os.path.join(HERE, "differential.py"),
               "--seed", os.environ.get("OPAL_FUZZ_SEED", "0")]
    if os.environ.get("OPAL_FUZZ_SECONDS"):
        command += ["--seconds", os.environ["OPAL_FUZZ_SECONDS"]]
    else:
        command += ["--cases", "25"]
    if os.environ.get("OPAL_TEST_DEVICE", "cpu") != "cpu":
        command += ["--device", os.environ["OPAL_TEST_DEVICE"]]
    result = subprocess.run(command + GROUPS[group].split(), capture_output=True, text=True,
                            timeout=1800)
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-3000:]
    assert ", 0 disagreements" in result.stdout
