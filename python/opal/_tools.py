"""The command-line tools of a pip-installed opal: the entry points pip puts
on PATH (pyproject.toml) run the binaries inside the package, opal/bin."""

import os
import sys

_BIN = os.path.join(os.path.dirname(os.path.abspath(__file__)), "bin")


def _run(tool):
    path = os.path.join(_BIN, tool)
    if not os.path.isfile(path):
        sys.exit(f"{tool}: not found at {path}: this opal was not installed by pip "
                 f"(a build has it at build/bin/{tool})")
    os.execv(path, [tool] + sys.argv[1:])


def opal_opt():
    _run("opal-opt")


def opal_aot():
    _run("opal-aot")


def opal_schema():
    _run("opal-schema")


def opal_lit():
    from opal.lit import main
    sys.exit(main())
