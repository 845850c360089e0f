"""Ahead-of-time op libraries: opal-aot builds a shared library from an
op-library file; loading it (in a fresh process) defines the ops and runs the
precompiled specializations without compiling, or loading the compiler."""

import json
import os
import re
import shutil
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import opal

from conftest import BUILD_DIR, ROOT

OPAL_AOT = os.path.join(BUILD_DIR, "bin", "opal-aot")
EXAMPLE = os.path.join(ROOT, "examples", "aot", "myops.opal.mlir")
EXAMPLE_LIB = os.path.join(BUILD_DIR, "lib", "libmyops.so")

LIBRARY = """\
opal.library "{ns}" {{
  opal.def "softplus(Tensor x, float beta=1.0) -> Tensor"
  opal.decomposition "softplus" {{
  ^bb0(%x: !opal.tensor, %beta: f64):
    %xb = aten.mul.Scalar %x, %beta : (!opal.tensor, f64) -> !opal.tensor
    %e = aten.exp %xb : (!opal.tensor) -> !opal.tensor
    %l = aten.log1p %e : (!opal.tensor) -> !opal.tensor
    %r = aten.div.Scalar %l, %beta : (!opal.tensor, f64) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }}
{precompile}}}
"""


def write_library(tmp_path, ns="aotlib", precompile=None, name="aotlib.opal.mlir"):
    if precompile is None:
        precompile = ['"softplus" "(float32[?], float)"']
    lines = "".join(f"  opal.precompile {entry}\n" for entry in precompile)
    path = tmp_path / name
    path.write_text(LIBRARY.format(ns=ns, precompile=lines))
    return path


def aot(*args, check=True):
    result = subprocess.run([OPAL_AOT, *map(str, args)], capture_output=True, text=True)
    if check:
        assert result.returncode == 0, result.stderr
    return result


def run_fresh(script, **env):
    """Runs `script` in a new interpreter; returns the JSON it prints last."""
    environment = dict(os.environ, OPAL_CACHE_DISABLE="1", **env)
    result = subprocess.run([sys.executable, "-c", textwrap.dedent(script)], env=environment,
                            capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout.strip().splitlines()[-1])


def test_precompiled_kernels_run_without_the_compiler(tmp_path):
    lib = tmp_path / "libaot.so"
    aot(write_library(tmp_path, precompile=['"softplus" "(float32[?], float)"',
                                            '"softplus" "(float64[?,?], float)"']), "-o", lib)
    out = run_fresh(f"""
        import json, numpy as np, opal
        opal.ops.load_library({str(lib)!r})
        x = np.linspace(-5, 5, 1001).astype(np.float32)
        m = np.linspace(-3, 3, 60).reshape(6, 10)
        y = opal.ops.aotlib.softplus(opal.tensor(x), 2.0).numpy()
        z = opal.ops.aotlib.softplus(opal.tensor(m)).numpy()
        maps = open("/proc/self/maps").read()
        print(json.dumps(dict(
            y=np.abs(y - np.log1p(np.exp(2 * x.astype(np.float64))) / 2).max().item(),
            z=np.abs(z - np.log1p(np.exp(m))).max().item(), z_dtype=str(z.dtype),
            stats=opal.jit.stats(), compiler_loaded="libopal_compiler" in maps)))
    """)
    assert out["y"] < 1e-6 and out["z"] < 1e-12 and out["z_dtype"] == "float64"
    assert out["stats"]["precompiled"] == 2
    assert out["stats"]["compiles"] == 0 and out["stats"]["misses"] == 0
    assert out["stats"]["hits"] == 2
    assert out["compiler_loaded"] is False


SUM_LIBRARY = """\
opal.library "aotsum" {
  opal.def "total(Tensor x) -> Tensor"
  opal.decomposition "total" {
  ^bb0(%x: !opal.tensor):
    %none = opal.none
    %r = aten.sum %x, %none : (!opal.tensor, !opal.none) -> !opal.tensor
    opal.yield %r : !opal.tensor
  }
  opal.precompile "total" "(float32[?])"
}
"""


