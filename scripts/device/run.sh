#!/usr/bin/env bash
# Runs opal on a lent GPU machine (an Ubuntu image with the NVIDIA driver,
# the CUDA toolkit, Python 3.12 with PyTorch and pybind11, and no LLVM 22),
# from the repository root there, with .device/ carried:
#
#   scripts/device/run.sh PHASE...     (phases below, in the order given)
#
# It unpacks .device/opal-runtime.tar.xz (scripts/device/bundle.sh, run
# here) into /tmp/opal, builds opal._C for the machine's python3 against
# the carried libopal, then runs each phase under its own time limit,
# logging to $OUT/<phase>.log, and ends with a one-line summary per phase.
#
#   probe     the device, the toolkit, one kernel on cuda against numpy
#   cuda      test_cuda.py, test_cuda_launch.py, test_aot.py's GPU tests, CUDATests
#   aten      test_jit_aten.py with every input on cuda (OPAL_TEST_DEVICE)
#   diff      test_differential.py on cuda against the CPU (OPAL_TEST_DEVICE)
#   rows      softmax and a row sum over 1 to 65536 rows of 1024, each call
#             timed as it runs (a kernel that hangs shows where)
#   bench     benchmarks/cuda_benchmark.py
#   scaling   benchmarks/scaling.py at 1..16 threads (CPU)
#   scaling-bt1  the same with KMP_BLOCKTIME=1 (opal's idle threads sleep
#             after 1 ms instead of spinning for libomp's default 200 ms)
#   scaling-passive  the same with OMP_WAIT_POLICY=PASSIVE: both OpenMP
#             runtimes' idle threads sleep at once (neither spins on the
#             cores the other's next call needs)
#   jitbench  benchmarks/jit_benchmark.py --threads 16 --skip-compile (CPU)
#   models    benchmarks/models.py at batch 16 over 1 to 16 threads, opal
#             against eager (CPU; the zoo's scaling with cores to spare);
#             MODELS, MODELS_THREADS, MODELS_ROUNDS choose a part
set -u
root=$(pwd)
out=${OUT:-/tmp/opal-out}
opal=/tmp/opal
start=$(date +%s)
mkdir -p "$out" "$opal"
say() { echo "[$(($(date +%s) - start))s] $*"; }

tar -C "$opal" -xJf .device/opal-runtime.tar.xz || { say "unpack failed"; exit 1; }
# The machine's own copies of LLVM's dependencies win over the carried ones
# (the stubs above all: other libraries there may need the real libxml2).
for dep in libedit.so.2 libbsd.so.0 libmd.so.0 libtinfo.so.6 libffi.so.8 libz3.so.4 libxml2.so.2; do
  ldconfig -p | grep -q "^\s*$dep " && rm -f "$opal/lib/$dep"
done
export LD_LIBRARY_PATH=$opal/lib OPAL_BUILD_DIR=$opal PYTHONUNBUFFERED=1
if [ -z "${CUDA_HOME:-}" ]; then
  for dir in /usr/local/cuda $(dirname "$(dirname "$(command -v nvcc || echo /x/x)")"); do
    [ -x "$dir/bin/ptxas" ] && export CUDA_HOME=$dir && break
  done
fi
say "unpacked ($(ls "$opal/lib" | tr '\n' ' ')); CUDA_HOME=${CUDA_HOME:-none}"

# opal._C for this python3, against the carried libopal.so.
pkg=$opal/python/opal
mkdir -p "$pkg" "$opal/obj"
cp -r python/opal/. "$pkg/"
# What CMake generates, as this machine has it: no LLVM tools,
# no opal._torch_C.
version=$(sed -n 's/^project(opal VERSION \([0-9.]*\).*/\1/p' CMakeLists.txt)
sed -e "s/@PROJECT_VERSION@/${version:-0}/" -e 's/@LLVM_TOOLS_BINARY_DIR@//' \
  -e 's/@OPAL_TORCH_VERSION@//' python/opal/_config.py.in > "$pkg/_config.py"
# The entry point that makes torch.compile(backend="opal") find opal.torch.
meta=$opal/python/opal-${version:-0}.dist-info
mkdir -p "$meta"
printf 'Metadata-Version: 2.1\nName: opal\nVersion: %s\n' "${version:-0}" > "$meta/METADATA"
printf '[torch_dynamo_backends]\nopal = opal.torch:backend\n' > "$meta/entry_points.txt"
includes=$(python3 -m pybind11 --includes 2>/dev/null \
  || python3 -c 'import sysconfig; print("-I" + sysconfig.get_paths()["include"])')
