#!/usr/bin/env python3
"""Instructions per JIT compile and per in-memory hit, counted by callgrind.

Not a test: run it and read the tables (docs/performance.md records them).
This VM's speed drifts by up to 2x between runs, so wall-clock times of a
change are hard to compare; instruction counts do not drift. They are what
a change to the compile path or the hit path is judged by here.

    PYTHONPATH=build/python /usr/bin/python3 benchmarks/jit_instructions.py
        [--build-dir DIR] [--skip-compile] [--skip-hit]

1. Compile: for each kernel of jit_benchmark.py's compile table, a fresh
   process compiles aten::neg (loading the compiler and everything a first
   compile initializes), then the kernel, under callgrind counting only
   inside the compiler's compile(); the kernel's count is the difference
   with a process that compiles aten::neg alone. Disk cache off.
2. Hit: build/bin/opal-bench-jit's BM_JitHitOverNative (1 element) under
   callgrind: instructions per boxed call of the compiled aten::neg and of
   the native C++ neg (both allocate their output).

Needs valgrind (Debian's `valgrind` package); takes 3-6 minutes.
"""

import argparse
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

KERNELS = {
    "relu": "A.relu(x)",
    "exp": "A.exp(x)",
    "softplus": "A.softplus(x)",
    "gelu": "A.gelu(x)",
    "softmax": "A.softmax.int(x, -1)",
    "sum": "A.sum.dim_IntList(x, [1])",
    "mm": "A.mm(x, A.t(x))",
    "conv 3x3": "A.convolution(image, w, None, [1, 1], [1, 1], [1, 1], False, [0, 0], 1)",
    "conv 3x3/2": "A.convolution(image, w, None, [2, 2], [1, 1], [1, 1], False, [0, 0], 1)",
    "depthwise 3x3": "A.convolution(image, dw, None, [1, 1], [1, 1], [1, 1], False, [0, 0], 8)",
}

SCRIPT = """
import sys
import numpy as np
import opal
A = opal.ops.aten
x = opal.tensor(np.ones((4, 8), dtype=np.float32))
image = opal.tensor(np.ones((1, 8, 12, 12), dtype=np.float32))
w = opal.tensor(np.ones((16, 8, 3, 3), dtype=np.float32))
dw = opal.tensor(np.ones((8, 1, 3, 3), dtype=np.float32))
A.neg(x)
{call}
"""


def callgrind(command, out, toggle, env=None):
    subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                    "--collect-atstart=no", f"--toggle-collect={toggle}"] + command,
                   env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def summary(out):
    for line in open(out):
        if line.startswith("summary:"):
            return int(line.split()[1])
    raise RuntimeError(f"{out}: no summary line")


def inclusive(out):
    """Inclusive instruction counts by function name."""
    text = subprocess.run(["callgrind_annotate", "--inclusive=yes", out], check=True,
                          capture_output=True, text=True).stdout
    counts = {}
    for line in text.splitlines():
        match = re.match(r"\s*([\d,]+) \(.*?\)\s+\S*?:(\S.*?) \[", line)
        if match:
            counts.setdefault(match.group(2), int(match.group(1).replace(",", "")))
    return counts


def compile_counts(workers, build):
    env = dict(os.environ, OPAL_CACHE_DISABLE="1", PYTHONPATH=os.path.join(build, "python"),
               LD_LIBRARY_PATH=os.path.join(build, "lib"))
    with tempfile.TemporaryDirectory() as tmp:
        def run(name):
            stem = re.sub(r"\W", "_", name)
            script = os.path.join(tmp, f"{stem}.py")
            with open(script, "w") as f:
                f.write(SCRIPT.format(call=KERNELS.get(name, "")))
            out = os.path.join(tmp, f"{stem}.out")
            callgrind([sys.executable, script], out, "*CpuKernelCompiler::compile*", env)
            return name, summary(out)

        with concurrent.futures.ThreadPoolExecutor(workers) as pool:
            results = dict(pool.map(run, ["base"] + list(KERNELS)))
    base = results.pop("base")
    print("## Instructions per compile (millions; callgrind, after a first compile)\n")
    print("| kernel | instructions |")
    print("|---|---:|")
    for name, count in results.items():
        print(f"| {name} | {(count - base) / 1e6:.0f}M |")
    print(f"\n(the first compile of the process, aten::neg, with the compiler's "
          f"initialization: {base / 1e6:.0f}M)")


def hit_counts(build):
    bench = os.path.join(build, "bin", "opal-bench-jit")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "hit.out")
        callgrind([bench, "--benchmark_filter=BM_JitHitOverNative/1/",
                   "--benchmark_repetitions=1"], out, "opal::OperatorHandle::callBoxed*")
        counts = inclusive(out)
    def total(prefix):
        return sum(n for name, n in counts.items() if name.startswith(prefix))
    # 2000 iterations of 256 calls each, and the first batch (which compiles).
    calls = 2000 * 256
    jit = total("opal::jit::MlirKernel::boxedCall(") - total("opal::jit::MlirKernel::compile(")
    native = total("opal::KernelFunction::Wrappers<opal::Tensor (*)(opal::Tensor const&)")
    print("\n## Instructions per in-memory hit (callgrind, aten::neg on 1 element)\n")
    print("| call | instructions |")
    print("|---|---:|")
    print(f"| compiled aten::neg, from the kernel function on | {jit / (calls + 256):.0f} |")
    print(f"| native C++ neg, from the kernel function on | {native / calls:.0f} |")
    print(f"| the JIT's extra work per call | {jit / (calls + 256) - native / calls:.0f} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workers", type=int, default=2, help="callgrind processes at once")
    parser.add_argument("--skip-compile", action="store_true")
    parser.add_argument("--skip-hit", action="store_true")
    parser.add_argument("--build-dir", default=os.path.join(ROOT, "build"),
                        help="the build whose python/ and lib/ (and bin/ for hits) are measured")
    args = parser.parse_args()
    if not args.skip_compile:
        compile_counts(args.workers, args.build_dir)
    if not args.skip_hit:
        hit_counts(args.build_dir)


if __name__ == "__main__":
    main()