def test_precompiled_reductions_split_over_threads(tmp_path):
    # A library's kernels fork on libomp through the dynamic linker, not
    # through opal's fork: each thread still sums its own part into its own
    # partial (a thread that took the whole range would race the others).
    source = tmp_path / "aotsum.opal.mlir"
    source.write_text(SUM_LIBRARY)
    lib = tmp_path / "libaotsum.so"
    aot(source, "-o", lib)
    out = run_fresh(f"""
        import json, numpy as np, opal
        opal.ops.load_library({str(lib)!r})
        x = np.random.default_rng(3).standard_normal(1 << 22).astype(np.float32)
        want = x.sum(dtype=np.float64)
        errors = {{}}
        for threads in (1, 2, 3, 4):
            opal.set_num_threads(threads)
            got = [float(opal.ops.aotsum.total(opal.tensor(x)).numpy()) for _ in range(5)]
            errors[threads] = max(abs(g - want) for g in got) / np.abs(x).sum()
        print(json.dumps(dict(errors=errors, stats=opal.jit.stats())))
    """)
    assert out["stats"]["precompiled"] == 1 and out["stats"]["compiles"] == 0
    assert all(error < 1e-6 for error in out["errors"].values()), out["errors"]


def test_a_star_dim_precompiles_its_size_one_kernel_too(tmp_path):
    # `*`: any size, 1 included: float32[*,?] is the kernels [1,?] and [?,?],
    # so a batch of one runs precompiled too (a `?` dim never takes a size-1
    # call: it may broadcast there).
    lib = tmp_path / "libaot.so"
    listed = aot(write_library(tmp_path, precompile=['"softplus" "(float32[*,?], float)"']),
                 "--emit=asm", "-o", "-")
    assert "softplus(float32[1,?], float)" in listed.stdout
    assert "softplus(float32[?,?], float)" in listed.stdout
    aot(write_library(tmp_path, precompile=['"softplus" "(float32[*,?], float)"']), "-o", lib)
    out = run_fresh(f"""
        import json, numpy as np, opal
        opal.ops.load_library({str(lib)!r})
        one = np.linspace(-3, 3, 10).reshape(1, 10).astype(np.float32)
        many = np.linspace(-3, 3, 60).reshape(6, 10).astype(np.float32)
        errors = [np.abs(opal.ops.aotlib.softplus(opal.tensor(m)).numpy() -
                         np.log1p(np.exp(m.astype(np.float64)))).max().item()
                  for m in (one, many)]
        print(json.dumps(dict(errors=errors, stats=opal.jit.stats())))
    """)
    assert max(out["errors"]) < 1e-6
    assert out["stats"]["precompiled"] == 2 and out["stats"]["compiles"] == 0
    too_many = aot(write_library(tmp_path, precompile=['"softplus" "(float32[*,*,*,*,*], float)"']),
                   "-o", lib, check=False)
    assert too_many.returncode != 0
    assert ("'(float32[*,*,*,*,*], float)': at most 4 dims may be '*' (each doubles the "
            "kernels compiled)") in too_many.stderr


def test_views_run_the_precompiled_kernel_from_a_copy(tmp_path):
    # A JIT kernel would read a slice in place (a key of its own); with the
    # contiguous form compiled ahead of time, the view runs that kernel from
    # a copy, and the compiler is never loaded.
    lib = tmp_path / "libaot.so"
    aot(write_library(tmp_path, precompile=['"softplus" "(float32[?,?], float)"']), "-o", lib)
    out = run_fresh(f"""
        import json, numpy as np, opal
        opal.ops.load_library({str(lib)!r})
        m = np.linspace(-3, 3, 60).reshape(6, 10).astype(np.float32)
        y = opal.ops.aotlib.softplus(opal.tensor(m)[:, 2:7], 1.5).numpy()
        z = opal.ops.aotlib.softplus(opal.tensor(m)[::2, ::3], 1.5).numpy()
        maps = open("/proc/self/maps").read()
        ref = lambda a: np.log1p(np.exp(1.5 * a.astype(np.float64))) / 1.5
        print(json.dumps(dict(y=np.abs(y - ref(m[:, 2:7])).max().item(),
                              z=np.abs(z - ref(m[::2, ::3])).max().item(),
                              stats=opal.jit.stats(), compiler_loaded="libopal_compiler" in maps)))
    """)
    assert out["y"] < 1e-6 and out["z"] < 1e-6
    assert out["stats"]["precompiled"] == 1
    assert out["compiler_loaded"] is False


