#!/usr/bin/env bash
# Creates (once) the virtual environment the tests run in and installs
# scripts/requirements-test.txt into it from PyPI, downloads the wheels of
# scripts/requirements-wheelhouse.txt into its wheelhouse/; prints its python.
#
#   scripts/bootstrap-python.sh        # -> /root/.cache/opal-venv/bin/python
#
# The environment lives outside the clone, at $OPAL_VENV (default
# ~/.cache/opal-venv), so that a fresh clone (CI's) reuses it instead of
# downloading PyTorch's several GB again. It sees Debian's packages
# (--system-site-packages: numpy, pytest); its own come first. pip runs only
# when the requirements changed since the last install (a stamp inside the
# environment holds their hash), so a second run is a no-op.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
venv="${OPAL_VENV:-$HOME/.cache/opal-venv}"
requirements="$here/requirements-test.txt"
python="$venv/bin/python"

if [ ! -x "$python" ]; then
  echo "bootstrap-python: creating $venv" >&2
  /usr/bin/python3 -m venv --system-site-packages "$venv"
fi
wheelhouse_requirements="$here/requirements-wheelhouse.txt"
wanted="$(cat "$requirements" "$wheelhouse_requirements" | sha256sum | cut -d' ' -f1)"
stamp="$venv/.opal-requirements"
if [ "$(cat "$stamp" 2>/dev/null)" != "$wanted" ]; then
  echo "bootstrap-python: installing $(grep -v '^#' "$requirements" | tr '\n' ' ')into $venv" >&2
  "$python" -m pip install -q --disable-pip-version-check -r "$requirements" >&2
  echo "bootstrap-python: downloading $(grep -v '^#' "$wheelhouse_requirements" | tr '\n' ' ')into $venv/wheelhouse" >&2
  "$python" -m pip download -q --disable-pip-version-check -d "$venv/wheelhouse" \
    -r "$wheelhouse_requirements" >&2
  echo "$wanted" > "$stamp"
fi
echo "$python"
