"""The JIT's caches: in-memory hits and misses, the disk cache across
processes, corrupted entries, concurrent compiles, and the cache CLI."""

import os
import subprocess
import sys
import textwrap

import numpy as np

import opal
import opal.cache

A = opal.ops.aten

SCRIPT = textwrap.dedent("""
    import json, sys
    import numpy as np
    import opal
    x = opal.tensor(np.linspace(-3, 3, 12, dtype=np.float32).reshape(3, 4))
    out = [opal.ops.aten.softplus(x, 2.0).tolist(),
           opal.ops.aten.gelu(x, approximate="tanh").tolist(),
           opal.ops.aten.sum.dim_IntList(x, [1]).tolist()]
    json.dump({"stats": opal.jit.stats(), "out": out}, sys.stdout)
""")


def run_process(cache_dir, extra_env=None, script=SCRIPT):
    """Runs `script` in a fresh process on the cache at `cache_dir`; its JSON
    output and its stderr."""
    env = dict(os.environ, OPAL_CACHE_DIR=str(cache_dir))
    env.update(extra_env or {})
    result = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    import json
    return json.loads(result.stdout), result.stderr


def test_in_memory_hits_and_misses():
    x = opal.tensor(np.ones((3, 3), dtype=np.float32))
    A.neg(x)
    before = opal.jit.stats()
    for _ in range(5):
        A.neg(x)
    after = opal.jit.stats()
    assert after["hits"] - before["hits"] == 5
    assert after["misses"] == before["misses"]
    # A new rank is a new specialization: one miss, then hits.
    A.neg(opal.tensor(np.ones((2, 2, 2, 2, 2, 2, 2), dtype=np.float32)))
    assert opal.jit.stats()["misses"] == after["misses"] + 1
    assert set(after) >= {"hits", "misses", "compiles", "compile_ms", "disk_hits"}


