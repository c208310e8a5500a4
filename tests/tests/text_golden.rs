//! The text observation for a language model (`pf1e_engine::observe::text`, issue 13 P8):
//! goldens and property checks.
//!
//! **Goldens** — `tests/golden/text/<scenario>.<lang>.txt`, for every bundled scenario
//! (`data/scenarios/*.yaml`) and both languages: every combatant externally controlled, the
//! episode seeded with [`SEED`] and played by the fixed agent [`agent`]; the file holds the
//! rendering of a few decisions: the first one, the first where a combatant is hurt or has a
//! condition (other than the flat-footed of the first round), and, when the scenario has
//! casters, the first where a caster decides (each
//! rendered with the results of the step before it). Regenerate after an intended change
//! with `bash scripts/regenerate_goldens.sh` (`UPDATE_GOLDEN=1`) and review the diff.
//!
//! **Properties** — over the first [`DECISIONS`] decisions of every scenario: the grid marks
//! threatened squares exactly where the observation says they are; every combatant has
//! exactly one status line; every legal action is listed, in id order, as `[id] label`; the
//! French rendering differs from the English one only in fixed words (same lines, same
//! grids, same action lines, same numbers and ids on every line).

mod common;

use pf1e_engine::episode::{Controller, Episode, Status};
use pf1e_engine::observe::text::{self, Lang, TextMode, TextOptions};
use pf1e_engine::{Action, ActionKind, ActionResult, Encounter};
use pf1e_env_server::scenarios::ScenarioStore;
use std::fmt::Write as _;
use std::sync::Arc;

/// The seed of every golden episode.
const SEED: u64 = 7;
/// Decisions checked per scenario by the property tests.
const DECISIONS: usize = 60;
/// Decisions played at most while looking for the golden decisions.
const MAX_DECISIONS: usize = 2000;

/// The bundled scenarios, sorted.
fn scenarios() -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(common::root().join("data/scenarios"))
        .expect("data/scenarios is readable")
        .filter_map(|e| {
            let name = e.ok()?.file_name().into_string().ok()?;
            name.strip_suffix(".yaml").map(str::to_string)
        })
        .collect();
    names.sort();
    names
}

fn encounter(store: &ScenarioStore, name: &str) -> Arc<Encounter> {
    store
        .named(name, "scenario")
        .unwrap_or_else(|e| panic!("scenario {name}: {e}"))
}

/// The fixed agent: at a reaction, take the attack of opportunity (first weapon) or fire the
/// readied action when offered, else the first legal answer; at a turn, the first spell cast
/// at an enemy when the actor has one (casters cast), else the first full attack, attack or
/// charge, else the first move toward someone, else `end_turn`.
fn agent(ep: &Episode) -> Vec<Action> {
    let d = ep.decision().expect("a decision is pending");
    let legal = ep.legal_actions();
    let first = |k: &[ActionKind]| {
        legal
            .iter()
            .find(|l| {
                k.contains(&l.action.kind) && (k != [ActionKind::Move] || l.action.target.is_some())
            })
            .map(|l| l.action.clone())
    };
    if d.kind.is_reaction() {
        return vec![
            first(&[ActionKind::AttackOfOpportunity, ActionKind::FireReadied])
                .unwrap_or_else(|| legal[0].action.clone()),
        ];
    }
    let enemy = |a: &Action| {
        a.target.is_some_and(|t| {
            ep.encounter().combatants[usize::from(t.0)].side
                != ep.encounter().combatants[usize::from(d.actor.0)].side
        })
    };
    let cast = legal
        .iter()
        .find(|l| l.action.kind == ActionKind::CastSpell && enemy(&l.action))
        .map(|l| l.action.clone());
    let a = cast
        .or_else(|| {
            first(&[
                ActionKind::FullAttack,
                ActionKind::Attack,
                ActionKind::Charge,
            ])
        })
        .or_else(|| first(&[ActionKind::Move]))
        .unwrap_or_else(|| Action::new(ActionKind::EndTurn));
    vec![a]
}

