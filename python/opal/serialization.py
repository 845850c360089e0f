"""opal.save and opal.load, and pickling and deep copies of tensors.

    opal.save({"weight": w, "step": 3}, "model.opal")
    state = opal.load("model.opal")                       # as saved
    state = opal.load("model.opal", map_location="cpu")   # CUDA tensors to the host

What a file holds: tensors (of every dtype, on any device; views keep
sharing their storage, which is written once), and the Python values
around them: None, bool, int, float, complex, str, lists, tuples, dicts
(OrderedDict kept), opal.dtype and opal.device. Nothing in a file is
executed when it loads (unlike pickle): the reader accepts only these.

The format (version 1), little-endian:

    bytes 0-7     b"OPALSAVE"
    bytes 8-11    the format version (uint32)
    bytes 12-19   the header's length H in bytes (uint64)
    bytes 20..    the header: UTF-8 JSON, {"storages": [{"offset", "nbytes"}],
                  "object": the saved value, encoded below}
    then          zeros up to a multiple of 64 bytes, then the storages' bytes,
                  each at its "offset" (from there, a multiple of 64)

A value in the header: null, true/false, a string, an integer; anything
else is an object of one key naming its kind: {"float": hex}, {"complex":
[hex, hex]}, {"list": [...]}, {"tuple": [...]}, {"dict": [[key, value],
...]}, {"odict": ...}, {"dtype": "float32"}, {"device": "cuda:0"}, or
{"tensor": {"storage": index or null (meta), "dtype", "shape", "stride",
"offset" (elements), "device", "requires_grad"}}. A reader refuses a newer
version, a header or storage that reaches past the file's end (checked
before anything is allocated), and a tensor that reaches past its storage.
"""

import collections
import copyreg
import io
import json
import os
import struct
import weakref

import numpy as np

from opal import _C
from opal._tensor import _dtype_name

MAGIC = b"OPALSAVE"
VERSION = 1
_ALIGNMENT = 64
_PREAMBLE = struct.Struct("<8sIQ")  # magic, version, header length

_DTYPES = {_dtype_name(d): d for d in (
    _C.bool, _C.uint8, _C.int8, _C.int16, _C.int32, _C.int64, _C.float16, _C.bfloat16,
    _C.float32, _C.float64, _C.complex64, _C.complex128)}


def _aligned(n):
    return (n + _ALIGNMENT - 1) // _ALIGNMENT * _ALIGNMENT


def _storage_key(tensor):
    address, nbytes = tensor._storage()
    return str(tensor.device), address, nbytes


def _whole_storage(tensor):
    """The whole storage under `tensor`, as a uint8 tensor over it."""
    _, nbytes = tensor._storage()
    return _C._view_storage(tensor, _C.uint8, [nbytes], [1], 0)


def _storage_bytes(tensor):
    """The whole storage under `tensor` as a host numpy uint8 array (shared
    with the tensor on the CPU, a copy from another device)."""
    whole = _whole_storage(tensor)
    if tensor.device.type != "cpu":
        whole = whole.cpu()
    return whole.numpy()


# ----------------------------------------------------------------- writing