def test_other_specializations_are_jit_compiled(tmp_path):
    lib = tmp_path / "libaot.so"
    aot(write_library(tmp_path), "-o", lib)
    out = run_fresh(f"""
        import json, numpy as np, opal
        opal.ops.load_library({str(lib)!r})
        x = np.linspace(-5, 5, 24).reshape(4, 6).astype(np.float32)
        y = opal.ops.aotlib.softplus(opal.tensor(x)).numpy()   # rank 2: not precompiled
        one = opal.ops.aotlib.softplus(opal.tensor(x[:1, 0])).numpy()  # size-1 dim: own key
        print(json.dumps(dict(err=np.abs(y - np.log1p(np.exp(x))).max().item(),
                              one=one.tolist(), stats=opal.jit.stats())))
    """)
    assert out["err"] < 1e-6
    assert out["one"] == pytest.approx([np.log1p(np.exp(-5.0))], rel=1e-6)
    assert out["stats"]["compiles"] == 2 and out["stats"]["precompiled"] == 1


def test_example_library_built_by_cmake():
    """examples/aot is built by opal's own build with opal_add_op_library."""
    out = run_fresh(f"""
        import json, numpy as np, opal
        opal.ops.load_library({EXAMPLE_LIB!r})
        x = np.random.default_rng(0).standard_normal((64, 33))
        r = opal.ops.myops.rms_norm(opal.tensor(x.astype(np.float32))).numpy()
        d = opal.ops.myops.rms_norm(opal.tensor(x), -1, 1e-3).numpy()
        ref = lambda eps: x / np.sqrt((x * x).mean(-1, keepdims=True) + eps)
        print(json.dumps(dict(r=np.abs(r - ref(1e-6)).max().item(),
                              d=np.abs(d - ref(1e-3)).max().item(), stats=opal.jit.stats())))
    """)
    assert out["r"] < 1e-5 and out["d"] < 1e-12
    assert out["stats"]["compiles"] == 0 and out["stats"]["precompiled"] == 4


def test_cpp_program_loads_the_library_with_dlopen():
    demo = os.path.join(BUILD_DIR, "bin", "myops-demo")
    result = subprocess.run([demo, EXAMPLE_LIB], capture_output=True, text=True,
                            env=dict(os.environ, OPAL_CACHE_DISABLE="1"))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "precompiled kernels installed: 4, compiles: 0, calls served: 2" in result.stdout


def test_external_project_finds_opal(tmp_path):
    """find_package(opal) from the build tree, opal_add_op_library, and a C++
    program linked against opal::opal, in a project of its own."""
    if not shutil.which("cmake"):
        pytest.skip("cmake is not installed")
    build = tmp_path / "build"
    generator = ["-G", "Ninja"] if shutil.which("ninja") else []
    configure = subprocess.run(
        ["cmake", *generator, "-S", os.path.dirname(EXAMPLE), "-B", str(build),
         "-Dopal_DIR=" + os.path.join(BUILD_DIR, "lib", "cmake", "opal")],
        capture_output=True, text=True)
    assert configure.returncode == 0, configure.stdout + configure.stderr
    built = subprocess.run(["cmake", "--build", str(build)], capture_output=True, text=True)
    assert built.returncode == 0, built.stdout + built.stderr
    run = subprocess.run([str(build / "myops-demo"), str(build / "libmyops.so")],
                         capture_output=True, text=True,
                         env=dict(os.environ, OPAL_CACHE_DISABLE="1"))
    assert run.returncode == 0, run.stdout + run.stderr
    assert "compiles: 0" in run.stdout


def build_from_parts(tmp_path, edit):
    """Builds the library from opal-aot's two parts after `edit`ing the C."""
    source = write_library(tmp_path)
    archive, stub = tmp_path / "kernels.a", tmp_path / "register.c"
    aot(source, f"--archive={archive}", f"--stub={stub}")
    stub.write_text(edit(stub.read_text()))
    lib = tmp_path / "libedited.so"
    libdir = os.path.join(BUILD_DIR, "lib")
    subprocess.run(["cc", "-shared", "-fPIC", "-o", str(lib), str(stub), str(archive),
                    "-L" + libdir, "-Wl,-rpath," + libdir, "-lopal", "-lm"], check=True)
    return lib


