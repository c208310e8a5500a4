#!/usr/bin/env bash
# The LLM tactics layer in one command, on the small mirror_duel scenario (one orc a side):
#   1. builds the server and the CLI (release), the venv with clients/python[llm], and (for the
#      local model) llama.cpp's llama-server (scripts/llama_server.sh: cached after the first
#      build, which takes several minutes on 2 cores),
#   2. starts pf1e-env-server and a model server on free loopback ports,
#   3. pf1e-llm-eval: FIGHTS fights of the model as `west` against the default policy, then
#      prints the scorecard (transcripts and scorecard.json in the output folder),
#   4. pf1e-llm-eval strategy: compiles STRATEGY (words) into a tactics file, then plays it with
#      `pf1e-sim --tactics west=FILE` (1000 runs) and prints the report.
# Every process it starts is stopped on exit.
#
# The model: by default a tiny model with random weights served by llama-server
# (`python -m pf1e_gym.llm.local_model`): real decoding under the JSON Schema of each request,
# so every reply is valid, but no skill. To use a real model instead, set PF1E_LLM_BASE_URL
# (an OpenAI-compatible API root: vLLM, llama.cpp, Ollama's http://localhost:11434/v1,
# https://api.openai.com/v1), PF1E_LLM_MODEL (its model name) and OPENAI_API_KEY when it needs
# one; llama-server is then neither built nor started.
#
# Usage: bash scripts/llm_demo.sh [FIGHTS] [STRATEGY]
#   FIGHTS    fights of the agent (default 3)
#   STRATEGY  the strategy in words (default "attack the weakest enemy; withdraw when badly hurt")
# Output folder: ${PF1E_LLM_DEMO_OUT:-out/llm-demo} (transcripts, scorecard.json, tactics.yaml).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
fights=${1:-3}
strategy=${2:-"attack the weakest enemy; withdraw when badly hurt"}
out=${PF1E_LLM_DEMO_OUT:-out/llm-demo}
scenario=mirror_duel
side=west
case "$fights" in '' | *[!0-9]* | 0)
  echo "llm_demo.sh: error: FIGHTS must be a positive integer, not '$fights'" >&2
  exit 2 ;;
esac

cargo build --release --locked --bin pf1e-env-server --bin pf1e-sim
target=$(cargo metadata --format-version 1 --no-deps --locked \
  | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip
.venv/bin/python -m pip install --quiet -e "clients/python[llm]"

tmp=$(mktemp -d)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# wait_for FILE PATTERN WHAT PID: the first match of PATTERN (grep -o) in FILE, within 60 s.
wait_for() {
  local found=""
  for _ in $(seq 1 600); do
    found=$(grep -o "$2" "$1" | head -n1) || true
    [ -n "$found" ] && break
    if ! kill -0 "$4" 2>/dev/null; then break; fi
    sleep 0.1
  done
  if [ -z "$found" ]; then
    echo "llm_demo.sh: $3 did not start:" >&2
    cat "$1" >&2
    exit 1
  fi
  echo "$found"
}

"$target/release/pf1e-env-server" --addr 127.0.0.1:0 --data-dir "$root/data" 2>"$tmp/env.log" &
pids+=($!)
addr=$(wait_for "$tmp/env.log" 'listening on [0-9.:]*' pf1e-env-server "${pids[-1]}" | awk '{print $3}')
echo "== pf1e-env-server listening on $addr =="

if [ -n "${PF1E_LLM_BASE_URL:-}" ]; then
  echo "== model: ${PF1E_LLM_MODEL:-default} at $PF1E_LLM_BASE_URL (PF1E_LLM_BASE_URL) =="
else
  PF1E_LLAMA_SERVER=$(bash scripts/llama_server.sh)
  export PF1E_LLAMA_SERVER
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  .venv/bin/python -m pf1e_gym.llm.local_model --port "$port" >"$tmp/llm.out" 2>"$tmp/llm.log" &
  pids+=($!)
  PF1E_LLM_BASE_URL=$(wait_for "$tmp/llm.out" 'PF1E_LLM_BASE_URL=.*' "the local model server" \
    "${pids[-1]}" | cut -d= -f2-)
  PF1E_LLM_MODEL=$(wait_for "$tmp/llm.out" 'PF1E_LLM_MODEL=.*' "the local model server" \
    "${pids[-1]}" | cut -d= -f2-)
  export PF1E_LLM_BASE_URL PF1E_LLM_MODEL
  echo "== model: $PF1E_LLM_MODEL (tiny, random weights) on llama-server at $PF1E_LLM_BASE_URL =="
fi

mkdir -p "$out"
echo "== pf1e-llm-eval: $fights fights of the model as $side on $scenario, against the default policy =="
.venv/bin/pf1e-llm-eval --address "$addr" --scenario "$scenario" --side "$side" \
  --fights "$fights" --seed 1 --answer label --timeout 300 --out "$out/eval"
echo
echo "== pf1e-llm-eval strategy: \"$strategy\" -> $out/tactics.yaml =="
.venv/bin/pf1e-llm-eval strategy "$strategy" --address "$addr" --scenario "$scenario" \
  --side "$side" --timeout 300 --out "$out/tactics.yaml"
cat "$out/tactics.yaml"
echo
echo "== pf1e-sim --tactics $side=$out/tactics.yaml: 1000 runs, seed 1 =="
"$target/release/pf1e-sim" \
  --map data/maps/mirror_duel.yaml \
  --side west data/monsters/orc.json --side east data/monsters/orc.json \
  --tactics "$side=$out/tactics.yaml" --runs 1000 --seed 1
