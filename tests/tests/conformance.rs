//! The shared conformance suite (OpenSpiel's `RandomSimTest`; `/work/shared/STYLE.md`, "Every
//! game passes one shared suite"): every scenario file of `data/scenarios` and every unordered
//! pair of bundled creatures (each against itself too, on the sample arena) plays random masked
//! games to the end with external controllers on both sides, checking at every decision the
//! mask against `validate` over the whole action space, `legal_actions`, `submit` of every
//! legal id (on clones, every `SUBMIT_EVERY`-th decision), observations and tensors; clone,
//! restore and replay equality; and that the episode ends exactly once. A second pass plays
//! the same encounters with the default policy on both sides: it never chooses an action the
//! rules refuse.
//!
//! The checks live in `common/conformance.rs` (shared with `tests/fuzz.rs`); the engine
//! defects known today are listed there in `KNOWN_DIVERGENCES` (allowed, reported on stderr:
//! run with `--nocapture` to see them).

mod common;
#[path = "common/conformance.rs"]
mod conformance;

use conformance::{Case, Known, RandomPlayer};

/// Seeds of the external games per scenario file.
const SCENARIO_SEEDS: u64 = 8;
/// Seeds of the external games per creature pair.
const PAIR_SEEDS: u64 = 1;
/// Seeds of the default-policy games per encounter.
const DEFAULT_SEEDS: u64 = 5;

fn external_pass(test: &str, cases: &[Case], seeds: u64) {
    let mut known = Known::new();
    let mut games = 0;
    let mut decisions = 0;
    let mut reactions = 0;
    for case in cases {
        for seed in 0..seeds {
            let mut player = RandomPlayer::new(seed);
            match conformance::play_external(case, seed, &mut player, &mut known) {
                Ok(s) => {
                    games += 1;
                    decisions += s.decisions;
                    reactions += s.reactions;
                }
                Err(f) => {
                    known.finish(test);
                    panic!("{f}");
                }
            }
        }
    }
    eprintln!("{test}: {games} games, {decisions} decisions ({reactions} reactions)");
    assert!(decisions > games, "the games had decisions");
    known.finish(test);
}

#[test]
fn every_scenario_file_plays_random_masked_games() {
    let cases = conformance::scenario_cases();
    assert!(cases.iter().any(|c| c.name == "scenario sample_arena"));
    external_pass("scenarios", &cases, SCENARIO_SEEDS);
}

#[test]
fn every_pair_of_bundled_creatures_plays_random_masked_games() {
    let cases = conformance::pair_cases();
    let n = conformance::monster_names().len();
    assert!(n >= 12);
    assert_eq!(
        cases.len(),
        n * (n + 1) / 2,
        "every unordered pair, self-pairs too"
    );
    external_pass("pairs", &cases, PAIR_SEEDS);
}

#[test]
fn the_default_policy_never_plays_a_refused_action() {
    let mut known = Known::new();
    let cases = conformance::all_cases();
    for case in &cases {
        for seed in 0..DEFAULT_SEEDS {
            if let Err(f) = conformance::play_default(case, seed, &mut known) {
                known.finish("default policy");
                panic!("{f}");
            }
        }
    }
    known.finish("default policy");
}

/// Every bundled caster fights every other bundled creature to the end (issue 12): the
/// Bestiary casters are in the pairs above; each player character of `data/pcs` against
/// every creature and every player character, default policy on both sides (it casts), one
/// external random game each against the first three creatures too.
#[test]
fn every_player_character_fights_every_bundled_creature_to_the_end() {
    let mut known = Known::new();
    let cases = conformance::pc_cases();
    assert!(cases.len() >= 6 * 20, "{} cases", cases.len());
    for case in &cases {
        let o = match conformance::play_default(case, 0, &mut known) {
            Ok(o) => o,
            Err(f) => {
                known.finish("player characters");
                panic!("{f}");
            }
        };
        assert!(o.rounds >= 1, "{}: {o:?}", case.name);
    }
    known.finish("player characters");
    let external: Vec<_> = conformance::pc_cases()
        .into_iter()
        .filter(|c| {
            ["vs bugbear", "vs dire_bat", "vs drow_noble"]
                .iter()
                .any(|s| c.name.ends_with(s))
        })
        .collect();
    external_pass("player characters (external)", &external, 1);
}

/// Every entry of `KNOWN_DIVERGENCES` still shows in its reproduction: once the engine is
/// fixed, this fails and the entry is to be removed.
#[test]
fn every_known_divergence_still_occurs() {
    let cases = conformance::all_cases();
    let mut stale = Vec::new();
    for (i, e) in conformance::KNOWN_DIVERGENCES.iter().enumerate() {
        match conformance::reproduce(i, &cases) {
            Ok(0) => stale.push(format!("{e:?}")),
            Ok(_) => {}
            Err(f) => panic!("the reproduction of {e:?} fails otherwise: {f}"),
        }
    }
    assert!(
        stale.is_empty(),
        "known divergences that no longer occur (the engine was fixed: remove them from \
         KNOWN_DIVERGENCES, and their known: items from tests/fuzz-corpus):\n{}",
        stale.join("\n")
    );
}
