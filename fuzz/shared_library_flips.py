"""Single-bit flips of a small shared library, each loaded by
opal.ops.load_library in its own process: how many load, how many are
refused and how many still crash, per region of what the dynamic loader
reads (the dynamic section; the symbol, string and hash tables; the
relocations, addends and symbol numbers included). A survey, not a test:
python/test/test_hostile_inputs.py runs a fixed set.

    PYTHONPATH=build/python /usr/bin/python3 fuzz/shared_library_flips.py [--flips 200] [--seed 1234]
"""

import argparse
import os
import random
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python",
                                "test"))
from test_hostile_inputs import DT, LIBRARY_SOURCE, elf_dynamic, file_offset  # noqa: E402

LOAD = ("import opal, sys\n"
        "try:\n"
        "    opal.ops.load_library(sys.argv[1]); print('loaded')\n"
        "except (RuntimeError, OSError):\n"
        "    print('refused')\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--flips", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1234)
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="opal-flips-")
    with open(os.path.join(work, "lib.c"), "w") as f:
        f.write(LIBRARY_SOURCE)
    clean_path = os.path.join(work, "libclean.so")
    subprocess.run(["cc", "-shared", "-fPIC", "-O1", "-o", clean_path,
                    os.path.join(work, "lib.c")], check=True)
    clean = open(clean_path, "rb").read()
    dynamic, entries, loads = elf_dynamic(clean)
    value = {tag: v for tag, v, _ in entries}
    regions = {
        "dynamic section": [(dynamic, 16 * len(entries))],
        "symbol, string and hash tables": [
            (file_offset(loads, value[DT[tag]]), size)
            for tag, size in (("SYMTAB", 24 * 8), ("STRTAB", 64), ("GNU_HASH", 64))],
        "relocations": [(file_offset(loads, value[DT["RELA"]]), value[DT["RELASZ"]])],
    }
    for name, spans in regions.items():
        rng = random.Random(args.seed)
        counts = {"loaded": 0, "refused": 0, "crashed": 0}
        for _ in range(args.flips):
            data = bytearray(clean)
            start, size = rng.choice(spans)
            data[start + rng.randrange(size)] ^= 1 << rng.randrange(8)
            path = os.path.join(work, "flip.so")
            with open(path, "wb") as f:
                f.write(bytes(data))
            done = subprocess.run([sys.executable, "-c", LOAD, path], capture_output=True,
                                  text=True, timeout=120)
            outcome = done.stdout.strip()
            counts["crashed" if done.returncode != 0 or outcome not in counts else outcome] += 1
        print(f"{name}: {counts}", flush=True)


if __name__ == "__main__":
    main()
