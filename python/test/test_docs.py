"""Runs every ```python block of docs/python.md, in order, in one namespace."""

import os
import re

import pytest

DOC = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "python.md")


def test_python_md_examples_run():
    with open(DOC) as f:
        text = f.read()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert len(blocks) >= 6
    namespace = {}
    try:
        for block in blocks:
            exec(compile(block, DOC, "exec"), namespace)
    finally:
        # The examples claim namespace mylib; release it for other tests.
        lib = namespace.get("lib")
        if lib is not None:
            lib._destroy()


def test_random_md_example_runs():
    path = os.path.join(os.path.dirname(DOC), "random.md")
    with open(path) as f:
        blocks = re.findall(r"```python\n(.*?)```", f.read(), flags=re.S)
    assert len(blocks) == 1
    exec(compile(blocks[0], path, "exec"), {})
