"""Timing opal against a reference, interleaved round by round.

The Python benchmarks of one op each (movement_benchmark.py,
random_benchmark.py) give `run` their cases, (name, opal call, reference
call), or `main` parses --rounds and does both; each case is called twice
per side first (compile, warm caches),
then once per side per round, opal first. `report` prints min and median
milliseconds, the ratio of the medians and, against the first case (a copy
of the same bytes), the share of the speed of memory.
"""

import argparse
import statistics
import time


def timed(fn):
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1e3


def run(cases, rounds):
    results = []
    for name, ours, theirs in cases:
        ours(), theirs(), ours(), theirs()  # compile, warm caches
        mine, reference = [], []
        for _ in range(rounds):
            mine.append(timed(ours))
            reference.append(timed(theirs))
        results.append((name, mine, reference))
    return results


def report(results, width=26, copy_column=True, unit="ms"):
    """Prints each case's min and median ms (or microseconds, `unit="us"`),
    PyTorch's median over opal's and (with `copy_column`) the first case's
    median over the case's."""
    scale = 1e3 if unit == "us" else 1.0
    results = [(name, [t * scale for t in mine], [t * scale for t in reference])
               for name, mine, reference in results]
    copy = statistics.median(results[0][1])
    print(f"{'op':{width}s} {'opal min/med ' + unit:>18s} {'PyTorch min/med ' + unit:>20s} "
          f"{'PyTorch/opal':>12s}" + (f" {'copy/opal':>10s}" if copy_column else ""))
    for name, mine, reference in results:
        med, their_med = statistics.median(mine), statistics.median(reference)
        print(f"{name:{width}s} {min(mine):8.2f} / {med:7.2f} {min(reference):9.2f} / "
              f"{their_med:7.2f} {their_med / med:11.2f}x" +
              (f" {copy / med:9.0%}" if copy_column else ""))


def set_threads(count):
    """opal and PyTorch at the same thread count."""
    import opal
    import torch
    opal.set_num_threads(count)
    torch.set_num_threads(count)


def blas():
    """What PyTorch multiplies with (its build configuration's BLAS and
    oneDNN), to print beside the ratios. Refuses the reference BLAS
    (BLAS_INFO=generic, Debian's PyTorch): a ratio against it is not a
    result."""
    import re
    import torch
    config = torch.__config__.show()
    found = [m.group(0) for m in (re.search(r"BLAS_INFO=\w+", config),
                                  re.search(r"USE_MKLDNN=\w+", config)) if m]
    if "BLAS_INFO=generic" in found:
        raise SystemExit(f"PyTorch {torch.__version__} multiplies with the reference BLAS "
                         "(BLAS_INFO=generic): a ratio against it is not a result. Run the "
                         "benchmark with the PyTorch of scripts/bootstrap-python.sh (MKL and "
                         "oneDNN).")
    return f"PyTorch {torch.__version__} ({', '.join(found) or 'BLAS not reported'})"


def numpy_blas():
    """The BLAS library numpy multiplies with, read from the libraries the
    process has mapped after a product, and whether it is a real one
    (OpenBLAS, MKL, BLIS) rather than the reference BLAS (Debian's
    default `libblas.so.3`, about a fifth of OpenBLAS's speed)."""
    import os
    import numpy as np
    np.ones((64, 64), np.float32) @ np.ones((64, 64), np.float32)
    try:
        with open("/proc/self/maps") as maps:
            paths = {line.split()[-1] for line in maps if ".so" in line}
    except OSError:
        return "numpy's BLAS unknown", False
    for path in sorted(paths):
        name = os.path.basename(os.path.realpath(path))
        if any(real in name for real in ("openblas", "mkl_rt", "libmkl", "blis")):
            return f"numpy {np.__version__} with {name}", True
    for path in sorted(paths):
        if "libblas.so" in path or "libcblas.so" in path:
            return (f"numpy {np.__version__} with the reference BLAS "
                    f"({os.path.realpath(path)})"), False
    return f"numpy {np.__version__} (BLAS not found among its libraries)", False


def main(description, cases, rounds=15, width=26, copy_column=True, unit="ms"):
    """A benchmark's command line: --rounds, --threads (opal and PyTorch
    at the same count, 1 by default) and --only (a part of the names of the
    cases to run), then `run` and `report`. `cases` is
    called after the arguments are parsed (it builds the inputs)."""
    parser = argparse.ArgumentParser(description=description.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=rounds)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--only", default="",
                        help="run only the cases whose name contains this text")
    args = parser.parse_args()
    set_threads(args.threads)
    print(blas())
    chosen = [case for case in cases() if args.only in case[0]]
    if not chosen:
        parser.error(f"no case's name contains '{args.only}'")
    report(run(chosen, args.rounds), width=width, copy_column=copy_column and not args.only,
           unit=unit)
