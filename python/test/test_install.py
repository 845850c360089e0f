"""cmake --install puts everything a user runs under a prefix, and it works
from there, outside the repository: the Python package, opal-opt,
opal-schema, opal-aot and opal-lit (running docs/testing.md's example
folder), an ahead-of-time library built and loaded with the installed
tools; cpack -G DEB packs the same tree for /usr."""

import glob
import os
import shutil
import subprocess
import sys

import pytest

from conftest import BUILD_DIR, ROOT

EXAMPLE_TESTS = os.path.join(ROOT, "examples", "lit-tests")


@pytest.fixture(scope="module")
def prefix(tmp_path_factory):
    prefix = tmp_path_factory.mktemp("prefix")
    subprocess.run(["cmake", "--install", BUILD_DIR, "--prefix", str(prefix)], check=True,
                   capture_output=True)
    return prefix


def clean_env(prefix, **extra):
    """An environment that knows nothing of the repository or its build."""
    env = {"PATH": "/usr/bin:/bin", "HOME": os.environ.get("HOME", "/tmp"),
           "PYTHONPATH": str(prefix / "lib" / "python3" / "dist-packages"),
           "OPAL_CACHE_DISABLE": "1"}
    env.update(extra)
    return env


def test_everything_a_user_runs_is_installed(prefix):
    for path in ["bin/opal-opt", "bin/opal-schema", "bin/opal-aot", "bin/opal-lit",
                 "lib/libopal.so", "lib/libopal_compiler.so", "include/opal/Config.h",
                 "include/opal/Dispatch/Library.h", "include/opal/Dialect/OpalOps.h.inc",
                 "lib/cmake/opal/opalConfig.cmake", "lib/cmake/opal/OpalOpLibrary.cmake",
                 "lib/python3/dist-packages/opal/__init__.py",
                 "lib/python3/dist-packages/opal/lit.py",
                 "lib/python3/dist-packages/opal/_config.py"]:
        assert (prefix / path).exists(), path
    assert glob.glob(str(prefix / "lib/python3/dist-packages/opal/_C*.so"))
    for tool in ("opal-opt", "opal-schema", "opal-aot"):
        assert os.access(prefix / "bin" / tool, os.X_OK)


def test_the_installed_package_imports_and_compiles_outside_the_repo(prefix, tmp_path):
    script = ("import opal, numpy as np; print(opal.__file__); "
              "print(opal.ops.aten.softplus(opal.zeros(2), 1.0).tolist())")
    out = subprocess.run([sys.executable, "-c", script], env=clean_env(prefix), cwd=tmp_path,
                         check=True, capture_output=True, text=True).stdout.splitlines()
    assert out[0] == str(prefix / "lib/python3/dist-packages/opal/__init__.py")
    assert out[1].startswith("[0.693147")


def test_opal_lit_runs_a_users_folder_from_the_prefix(prefix, tmp_path):
    folder = tmp_path / "my-tests"
    shutil.copytree(EXAMPLE_TESTS, folder)
    result = subprocess.run([str(prefix / "bin" / "opal-lit"), str(folder)],
                            env=clean_env(prefix), cwd=tmp_path, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Passed: 4" in result.stdout
    # A folder with a lit.cfg.py of its own that reuses opal's set-up.
    shutil.copy(os.path.join(ROOT, "examples", "lit-tests-config", "lit.cfg.py"), folder)
    result = subprocess.run([str(prefix / "bin" / "opal-lit"), str(folder)],
                            env=clean_env(prefix), cwd=tmp_path, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Passed: 4" in result.stdout
    # A failing test fails the run (and is named under the folder's own
    # configuration).
    (folder / "broken.mlir").write_text("// RUN: opal-opt %s | FileCheck %s\n// CHECK: nothing\n")
    result = subprocess.run([str(prefix / "bin" / "opal-lit"), str(folder)],
                            env=clean_env(prefix), cwd=tmp_path, capture_output=True, text=True)
    assert result.returncode == 1 and "FAIL: mylib :: broken.mlir" in result.stdout


def test_an_aot_library_built_and_loaded_with_the_installed_tools(prefix, tmp_path):
    lib = tmp_path / "libmyops.so"
    subprocess.run([str(prefix / "bin" / "opal-aot"),
                    os.path.join(ROOT, "examples", "aot", "myops.opal.mlir"), "-o", str(lib)],
                   env=clean_env(prefix), check=True, capture_output=True, cwd=tmp_path)
    script = (f"import opal; opal.ops.load_library({str(lib)!r}); "
              "print(opal.ops.myops.softplus(opal.zeros(3), 2.0).tolist(), "
              "opal.jit.stats()['compiles'], opal.jit.stats()['precompiled'])")
    out = subprocess.run([sys.executable, "-c", script], env=clean_env(prefix), cwd=tmp_path,
                         check=True, capture_output=True, text=True).stdout.split()
    assert out[-2:] == ["0", "4"]  # precompiled kernels: nothing compiles


@pytest.mark.skipif(shutil.which("dpkg-deb") is None, reason="dpkg-deb is not installed")
def test_cpack_builds_a_debian_package(tmp_path):
    result = subprocess.run(["cpack", "-G", "DEB", "-B", str(tmp_path),
                             "--config", os.path.join(BUILD_DIR, "CPackConfig.cmake")],
                            capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    debs = glob.glob(str(tmp_path / "*.deb"))
    assert len(debs) == 1 and os.path.basename(debs[0]).startswith("opal_0.1.0_")
    listing = subprocess.run(["dpkg-deb", "-c", debs[0]], capture_output=True, text=True,
                             check=True).stdout
    for path in ["./usr/bin/opal-opt", "./usr/bin/opal-lit", "./usr/lib/libopal.so",
                 "./usr/lib/python3/dist-packages/opal/__init__.py",
                 "./usr/lib/cmake/opal/opalConfig.cmake"]:
        assert path in listing, path
    depends = subprocess.run(["dpkg-deb", "-f", debs[0], "Depends"], capture_output=True,
                             text=True, check=True).stdout
    assert "libmlir-22" in depends and "python3-numpy" in depends
    # Runtime packages, and the C compiler opal-aot links with; no -dev one.
    assert "libomp5" in depends and "gcc | c-compiler" in depends, depends
    assert "-dev" not in depends, depends
