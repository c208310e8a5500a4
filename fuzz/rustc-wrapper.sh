#!/bin/sh
# RUSTC_WRAPPER of scripts/fuzz.sh: adds libFuzzer's coverage instrumentation (SanitizerCoverage,
# the flags cargo-fuzz passes) to the crates worth fuzzing only — ours and the parsers they
# call — so the build needs no nightly toolchain and no --target, and build scripts and
# proc-macros stay uninstrumented. Usage: RUSTC_WRAPPER=fuzz/rustc-wrapper.sh cargo build ...
rustc="$1"
shift
case " $* " in
*" --crate-name pf1e_engine "* | *" --crate-name loaders "* | \
    *" --crate-name serde_yaml "* | *" --crate-name unsafe_libyaml "* | \
    *" --crate-name saphyr_parser "* | *" --crate-name serde_json "*)
    exec "$rustc" "$@" \
        -Cpasses=sancov-module \
        -Cllvm-args=-sanitizer-coverage-level=4 \
        -Cllvm-args=-sanitizer-coverage-inline-8bit-counters \
        -Cllvm-args=-sanitizer-coverage-pc-table \
        -Cllvm-args=-sanitizer-coverage-trace-compares \
        --cfg fuzzing
    ;;
*)
    exec "$rustc" "$@"
    ;;
esac
