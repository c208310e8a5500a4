#!/usr/bin/env bash
# Regenerate the golden transcripts (tests/golden/*.txt) after an intended rules change, then
# review `git diff tests/golden` like code.
set -euo pipefail
cd "$(dirname "$0")/.."
UPDATE_GOLDEN=1 cargo test -p pf1e-tests --test golden
git --no-pager diff --stat tests/golden || true
