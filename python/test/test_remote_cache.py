"""The remote kernel cache against a real Redis server (Debian's
redis-server, started here on a unix socket or a loopback port and stopped
after each test): processes with separate local caches share kernels through
it, authenticated by the cache key; an altered, foreign or unauthenticated
entry is refused; a dead or stopped server never fails a call or costs more
than one timeout."""

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import textwrap
import time

import pytest

import opal.cache

REDIS = shutil.which("redis-server")
pytestmark = pytest.mark.skipif(REDIS is None, reason="redis-server is not installed "
                                "(scripts/bootstrap.sh test installs it)")

KEY = "fleet key: 0123456789abcdef"

SCRIPT = textwrap.dedent("""
    import json, os, signal, sys, time
    import numpy as np
    import opal, opal.cache
    A = opal.ops.aten
    rng = np.random.default_rng(5)
    x = opal.tensor(rng.standard_normal((6, 9)).astype(np.float32))
    ops = sys.argv[1].split(",") if len(sys.argv) > 1 else ["softplus", "gelu", "softmax", "mm"]
    calls = {"softplus": lambda: A.softplus(x, 2.0), "gelu": lambda: A.gelu(x),
             "softmax": lambda: A.softmax.int(x, -1), "mm": lambda: A.mm(x, A.t(x)),
             "exp": lambda: A.exp(x), "tanh": lambda: A.tanh(x), "sum": lambda: A.sum.dim_IntList(x, [1])}
    out, times = {}, {}
    for name in ops:
        if name == "kill":
            os.kill(int(os.environ["REDIS_PID"]), signal.SIGKILL)
            continue
        if name == "stop":
            os.kill(int(os.environ["REDIS_PID"]), signal.SIGSTOP)
            continue
        start = time.perf_counter()
        out[name] = np.asarray(calls[name]()).tolist()
        times[name] = (time.perf_counter() - start) * 1000
    maps = open("/proc/self/maps").read()
    json.dump({"stats": opal.jit.stats(), "remote": opal.cache.remote_stats(), "out": out,
               "ms": times, "compiler": "libopal_compiler" in maps}, sys.stdout)
""")


class Redis:
    def __init__(self, directory, port=None, password=None):
        self.socket = str(directory / "redis.sock")
        args = [REDIS, "--port", str(port or 0), "--unixsocket", self.socket,
                "--unixsocketperm", "700", "--save", "", "--appendonly", "no",
                "--dir", str(directory)]
        if password:
            args += ["--requirepass", password]
        self.password = password
        self.process = subprocess.Popen(args, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL)
        deadline = time.time() + 10
        while not os.path.exists(self.socket):
            assert self.process.poll() is None and time.time() < deadline, "redis did not start"
            time.sleep(0.02)
        self.url = f"unix://{self.socket}"

    def command(self, *words):
        """One command over RESP; the reply's bytes (bulk/simple) or int."""
        with socket.socket(socket.AF_UNIX) as s:
            s.connect(self.socket)
            if self.password:
                words = ("AUTH", self.password)
                s.sendall(self._encode(*words))
                s.recv(100)
            s.sendall(self._encode(*words))
            data = b""
            while True:
                chunk = s.recv(1 << 20)
                data += chunk
                if self._complete(data):
                    return self._decode(data)

    @staticmethod
    def _encode(*words):
        parts = [f"*{len(words)}\r\n".encode()]
        for word in words:
            word = word if isinstance(word, bytes) else str(word).encode()
            parts.append(f"${len(word)}\r\n".encode() + word + b"\r\n")
        return b"".join(parts)

    @staticmethod
    def _complete(data):
        if data[:1] in b"+-:*":
            return data.endswith(b"\r\n")
        if data[:1] == b"$":
            head, _, rest = data.partition(b"\r\n")
            n = int(head[1:])
            return n < 0 or len(rest) >= n + 2
        return False

    @staticmethod
    def _decode(data):
        if data[:1] == b":":
            return int(data[1:-2])
        if data[:1] == b"$":
            head, _, rest = data.partition(b"\r\n")
            n = int(head[1:])
            return None if n < 0 else rest[:n]
        if data[:1] == b"*":
            return data
        return data[1:-2]

    def keys(self):
        listing = self.command("KEYS", "opal:*")
        return sorted(k.decode() for k in listing.split(b"\r\n") if k.startswith(b"opal:"))

    def stop(self):
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGCONT)
            self.process.kill()
        self.process.wait(timeout=10)


