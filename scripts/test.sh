#!/usr/bin/env bash
# Run every test of the project: Rust (engine, server, CLI, end-to-end) and Python (client
# against a real server). Installs what it needs: Rust crates via cargo, Python packages into
# .venv (created if missing). Usage: bash scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

echo "== Rust: build and test (workspace) =="
cargo build --workspace --all-targets --locked
cargo test --workspace --locked

echo "== Python: environment =="
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e "clients/python[test]"

echo "== Python: lint =="
.venv/bin/ruff check clients/python

echo "== Python: tests (against the real server binary) =="
# Where cargo put the binaries (CARGO_TARGET_DIR or .cargo/config may move the target dir).
target=$(cargo metadata --format-version 1 --no-deps --locked \
  | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
export PF1E_SERVER_BIN="$target/debug/pf1e-env-server"
export PF1E_DATA_DIR="$root/data"
.venv/bin/python -m pytest -q clients/python/tests
