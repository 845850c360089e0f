"""Environment knobs that speak: OPAL_LOG=help lists every channel and
variable; an unknown OPAL_* variable, an unknown OPAL_LOG channel or a
value a knob does not take warns once, naming the variable and what it
takes; a compile that runs long prints one progress line on a terminal."""

import os
import pty
import subprocess
import sys

import pytest

CALL = "import opal; opal.ops.aten.gelu(opal.ones(3)); print('ok')"


def run(extra, script=CALL):
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPAL_")}
    env.update({"PYTHONPATH": os.environ.get("PYTHONPATH", ""), "OPAL_CACHE_DISABLE": "1"})
    env.update(extra)
    result = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                            text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip().endswith("ok")
    return result.stderr


def test_a_clean_environment_says_nothing():
    assert run({}) == ""


def test_log_help_lists_every_channel_and_variable():
    text = run({"OPAL_LOG": "help"})
    assert text.startswith("opal: OPAL_LOG takes a comma-separated list of channels:\n")
    for channel in ("dispatch", "jit", "cache", "torch", "all", "help"):
        assert f"\n  {channel} " in text
    for knob in ("OPAL_CACHE_DIR", "OPAL_CACHE_KEY", "OPAL_REMOTE_CACHE", "OPAL_NUM_THREADS",
                 "OPAL_PERF_MAP", "OPAL_COMPILE_PROGRESS_MS", "OPAL_CUDA_FORMAT"):
        assert f"\n  {knob}: " in text
    assert "OPAL_TEST_DEVICE" not in text  # read by opal's scripts, not by the library


@pytest.mark.parametrize("name,value,message", [
    ("OPAL_LOG", "jit,cahce",
     "opal: OPAL_LOG names an unknown channel 'cahce'; the channels are dispatch, jit, cache "
     "and torch, or all (OPAL_LOG=help lists them)"),
    ("OPAL_NUM_THREAD", "3",
     "opal: OPAL_NUM_THREAD is not one of opal's environment variables (did you mean "
     "OPAL_NUM_THREADS?); OPAL_LOG=help lists them"),
    ("OPAL_SOMETHING_ELSE", "1",
     "opal: OPAL_SOMETHING_ELSE is not one of opal's environment variables; OPAL_LOG=help "
     "lists them"),
    ("OPAL_CACHE_DISABLE", "yes", "opal: ignoring OPAL_CACHE_DISABLE=yes: it takes 0 or 1"),
    ("OPAL_CACHE_MAX_BYTES", "lots",
     "opal: ignoring OPAL_CACHE_MAX_BYTES=lots: it takes a byte count with an optional K, M or G "
     "(1G by default)"),
    ("OPAL_REMOTE_CACHE_TIMEOUT_MS", "0",
     "opal: ignoring OPAL_REMOTE_CACHE_TIMEOUT_MS=0: it takes a number of milliseconds from 1 "
     "to 60000 (50 by default)"),
    ("OPAL_CUDA_FORMAT", "ptx", "opal: ignoring OPAL_CUDA_FORMAT=ptx: it takes bin or isa"),
    ("OPAL_PERF_MAP", "on", "opal: ignoring OPAL_PERF_MAP=on: it takes 0 or 1"),
    ("OPAL_COMPILE_THREADS", "0",
     "opal: ignoring OPAL_COMPILE_THREADS=0: it takes a number from 1 to 64"),
    ("OPAL_COMPILE_PROGRESS_MS", "-1",
     "opal: ignoring OPAL_COMPILE_PROGRESS_MS=-1: it takes a number of milliseconds from 0 to "
     "600000"),
])
def test_a_bad_knob_warns_once_and_the_call_runs(name, value, message, tmp_path):
    env = {name: value, "OPAL_CACHE_DIR": str(tmp_path / "cache")}
    stderr = run(env, CALL + "; opal.ops.aten.gelu(opal.ones(4, 4))")
    lines = [line for line in stderr.splitlines() if line.startswith("opal: ")]
    assert lines[0] == message
    assert stderr.count(message) == 1


def progress_on_a_terminal(extra):
    """stderr of a fresh process whose stderr is a terminal."""
    master, slave = pty.openpty()
    env = {k: v for k, v in os.environ.items() if not k.startswith("OPAL_")}
    env.update({"OPAL_CACHE_DISABLE": "1"})
    env.update(extra)
    process = subprocess.Popen([sys.executable, "-c", CALL], stderr=slave,
                               stdout=subprocess.DEVNULL, env=env)
    os.close(slave)
    output = b""
    while True:
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        output += chunk
    os.close(master)
    assert process.wait(timeout=300) == 0
    return output.decode().replace("\r\n", "\n")


def test_a_long_compile_prints_one_line_on_a_terminal():
    # A threshold of 1 ms makes every compile a long one.
    text = progress_on_a_terminal({"OPAL_COMPILE_PROGRESS_MS": "1"})
    assert text == ("opal: compiling aten::gelu(float32[?], str='none') for CPU (still running "
                    "after 1 ms; OPAL_LOG=jit reports every compile)\n")
    # Not for a compile that finishes in time, nor with OPAL_LOG on (the
    # log says it), nor when stderr is not a terminal.
    assert progress_on_a_terminal({}) == ""
    assert "opal: compiling" not in progress_on_a_terminal(
        {"OPAL_COMPILE_PROGRESS_MS": "1", "OPAL_LOG": "jit"})
    assert run({"OPAL_COMPILE_PROGRESS_MS": "1"}) == ""


@pytest.mark.parametrize("name,value,message", [
    ("OPAL_REMOTE_CACHE", "http://cache:6379",
     "opal: OPAL_REMOTE_CACHE=http://cache:6379 is not a redis:// or unix:// address; expected "
     "redis://[:password@]host[:port][/db] or unix:///path/to/socket[?db=N]; the remote kernel "
     "cache is off"),
    ("OPAL_REMOTE_CACHE", "redis://cache:99999",
     "has a port that is not a number from 1 to 65535"),
    ("OPAL_CACHE_KEY_FILE", "/nonexistent/opal-key",
     "opal: OPAL_CACHE_KEY_FILE /nonexistent/opal-key cannot be opened: No such file or "
     "directory; the disk cache is off for this process"),
])
def test_a_cache_knob_that_cannot_be_used_says_why_and_the_call_runs(name, value, message,
                                                                       tmp_path):
    stderr = run({name: value, "OPAL_CACHE_DISABLE": "0", "OPAL_CACHE_DIR": str(tmp_path),
                  "OPAL_CACHE_KEY": "a key of sixteen bytes or more"}
                 if name == "OPAL_REMOTE_CACHE" else
                 {name: value, "OPAL_CACHE_DISABLE": "0", "OPAL_CACHE_DIR": str(tmp_path)})
    assert message in stderr and stderr.count("opal: ") == 1


@pytest.mark.parametrize("args,message", [
    ([], "usage: opal-lit TESTS_DIR... [lit options]"),
    (["/nonexistent/tests"], "opal-lit: no folder named /nonexistent/tests"),
])
def test_opal_lit_refuses_what_it_cannot_run(args, message):
    from conftest import BUILD_DIR
    result = subprocess.run([os.path.join(BUILD_DIR, "bin", "opal-lit"), *args],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and message in result.stderr
