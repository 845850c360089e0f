"""opal.utils: dispatch modes."""

from opal.utils._dispatch_mode import DispatchMode, OpRecorder

__all__ = ["DispatchMode", "OpRecorder"]
