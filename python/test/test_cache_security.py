"""The local kernel cache is trusted only as far as it is private and
authenticated: each attack on it (edited index lines, an index pointed at
another kernel, foreign-owned, world-writable or symlinked directories,
truncated files, unsafe key files) runs in its own process, which must
refuse it, say why, and compute the right result."""

import hashlib
import hmac
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import opal.cache

SCRIPT = textwrap.dedent("""
    import json, sys
    import numpy as np
    import opal
    x = opal.tensor(np.linspace(-3, 3, 35, dtype=np.float32).reshape(5, 7))
    g, t = opal.ops.aten.gelu(x), opal.ops.aten.tanh(x)
    json.dump({"gelu": np.asarray(g).tolist(), "tanh": np.asarray(t).tolist(),
               "stats": opal.jit.stats()}, sys.stdout)
""")


def run(cache_dir, extra=None):
    env = dict(os.environ, OPAL_CACHE_DIR=str(cache_dir))
    for name in ("OPAL_CACHE_KEY", "OPAL_CACHE_KEY_FILE", "OPAL_REMOTE_CACHE"):
        env.pop(name, None)
    env.update(extra or {})
    result = subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    import json
    return json.loads(result.stdout), result.stderr


def expected():
    x = np.linspace(-3, 3, 35, dtype=np.float32).reshape(5, 7)
    return np.tanh(x)


def index_files(cache_dir):
    return sorted(p for p in (cache_dir / "warm-v2").rglob("*") if p.is_file())


def test_an_edited_sizes_line_in_an_index_is_refused(tmp_path):
    first, _ = run(tmp_path)
    edited = 0
    for path in index_files(tmp_path):
        text = path.read_text()
        if "sizes: a0.0 a0.1" in text:
            path.write_text(text.replace("sizes: a0.0 a0.1", "sizes: a0.0 a0.0"))
            edited += 1
    assert edited == 2
    second, stderr = run(tmp_path, {"OPAL_LOG": "cache"})
    assert stderr.count("its HMAC does not match") == 2
    assert np.asarray(second["gelu"]).shape == (5, 7) and second["gelu"] == first["gelu"]


def test_an_index_pointed_at_another_kernel_is_refused(tmp_path):
    first, _ = run(tmp_path)
    files = index_files(tmp_path)
    texts = [p.read_text() for p in files]
    entries = [next(l for l in t.splitlines() if l.startswith("entry: ")) for t in texts]
    files[0].write_text(texts[0].replace(entries[0], entries[1]))
    second, stderr = run(tmp_path, {"OPAL_LOG": "cache"})
    assert "its HMAC does not match" in stderr
    assert second["gelu"] == first["gelu"] and second["tanh"] == first["tanh"]
    np.testing.assert_allclose(second["tanh"], expected(), rtol=1e-6)


def test_a_truncated_manifest_or_index_is_refused(tmp_path):
    first, _ = run(tmp_path)
    key, directory, _ = opal.cache.entries(str(tmp_path))[0]
    manifest = os.path.join(directory, "manifest.txt")
    with open(manifest, "r+b") as f:
        f.truncate(40)
    index = index_files(tmp_path)[0]
    index.write_text(index.read_text()[:30])
    second, stderr = run(tmp_path, {"OPAL_LOG": "cache"})
    assert stderr.count("it has no HMAC line") == 2
    assert second["gelu"] == first["gelu"] and second["tanh"] == first["tanh"]


def test_a_world_writable_cache_is_refused_with_the_fix(tmp_path):
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    os.chmod(cache, 0o777)
    result, stderr = run(cache)
    assert f"opal: the kernel cache {cache} is writable by others (mode 0777): make it " \
           f"private with `chmod 700 {cache}`; opal neither reads nor writes it" in stderr
    assert result["stats"]["compiles"] == 2 and os.listdir(cache) == []
    np.testing.assert_allclose(result["tanh"], expected(), rtol=1e-6)


