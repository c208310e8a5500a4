//! Architecture invariants that the compiler does not check (ARCHITECTURE.md, "Invariants"):
//! the crate boundaries (the engine depends on no tokio, tonic or prost; nothing in the
//! engine or in the server's scenario loader speaks protobuf) and the engine's layers (the
//! data layers — dice, geometry, content, effects — never reach up into the episode, the
//! rules, the actions, the policy or the observers, so that no import cycle runs through
//! `Episode`).

mod common;

use std::path::{Path, PathBuf};

/// Every `.rs` file under `dir` (or `dir` itself when it is a file), sorted.
fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if dir.is_file() {
        out.push(dir.to_path_buf());
        return out;
    }
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// The code lines of a Rust file: comments (`//`, `///`, `//!`) left out.
fn code_lines(path: &Path) -> Vec<(usize, String)> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .enumerate()
        .filter(|(_, l)| !l.trim_start().starts_with("//"))
        .map(|(i, l)| (i + 1, l.to_string()))
        .collect()
}

/// The dependency names of a `[dependencies]` table of a Cargo.toml (not dev or build ones).
fn dependencies(manifest: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(manifest).unwrap();
    let mut out = Vec::new();
    let mut in_deps = false;
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with('[') {
            in_deps = t == "[dependencies]";
            continue;
        }
        if in_deps {
            if let Some((name, _)) = t.split_once('=') {
                // `serde.workspace = true` names `serde`.
                let name = name.trim().split('.').next().unwrap_or("").trim();
                if !name.is_empty() && !name.starts_with('#') {
                    out.push(name.to_string());
                }
            }
        }
    }
    out
}

#[test]
fn the_engine_depends_on_no_rpc_or_async_crate() {
    let root = common::root();
    let deps = dependencies(&root.join("engine/Cargo.toml"));
    assert!(deps.contains(&"serde".to_string()), "parsed {deps:?}");
    for d in &deps {
        let base = d.as_str();
        assert!(
            !["tokio", "tonic", "prost", "futures"]
                .iter()
                .any(|x| base == *x || base.starts_with(&format!("{x}-"))),
            "engine/Cargo.toml depends on {d}: the engine is pure rules (no RPC, no async)"
        );
    }
    for f in rust_files(&root.join("engine/src")) {
        for (n, l) in code_lines(&f) {
            for word in ["tokio", "tonic", "prost"] {
                assert!(
                    !l.contains(word),
                    "{}:{n} mentions {word}: {l}",
                    f.display()
                );
            }
        }
    }
}

#[test]
fn neither_the_engine_nor_the_scenario_loader_speaks_protobuf() {
    let root = common::root();
    let mut files = rust_files(&root.join("engine/src"));
    files.push(root.join("env-server/src/scenarios.rs"));
    for f in files {
        for (n, l) in code_lines(&f) {
            assert!(
                !l.contains("proto::") && !l.contains("crate::proto"),
                "{}:{n} uses protobuf types: {l}",
                f.display()
            );
        }
    }
}

#[test]
fn the_data_layers_never_reach_up_to_the_episode() {
    let src = common::root().join("engine/src");
    let lower = ["dice.rs", "geometry", "content", "effects"];
    let upper = [
        "crate::episode",
        "crate::rules",
        "crate::policy",
        "crate::observe",
        "crate::reward",
        "crate::actions::check",
        "crate::actions::plan",
        "crate::actions::legal",
        "crate::actions::space",
        "Episode",
    ];
    let mut checked = 0;
    for layer in lower {
        for f in rust_files(&src.join(layer)) {
            checked += 1;
            for (n, l) in code_lines(&f) {
                for u in upper {
                    assert!(
                        !l.contains(u),
                        "{}:{n}: a data layer ({layer}) uses {u}: {l}",
                        f.display()
                    );
                }
            }
        }
    }
    assert!(checked >= 8, "{checked} files checked");
}
