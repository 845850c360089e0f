"""Every code block in docs/ runs, or is checked against the file it shows.

A block's info string says what it is:

  python            run: a document's python blocks in order, in one fresh
                    process, in a scratch directory (with build/ and
                    examples/ linked in); `python cuda` only with a device,
                    `python torch` needs PyTorch (the test skips without it)
  sh                run with bash -e in the same kind of directory, with
                    opal's tools and `python` (Debian's, with opal) on PATH
  mlir              an op library is verified by opal-opt; a file with RUN
                    lines runs under opal-lit (the document's libraries in
                    Inputs/); other IR is parsed and verified by opal-opt
                    with the document's libraries, a fragment as the body
                    of a function taking the values it does not define
  cpp               a whole translation unit compiles (-fsyntax-only)
  schema            a lit test in opal-schema's format runs under opal-lit
  LANG excerpt=F    an excerpt of file F of the repository, which the suite
                    runs elsewhere: every line of the block but those with
                    "..." appears in F, in order
  output            what the block before it prints, compared line by line
                    ("..." in a line matches anything)
  text, console     shown, not run (grammars, listings, messages, commands
                    for another machine)

A block without an info string, or with another, fails the test.
"""

import glob
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap

import pytest

from conftest import BUILD_DIR, ROOT

DOCS = sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")))
DISPLAY = {"text", "console", "output"}
RUN = {"python", "sh", "mlir", "cpp", "schema"}


class Block:
    def __init__(self, doc, line, info, body):
        self.doc, self.line, self.body = doc, line, body
        words = info.split()
        self.lang = words[0] if words else ""
        self.options = dict(w.split("=", 1) if "=" in w else (w, True) for w in words[1:])
        self.output = None  # the ```output block after it, if any

    def where(self):
        return f"{os.path.relpath(self.doc, ROOT)}:{self.line}"


def blocks_of(doc):
    found, lines = [], open(doc).read().splitlines()
    i = 0
    while i < len(lines):
        match = re.match(r"^```(.*)$", lines[i])
        if not match:
            i += 1
            continue
        start, body = i + 1, []
        i += 1
        while i < len(lines) and lines[i] != "```":
            body.append(lines[i])
            i += 1
        block = Block(doc, start, match.group(1).strip(), "\n".join(body) + "\n")
        if block.lang == "output" and found:
            found[-1].output = block
        found.append(block)
        i += 1
    return found


def scratch(tmp_path, doc=None):
    """A directory with build/ and examples/ of this checkout linked in, and
    the document's op libraries that name their file (`// NAME.opal.mlir`
    on their first line) written there."""
    if doc is not None:
        for block in blocks_of(doc):
            first = block.body.splitlines()[0] if block.body.strip() else ""
            match = re.match(r"^// ([\w.-]+\.opal\.mlir)$", first)
            if block.lang == "mlir" and match and library_name(block):
                (tmp_path / match.group(1)).write_text(block.body)
    os.symlink(BUILD_DIR, tmp_path / "build")
    os.symlink(os.path.join(ROOT, "examples"), tmp_path / "examples")
    shims = tmp_path / ".bin"
    shims.mkdir()
    for name in ("python", "python3"):
        os.symlink(sys.executable, shims / name)
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(shims), os.path.join(BUILD_DIR, "bin"),
                                   "/usr/lib/llvm-22/bin", env["PATH"]])
    env["PYTHONPATH"] = os.path.join(BUILD_DIR, "python")
    env["OPAL_CACHE_DIR"] = str(tmp_path / ".cache")
    env.pop("OPAL_LOG", None)
    return env


def matches(expected, actual):
    expected, actual = expected.rstrip("\n").splitlines(), actual.rstrip("\n").splitlines()
    if len(expected) != len(actual):
        return False
    for want, got in zip(expected, actual):
        pattern = "^" + ".*".join(re.escape(part) for part in want.rstrip().split("...")) + "$"
        if not re.match(pattern, got.rstrip()):
            return False
    return True


def test_every_block_says_what_it_is():
    bad = [f"{b.where()}: ```{b.lang}" for doc in DOCS for b in blocks_of(doc)
           if b.lang not in DISPLAY | RUN and not (b.lang and "excerpt" in b.options)]
    assert bad == [], "blocks without a known info string:\n" + "\n".join(bad)