class _Writer:
    def __init__(self):
        self.storages = {}  # storage key -> index
        self.sources = []   # per storage, a tensor over it
        self.open = set()   # the containers being encoded (a cycle's check)

    def encode(self, value):
        if isinstance(value, (list, tuple, dict)):
            if id(value) in self.open:
                raise ValueError("opal.save: the value contains itself (a cycle), which a "
                                 "file cannot hold")
            self.open.add(id(value))
            try:
                return self.encode_item(value)
            finally:
                self.open.discard(id(value))
        return self.encode_item(value)

    def encode_item(self, value):
        if value is None or isinstance(value, (bool, str)):
            return value
        if isinstance(value, int):
            return value
        if isinstance(value, float):
            return {"float": value.hex()}
        if isinstance(value, complex):
            return {"complex": [value.real.hex(), value.imag.hex()]}
        if isinstance(value, _C.Tensor):
            return {"tensor": self.tensor(value)}
        if isinstance(value, _C.dtype):
            return {"dtype": _dtype_name(value)}
        if isinstance(value, _C.device):
            return {"device": str(value)}
        if isinstance(value, list):
            return {"list": [self.encode(v) for v in value]}
        if isinstance(value, tuple) and type(value) is tuple:
            return {"tuple": [self.encode(v) for v in value]}
        if isinstance(value, dict):
            kind = "odict" if isinstance(value, collections.OrderedDict) else "dict"
            return {kind: [[self.encode(k), self.encode(v)] for k, v in value.items()]}
        kind = type(value)
        name = kind.__name__ if kind.__module__ == "builtins" else \
            f"{kind.__module__}.{kind.__qualname__}"
        raise TypeError(f"opal.save: cannot save a {name} (it saves opal tensors, "
                        "None, bool, int, float, complex, str, lists, tuples, dicts, "
                        "opal.dtype and opal.device)")

    def tensor(self, t):
        entry = {"storage": None, "dtype": _dtype_name(t.dtype), "shape": list(t.shape),
                 "stride": list(t.stride()), "offset": t.storage_offset(),
                 "device": str(t.device), "requires_grad": bool(t.requires_grad)}
        if not t.is_meta:
            key = _storage_key(t)
            if key not in self.storages:
                self.storages[key] = len(self.sources)
                self.sources.append(t)
            entry["storage"] = self.storages[key]
        return entry


def save(obj, f):
    """Writes `obj` (see the module's docstring) to `f`, a path or a
    binary file object."""
    writer = _Writer()
    try:
        tree = writer.encode(obj)
    except RecursionError:
        raise ValueError("opal.save: the value nests deeper than Python's recursion limit") \
            from None
    layout, offset = [], 0
    for source in writer.sources:
        nbytes = source._storage()[1]
        layout.append({"offset": offset, "nbytes": nbytes})
        offset = _aligned(offset + nbytes)
    header = json.dumps({"storages": layout, "object": tree},
                        separators=(",", ":")).encode("utf-8")
    if isinstance(f, (str, os.PathLike)):
        with open(f, "wb") as file:
            return _write(file, header, writer.sources, layout)
    return _write(f, header, writer.sources, layout)


def _write(file, header, sources, layout):
    preamble = _PREAMBLE.pack(MAGIC, VERSION, len(header))
    file.write(preamble)
    file.write(header)
    written = len(preamble) + len(header)
    file.write(b"\0" * (_aligned(written) - written))
    position = 0
    for source, place in zip(sources, layout):
        file.write(b"\0" * (place["offset"] - position))
        file.write(memoryview(_storage_bytes(source)))
        position = place["offset"] + place["nbytes"]


# ----------------------------------------------------------------- reading


class _LoadError(ValueError):
    pass


