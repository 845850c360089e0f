"""opal.cuda: CUDA devices, as torch.cuda names them.

The NVIDIA driver is opened at run time (``OPAL_LIBCUDA``, default
``libcuda.so.1``); opal neither links it nor needs it. Without one,
``is_available()`` is False, ``device_count()`` is 0, and everything that
needs a device raises RuntimeError("CUDA is not available: <why>").
"""

from opal import _C

__all__ = [
    "is_available", "unavailable_reason", "device_count", "current_device", "set_device",
    "get_device_name", "get_device_capability", "get_device_properties", "synchronize",
    "empty_cache", "memory_stats", "driver_version",
]


def is_available():
    """True if a CUDA driver was found and initialized."""
    return _C._cuda_is_available()


def unavailable_reason():
    """Why CUDA is not available (None if it is): no libcuda, a missing entry
    point, or the error cuInit returned."""
    return _C._cuda_unavailable_reason()


def device_count():
    """The number of CUDA devices (0 without a driver)."""
    return _C._cuda_device_count()


def driver_version():
    """The driver's CUDA version as an int (12040 is 12.4)."""
    return _C._cuda_driver_version()


def _ordinal(device):
    if device is None:
        return _C._cuda_current_device()
    if isinstance(device, int):
        return device
    device = _C.device(device) if isinstance(device, str) else device
    if device.type != "cuda":
        raise ValueError(f"expected a cuda device, got {device}")
    return device.index if device.index is not None else _C._cuda_current_device()


def current_device():
    """The current device's ordinal on this thread."""
    return _C._cuda_current_device()


def set_device(device):
    """Sets the current device of this thread ("cuda:1", 1)."""
    _C._cuda_set_device(_ordinal(device))


def get_device_properties(device=None):
    """name, major, minor, multi_processor_count, max_threads_per_block and
    total_memory of a device, as a dict."""
    return _C._cuda_device_properties(_ordinal(device))


def get_device_name(device=None):
    return get_device_properties(device)["name"]


def get_device_capability(device=None):
    """(major, minor): (9, 0) for an H100."""
    properties = get_device_properties(device)
    return properties["major"], properties["minor"]


def synchronize(device=None):
    """Waits for all of opal's work on a device (its current stream)."""
    _C._cuda_synchronize(_ordinal(device))


def empty_cache():
    """Frees the device blocks the caching allocator keeps for reuse."""
    _C._cuda_empty_cache()


def memory_stats():
    """allocations, cache_hits, bytes_in_use and bytes_cached of the caching
    allocator, over all devices."""
    return _C._cuda_memory_stats()
