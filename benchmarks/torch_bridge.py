"""opal inside PyTorch programs: the GPT-style block and the CNN of
examples/torch_models.py compiled by opal.torch.compile (torch.compile with
opal's backend) against PyTorch eager (2.15 from PyPI in make test's
environment: MKL and oneDNN), and the per-call cost of an opal op called as
a torch op against the same op called from opal. One thread each
(--threads), rounds interleaved in one process (benchmarks/interleaved.py),
min / median ms (µs for the call costs).

    PYTHONPATH=build/python ~/.cache/opal-venv/bin/python benchmarks/torch_bridge.py \
        [--threads N] [--rounds N]
"""

import argparse
import os
import statistics
import sys
import torch

import opal
import opal.torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "examples"))
import torch_models  # noqa: E402
from interleaved import blas, report, run, set_threads  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args()
    print(blas())  # (refuses the reference BLAS)
    set_threads(args.threads)
    tokens, images = torch_models.inputs()
    tokens = tokens.repeat(8, 1)              # batch 16
    images = torch.cat([images] * 8)          # batch 32
    gpt, cnn = torch_models.GptBlock(), torch_models.SmallCnn()
    compiled_gpt = opal.torch.compile(gpt, [tokens])
    compiled_cnn = opal.torch.compile(cnn, [images])
    with torch.no_grad():
        torch.testing.assert_close(compiled_gpt(tokens), gpt(tokens), rtol=1e-4, atol=1e-4)
        torch.testing.assert_close(compiled_cnn(images), cnn(images), rtol=1e-4, atol=1e-4)

        print(f"opal.torch.compile against PyTorch eager, {args.threads} thread(s), "
              f"{args.rounds} rounds:")
        report(run([(f"GPT block {list(tokens.shape)}", lambda: compiled_gpt(tokens),
                     lambda: gpt(tokens)),
                    (f"CNN {list(images.shape)}", lambda: compiled_cnn(images),
                     lambda: cnn(images))], args.rounds), copy_column=False)

    # One op twice: with opal.torch's C++ kernels (opal._torch_C, where it
    # is built) and with its Python kernels.
    libraries = []
    for namespace in ("bridgebench", "bridgebench_py"):
        lib = opal.library.Library(namespace, "DEF")
        lib.define("softplus(Tensor x) -> Tensor")
        opal.library.register_decomposition(f"{namespace}::softplus", lib=lib)(
            lambda x: opal.ops.aten.log1p(opal.ops.aten.exp(x)))
        libraries.append(lib)
    native, opal.torch._native = opal.torch._native, None
    opal.torch.register("bridgebench_py")
    opal.torch._native = native
    opal.torch.register("bridgebench")
    x, ox = torch.ones(16), opal.ones(16)
    as_torch, as_opal = torch.ops.bridgebench.softplus, opal.ops.bridgebench.softplus
    as_python = torch.ops.bridgebench_py.softplus
    as_torch(x), as_opal(ox), as_python(x)

    def batch(fn, arg, n=2000):
        def run():
            for _ in range(n):
                fn(arg)
        return run

    (_, bridged, direct), (_, python, _) = run(
        [("call", batch(as_torch, x), batch(as_opal, ox)),
         ("python kernel", batch(as_python, x), batch(as_opal, ox))], 10)
    mine, theirs, slow = (statistics.median(t) / 2000 * 1e3 for t in (bridged, direct, python))
    kind = "C++" if native is not None else "Python (opal._torch_C is not built)"
    print(f"an opal op on 16 floats: as a torch op ({kind} kernel) {mine:.2f} µs, from opal "
          f"{theirs:.2f} µs: the bridge adds {mine - theirs:.2f} µs (medians of 10 rounds of "
          f"2000 calls)")
    print(f"the same op with opal.torch's Python kernel: {slow:.2f} µs, "
          f"{slow - theirs:.2f} µs over opal")


if __name__ == "__main__":
    main()
