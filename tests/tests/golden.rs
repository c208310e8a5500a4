//! Golden transcripts with scripted dice (OpenSpiel-style playthroughs): each case plays a
//! whole combat with a fixed list of die faces and compares the transcript, the outcome and
//! the attrition with `tests/golden/<case>.txt`. Every scripted face must be consumed.
//!
//! The dice faces are stored in the golden file's `# dice:` line and replayed with
//! `DiceSource::Scripted`. Regenerate after an intended rules change with
//! `bash scripts/regenerate_goldens.sh` (`UPDATE_GOLDEN=1`): each case then searches seeds from 1
//! upward for the first combat showing the rules the case is about (recording its faces with
//! `DiceSource::Recording`), and rewrites the file — review the diff like code.

mod common;

use pf1e_engine::dice::{DiceSource, ScriptedDice};
use pf1e_engine::episode::{Controller, Episode, Status};
use pf1e_engine::{Action, ActionKind};
use pf1e_engine::{Encounter, RulesOptions};
use std::fmt::Write as _;
use std::sync::Arc;

fn render(ep: &Episode, faces: &[u32], header: &str, decisions: &str) -> String {
    let mut out = String::new();
    writeln!(out, "# {header}").unwrap();
    let dice: Vec<String> = faces.iter().map(|f| f.to_string()).collect();
    writeln!(out, "# dice: {}", dice.join(" ")).unwrap();
    for line in ep.transcript() {
        writeln!(out, "{line}").unwrap();
    }
    if !decisions.is_empty() {
        writeln!(out, "# decisions of the externally controlled combatants").unwrap();
        for line in decisions.lines() {
            writeln!(out, "# {line}").unwrap();
        }
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

/// A scripted agent: picks the actions for a decision and may write playthrough lines.
type Agent = dyn Fn(&Episode, &mut String) -> Vec<pf1e_engine::Action>;

/// Play to the end; combatants listed in `controllers` as External are played by `agent`, and
/// each of their decisions is written to the playthrough (legal action count, chosen actions,
/// results).
fn play(
    enc: Arc<Encounter>,
    dice: DiceSource,
    controllers: &[Controller],
    agent: Option<&Agent>,
) -> (Episode, String) {
    let mut ep = Episode::with_dice(enc, dice, controllers);
    let mut decisions = String::new();
    loop {
        match ep.advance() {
            Status::Terminal(_) => break,
            Status::Decision(d) => {
                let agent = agent.expect("a decision needs an agent");
                let legal = ep.legal_actions();
                let actor = ep.encounter().combatants[d.actor.0 as usize].id.clone();
                writeln!(
                    decisions,
                    "decision {} round {} {actor}: {} legal actions",
                    d.decision_id,
                    d.round,
                    legal.len()
                )
                .unwrap();
                let actions = agent(&ep, &mut decisions);
                for a in &actions {
                    let label = pf1e_engine::actions::legal::label(&ep, d.actor, a);
                    writeln!(decisions, "  chose {label}").unwrap();
                }
                let results = ep
                    .submit(d.decision_id, &actions)
                    .expect("a decision is pending");
                for r in results {
                    writeln!(
                        decisions,
                        "  result {} ok={} reason={:?}",
                        r.kind.name(),
                        r.ok,
                        r.code()
                    )
                    .unwrap();
                }
            }
        }
    }
    (ep, decisions)
}

/// Run a golden case: replay the file's dice (or, with `UPDATE_GOLDEN`, record the first seeded
/// combat satisfying `wanted` and rewrite the file).
fn golden_case(
    case: &str,
    header: &str,
    enc: Arc<Encounter>,
    controllers: &[Controller],
    agent: Option<&Agent>,
    wanted: &dyn Fn(&str) -> bool,
) {
    let path = common::root()
        .join("tests/golden")
        .join(format!("{case}.txt"));
    if std::env::var_os("UPDATE_GOLDEN").is_some() {
        for seed in 1..10_000u64 {
            let (ep, decisions) =
                play(enc.clone(), DiceSource::recording(seed), controllers, agent);
            let text: Vec<String> = ep.transcript().iter().map(|l| l.to_string()).collect();
            if wanted(&text.join("\n")) {
                let faces = ep.dice_source().recorded().to_vec();
                let header = format!("{header} (recorded from seed {seed})");
                std::fs::write(&path, render(&ep, &faces, &header, &decisions)).unwrap();
                break;
            }
        }
    }
    let expected = std::fs::read_to_string(&path)
        .unwrap_or_else(|_| panic!("missing golden {path:?}: run scripts/regenerate_goldens.sh"));
    let dice_line = expected
        .lines()
        .find_map(|l| l.strip_prefix("# dice: "))
        .expect("golden file has a `# dice:` line");
    let faces: Vec<u32> = dice_line
        .split_whitespace()
        .map(|f| f.parse().expect("dice faces are numbers"))
        .collect();
    let (ep, decisions) = play(
        enc,
        DiceSource::Scripted(ScriptedDice::new(faces.clone())),
        controllers,
        agent,
    );
    match ep.dice_source() {
        DiceSource::Scripted(s) => assert_eq!(s.remaining(), 0, "every scripted face is consumed"),
        _ => unreachable!(),
    }
    let header_line = expected
        .lines()
        .next()
        .unwrap_or("# ")
        .trim_start_matches("# ");
    let actual = render(&ep, &faces, header_line, &decisions);
    assert!(
        expected == actual,
        "golden transcript {case} differs (run scripts/regenerate_goldens.sh after an intended change)\n--- expected\n{expected}\n--- actual\n{actual}"
    );
}

/// CRB — Combat: a 1v1 melee duel. Initiative; a charge (+2 attack, −2 AC); critical threat and
/// confirmation (weapon dice and flat bonus rolled ×2); DR 5/bludgeoning against a slashing
/// falchion; an undead destroyed at 0 hp.
#[test]
fn golden_duel_1v1_melee() {
    let enc = common::encounter(
        "duel",
        &[("west", &["orc"]), ("east", &["human_skeleton"])],
        RulesOptions::default(),
    );
    golden_case(
        "duel_1v1_melee",
        "orc vs human skeleton in the duel room",
        enc,
        &[],
        None,
        &|t| t.contains("charge") && t.contains("CRIT") && t.contains("DR 5/bludgeoning"),
    );
}

/// The skirmisher agent of the 2v2 golden (the goblin): when threatened it moves away to the
/// reachable square farthest from its nearest enemy (leaving threatened squares provokes); when
/// not threatened it shoots with a full attack; else it ends its turn. Prone, it stands up
/// first (a move action that provokes).
fn skirmisher(ep: &Episode, _log: &mut String) -> Vec<Action> {
    let legal = ep.legal_actions();
    let obs = ep.observation(None);
    if legal.iter().any(|l| l.action.kind == ActionKind::StandUp) {
        return vec![Action::new(ActionKind::StandUp)];
    }
    if !obs.enemies_threatening_me.is_empty() {
        let enemies: Vec<_> = obs
            .combatants
            .iter()
            .filter(|c| {
                c.active
                    && Some(&c.side)
                        != obs
                            .combatants
                            .iter()
                            .find(|m| Some(m.index) == obs.acting_index)
                            .map(|m| &m.side)
            })
            .map(|c| c.pos)
            .collect();
        let score = |a: &Action| {
            let d = a.destination.unwrap();
            enemies
                .iter()
                .map(|e| (e.row - d.row).abs().max((e.col - d.col).abs()))
                .min()
                .unwrap_or(0)
        };
        if let Some(best) = legal
            .iter()
            .filter(|l| l.action.kind == ActionKind::Move && l.action.destination.is_some())
            .max_by_key(|l| (score(&l.action), std::cmp::Reverse(l.id)))
        {
            return vec![best.action.clone(), Action::new(ActionKind::EndTurn)];
        }
    }
    if let Some(shot) = legal.iter().find(|l| {
        l.action.kind == ActionKind::FullAttack
            && l.action.weapon.is_some_and(|w| {
                obs.combatants[obs.acting_index.unwrap() as usize].attacks[w].kind == "ranged"
            })
    }) {
        return vec![shot.action.clone()];
    }
    vec![Action::new(ActionKind::EndTurn)]
}

/// CRB — Combat: a 2v2 with movement around a pillar and rubble, a ranged attacker (the goblin
/// archer, played by a scripted external agent: range, cover, shooting into melee), attacks of
/// opportunity when it moves out of threatened squares, and a creature falling to dying.
#[test]
fn golden_skirmish_2v2() {
    let enc = common::encounter(
        "skirmish",
        &[
            ("west", &["orc", "goblin"]),
            ("east", &["hobgoblin", "wolf"]),
        ],
        RulesOptions::default(),
    );
    let controllers = [Controller::DefaultPolicy, Controller::External];
    golden_case(
        "skirmish_2v2",
        "orc + goblin (scripted agent) vs hobgoblin + wolf in the skirmish yard",
        enc,
        &controllers,
        Some(&skirmisher),
        &|t| {
            t.contains("attack of opportunity")
                && t.contains("short bow")
                && t.contains(": move ")
                && t.contains("is dying")
        },
    );
}

/// An encounter of `map_name` with one combatant a side, `edit` applied to the east one's
/// stat block.
fn duel_with(
    map_name: &str,
    west: &str,
    east: &str,
    edit: impl Fn(&mut pf1e_engine::CombatantSpec),
) -> Arc<Encounter> {
    let mut e = common::monster(east);
    edit(&mut e.1);
    let sides = vec![
        ("west".to_string(), vec![common::monster(west)]),
        ("east".to_string(), vec![e]),
    ];
    Arc::new(
        Encounter::build(common::map(map_name), sides, RulesOptions::default())
            .expect("encounter builds"),
    )
}

/// CRB — Combat: The Surprise Round. The skeleton is unaware: round 0 is a surprise round in
/// which only the aware orc acts, with a single standard or move action (no charge, no full
/// attack); the skeleton does not act and stays flat-footed; round 1 is a normal round.
#[test]
fn golden_surprise_round() {
    let enc = duel_with("duel", "orc", "human_skeleton", |s| s.aware = false);
    golden_case(
        "surprise_round",
        "orc vs an unaware human skeleton in the duel room",
        enc,
        &[],
        None,
        &|t| {
            t.contains("surprise round")
                && t.contains("unaware: no action in the surprise round")
                && t.contains("round 1 ")
        },
    );
}

/// The readier of the ready golden (the orc): at a readied trigger it fires; on its turn it
/// attacks in melee when it can, else readies an attack with its falchion on the first enemy
/// entering its reach, else ends the turn.
fn readier(ep: &Episode, _log: &mut String) -> Vec<Action> {
    let d = ep.decision().expect("a decision");
    if matches!(d.kind, pf1e_engine::DecisionKind::ReadiedTrigger { .. }) {
        return vec![Action::new(ActionKind::FireReadied)];
    }
    let legal = ep.legal_actions();
    if let Some(a) = legal.iter().find(|l| {
        matches!(l.action.kind, ActionKind::FullAttack | ActionKind::Attack)
            && l.action.weapon == Some(0)
    }) {
        return vec![a.action.clone()];
    }
    let ready = pf1e_engine::actions::ReadyTrigger::EnemyEntersReach { by: None };
    if let Some(a) = legal
        .iter()
        .find(|l| l.action.kind == ActionKind::Ready && l.action.trigger == Some(ready))
    {
        return vec![a.action.clone(), Action::new(ActionKind::EndTurn)];
    }
    vec![Action::new(ActionKind::EndTurn)]
}

/// CRB — Combat: Special Initiative Actions: Ready. The orc (an external agent) readies an
/// attack against an enemy entering its reach; the wolf's charge enters it: the readied
/// attack resolves first, at the square of the trigger, then the charge goes on (its attack, if
/// the wolf still stands), and the orc now acts just ahead of the wolf (S4b).
#[test]
fn golden_ready_interrupts_a_charge() {
    let enc = duel_with("duel", "orc", "wolf", |_| {});
    golden_case(
        "ready_interrupts_a_charge",
        "orc (readying agent) vs wolf in the duel room",
        enc,
        &[Controller::External, Controller::DefaultPolicy],
        Some(&readier),
        &|t| {
            let (Some(charge), Some(fires)) = (t.find(": charge "), t.find("readied action fires"))
            else {
                return false;
            };
            charge < fires
        },
    );
}

/// The delayer of the delay golden (the goblin): on its first turn, if the orc acts later in
/// the round, it delays until after the orc; otherwise it attacks when it can, else moves
/// toward the orc, else ends the turn.
fn delayer(ep: &Episode, _log: &mut String) -> Vec<Action> {
    let legal = ep.legal_actions();
    if ep.round() == 1 {
        if let Some(a) = legal
            .iter()
            .find(|l| l.action.kind == ActionKind::Delay && l.action.target.is_some())
        {
            return vec![a.action.clone()];
        }
    }
    if let Some(a) = legal
        .iter()
        .find(|l| matches!(l.action.kind, ActionKind::FullAttack | ActionKind::Attack))
    {
        return vec![a.action.clone()];
    }
    if let Some(a) = legal
        .iter()
        .find(|l| l.action.kind == ActionKind::Move && l.action.target.is_some())
    {
        return vec![a.action.clone()];
    }
    vec![Action::new(ActionKind::EndTurn)]
}

/// CRB — Combat: Special Initiative Actions: Delay. The goblin wins initiative and delays
/// until after the orc: the orc acts first, then the goblin's turn comes back (no start-of-turn
/// effects replayed), and from round 2 on the orc acts before it.
#[test]
fn golden_delay_swaps_the_order() {
    let enc = duel_with("duel", "goblin", "orc", |_| {});
    golden_case(
        "delay_swaps_the_order",
        "goblin (delaying agent) vs orc in the duel room",
        enc,
        &[Controller::External, Controller::DefaultPolicy],
        Some(&delayer),
        &|t| {
            t.contains("goblin: delays: acts after orc")
                && t.contains("goblin: acts after delaying")
                && t.contains("round 2 orc")
        },
    );
}

/// CRB — Combat: Two-Weapon Fighting; Feats: Two-Weapon Fighting, Double Slice. The dark
/// stalker (two short swords, light off-hand weapon, the feat) full-attacks with both hands at
/// −2/−2 (its printed +6/+6); Double Slice keeps the full Str bonus on the off-hand sword.
#[test]
fn golden_two_weapon_full_attack() {
    let enc = common::encounter(
        "duel",
        &[("west", &["dark_stalker"]), ("east", &["orc"])],
        RulesOptions::default(),
    );
    golden_case(
        "two_weapon_full_attack",
        "dark stalker (two-weapon fighting) vs orc in the duel room",
        enc,
        &[],
        None,
        &|t| {
            t.contains("[two-weapon fighting -2, off hand] -> HIT")
                && t.contains("short sword vs orc d20=")
        },
    );
}
