#!/usr/bin/env bash
# Fuzz the loaders for a bounded time: build fuzz/ (the `loaders` libFuzzer target, see
# docs/fuzzing.md) and run it over the committed seed corpus for SECONDS (default 60).
# Fails (exit 1) on a crash, a panic, an overflow, a timeout or an out-of-memory; the input
# is left in fuzz/artifacts/. Stable toolchain only: the coverage flags come from
# fuzz/rustc-wrapper.sh, no nightly, no cargo-fuzz needed.
#
# Usage: scripts/fuzz.sh [SECONDS]
#   CARGO_TARGET_DIR  where to build (default fuzz/target)
#   FUZZ_JOBS=N   parallel fuzzing processes (libFuzzer -fork=N; default 1, no fork)
set -euo pipefail

secs="${1:-60}"
case "$secs" in
'' | *[!0-9]*)
    echo "usage: scripts/fuzz.sh [SECONDS] (a whole number of seconds)" >&2
    exit 2
    ;;
esac
root="$(cd "$(dirname "$0")/.." && pwd)"
fuzz="$root/fuzz"
cd "$fuzz"

start=$(date +%s)
RUSTC_WRAPPER="$fuzz/rustc-wrapper.sh" cargo build --release --locked --bin loaders
built=$(date +%s)

# The working corpus grows under fuzz/work/ (ignored); the seeds stay as committed.
mkdir -p work/loaders artifacts
fork=()
if [ "${FUZZ_JOBS:-1}" -gt 1 ]; then
    fork=(-fork="$FUZZ_JOBS")
fi
status=0
"${CARGO_TARGET_DIR:-$fuzz/target}/release/loaders" \
    -max_total_time="$secs" \
    -timeout=20 \
    -rss_limit_mb=2048 \
    -max_len=65536 \
    -print_final_stats=1 \
    -artifact_prefix="$fuzz/artifacts/" \
    "${fork[@]}" \
    work/loaders corpus/loaders || status=$?
end=$(date +%s)
echo "fuzz.sh: build $((built - start)) s, fuzzing $((end - built)) s (limit ${secs} s)" >&2
if [ "$status" -ne 0 ]; then
    echo "fuzz.sh: the loaders target failed (exit $status); inputs in fuzz/artifacts/" >&2
    exit 1
fi
