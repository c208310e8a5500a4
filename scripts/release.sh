#!/usr/bin/env bash
# Release artifacts: prebuilt pf1e-env-server and pf1e-sim binaries (with the scenario data)
# as one archive per target, and the pf1e-gym wheel, with their SHA-256 sums.
#
# Usage: bash scripts/release.sh [--target TRIPLE]... [--no-wheel] [--out DIR]
#   --target   a Rust target triple (repeatable; default: this machine's). Another
#              architecture, e.g. aarch64-unknown-linux-gnu, needs `rustup target add` and a
#              cross linker (docs/native.md: "Other platforms")
#   --no-wheel only the binary archives
#   --out      default dist/release
# Writes DIR/pf1e-gym-<version>-<target>.tar.gz (bin/pf1e-env-server, bin/pf1e-sim, data/,
# README.md, LICENSE files), DIR/pf1e_gym-<version>-*.whl and DIR/SHA256SUMS.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
targets=()
wheel=1
out="$root/dist/release"
while [ $# -gt 0 ]; do
  case "$1" in
    --target) targets+=("$2"); shift 2 ;;
    --no-wheel) wheel=0; shift ;;
    --out) out=$2; shift 2 ;;
    *) echo "release.sh: unknown argument $1" >&2; exit 2 ;;
  esac
done
host=$(rustc -vV | sed -n 's/^host: //p')
if [ ${#targets[@]} -eq 0 ]; then targets=("$host"); fi
version=$(cargo metadata --format-version 1 --no-deps --locked \
  | python3 -c 'import json, sys; print(next(p["version"] for p in json.load(sys.stdin)["packages"] if p["name"] == "pf1e-env-server"))')
target_dir=$(cargo metadata --format-version 1 --no-deps --locked \
  | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
mkdir -p "$out"
for t in "${targets[@]}"; do
  echo "== binaries for $t =="
  # pf1e-native selected too: the features of shared crates resolve as in the wheel's build of
  # the extension (see build_wheel.sh), so the wheel reuses this build.
  if [ "$t" = "$host" ]; then
    cargo build --locked --release -p pf1e-env-server -p pf1e-native --bins
    bins="$target_dir/release"
  else
    cargo build --locked --release -p pf1e-env-server -p pf1e-native --bins --target "$t"
    bins="$target_dir/$t/release"
  fi
  name="pf1e-gym-$version-$t"
  stage=$(mktemp -d)/$name
  mkdir -p "$stage/bin"
  for b in pf1e-env-server pf1e-sim; do
    cp "$bins/$b" "$stage/bin/$b"
    # [profile.release] keeps line tables for backtraces; the shipped copies drop them.
    strip "$stage/bin/$b" 2>/dev/null || true
  done
  cp -r data "$stage/data"
  cp README.md "$stage/"
  for f in LICENSE*; do [ -e "$f" ] && cp "$f" "$stage/"; done
  tar -C "$(dirname "$stage")" -czf "$out/$name.tar.gz" "$name"
  rm -rf "$(dirname "$stage")"
  echo "$out/$name.tar.gz"
done
if [ "$wheel" = 1 ]; then
  for t in "${targets[@]}"; do
    echo "== wheel for $t =="
    if [ "$t" = "$host" ]; then
      bash scripts/build_wheel.sh --profile release --out "$out"
    else
      bash scripts/build_wheel.sh --profile release --target "$t" --out "$out"
    fi
  done
fi
(cd "$out" && sha256sum ./*.tar.gz ./*.whl 2>/dev/null > SHA256SUMS || true)
cat "$out/SHA256SUMS"
