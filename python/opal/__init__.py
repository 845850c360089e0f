"""opal: an MLIR-based operator compiler and JIT dispatcher.

The native core lives in ``opal._C``; this package grows the Python API
(``opal.library``, ``opal.ops``) on top of it.
"""

from opal import _C
from opal._C import parse_schema

__version__ = "0.1.0"

__all__ = ["parse_schema", "__version__"]
