"""The JIT's disk cache: list, inspect and clear compiled kernels.

    python -m opal.cache [--dir DIR] list          one line per entry
    python -m opal.cache [--dir DIR] show KEY      an entry's manifest
    python -m opal.cache [--dir DIR] verify        checks every entry's checksum
    python -m opal.cache [--dir DIR] clear         removes every entry
    python -m opal.cache [--dir DIR] path          prints the cache directory

The directory is OPAL_CACHE_DIR, else $XDG_CACHE_HOME/opal, else
~/.cache/opal (the JIT's own rule). Entries are directories
v1/<aa>/<sha256>/ holding kernel.o and manifest.txt; the warm-start index
(small files under warm-v1/ naming the entry of a call, so that a new
process loads its kernels without the compiler) goes with them
(docs/jit.md).
"""

import argparse
import hashlib
import os
import shutil
import sys

__all__ = ["cache_dir", "entries", "index_count", "read_manifest", "verify", "clear", "main"]


def cache_dir():
    """The cache directory the JIT uses in this environment."""
    if os.environ.get("OPAL_CACHE_DIR"):
        return os.environ["OPAL_CACHE_DIR"]
    if os.environ.get("XDG_CACHE_HOME"):
        return os.path.join(os.environ["XDG_CACHE_HOME"], "opal")
    return os.path.join(os.path.expanduser("~"), ".cache", "opal")


def read_manifest(path):
    """The fields of a manifest.txt as a dict."""
    fields = {}
    with open(path) as f:
        for line in f:
            name, sep, value = line.rstrip("\n").partition(": ")
            if sep:
                fields[name] = value
    return fields


def entries(root=None):
    """(key, directory, manifest dict) of every complete entry, sorted by key."""
    base = os.path.join(root or cache_dir(), "v1")
    found = []
    if not os.path.isdir(base):
        return found
    for prefix in sorted(os.listdir(base)):
        for key in sorted(os.listdir(os.path.join(base, prefix))):
            directory = os.path.join(base, prefix, key)
            manifest = os.path.join(directory, "manifest.txt")
            if key.startswith(".tmp-") or not os.path.isfile(manifest):
                continue
            found.append((key, directory, read_manifest(manifest)))
    return found


def verify(root=None):
    """(key, problem) for every entry whose object does not match its manifest."""
    problems = []
    for key, directory, manifest in entries(root):
        path = os.path.join(directory, "kernel.o")
        if not os.path.isfile(path):
            problems.append((key, "kernel.o is missing"))
            continue
        data = open(path, "rb").read()
        if str(len(data)) != manifest.get("object-bytes"):
            problems.append((key, f"kernel.o has {len(data)} bytes, the manifest says "
                                  f"{manifest.get('object-bytes')}"))
        elif hashlib.sha256(data).hexdigest() != manifest.get("object-sha256"):
            problems.append((key, "kernel.o does not match its checksum"))
    return problems


def index_count(root=None):
    """How many warm-start index files there are."""
    base = os.path.join(root or cache_dir(), "warm-v1")
    if not os.path.isdir(base):
        return 0
    return sum(len([name for name in names if ".tmp-" not in name])
               for _, _, names in os.walk(base))


def clear(root=None):
    """Removes every entry and the warm-start index; returns how many entries
    there were."""
    root = root or cache_dir()
    count = len(entries(root))
    for name in ("v1", "warm-v1"):
        base = os.path.join(root, name)
        if os.path.isdir(base):
            shutil.rmtree(base)
    return count


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m opal.cache",
                                     description="List, inspect and clear opal's kernel cache.")
    parser.add_argument("--dir", help="the cache directory (default: the JIT's)")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("list", help="one line per entry: key, op, specialization, bytes")
    show = commands.add_parser("show", help="the manifest of one entry")
    show.add_argument("key", help="a key or a unique prefix of one")
    commands.add_parser("verify", help="check every entry's checksum")
    commands.add_parser("clear", help="remove every entry")
    commands.add_parser("path", help="print the cache directory")
    args = parser.parse_args(argv)
    root = args.dir or cache_dir()
    if args.command == "path":
        print(root)
    elif args.command == "list":
        found = entries(root)
        for key, _, manifest in found:
            print(f"{key[:16]}  {manifest.get('op', '?')}{manifest.get('specialization', '')}  "
                  f"{manifest.get('object-bytes', '?')} bytes")
        print(f"{len(found)} entries in {root} ({index_count(root)} calls indexed for warm starts)")
    elif args.command == "show":
        matches = [e for e in entries(root) if e[0].startswith(args.key)]
        if len(matches) != 1:
            print(f"error: {len(matches)} entries match '{args.key}'", file=sys.stderr)
            return 1
        key, directory, _ = matches[0]
        print(f"key: {key}\ndirectory: {directory}")
        sys.stdout.write(open(os.path.join(directory, "manifest.txt")).read())
    elif args.command == "verify":
        problems = verify(root)
        for key, problem in problems:
            print(f"{key[:16]}: {problem}")
        print(f"{len(entries(root))} entries, {len(problems)} bad")
        return 1 if problems else 0
    elif args.command == "clear":
        print(f"removed {clear(root)} entries from {root}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