/// One decision of a golden episode: the episode paused at it and the results of the step
/// before it.
struct Seen {
    ep: Episode,
    results: Vec<ActionResult>,
}

/// Play `enc` seeded with `seed`, all external, calling `each` at every decision until it
/// returns `false` or the episode ends.
fn play(enc: Arc<Encounter>, seed: u64, mut each: impl FnMut(&Seen) -> bool) {
    let controllers = vec![Controller::External; enc.combatants.len()];
    let mut ep = Episode::new(enc, seed, &controllers);
    let mut results = Vec::new();
    let mut n = 0;
    while let Status::Decision(d) = ep.advance() {
        let seen = Seen {
            ep: ep.clone(),
            results: results.clone(),
        };
        if !each(&seen) || n >= MAX_DECISIONS {
            return;
        }
        n += 1;
        results = ep.submit(d.decision_id, &agent(&ep)).expect("pending");
    }
}

fn hurt_or_conditioned(ep: &Episode) -> bool {
    ep.observation(None).combatants.iter().any(|c| {
        !c.absent && (c.hp < c.hp_max || c.conditions.keys().any(|k| k.as_str() != "flat_footed"))
    })
}

fn caster_decides(ep: &Episode) -> bool {
    let d = ep.decision().expect("pending");
    !ep.observation(Some(d.actor)).combatants[usize::from(d.actor.0)]
        .spells
        .is_empty()
}

/// The golden decisions of a scenario: `(why, episode, results)`.
fn golden_decisions(enc: Arc<Encounter>) -> Vec<(String, Episode, Vec<ActionResult>)> {
    let has_casters = enc
        .combatants
        .iter()
        .any(|c| !c.spec.spellbook().is_empty());
    let mut picks: Vec<(String, Episode, Vec<ActionResult>)> = Vec::new();
    let (mut hurt, mut caster) = (false, !has_casters);
    let mut first = true;
    play(enc, SEED, |s| {
        let id = s.ep.decision().expect("pending").decision_id;
        if first {
            first = false;
            picks.push((
                format!("decision {id}: the first"),
                s.ep.clone(),
                s.results.clone(),
            ));
        } else if !hurt && hurt_or_conditioned(&s.ep) {
            hurt = true;
            picks.push((
                format!("decision {id}: the first with a combatant hurt or with a condition (not flat-footed)"),
                s.ep.clone(),
                s.results.clone(),
            ));
        } else if !caster && caster_decides(&s.ep) {
            caster = true;
            picks.push((
                format!("decision {id}: the first where a caster decides"),
                s.ep.clone(),
                s.results.clone(),
            ));
        }
        !(hurt && caster)
    });
    picks
}

fn golden_text(name: &str, lang: Lang, picks: &[(String, Episode, Vec<ActionResult>)]) -> String {
    let mut out = String::new();
    writeln!(
        out,
        "# text observation goldens of scenario {name} ({}): seed {SEED}, every combatant \
         external, played by the agent of tests/tests/text_golden.rs",
        lang.code()
    )
    .unwrap();
    for (why, ep, results) in picks {
        writeln!(out, "=== {why} ===").unwrap();
        out.push_str(&text::render(ep, None, lang, results));
    }
    out
}

