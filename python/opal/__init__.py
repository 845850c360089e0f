"""opal: an MLIR-based operator compiler and JIT dispatcher.

    import opal
    lib = opal.library.Library("mylib", "DEF")
    lib.define("scale(Tensor x, float factor=2.0) -> Tensor")
    lib.impl("scale", my_kernel, "CPU")
    y = opal.ops.mylib.scale(opal.ones(3))
"""

from opal import _C

if _C._num_threads_knob_error() is not None:
    raise ValueError(_C._num_threads_knob_error())
from opal._C import DispatchKey, DispatchKeySet, Tensor, device, dtype, parse_schema
from opal._C import get_num_threads, set_num_threads
from opal._C import (bfloat16, bool, complex64, complex128, float16, float32, float64,
                     int8, int16, int32, int64, uint8)
from opal._tensor import (arange, empty, empty_like, from_dlpack, from_numpy, full,
                          full_like, ones, ones_like, rand, rand_like, randn, randn_like,
                          randperm, tensor, zeros, zeros_like)
from opal import random
from opal.random import get_rng_state, initial_seed, manual_seed, seed, set_rng_state
from opal import library
from opal._ops import ops
from opal import _tensor_ops

# The eager API: Python operators and methods on opal.Tensor, and
# PyTorch's functions as opal.<fn>, all calls of opal.ops.aten.
_tensor_ops.install()
globals().update({name: fn for name, fn in _tensor_ops.FUNCTIONS.items()
                  if name not in globals()})
from opal import autograd
from opal.autograd import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
autograd._install()
from opal._compare import allclose, isclose
from opal import testing
from opal import serialization
from opal.serialization import load, save
serialization.install()
from opal import utils
from opal import jit
from opal import cuda

from opal._config import VERSION as __version__  # (CMake's PROJECT_VERSION)

# PyTorch's short names.
float = float32
double = float64
half = float16
long = int64
int = int32
short = int16
cfloat = complex64
cdouble = complex128
