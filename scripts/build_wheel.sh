#!/usr/bin/env bash
# Build the pf1e-gym wheel: the Python package, its native extension pf1e_gym._native (the
# engine in process), the pf1e-env-server and pf1e-sim binaries and the scenario data, so that
# `pip install pf1e_gym-*.whl` works without a Rust toolchain (docs/native.md).
#
# Usage: bash scripts/build_wheel.sh [--profile release|dev] [--target TRIPLE] [--out DIR]
#   --profile  cargo profile (default release; CI uses dev, which reuses the debug build of
#              `cargo build --workspace` and only compiles the extension crate)
#   --target   a Rust target triple to cross-build for (e.g. aarch64-unknown-linux-gnu: needs
#              `rustup target add` and a cross linker, see docs/native.md)
#   --out      where the wheel goes (default dist/)
# Needs cargo, python3 (the wheel is for this interpreter's version) and maturin (installed into
# .venv when missing). Prints the wheel's path last.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
profile=release
target=""
out="$root/dist"
while [ $# -gt 0 ]; do
  case "$1" in
    --profile) profile=$2; shift 2 ;;
    --target) target=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "build_wheel.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done

py=${PYTHON:-python3}
if [ -x .venv/bin/python ]; then py="$root/.venv/bin/python"; fi
if ! "$py" -m maturin --version >/dev/null 2>&1; then
  "$py" -m pip install --quiet "maturin>=1.9.4,<2"
fi

# The binaries (the same build as the release artifacts of scripts/release.sh). pf1e-native is
# selected too, so that cargo resolves the features of the shared dependencies as maturin's
# build of the extension will (pyo3's macros turn on a feature of syn: built alone, the server
# would get its own copy of every crate above syn, a second full build).
target_args=()
if [ -n "$target" ]; then target_args=(--target "$target"); fi
cargo build --locked --profile "$profile" -p pf1e-env-server -p pf1e-native --bins "${target_args[@]}"
target_dir=$(cargo metadata --format-version 1 --no-deps --locked \
  | "$py" -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
profile_dir=$profile
if [ "$profile" = dev ]; then profile_dir=debug; fi
bin_dir="$target_dir/${target:+$target/}$profile_dir"

# Stage the binaries and the data inside the package (git-ignored), removed again on exit.
pkg="$root/clients/python/pf1e_gym"
cleanup() { rm -rf "$pkg/_bin" "$pkg/_data"; }
trap cleanup EXIT
cleanup
mkdir -p "$pkg/_bin"
for b in pf1e-env-server pf1e-sim; do
  cp "$bin_dir/$b" "$pkg/_bin/$b"
  # Release binaries keep line tables for backtraces ([profile.release] debug = 1): the
  # wheel's copies lose them (a quarter of their size).
  if [ "$profile" != dev ]; then strip "$pkg/_bin/$b" 2>/dev/null || true; fi
  chmod 755 "$pkg/_bin/$b"
done
cp -r "$root/data" "$pkg/_data"

mkdir -p "$out"
maturin_args=(build --profile "$profile" --out "$out" --interpreter "$py")
if [ -n "$target" ]; then maturin_args+=(--target "$target" --zig); fi
if [ "$profile" != dev ]; then maturin_args+=(--strip); fi
log=$(mktemp)
(cd clients/python && "$py" -m maturin "${maturin_args[@]}") 2>&1 | tee "$log" >&2
wheel=$(grep -o '[^ ]*\.whl' "$log" | tail -1)
rm -f "$log"
echo "$wheel"
