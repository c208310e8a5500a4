//! The replay viewer: one episode as a self-contained HTML page (no server, no network: the
//! script and style are inline, the episode is embedded as JSON in a
//! `<script type="application/json" id="replay-data">` tag) that steps through it on the map —
//! terrain, a token per combatant (side colour, a label unique in the fight — [`labels`]),
//! hp bars, buffs and conditions, spell areas (each area as it is cast, and the persistent
//! ones while they last), the squares threatened by the acting side or by one selected
//! combatant, the transcript with its rolls, and forward / back / play controls (keys too).
//!
//! The page needs the state after every step, which neither the transcript nor the input
//! history stores: [`record`] replays the episode in the engine (deterministic: same
//! encounter, dice and history ⇒ the same episode) with [`Episode::replay_with_steps`] and
//! keeps one [`Frame`] per unit of resolution that added transcript lines (a turn's start,
//! one movement, one attack roll, one save…), plus the start (before initiative).
//!
//! The document ([`ReplayDoc`], format `pf1e-replay`, version [`REPLAY_VERSION`]) is what the
//! page reads; `pf1e-sim --replay-html` writes it for one seeded combat of an encounter and
//! `pf1e-sim replay TRANSCRIPT.json` for an ExportTranscript document (see
//! `docs/replay-viewer.md`).

use pf1e_engine::episode::{AreaCast, LogLine};
use pf1e_engine::{
    CombatantId, Controller, DiceSource, Encounter, Episode, HistoryEntry, ReplayStop, WorkBudget,
};
use serde::Serialize;
use std::sync::Arc;

/// `format` of a replay document.
pub const REPLAY_FORMAT: &str = "pf1e-replay";
/// `version` of the replay document.
pub const REPLAY_VERSION: u32 = 2;

/// The page template (`replay_viewer.html`); `/*REPLAY_DATA*/` is replaced by the document.
const TEMPLATE: &str = include_str!("replay_viewer.html");
/// The placeholder of the template.
const PLACEHOLDER: &str = "/*REPLAY_DATA*/";

/// One episode, ready for the page.
#[derive(Debug, Clone, Serialize)]
pub struct ReplayDoc {
    pub format: &'static str,
    pub version: u32,
    /// A title for the page ("sample_arena, seed 7").
    pub title: String,
    /// The episode's seed, when it has one.
    pub seed: Option<u64>,
    /// Map size in squares (one square = 5 ft).
    pub rows: i32,
    pub cols: i32,
    /// Terrain rows, one character per square (the map's legend keys).
    pub terrain: Vec<String>,
    /// The legend: per terrain character, its kind (`wall`, `floor`…) and whether it blocks
    /// movement (`move_cost` null), line of sight, or gives cover.
    pub legend: Vec<LegendEntry>,
    /// Side names, in the encounter's order (side `i` gets colour `i`).
    pub sides: Vec<String>,
    /// The combatants, list order (index = the engine's `CombatantId`).
    pub units: Vec<Unit>,
    /// The whole transcript (`round`, `actor`, `message`), rolls included as the engine
    /// writes them (`short sword vs orc d20=15+2=17 AC 13 -> HIT 4 damage (orc hp 6->2)`).
    pub log: Vec<LogLine>,
    /// Frame 0 is the start; frame `k` the state after step `k`.
    pub frames: Vec<Frame>,
    /// How the episode ended; `None` while it goes on (a transcript of a live episode).
    pub outcome: Option<OutcomeDoc>,
}

/// A terrain character of the map.
#[derive(Debug, Clone, Serialize)]
pub struct LegendEntry {
    pub ch: String,
    pub kind: String,
    /// Movement cost multiplier; `None`: impassable.
    pub move_cost: Option<u32>,
    pub blocks_los: bool,
    pub cover: bool,
}

/// A combatant's fixed facts.
#[derive(Debug, Clone, Serialize)]
pub struct Unit {
    pub id: String,
    /// The token's label ([`labels`]: `G2` for `goblin-2`; no two combatants of the episode
    /// share one, nor is one the start of another — `Wo1`/`Wi1`, not `W`/`W1`).
    pub label: String,
    pub name: String,
    /// Index into [`ReplayDoc::sides`].
    pub side: usize,
    pub hp_max: i32,
    /// Squares per footprint edge (1: Small/Medium, 2: Large…).
    pub footprint: i32,
    /// Played by an external agent (the transcript's `controlled`), else the default policy.
    pub external: bool,
}