LOAD_AND_REPORT = """
    import json, opal
    try:
        opal.ops.load_library({lib!r})
        error = None
    except RuntimeError as e:
        error = str(e)
    print(json.dumps(dict(error=error,
                          defined="aotlib::softplus" in opal._C._dispatch_all_op_names())))
"""


def test_library_for_another_opal_version_refuses_to_load(tmp_path):
    lib = build_from_parts(tmp_path, lambda c: re.sub(r'"\d+\.\d+\.\d+"', '"0.0.1"', c, 1))
    out = run_fresh(LOAD_AND_REPORT.format(lib=str(lib)))
    import opal
    version = opal.__version__
    assert out["error"] == (f"op library {lib} failed to register:\n"
                            f"aotlib.opal.mlir was built for opal 0.0.1, but this is opal "
                            f"{version}: rebuild it with this opal's opal-aot")
    assert out["defined"] is False


def test_library_for_another_cpu_refuses_to_load(tmp_path):
    # XOP is an AMD Bulldozer-family extension that no current CPU has.
    lib = build_from_parts(tmp_path, lambda c: c.replace('"+', '"+xop,+', 1))
    out = run_fresh(LOAD_AND_REPORT.format(lib=str(lib)))
    assert out["error"] is not None
    assert "needs CPU features this machine lacks (xop): rebuild it with this opal's " \
           "opal-aot on this machine, or for an older CPU (opal-aot --cpu=x86-64)" in out["error"]
    assert out["defined"] is False


def test_library_with_a_feature_opal_cannot_check_refuses_to_load(tmp_path):
    # Fails closed: a feature name opal has no CPUID test for is not assumed
    # present.
    lib = build_from_parts(tmp_path, lambda c: c.replace('"+', '"+quantum-fpu,+', 1))
    out = run_fresh(LOAD_AND_REPORT.format(lib=str(lib)))
    assert "needs CPU features this machine lacks (quantum-fpu (unknown to this opal))" \
        in out["error"]
    assert out["defined"] is False


def load_twice(tmp_path, first, *aot_flags, **library):
    """Builds one library, copies it and loads both in a fresh process;
    returns the second load's error and the op's dispatch table."""
    aot(write_library(tmp_path, **library), "-o", first, *aot_flags)
    second = first.with_name(first.stem + "2.so")
    shutil.copy(first, second)
    op = library.get("ns", "aotlib") + "::softplus"
    out = run_fresh(f"""
        import json, opal
        opal.ops.load_library({str(first)!r})
        try:
            opal.ops.load_library({str(second)!r})
            error = None
        except RuntimeError as e:
            error = str(e)
        print(json.dumps(dict(error=error, table=opal._C._dispatch_dump_table({op!r}))))
    """)
    assert str(first) in out["table"] and str(second) not in out["table"]
    return second, out


def test_a_second_def_library_of_a_namespace_is_refused(tmp_path):
    second, out = load_twice(tmp_path, tmp_path / "liba.so")
    assert f"op library {second} failed to register:\naotlib.opal.mlir: Only a single " \
           "OPAL_LIBRARY can be used to register the namespace aotlib" in out["error"]


def test_fragment_defining_an_existing_op_fails_and_registers_nothing(tmp_path):
    frag2, out = load_twice(tmp_path, tmp_path / "libfrag.so", "--fragment", ns="fraglib",
                            name="frag.opal.mlir")
    assert out["error"].startswith(
        f"op library {frag2} failed to register:\nfrag.opal.mlir: Tried to register an operator "
        "(fraglib::softplus(Tensor x, float beta=1.) -> Tensor) with the same name and overload "
        "name multiple times.")