#[test]
fn text_goldens_of_every_bundled_scenario() {
    let store = ScenarioStore::new(common::root().join("data"));
    let dir = common::root().join("tests/golden/text");
    let update = std::env::var_os("UPDATE_GOLDEN").is_some();
    if update {
        std::fs::create_dir_all(&dir).unwrap();
    }
    let names = scenarios();
    for name in &names {
        let picks = golden_decisions(encounter(&store, name));
        assert!(picks.len() >= 2, "{name}: a first and a later decision");
        for lang in Lang::ALL {
            let actual = golden_text(name, lang, &picks);
            let path = dir.join(format!("{name}.{}.txt", lang.code()));
            if update {
                std::fs::write(&path, &actual).unwrap();
            }
            let expected = std::fs::read_to_string(&path).unwrap_or_else(|_| {
                panic!("missing golden {path:?}: run scripts/regenerate_goldens.sh")
            });
            if expected != actual {
                let at = expected
                    .lines()
                    .zip(actual.lines())
                    .position(|(a, b)| a != b)
                    .unwrap_or(expected.lines().count().min(actual.lines().count()));
                panic!(
                    "text golden {name}.{} differs from line {} (run \
                     scripts/regenerate_goldens.sh after an intended change)\n--- expected\n{}\n--- actual\n{}",
                    lang.code(),
                    at + 1,
                    expected.lines().nth(at).unwrap_or("<end>"),
                    actual.lines().nth(at).unwrap_or("<end>")
                );
            }
        }
    }
    // No stale golden of a scenario that is gone.
    for entry in std::fs::read_dir(&dir).unwrap() {
        let file = entry.unwrap().file_name().into_string().unwrap();
        let stem = file.split('.').next().unwrap_or_default();
        assert!(
            names.iter().any(|n| n == stem),
            "tests/golden/text/{file}: no scenario {stem} any more (delete the file)"
        );
    }
}

/// The map grid rows of a rendering: the lines after the first grid header, up to the
/// legend, without their column-number lines (`(row, line)`).
fn grid_rows(txt: &str, rows: usize, cols: usize) -> Vec<String> {
    let lines: Vec<&str> = txt.lines().collect();
    let start = lines
        .iter()
        .position(|l| l.starts_with("Map (") || l.starts_with("Carte ("))
        .expect("a map header");
    // The column-number lines: one per digit of the last column.
    let cw = (cols - 1).to_string().len();
    lines[start + 1 + cw..start + 1 + cw + rows]
        .iter()
        .enumerate()
        .map(|(r, l)| {
            let l = l.trim_start();
            let (num, row) = l.split_once(' ').expect("row number, then the row");
            assert_eq!(num, r.to_string(), "row numbers in order");
            row.to_string()
        })
        .collect()
}

