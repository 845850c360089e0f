#!/usr/bin/env bash
# Packs what a lent GPU machine needs to run opal built here into
# .device/opal-runtime.tar.xz (an ignored folder the device tool carries):
#
#   lib/  libopal, libopal_compiler, LLVM's OpenMP runtime, libMLIR and
#         libLLVM 22 with the libraries they need that such a machine
#         (Ubuntu with CUDA, no LLVM 22) lacks
#   bin/  the C++ CUDA unit tests, opal-aot and opal-opt
#
# libLLVM also needs libz3 (the static analyzer's solver) and libxml2 (the
# Windows manifest merger); opal calls neither, so they travel as stubs
# whose functions abort, built here from the symbols libLLVM imports, which
# saves ~15 MB of the tool's 64 MiB limit. The Python extension is built on
# the device, for its interpreter (scripts/device/run.sh).
#
#   scripts/device/bundle.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/../.."
build=${1:-build}
out=.device
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
[ -n "${KEEP_STAGE:-}" ] && trap - EXIT && echo "stage: $stage"
mkdir -p "$out" "$stage/lib" "$stage/bin"
# .device/ is in .gitignore: it never lands in a commit.

llvm=/usr/lib/llvm-22/lib
libllvm=$(readlink -f "$llvm/libLLVM.so.22.1")
cp -L "$build/lib/libopal.so" "$build/lib/libopal_compiler.so" "$llvm/libomp.so.5" \
  "$llvm/libMLIR.so.22.1" "$libllvm" "$stage/lib/"
for dep in libedit.so.2 libbsd.so.0 libmd.so.0 libtinfo.so.6 libffi.so.8 libhiredis.so.0.14; do
  cp -L "/lib/x86_64-linux-gnu/$dep" "$stage/lib/"
done
cp "$build/bin/CUDATests" "$build/bin/opal-aot" "$build/bin/opal-opt" "$stage/bin/"

# The stubs: every symbol libLLVM imports from libz3 / libxml2 (with its
# symbol version), defined as a function that aborts; xmlFree is a variable.
imports() { objdump -T "$libllvm" | awk -v pat="$1" '$0 ~ /\*UND\*/ && $NF ~ pat {print $(NF-1), $NF}'; }
stub() {  # name soname pattern
  local c="$stage/$1.c" map="$stage/$1.map"
  echo '#include <stdlib.h>' > "$c"
  : > "$map"
  imports "$3" | while read -r version symbol; do
    if [ "$symbol" = xmlFree ]; then echo "void *xmlFree;" >> "$c"
    else echo "void $symbol(void) { abort(); }" >> "$c"; fi
    echo "$version $symbol" >> "$map"
  done
  local script="$stage/$1.ver"
  : > "$script"
  for version in $(awk '{print $1}' "$map" | sort -u); do
    [ "$version" = Base ] && continue
    echo "${version//[()]/} { global: $(awk -v v="$version" '$1 == v {printf "%s; ", $2}' "$map") };" \
      >> "$script"
  done
  local flags=()
  [ -s "$script" ] && flags=(-Wl,--version-script="$script")
  cc -shared -fPIC -o "$stage/lib/$2" -Wl,-soname,"$2" "${flags[@]}" "$c"
}
stub z3 libz3.so.4 '^Z3_'
stub xml2 libxml2.so.2 '^xml'

tar -C "$stage" -cf - lib bin | xz -T0 -9 > "$out/opal-runtime.tar.xz"
ls -l "$out/opal-runtime.tar.xz"
