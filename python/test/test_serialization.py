"""opal.save and opal.load (a versioned format that executes nothing and
checks every size before it allocates), pickle and copy.deepcopy of
tensors: values, dtypes, views that keep sharing, and hostile files, each
refused with a message that names what is wrong. The fuzz case mutates a
valid file in a process of its own: whatever the bytes, load returns or
raises ValueError."""

import collections
import copy
import io
import json
import pickle
import struct
import subprocess
import sys
import textwrap

import pytest

import opal
from opal.serialization import MAGIC, VERSION


def saved(obj):
    buffer = io.BytesIO()
    opal.save(obj, buffer)
    return buffer.getvalue()


def loaded(data, **kwargs):
    return opal.load(io.BytesIO(data), **kwargs)


def test_values_of_every_kind_come_back():
    values = {
        "f32": opal.arange(12.0).reshape(3, 4),
        "bf16": opal.tensor([1.5, -3.140625], dtype=opal.bfloat16),
        "i64": opal.tensor([2**62 + 1, -7]),
        "u8": opal.tensor([0, 200, 255], dtype=opal.uint8),
        "bool": opal.tensor([True, False]),
        "f16": opal.tensor([0.5], dtype=opal.float16),
        "0-d": opal.tensor(3.25, dtype=opal.float64),
        "empty": opal.zeros(0, 3),
        "meta": opal.empty(2, 5, device="meta"),
        "numbers": [None, True, 7, 2**80, 0.1, float("inf"), -0.0, 1.5 - 2j, "text"],
        "tuple": (1, (2, 3)),
        "dtype": opal.int16, "device": opal.device("cpu"),
        "state": collections.OrderedDict([("b", 1), ("a", 2)]),
        3: "an int key",
    }
    back = loaded(saved(values))
    assert list(back) == list(values)
    for key in ("f32", "bf16", "i64", "u8", "bool", "f16", "0-d", "empty"):
        assert back[key].dtype == values[key].dtype and back[key].shape == values[key].shape
        assert back[key].tolist() == values[key].tolist(), key
    assert back["meta"].is_meta and back["meta"].shape == (2, 5)
    assert back["numbers"][:4] == [None, True, 7, 2**80] and back["numbers"][4] == 0.1
    assert str(back["numbers"][6]) == "-0.0" and back["numbers"][7:] == [1.5 - 2j, "text"]
    assert back["tuple"] == (1, (2, 3)) and back["dtype"] == opal.int16
    assert isinstance(back["state"], collections.OrderedDict) and list(back["state"]) == ["b", "a"]
    assert back[3] == "an int key"


def test_views_share_their_storage_after_load_and_it_is_written_once():
    x = opal.arange(1000.0).reshape(10, 100)
    data = saved({"x": x, "row": x[3], "column": x[:, 7], "t": x.t()})
    assert len(data) < 4000 + 1024  # one storage of 4000 bytes, not four
    back = loaded(data)
    assert back["column"].stride() == (100,) and back["t"].stride() == (1, 100)
    back["x"][3, 7] = -1.0
    assert back["row"][7].item() == -1.0 and back["column"][3].item() == -1.0
    assert back["t"][7, 3].item() == -1.0
    assert x[3, 7].item() == 307.0  # the original is its own


def test_requires_grad_and_map_location(tmp_path):
    w = opal.ones(2, requires_grad=True)
    path = tmp_path / "w.opal"
    opal.save({"w": w}, path)
    back = opal.load(str(path), map_location="cpu")
    assert back["w"].requires_grad and back["w"].tolist() == [1.0, 1.0]


def test_pickle_and_deepcopy_keep_views_sharing_and_copy_the_memory():
    x = opal.arange(6.0).reshape(2, 3)
    for copied in (pickle.loads(pickle.dumps([x, x[1]])), copy.deepcopy([x, x[1]])):
        a, row = copied
        assert a.tolist() == x.tolist() and a.data_ptr() != x.data_ptr()
        a[1, 0] = 50.0
        assert row[0].item() == 50.0 and x[1, 0].item() == 3.0
    b = pickle.loads(pickle.dumps(opal.tensor([1.0], dtype=opal.bfloat16)))
    assert b.dtype == opal.bfloat16 and b.tolist() == [1.0]
    assert copy.copy(x).data_ptr() == x.data_ptr()  # a shallow copy is a view


def test_what_cannot_be_saved_is_refused():
    with pytest.raises(TypeError, match="^opal.save: cannot save a set "):
        saved({1, 2})
    loop = []
    loop.append(loop)
    with pytest.raises(ValueError, match=r"^opal.save: the value contains itself \(a cycle\)"):
        saved(loop)


def file_with(header, data=b"", version=VERSION, claimed=None):
    text = json.dumps(header).encode()
    start = struct.pack("<8sIQ", MAGIC, version, len(text) if claimed is None else claimed)
    padding = b"\0" * (-(len(start) + len(text)) % 64)
    return start + text + padding + data


