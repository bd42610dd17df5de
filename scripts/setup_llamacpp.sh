#!/usr/bin/env bash
# llama-cpp-python for `--model llamacpp:FILE.gguf` (docs/backends.md, "llama.cpp in process"), installed into the
# Python that `python3` runs (lexprobe's venv). Not part of scripts/setup.sh: PyPI has llama-cpp-python as source
# only, and pip compiles llama.cpp with the system's C/C++ compiler and CMake (>= 3.21; Debian: apt-get install
# build-essential cmake).
#   bash scripts/setup_llamacpp.sh
# Time: about 1.5 min to download the 77 MB source and the build tools, then the compilation: 756 s of CPU
# (measured: about 6.5 min of two idle cores; 69 min on the shared machine at 18% of a core). Only what lexprobe
# loads is built: the CPU backend and libllama (and llama.cpp's common library, which llama-cpp-python forces on),
# for this CPU's instruction sets; no CUDA, no multimodal library (LLAVA_BUILD=OFF), no examples, tools, tests or
# server.
# The wheel is kept in ~/.cache/lexprobe-llamacpp/wheels (or $LEXPROBE_LLAMACPP_WHEELS), under a key of the
# version, the build flags, the compiler and this CPU's instruction sets: a second install on the same kind of
# machine takes seconds. A Python that already has this version is left as it is (say so, and how to rebuild).
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION=0.3.36
FLAGS="-DLLAVA_BUILD=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_TOOLS=OFF -DLLAMA_BUILD_SERVER=OFF -DLLAMA_BUILD_APP=OFF -DLLAMA_OPENSSL=OFF -DGGML_NATIVE=OFF"
# The instruction sets of this CPU, named one by one rather than -march=native: llama.cpp's AMX kernels crash
# (SIGSEGV in ggml_backend_amx_mul_mat) on machines that report AMX (seen on this project's 2-core VMs), and its
# AVX512-BF16 build fails with GCC 12, so both stay off; everything else the CPU has is on.
cpu_flags=" $(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null | cut -d: -f2) "
for pair in avx:AVX avx2:AVX2 fma:FMA f16c:F16C bmi2:BMI2 avx512f:AVX512 avx512vbmi:AVX512_VBMI \
            avx512_vnni:AVX512_VNNI avx_vnni:AVX_VNNI; do
  case "$cpu_flags" in
    *" ${pair%%:*} "*) FLAGS="$FLAGS -DGGML_${pair#*:}=ON" ;;
    *) FLAGS="$FLAGS -DGGML_${pair#*:}=OFF" ;;
  esac
done
FLAGS="$FLAGS -DGGML_AVX512_BF16=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF"
installed=$(python3 -c "from importlib import metadata as m; print(m.version('llama_cpp_python'))" 2>/dev/null || true)
if [ "$installed" = "$VERSION" ] && python3 -c "import llama_cpp" 2>/dev/null; then
  echo "llama-cpp-python $VERSION is already installed in $(python3 -c 'import sys; print(sys.prefix)'): not rebuilt" \
       "(pip uninstall llama-cpp-python, then rerun, to rebuild)"
  exit 0
fi
for tool in cmake cc c++; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "setup_llamacpp.sh: $tool is missing: llama-cpp-python compiles llama.cpp (Debian: apt-get install build-essential cmake)" >&2
    exit 2
  fi
done
key=$(printf '%s\n' "$VERSION" "$FLAGS" "$(uname -m)" "$(c++ --version | head -1)" | sha256sum | cut -c1-16)
WHEELS="${LEXPROBE_LLAMACPP_WHEELS:-$HOME/.cache/lexprobe-llamacpp/wheels}/$key"
if ! ls "$WHEELS"/llama_cpp_python-"$VERSION"-*.whl >/dev/null 2>&1; then
  start=$(date +%s)
  mkdir -p "$WHEELS.tmp.$$"
  echo "building llama-cpp-python $VERSION from source (CPU only, this machine's instruction sets; minutes)"
  CMAKE_ARGS="$FLAGS" CMAKE_BUILD_PARALLEL_LEVEL="${CMAKE_BUILD_PARALLEL_LEVEL:-$(nproc)}" \
    python3 -m pip wheel -q --disable-pip-version-check --no-deps --no-binary llama-cpp-python \
    -w "$WHEELS.tmp.$$" "llama-cpp-python==$VERSION"
  mkdir -p "$WHEELS" && mv "$WHEELS.tmp.$$"/*.whl "$WHEELS"/ && rm -rf "$WHEELS.tmp.$$"
  echo "built llama-cpp-python $VERSION in $(( $(date +%s) - start )) s; wheel kept in $WHEELS"
else
  echo "llama-cpp-python $VERSION: the wheel built earlier for this machine is in $WHEELS"
fi
python3 -m pip install -q --disable-pip-version-check "$WHEELS"/llama_cpp_python-"$VERSION"-*.whl
python3 -c "import llama_cpp; print('llama-cpp-python', llama_cpp.__version__, 'ready:', llama_cpp.llama_print_system_info().decode().strip()[:120])"
