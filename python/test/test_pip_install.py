"""`pip install .` into a fresh virtual environment (no system packages,
offline: numpy and scikit-build-core come from the wheelhouse
scripts/bootstrap-python.sh downloads): the package imports and compiles
outside the repository, its metadata has the version, the tools are on the
environment's PATH, opal-lit runs a user's folder, and find_package(opal)
finds the installed CMake package (examples/aot built against it and run).

The wheel builds in build-wheel/ beside build/, so ccache (keyed on paths
relative to the source) reuses build/'s objects."""

import os
import shutil
import subprocess

import pytest

from conftest import ROOT

WHEELHOUSE = os.path.join(os.environ.get("OPAL_VENV", os.path.expanduser("~/.cache/opal-venv")),
                          "wheelhouse")

if not os.path.isdir(WHEELHOUSE):
    pytest.skip(f"no wheelhouse at {WHEELHOUSE} (scripts/bootstrap-python.sh downloads it)",
                allow_module_level=True)


@pytest.fixture(scope="module")
def venv(tmp_path_factory):
    venv = tmp_path_factory.mktemp("venv")
    # Debian's interpreter, as a user would make an environment.
    subprocess.run(["/usr/bin/python3", "-m", "venv", str(venv)], check=True)
    pip = [str(venv / "bin" / "python"), "-m", "pip", "install", "-q",
           "--disable-pip-version-check", "--no-index", "--find-links", WHEELHOUSE]
    subprocess.run(pip + ["numpy", "scikit-build-core"], check=True, capture_output=True)
    done = subprocess.run(pip + ["--no-build-isolation", ROOT], capture_output=True, text=True,
                          timeout=1800)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    return venv


def in_venv(venv, *command, cwd):
    """`command` in the environment, as its activation would run it: its bin
    first on PATH, nothing of the repository or the build."""
    env = {"PATH": f"{venv / 'bin'}:/usr/bin:/bin", "HOME": os.environ.get("HOME", "/tmp"),
           "OPAL_CACHE_DISABLE": "1"}
    return subprocess.run(list(command), env=env, cwd=cwd, capture_output=True, text=True,
                          timeout=600)


def test_the_package_imports_with_its_version_and_compiles(venv, tmp_path):
    script = ("import importlib.metadata, opal; print(opal.__file__); "
              "print(opal.__version__, importlib.metadata.version('opal')); "
              "print(opal.ops.aten.softplus(opal.zeros(2), 1.0).tolist(), "
              "opal.jit.stats()['compiles'])")
    done = in_venv(venv, "python", "-c", script, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    where, versions, result = done.stdout.splitlines()
    assert where.startswith(str(venv)) and where.endswith("site-packages/opal/__init__.py")
    import opal
    assert versions == f"{opal.__version__} {opal.__version__}"
    assert result.startswith("[0.693147") and result.endswith(" 1")  # compiled there


def test_the_tools_are_on_the_environment_s_path(venv, tmp_path):
    import opal
    for tool in ("opal-opt", "opal-aot", "opal-schema", "opal-lit"):
        assert shutil.which(tool, path=str(venv / "bin")), tool
        done = in_venv(venv, tool, "--version", cwd=tmp_path)
        assert done.returncode == 0, (tool, done.stderr)
        assert f"opal {opal.__version__} (build " in done.stdout, (tool, done.stdout)
    folder = tmp_path / "my-tests"
    shutil.copytree(os.path.join(ROOT, "examples", "lit-tests"), folder)
    done = in_venv(venv, "opal-lit", str(folder), cwd=tmp_path)
    assert done.returncode == 0 and "Passed: 4" in done.stdout, done.stdout + done.stderr


def test_find_package_finds_the_installed_opal(venv, tmp_path):
    prefix = in_venv(venv, "python", "-m", "opal.utils.cmake", cwd=tmp_path)
    assert prefix.returncode == 0, prefix.stderr
    prefix = prefix.stdout.strip()
    assert prefix.startswith(str(venv)) and prefix.endswith("site-packages/opal")
    build = tmp_path / "build"
    generator = ["-G", "Ninja"] if shutil.which("ninja") else []
    configure = in_venv(venv, "cmake", *generator, "-S", os.path.join(ROOT, "examples", "aot"),
                        "-B", str(build), "-DCMAKE_PREFIX_PATH=" + prefix, cwd=tmp_path)
    assert configure.returncode == 0, configure.stdout + configure.stderr
    built = in_venv(venv, "cmake", "--build", str(build), cwd=tmp_path)
    assert built.returncode == 0, built.stdout + built.stderr
    run = in_venv(venv, str(build / "myops-demo"), str(build / "libmyops.so"), cwd=tmp_path)
    assert run.returncode == 0 and "compiles: 0" in run.stdout, run.stdout + run.stderr
