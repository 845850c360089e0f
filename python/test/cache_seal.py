"""Re-signs a kernel cache file after a test edits it, as a writer holding
the cache key would: the HMAC-SHA256 of docs/jit.md ("What is trusted")
over the domain line, the entry's name and the text. Tests that check how
opal reads a damaged but authentic line use it; without it the edit is
refused by its HMAC before the line is read."""

import hashlib
import hmac
import os

DOMAINS = {"entry": "opal-cache-entry 2", "index": "opal-cache-index 2"}


def cache_key(cache_dir):
    """The key of a cache directory: OPAL_CACHE_KEY, else its generated key."""
    return (os.environ.get("OPAL_CACHE_KEY") or
            open(os.path.join(cache_dir, "key")).read().strip()).encode()


def body(text):
    """A sealed file's text without its hmac line."""
    return text[:text.rindex("hmac: ")]


def reseal(path, kind, name, new_body, cache_dir):
    """Writes `new_body` to `path` with the HMAC a `kind` ("entry" for a
    manifest, "index" for a warm-start index) named `name` needs."""
    tag = hmac.new(cache_key(cache_dir), f"{DOMAINS[kind]}\n{name}\n{new_body}".encode(),
                   hashlib.sha256).hexdigest()
    with open(path, "w") as f:
        f.write(new_body + f"hmac: {tag}\n")
