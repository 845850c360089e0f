"""repr(opal.Tensor) in PyTorch's style.

`tensor([1., 2.])`, `tensor([1.5000, 2.0000])`, `tensor([1, 2], dtype=opal.int32)`,
`tensor(..., device='meta', size=(2, 3))`. Floats print with 4 decimals, or
in scientific notation when the magnitudes span more than 1000x (or exceed
1e8); tensors of more than 1000 elements are summarised with `...`; rows
wrap at 80 characters, and so do the suffixes (dtype=, device=).
"""

import numpy as np

_DEFAULT_DTYPES = ("float32", "int64", "bool")
_THRESHOLD = 1000
_EDGE_ITEMS = 3
_LINE_WIDTH = 80


def _formatter(array):
    if array.dtype == np.bool_:
        width = 5 if not array.all() else 4
        return lambda v: ("True" if v else "False").rjust(width)
    if np.issubdtype(array.dtype, np.integer):
        width = max((len(str(v)) for v in array.flat), default=1)
        return lambda v: str(v).rjust(width)
    if np.issubdtype(array.dtype, np.complexfloating):
        return lambda v: str(complex(v))
    finite = array[np.isfinite(array)].astype(np.float64)
    nonzero = np.abs(finite[finite != 0])
    if finite.size and np.all(finite == np.round(finite)):
        sci = nonzero.size > 0 and nonzero.max() >= 1e8
        fmt = (lambda v: f"{v:.4e}") if sci else (lambda v: f"{v:.0f}.")
    else:
        sci = nonzero.size > 0 and (nonzero.max() / nonzero.min() > 1000.0 or
                                    nonzero.max() > 1e8 or nonzero.min() < 1e-4)
        fmt = (lambda v: f"{v:.4e}") if sci else (lambda v: f"{v:.4f}")

    def format_float(v):
        if np.isnan(v):
            return "nan"
        if np.isinf(v):
            return "inf" if v > 0 else "-inf"
        return fmt(float(v))

    width = max((len(format_float(v)) for v in array.flat), default=1)
    return lambda v: format_float(v).rjust(width)


def _summarized(array):
    """The first and last _EDGE_ITEMS along every long dim: what a
    summarised repr shows, and all its width and notation are taken from
    (as PyTorch's), so a repr of a huge tensor costs as much as a small one's."""
    for dim, size in enumerate(array.shape):
        if size > 2 * _EDGE_ITEMS:
            edges = list(range(_EDGE_ITEMS)) + list(range(size - _EDGE_ITEMS, size))
            array = np.take(array, edges, axis=dim)
    return array


def _format(array, fmt, indent, summarize):
    if array.ndim == 0:
        return fmt(array.item())
    if array.ndim == 1:
        if summarize and array.shape[0] > 2 * _EDGE_ITEMS:
            items = [fmt(v) for v in array[:_EDGE_ITEMS]] + [" ..."] + \
                    [fmt(v) for v in array[-_EDGE_ITEMS:]]
        else:
            items = [fmt(v) for v in array]
        # As many elements a line as fit in _LINE_WIDTH after the indent.
        per_line = max(1, (_LINE_WIDTH - indent) // (len(items[0]) + 2)) if items else 1
        lines = [", ".join(items[i:i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    rows = list(range(array.shape[0]))
    if summarize and len(rows) > 2 * _EDGE_ITEMS:
        rows = rows[:_EDGE_ITEMS] + [None] + rows[-_EDGE_ITEMS:]
    separator = "," + "\n" * (array.ndim - 1) + " " * (indent + 1)
    parts = ["..." if r is None else _format(array[r], fmt, indent + 1, summarize)
             for r in rows]
    return "[" + separator.join(parts) + "]"


def tensor_repr(tensor):
    suffixes = []
    dtype_name = repr(tensor.dtype).split(".", 1)[1]
    if tensor.device.type != "cpu":
        suffixes.append(f"device='{tensor.device}'")  # PyTorch's place: first
    if tensor.is_meta:
        body = "..."
        suffixes.append(f"size={tuple(tensor.shape)}")
    elif tensor.numel() == 0 and tensor.ndim > 1:
        body = "[]"
        suffixes.append(f"size={tuple(tensor.shape)}")
    else:
        from opal._tensor import _host_array
        array = _host_array(tensor)  # (a CUDA tensor's values are copied here)
        summarize = array.size > _THRESHOLD
        fmt = _formatter(_summarized(array) if summarize else array)
        body = _format(array, fmt, len("tensor("), summarize)
    if dtype_name not in _DEFAULT_DTYPES or (tensor.numel() == 0 and dtype_name != "float32"):
        suffixes.append(f"dtype={tensor.dtype!r}")
    # A suffix that would pass _LINE_WIDTH starts a line of its own.
    text = "tensor(" + body
    last_line = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last_line + len(suffix) + 2 > _LINE_WIDTH:
            text += ",\n" + " " * len("tensor(") + suffix
            last_line = len("tensor(") + len(suffix)
        else:
            text += ", " + suffix
            last_line += len(suffix) + 2
    return text + ")"
