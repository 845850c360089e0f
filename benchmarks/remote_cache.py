"""The remote kernel cache: what a machine that finds its kernels in Redis
pays for its first call, against compiling them and against its own disk.

For each kernel, round by round (interleaved), three fresh processes time
their first call of it:
  compile      empty local cache, kernel not in Redis: the JIT compiles it
               (loading the compiler included) and writes it to both;
  remote hit   empty local cache, kernel in Redis: index and object come
               from Redis, are checked (HMAC, checksum), installed locally
               and loaded without the compiler;
  local hit    the directory the remote hit filled: a warm start from disk.
The server is Debian's redis-server on a unix socket, started and stopped
here. Reported: p50 and p99 (the maximum for fewer than 100 rounds) in ms.

    PYTHONPATH=build/python /usr/bin/python3 benchmarks/remote_cache.py [--rounds N]

The cost of the HMAC itself on a warm start is measured by opal-bench-jit
(BM_CacheManifestHmac: one manifest of a typical size) beside the checksum
of a typical object (BM_CacheObjectSha256), which a warm start also pays.
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

KERNELS = {
    # name: (setup, call)
    "gelu 256x256 (small)": ("x = opal.tensor(rng.standard_normal((256, 256)).astype(np.float32))",
                             "opal.ops.aten.gelu(x)"),
    "layer_norm 64x1024 (row fusion)": (
        "x = opal.tensor(rng.standard_normal((64, 1024)).astype(np.float32)); "
        "w = opal.tensor(np.ones(1024, np.float32)); b = opal.tensor(np.zeros(1024, np.float32))",
        "opal.ops.aten.layer_norm(x, [1024], w, b)"),
    "conv2d 3x3 (large)": (
        "x = opal.tensor(rng.standard_normal((2, 16, 32, 32)).astype(np.float32)); "
        "w = opal.tensor(rng.standard_normal((32, 16, 3, 3)).astype(np.float32))",
        "opal.ops.aten.conv2d(x, w)"),
}

SCRIPT = """
import json, os, time
import numpy as np
import opal, opal.cache
rng = np.random.default_rng(0)
{setup}
start = time.perf_counter()
{call}
ms = (time.perf_counter() - start) * 1e3
stats = opal.jit.stats()
maps = open("/proc/self/maps").read()
print(json.dumps(dict(ms=ms, compiles=stats["compiles"], compile_ms=stats["compile_ms"],
                      remote=opal.cache.remote_stats(), compiler="libopal_compiler" in maps)))
"""


def percentile(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


class Redis:
    def __init__(self, directory):
        self.socket = os.path.join(directory, "redis.sock")
        self.process = subprocess.Popen(
            ["redis-server", "--port", "0", "--unixsocket", self.socket, "--unixsocketperm", "700",
             "--save", "", "--appendonly", "no", "--dir", directory],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 10
        while not os.path.exists(self.socket):
            if time.time() > deadline:
                raise RuntimeError("redis-server did not start")
            time.sleep(0.02)

    def flush(self):
        subprocess.run(["redis-cli", "-s", self.socket, "FLUSHALL"], check=True,
                       capture_output=True)

    def stop(self):
        self.process.kill()
        self.process.wait()


def run(kernel, local, url):
    setup, call = KERNELS[kernel]
    env = dict(os.environ, OPAL_CACHE_DIR=local, OPAL_REMOTE_CACHE=url,
               OPAL_CACHE_KEY="benchmark key 0123456789abcdef")
    out = subprocess.run([sys.executable, "-c", SCRIPT.format(setup=setup, call=call)], env=env,
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    if not shutil.which("redis-server"):
        sys.exit("redis-server is not installed (scripts/bootstrap.sh test installs it)")
    work = tempfile.mkdtemp(prefix="opal-remote-bench-")
    os.chmod(work, 0o700)
    redis = Redis(work)
    url = f"unix://{redis.socket}"
    times = {k: {"compile": [], "remote hit": [], "local hit": []} for k in KERNELS}
    try:
        for round_ in range(args.rounds):
            for kernel in KERNELS:
                redis.flush()
                compiled = run(kernel, os.path.join(work, f"c{round_}"), url)
                assert compiled["compiles"] >= 1 and compiled["remote"]["stores"] >= 2, compiled
                remote_dir = os.path.join(work, f"r{round_}")
                hit = run(kernel, remote_dir, url)
                assert hit["compiles"] == 0 and not hit["compiler"], hit
                assert hit["remote"]["hits"] >= 2, hit
                local = run(kernel, remote_dir, url)
                assert local["compiles"] == 0 and local["remote"]["hits"] == 0, local
                times[kernel]["compile"].append(compiled["ms"])
                times[kernel]["remote hit"].append(hit["ms"])
                times[kernel]["local hit"].append(local["ms"])
                for name in (f"c{round_}", f"r{round_}"):
                    shutil.rmtree(os.path.join(work, name), ignore_errors=True)
    finally:
        redis.stop()
        shutil.rmtree(work, ignore_errors=True)
    print(f"first call of a kernel in a fresh process, ms ({args.rounds} rounds, interleaved; "
          "p99 is the maximum below 100 rounds)")
    print(f"{'kernel':34} {'compile p50/p99':>16} {'remote hit p50/p99':>20} "
          f"{'local hit p50/p99':>19} {'compile / remote':>17}")
    for kernel, t in times.items():
        cells = [f"{statistics.median(v):7.1f}/{percentile(v, 0.99):6.1f}"
                 for v in (t["compile"], t["remote hit"], t["local hit"])]
        ratio = statistics.median(t["compile"]) / statistics.median(t["remote hit"])
        print(f"{kernel:34} {cells[0]:>16} {cells[1]:>20} {cells[2]:>19} {ratio:16.1f}x")


if __name__ == "__main__":
    main()