/// The state after one step.
#[derive(Debug, Clone, Serialize)]
pub struct Frame {
    pub round: u32,
    /// The transcript lines of this step: `log[lines.0..lines.1]`.
    pub lines: (usize, usize),
    /// The combatant the step's lines are about (their `actor`), if any.
    pub actor: Option<usize>,
    /// Per combatant, list order.
    pub units: Vec<UnitState>,
    /// Per side ([`ReplayDoc::sides`] order): the squares (row-major `row * cols + col`) its
    /// conscious combatants threaten (melee reach, line of effect — CRB — Combat:
    /// Threatened Squares).
    pub threatened: Vec<Vec<u32>>,
    /// The persistent spell areas on the map after the step.
    pub zones: Vec<ZoneDoc>,
    /// The spell areas resolved during the step (their transcript lines are the step's).
    pub areas: Vec<AreaDoc>,
}

/// A combatant's state after a step.
#[derive(Debug, Clone, Serialize)]
pub struct UnitState {
    /// Top-left square `[row, col]`.
    pub pos: [i32; 2],
    pub hp: i32,
    /// `healthy`, `disabled`, `dying`, `stable`, `unconscious`, `dead` (the engine's
    /// `LifeState`, snake_case).
    pub life: String,
    /// Active condition names (`prone`, `grappled`, `shaken`…).
    pub conditions: Vec<String>,
    /// What is on it: its conditions, then its spell effects (buffs and debuffs: `bless`,
    /// `mage armor`, `sickened`…), with rounds left.
    pub effects: Vec<EffectState>,
    /// The squares it threatens (row-major `row * cols + col`; CRB — Combat: Threatened
    /// Squares), empty when it threatens none (unconscious, no melee weapon…).
    pub threatens: Vec<u32>,
}

/// A condition or a spell effect on a combatant.
#[derive(Debug, Clone, Serialize)]
pub struct EffectState {
    pub name: String,
    /// `condition` (the engine's conditions) or `spell` (the seed's `active_buffs`: buffs
    /// and debuffs from spells).
    pub kind: &'static str,
    /// Rounds left; `None`: no fixed duration.
    pub rounds: Option<u32>,
}

/// A persistent spell area on the map (web, fog cloud, obscuring mist… — the engine's
/// `rules::magic::Zone`, the observation's `spell_areas`).
#[derive(Debug, Clone, Serialize)]
pub struct ZoneDoc {
    pub spell: String,
    /// Its caster's unit index.
    pub caster: usize,
    /// Its squares (row-major `row * cols + col`).
    pub cells: Vec<u32>,
    /// Its caster's turns left.
    pub rounds_left: u32,
    /// The condition it gives a creature inside, if any (`entangled`…).
    pub condition: Option<String>,
    /// It gives concealment.
    pub concealment: bool,
}

/// A spell area resolved during a step (a burst, a cone, a line… — the engine's
/// [`AreaCast`]): drawn at the step of its transcript line.
#[derive(Debug, Clone, Serialize)]
pub struct AreaDoc {
    pub spell: String,
    /// Its caster's unit index.
    pub caster: usize,
    /// `burst`, `spread`, `emanation`, `cone`, `line` or `cylinder`.
    pub shape: String,
    /// Radius (burst-like) or length (cone, line), in feet.
    pub size_ft: u32,
    /// A burst-like area's origin: the grid intersection `[row, col]` (square lines from
    /// the top-left edge); `None` for a cone or a line.
    pub origin: Option<[i32; 2]>,
    /// A cone's or a line's aimed square `[row, col]`.
    pub toward: Option<[i32; 2]>,
    /// Its squares (row-major `row * cols + col`).
    pub cells: Vec<u32>,
    /// Index in `log` of its transcript line (`fireball: 9 squares, affects …`).
    pub line: usize,
}

/// How the episode ended.
#[derive(Debug, Clone, Serialize)]
pub struct OutcomeDoc {
    /// The winning side, `None` for a draw.
    pub winner: Option<String>,
    pub rounds: u32,
    /// Ended by the round cap (a draw).
    pub truncated: bool,
}

