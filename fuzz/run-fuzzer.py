#!/usr/bin/env python3
"""Runs one libFuzzer target for a lit test and reports it briefly.

    run-fuzzer.py LOG FUZZER [libFuzzer options and corpus directories...]

The fuzzer's whole output goes to LOG. When it ends cleanly, only its summary
lines go to stdout for FileCheck: the seed corpus line, "Done N runs" and the
final stats. When it fails (a crash, a leak, a sanitizer report, out of
memory, a timeout, a signal), stderr gets what ended it: the exit status, the
first report line onwards (at most REPORT_LINES lines), the last lines before
it, and each input libFuzzer saved with its bytes in hex, so that a failure in
a CI log can be read and reproduced without the log file; the exit status is
the fuzzer's.
"""

import re
import signal
import subprocess
import sys
from pathlib import Path

REPORT_LINES = 80
CONTEXT_LINES = 12
SUMMARY = re.compile(r"^(INFO: seed corpus:|Done \d+ runs|stat::)")
# The first line of whatever ends a run: a sanitizer's or libFuzzer's report,
# or the target's own failure message.
REPORT = re.compile(r"^(==\d+==|=+$|ERROR:|SUMMARY:|.*runtime error:|"
                    r"opal-fuzz-[a-z-]+:|.*(deadly signal|out-of-memory|timeout))")
ARTIFACT = re.compile(r"Test unit written to (\S+)")


def describe(status: int) -> str:
    if status < 0:
        return f"killed by {signal.Signals(-status).name}"
    return f"exit status {status}"


def report_failure(fuzzer: str, status: int, lines: list) -> None:
    err = sys.stderr
    err.write(f"run-fuzzer: {Path(fuzzer).name} failed ({describe(status)}) "
              f"after {len(lines)} lines of output\n")
    start = next((i for i, line in enumerate(lines) if REPORT.match(line)), None)
    if start is None:
        err.write("run-fuzzer: no report line; the last lines:\n")
        shown = lines[-REPORT_LINES:]
    else:
        err.write("run-fuzzer: the lines before the report:\n")
        err.writelines(line + "\n" for line in lines[max(0, start - CONTEXT_LINES):start])
        err.write("run-fuzzer: the report:\n")
        shown = lines[start:start + REPORT_LINES]
    err.writelines(line + "\n" for line in shown)
    for line in lines:
        found = ARTIFACT.search(line)
        if found and Path(found.group(1)).is_file():
            data = Path(found.group(1)).read_bytes()
            err.write(f"run-fuzzer: {found.group(1)} ({len(data)} bytes): "
                      f"{data[:4096].hex()}\n")


def main(argv: list) -> int:
    if len(argv) < 3:
        sys.stderr.write(__doc__)
        return 2
    log, command = Path(argv[1]), argv[2:]
    with log.open("wb") as out:
        status = subprocess.run(command, stdout=out, stderr=subprocess.STDOUT).returncode
    lines = log.read_text(errors="replace").splitlines()
    if status != 0:
        report_failure(command[0], status, lines)
        return status if status > 0 else 128 - status
    sys.stdout.writelines(line + "\n" for line in lines if SUMMARY.match(line))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
