//! Figures of the text observation (issue 13, P8): per decision, the µs to render the text
//! (`observe::text::render`: the observation, the legal actions and the text, each part
//! timed too) against the
//! µs of the decision itself (the fixed agent's choice, `submit` and `advance`), the
//! characters of the text and two token estimates, for the sample arena and the 4v4
//! skirmish (or any `data/scenarios/<name>.yaml` given).
//!
//! ```text
//! cargo run --release -p pf1e-engine --example text_figures -- [--print] [--episodes N] [SCENARIO...]
//! ```
//!
//! Token estimators (no tokenizer is bundled): `chars/4` (the usual rule of thumb for
//! English BPE vocabularies) and `pieces`: maximal runs of letters or digits plus every other
//! non-space character (a tokenizer rarely merges punctuation, so this is closer for a text
//! of ids, numbers and brackets). `--print` prints the first decision's text of each
//! scenario (English). Benchmarks, not tests: the numbers depend on the machine.
use pf1e_engine::content::combatant::CombatantSpec;
use pf1e_engine::content::map::MapSpec;
use pf1e_engine::episode::{Controller, Status};
use pf1e_engine::observe::text::{self, Lang, TextMode, TextOptions};
use pf1e_engine::{Action, ActionKind, Encounter, Episode, RulesOptions};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// `data/scenarios/<name>.yaml` as an encounter (map, sides in file order, round cap).
fn scenario(name: &str) -> Encounter {
    let path = root().join(format!("data/scenarios/{name}.yaml"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    let doc: serde_yaml::Mapping = serde_yaml::from_str(&text).expect("scenario YAML");
    let map_name = doc["map"].as_str().expect("map");
    let map = MapSpec::load(&root().join(format!("data/maps/{map_name}.yaml"))).expect("map");
    let sides = doc["sides"]
        .as_mapping()
        .expect("sides")
        .iter()
        .map(|(side, members)| {
            let members = members
                .as_sequence()
                .expect("a list of combatants")
                .iter()
                .map(|m| {
                    let m = m.as_str().expect("a combatant name");
                    let p = root().join(format!("data/monsters/{m}.json"));
                    let p = if p.exists() {
                        p
                    } else {
                        root().join(format!("data/pcs/{m}.json"))
                    };
                    (m.to_string(), CombatantSpec::load(&p).expect("combatant"))
                })
                .collect();
            (side.as_str().expect("side").to_string(), members)
        })
        .collect();
    let mut options = RulesOptions::default();
    if let Some(cap) = doc.get("round_cap").and_then(|c| c.as_u64()) {
        options.round_cap = cap as u32;
    }
    Encounter::build(map, sides, options).expect("encounter")
}

/// The fixed agent: at a reaction the first answer; at a turn the first full attack, attack
/// or charge, else the first move toward someone, else `end_turn`.
fn agent(ep: &Episode) -> Vec<Action> {
    let d = ep.decision().expect("pending");
    let legal = ep.legal_actions();
    if d.kind.is_reaction() {
        return vec![legal[0].action.clone()];
    }
    let pick = |k: &[ActionKind]| {
        legal
            .iter()
            .find(|l| k.contains(&l.action.kind))
            .map(|l| l.action.clone())
    };
    let toward = legal
        .iter()
        .find(|l| l.action.kind == ActionKind::Move && l.action.target.is_some())
        .map(|l| l.action.clone());
    vec![pick(&[
        ActionKind::FullAttack,
        ActionKind::Attack,
        ActionKind::Charge,
    ])
    .or(toward)
    .unwrap_or_else(|| Action::new(ActionKind::EndTurn))]
}

fn pieces(s: &str) -> usize {
    let mut n = 0;
    let mut in_word = false;
    for ch in s.chars() {
        if ch.is_alphanumeric() {
            if !in_word {
                n += 1;
            }
            in_word = true;
        } else {
            in_word = false;
            if !ch.is_whitespace() {
                n += 1;
            }
        }
    }
    n
}

fn stats(name: &str, unit: &str, v: &mut [f64]) {
    v.sort_by(f64::total_cmp);
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    let q = |p: f64| v[((v.len() - 1) as f64 * p).round() as usize];
    println!(
        "  {name:<22} mean {mean:>9.1}  median {:>9.1}  p95 {:>9.1}  max {:>9.1} {unit}",
        q(0.5),
        q(0.95),
        v[v.len() - 1]
    );
}

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let print = args.iter().any(|a| a == "--print");
    args.retain(|a| a != "--print");
    let mut episodes = 5u64;
    if let Some(i) = args.iter().position(|a| a == "--episodes") {
        episodes = args
            .get(i + 1)
            .and_then(|n| n.parse().ok())
            .expect("--episodes N");
        args.drain(i..i + 2);
    }
    if args.is_empty() {
        args = vec!["sample_arena".into(), "skirmish_4v4".into()];
    }
    for name in &args {
        let enc = Arc::new(scenario(name));
        let controllers = vec![Controller::External; enc.combatants.len()];
        let (mut render_us, mut decide_us, mut chars, mut quarter, mut piece, mut legal) =
            (vec![], vec![], vec![], vec![], vec![], vec![]);
        let (mut obs_us, mut legal_us, mut format_us) = (vec![], vec![], vec![]);
        let mut fr_chars = vec![];
        let (mut compact_chars, mut compact_us) = (vec![], vec![]);
        for seed in 1..=episodes {
            let mut ep = Episode::new(enc.clone(), seed, &controllers);
            let mut results = Vec::new();
            while let Status::Decision(d) = ep.advance() {
                // The parts: the observation, the legal actions (a server with the text on
                // builds both anyway for its typed observation and its list), the text.
                let t = Instant::now();
                let obs = ep.observation(None);
                let t1 = Instant::now();
                let la = ep.legal_actions();
                let t2 = Instant::now();
                let txt = text::render_with(&ep, &obs, &la, Lang::En, &results);
                let t3 = Instant::now();
                obs_us.push((t1 - t).as_secs_f64() * 1e6);
                legal_us.push((t2 - t1).as_secs_f64() * 1e6);
                format_us.push((t3 - t2).as_secs_f64() * 1e6);
                render_us.push((t3 - t).as_secs_f64() * 1e6);
                if print && seed == 1 && chars.is_empty() {
                    println!("--- {name}: first decision (en) ---\n{txt}---");
                }
                fr_chars.push(text::render(&ep, None, Lang::Fr, &results).chars().count() as f64);
                let compact_opts = TextOptions {
                    mode: TextMode::Compact,
                    ..TextOptions::default()
                };
                let t = Instant::now();
                let compact = text::render_opts(&ep, &obs, &la, &compact_opts, &results);
                compact_us.push(t.elapsed().as_secs_f64() * 1e6);
                if print && seed == 1 && chars.is_empty() {
                    println!("--- {name}: first decision (en, compact) ---\n{compact}---");
                }
                compact_chars.push(compact.chars().count() as f64);
                chars.push(txt.chars().count() as f64);
                quarter.push((txt.chars().count() as f64 / 4.0).ceil());
                piece.push(pieces(&txt) as f64);
                legal.push(ep.legal_actions().len() as f64);
                let t = Instant::now();
                let actions = agent(&ep);
                results = ep.submit(d.decision_id, &actions).expect("pending");
                ep.advance();
                decide_us.push(t.elapsed().as_secs_f64() * 1e6);
            }
        }
        println!(
            "{name}: {} decisions over {episodes} episodes (seeds 1..={episodes}), every combatant external",
            render_us.len()
        );
        stats("render total (en)", "µs", &mut render_us);
        stats("  observation", "µs", &mut obs_us);
        stats("  legal actions", "µs", &mut legal_us);
        stats("  text formatting", "µs", &mut format_us);
        stats("decision (agent+step)", "µs", &mut decide_us);
        stats("characters (en)", "", &mut chars);
        stats("characters (fr)", "", &mut fr_chars);
        stats("characters (en, compact)", "", &mut compact_chars);
        stats("  compact text formatting", "µs", &mut compact_us);
        stats("tokens ~chars/4", "", &mut quarter);
        stats("tokens ~pieces", "", &mut piece);
        stats("legal actions", "", &mut legal);
    }
}
