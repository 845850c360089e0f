"""pytest setup: the tests import the built package from build/python.

scripts/run-tests.py puts it on PYTHONPATH; run by hand with
    PYTHONPATH=build/python /usr/bin/python3 -m pytest python/test
"""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD_DIR = os.environ.get("OPAL_BUILD_DIR", os.path.join(ROOT, "build"))
package_dir = os.path.join(BUILD_DIR, "python")
if package_dir not in sys.path and os.path.isdir(package_dir):
    sys.path.insert(0, package_dir)
# Subprocesses started by the tests import the same package.
if os.path.isdir(package_dir) and package_dir not in os.environ.get("PYTHONPATH", "").split(":"):
    os.environ["PYTHONPATH"] = ":".join(p for p in (package_dir, os.environ.get("PYTHONPATH"))
                                        if p)

# Compiled kernels go to a cache of this run's own, unless the caller chose one.
if "OPAL_CACHE_DIR" not in os.environ:
    import tempfile
    os.environ["OPAL_CACHE_DIR"] = tempfile.mkdtemp(prefix="opal-test-cache-")


import pytest  # noqa: E402


@pytest.fixture(scope="module")
def load_op_library(tmp_path_factory):
    """load_op_library(namespace, text): writes an op-library file, loads it
    and returns opal.ops.<namespace>; the module's libraries are destroyed
    after its tests, releasing their namespaces."""
    import opal
    loaded = []

    def load(namespace, text):
        path = tmp_path_factory.mktemp(namespace) / f"{namespace}.opal.mlir"
        path.write_text(text)
        loaded.extend(opal.library.load(str(path)))
        return getattr(opal.ops, namespace)

    yield load
    for library in loaded:
        library._destroy()
