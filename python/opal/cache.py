"""The JIT's kernel caches: list, check, prune and clear compiled kernels.

    python -m opal.cache [--dir DIR] list          one line per entry
    python -m opal.cache [--dir DIR] show KEY      an entry's manifest
    python -m opal.cache [--dir DIR] verify        checks every entry (HMAC, object) and
                                                   that each warm-start index file names
                                                   the entry its call compiles to
    python -m opal.cache [--dir DIR] prune [--max-bytes N]
                                                   drops least recently used entries
    python -m opal.cache [--dir DIR] clear         removes every entry
    python -m opal.cache [--dir DIR] info          directory, bound, key, remote cache
    python -m opal.cache [--dir DIR] path          prints the cache directory

The directory is OPAL_CACHE_DIR, else $XDG_CACHE_HOME/opal, else
~/.cache/opal. Entries are directories v2/<aa>/<sha256>/ holding kernel.o
and manifest.txt, each manifest sealed by an HMAC under the cache key; the
warm-start index (files under warm-v2/ naming the entry of a call, so that a
new process loads its kernels without the compiler) goes with them. The C++
side reads and checks the format (docs/jit.md, "The caches"); this module
only shows what it says.
"""

import argparse
import os
import sys

from . import _C

__all__ = ["cache_dir", "entries", "index_count", "verify", "verify_index", "prune", "clear",
           "info", "remote_stats", "main"]


def cache_dir():
    """The cache directory the JIT uses in this environment."""
    return _C._cache_info(None)["root"]


def info(root=None):
    """The cache at `root` (default: the JIT's): its directory, whether it is
    on (and why not), its size bound and the remote cache it asks."""
    return _C._cache_info(root)


def entries(root=None):
    """(key, directory, manifest fields) of every complete entry, sorted by key."""
    root = root or cache_dir()
    return [(e["key"], os.path.join(root, "v2", e["key"][:2], e["key"]), e["fields"])
            for e in _C._cache_entries(root, False)]


def verify(root=None):
    """(key, problem) for every entry that would be refused: its HMAC does
    not check out under this process's key, or its object does not match."""
    return [(e["key"], e["problem"]) for e in _C._cache_entries(root, True) if e["problem"]]


def verify_index(root=None):
    """(index file name, call, problem) for every warm-start index file of
    this build that would be refused or that names another entry than the
    one opal's definitions compile its call to (the compiler decomposes each
    call again). Run it in a process that registered nothing over the
    built-in ops: a call one of its registrations reaches is not checked."""
    return [(c["name"], c["call"], c["problem"]) for c in _C._cache_check_index(root)
            if c["problem"] and c["checked"]]


def index_count(root=None):
    """How many warm-start index files there are."""
    return _C._cache_index_count(root)


def prune(root=None, max_bytes=None):
    """Removes the least recently used entries and index files until the
    cache holds at most 90% of `max_bytes` (default OPAL_CACHE_MAX_BYTES),
    if it holds more; a dict of what went."""
    return _C._cache_prune(root, max_bytes)


def clear(root=None):
    """Removes every entry and the warm-start index; how many entries there were."""
    return _C._cache_clear(root)


def remote_stats():
    """Counters of this process's remote cache (hits, misses, stores,
    failures, skipped while backing off), or None without one."""
    return _C._cache_remote_stats()


def _byte_count(text):
    value = _C._cache_parse_bytes(text)
    if value is None:
        raise argparse.ArgumentTypeError(f"'{text}' is not a byte count (a number with an "
                                         "optional K, M or G)")
    return value


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m opal.cache",
                                     description="List, check, prune and clear opal's kernel "
                                                 "cache.")
    parser.add_argument("--dir", help="the cache directory (default: the JIT's)")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("list", help="one line per entry: key, op, specialization, bytes")
    show = commands.add_parser("show", help="the manifest of one entry")
    show.add_argument("key", help="a key or a unique prefix of one")
    commands.add_parser("verify", help="check every entry's HMAC and object, and that each "
                                       "warm-start index file names its call's entry")
    pruning = commands.add_parser("prune", help="drop least recently used entries")
    pruning.add_argument("--max-bytes", type=_byte_count,
                         help="the bound (default OPAL_CACHE_MAX_BYTES, else 1G)")
    commands.add_parser("clear", help="remove every entry")
    commands.add_parser("info", help="the directory, its bound, key and remote cache")
    commands.add_parser("path", help="print the cache directory")
    args = parser.parse_args(argv)
    root = os.path.abspath(args.dir) if args.dir else cache_dir()
    if args.command == "path":
        print(root)
        return 0
    state = info(root)
    if not state["enabled"]:
        print(f"error: {state['problem'] or 'the cache is disabled'}", file=sys.stderr)
        return 1
    if args.command == "info":
        print(f"directory: {state['root']}\nmax bytes: {state['max_bytes']}\n"
              f"remote: {state['remote'] or 'none'}")
    elif args.command == "list":
        found = _C._cache_entries(root, False)
        for e in found:
            m = e["fields"]
            print(f"{e['key'][:16]}  {m.get('op', '?')}{m.get('specialization', '')}  "
                  f"{m.get('object-bytes', '?')} bytes")
        print(f"{len(found)} entries in {root} ({index_count(root)} calls indexed for warm "
              "starts)")
    elif args.command == "show":
        matches = [e for e in _C._cache_entries(root, True) if e["key"].startswith(args.key)]
        if len(matches) != 1:
            print(f"error: {len(matches)} entries match '{args.key}'", file=sys.stderr)
            return 1
        e = matches[0]
        print(f"key: {e['key']}\ndirectory: {os.path.join(root, 'v2', e['key'][:2], e['key'])}")
        sys.stdout.write(e["manifest"])
        if e["problem"]:
            print(f"refused: {e['problem']}")
    elif args.command == "verify":
        checked = _C._cache_entries(root, True)
        bad = [e for e in checked if e["problem"]]
        for e in bad:
            print(f"{e['key'][:16]}: {e['problem']}")
        print(f"{len(checked)} entries, {len(bad)} bad")
        index = _C._cache_check_index(root)
        ours = [c for c in index if c["checked"]]
        wrong = [c for c in ours if c["problem"]]
        for c in wrong:
            print(f"warm-start index {c['name'][:16]} ({c['call'] or '?'}): {c['problem']}")
        for c in index:
            if not c["checked"] and c["problem"]:
                print(f"warm-start index {c['name'][:16]} ({c['call']}): {c['problem']}")
        others = sum(1 for c in index if not c["checked"] and not c["problem"])
        print(f"{len(ours)} warm-start index files checked, {len(wrong)} bad" +
              (f" ({others} of another build, CPU or knob setting not checked)" if others else ""))
        return 1 if bad or wrong else 0
    elif args.command == "prune":
        done = prune(root, args.max_bytes)
        print(f"removed {done['entries']} entries and {done['indexes']} index files: "
              f"{done['bytes_before']} -> {done['bytes_after']} bytes")
    elif args.command == "clear":
        print(f"removed {clear(root)} entries from {root}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