class _Reader:
    def __init__(self, name, storages, map_location):
        self.name, self.storages, self.map_location = name, storages, map_location
        self.placed = {}  # (storage index, device) -> a uint8 tensor over it

    def fail(self, what):
        raise _LoadError(f"opal.load: {self.name}: {what}")

    def decode(self, value):
        if value is None or isinstance(value, (bool, str, int)):
            return value
        if not isinstance(value, dict) or len(value) != 1:
            self.fail(f"not a saved value: {json.dumps(value)[:80]}")
        (kind, body), = value.items()
        try:
            if kind == "float":
                return float.fromhex(body)
            if kind == "complex":
                return complex(float.fromhex(body[0]), float.fromhex(body[1]))
            if kind in ("list", "tuple"):
                items = [self.decode(v) for v in self.listed(body, kind)]
                return items if kind == "list" else tuple(items)
            if kind in ("dict", "odict"):
                pairs = [self.listed(pair, "dict item") for pair in self.listed(body, kind)]
                if any(len(pair) != 2 for pair in pairs):
                    self.fail("a dict item is not a [key, value] pair")
                made = collections.OrderedDict() if kind == "odict" else {}
                for key, item in pairs:
                    made[self.decode(key)] = self.decode(item)
                return made
            if kind == "dtype":
                return self.dtype(body)
            if kind == "device":
                return _C.device(body)
            if kind == "tensor":
                return self.tensor(body)
        except _LoadError:
            raise
        except (TypeError, AttributeError, OverflowError, ValueError) as error:
            self.fail(f"a saved {kind} is malformed ({error})")
        self.fail(f"unknown kind of value '{kind}'")

    def listed(self, value, what):
        if not isinstance(value, list):
            self.fail(f"a saved {what} is not a list")
        return value

    def dtype(self, name):
        if name not in _DTYPES:
            self.fail(f"unknown dtype '{name}'")
        return _DTYPES[name]

    def ints(self, value, what):
        if not isinstance(value, list) or not all(
                isinstance(v, int) and not isinstance(v, bool) for v in value):
            self.fail(f"a tensor's {what} is not a list of ints")
        return value

    def tensor(self, entry):
        if not isinstance(entry, dict):
            self.fail("a saved tensor is not an object")
        dtype = self.dtype(entry.get("dtype"))
        shape, stride = self.ints(entry.get("shape"), "shape"), self.ints(entry.get("stride"),
                                                                           "stride")
        offset, index = entry.get("offset"), entry.get("storage")
        if not isinstance(offset, int) or isinstance(offset, bool):
            self.fail("a tensor's offset is not an int")
        device = _C.device(self.map_location or entry.get("device", "cpu"))
        try:
            if index is None:
                from opal._tensor import empty
                made = empty(*shape, dtype=dtype, device="meta")
            else:
                if not isinstance(index, int) or not 0 <= index < len(self.storages):
                    self.fail(f"a tensor names storage {index!r} of {len(self.storages)}")
                made = _C._view_storage(self.placed_on(index, device), dtype, shape, stride,
                                        offset)
            if entry.get("requires_grad") is True:
                made.requires_grad_()
        except RuntimeError as error:
            self.fail(f"a saved tensor cannot be made: {error}")
        return made

    def placed_on(self, index, device):
        """Storage `index` on `device` (copied there once for all its
        tensors)."""
        key = (index, str(device))
        if key not in self.placed:
            base = self.storages[index]
            try:
                self.placed[key] = base if device.type == "cpu" else base.to(device)
            except RuntimeError as error:
                self.fail(f"a tensor was saved on {device}, which this process cannot use "
                          f"({error}); load it with map_location='cpu'")
        return self.placed[key]


def load(f, map_location=None):
    """Reads what opal.save wrote to `f` (a path or a binary file object).
    `map_location`: a device (or its name) to put every tensor on instead of
    the one it was saved from."""
    if map_location is not None:
        map_location = str(_C.device(str(map_location)))
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as file:
            return _read(file, os.fspath(f), map_location)
    return _read(f, getattr(f, "name", type(f).__name__), map_location)


def _remaining(file):
    here = file.tell()
    end = file.seek(0, io.SEEK_END)
    file.seek(here)
    return end - here


