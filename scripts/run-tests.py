#!/usr/bin/env python3
"""Runs opal's three test layers and prints one summary line.

    lit + FileCheck   test/          (tools, IR, %python scripts)
    GoogleTest        unittests/     (through ctest)
    pytest            python/test/   (the Python API)

Each layer writes JUnit XML under <build>/test-results/; the counts come from
there. The last line printed is `N passed, N failed` (`, N skipped` when some
were skipped). The exit code is non-zero if any test failed or a layer could
not run.
"""

import argparse
import os
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LLVM_BIN = "/usr/lib/llvm-22/bin"


def count_junit(path):
    """Returns (passed, failed, skipped) for a JUnit XML file."""
    passed = failed = skipped = 0
    for case in ET.parse(path).getroot().iter("testcase"):
        status = case.get("status", "")
        if case.find("failure") is not None or case.find("error") is not None \
                or status == "fail":
            failed += 1
        elif case.find("skipped") is not None or status in ("notrun", "disabled"):
            skipped += 1
        else:
            passed += 1
    return passed, failed, skipped


def run_layer(name, command, xml_path, env=None, ok_codes=(0,)):
    print(f"==> {name}: {' '.join(command)}", flush=True)
    if os.path.exists(xml_path):
        os.remove(xml_path)
    start = time.monotonic()
    code = subprocess.call(command, cwd=ROOT, env=env)
    elapsed = time.monotonic() - start
    if not os.path.exists(xml_path):
        print(f"{name}: runner exited with {code} and wrote no results")
        return 0, 1, 0
    passed, failed, skipped = count_junit(xml_path)
    if code not in ok_codes and failed == 0:
        # The runner failed for a reason the XML does not show.
        print(f"{name}: runner exited with {code}")
        failed += 1
    print(f"{name}: {passed} passed, {failed} failed, {skipped} skipped "
          f"({elapsed:.1f} s)", flush=True)
    return passed, failed, skipped


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build-dir", default="build")
    parser.add_argument("--jobs", default="2")
    parser.add_argument("--python", default="/usr/bin/python3",
                        help="the Python that runs pytest: make test passes the virtual "
                             "environment of scripts/bootstrap-python.sh, whose PyTorch 2 is "
                             "the tests' reference (without PyTorch, its tests skip)")
    args = parser.parse_args()

    build = os.path.abspath(os.path.join(ROOT, args.build_dir))
    results = os.path.join(build, "test-results")
    os.makedirs(results, exist_ok=True)
    python_env = dict(os.environ)
    python_env["PYTHONPATH"] = os.pathsep.join(
        filter(None, [os.path.join(build, "python"),
                      os.environ.get("PYTHONPATH")]))
    python_env["OPAL_BUILD_DIR"] = build

    layers = [
        ("lit", [os.path.join(LLVM_BIN, "lit"), "-sv", "-j", args.jobs,
                 f"--xunit-xml-output={results}/lit.xml",
                 os.path.join(build, "test")],
         f"{results}/lit.xml", None, (0,)),
        ("googletest", ["ctest", "--test-dir", build, "-j", args.jobs,
                        "--output-on-failure",
                        "--output-junit", f"{results}/googletest.xml"],
         f"{results}/googletest.xml", None, (0,)),
        # pytest exits 5 when it collected nothing; the counts say so anyway.
        ("pytest", [args.python, "-m", "pytest", "-q", "-p", "no:cacheprovider",
                    f"--junitxml={results}/pytest.xml", os.path.join(ROOT, "python", "test")],
         f"{results}/pytest.xml", python_env, (0, 5)),
    ]

    total = [0, 0, 0]
    for name, command, xml_path, env, ok_codes in layers:
        counts = run_layer(name, command, xml_path, env, ok_codes)
        total = [t + c for t, c in zip(total, counts)]

    passed, failed, skipped = total
    line = f"{passed} passed, {failed} failed"
    if skipped:
        line += f", {skipped} skipped"
    print(line)
    return 1 if failed or passed == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
