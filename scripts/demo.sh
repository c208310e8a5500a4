#!/usr/bin/env bash
# The main job on the bundled default scenario (data/scenarios/sample_arena.yaml):
#   1. builds the server and the CLI (release),
#   2. starts pf1e-env-server on a free loopback port,
#   3. plays the leaderboard (pf1e-leaderboard) through gRPC: random, scripted, the default
#      policy and the trained agent shipped in data/agents/sample_arena_ppo.npz (numpy forward
#      pass: no torch), each as the goblins against default-policy orcs on the same EPISODES
#      held-out seeds (default 1000), with 95 % Wilson intervals and the paired comparison,
#   4. prints the Monte Carlo balance report of 3 goblins vs 2 orcs (1000 runs, seed 1).
# Installs what it needs (Rust crates via cargo, Python packages into .venv: numpy, grpcio…).
# Usage: bash scripts/demo.sh [EPISODES]
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
episodes=${1:-1000}

cargo build --release --locked --bin pf1e-env-server --bin pf1e-sim
# Where cargo put them (CARGO_TARGET_DIR or .cargo/config may move the target directory).
target=$(cargo metadata --format-version 1 --no-deps --locked \
  | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e clients/python

log=$(mktemp)
"$target/release/pf1e-env-server" --addr 127.0.0.1:0 --data-dir "$root/data" 2>"$log" &
server=$!
trap 'kill $server 2>/dev/null || true; rm -f "$log"' EXIT
addr=""
for _ in $(seq 1 100); do
  addr=$(grep -o 'listening on [0-9.:]*' "$log" | head -n1 | awk '{print $3}') || true
  [ -n "$addr" ] && break
  sleep 0.1
done
if [ -z "$addr" ]; then
  echo "server did not start:" >&2
  cat "$log" >&2
  exit 1
fi
echo "== pf1e-env-server listening on $addr =="
echo "== Leaderboard: the goblins' players vs default-policy orcs, $episodes held-out seeds =="
.venv/bin/pf1e-leaderboard --address "$addr" --episodes "$episodes" --seed 1000000 \
  --agent data/agents/sample_arena_ppo.npz
echo
echo "== Monte Carlo report: 3 goblins vs 2 orcs, 1000 runs, seed 1 =="
"$target/release/pf1e-sim" \
  --map data/maps/sample_arena.yaml \
  --side players data/monsters/goblin.json data/monsters/goblin.json data/monsters/goblin.json \
  --side monsters data/monsters/orc.json data/monsters/orc.json \
  --runs 1000 --seed 1