fn check_decision(name: &str, s: &Seen) {
    let ep = &s.ep;
    let obs = ep.observation(None);
    let legal = ep.legal_actions();
    let en = text::render(ep, None, Lang::En, &s.results);
    let fr = text::render(ep, None, Lang::Fr, &s.results);
    let map = &ep.encounter().map;
    let terrain: Vec<char> = map.legend.keys().copied().collect();
    let threat = text::threat_marker(&terrain);
    let area = text::area_marker(&terrain);
    let id = ep.decision().expect("pending").decision_id;
    let ctx = format!("{name} decision {id}");

    // Threatened squares: exactly the observation's, where no combatant or area shows.
    let rows = grid_rows(&en, map.rows as usize, map.cols as usize);
    let mut occupied = vec![vec![false; map.cols as usize]; map.rows as usize];
    let mut in_area = occupied.clone();
    for c in obs.combatants.iter().filter(|c| !c.dead && !c.absent) {
        for cell in &c.occupied_cells {
            occupied[cell.row as usize][cell.col as usize] = true;
        }
    }
    for a in &obs.spell_areas {
        for cell in &a.cells {
            in_area[cell.row as usize][cell.col as usize] = true;
        }
    }
    for (r, row) in rows.iter().enumerate() {
        let chars: Vec<char> = row.chars().collect();
        assert_eq!(chars.len(), map.cols as usize, "{ctx}: row {r} width");
        for (c, &ch) in chars.iter().enumerate() {
            let passable = map.legend[&map.terrain[r][c]].move_cost.is_some();
            let area_shown = in_area[r][c] && passable && !occupied[r][c];
            let want = obs.threatened[r][c] && passable && !occupied[r][c] && !area_shown;
            assert_eq!(
                ch == threat,
                want,
                "{ctx}: square ({r},{c}) shows `{ch}`, threatened {}",
                obs.threatened[r][c]
            );
            assert_eq!(ch == area, area_shown, "{ctx}: area at ({r},{c})");
            if occupied[r][c] {
                assert!(
                    ch.is_ascii_alphanumeric() || ch == '?',
                    "{ctx}: ({r},{c}) `{ch}`"
                );
            } else if !want && !area_shown {
                assert_eq!(ch, map.terrain[r][c], "{ctx}: ({r},{c}) shows its terrain");
            }
        }
    }
    // Every combatant exactly once in the status lines, with its letter on its squares.
    for c in &obs.combatants {
        let lines: Vec<&str> = en
            .lines()
            .filter(|l| {
                let mut w = l.split(' ');
                w.next().is_some_and(|x| x.chars().count() == 1)
                    && w.next() == Some(c.id.as_str())
                    && w.next().is_some_and(|x| x == format!("[{}]", c.side))
            })
            .collect();
        assert_eq!(lines.len(), 1, "{ctx}: {} has one status line", c.id);
        let letter = lines[0].chars().next().unwrap();
        // Drawn at its position, unless it lies unconscious under a conscious creature
        // crossing its square.
        let under = |p: pf1e_engine::Cell| {
            obs.combatants
                .iter()
                .any(|o| o.active && o.id != c.id && o.occupied_cells.contains(&p))
        };
        if !c.dead && !c.absent && (c.active || !under(c.pos)) {
            let p = c.pos;
            assert_eq!(
                rows[p.row as usize].chars().nth(p.col as usize),
                Some(letter),
                "{ctx}: {} drawn at its position",
                c.id
            );
        }
    }
    // Every legal action, in order, as `[id] label`.
    let listed: Vec<&str> = en.lines().filter(|l| l.starts_with('[')).collect();
    assert_eq!(
        listed.len(),
        legal.len(),
        "{ctx}: one line per legal action"
    );
    for (l, line) in legal.iter().zip(&listed) {
        assert_eq!(*line, format!("[{}] {}", l.id, l.label), "{ctx}");
    }
    // French differs only in fixed words.
    let (le, lf): (Vec<&str>, Vec<&str>) = (en.lines().collect(), fr.lines().collect());
    assert_eq!(le.len(), lf.len(), "{ctx}: as many lines in fr as in en");
    assert_ne!(en, fr, "{ctx}: fr is translated");
    let numbers = |l: &str| -> Vec<String> {
        l.split(|c: char| !c.is_ascii_digit())
            .filter(|x| !x.is_empty())
            .map(str::to_string)
            .collect()
    };
    let grid_like = |l: &str| {
        l.starts_with('[')
            || l.chars().all(|c| c.is_ascii_digit() || c == ' ')
            || rows.iter().any(|r| l.ends_with(r.as_str()))
    };
    for (a, b) in le.iter().zip(&lf) {
        if grid_like(a) {
            assert_eq!(a, b, "{ctx}: grid and action lines are the same in fr");
        }
        assert_eq!(numbers(a), numbers(b), "{ctx}: numbers of `{a}` / `{b}`");
        for c in &obs.combatants {
            assert_eq!(
                a.contains(c.id.as_str()),
                b.contains(c.id.as_str()),
                "{ctx}: {} in `{a}` / `{b}`",
                c.id
            );
        }
    }
    // Deterministic.
    assert_eq!(en, text::render(ep, None, Lang::En, &s.results), "{ctx}");
    assert_eq!(en, ep.text_observation(None, Lang::En, &s.results), "{ctx}");
    check_compact(&ctx, s, &en, &legal);
}

