#!/usr/bin/env bash
# Run every test of the project: Rust (engine, server, CLI, end-to-end) and Python (client
# against a real server). Installs what it needs: Rust crates via cargo, Python packages into
# .venv (created if missing). Usage: bash scripts/test.sh
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)

echo "== Headless Chromium (the replay viewer's browser test) =="
# env-server/tests/replay_viewer.rs draws a recorded episode in Debian's chromium; under
# PF1E_REQUIRE_CHROMIUM=1 a missing browser fails the test instead of skipping it.
bash scripts/install_chromium.sh
export PF1E_REQUIRE_CHROMIUM=1

echo "== Rust: build and test (workspace) =="
cargo build --workspace --all-targets --locked
cargo test --workspace --locked

echo "== Python: environment =="
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
# maturin builds the package's native extension (pf1e_gym._native, crate native/) with cargo:
# in the dev profile, which shares the debug build above (release would rebuild everything).
MATURIN_PEP517_ARGS="--profile dev" \
  .venv/bin/python -m pip install --quiet -e "clients/python[test,llm,rl,rllib]"

echo "== Local LLM server (llama.cpp llama-server; built once, then cached) =="
# The real-model tests (clients/python/tests/test_local_llm.py) must run here, not skip:
# PF1E_REQUIRE_LLAMA=1 turns a missing server into a failure. The first run builds llama-server
# from the llama-cpp-python sdist on PyPI (several minutes on 2 cores); later runs reuse
# ${PF1E_LLAMA_CACHE:-$HOME/.cache/pf1e-gym}. See docs/local-llm.md.
llama_start=$(date +%s)
PF1E_LLAMA_SERVER=$(bash scripts/llama_server.sh)
export PF1E_LLAMA_SERVER
export PF1E_REQUIRE_LLAMA=1
# The trainer tests (SB3 / sb3-contrib / RLlib / torch, the training smoke test) must run too.
export PF1E_REQUIRE_RL=1
echo "llama-server: $PF1E_LLAMA_SERVER ($(( $(date +%s) - llama_start )) s)"

echo "== Python: lint and types =="
.venv/bin/ruff check clients/python
# mypy --strict on the pf1e_gym package (settings: clients/python/pyproject.toml, [tool.mypy]).
(cd clients/python && ../../.venv/bin/mypy)

echo "== Python: tests (against the real server binary) =="
# Where cargo put the binaries (CARGO_TARGET_DIR or .cargo/config may move the target dir).
target=$(cargo metadata --format-version 1 --no-deps --locked \
  | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
export PF1E_SERVER_BIN="$target/debug/pf1e-env-server"
export PF1E_DATA_DIR="$root/data"
.venv/bin/python -m pytest -q clients/python/tests

echo "== Wheel: build it, install it into a fresh venv, a fight with no Rust toolchain =="
# scripts/wheel_smoke.sh: a dev-profile wheel (the debug binaries and data bundled, the
# extension built by maturin), pip-installed into a new virtualenv, then scripts/wheel_smoke.py
# with no cargo or rustc on PATH (docs/native.md).
bash scripts/wheel_smoke.sh