GOOD_TENSOR = {"storage": 0, "dtype": "float32", "shape": [2], "stride": [1], "offset": 0,
               "device": "cpu", "requires_grad": False}

HOSTILE = {
    "not ours": (b"PK\x03\x04 a zip file", "not a file opal.save wrote"),
    "short": (MAGIC + b"\x01", "the file ends inside its preamble"),
    "newer": (file_with({"storages": [], "object": 1}, version=VERSION + 1),
              f"written in format version {VERSION + 1} by a newer opal"),
    "huge header": (file_with({"storages": [], "object": 1}, claimed=1 << 60),
                    f"the header claims {1 << 60} bytes, but only"),
    "not json": (struct.pack("<8sIQ", MAGIC, VERSION, 5) + b"{{{{{", "the header is not valid"),
    "deep json": (struct.pack("<8sIQ", MAGIC, VERSION, 200000) + b"[" * 100000 + b"]" * 100000,
                  "the header nests deeper"),
    "no object": (file_with({"storages": []}), "the header lacks 'storages' or 'object'"),
    "storage past the end": (
        file_with({"storages": [{"offset": 0, "nbytes": 1 << 40}],
                   "object": {"tensor": GOOD_TENSOR}}, b"\0" * 8),
        f"a storage of {1 << 40} bytes at 0 reaches past the file's end (8 bytes of data)"),
    "negative size": (file_with({"storages": [{"offset": 0, "nbytes": -8}], "object": 1}),
                      "a storage's offset and size are not integers >= 0"),
    "tensor past its storage": (
        file_with({"storages": [{"offset": 0, "nbytes": 8}],
                   "object": {"tensor": dict(GOOD_TENSOR, shape=[1000])}}, b"\0" * 8),
        "a saved tensor cannot be made"),
    "negative stride": (
        file_with({"storages": [{"offset": 0, "nbytes": 8}],
                   "object": {"tensor": dict(GOOD_TENSOR, stride=[-1])}}, b"\0" * 8),
        "a saved tensor cannot be made"),
    "no such storage": (
        file_with({"storages": [], "object": {"tensor": GOOD_TENSOR}}),
        "a tensor names storage 0 of 0"),
    "unknown dtype": (
        file_with({"storages": [{"offset": 0, "nbytes": 8}],
                   "object": {"tensor": dict(GOOD_TENSOR, dtype="float128")}}, b"\0" * 8),
        "unknown dtype 'float128'"),
    "unknown kind": (file_with({"storages": [], "object": {"pickle": "os.system"}}),
                     "unknown kind of value 'pickle'"),
    "bad float": (file_with({"storages": [], "object": {"float": "zz"}}),
                  "a saved float is malformed"),
    "deep value": (file_with({"storages": [], "object": json.loads(
        '{"list": [' * 400 + '1' + ']}' * 400)}), None),
}


@pytest.mark.parametrize("case", sorted(HOSTILE))
def test_a_hostile_file_is_refused_with_what_is_wrong(case):
    data, message = HOSTILE[case]
    # Each case in a process of its own: a crash would be caught as one.
    done = subprocess.run([sys.executable, "-c", textwrap.dedent("""
        import io, sys, opal
        try:
            value = opal.load(io.BytesIO(sys.stdin.buffer.read()))
        except ValueError as error:
            print("ValueError:", error)
        else:
            print("loaded:", type(value).__name__)
    """)], input=data, capture_output=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    done.stdout = done.stdout.decode()
    if message is None:  # (deep but within Python's limit: it loads)
        assert done.stdout.startswith(("loaded: list", "ValueError: opal.load")), done.stdout
    else:
        assert done.stdout.startswith("ValueError: opal.load: BytesIO: "), done.stdout
        assert message in done.stdout, done.stdout


def test_fuzzed_files_load_or_raise_value_error():
    done = subprocess.run([sys.executable, "-c", textwrap.dedent("""
        import io, random, opal
        buffer = io.BytesIO()
        x = opal.arange(24.0).reshape(4, 6)
        opal.save({"x": x, "v": x[1], "n": [1, 2.5, "s", (None, True)],
                   "b": opal.ones(3, dtype=opal.bfloat16)}, buffer)
        good = buffer.getvalue()
        rng = random.Random(1)
        outcomes = {"loaded": 0, "refused": 0}
        for trial in range(400):
            data = bytearray(good)
            for _ in range(rng.randint(1, 8)):
                kind = rng.random()
                at = rng.randrange(len(data))
                if kind < 0.6:
                    data[at] = rng.randrange(256)
                elif kind < 0.8:
                    del data[at:at + rng.randint(1, 16)]
                else:
                    data[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
            try:
                opal.load(io.BytesIO(bytes(data)))
                outcomes["loaded"] += 1
            except ValueError:
                outcomes["refused"] += 1
        print(outcomes)
    """)], capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    outcomes = eval(done.stdout)
    assert outcomes["refused"] > 100 and sum(outcomes.values()) == 400, outcomes