/// The labels a compact rendering's action section stands for: `[id] label` lines as they
/// are, `PREFIX (row,col): R: C1,C2-C3 | R2: C4` lines expanded to `PREFIX (R,C1)`… (the
/// lines after the actions header, up to the end).
fn expand_compact(txt: &str) -> Vec<(Option<u32>, String)> {
    let lines: Vec<&str> = txt.lines().collect();
    let start = lines
        .iter()
        .position(|l| l.starts_with("Legal actions (") || l.starts_with("Actions légales ("))
        .map_or(lines.len(), |i| i + 1);
    let mut out = Vec::new();
    for l in &lines[start..] {
        if let Some(rest) = l.strip_prefix('[') {
            let (id, label) = rest.split_once("] ").expect("[id] label");
            out.push((Some(id.parse().expect("an id")), label.to_string()));
            continue;
        }
        let (prefix, rows) = l.split_once(" (row,col): ").expect("a folded line");
        for row in rows.split(" | ") {
            let (r, runs) = row.split_once(": ").expect("R: runs");
            for run in runs.split(',') {
                let (a, b) = run.split_once('-').unwrap_or((run, run));
                let (a, b): (u32, u32) = (a.parse().unwrap(), b.parse().unwrap());
                for c in a..=b {
                    out.push((None, format!("{prefix} ({r},{c})")));
                }
            }
        }
    }
    out
}

/// Compact mode: lossless (the folded lines stand for exactly the legal labels; the listed
/// ones keep their ids), never longer than the full text, the same action lines in French;
/// under a budget too small for anything the map goes and every action stays.
fn check_compact(ctx: &str, s: &Seen, full: &str, legal: &[pf1e_engine::episode::LegalAction]) {
    let ep = &s.ep;
    let obs = ep.observation(None);
    let opts = |lang, budget| TextOptions {
        lang,
        mode: TextMode::Compact,
        token_budget: budget,
        ..TextOptions::default()
    };
    let en = text::render_opts(ep, &obs, legal, &opts(Lang::En, None), &s.results);
    let fr = text::render_opts(ep, &obs, legal, &opts(Lang::Fr, None), &s.results);
    assert!(en.len() <= full.len(), "{ctx}: compact is not longer");
    let mut got: Vec<String> = Vec::new();
    for (id, label) in expand_compact(&en) {
        if let Some(id) = id {
            let l = legal.iter().find(|l| l.id == id).expect("a legal id");
            assert_eq!(l.label, label, "{ctx}: [{id}]");
        }
        got.push(label);
    }
    let mut want: Vec<String> = legal.iter().map(|l| l.label.clone()).collect();
    got.sort();
    want.sort();
    assert_eq!(got, want, "{ctx}: compact actions = the legal labels");
    if !legal.is_empty() {
        assert_eq!(
            expand_compact(&fr),
            expand_compact(&en),
            "{ctx}: fr actions"
        );
    }
    // A budget of one token: no map, every action still there.
    let tiny = text::render_opts(ep, &obs, legal, &opts(Lang::En, Some(1)), &s.results);
    assert!(!tiny.contains("Map ("), "{ctx}: the map goes first");
    assert!(tiny.contains("Map omitted"), "{ctx}: and the text says so");
    assert_eq!(
        expand_compact(&tiny),
        expand_compact(&en),
        "{ctx}: every action stays"
    );
    // A budget the full text fits: the full text.
    let roomy = TextOptions {
        token_budget: Some(u32::MAX),
        ..TextOptions::lang(Lang::En)
    };
    assert_eq!(
        text::render_opts(ep, &obs, legal, &roomy, &s.results),
        full,
        "{ctx}"
    );
}

#[test]
fn text_rendering_properties_over_every_scenario() {
    let store = ScenarioStore::new(common::root().join("data"));
    for name in &scenarios() {
        let mut n = 0;
        play(encounter(&store, name), SEED, |s| {
            check_decision(name, s);
            n += 1;
            n < DECISIONS
        });
        assert!(n > 1, "{name}: decisions checked");
    }
}