/// Replay an episode (its encounter, seed, controllers and input history) step by step and
/// build its document, within `budget` (a transcript is client data: it may ask for a combat
/// that never ends; the budget also bounds the steps kept in memory).
///
/// # Errors
/// [`ReplayStop::Mismatch`] naming the history entry that does not replay (`history entry 3:
/// …`); [`ReplayStop::Interrupted`] when the budget stopped the replay.
pub fn record(
    encounter: Arc<Encounter>,
    seed: u64,
    controllers: &[Controller],
    history: &[HistoryEntry],
    title: String,
    budget: &mut WorkBudget,
) -> Result<(ReplayDoc, Episode), ReplayStop> {
    let start = Episode::with_dice(encounter.clone(), DiceSource::seeded(seed), controllers);
    let (ep, steps, casts) = Episode::replay_with_steps_and_areas_within(
        encounter.clone(),
        DiceSource::seeded(seed),
        controllers,
        history,
        budget,
    )?;
    let enc = &encounter;
    let obs = start.observation(None);
    let sides = enc.sides.clone();
    let ids: Vec<String> = enc.combatants.iter().map(|p| p.id.clone()).collect();
    let labels = labels(&ids);
    let units = enc
        .combatants
        .iter()
        .zip(&obs.combatants)
        .zip(labels)
        .enumerate()
        .map(|(i, ((p, o), label))| Unit {
            id: p.id.clone(),
            label,
            name: p.spec.name.clone(),
            side: sides.iter().position(|s| *s == p.side).unwrap_or(0),
            hp_max: o.hp_max,
            footprint: (o.occupied_cells.len().max(1) as f64).sqrt().round() as i32,
            external: controllers.get(i) == Some(&Controller::External),
        })
        .collect();
    let mut legend: Vec<LegendEntry> = obs
        .terrain_semantics
        .iter()
        .map(|(ch, t)| LegendEntry {
            ch: ch.clone(),
            kind: t.kind.clone(),
            move_cost: t.move_cost,
            blocks_los: t.blocks_los,
            cover: t.cover,
        })
        .collect();
    legend.sort_by(|a, b| a.ch.cmp(&b.ch));
    let cols = enc.map.cols;
    let mut frames = vec![frame_of(&start, 0, &sides)];
    let mut prev = 0;
    for s in &steps {
        let mut f = frame_of(s, prev, &sides);
        prev = f.lines.1;
        f.areas = casts
            .iter()
            .filter(|c| c.line >= f.lines.0 && c.line < f.lines.1)
            .map(|c| area_doc(c, cols))
            .collect();
        frames.push(f);
    }
    let doc = ReplayDoc {
        format: REPLAY_FORMAT,
        version: REPLAY_VERSION,
        title,
        seed: Some(seed),
        rows: enc.map.rows,
        cols: enc.map.cols,
        terrain: obs.terrain.clone(),
        legend,
        sides,
        units,
        log: ep.transcript().to_vec(),
        frames,
        outcome: ep.outcome().map(|o| OutcomeDoc {
            winner: o.winner.clone(),
            rounds: o.rounds,
            truncated: o.truncated,
        }),
    };
    Ok((doc, ep))
}

