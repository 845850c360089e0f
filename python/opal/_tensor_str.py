"""repr(opal.Tensor) in PyTorch's style.

`tensor([1., 2.])`, `tensor([1.5000, 2.0000])`, `tensor([1, 2], dtype=opal.int32)`,
`tensor(..., device='meta', size=(2, 3))`. Floats print with 4 decimals, or
in scientific notation when the magnitudes span more than 1000x (or exceed
1e8); tensors of more than 1000 elements are summarised with `...`.
"""

import numpy as np

_DEFAULT_DTYPES = ("float32", "int64", "bool")
_THRESHOLD = 1000
_EDGE_ITEMS = 3


def _formatter(array):
    if array.dtype == np.bool_:
        return lambda v: "True" if v else "False"
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
        return "[" + ", ".join(items) + "]"
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
    elif dtype_name == "bfloat16":
        body = "<bfloat16 values>"
    else:
        array = tensor.cpu().numpy()  # a CUDA tensor's values are copied here
        summarize = array.size > _THRESHOLD
        fmt = _formatter(_summarized(array) if summarize else array)
        body = _format(array, fmt, len("tensor("), summarize)
    if dtype_name not in _DEFAULT_DTYPES or (tensor.numel() == 0 and dtype_name != "float32"):
        suffixes.append(f"dtype={tensor.dtype!r}")
    return "tensor(" + ", ".join([body] + suffixes) + ")"
