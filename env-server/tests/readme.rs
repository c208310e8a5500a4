//! The README's example outputs of `pf1e-sim` cannot go stale: every ```sh block of README.md
//! that is one `cargo run --release --bin pf1e-sim -- ARGS` command and is followed by a
//! plain ``` block is run here (the debug binary, in the repository root; the report does not
//! depend on the build profile nor on the thread count) and its stdout must equal that block.
//!
//! To regenerate the blocks after a change that moves the figures:
//!
//! ```sh
//! PF1E_BLESS_README=1 cargo test -p pf1e-env-server --test readme
//! ```
//!
//! which rewrites each block with the command's output (and, for a sweep followed by an image
//! `![…](docs/img/NAME.png)`, copies the sweep's heatmap PNG there). `--out DIR` of a sweep is
//! replaced by a temporary directory.

use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_pf1e-sim");
const PREFIX: &str = "cargo run --release --bin pf1e-sim --";

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// A documented example: the command's arguments and the byte range of its output block's
/// contents in the README.
struct Example {
    args: Vec<String>,
    output: std::ops::Range<usize>,
    image: Option<String>,
}

/// Find the examples: a ```sh block holding one pf1e-sim command (lines joined at `\`), a
/// blank line, then a ``` block.
fn examples(readme: &str) -> Vec<Example> {
    let mut found = Vec::new();
    let mut pos = 0;
    while let Some(i) = readme[pos..].find("```sh\n") {
        let start = pos + i + "```sh\n".len();
        let Some(len) = readme[start..].find("```\n") else {
            break;
        };
        let body = &readme[start..start + len];
        pos = start + len + 4;
        let command = body.replace("\\\n", " ");
        let command = command.trim();
        let Some(args) = command.strip_prefix(PREFIX) else {
            continue;
        };
        if command.lines().count() != 1 || !readme[pos..].starts_with("\n```\n") {
            continue;
        }
        let out_start = pos + "\n```\n".len();
        let out_len = readme[out_start..]
            .find("```\n")
            .expect("the output block is closed");
        let after = &readme[out_start + out_len + 4..];
        let image = after
            .trim_start_matches('\n')
            .strip_prefix("![")
            .and_then(|s| s.split_once("]("))
            .and_then(|(_, s)| s.split_once(')'))
            .map(|(path, _)| path.to_string());
        found.push(Example {
            args: args.split_whitespace().map(str::to_string).collect(),
            output: out_start..out_start + out_len,
            image,
        });
        pos = out_start + out_len + 4;
    }
    found
}

#[test]
fn readme_outputs_are_what_the_commands_print() {
    let path = root().join("README.md");
    let mut readme = std::fs::read_to_string(&path).unwrap();
    let bless = std::env::var_os("PF1E_BLESS_README").is_some();
    let found = examples(&readme);
    assert!(
        found.len() >= 3,
        "the Monte Carlo and sweep examples are found"
    );
    let mut stale = Vec::new();
    // Replace from the end so that earlier ranges stay valid.
    for ex in found.iter().rev() {
        let tmp = std::env::temp_dir().join(format!(
            "pf1e-readme-{}-{}",
            std::process::id(),
            ex.output.start
        ));
        let mut args = ex.args.clone();
        if let Some(i) = args.iter().position(|a| a == "--out") {
            args[i + 1] = tmp.display().to_string();
        }
        let o = Command::new(BIN)
            .args(&args)
            .current_dir(root())
            .env_remove("PF1E_DATA_DIR")
            .output()
            .unwrap();
        assert_eq!(
            o.status.code(),
            Some(0),
            "pf1e-sim {}: {}",
            ex.args.join(" "),
            String::from_utf8_lossy(&o.stderr)
        );
        let out = String::from_utf8(o.stdout).unwrap();
        if readme[ex.output.clone()] != out {
            stale.push(format!(
                "pf1e-sim {}\n--- README\n{}--- now\n{out}",
                ex.args.join(" "),
                &readme[ex.output.clone()]
            ));
            if bless {
                readme.replace_range(ex.output.clone(), &out);
            }
        }
        if bless {
            if let (Some(image), true) = (&ex.image, tmp.is_dir()) {
                let pngs: Vec<PathBuf> = std::fs::read_dir(&tmp)
                    .unwrap()
                    .flatten()
                    .map(|e| e.path())
                    .filter(|p| p.extension().is_some_and(|x| x == "png"))
                    .collect();
                if let [png] = pngs.as_slice() {
                    std::fs::copy(png, root().join(image)).unwrap();
                }
            }
        }
        let _ = std::fs::remove_dir_all(&tmp);
    }
    if bless {
        std::fs::write(&path, &readme).unwrap();
        return;
    }
    assert!(
        stale.is_empty(),
        "README.md example outputs are stale (regenerate: PF1E_BLESS_README=1 cargo test -p \
         pf1e-env-server --test readme):\n{}",
        stale.join("\n")
    );
}

/// The finder itself: a command, a blank line, an output block, an image.
#[test]
fn examples_are_found_with_their_output_and_image() {
    let text = "x\n```sh\ncargo run --release --bin pf1e-sim -- \\\n  --scenario casters \\\n  --runs 5\n```\n\n```\nOUT\n```\n\n![h](docs/img/a.png)\n```sh\ncargo build\n```\n\n```\nno\n```\n";
    let found = examples(text);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].args, ["--scenario", "casters", "--runs", "5"]);
    assert_eq!(&text[found[0].output.clone()], "OUT\n");
    assert_eq!(found[0].image.as_deref(), Some("docs/img/a.png"));
}
