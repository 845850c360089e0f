#!/usr/bin/env bash
# Installs the Debian packages opal needs that are missing, and nothing else.
#
#   scripts/bootstrap.sh build   # what building opal needs
#   scripts/bootstrap.sh test    # that, plus what the test suite needs
#
# Checks each package with `dpkg -s`; runs `apt-get update` and
# `apt-get install` only when something is missing, so a second run is a no-op.
set -euo pipefail

profile="${1:-build}"

build_packages=(
  cmake ninja-build ccache g++ make
  llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
  libomp-22-dev
  pybind11-dev python3-dev python3-numpy
  libgtest-dev libgmock-dev libbenchmark-dev
  libhiredis-dev
)
# PyTorch 2, the behavioural reference of every test and what opal.torch
# bridges to, comes from PyPI into a virtual environment
# (scripts/bootstrap-python.sh; opal itself never imports it); python3-venv
# makes that environment. Debian's PyTorch 1.13 is no longer needed.
# clang-22 and its runtime build the fuzzers (libFuzzer, ASan, UBSan) that
# make test runs; redis-server is the real server the remote kernel cache
# tests start on a loopback socket.
test_packages=(python3-pytest python3-venv python3-pip clang-22
               libclang-rt-22-dev redis-server)

case "$profile" in
  build) wanted=("${build_packages[@]}") ;;
  test) wanted=("${build_packages[@]}" "${test_packages[@]}") ;;
  *) echo "usage: $0 build|test" >&2; exit 2 ;;
esac

missing=()
for package in "${wanted[@]}"; do
  if ! dpkg -s "$package" >/dev/null 2>&1 ||
     ! dpkg -s "$package" 2>/dev/null | grep -q '^Status: install ok installed'; then
    missing+=("$package")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi

echo "bootstrap: installing missing packages: ${missing[*]}"
sudo=()
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1; then
    sudo=(sudo)
  else
    echo "bootstrap: need root (or sudo) to install: ${missing[*]}" >&2
    exit 1
  fi
fi
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -q
# Installing may remove packages that conflict with the new ones
# (libomp-22-dev replaces libomp-dev and libomp-14-dev): say which first,
# and at a terminal ask before going on.
removals=$("${sudo[@]}" apt-get install -s -q --no-install-recommends "${missing[@]}" \
           2>/dev/null | awk '/^Remv /{print $2}' | tr '\n' ' ')
if [ -n "$removals" ]; then
  echo "bootstrap: installing ${missing[*]} removes these packages, which conflict with them: ${removals}"
  if [ -t 0 ]; then
    read -r -p "bootstrap: go on? [y/N] " answer
    case "$answer" in
      y|Y|yes) ;;
      *) echo "bootstrap: nothing installed" >&2; exit 1 ;;
    esac
  fi
fi
"${sudo[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