/// Token labels for the combatants `ids` (list order): short, and unambiguous — no two
/// equal, none the start of another (so `W` for a wolf beside `W1` for witch_1 cannot
/// happen).
///
/// A label is an abbreviation of the id's stem (the id without the engine's `-N`
/// disambiguation: `goblin-2` → `goblin`) followed, when the stem names several combatants,
/// by its number padded to the group's width (`goblin` → `G1`, `goblin-2` → `G2`;
/// `G01`…`G12` past nine). The abbreviation starts as the words' initials (`green_hag` → `GH`,
/// `cleric_3` → `C3`, `wolf` → `W`) and, while two stems' labels are equal or one starts
/// another, both take one more letter of their first word (`witch_1` → `Wi1`, `wolf` →
/// `Wo`). A number joins an abbreviation ending in a digit with `-` (`C3-2`). Stems that
/// cannot be told apart this way (the whole first word used) get their full id, ended by a
/// dot where it is the start of another (`orc.` beside `orc_chief`). Simplification: ids
/// that themselves continue with a dot are not considered.
pub fn labels(ids: &[String]) -> Vec<String> {
    // (stem, number) per id.
    let parsed: Vec<(String, u32)> = ids
        .iter()
        .map(|id| match id.rsplit_once('-') {
            Some((stem, n))
                if !stem.is_empty() && !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) =>
            {
                (stem.to_string(), n.parse().unwrap_or(1))
            }
            _ => (id.clone(), 1),
        })
        .collect();
    let mut stems: Vec<String> = parsed.iter().map(|(s, _)| s.clone()).collect();
    stems.sort();
    stems.dedup();
    let words = |stem: &str| -> Vec<String> {
        stem.split(|c: char| c == '_' || c == '-' || c.is_whitespace())
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect()
    };
    let abbrev = |stem: &str, k: usize| -> String {
        let ws = words(stem);
        let Some(first) = ws.first() else {
            return stem.to_string();
        };
        let mut out: String = first
            .chars()
            .take(k)
            .enumerate()
            .map(|(i, c)| {
                if i == 0 {
                    c.to_ascii_uppercase()
                } else {
                    c.to_ascii_lowercase()
                }
            })
            .collect();
        for w in &ws[1..] {
            if w.chars().all(|c| c.is_ascii_digit()) {
                out.push_str(w);
            } else if let Some(c) = w.chars().next() {
                out.push(c.to_ascii_uppercase());
            }
        }
        out
    };
    let first_len = |stem: &str| words(stem).first().map_or(0, |w| w.chars().count());
    // Letters of the first word taken, per stem; `None`: the full id is used.
    let mut k: Vec<Option<usize>> = vec![Some(1); stems.len()];
    let stem_of = |i: usize| stems.iter().position(|s| *s == parsed[i].0).unwrap_or(0);
    let group_width = |stem: &str| {
        let members: Vec<u32> = parsed
            .iter()
            .filter(|(s, _)| s == stem)
            .map(|(_, n)| *n)
            .collect();
        (members.len() > 1).then(|| members.iter().max().unwrap_or(&1).to_string().len())
    };
    let build = |k: &[Option<usize>]| -> Vec<String> {
        (0..ids.len())
            .map(|i| {
                let si = stem_of(i);
                let Some(k) = k[si] else {
                    return ids[i].clone();
                };
                let abbr = abbrev(&stems[si], k);
                match group_width(&stems[si]) {
                    None => abbr,
                    Some(w) => {
                        let sep = if abbr.ends_with(|c: char| c.is_ascii_digit()) {
                            "-"
                        } else {
                            ""
                        };
                        format!("{abbr}{sep}{:0w$}", parsed[i].1)
                    }
                }
            })
            .collect()
    };
    loop {
        let out = build(&k);
        let mut clash = vec![false; stems.len()];
        for i in 0..out.len() {
            for j in 0..out.len() {
                if i != j && out[j].starts_with(out[i].as_str()) {
                    clash[stem_of(i)] = true;
                    clash[stem_of(j)] = true;
                }
            }
        }
        if !clash.contains(&true) {
            return out;
        }
        let mut changed = false;
        for (si, c) in clash.iter().enumerate() {
            if !c {
                continue;
            }
            k[si] = match k[si] {
                Some(n) if n < first_len(&stems[si]) => Some(n + 1),
                Some(_) => None,
                None => continue,
            };
            changed = true;
        }
        if !changed {
            // Full ids, one the start of another (`orc`, `orc_chief`): the shorter ends
            // with a dot (`orc.`), which no id continues.
            let ended: Vec<String> = out
                .iter()
                .enumerate()
                .map(|(i, l)| {
                    let starts_another =
                        (0..out.len()).any(|j| j != i && out[j].starts_with(l.as_str()));
                    if starts_another {
                        format!("{l}.")
                    } else {
                        l.clone()
                    }
                })
                .collect();
            return ended;
        }
    }
}

/// The document of a recorded area, on a map of `cols` columns.
fn area_doc(c: &AreaCast, cols: i32) -> AreaDoc {
    AreaDoc {
        spell: c.spell.clone(),
        caster: c.caster.0 as usize,
        shape: c.shape.clone(),
        size_ft: c.size_ft,
        origin: c.origin,
        toward: c.toward.map(|t| [t.row, t.col]),
        cells: c
            .cells
            .iter()
            .map(|p| (p.row * cols + p.col) as u32)
            .collect(),
        line: c.line,
    }
}

