#!/usr/bin/env python3
"""Per-call overhead of opal ops from Python, beside PyTorch 1.13 and numpy.

Not a test: run it and read the table (docs/performance.md records it).

    PYTHONPATH=build/python ~/.cache/opal-venv/bin/python benchmarks/python_overhead.py

Every row calls on 1-element float32 tensors. The rows are timed round-robin
(each repeat times every row once), so load from other processes hits all of
them alike; min is the robust figure, median the typical one.
"""

import argparse
import os
import statistics
import sys
import timeit

import numpy as np

import opal
import interleaved  # noqa: E402 (beside this file)

HERE = os.path.dirname(os.path.abspath(__file__))


def load_bench_ops(build_dir):
    path = os.path.join(build_dir, "lib", "libopal_bench_ops.so")
    if not os.path.exists(path):
        sys.exit(f"{path} is missing: build the target opal_bench_ops first")
    opal.ops.load_library(path)


def opal_rows():
    a, b = opal.ones(1), opal.ones(1)
    add_overload = opal.ops.bench.add.default
    add_packet = opal.ops.bench.add
    ident = opal.ops.bench.ident.default

    lib = opal.library.Library("benchpy", "DEF")
    lib.define("add(Tensor a, Tensor b) -> Tensor")
    lib.define("ident(Tensor x) -> Tensor")
    lib.impl("add", lambda x, y: add_overload(x, y), "CPU")
    lib.impl("ident", lambda x: x, "CPU")
    py_add = opal.ops.benchpy.add.default
    jit_add = opal.ops.aten.add.Tensor
    jit_add(a, b)  # compiled once, then in-memory hits
    jit_packet = opal.ops.aten.add
    py_ident = opal.ops.benchpy.ident.default
    empty = opal._C._empty
    f32, cpu = opal.float32, opal.device("cpu")
    return lib, {
        "opal: native C++ kernel, OpOverload (add)": lambda: add_overload(a, b),
        "opal: native C++ kernel, packet (add)": lambda: add_packet(a, b),
        "opal: native C++ kernel returning its input (ident)": lambda: ident(a),
        "opal: JIT-compiled kernel, in-memory hit (aten.add.Tensor)": lambda: jit_add(a, b),
        "opal: the same through its packet (aten.add, add.Scalar tried first)":
            lambda: jit_packet(a, b),
        "opal: the same through the eager API (a + b)": lambda: a + b,
        "opal: eager opal.add(a, b)": lambda: opal.add(a, b),
        "opal: Python kernel calling the native add": lambda: py_add(a, b),
        "opal: Python kernel returning its input": lambda: py_ident(a),
        "opal: allocate a 1-element tensor (opal._C._empty)": lambda: empty([1], f32, cpu),
    }


def torch_rows():
    try:
        import torch
    except Exception as error:  # noqa: BLE001 - any failure means "not here"
        print(f"(PyTorch not importable: {error}; its rows are left out)")
        return None, {}
    a, b = torch.ones(1), torch.ones(1)
    aten_add = torch.ops.aten.add.Tensor
    aten_packet = torch.ops.aten.add
    lib = torch.library.Library("pybench", "DEF")
    lib.define("myadd(Tensor a, Tensor b) -> Tensor")
    lib.impl("myadd", lambda x, y: torch.add(x, y), "CPU")
    myadd = torch.ops.pybench.myadd.default
    return lib, {
        "torch: torch.add": lambda: torch.add(a, b),
        "torch: a + b": lambda: a + b,
        "torch: torch.ops.aten.add.Tensor": lambda: aten_add(a, b),
        "torch: torch.ops.aten.add (packet)": lambda: aten_packet(a, b),
        "torch: torch.library op, Python kernel (torch.add)": lambda: myadd(a, b),
        "torch: torch.empty(1)": lambda: torch.empty(1),
    }


def numpy_rows():
    a, b = np.ones(1, np.float32), np.ones(1, np.float32)
    out = np.empty(1, np.float32)
    return {
        "numpy: np.add(a, b)": lambda: np.add(a, b),
        "numpy: np.add(a, b, out=o)": lambda: np.add(a, b, out=out),
        "python: empty function call (floor)": lambda: None,
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build-dir", default=os.path.join(HERE, "..", "build"))
    parser.add_argument("--repeats", type=int, default=21)
    parser.add_argument("--number", type=int, default=20000)
    args = parser.parse_args()
    print(interleaved.blas())  # (refuses the reference BLAS)

    load_bench_ops(args.build_dir)
    keep_opal, rows = opal_rows()
    keep_torch, trows = torch_rows()
    rows.update(trows)
    rows.update(numpy_rows())

    times = {name: [] for name in rows}
    for _ in range(args.repeats):
        for name, fn in rows.items():
            times[name].append(timeit.timeit(fn, number=args.number) / args.number * 1e9)

    width = max(len(name) for name in rows)
    print(f"{'call (1-element float32)':{width}}  {'min ns':>8}  {'median ns':>9}")
    for name, samples in times.items():
        print(f"{name:{width}}  {min(samples):8.0f}  {statistics.median(samples):9.0f}")
    del keep_opal, keep_torch


if __name__ == "__main__":
    main()
