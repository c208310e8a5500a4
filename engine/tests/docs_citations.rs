//! The documentation cites only what exists, so that its rows cannot go stale silently:
//! every test `docs/conformance.md` names in its `test` column is a function of the
//! repository's Rust sources (a `prefix_*` or `prefix_…` pattern matches at least one), every
//! golden it names is a file, and every `engine/src/….rs` path the docs and the engine's own
//! doc comments give is a file.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The repository root (this crate is `engine/`).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("engine/ has a parent")
        .to_path_buf()
}

/// Every file under `dir` whose name ends with `ext`, skipping build outputs and hidden
/// folders.
fn files(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for e in rd.flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().to_string();
        if p.is_dir() {
            if name != "target" && !name.starts_with('.') && name != "node_modules" {
                files(&p, ext, out);
            }
        } else if name.ends_with(ext) {
            out.push(p);
        }
    }
}

/// The names of every `fn` in the repository's Rust sources.
fn fn_names() -> BTreeSet<String> {
    let mut rs = Vec::new();
    for d in ["engine", "env-server", "tests", "native", "fuzz"] {
        files(&root().join(d), ".rs", &mut rs);
    }
    let mut names = BTreeSet::new();
    for p in rs {
        let text = std::fs::read_to_string(&p).unwrap_or_default();
        let mut rest = text.as_str();
        while let Some(k) = rest.find("fn ") {
            let before = rest[..k].chars().next_back();
            rest = &rest[k + 3..];
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue;
            }
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            if !name.is_empty() {
                names.insert(name);
            }
        }
    }
    names
}

fn ident_char(c: char) -> bool {
    c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_' || c == ':'
}

/// The test names cited in one `test` cell, each with the word before it (`golden` marks a
/// golden file): tokens of `[a-z0-9_:]` with an optional `*` or `…` glob, not part of a
/// path or a file name (no `/`, `.` or `-` touching them); of a `file::test` path, the last
/// segment. Only names with two underscores or more are test names (`aoo_rules` alone is a
/// file).
fn cited(cell: &str) -> Vec<(String, bool, String)> {
    let chars: Vec<char> = cell.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        if !ident_char(chars[i]) || chars[i] == ':' {
            i += 1;
            continue;
        }
        let start = i;
        while i < chars.len() && ident_char(chars[i]) {
            i += 1;
        }
        let token: String = chars[start..i].iter().collect();
        let glob = i < chars.len() && (chars[i] == '*' || chars[i] == '…');
        let end = if glob { i + 1 } else { i };
        let touches = |c: Option<&char>| c.is_some_and(|c| matches!(c, '/' | '.' | '-'));
        let (prev, next) = (
            start.checked_sub(1).and_then(|k| chars.get(k)),
            chars.get(end),
        );
        i = end;
        if touches(prev) || touches(next) || (prev.is_some_and(|c| c.is_ascii_uppercase())) {
            continue;
        }
        let name = token.rsplit("::").next().unwrap_or("").to_string();
        if name.matches('_').count() < 2 {
            continue;
        }
        let word_before: String = chars[..start]
            .iter()
            .rev()
            .skip_while(|c| c.is_whitespace())
            .take_while(|c| c.is_alphabetic())
            .collect::<Vec<_>>()
            .into_iter()
            .rev()
            .collect();
        out.push((name, glob, word_before));
    }
    out
}

/// The last cell of each table row of `docs/conformance.md` (its `test` column), with the
/// line number.
fn test_cells(doc: &str) -> Vec<(usize, String)> {
    doc.lines()
        .enumerate()
        .filter(|(_, l)| l.starts_with('|') && !l.starts_with("|---"))
        .filter_map(|(n, l)| {
            let cells: Vec<&str> = l.trim().trim_matches('|').split('|').collect();
            (cells.len() >= 4).then(|| (n + 1, cells[cells.len() - 1].trim().to_string()))
        })
        .collect()
}

#[test]
fn every_test_docs_conformance_cites_exists() {
    let doc = std::fs::read_to_string(root().join("docs/conformance.md")).unwrap();
    let fns = fn_names();
    let mut goldens = Vec::new();
    files(&root().join("tests/golden"), "", &mut goldens);
    let golden_stems: BTreeSet<String> = goldens
        .iter()
        .filter_map(|p| p.file_stem().map(|s| s.to_string_lossy().to_string()))
        .collect();
    let mut missing = Vec::new();
    let mut checked = 0;
    for (line, cell) in test_cells(&doc) {
        for (name, glob, before) in cited(&cell) {
            checked += 1;
            let found = if before == "golden" {
                golden_stems.contains(&name) || fns.contains(&name)
            } else if glob {
                fns.iter().any(|f| f.starts_with(&name))
            } else {
                fns.contains(&name)
            };
            if !found {
                missing.push(format!("docs/conformance.md:{line}: {name}"));
            }
        }
    }
    assert!(
        checked > 200,
        "only {checked} citations found: the parser is broken"
    );
    assert!(
        missing.is_empty(),
        "tests cited but not found:\n{}",
        missing.join("\n")
    );
}

/// The cell parser: file paths, globs, goldens and file names.
#[test]
fn the_citation_parser_reads_paths_globs_and_goldens() {
    let c = cited(
        "ready::crb_delay_acts_after, crb_flanking_* (incl. crb_a_b_c), golden delay_swaps_the_order, \
         aoo_rules, `engine/tests/not_a_test.rs`, casting::crb_casting_provokes_…",
    );
    let names: Vec<(&str, bool, &str)> = c
        .iter()
        .map(|(n, g, b)| (n.as_str(), *g, b.as_str()))
        .collect();
    assert_eq!(
        names,
        vec![
            ("crb_delay_acts_after", false, ""),
            ("crb_flanking_", true, ""),
            ("crb_a_b_c", false, ""),
            ("delay_swaps_the_order", false, "golden"),
            ("crb_casting_provokes_", true, ""),
        ]
    );
}

/// Every `engine/src/….rs` path written in the docs (README, ARCHITECTURE, `docs/`,
/// `data/README.md`) and in the engine's sources is a file: modules that moved leave no
/// dangling path behind.
#[test]
fn every_engine_source_path_the_docs_give_exists() {
    let mut texts = vec![
        root().join("README.md"),
        root().join("ARCHITECTURE.md"),
        root().join("data/README.md"),
    ];
    files(&root().join("docs"), ".md", &mut texts);
    files(&root().join("engine/src"), ".rs", &mut texts);
    let mut missing = Vec::new();
    for p in texts {
        let text = std::fs::read_to_string(&p).unwrap_or_default();
        for (k, _) in text.match_indices("engine/src/") {
            let path: String = text[k..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '/' | '.'))
                .collect();
            let Some(end) = path.find(".rs") else {
                continue;
            };
            let path = &path[..end + 3];
            if !root().join(path).is_file() {
                let rel = p.strip_prefix(root()).unwrap_or(&p).display().to_string();
                missing.push(format!("{rel}: {path}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "paths that do not exist:\n{}",
        missing.join("\n")
    );
}