/// The frame of `ep` (a step copy), its lines from `from` to the end of its transcript.
fn frame_of(ep: &Episode, from: usize, sides: &[String]) -> Frame {
    let enc = ep.encounter();
    let log = ep.transcript();
    let lines = (from.min(log.len()), log.len());
    let actor = log[lines.0..lines.1]
        .iter()
        .rev()
        .find_map(|l| l.actor.as_deref())
        .and_then(|a| enc.combatants.iter().position(|p| p.id == a));
    let obs = ep.observation(None);
    let cols = enc.map.cols;
    let squares = |flags: Vec<bool>| -> Vec<u32> {
        flags
            .iter()
            .enumerate()
            .filter(|(_, t)| **t)
            .map(|(i, _)| i as u32)
            .collect()
    };
    let units = obs
        .combatants
        .iter()
        .enumerate()
        .map(|(i, o)| {
            let id = CombatantId(i as u16);
            let pos = ep.position(id);
            let effects = o
                .conditions
                .iter()
                .map(|(n, r)| EffectState {
                    name: n.clone(),
                    kind: "condition",
                    rounds: *r,
                })
                .chain(o.active_buffs.iter().map(|(n, r)| EffectState {
                    name: n.clone(),
                    kind: "spell",
                    rounds: Some(*r),
                }))
                .collect();
            UnitState {
                pos: [pos.row, pos.col],
                hp: ep.hp(id),
                life: serde_json::to_value(ep.life_state(id))
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default(),
                conditions: o.conditions.keys().cloned().collect(),
                effects,
                threatens: squares(ep.threatened_squares(&[id])),
            }
        })
        .collect();
    let index_of = |id: &str| enc.combatants.iter().position(|p| p.id == id).unwrap_or(0);
    let zones = obs
        .spell_areas
        .iter()
        .map(|z| ZoneDoc {
            spell: z.spell.clone(),
            caster: index_of(&z.caster),
            cells: z
                .cells
                .iter()
                .map(|p| (p.row * cols + p.col) as u32)
                .collect(),
            rounds_left: z.rounds_left,
            condition: z.condition.clone(),
            concealment: z.concealment,
        })
        .collect();
    let threatened = sides
        .iter()
        .map(|side| {
            let ids: Vec<CombatantId> = enc
                .combatants
                .iter()
                .enumerate()
                .filter(|(_, p)| p.side == *side)
                .map(|(i, _)| CombatantId(i as u16))
                .collect();
            squares(ep.threatened_squares(&ids))
        })
        .collect();
    Frame {
        round: ep.round(),
        lines,
        actor,
        units,
        threatened,
        zones,
        areas: Vec::new(),
    }
}

/// The page of `doc`: the template with the document embedded as JSON (`</` written `<\/`,
/// so no string of the episode can close the script element).
pub fn render_html(doc: &ReplayDoc) -> String {
    let json = serde_json::to_string(doc)
        .expect("a replay document always serializes")
        .replace("</", "<\\/")
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029");
    TEMPLATE.replacen(PLACEHOLDER, &json, 1)
}

#[cfg(test)]
mod tests {
    use super::labels;

    fn of(ids: &[&str]) -> Vec<String> {
        labels(&ids.iter().map(|s| s.to_string()).collect::<Vec<_>>())
    }

    /// No label equal to another or the start of another.
    fn prefix_free(l: &[String]) -> bool {
        (0..l.len()).all(|i| (0..l.len()).all(|j| i == j || !l[j].starts_with(l[i].as_str())))
    }

    #[test]
    fn labels_tell_a_wolf_from_a_witch() {
        // The case: "W" (wolf) and "W1" (witch_1).
        let l = of(&["witch_1", "wolf", "cleric_3"]);
        assert_eq!(l, ["Wi1", "Wo", "C3"]);
        let l = of(&["wolf", "wolf-2", "witch_1"]);
        assert_eq!(l, ["Wo1", "Wo2", "Wi1"]);
        assert!(prefix_free(&l));
    }

    #[test]
    fn labels_number_the_members_of_a_group() {
        assert_eq!(
            of(&["goblin", "goblin-2", "goblin-3", "orc", "orc-2"]),
            ["G1", "G2", "G3", "O1", "O2"]
        );
        assert_eq!(
            of(&[
                "cleric_3",
                "wizard_5",
                "sorcerer_4",
                "druid_3",
                "green_hag",
                "ogre",
                "ogre-2"
            ]),
            ["C3", "W5", "S4", "D3", "GH", "O1", "O2"]
        );
        // Past nine: padded, so that G1 is not the start of G10.
        let many: Vec<String> = std::iter::once("goblin".to_string())
            .chain((2..=12).map(|n| format!("goblin-{n}")))
            .collect();
        let l = labels(&many);
        assert_eq!(l[0], "G01");
        assert_eq!(l[11], "G12");
        assert!(prefix_free(&l));
        // A number after a digit is set off.
        assert_eq!(of(&["cleric_3", "cleric_3-2"]), ["C3-1", "C3-2"]);
    }

    #[test]
    fn labels_fall_back_to_ids_that_cannot_be_shortened_apart() {
        let l = of(&["orc", "orc_chief", "ogre", "ogre_mage"]);
        assert_eq!(l, ["orc.", "orc_chief", "ogre.", "ogre_mage"]);
        assert!(prefix_free(&l), "{l:?}");
        let l = of(&["bat", "bat_swarm", "bandit"]);
        assert!(prefix_free(&l), "{l:?}");
    }
}