suffix=$(python3 -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
ls python/src/*.cpp | grep -v TorchBridge | xargs -P 16 -I{} sh -c \
  "g++ -O2 -fPIC -fvisibility=hidden -std=c++17 -Iinclude $includes -c {} -o $opal/obj/\$(basename {}).o" \
  > "$out/build.log" 2>&1 \
  && g++ -shared "$opal"/obj/*.o -L"$opal/lib" -lopal -Wl,-rpath,"$opal/lib" -o "$pkg/_C$suffix" \
  >> "$out/build.log" 2>&1 || { say "building opal._C failed"; tail -40 "$out/build.log"; exit 1; }
export PYTHONPATH=$opal/python
say "built opal._C$suffix"

# DEVICE_SECONDS (default 600): the whole run's limit; each phase gets
# at most what is left of it, so a slow phase cannot take the next ones'
# time past the call's end (their logs would not come back).
deadline=$((start + ${DEVICE_SECONDS:-600}))
phase() {  # name seconds command...
  local name=$1 limit=$2
  shift 2
  local left=$((deadline - $(date +%s) - 5))
  if [ "$left" -lt 10 ]; then
    summary+=("$name skipped: the run's ${DEVICE_SECONDS:-600} s are spent")
    return
  fi
  [ "$limit" -gt "$left" ] && limit=$left
  say "phase $name (limit ${limit}s)"
  timeout -k 5 "$limit" "$@" > "$out/$name.log" 2>&1
  local rc=$?
  # Every test run's last line (a phase may run several).
  summary+=("$name rc=$rc $(grep -E '^[0-9]+ (passed|failed)|\[  (PASSED|FAILED)  \]' "$out/$name.log" | tr '\n' ';')")
  say "phase $name rc=$rc"
}

summary=()
workers() { python3 -c 'import xdist' 2>/dev/null && echo "-n 16"; }
pytest=(python3 -m pytest -q -p no:cacheprovider -rfEs --tb=short)
for name in "$@"; do
  case $name in
    probe) phase probe 60 bash -c '
      nvidia-smi -L; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv
      "$CUDA_HOME/bin/ptxas" --version | tail -1; nproc; lscpu | grep "Model name"
      python3 -c "import torch, numpy; print(\"torch\", torch.__version__, \"numpy\", numpy.__version__)"
      python3 -c "
import numpy as np, opal
print(opal.cuda.is_available(), opal.cuda.unavailable_reason(), opal.cuda.device_count())
print(opal.cuda.get_device_properties(0))
x = np.random.default_rng(0).standard_normal(1000).astype(np.float32)
y = opal.ops.aten.exp(opal.tensor(x, device=\"cuda\")).cpu().numpy()
print(\"exp max error\", float(np.abs(y - np.exp(x)).max()), opal.jit.stats())"' ;;
    cuda) phase cuda 150 bash -c "$opal/bin/CUDATests --gtest_brief=1; ${pytest[*]} -k 'not aten_suite and not every_aten_op' python/test/test_cuda.py python/test/test_cuda_launch.py; ${pytest[*]} -k gpu python/test/test_aot.py" ;;
    aten) phase aten 200 env OPAL_TEST_DEVICE=cuda "${pytest[@]}" $(workers) python/test/test_jit_aten.py ;;
    diff) phase diff 170 env OPAL_TEST_DEVICE=cuda "${pytest[@]}" $(workers) python/test/test_differential.py ;;
    rows) phase rows 60 python3 -X faulthandler -c "
import faulthandler, time, numpy as np, opal
faulthandler.dump_traceback_later(50, exit=True)
A = opal.ops.aten
for rows in (1, 16, 1024, 16384, 65536):
    x = opal.tensor(np.ones((rows, 1024), np.float32), device=\"cuda\")
    for name, call in ((\"softmax\", lambda: A.softmax.int(x, -1)), (\"sum\", lambda: A.sum.dim_IntList(x, [1]))):
        for _ in range(2):
            start = time.perf_counter(); y = call(); opal.cuda.synchronize()
            print(rows, name, round((time.perf_counter() - start) * 1e3, 3), \"ms\", float(y.cpu().numpy().ravel()[0]), flush=True)
" ;;
    bench) phase bench ${BENCH_SECONDS:-90} python3 benchmarks/cuda_benchmark.py --watchdog $((${BENCH_SECONDS:-90} - 5)) ;;
    scaling) phase scaling 150 python3 benchmarks/scaling.py --threads 1,2,4,8,16 --rounds ${SCALING_ROUNDS:-9} ;;
    scaling-bt1) phase scaling-bt1 150 env KMP_BLOCKTIME=1 python3 benchmarks/scaling.py --threads 1,2,4,8,16 ;;
    scaling-passive) phase scaling-passive 150 env OMP_WAIT_POLICY=PASSIVE python3 benchmarks/scaling.py --threads 1,2,4,8,16 --rounds ${SCALING_ROUNDS:-9} ;;
    models) phase models ${MODELS_SECONDS:-300} python3 benchmarks/models.py --batches 16 \
      --threads ${MODELS_THREADS:-1 2 4 8 16} --rounds ${MODELS_ROUNDS:-5} ${MODELS:+--models $MODELS} \
      --no-inductor --no-onnx --timeout 120 --json "$out/models.json" ;;
    jitbench) phase jitbench 150 python3 benchmarks/jit_benchmark.py --threads 16 --skip-compile ;;
    *) say "unknown phase $name" ;;
  esac
done
echo
for line in "${summary[@]}"; do echo "$line"; done