def excerpts():
    return [b for doc in DOCS for b in blocks_of(doc) if "excerpt" in b.options]


@pytest.mark.parametrize("block", excerpts(), ids=lambda b: b.where() if isinstance(b, Block) else "none")
def test_excerpts_match_their_files(block):
    path = os.path.join(ROOT, block.options["excerpt"])
    assert os.path.isfile(path), f"{block.where()}: no file {block.options['excerpt']}"
    source = [code_of(line) for line in open(path).read().splitlines()]
    at = 0
    for line in block.body.splitlines():
        wanted = code_of(line)
        if not wanted or "..." in wanted:
            continue
        while at < len(source) and source[at] != wanted:
            at += 1
        assert at < len(source), f"{block.where()}: not in {block.options['excerpt']} (in order): {line}"
        at += 1


def code_of(line):
    """A line without its comment (# or //, after code or alone) and spaces:
    an excerpt may explain a line the file does not."""
    line = re.sub(r"(^|\s)(#|//).*$", "", line)
    return " ".join(line.split())


RUNNER = textwrap.dedent("""
    import contextlib, io, json, sys, traceback
    blocks = json.load(open(sys.argv[1]))
    namespace, outputs = {"__name__": "__doc__"}, []
    for where, source in blocks:
        buffer = io.StringIO()
        try:
            with contextlib.redirect_stdout(buffer):
                exec(compile(source, where, "exec"), namespace)
        except BaseException:
            outputs.append({"where": where, "error": traceback.format_exc()})
            break
        outputs.append({"where": where, "stdout": buffer.getvalue()})
    json.dump(outputs, open(sys.argv[2], "w"))
""")


def docs_with(lang):
    return [doc for doc in DOCS if any(b.lang == lang and "excerpt" not in b.options
                                       for b in blocks_of(doc))]


def cuda_available():
    result = subprocess.run([sys.executable, "-c", "import opal; print(opal.cuda.is_available())"],
                            env=dict(os.environ, PYTHONPATH=os.path.join(BUILD_DIR, "python")),
                            capture_output=True, text=True)
    return result.stdout.strip() == "True"


