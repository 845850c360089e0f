"""Where CMake finds opal: `find_package(opal)` searches
`<prefix>/lib/cmake/opal` for each prefix of CMAKE_PREFIX_PATH.

    cmake -S myproject -B build -DCMAKE_PREFIX_PATH="$(python -m opal.utils.cmake)"
"""

import os

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def cmake_prefix_path():
    """The prefix under which this opal's CMake package lies: the package
    folder for a pip install, the install prefix for cmake --install, the
    build folder for a build."""
    for prefix in (_PACKAGE,                                           # pip install
                   os.path.join(_PACKAGE, "..", "..", "..", ".."),     # lib/python3/dist-packages/opal
                   os.path.join(_PACKAGE, "..", "..")):                # build/python/opal
        if os.path.isfile(os.path.join(prefix, "lib", "cmake", "opal", "opalConfig.cmake")):
            return os.path.abspath(prefix)
    raise RuntimeError(f"opal: no CMake package (lib/cmake/opal) beside the package at {_PACKAGE}")


if __name__ == "__main__":
    print(cmake_prefix_path())