@pytest.mark.parametrize("entry, message", [
    ('"softplus" "(float32[?,2], float)"',
     "aotlib::softplus: specialization (float32[?,2], float): argument 'x': dim '2' of "
     "float32[?,2]: write '?' for any size or '1' for size one; other sizes only where "
     "kernels are specialized on them (a convolution's input of 0 channels, its weight's 8 "
     "or more channels per group with groups 'int')"),
    ('"softplus" "(float32[?], 0.5)"',
     "aotlib::softplus: specialization (float32[?], 0.5): argument 'beta': a float is a "
     "runtime argument: write 'float', not '0.5'"),
    ('"softplus" "(float33[?])"',
     "aotlib::softplus: specialization (float33[?]): argument 'x': unknown dtype 'float33'"),
    ('"softplus" "(float32[?], float, 1)"',
     "aotlib::softplus: specialization (float32[?], float, 1): gives 3 arguments, but "
     "aotlib::softplus takes 2"),
    ('"softplus" "float32[?]"',
     "aotlib::softplus: specialization float32[?]: expected '(' argument, ... ')' such as "
     "(float32[?,?], float)"),
    ('"nothere" "(float32[?])"',
     "opal.precompile names aotlib::nothere, which is not defined"),
])
def test_opal_aot_reports_bad_precompile_entries(tmp_path, entry, message):
    source = write_library(tmp_path, precompile=[entry])
    result = aot(source, "-o", tmp_path / "libx.so", check=False)
    assert result.returncode == 1
    column = 21 + len(entry.split(" ")[0])
    assert result.stderr.strip() == f"opal-aot: {source}:11:{column}: " \
                                    f"error: {message}"
    assert not (tmp_path / "libx.so").exists()


def test_opal_aot_rejects_unknown_cpu_and_missing_outputs(tmp_path):
    source = write_library(tmp_path)
    result = aot(source, "-o", tmp_path / "libx.so", "--cpu=pentium9", check=False)
    assert result.returncode == 1
    assert "opal-aot: unknown CPU 'pentium9' for x86_64: use native, an ISA level (x86-64, " \
           "x86-64-v2, x86-64-v3, x86-64-v4) or a CPU name such as skylake" in result.stderr
    result = aot(source, check=False)
    assert result.stderr.strip() == \
        "opal-aot: give -o lib<name>.so, or both --archive=FILE.a and --stub=FILE.c"


def test_portable_cpu_level(tmp_path):
    lib = tmp_path / "libportable.so"
    aot(write_library(tmp_path), "-o", lib, "--cpu=x86-64")
    out = run_fresh(f"""
        import json, numpy as np, opal
        opal.ops.load_library({str(lib)!r})
        x = np.linspace(-5, 5, 100).astype(np.float32)
        y = opal.ops.aotlib.softplus(opal.tensor(x)).numpy()
        print(json.dumps(dict(err=np.abs(y - np.log1p(np.exp(x))).max().item(),
                              stats=opal.jit.stats())))
    """)
    assert out["err"] < 1e-6 and out["stats"]["compiles"] == 0


def test_a_builtin_op_registered_on_before_loading_is_not_ignored(tmp_path):
    """The precompiled kernel fused aten::exp's built-in definition; with a
    CPU kernel of the user's own for aten::exp, the JIT runs the composite op
    by op through it instead."""
    lib = tmp_path / "libaot.so"
    aot(write_library(tmp_path), "-o", lib)
    out = run_fresh(f"""
        import json, numpy as np, opal
        override = opal.library.Library("aten", "IMPL")
        override.impl("exp", lambda x: opal.tensor(np.zeros_like(x.numpy())), "CPU")
        opal.ops.load_library({str(lib)!r})
        y = opal.ops.aotlib.softplus(opal.tensor(np.ones(5, np.float32)), 2.0).numpy()
        print(json.dumps(dict(y=y.tolist(), stats=opal.jit.stats())))
    """)
    assert out["y"] == [0.0] * 5
    assert out["stats"]["precompiled"] == 0


FAKE_DRIVER_SOURCE = os.path.join(os.path.dirname(__file__), "inputs", "fake_cuda.c")
PTXAS = os.path.join(os.environ.get("CUDA_HOME", "/usr/local/cuda"), "bin", "ptxas")


@pytest.mark.skipif(shutil.which("cc") is None or not os.access(PTXAS, os.X_OK),
                    reason="needs a C compiler and the CUDA toolkit's ptxas")