@pytest.mark.parametrize("doc", docs_with("python"), ids=os.path.basename)
def test_python_blocks_run(doc, tmp_path):
    blocks = [b for b in blocks_of(doc) if b.lang == "python" and "excerpt" not in b.options]
    if any("cuda" in b.options for b in blocks) and not cuda_available():
        blocks = [b for b in blocks if "cuda" not in b.options]
    if any("torch" in b.options for b in blocks):
        pytest.importorskip("torch", reason="the document's examples need PyTorch")
    env = scratch(tmp_path, doc)
    (tmp_path / "blocks.json").write_text(json.dumps([[b.where(), b.body] for b in blocks]))
    (tmp_path / "runner.py").write_text(RUNNER)
    result = subprocess.run([sys.executable, "runner.py", "blocks.json", "out.json"], cwd=tmp_path,
                            env=env, capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr
    outputs = json.loads((tmp_path / "out.json").read_text())
    for block, out in zip(blocks, outputs):
        assert "error" not in out, f"{out['where']} raised:\n{out['error']}"
        if block.output is not None:
            assert matches(block.output.body, out["stdout"]), (
                f"{block.where()} printed:\n{out['stdout']}\nthe doc shows:\n{block.output.body}")
    assert len(outputs) == len(blocks)


def sh_blocks():
    return [b for doc in DOCS for b in blocks_of(doc) if b.lang == "sh" and "excerpt" not in b.options]


@pytest.mark.parametrize("block", sh_blocks(), ids=lambda b: b.where() if isinstance(b, Block) else "none")
def test_sh_blocks_run(block, tmp_path):
    env = scratch(tmp_path, block.doc)
    result = subprocess.run(["bash", "-e", "-c", block.body], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, f"{block.where()}:\n{result.stdout}\n{result.stderr}"
    if block.output is not None:
        assert matches(block.output.body, result.stdout), (
            f"{block.where()} printed:\n{result.stdout}\nthe doc shows:\n{block.output.body}")


def schema_blocks():
    return [b for doc in DOCS for b in blocks_of(doc) if b.lang == "schema"]


@pytest.mark.parametrize("block", schema_blocks(), ids=lambda b: b.where() if isinstance(b, Block) else "none")
def test_schema_blocks_pass_under_lit(block, tmp_path):
    (tmp_path / "test.schema").write_text(block.body)
    result = subprocess.run([os.path.join(BUILD_DIR, "bin", "opal-lit"), str(tmp_path)],
                            capture_output=True, text=True)
    assert result.returncode == 0, f"{block.where()}:\n{result.stdout}\n{result.stderr}"


def mlir_blocks():
    return [b for doc in DOCS for b in blocks_of(doc) if b.lang == "mlir" and "excerpt" not in b.options]


def library_name(block):
    match = re.search(r"opal\.library \"(\w+)\"", block.body)
    return match.group(1) if match else None


def as_function(fragment):
    """IR lines using values they do not define (`%r = op %x, %b : (T, U) ->
    R`) as the body of a function whose arguments are those values, typed
    from the ops' signatures."""
    defined, arguments = set(), {}
    for line in fragment.splitlines():
        code = line.split("//")[0]
        result = re.match(r"\s*(%[\w]+)\s*=", code)
        match = re.match(r"\s*(%[\w]+)\s*=\s*[\w.]+\s+(.*?)\s*:\s*(.*?)\s*->", code)
        if not match:
            if result:
                defined.add(result.group(1))
            continue
        operands = re.findall(r"%[\w]+", match.group(2))
        types = [t.strip() for t in re.split(r",(?![^<]*>)", match.group(3).strip("() "))]
        for name, type_ in zip(operands, types):
            if name not in defined and name not in arguments:
                arguments[name] = type_
        defined.add(match.group(1))
    signature = ", ".join(f"{name}: {type_}" for name, type_ in arguments.items())
    return f"func.func @fragment({signature}) {{\n{fragment}  return\n}}\n"


@pytest.mark.parametrize("block", mlir_blocks(), ids=lambda b: b.where() if isinstance(b, Block) else "none")
def test_mlir_blocks_verify(block, tmp_path):
    opal_opt = os.path.join(BUILD_DIR, "bin", "opal-opt")
    libraries = []
    suite = tmp_path / "suite"
    inputs = suite / "Inputs"
    inputs.mkdir(parents=True)
    for other in blocks_of(block.doc):
        if other.lang == "mlir" and library_name(other) and other is not block:
            path = inputs / f"{library_name(other)}.opal.mlir"
            path.write_text(other.body)
            libraries.append(f"--op-library={path}")
    if library_name(block):
        path = tmp_path / "library.opal.mlir"
        path.write_text(block.body)
        empty = tmp_path / "empty.mlir"
        empty.write_text("")
        result = subprocess.run([opal_opt, f"--op-library={path}", str(empty)],
                                capture_output=True, text=True)
    elif "RUN:" in block.body:
        (suite / "test.mlir").write_text(block.body)
        result = subprocess.run([os.path.join(BUILD_DIR, "bin", "opal-lit"), str(suite)],
                                capture_output=True, text=True)
    else:
        body = block.body if "func.func" in block.body else as_function(block.body)
        test = tmp_path / "input.mlir"
        test.write_text(body)
        result = subprocess.run([opal_opt] + libraries + [str(test)], capture_output=True,
                                text=True)
    assert result.returncode == 0, f"{block.where()}:\n{result.stdout}\n{result.stderr}"


def cpp_blocks():
    return [b for doc in DOCS for b in blocks_of(doc) if b.lang == "cpp" and "excerpt" not in b.options]


@pytest.mark.parametrize("block", cpp_blocks(), ids=lambda b: b.where() if isinstance(b, Block) else "none")
def test_cpp_blocks_compile(block, tmp_path):
    source = tmp_path / "block.cpp"
    source.write_text(block.body)
    result = subprocess.run(["g++", "-std=c++17", "-fsyntax-only", "-Wall", "-Wextra",
                             "-I", os.path.join(ROOT, "include"),
                             "-I", os.path.join(BUILD_DIR, "include"), str(source)],
                            capture_output=True, text=True)
    assert result.returncode == 0, f"{block.where()}:\n{result.stderr}"
