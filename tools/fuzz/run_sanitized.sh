#!/usr/bin/env bash
# Builds the runtime and the C fuzz targets under
# AddressSanitizer + UBSan (LeakSanitizer on), then runs each target for a bounded time.
# CI runs it with a short budget; long runs by hand give a longer one (README.md here).
#
#   tools/fuzz/run_sanitized.sh [SECONDS_PER_TARGET] [SEED]
#
# Environment: OPGEN_FUZZ_BUILD (default build-san), OPGEN_FUZZ_WORK (default: a fresh
# temporary folder; it keeps the grown corpora and any crash-*/timeout-* input),
# PYTHON (default python3; the atheris target is skipped, saying so, where that Python
# lacks atheris). Exits non-zero on the first finding, naming the input that shows it.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-60}
seed=${2:-1}
build=${OPGEN_FUZZ_BUILD:-build-san}
work=${OPGEN_FUZZ_WORK:-$(mktemp -d)}
python=${PYTHON:-python3}
mkdir -p "$work"

san="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -g" \
  -DCMAKE_C_FLAGS="$san" -DCMAKE_CXX_FLAGS="$san" \
  -DCMAKE_SHARED_LINKER_FLAGS="-fsanitize=address,undefined" \
  -DCMAKE_MODULE_LINKER_FLAGS="-fsanitize=address,undefined" \
  -DCMAKE_CUDA_COMPILER=NOTFOUND -DOPGEN_BUILD_FAST_PATH=OFF -DOPGEN_FUZZ_COVERAGE=ON \
  -DPython_EXECUTABLE="$(command -v "$python")" >/dev/null
ninja -C "$build" opgen_runtime

# Allocations over 1 GB fail (and must be reported): a few bytes of TensorProto can ask
# for gigabytes, and filling them would spend the run (and its timeout) on page faults.
export ASAN_OPTIONS=${ASAN_OPTIONS:-allocator_may_return_null=1:max_allocation_size_mb=1024:detect_leaks=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
# ASan warns on each allocation it refuses (inputs ask for absurd sizes on purpose).
quiet() { "$@" 2> >(grep -v 'AddressSanitizer failed to allocate' >&2); }
link=(-L"$build" -l:libopgen_runtime.so -Wl,-rpath,"$PWD/$build")
fixtures=(tests/fixtures/tf_models/*.pb)

# The libFuzzer-style targets, with the coverage-guided driver (GCC has no libFuzzer).
for target in graphdef eager_attrs parse_example; do
  binary="$build/fuzz_$target"
  gcc -std=c11 -g -O1 $san -Iruntime/include "tools/fuzz/target_$target.c" \
    tools/fuzz/driver.c "${link[@]}" -o "$binary"
  corpus="$work/corpus-$target"
  mkdir -p "$corpus"
  seeds=()
  [ "$target" = graphdef ] && seeds=("${fixtures[@]}")
  echo "fuzz: $target for ${seconds}s (seed $seed)"
  quiet "$binary" -max_total_time="$seconds" -seed="$seed" -timeout=20 \
    -artifact_prefix="$work/$target-" "$corpus" "${seeds[@]}"
done

# The mutation fuzzer of the whole C ABI, for the same time (about 4,000 inputs a second).
gcc -std=c11 -g -O1 $san -Iruntime/include tools/fuzz/fuzz_capi.c "${link[@]}" \
  -o "$build/fuzz_capi"
echo "fuzz: fuzz_capi, $((seconds * 4000)) inputs (seed $seed)"
quiet "$build/fuzz_capi" --seed "$seed" --iterations $((seconds * 4000)) "${fixtures[@]}" | tail -8

# The OpList loaders: Python and protobuf, no code of ours that ASan could instrument (the
# compiled scanner is gone, issue 19); and preloading GCC's libasan would break atheris's
# coverage of Python code, which libasan's coverage hooks shadow. So: guided, no sanitizer.
if ! "$python" -c "import atheris" 2>/dev/null; then
  echo "fuzz: $python has no atheris (pip install '.[fuzz]'): the OpList target is skipped" >&2
  exit 0
fi
"$python" tools/fuzz/fuzz_oplist.py --make-seeds "$work/seeds-oplist"
mkdir -p "$work/corpus-oplist"
echo "fuzz: oplist (atheris) for ${seconds}s (seed $seed)"
"$python" tools/fuzz/fuzz_oplist.py -max_total_time="$seconds" -seed="$seed" \
  -artifact_prefix="$work/oplist-" -print_final_stats=1 \
  "$work/corpus-oplist" "$work/seeds-oplist" 2>&1 | grep -v '^INFO: Instrumenting\|^"\|dictionary'
echo "fuzz: all targets ran clean (work folder: $work)"