def test_cuda_kernels_per_arch_run_without_the_compiler(tmp_path):
    # The launch path against the fake driver (test_cuda_launch.py): which
    # image loads and whether anything compiles, per device capability.
    driver = tmp_path / "libfakecuda.so"
    subprocess.run(["cc", "-shared", "-fPIC", FAKE_DRIVER_SOURCE, "-o", str(driver)], check=True)
    lib = tmp_path / "libaot.so"
    built = aot(write_library(tmp_path, precompile=['"softplus" "(float32[?], float)"']),
                "-o", lib, "--cuda=sm_90,compute_80", "-v")
    # -v reports each kernel as its compile starts, and its time when done.
    lines = [re.sub(r" in \d+ ms$", " in N ms", line) for line in built.stderr.splitlines()]
    assert lines == [
        "opal-aot: compiling aotlib::softplus(float32[?], float)",
        "opal-aot: compiled aotlib::softplus(float32[?], float) in N ms",
        "opal-aot: compiling aotlib::softplus(float32[?], float) for sm_90",
        "opal-aot: compiled aotlib::softplus(float32[?], float) for sm_90 in N ms",
        "opal-aot: compiling aotlib::softplus(float32[?], float) for compute_80",
        "opal-aot: compiled aotlib::softplus(float32[?], float) for compute_80 in N ms"]
    script = f"""
        import json, numpy as np, opal
        opal.ops.load_library({str(lib)!r})
        x = opal.tensor(np.ones(1000, dtype=np.float32), device="cuda")
        y = opal.ops.aotlib.softplus(x, 2.0)
        maps = open("/proc/self/maps").read()
        print(json.dumps(dict(device=str(y.device), stats=opal.jit.stats(),
                              compiler_loaded="libopal_compiler" in maps)))
    """
    results = {}
    for capability in ("90", "80", "75"):
        log = tmp_path / f"driver{capability}.log"
        out = run_fresh(script, OPAL_LIBCUDA=str(driver), FAKE_CUDA_LOG=str(log),
                        FAKE_CUDA_CAPABILITY=capability)
        loads = [line.split()[1] for line in log.read_text().splitlines()
                 if line.startswith("load")]
        results[capability] = (out["stats"]["compiles"], out["compiler_loaded"], loads)
        assert out["device"] == "cuda:0" and out["stats"]["precompiled"] == 3
    assert results == {
        "90": (0, False, ["cubin"]),  # the library's cubin
        "80": (0, False, ["ptx"]),    # its PTX, compiled by the driver
        "75": (1, True, ["cubin"]),   # no image for sm_75: the JIT compiles one
    }


@pytest.mark.skipif(not opal.cuda.is_available(),
                    reason=f"needs a CUDA device: {opal.cuda.unavailable_reason()}")
@pytest.mark.parametrize("kind", ["sm", "compute"])
def test_a_librarys_cuda_kernels_compute_on_the_gpu(tmp_path, kind):
    # The library's cubin (sm_XX), or its PTX compiled by the driver
    # (compute_XX), for this device's capability: loaded and run with no
    # compiler, with the values numpy gives.
    major, minor = opal.cuda.get_device_capability(0)
    lib = tmp_path / "libaot.so"
    aot(write_library(tmp_path, precompile=['"softplus" "(float32[?], float)"']),
        "-o", lib, f"--cuda={kind}_{major}{minor}")
    out = run_fresh(f"""
        import json, numpy as np, opal
        opal.ops.load_library({str(lib)!r})
        a = np.random.default_rng(5).uniform(-20, 20, 100003).astype(np.float32)
        y = opal.ops.aotlib.softplus(opal.tensor(a, device="cuda"), 2.0).cpu().numpy()
        want = np.logaddexp(0, 2.0 * a.astype(np.float64)) / 2.0
        maps = open("/proc/self/maps").read()
        print(json.dumps(dict(error=float(np.max(np.abs(y - want) / np.maximum(1, np.abs(want)))),
                              stats=opal.jit.stats(), compiler_loaded="libopal_compiler" in maps)))
    """)
    assert out["stats"]["compiles"] == 0 and not out["compiler_loaded"]
    assert out["error"] < 1e-5
