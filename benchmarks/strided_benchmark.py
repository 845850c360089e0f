"""Non-contiguous inputs against PyTorch: a transposed 2048x2048 float32
matrix made contiguous, copied into an existing tensor, and fed to gelu (the
JIT copies a non-contiguous input before the kernel reads it). opal and
PyTorch 1.13 at the same thread count, interleaved round by round in one
process (benchmarks/interleaved.py), sharing the input memory.

    PYTHONPATH=build/python /usr/bin/python3 benchmarks/strided_benchmark.py [--threads N]
"""

import numpy as np
import torch

import opal
from interleaved import main


def cases():
    a = np.random.default_rng(0).standard_normal((2048, 2048)).astype(np.float32)
    o, t = opal.from_numpy(a).t(), torch.from_numpy(a).t()
    out_o, out_t = opal.empty([2048, 2048]), torch.empty(2048, 2048)
    np.testing.assert_allclose(o.contiguous().numpy(), t.contiguous().numpy())
    return [(".contiguous()", lambda: o.contiguous(), lambda: t.contiguous()),
            ("copy_ into a contiguous", lambda: out_o.copy_(o), lambda: out_t.copy_(t)),
            ("gelu", lambda: opal.ops.aten.gelu(o), lambda: torch.nn.functional.gelu(t)),
            ("add (transposed + contig)", lambda: opal.ops.aten.add(o, out_o),
             lambda: torch.add(t, out_t))]


if __name__ == "__main__":
    main(__doc__, cases, copy_column=False)
