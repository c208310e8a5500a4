#!/usr/bin/env bash
# Regenerate the golden transcripts (tests/golden/*.txt: the rules cases of
# tests/tests/golden.rs and the per-scenario playthroughs of tests/tests/playthroughs.rs,
# playthrough_<scenario>.txt, and the text observations of tests/tests/text_golden.rs,
# text/<scenario>.<lang>.txt) after an intended rules change, then review
# `git diff tests/golden` like code.
set -euo pipefail
cd "$(dirname "$0")/.."
UPDATE_GOLDEN=1 cargo test -p pf1e-tests --test golden --test playthroughs --test text_golden
git --no-pager diff --stat tests/golden || true
git status --short tests/golden
