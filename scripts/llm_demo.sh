#!/usr/bin/env bash
# The LLM layer in one command, on the small mirror_duel scenario (one orc a side).
#
# The model, in this order:
#   1. PF1E_LLM_BASE_URL (any OpenAI-compatible API root: Ollama http://localhost:11434/v1,
#      vLLM http://localhost:8000/v1, llama.cpp http://localhost:8080/v1, LM Studio, OpenAI…)
#      with PF1E_LLM_MODEL (its model name) and OPENAI_API_KEY when it needs one;
#   2. else a local server found on the usual ports (Ollama 11434, vLLM 8000, llama.cpp 8080,
#      LM Studio 1234): its first listed model, unless PF1E_LLM_MODEL names one;
#   3. else, and only then, llama.cpp's llama-server is built (scripts/llama_server.sh: once,
#      then cached; its progress is printed) to serve a TINY MODEL WITH RANDOM WEIGHTS. That
#      model has no skill: it exercises the whole path (prompt, HTTP, constrained decoding,
#      parsing, the engine) and nothing else. With it the demo plays and scores fights, says
#      so, and does NOT compile a "strategy" (it would be noise) — point the demo at a real
#      model for that.
#
# Steps: build the server and the CLI (release) and the venv with clients/python[llm]; start
# pf1e-env-server; pf1e-llm-eval: FIGHTS fights as `west` against the default policy in two
# answer modes on the same seeds (labels, function calling), compact text, with the
# scorecard; a real model then compiles STRATEGY (words) into tactics played 1000 times by
# pf1e-sim; finally the balance report in words (pf1e-llm-eval narrate: every number checked
# against the statistics, else the template report — said which). Every process it starts is
# stopped on exit.
#
# Usage: bash scripts/llm_demo.sh [FIGHTS] [STRATEGY]
#   FIGHTS    fights per answer mode (default 3)
#   STRATEGY  the strategy in words (default "attack the weakest enemy; withdraw when badly hurt")
# Output folder: ${PF1E_LLM_DEMO_OUT:-out/llm-demo} (transcripts, scorecards, tactics, report).
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

