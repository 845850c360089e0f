"""lit for your own op libraries: FileCheck tests of opal-opt, opal-schema
and opal-aot in a folder of yours, without copying opal's lit.cfg.py.

    opal-lit TESTS_DIR [lit options]        (or: python -m opal.lit ...)
    opal-lit --version                      (opal's version and build)

runs every *.mlir, *.schema and *.test file under TESTS_DIR (``Inputs``
folders excluded) whose ``// RUN:`` lines name opal-opt, opal-schema,
opal-aot, FileCheck, not or count; ``%python`` is this interpreter with
opal importable. A folder with a lit.cfg.py of its own is run with it; such
a config reuses opal's set-up with two lines::

    import opal.lit
    opal.lit.configure(config)

docs/testing.md has a complete example.
"""

import os
import subprocess
import sys
import tempfile

from . import _config

__all__ = ["tools_dir", "llvm_tools_dir", "configure", "main"]

_PACKAGE = os.path.dirname(os.path.abspath(__file__))


def tools_dir():
    """Where opal-opt, opal-schema and opal-aot are: the package's bin/ for
    a pip install, <prefix>/bin for cmake --install, the build tree's bin/
    for a build."""
    for candidate in (os.path.join(_PACKAGE, "bin"),                         # pip install (a wheel)
                      os.path.join(_PACKAGE, "..", "..", "..", "..", "bin"),  # lib/python3/dist-packages/opal
                      os.path.join(_PACKAGE, "..", "..", "bin")):           # build/python/opal
        if os.path.isfile(os.path.join(candidate, "opal-opt")):
            return os.path.abspath(candidate)
    raise RuntimeError(f"opal.lit: cannot find opal-opt next to the opal package at {_PACKAGE}")


def llvm_tools_dir():
    """Where FileCheck, not, count and lit are (LLVM 22's tools)."""
    return _config.LLVM_TOOLS_DIR


def configure(config, suffixes=(".mlir", ".schema", ".test")):
    """Sets up a lit `config` for opal's tools: the test format, the file
    suffixes, PATH (opal's tools, then LLVM's), %python, and PYTHONPATH so
    that %python scripts import this opal."""
    import lit.formats
    config.test_format = lit.formats.ShTest(True)
    config.suffixes = list(suffixes)
    config.excludes = ["Inputs", "lit.cfg.py", "lit.site.cfg.py", "CMakeLists.txt"]
    path = [tools_dir(), llvm_tools_dir(), config.environment.get("PATH", os.environ["PATH"])]
    config.environment["PATH"] = os.pathsep.join(path)
    python_root = os.path.dirname(_PACKAGE)
    config.environment["PYTHONPATH"] = os.pathsep.join(
        [python_root] + [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p])
    config.substitutions.append(("%python", sys.executable))
    # Kernels compiled by tests go to the user's cache unless they say otherwise.
    for name in ("HOME", "XDG_CACHE_HOME", "OPAL_CACHE_DIR", "OPAL_CACHE_DISABLE"):
        if name in os.environ:
            config.environment[name] = os.environ[name]


_SITE_CONFIG = """\
# Written by opal-lit: the tests in {source!r}, with opal's set-up.
import opal.lit
config.name = {name!r}
config.test_source_root = {source!r}
config.test_exec_root = {exec_root!r}
opal.lit.configure(config)
"""


def main(argv=None):
    args = list(sys.argv[1:] if argv is None else argv)
    if "--version" in args:
        from opal import _C
        print(_C._version_text())
        return 0
    folders = [a for a in args if not a.startswith("-") and os.path.isdir(a)]
    options = [a for a in args if a not in folders]
    if not folders:
        named = [a for a in args if not a.startswith("-")]
        print(f"opal-lit: no folder named {named[0]}" if named else
              "usage: opal-lit TESTS_DIR... [lit options]  (runs the lit tests in each folder "
              "with opal's tools on PATH)", file=sys.stderr)
        return 2
    lit = [sys.executable, os.path.join(llvm_tools_dir(), "lit")]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([os.path.dirname(_PACKAGE)] +
                                        [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    status = 0
    with tempfile.TemporaryDirectory(prefix="opal-lit-") as work:
        targets = []
        for i, folder in enumerate(folders):
            folder = os.path.abspath(folder)
            if os.path.isfile(os.path.join(folder, "lit.cfg.py")):
                targets.append(folder)  # the folder's own configuration
                continue
            exec_root = os.path.join(work, str(i))
            os.makedirs(exec_root)
            with open(os.path.join(exec_root, "lit.site.cfg.py"), "w") as f:
                f.write(_SITE_CONFIG.format(source=folder, exec_root=exec_root,
                                            name="opal-lit " + os.path.basename(folder)))
            targets.append(exec_root)
        status = subprocess.call(lit + ["-sv"] + options + targets, env=env)
    return status


if __name__ == "__main__":
    sys.exit(main())