@pytest.fixture
def redis(tmp_path):
    server = Redis(tmp_path)
    yield server
    server.stop()


def run(cache_dir, url, ops=None, key=KEY, extra=None, check=True):
    env = dict(os.environ, OPAL_CACHE_DIR=str(cache_dir), OPAL_REMOTE_CACHE=url)
    env.pop("OPAL_CACHE_KEY_FILE", None)
    if key:
        env["OPAL_CACHE_KEY"] = key
    else:
        env.pop("OPAL_CACHE_KEY", None)
    env.update(extra or {})
    args = [sys.executable, "-c", SCRIPT] + ([",".join(ops)] if ops else [])
    result = subprocess.run(args, env=env, capture_output=True, text=True, timeout=300)
    if check:
        assert result.returncode == 0, result.stderr
    return json.loads(result.stdout), result.stderr


def test_a_second_machine_compiles_nothing(tmp_path, redis):
    first, _ = run(tmp_path / "a", redis.url)
    assert first["stats"]["compiles"] == 4
    assert first["remote"]["stores"] == 8  # four entries, four warm-start indexes
    assert len([k for k in redis.keys() if k.startswith("opal:v2:entry:")]) == 4
    second, stderr = run(tmp_path / "b", redis.url, extra={"OPAL_LOG": "cache"})
    # Index and object from Redis, checked and installed locally: no compile,
    # and the compiler is never loaded.
    assert second["stats"]["compiles"] == 0 and not second["compiler"], stderr
    assert second["remote"]["hits"] == 8 and second["out"] == first["out"]
    assert stderr.count("remote hit") == 8
    assert len(opal.cache.entries(str(tmp_path / "b"))) == 4
    # A third process on the same local directory needs Redis no more.
    third, _ = run(tmp_path / "b", redis.url)
    assert third["remote"]["hits"] == 0 and third["stats"]["disk_hits"] == 4


def test_an_entry_altered_in_redis_is_refused_and_recompiled(tmp_path, redis):
    first, _ = run(tmp_path / "a", redis.url, ["gelu"])
    entry = next(k for k in redis.keys() if k.startswith("opal:v2:entry:"))
    length = redis.command("STRLEN", entry)
    redis.command("SETRANGE", entry, length - 40, b"\x90\x90\x90\x90")
    # The index still names the entry; the entry fails its checksum.
    second, stderr = run(tmp_path / "b", redis.url, ["gelu"])
    assert "refused the remote entry" in stderr and "does not match its checksum" in stderr
    assert second["stats"]["compiles"] == 1 and second["out"] == first["out"]
    # The recompiled entry replaced the altered one.
    third, _ = run(tmp_path / "c", redis.url, ["gelu"])
    assert third["stats"]["compiles"] == 0 and not third["compiler"]
    # An index altered in Redis (its sizes line) is refused before use.
    index = next(k for k in redis.keys() if k.startswith("opal:v2:index:"))
    text = redis.command("GET", index)
    redis.command("SET", index, text.replace(b"sizes: a0.0 a0.1", b"sizes: a0.0 a0.0"))
    fourth, stderr = run(tmp_path / "d", redis.url, ["gelu"], extra={"OPAL_LOG": "cache"})
    assert "refused the remote warm-start index" in stderr and "HMAC does not match" in stderr
    assert fourth["out"] == first["out"]


def test_entries_under_another_key_are_refused(tmp_path, redis):
    run(tmp_path / "a", redis.url, ["exp"])
    other, stderr = run(tmp_path / "b", redis.url, ["exp"], key="another fleet's key!!")
    assert other["stats"]["compiles"] == 1
    assert "refused the remote entry" in stderr and "HMAC does not match" in stderr