def test_hits_of_every_thread_are_counted_also_after_it_exits():
    import threading
    x = opal.tensor(np.ones(4, dtype=np.float32))
    A.neg(x)
    before = opal.jit.stats()["hits"]

    def calls():
        for _ in range(25):
            A.neg(x)

    threads = [threading.Thread(target=calls) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert opal.jit.stats()["hits"] - before == 100
    opal.jit.reset_stats()
    assert opal.jit.stats()["hits"] == 0


def test_a_second_process_loads_everything_from_disk(tmp_path):
    first, _ = run_process(tmp_path)
    assert first["stats"]["compiles"] == 3 and first["stats"]["disk_hits"] == 0
    second, _ = run_process(tmp_path)
    assert second["stats"]["compiles"] == 0 and second["stats"]["disk_hits"] == 3
    assert second["out"] == first["out"]
    listed = opal.cache.entries(str(tmp_path))
    assert sorted(m["op"] for _, _, m in listed) == ["aten::gelu", "aten::softplus",
                                                      "aten::sum.dim_IntList"]
    assert opal.cache.verify(str(tmp_path)) == []


def test_a_corrupted_entry_is_detected_and_recompiled(tmp_path):
    first, _ = run_process(tmp_path)
    key, directory, _ = opal.cache.entries(str(tmp_path))[0]
    with open(os.path.join(directory, "kernel.o"), "r+b") as f:
        f.seek(100)
        f.write(b"\xff\xff\xff\xff")
    assert opal.cache.verify(str(tmp_path)) == [(key, "kernel.o does not match its checksum")]
    second, stderr = run_process(tmp_path)
    assert "refused entry" in stderr and "does not match its checksum" in stderr
    assert second["stats"]["compiles"] == 1 and second["stats"]["disk_hits"] == 2
    assert second["out"] == first["out"]
    assert opal.cache.verify(str(tmp_path)) == []
    # A truncated object too.
    key, directory, _ = opal.cache.entries(str(tmp_path))[1]
    with open(os.path.join(directory, "kernel.o"), "r+b") as f:
        f.truncate(10)
    third, stderr = run_process(tmp_path)
    assert "has 10 bytes" in stderr and third["stats"]["compiles"] == 1


def test_processes_compiling_together_corrupt_nothing(tmp_path):
    env = dict(os.environ, OPAL_CACHE_DIR=str(tmp_path))
    procs = [subprocess.Popen([sys.executable, "-c", SCRIPT], env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(3)]
    outputs = [p.communicate(timeout=300) for p in procs]
    assert all(p.returncode == 0 for p in procs), [o[1] for o in outputs]
    assert len(opal.cache.entries(str(tmp_path))) == 3
    assert opal.cache.verify(str(tmp_path)) == []
    leftovers = [name for prefix in os.listdir(tmp_path / "v2")
                 for name in os.listdir(tmp_path / "v2" / prefix) if name.startswith(".tmp-")]
    assert leftovers == []
    again, _ = run_process(tmp_path)
    assert again["stats"]["compiles"] == 0


def test_cache_disable_and_the_cli(tmp_path):
    result, _ = run_process(tmp_path, {"OPAL_CACHE_DISABLE": "1"})
    assert result["stats"]["compiles"] == 3 and not (tmp_path / "v2").exists()
    run_process(tmp_path)

    def cli(*args):
        return subprocess.run([sys.executable, "-m", "opal.cache", "--dir", str(tmp_path),
                               *args], capture_output=True, text=True, timeout=60)

    listed = cli("list")
    assert listed.returncode == 0 and "3 entries in" in listed.stdout
    assert "aten::softplus(float32[?,?], float, int)" in listed.stdout
    key = opal.cache.entries(str(tmp_path))[0][0]
    shown = cli("show", key[:12])
    assert shown.returncode == 0 and "pipeline: " in shown.stdout and "target: " in shown.stdout
    assert "object-sha256: " in shown.stdout
    verified = cli("verify").stdout.strip().splitlines()
    assert verified == ["3 entries, 0 bad", "3 warm-start index files checked, 0 bad"]
    assert "removed 3 entries" in cli("clear").stdout
    assert opal.cache.entries(str(tmp_path)) == []


def test_logging_says_why_a_kernel_compiles(tmp_path):
    _, stderr = run_process(tmp_path, {"OPAL_LOG": "jit,cache"})
    assert "[opal:cache] miss aten::softplus(float32[?,?], float, int): not compiled in this " \
           "process" in stderr
    assert "[opal:cache] disk miss" in stderr
    assert "[opal:jit] compiled aten::softplus(float32[?,?], float, int) for CPU in" in stderr
    _, stderr = run_process(tmp_path, {"OPAL_LOG": "jit,cache"})
    assert "[opal:cache] disk hit" in stderr and "from disk" in stderr


def test_dump_dir_holds_every_stage(tmp_path):
    run_process(tmp_path / "cache", {"OPAL_DUMP_DIR": str(tmp_path / "dump"),
                                     "OPAL_CACHE_DISABLE": "1"})
    dumps = sorted(os.listdir(tmp_path / "dump"))
    assert len(dumps) == 3 and dumps[0].endswith("aten__softplus")
    assert sorted(os.listdir(tmp_path / "dump" / dumps[0])) == [
        "0-call.mlir", "1-decomposed.mlir", "2-entry-points.mlir", "3-llvm.mlir", "4-kernel.o"]


# The warm start: a process whose kernels are all on disk runs them without
# loading the compiler (libopal_compiler, MLIR, LLVM).
WARM_SCRIPT = textwrap.dedent("""
    import json, sys
    import numpy as np
    import opal
    A = opal.ops.aten
    rng = np.random.default_rng(3)
    x = opal.tensor(rng.standard_normal((5, 7)).astype(np.float32))
    d = opal.tensor(rng.standard_normal((4, 6)))
    i = opal.tensor(rng.integers(-9, 9, (3, 5)))
    out = [A.softplus(x, 2.0), A.gelu(x), A.softmax.int(x, -1), A.mm(x, A.t(x)),
           A.exp(d), A.pow.Tensor_Scalar(x, 3), A.pow.Tensor_Tensor(d, d),
           A.sum.dim_IntList(d, [0]), A.where.self(A.gt.Scalar(x, 0.5), x, A.neg(x)),
           A.add.Tensor(i, i, alpha=3), A.amax(x, [1]), A.log1p(A.abs(d)), A.tanh(x[1:, 2:])]
    maps = open("/proc/self/maps").read()
    loaded = sorted({name for name in ("libLLVM", "libMLIR", "libopal_compiler")
                     if name in maps})
    json.dump({"stats": opal.jit.stats(), "loaded": loaded,
               "out": [np.asarray(t).tolist() for t in out]}, sys.stdout)
""")


def run_warm(cache_dir, extra_env=None, script=WARM_SCRIPT):
    return run_process(cache_dir, extra_env, script)


def index_files(cache_dir):
    base = cache_dir / "warm-v2"
    return sorted(path for path in base.rglob("*") if path.is_file())


def test_a_second_process_runs_its_kernels_without_the_compiler(tmp_path):
    first, _ = run_warm(tmp_path)
    compiled = first["stats"]["compiles"]
    assert compiled >= 13 and first["loaded"] == ["libLLVM", "libMLIR", "libopal_compiler"]
    assert len(index_files(tmp_path)) == compiled
    second, stderr = run_warm(tmp_path, {"OPAL_LOG": "jit"})
    assert second["loaded"] == []
    assert second["stats"]["compiles"] == 0 and second["stats"]["disk_hits"] == compiled
    assert "from disk without the compiler" in stderr
    # The same object code, loaded by opal's own linker: bit for bit the
    # same results (libm calls, constants, temporaries, matmul included).
    assert second["out"] == first["out"]
    listed = subprocess.run([sys.executable, "-m", "opal.cache", "--dir", str(tmp_path), "list"],
                            capture_output=True, text=True, timeout=60).stdout
    assert f"({compiled} calls indexed for warm starts)" in listed
    opal.cache.clear(str(tmp_path))
    assert not (tmp_path / "warm-v2").exists()


def test_a_user_kernel_on_a_reached_op_keeps_the_index_out(tmp_path):
    run_warm(tmp_path)
    # prims::exp gets a Python CPU kernel: softplus (which reaches it) must
    # run through it, op by op, as in a process that never had a cache.
    script = textwrap.dedent("""
        import json, sys
        import numpy as np
        import opal
        calls = []
        def exp(x):
            calls.append(1)
            return opal.tensor(np.exp(np.asarray(x)))
        lib = opal.library.Library("prims", "IMPL")
        lib.impl("exp", exp, "CPU")
        x = opal.tensor(np.linspace(-2, 2, 35, dtype=np.float32).reshape(5, 7))
        y = opal.ops.aten.softplus(x, 2.0)
        g = opal.ops.aten.gelu(x)
        json.dump({"calls": len(calls), "stats": opal.jit.stats(),
                   "y": np.asarray(y).tolist()}, sys.stdout)
    """)
    result, stderr = run_warm(tmp_path, {"OPAL_LOG": "cache"}, script)
    assert result["calls"] == 1
    assert "prims::exp has a CPU kernel other than opal's built-in one now" in stderr
    x = np.linspace(-2, 2, 35, dtype=np.float32).reshape(5, 7).astype(np.float64)
    np.testing.assert_allclose(result["y"], np.log1p(np.exp(2 * x)) / 2, rtol=1e-5)
    # gelu does not reach prims::exp: it still warm-starts.
    assert result["stats"]["disk_hits"] >= 1


USER_OP_SCRIPT = textwrap.dedent("""
    import json, sys
    import opal
    lib = opal.library.Library("mylib", "DEF")
    lib.define("f(Tensor x) -> Tensor")
    scale = float(sys.argv[1])
    opal.library.register_decomposition("mylib::f", lib=lib)(
        lambda x: opal.ops.aten.exp(x) * scale + 1.0 if scale == 2.0 else x * scale)
    out = opal.ops.mylib.f(opal.tensor([0.0, 1.0]))
    maps = open("/proc/self/maps").read()
    json.dump({"stats": opal.jit.stats(), "out": out.tolist(),
               "loaded": "libopal_compiler" in maps}, sys.stdout)
""")


def test_a_users_op_starts_warm_pinned_by_its_definition(tmp_path):
    def process(scale, log=None):
        env = dict(os.environ, OPAL_CACHE_DIR=str(tmp_path), **({"OPAL_LOG": log} if log else {}))
        done = subprocess.run([sys.executable, "-c", USER_OP_SCRIPT, str(scale)], env=env,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        import json
        return json.loads(done.stdout), done.stderr

    first, _ = process(2.0)
    assert first["stats"]["compiles"] == 1 and first["loaded"]
    assert "pinned: mylib::f=" in index_files(tmp_path)[0].read_text()
    # The same definition in a new process: its kernel from disk through
    # the index (register_decomposition loads the compiler, to check the
    # text, but nothing compiles or decomposes).
    second, stderr = process(2.0, "jit")
    assert second["out"] == first["out"]
    assert second["stats"]["compiles"] == 0 and second["stats"]["disk_hits"] == 1
    assert "loaded mylib::f(float32[?]) for CPU" in stderr
    assert "from disk without the compiler" in stderr
    # Another definition under the same name never gets the first's kernel.
    other, stderr = process(3.0, "cache")
    assert other["out"] == [0.0, 3.0]
    assert "mylib::f is defined otherwise now" in stderr
    # And the first's is used again, the index now pinned to the other's.
    again, _ = process(2.0)
    assert again["out"] == first["out"]


STATIC_ONLY_SCRIPT = textwrap.dedent("""
    import json, sys
    import opal
    lib = opal.library.Library("mylib", "DEF")
    lib.define("f(Tensor x) -> Tensor")
    opal.library.register_decomposition("mylib::f", lib=lib)(
        lambda x: opal.ops.aten.reshape(x, [x.shape[0] // 2, -1]) * 2)
    out = [opal.ops.mylib.f(opal.arange(float(n))).tolist() for n in sys.argv[1:]]
    json.dump({"stats": opal.jit.stats(), "out": out}, sys.stdout)
""")


def test_an_op_that_compiles_for_static_shapes_only_starts_warm_at_its_static_key(tmp_path):
    # x.shape[0] // 2 is no size of the arguments: the dynamic form does
    # not lower. The index says so, and the next process goes to the
    # static key at once.
    def process(*sizes):
        env = dict(os.environ, OPAL_CACHE_DIR=str(tmp_path), OPAL_LOG="jit")
        done = subprocess.run([sys.executable, "-c", STATIC_ONLY_SCRIPT, *map(str, sizes)],
                              env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stderr
        import json
        return json.loads(done.stdout), done.stderr

    first, stderr = process(4)
    assert "mylib::f compiles for static shapes only" in stderr
    assert first["out"] == [[[0.0, 2.0], [4.0, 6.0]]]
    second, stderr = process(4, 6)
    assert "loaded mylib::f(float32[4]) for CPU in" in stderr
    assert "from disk without the compiler" in stderr
    assert "compiles for static shapes only" not in stderr  # (no dynamic attempt)
    assert second["stats"]["disk_hits"] == 1 and second["stats"]["compiles"] == 1
    assert second["out"][1] == [[0.0, 2.0], [4.0, 6.0], [8.0, 10.0]]


def test_a_damaged_index_is_removed_and_rebuilt(tmp_path):
    first, _ = run_warm(tmp_path)
    files = index_files(tmp_path)
    files[0].write_text("opal-warm-start 1\nentry: nonsense\n")
    files[1].write_text(files[1].read_text().replace("outputs: ", "outputs: bogus "))
    second, stderr = run_warm(tmp_path, {"OPAL_LOG": "cache"})
    # Both fail their HMAC before any of their text is used.
    assert stderr.count("refused the warm-start index") == 2
    assert "it has no HMAC line" in stderr and "its HMAC does not match" in stderr
    # Those two calls went through the compiler (which found the entries on
    # disk) and were indexed again.
    assert second["stats"]["compiles"] == 0 and second["out"] == first["out"]
    assert second["loaded"] == ["libLLVM", "libMLIR", "libopal_compiler"]
    third, _ = run_warm(tmp_path)
    assert third["loaded"] == [] and third["out"] == first["out"]


def test_the_index_is_off_when_dumping_or_without_the_disk_cache(tmp_path):
    run_warm(tmp_path)
    dumping, _ = run_warm(tmp_path, {"OPAL_DUMP_DIR": str(tmp_path / "dump")})
    assert "libopal_compiler" in dumping["loaded"]
    disabled, _ = run_warm(tmp_path, {"OPAL_CACHE_DISABLE": "1"})
    assert "libopal_compiler" in disabled["loaded"] and disabled["stats"]["disk_hits"] == 0
