"""opal inside PyTorch programs: the GPT-style block and the CNN of
examples/torch_models.py compiled by opal.torch.compile against PyTorch 1.13
eager, and the per-call cost of an opal op called as a torch op against the
same op called from opal. One thread each (--threads), rounds interleaved in
one process (benchmarks/interleaved.py), min / median ms (µs for the call
costs).

    PYTHONPATH=build/python /usr/bin/python3 benchmarks/torch_bridge.py [--threads N]
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
from interleaved import report, run, set_threads  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=30)
    args = parser.parse_args()
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

    lib = opal.library.Library("bridgebench", "DEF")
    lib.define("softplus(Tensor x) -> Tensor")

    @opal.library.register_decomposition("bridgebench::softplus", lib=lib)
    def softplus(x):
        return opal.ops.aten.log1p(opal.ops.aten.exp(x))

    opal.torch.register("bridgebench")
    x, ox = torch.ones(16), opal.ones(16)
    as_torch, as_opal = torch.ops.bridgebench.softplus, opal.ops.bridgebench.softplus
    as_torch(x), as_opal(ox)

    def batch(fn, arg, n=2000):
        def run():
            for _ in range(n):
                fn(arg)
        return run

    (_, bridged, direct), = run([("call", batch(as_torch, x), batch(as_opal, ox))], 10)
    mine, theirs = (statistics.median(t) / 2000 * 1e3 for t in (bridged, direct))
    print(f"an opal op on 16 floats: as a torch op {mine:.2f} µs, from opal {theirs:.2f} µs, "
          f"the bridge adds {mine - theirs:.2f} µs")


if __name__ == "__main__":
    main()