def _read(file, name, map_location):
    def fail(what):
        raise ValueError(f"opal.load: {name}: {what}")
    start = file.read(_PREAMBLE.size)
    if len(start) < len(MAGIC) or start[:len(MAGIC)] != MAGIC:
        fail(f"not a file opal.save wrote (it starts with {start[:8]!r}, not {MAGIC!r})")
    if len(start) < _PREAMBLE.size:
        fail("the file ends inside its preamble")
    _, version, header_length = _PREAMBLE.unpack(start)
    if version > VERSION:
        fail(f"written in format version {version} by a newer opal; this opal reads "
             f"versions up to {VERSION}")
    if version < 1:
        fail(f"unknown format version {version}")
    available = _remaining(file)
    if header_length > available:
        fail(f"the header claims {header_length} bytes, but only {available} follow")
    try:
        header = json.loads(file.read(header_length).decode("utf-8"))
    except RecursionError:
        fail("the header nests deeper than Python's recursion limit")
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        fail(f"the header is not valid JSON ({error})")
    if not isinstance(header, dict) or not isinstance(header.get("storages"), list) or \
            "object" not in header:
        fail("the header lacks 'storages' or 'object'")
    data_start = _aligned(_PREAMBLE.size + header_length)
    data_size = _PREAMBLE.size + header_length + _remaining(file) - data_start
    places = []
    for place in header["storages"]:
        offset = place.get("offset") if isinstance(place, dict) else None
        nbytes = place.get("nbytes") if isinstance(place, dict) else None
        if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0
                   for v in (offset, nbytes)):
            fail(f"a storage's offset and size are not integers >= 0: {place!r}")
        if offset % _ALIGNMENT or offset + nbytes > data_size:
            fail(f"a storage of {nbytes} bytes at {offset} reaches past the file's end "
                 f"({max(data_size, 0)} bytes of data)")
        places.append((offset, nbytes))
    storages = []
    for offset, nbytes in places:  # every size checked: now the reads
        file.seek(data_start + offset)
        array = np.empty(nbytes, dtype=np.uint8)
        if file.readinto(memoryview(array)) != nbytes:
            fail("the file ended while reading a storage")
        storages.append(_C.from_numpy(array))
    try:
        return _Reader(name, storages, map_location).decode(header["object"])
    except RecursionError:
        fail("the saved value nests deeper than Python's recursion limit")


# ----------------------------------------------- pickle and copy.deepcopy


class _Storage:
    """A tensor's storage while it is pickled: one object per storage (the
    same while it lives), so that pickle writes it once and the tensors
    that share it share it again when loaded."""

    def __init__(self, tensor):
        self.tensor = tensor

    def __reduce__(self):
        return _rebuild_storage, (bytes(memoryview(_storage_bytes(self.tensor))),
                                  str(self.tensor.device))


_live_storages = weakref.WeakValueDictionary()


def _storage_object(tensor):
    key = _storage_key(tensor)
    found = _live_storages.get(key)
    if found is None:
        found = _live_storages[key] = _Storage(tensor)
    return found


def _rebuild_storage(data, device):
    base = _C.from_numpy(np.frombuffer(bytearray(data), dtype=np.uint8))
    return base if device == "cpu" else base.to(_C.device(device))


def _rebuild_tensor(storage, dtype_name, shape, stride, offset, requires_grad):
    dtype = _DTYPES[dtype_name]
    if isinstance(storage, _Storage):  # (copy.copy: a view of the same storage)
        storage = storage.tensor
    if storage is None:
        from opal._tensor import empty
        made = empty(*shape, dtype=dtype, device="meta")
    else:
        made = _C._view_storage(storage, dtype, list(shape), list(stride), offset)
    if requires_grad:
        made.requires_grad_()
    return made


def _reduce_tensor(tensor):
    storage = None if tensor.is_meta else _storage_object(tensor)
    return _rebuild_tensor, (storage, _dtype_name(tensor.dtype), tuple(tensor.shape),
                             tuple(tensor.stride()), tensor.storage_offset(),
                             bool(tensor.requires_grad))


def _deepcopy_tensor(tensor, memo):
    """A copy with storages of its own; tensors that shared a storage in
    the original share the copy's (per copy.deepcopy call, through memo)."""
    if id(tensor) in memo:
        return memo[id(tensor)]
    storage = None
    if not tensor.is_meta:
        key = ("opal storage",) + _storage_key(tensor)
        if key not in memo:
            memo[key] = _whole_storage(tensor).clone()
            memo.setdefault(id(memo), []).append(tensor)  # (keeps the address taken)
        storage = memo[key]
    made = _rebuild_tensor(storage, _dtype_name(tensor.dtype), tuple(tensor.shape),
                           tuple(tensor.stride()), tensor.storage_offset(),
                           bool(tensor.requires_grad))
    memo[id(tensor)] = made
    return made


def install():
    """pickle and copy.deepcopy for opal.Tensor."""
    copyreg.pickle(_C.Tensor, _reduce_tensor)
    _C.Tensor.__deepcopy__ = _deepcopy_tensor