def test_without_a_key_the_remote_cache_is_refused(tmp_path, redis):
    result, stderr = run(tmp_path / "a", redis.url, ["exp"], key=None)
    assert "OPAL_REMOTE_CACHE is set but no cache key is" in stderr
    assert result["remote"] is None and redis.keys() == []
    # The local cache works as before.
    assert len(opal.cache.entries(str(tmp_path / "a"))) == 1


def test_a_server_killed_mid_run_leaves_every_call_correct(tmp_path, redis):
    reference, _ = run(tmp_path / "ref", redis.url, ["softplus", "gelu", "exp", "tanh"],
                       extra={"OPAL_REMOTE_CACHE": ""})
    result, stderr = run(tmp_path / "a", redis.url, ["softplus", "kill", "gelu", "exp", "tanh"],
                         extra={"REDIS_PID": str(redis.process.pid)})
    assert result["out"] == reference["out"]
    assert result["stats"]["compiles"] == 4
    # One failure, then the server is skipped for the back-off period.
    assert result["remote"]["failures"] == 1 and result["remote"]["skipped"] >= 4
    assert stderr.count("opal: the remote kernel cache") == 1
    assert "skipping it for 30 s" in stderr


def test_a_stopped_server_costs_one_timeout_at_most(tmp_path, redis):
    run(tmp_path / "warm", redis.url, ["softplus"])
    # Redis stops answering (SIGSTOP): the connection is accepted by the
    # kernel, the command never answered.
    result, stderr = run(tmp_path / "a", redis.url, ["softplus", "stop", "gelu", "exp", "tanh"],
                         extra={"REDIS_PID": str(redis.process.pid),
                                "OPAL_REMOTE_CACHE_TIMEOUT_MS": "100"})
    assert result["remote"]["failures"] == 1, stderr
    assert "did not answer" in stderr
    assert result["stats"]["compiles"] == 3
    redis.process.send_signal(signal.SIGCONT)


def test_eight_processes_at_once_corrupt_nothing(tmp_path, redis, monkeypatch):
    shared_local = tmp_path / "shared"
    env = dict(os.environ, OPAL_CACHE_DIR=str(shared_local), OPAL_REMOTE_CACHE=redis.url,
               OPAL_CACHE_KEY=KEY)
    op_sets = [["softplus", "gelu"], ["gelu", "exp"], ["exp", "tanh"], ["tanh", "softplus"]] * 2
    procs = []
    for i, ops in enumerate(op_sets):
        # Half share one local directory, half have their own.
        local = shared_local if i % 2 == 0 else tmp_path / f"own{i}"
        procs.append(subprocess.Popen([sys.executable, "-c", SCRIPT, ",".join(ops)],
                                      env=dict(env, OPAL_CACHE_DIR=str(local)),
                                      stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
    results = [p.communicate(timeout=300) for p in procs]
    assert all(p.returncode == 0 for p in procs), [r[1] for r in results]
    outs = {}
    for out, _ in results:
        for name, value in json.loads(out)["out"].items():
            assert outs.setdefault(name, value) == value
    monkeypatch.setenv("OPAL_CACHE_KEY", KEY)  # what verify checks the HMACs with
    for local in [shared_local] + [tmp_path / f"own{i}" for i in range(1, 8, 2)]:
        assert opal.cache.verify(str(local)) == []
        assert len(opal.cache.entries(str(local))) >= 2
    final, _ = run(tmp_path / "fresh", redis.url, ["softplus", "gelu", "exp", "tanh"])
    assert final["stats"]["compiles"] == 0 and not final["compiler"]
    assert final["out"] == outs


def test_tcp_with_a_password_and_a_database(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = Redis(tmp_path, port=port, password="pw-0123")
    try:
        url = f"redis://:pw-0123@127.0.0.1:{port}/2"
        first, _ = run(tmp_path / "a", url, ["tanh"])
        second, _ = run(tmp_path / "b", url, ["tanh"])
        assert first["remote"]["stores"] == 2 and second["remote"]["hits"] == 2
        assert second["stats"]["compiles"] == 0
        wrong, stderr = run(tmp_path / "c", f"redis://:nope@127.0.0.1:{port}/2", ["tanh"])
        assert "refused the password" in stderr and wrong["stats"]["compiles"] == 1
    finally:
        server.stop()
