"""The state of opal's random ops, as torch.random has it.

Every random op (opal.rand, opal.randn, dropout, bernoulli, randperm, and
the same ops inside compiled composites) draws from Philox4x32-10 at the
device's generator's seed and an offset of its own (docs/random.md). One
generator per device type (CPU, CUDA); manual_seed seeds them all and
restarts their offsets, so a seeded program draws the same numbers on every
run, fused or not, on CPU or CUDA.
"""

from opal import _C

__all__ = ["manual_seed", "seed", "initial_seed", "get_rng_state", "set_rng_state"]


def manual_seed(seed):
    """Seeds every device's generator with `seed` (an int; negative values
    wrap as in PyTorch) and restarts its offsets at 0."""
    seed = int(seed)
    if not -0x8000000000000000 <= seed <= 0xFFFFFFFFFFFFFFFF:
        raise RuntimeError("Overflow when unpacking long")
    _C.manual_seed(seed & 0xFFFFFFFFFFFFFFFF)


def seed():
    """Seeds every device's generator from a non-deterministic source and
    returns the seed."""
    return _C._seed_default_generators()


def initial_seed(device="cpu"):
    """The seed of `device`'s generator."""
    return _C._default_generator_state(_C.device(str(device)))[0]


def get_rng_state(device="cpu"):
    """`device`'s generator as a uint8 tensor of 16 bytes: the seed and the
    offset, each 8 bytes little-endian."""
    import numpy as np
    seed_value, offset = _C._default_generator_state(_C.device(str(device)))
    data = np.array([seed_value, offset], dtype="<u8").view(np.uint8).copy()
    return _C.from_numpy(data)


def set_rng_state(new_state, device="cpu"):
    """Restores a state that get_rng_state returned."""
    import numpy as np
    if (not isinstance(new_state, _C.Tensor) or new_state.dtype != _C.uint8 or
            new_state.shape != (16,)):
        shown = (f"a {new_state.dtype} tensor of shape {tuple(new_state.shape)}"
                 if isinstance(new_state, _C.Tensor) else type(new_state).__name__)
        raise RuntimeError("set_rng_state expects the uint8 tensor of 16 bytes (seed, offset) "
                           f"that get_rng_state returns, got {shown}")
    words = np.ascontiguousarray(new_state.cpu().numpy()).view("<u8")
    _C._set_default_generator_state(_C.device(str(device)), int(words[0]), int(words[1]))
