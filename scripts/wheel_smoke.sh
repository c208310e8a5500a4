#!/usr/bin/env bash
# CI's wheel job: build the pf1e-gym wheel (scripts/build_wheel.sh), install it into a fresh
# virtualenv and run a fight there with no cargo or rustc on PATH (scripts/wheel_smoke.py).
#
# Usage: bash scripts/wheel_smoke.sh [--profile dev|release] [WHEEL]
#   With WHEEL, that wheel is tested instead of building one. The default profile is dev (it
#   reuses the debug build of `cargo build --workspace`; the release wheel of
#   scripts/release.sh is the same package built with --profile release).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
profile=dev
wheel=""
while [ $# -gt 0 ]; do
  case "$1" in
    --profile) profile=$2; shift 2 ;;
    *) wheel=$1; shift ;;
  esac
done
start=$(date +%s)
if [ -z "$wheel" ]; then
  wheel=$(bash scripts/build_wheel.sh --profile "$profile" --out "$root/dist/ci")
fi
echo "wheel: $wheel ($(du -h "$wheel" | cut -f1), built in $(( $(date +%s) - start )) s)"
venv=$(mktemp -d)/venv
trap 'rm -rf "$(dirname "$venv")"' EXIT
python3 -m venv "$venv"
# The wheel's dependencies come from the package index (pip's cache after the first run).
"$venv/bin/python" -m pip install --quiet "$wheel"
# No Rust toolchain: PATH without ~/.cargo/bin or any directory holding cargo or rustc.
clean_path="$venv/bin"
IFS=: read -r -a dirs <<< "$PATH"
for d in "${dirs[@]}"; do
  if [ -n "$d" ] && [ ! -e "$d/cargo" ] && [ ! -e "$d/rustc" ]; then clean_path="$clean_path:$d"; fi
done
(cd "$(dirname "$venv")" && env -u PF1E_DATA_DIR -u PF1E_SERVER_BIN -u CARGO_HOME -u RUSTUP_HOME \
  PATH="$clean_path" "$venv/bin/python" "$root/scripts/wheel_smoke.py")
echo "wheel job: $(( $(date +%s) - start )) s"