echo "== building pf1e-env-server and pf1e-sim (release) =="
cargo build --release --locked --bin pf1e-env-server --bin pf1e-sim
target=$(cargo metadata --format-version 1 --no-deps --locked \
  | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')
if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
echo "== Python environment (clients/python[llm]) =="
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

# first_model URL: the first model id a server at URL lists (GET /models), or nothing.
first_model() {
  .venv/bin/python - "$1" <<'EOF' 2>/dev/null || true
import json, sys, urllib.request
try:
    with urllib.request.urlopen(sys.argv[1].rstrip("/") + "/models", timeout=2) as r:
        data = json.load(r).get("data") or []
    print(data[0]["id"] if data else "")
except Exception:
    pass
EOF
}

"$target/release/pf1e-env-server" --addr 127.0.0.1:0 --data-dir "$root/data" 2>"$tmp/env.log" &
pids+=($!)
addr=$(wait_for "$tmp/env.log" 'listening on [0-9.:]*' pf1e-env-server "${pids[-1]}" | awk '{print $3}')
echo "== pf1e-env-server listening on $addr =="

tiny=0
if [ -n "${PF1E_LLM_BASE_URL:-}" ]; then
  echo "== model: ${PF1E_LLM_MODEL:-default} at $PF1E_LLM_BASE_URL (PF1E_LLM_BASE_URL) =="
else
  for url in http://127.0.0.1:11434/v1 http://127.0.0.1:8000/v1 http://127.0.0.1:8080/v1 \
             http://127.0.0.1:1234/v1; do
    m=$(first_model "$url")
    if [ -n "$m" ]; then
      PF1E_LLM_BASE_URL=$url
      PF1E_LLM_MODEL=${PF1E_LLM_MODEL:-$m}
      export PF1E_LLM_BASE_URL PF1E_LLM_MODEL
      export OPENAI_API_KEY=${OPENAI_API_KEY:-local}
      echo "== model: $PF1E_LLM_MODEL, found at $url =="
      break
    fi
  done
fi

if [ -z "${PF1E_LLM_BASE_URL:-}" ]; then
  tiny=1
  cat <<'EOF'
== no model server given (PF1E_LLM_BASE_URL) or found on the usual local ports ==
   Falling back to llama.cpp's llama-server with a TINY MODEL WITH RANDOM WEIGHTS, written by
   pf1e_gym.llm.local_model (2 layers, 64-wide, a byte vocabulary; ~0.5 MB). What it is: a real
   network served over the real OpenAI-compatible API with decoding constrained to each
   request's JSON Schema, so every reply is valid and the whole path runs. What it is not: a
   player. Its choices are arbitrary; its win rate is a random legal player's; it writes noise
   where it is free to write. For play worth reading, run a model (e.g. `ollama run qwen2.5`)
   and start the demo again.
EOF
  if PF1E_LLAMA_SERVER=$(bash scripts/llama_server.sh --cached-only 2>/dev/null); then
    :
  else
    echo "== building llama-server (once; several minutes on 2 cores; cached in ~/.cache/pf1e-gym) =="
    bash scripts/llama_server.sh >"$tmp/llama.path" 2>"$tmp/llama.err" &
    build=$!
    log="${PF1E_LLAMA_CACHE:-$HOME/.cache/pf1e-gym}/llama-server-0.3.36.build.log"
    last=""
    start=$(date +%s)
    while kill -0 "$build" 2>/dev/null; do
      sleep 10
      step=$(grep -o '^\[[0-9]*/[0-9]*\]' "$log" 2>/dev/null | tail -n1 || true)
      if [ -n "$step" ] && [ "$step" != "$last" ]; then
        echo "   llama-server build: compile step $step ($(( $(date +%s) - start )) s)"
        last=$step
      elif [ -z "$step" ]; then
        echo "   llama-server build: $(tail -n1 "$tmp/llama.err" 2>/dev/null || echo starting) ($(( $(date +%s) - start )) s)"
      fi
    done
    if ! wait "$build"; then
      cat "$tmp/llama.err" >&2
      exit 1
    fi
    PF1E_LLAMA_SERVER=$(cat "$tmp/llama.path")
  fi
  export PF1E_LLAMA_SERVER
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  .venv/bin/python -m pf1e_gym.llm.local_model --port "$port" >"$tmp/llm.out" 2>"$tmp/llm.log" &
  pids+=($!)
  PF1E_LLM_BASE_URL=$(wait_for "$tmp/llm.out" 'PF1E_LLM_BASE_URL=.*' "the local model server" \
    "${pids[-1]}" | cut -d= -f2-)
  PF1E_LLM_MODEL=$(wait_for "$tmp/llm.out" 'PF1E_LLM_MODEL=.*' "the local model server" \
    "${pids[-1]}" | cut -d= -f2-)
  export PF1E_LLM_BASE_URL PF1E_LLM_MODEL
  echo "== model: $PF1E_LLM_MODEL (tiny, RANDOM WEIGHTS) on llama-server at $PF1E_LLM_BASE_URL =="
fi

mkdir -p "$out"
echo "== pf1e-llm-eval: $fights fights as $side on $scenario, labels vs function calling, same seeds =="
# The tiny model's chat template has no tool-call syntax: its function calls go through the
# answer's JSON Schema (--tool-format json_schema); a real model uses the request's tools.
tool_format=native
[ "$tiny" = 1 ] && tool_format=json_schema
.venv/bin/pf1e-llm-eval --address "$addr" --scenario "$scenario" --side "$side" \
  --fights "$fights" --seed 1 --answer label,tools --tool-format "$tool_format" \
  --text-mode compact --timeout 300 --out "$out/eval"
if [ "$tiny" = 1 ]; then
  echo "   (random weights: these figures test the path — validity, retries, tokens, latency —"
  echo "    not play; the win rate is a random legal player's)"
fi

echo
if [ "$tiny" = 1 ]; then
  echo "== strategy in words: skipped — a random-weight model's \"strategy\" is noise, and this"
  echo "   demo does not present noise as one. With a real model:"
  echo "   PF1E_LLM_BASE_URL=... PF1E_LLM_MODEL=... bash scripts/llm_demo.sh $fights \"$strategy\" =="
else
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
fi

echo
echo "== the balance report in words: 3 goblins vs 2 orcs (sample arena), 1000 runs, seed 1 =="
"$target/release/pf1e-sim" --map data/maps/sample_arena.yaml \
  --side players data/monsters/goblin.json data/monsters/goblin.json data/monsters/goblin.json \
  --side monsters data/monsters/orc.json data/monsters/orc.json \
  --runs 1000 --seed 1 --format json >"$out/stats.json"
.venv/bin/pf1e-llm-eval narrate "$out/stats.json" --lang fr,en --timeout 300 --out "$out/report"
