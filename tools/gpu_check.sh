#!/usr/bin/env bash
# On a machine with an NVIDIA GPU: build opgen with its CUDA plugin for that GPU, then
# run the GPU tests, compute-sanitizer over them, and the GPU benchmarks. Logs go to
# $OUT (default ./gpu-out); the last lines printed are a summary.
#
#   tools/gpu_check.sh [build] [tests] [cpu-tests] [bench] [sanitize]   (default: all)
#
# Wheels placed in .whl/ (e.g. a newer protobuf) are installed first, into /tmp/site,
# where opgen is installed too, so the machine's Python is left as it is.
set -uo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
OUT=${OUT:-$REPO/gpu-out}
mkdir -p "$OUT"
STAGES=${*:-build tests cpu-tests bench sanitize}
ARCH=${OPGEN_CUDA_ARCHITECTURES:-90}
PY=${PYTHON:-python3}
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1
summary=()
note() { summary+=("$1"); echo "== $1"; }
has() { [[ " $STAGES " == *" $1 "* ]]; }

{ date -u; nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv;
  nvcc --version | tail -1; $PY -c "import sys, numpy; print(sys.version); print('numpy', numpy.__version__)"
  $PY -c "import torch; print('torch', torch.__version__, torch.version.cuda)" 2>&1 | tail -1
} 2>&1 | tee "$OUT/env.txt"

if has build; then
  mkdir -p /tmp/site
  if compgen -G "$REPO/.whl/*.whl" > /dev/null; then
    $PY -m pip install -q --no-index --no-deps --no-compile --upgrade --target /tmp/site "$REPO"/.whl/*.whl
  fi
  start=$(date +%s)
  if compgen -G "$REPO/.whl/opgen-*.whl" > /dev/null; then
    note "build: using the prebuilt $(basename "$REPO"/.whl/opgen-*.whl)"
  elif CMAKE_BUILD_PARALLEL_LEVEL=$(nproc) $PY -m pip install -v --no-deps --no-build-isolation \
       --no-compile --upgrade --target /tmp/site "$REPO" \
       -Ccmake.define.OPGEN_CUDA_ARCHITECTURES="$ARCH" -Cbuild-dir=/tmp/opgen-build > "$OUT/build.log" 2>&1; then
    note "build: ok in $(( $(date +%s) - start )) s (sm_$ARCH)"
  else
    tail -60 "$OUT/build.log"; note "build: FAILED"; printf '%s\n' "${summary[@]}"; exit 1
  fi
fi

cd /tmp  # import the installed opgen, not the checkout
$PY -c "import opgen; [print(d) for d in opgen.list_devices()]; print('GPU unavailable:', opgen.device_unavailable_reason('GPU'))" 2>&1 | tee "$OUT/devices.txt"

if has tests; then
  xdist=""; $PY -c "import xdist" 2>/dev/null && xdist="-n 8"
  timeout "${TEST_TIMEOUT:-540}" $PY -m pytest "$REPO/tests/gpu" -q -p no:cacheprovider -rfEs $xdist \
    > "$OUT/gpu-tests.log" 2>&1
  note "gpu tests: $(tail -1 "$OUT/gpu-tests.log")"
  note "$(grep -m1 "GPU kernels reached" "$OUT/gpu-tests.log" || echo "GPU kernel coverage: not reported")"
  grep -E "^(FAILED|ERROR)" "$OUT/gpu-tests.log" | cut -c1-200 | head -40
fi
if has cpu-tests; then
  $PY -m pytest "$REPO/tests/python_runtime" "$REPO/tests/runtime" -q -p no:cacheprovider -x > "$OUT/cpu-tests.log" 2>&1
  note "cpu tests with the GPU plugin loaded: $(tail -1 "$OUT/cpu-tests.log")"
fi
if has bench; then
  for b in "$REPO"/benchmarks/bench_cuda_*.py; do
    timeout "${BENCH_TIMEOUT:-300}" $PY "$b" > "$OUT/$(basename "$b" .py).txt" 2>&1
    note "$(basename "$b"): exit $?"
    tail -25 "$OUT/$(basename "$b" .py).txt"
  done
fi
if has sanitize; then
  # One case per test and kernel choice (--kernel-sample, ~1,300 of ~9,700): every kernel
  # and dtype runs under memcheck within one device call; SANITIZE_SELECT="" runs them all.
  timeout "${SANITIZE_TIMEOUT:-540}" compute-sanitizer --tool memcheck --target-processes all --error-exitcode 99 --print-limit 20 \
    $PY -m pytest "$REPO/tests/gpu" -q -p no:cacheprovider ${SANITIZE_SELECT---kernel-sample} > "$OUT/sanitizer.log" 2>&1
  note "compute-sanitizer memcheck: exit $? ($(grep -E 'ERROR SUMMARY' "$OUT/sanitizer.log" | tail -1)) $(tail -1 "$OUT/sanitizer.log")"
  note "under memcheck, $(grep -m1 "GPU kernels reached" "$OUT/sanitizer.log" || echo "GPU kernel coverage: not reported")"
fi
printf '%s\n' "${summary[@]}"