@pytest.mark.skipif(os.geteuid() != 0, reason="making a directory another user's needs root")
def test_a_foreign_owned_cache_is_refused(tmp_path):
    cache = tmp_path / "cache"
    cache.mkdir(mode=0o700)
    os.chown(cache, 65534, 65534)
    result, stderr = run(cache)
    assert f"the kernel cache {cache} is owned by uid 65534, not by you (uid 0)" in stderr
    assert result["stats"]["compiles"] == 2


def test_a_symlinked_cache_or_entry_is_not_followed(tmp_path):
    real = tmp_path / "real"
    run(real)
    link = tmp_path / "link"
    link.symlink_to(real)
    _, stderr = run(link)
    assert f"the kernel cache {link} is a symbolic link" in stderr
    # An entry replaced by a link to a victim's directory: the link goes,
    # the victim's files stay.
    victim = tmp_path / "victim"
    victim.mkdir()
    (victim / "precious").write_text("keep")
    key, directory, _ = opal.cache.entries(str(real))[0]
    import shutil
    shutil.rmtree(directory)
    os.symlink(victim, directory)
    for path in index_files(real):
        path.unlink()  # through the compiler, which looks the entry up
    result, _ = run(real)
    assert (victim / "precious").read_text() == "keep"
    np.testing.assert_allclose(result["tanh"], expected(), rtol=1e-6)
    assert not os.path.islink(directory)


def test_key_files_must_be_private(tmp_path):
    key = tmp_path / "key"
    key.write_text("a shared fleet key, 32 bytes....\n")
    os.chmod(key, 0o644)
    _, stderr = run(tmp_path / "c", {"OPAL_CACHE_KEY_FILE": str(key)})
    assert f"OPAL_CACHE_KEY_FILE {key} can be read or written by others (mode 0644): make it " \
           f"private with `chmod 600 {key}`; the disk cache is off for this process" in stderr
    os.chmod(key, 0o600)
    first, stderr = run(tmp_path / "c", {"OPAL_CACHE_KEY_FILE": str(key)})
    assert stderr == "" and first["stats"]["compiles"] == 2
    # The key file's key is the HMAC key: the manifest's tag checks out under it.
    name, directory, _ = opal.cache.entries(str(tmp_path / "c"))[0]
    text = open(os.path.join(directory, "manifest.txt")).read()
    body, tag = text[:text.rindex("hmac: ")], text[text.rindex("hmac: ") + 6:].strip()
    assert tag == hmac.new(b"a shared fleet key, 32 bytes....",
                           f"opal-cache-entry 2\n{name}\n{body}".encode(),
                           hashlib.sha256).hexdigest()
    second, _ = run(tmp_path / "c", {"OPAL_CACHE_KEY_FILE": str(key)})
    assert second["stats"]["compiles"] == 0
    # The same entries under another key are refused and recompiled.
    third, stderr = run(tmp_path / "c", {"OPAL_CACHE_KEY": "some other key 0123"})
    assert third["stats"]["compiles"] == 2 and "HMAC does not match" in stderr
    _, stderr = run(tmp_path / "d", {"OPAL_CACHE_KEY": "short"})
    assert "OPAL_CACHE_KEY holds a key of 5 bytes; a cache key needs at least 16" in stderr


def test_the_cache_stays_under_its_bound(tmp_path):
    run(tmp_path)
    entries = opal.cache.entries(str(tmp_path))
    assert len(entries) == 2
    # A bound smaller than the cache: the next store prunes it.
    result, _ = run(tmp_path / "small", {"OPAL_CACHE_MAX_BYTES": "1K"})
    assert result["stats"]["compiles"] == 2
    left = sum(os.path.getsize(p) for p in (tmp_path / "small").rglob("*")
               if p.is_file() and p.name != "key")
    assert left <= 1024
    cli = subprocess.run([sys.executable, "-m", "opal.cache", "--dir", str(tmp_path), "prune",
                          "--max-bytes", "1K"], capture_output=True, text=True, timeout=60)
    assert cli.returncode == 0 and cli.stdout.startswith("removed 2 entries and ")
    assert int(cli.stdout.split()[-2]) <= 1024
    bad = subprocess.run([sys.executable, "-m", "opal.cache", "prune", "--max-bytes", "lots"],
                         capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "'lots' is not a byte count" in bad.stderr
