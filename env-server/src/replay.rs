//! The replay viewer: one episode as a self-contained HTML page (no server, no network: the
//! script and style are inline, the episode is embedded as JSON in a
//! `<script type="application/json" id="replay-data">` tag) that steps through it on the map —
//! terrain, a token per combatant (side colour, id), hp bars, the squares threatened by the
//! acting side, the transcript with its rolls, and forward / back / play controls.
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

use pf1e_engine::episode::LogLine;
use pf1e_engine::{
    CombatantId, Controller, DiceSource, Encounter, Episode, HistoryEntry, ReplayStop, WorkBudget,
};
use serde::Serialize;
use std::sync::Arc;

/// `format` of a replay document.
pub const REPLAY_FORMAT: &str = "pf1e-replay";
/// `version` of the replay document.
pub const REPLAY_VERSION: u32 = 1;

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
    let (ep, steps) = Episode::replay_with_steps_within(
        encounter.clone(),
        DiceSource::seeded(seed),
        controllers,
        history,
        budget,
    )?;
    let enc = &encounter;
    let obs = start.observation(None);
    let sides = enc.sides.clone();
    let units = enc
        .combatants
        .iter()
        .zip(&obs.combatants)
        .enumerate()
        .map(|(i, (p, o))| Unit {
            id: p.id.clone(),
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
    let mut frames = vec![frame_of(&start, 0, &sides)];
    let mut prev = 0;
    for s in &steps {
        let f = frame_of(s, prev, &sides);
        prev = f.lines.1;
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
    let units = obs
        .combatants
        .iter()
        .enumerate()
        .map(|(i, o)| {
            let id = CombatantId(i as u16);
            let pos = ep.position(id);
            UnitState {
                pos: [pos.row, pos.col],
                hp: ep.hp(id),
                life: serde_json::to_value(ep.life_state(id))
                    .ok()
                    .and_then(|v| v.as_str().map(str::to_string))
                    .unwrap_or_default(),
                conditions: o.conditions.keys().cloned().collect(),
            }
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
            ep.threatened_squares(&ids)
                .iter()
                .enumerate()
                .filter(|(_, t)| **t)
                .map(|(i, _)| i as u32)
                .collect()
        })
        .collect();
    Frame {
        round: ep.round(),
        lines,
        actor,
        units,
        threatened,
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
