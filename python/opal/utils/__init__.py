"""opal.utils: dispatch modes, and where CMake finds opal."""

from opal.utils._dispatch_mode import DispatchMode, OpRecorder
from opal.utils.cmake import cmake_prefix_path

__all__ = ["DispatchMode", "OpRecorder", "cmake_prefix_path"]
