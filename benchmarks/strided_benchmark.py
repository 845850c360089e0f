"""Non-contiguous inputs against PyTorch. A transposed 2048x2048 float32
matrix made contiguous, copied into an existing tensor, and fed to gelu and
add (the JIT copies a transpose before the kernel reads it, with the
runtime's tiled copy); then views whose rows are dense or nearly so, which
CPU kernels read in place through their strides: a column slice (gelu,
a row sum), every other column (neg) and a row expanded over 2048 rows
(add). "copy first" rows time opal with the view made contiguous by hand
before the same op, what opal did before it read views in place. opal and
PyTorch 1.13 at the same thread count, interleaved round by round in one
process (benchmarks/interleaved.py), sharing the input memory.

    PYTHONPATH=build/python ~/.cache/opal-venv/bin/python benchmarks/strided_benchmark.py [--threads N]
"""

import numpy as np
import torch

import opal
from interleaved import main

A = opal.ops.aten


def cases():
    a = np.random.default_rng(0).standard_normal((2048, 2048)).astype(np.float32)
    o, t = opal.from_numpy(a).t(), torch.from_numpy(a).t()
    out_o, out_t = opal.empty([2048, 2048]), torch.empty(2048, 2048)
    np.testing.assert_allclose(o.contiguous().numpy(), t.contiguous().numpy())
    base_o, base_t = opal.from_numpy(a), torch.from_numpy(a)
    cols_o, cols_t = base_o[:, :1536], base_t[:, :1536]
    every_o, every_t = base_o[:, ::2], base_t[:, ::2]
    row_o, row_t = base_o[:1].expand(2048, 2048), base_t[:1].expand(2048, 2048)
    np.testing.assert_allclose(A.gelu(cols_o).numpy(),
                               torch.nn.functional.gelu(cols_t).numpy(), rtol=1e-5, atol=1e-6)
    return [(".contiguous()", lambda: o.contiguous(), lambda: t.contiguous()),
            ("copy_ into a contiguous", lambda: out_o.copy_(o), lambda: out_t.copy_(t)),
            ("gelu", lambda: A.gelu(o), lambda: torch.nn.functional.gelu(t)),
            ("add (transposed + contig)", lambda: A.add(o, out_o), lambda: torch.add(t, out_t)),
            ("gelu [:, :1536]", lambda: A.gelu(cols_o), lambda: torch.nn.functional.gelu(cols_t)),
            ("  copy first", lambda: A.gelu(cols_o.contiguous()),
             lambda: torch.nn.functional.gelu(cols_t)),
            ("sum(1) [:, :1536]", lambda: A.sum(cols_o, [1]), lambda: torch.sum(cols_t, [1])),
            ("  copy first", lambda: A.sum(cols_o.contiguous(), [1]),
             lambda: torch.sum(cols_t, [1])),
            ("neg [:, ::2]", lambda: A.neg(every_o), lambda: torch.neg(every_t)),
            ("  copy first", lambda: A.neg(every_o.contiguous()), lambda: torch.neg(every_t)),
            ("add (expanded row + contig)", lambda: A.add(row_o, base_o),
             lambda: torch.add(row_t, base_t)),
            ("  copy first", lambda: A.add(row_o.contiguous(), base_o),
             lambda: torch.add(row_t, base_t))]


if __name__ == "__main__":
    main(__doc__, cases, width=30, copy_column=False)
