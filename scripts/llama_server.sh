#!/usr/bin/env bash
# Print the path of a `llama-server` binary (llama.cpp's C++ OpenAI-compatible server), building
# it first if the cache does not hold one. Used by scripts/test.sh (the real-model tests of
# pf1e_gym.llm) and by anyone who wants a local model server; see docs/local-llm.md.
#
# Source: the llama.cpp tree vendored in the `llama-cpp-python` sdist on PyPI (pinned below), so
# the build needs nothing but PyPI; only the `llama-server` target is built, portable (no
# -march=native), static, without curl/OpenSSL/web UI downloads.
#
# Cache: ${PF1E_LLAMA_CACHE:-$HOME/.cache/pf1e-gym}/llama-server-<version>/bin/llama-server.
# When it is there the script prints it at once (no network, no build).
#
# Output: the binary's absolute path on stdout, nothing else; progress and the build log
# summary on stderr. Exit status: 0 on success, 1 when the download or the build fails (the
# message names the step and the log file).
#
# Environment:
#   PF1E_LLAMA_CACHE      cache root (default: $HOME/.cache/pf1e-gym)
#   PF1E_LLAMA_JOBS       parallel compile jobs (default: nproc)
#   PF1E_LLAMA_OPT        optimisation level for the build, e.g. -O1 (default: Release's -O3)
#   PYTHON                python used to make the tool venv (default: python3)
# Usage: PF1E_LLAMA_SERVER=$(bash scripts/llama_server.sh)
#        bash scripts/llama_server.sh --cached-only   # the path if cached, else exit 1 (no build)
set -euo pipefail

# llama-cpp-python 0.3.36 vendors llama.cpp commit 0c1e570 (the newest release on PyPI on
# 2026-12-01). Changing the version makes a new cache entry and a fresh build.
version=0.3.36
cache_root=${PF1E_LLAMA_CACHE:-$HOME/.cache/pf1e-gym}
dest="$cache_root/llama-server-$version"
bin="$dest/bin/llama-server"

if [ -x "$bin" ]; then
  echo "$bin"
  exit 0
fi
if [ "${1:-}" = "--cached-only" ]; then
  exit 1
fi

log() { echo "llama_server.sh: $*" >&2; }
fail() { log "error: $*"; exit 1; }

python=${PYTHON:-python3}
jobs=${PF1E_LLAMA_JOBS:-$(nproc 2>/dev/null || echo 2)}
mkdir -p "$cache_root"

# One build at a time per cache (two test runs started together would otherwise race).
exec 9>"$cache_root/.llama-server-$version.lock"
if command -v flock >/dev/null 2>&1; then
  flock 9
  if [ -x "$bin" ]; then
    echo "$bin"
    exit 0
  fi
fi

work=$(mktemp -d "$cache_root/.build-$version.XXXXXX")
trap 'rm -rf "$work"' EXIT
buildlog="$cache_root/llama-server-$version.build.log"
: >"$buildlog"
start=$(date +%s)

# cmake and ninja: the system's when present, else from PyPI into a tool venv of the cache.
tools="$cache_root/build-tools"
cmake=$(command -v cmake || true)
ninja=$(command -v ninja || true)
if [ -z "$cmake" ] || [ -z "$ninja" ]; then
  if [ ! -x "$tools/bin/cmake" ] || [ ! -x "$tools/bin/ninja" ]; then
    log "installing cmake and ninja from PyPI into $tools"
    "$python" -m venv "$tools" >>"$buildlog" 2>&1 || fail "python venv for cmake/ninja failed (see $buildlog)"
    "$tools/bin/python" -m pip install --quiet "cmake>=3.21,<5" "ninja>=1.11" >>"$buildlog" 2>&1 \
      || fail "pip install cmake ninja failed (see $buildlog)"
  fi
  cmake="$tools/bin/cmake"
  ninja="$tools/bin/ninja"
fi

log "downloading the llama-cpp-python $version sdist from PyPI"
"$python" -m pip download --quiet --no-deps --no-binary llama-cpp-python \
  "llama-cpp-python==$version" -d "$work/sdist" >>"$buildlog" 2>&1 \
  || fail "pip download llama-cpp-python==$version failed (see $buildlog)"
tar -xzf "$work/sdist/llama_cpp_python-$version.tar.gz" -C "$work" \
  || fail "could not unpack the sdist"
src="$work/llama_cpp_python-$version/vendor/llama.cpp"
[ -f "$src/CMakeLists.txt" ] || fail "no vendor/llama.cpp in the sdist"

opt_flags=()
if [ -n "${PF1E_LLAMA_OPT:-}" ]; then
  opt_flags=("-DCMAKE_C_FLAGS_RELEASE=${PF1E_LLAMA_OPT} -DNDEBUG"
             "-DCMAKE_CXX_FLAGS_RELEASE=${PF1E_LLAMA_OPT} -DNDEBUG")
fi

log "configuring llama.cpp (log: $buildlog)"
"$cmake" -S "$src" -B "$work/build" -G Ninja -DCMAKE_MAKE_PROGRAM="$ninja" \
  -DCMAKE_BUILD_TYPE=Release "${opt_flags[@]}" \
  -DBUILD_SHARED_LIBS=OFF \
  -DGGML_NATIVE=OFF \
  -DGGML_OPENMP=OFF \
  -DLLAMA_CURL=OFF -DLLAMA_OPENSSL=OFF \
  -DLLAMA_BUILD_UI=OFF -DLLAMA_USE_PREBUILT_UI=OFF \
  -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF -DLLAMA_BUILD_APP=OFF \
  -DLLAMA_BUILD_TOOLS=ON -DLLAMA_BUILD_SERVER=ON \
  >>"$buildlog" 2>&1 || fail "cmake configure failed (see $buildlog)"

log "building llama-server with $jobs jobs (several minutes on 2 cores)"
"$cmake" --build "$work/build" --target llama-server -j "$jobs" >>"$buildlog" 2>&1 \
  || fail "cmake build of llama-server failed (see $buildlog)"

built=$(find "$work/build" -type f -name llama-server -perm -u+x | head -n 1)
[ -n "$built" ] || fail "the build finished but produced no llama-server binary (see $buildlog)"
"$built" --version >>"$buildlog" 2>&1 || fail "the built llama-server does not run (see $buildlog)"

# Install atomically: a half-copied binary must never be taken for a cached one.
mkdir -p "$work/install/bin"
cp "$built" "$work/install/bin/llama-server"
cp "$src/LICENSE" "$work/install/LICENSE.llama.cpp"
rm -rf "$dest"
mv "$work/install" "$dest"
log "built $bin in $(( $(date +%s) - start )) s"
echo "$bin"
