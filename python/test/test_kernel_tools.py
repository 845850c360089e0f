"""Compiled kernels are visible to perf and gdb: OPAL_PERF_MAP=1 writes
/tmp/perf-<pid>.map lines naming each kernel function, and every loaded
object is registered with GDB's JIT interface, so gdb names kernel code
(compiled here or loaded from the disk cache without the compiler)."""

import os
import shutil
import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent("""
    import os, signal, sys
    import numpy as np
    import opal
    x = opal.tensor(np.ones((3, 4), np.float32))
    opal.ops.aten.gelu(x)
    lines = open(f"/tmp/perf-{os.getpid()}.map").read().splitlines()
    print("\\n".join(lines))
    entry = next(l for l in lines if l.endswith(" _opal_packed_opal_kernel"))
    open(sys.argv[1], "w").write(entry.split()[0])
    os.unlink(f"/tmp/perf-{os.getpid()}.map")
    if len(sys.argv) > 2:
        os.kill(os.getpid(), signal.SIGTRAP)  # gdb stops here
""")


def env_for(cache):
    return dict(os.environ, OPAL_PERF_MAP="1", OPAL_CACHE_DIR=str(cache))


@pytest.mark.parametrize("warm", [False, True])
def test_perf_map_names_every_kernel_function(tmp_path, warm):
    if warm:  # a first process fills the cache; the second loads without the compiler
        subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path / "a")], check=True,
                       env=env_for(tmp_path / "cache"), capture_output=True)
    out = subprocess.run([sys.executable, "-c", SCRIPT, str(tmp_path / "a")], check=True,
                         env=env_for(tmp_path / "cache"), capture_output=True, text=True).stdout
    lines = out.splitlines()
    assert lines, out
    for line in lines:
        start, size, owner, rest = line.split(" ", 3)
        int(start, 16), int(size, 16)
        assert owner == "opal" and rest.startswith("aten::gelu(float32[?,?], str='none') ")
    names = {line.rsplit(" ", 1)[1] for line in lines}
    assert {"_opal_packed_opal_kernel", "_opal_packed_opal_kernel_shapes"} <= names


def test_perf_map_is_off_by_default(tmp_path):
    script = "import os, numpy as np, opal; opal.ops.aten.gelu(opal.tensor(np.ones(3, np.float32)));" \
             "print(os.path.exists(f'/tmp/perf-{os.getpid()}.map'))"
    env = dict(os.environ, OPAL_CACHE_DIR=str(tmp_path))
    env.pop("OPAL_PERF_MAP", None)
    out = subprocess.run([sys.executable, "-c", script], env=env, check=True,
                         capture_output=True, text=True).stdout
    assert out.strip() == "False"


@pytest.mark.skipif(shutil.which("gdb") is None, reason="gdb is not installed")
def test_gdb_names_kernel_code(tmp_path):
    address_file = tmp_path / "address"
    commands = tmp_path / "commands.gdb"
    commands.write_text(textwrap.dedent(f"""
        set pagination off
        set confirm off
        run
        python import gdb; print(gdb.execute("info symbol " + str(int(open("{address_file}").read(), 16)), to_string=True))
        kill
    """))
    result = subprocess.run(["gdb", "-q", "-batch", "-x", str(commands), "--args", sys.executable,
                             "-c", SCRIPT, str(address_file), "stop"],
                            env=env_for(tmp_path / "cache"), capture_output=True, text=True,
                            timeout=300)
    assert "_opal_packed_opal_kernel in section .ltext of <in-memory@" in result.stdout, \
        result.stdout + result.stderr
