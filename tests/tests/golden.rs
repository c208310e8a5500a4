//! Golden transcripts with scripted dice (OpenSpiel-style playthroughs): each case plays a
//! whole combat with a fixed list of die faces and compares the transcript, the outcome and
//! the attrition with `tests/golden/<case>.txt`. Every scripted face must be consumed.
//!
//! Regenerate after an intended rules change with `bash scripts/regenerate_goldens.sh`
//! (`UPDATE_GOLDEN=1`), then review the diff like code.

mod common;

use pf1e_engine::dice::{DiceSource, ScriptedDice};
use pf1e_engine::episode::{Controller, Episode, Status};
use pf1e_engine::{Action, RulesOptions};
use std::fmt::Write as _;

fn render(ep: &Episode, dice_used: usize, header: &str) -> String {
    let mut out = String::new();
    writeln!(out, "# {header}").unwrap();
    writeln!(out, "# scripted dice consumed: {dice_used}").unwrap();
    for line in ep.transcript() {
        writeln!(out, "{line}").unwrap();
    }
    writeln!(out, "# outcome: {:?}", ep.outcome()).unwrap();
    for (i, a) in ep.attrition().iter().enumerate() {
        let id = &ep.encounter().combatants[i].id;
        writeln!(
            out,
            "# attrition {id}: attacks {} hits {} crits {} dealt {} taken {}",
            a.attacks, a.hits, a.crits, a.damage_dealt, a.damage_taken
        )
        .unwrap();
    }
    out
}

fn check_golden(case: &str, actual: &str) {
    let path = common::root().join("tests/golden").join(format!("{case}.txt"));
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        std::fs::write(&path, actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|_| panic!("missing golden {path:?}: run scripts/regenerate_goldens.sh"));
    if expected != actual {
        panic!(
            "golden transcript {case} differs (run scripts/regenerate_goldens.sh after an intended change)\n--- expected\n{expected}\n--- actual\n{actual}"
        );
    }
}

/// Play to the end with the default policy everywhere; return the episode.
fn play(enc: std::sync::Arc<pf1e_engine::Encounter>, rolls: &[u32]) -> Episode {
    let dice = DiceSource::Scripted(ScriptedDice::new(rolls.iter().copied()));
    let mut ep = Episode::with_dice(enc, dice, &[]);
    match ep.advance() {
        Status::Terminal(_) => {}
        Status::Decision(_) => panic!("no external controller: the episode must run to the end"),
    }
    ep
}

fn remaining(ep: &Episode) -> usize {
    match ep.dice_source() {
        DiceSource::Scripted(s) => s.remaining(),
        DiceSource::Seeded(_) => 0,
    }
}
