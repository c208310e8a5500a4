//! Fixed-shape numeric observations for reinforcement learning (OpenSpiel's
//! `ObservationTensor`): grid planes plus per-combatant features, and the action mask.
//!
//! Shapes are fixed per encounter: planes `[PLANES, rows, cols]` and features
//! `[combatants, FEATURES]`, both `f32`, row-major. Everything is relative to the **viewer**
//! (the deciding combatant: allies/enemies, "me"). Every value lies within exact bounds:
//! feature `k` within [`FEATURE_BOUNDS`]`[k]` (the same for every row; [`build`] clamps into
//! it), plane `p` within [`plane_bounds`]`(enc)[p]` (exact by construction).
//!
//! The features of a row, in groups (indices never move: new groups are appended):
//! - `0..FIRST_MAGIC_FEATURE`: the combatant's state (hit points, life state, position, AC,
//!   the toggles and per-turn flags of the rules);
//! - `FIRST_MAGIC_FEATURE..FIRST_RELATION_FEATURE`: magic (caster level, slots and uses left…);
//! - `FIRST_RELATION_FEATURE..` (`rel_`): the viewer's relation to this row's combatant, the
//!   numbers of the JSON observation's `pairs` (one source: `observation::pair`); all 0 in the
//!   viewer's own row and in the rows of the dead and absent (`rel_valid` = 0);
//! - `FIRST_CONDITION_FEATURE..` (`cond_`): a multi-hot of every condition
//!   ([`Condition::ALL`] order, CRB — Appendix: Conditions);
//! - `FIRST_BUDGET_FEATURE..` (`budget_`, `decision_`): the viewer's remaining turn budget and
//!   the pending decision's kind, in the viewer's own row only (0 elsewhere, and 0 when the
//!   pending decision is not the viewer's);
//! - `FIRST_ROUND_FEATURE..`: the round and round cap, the same in every row;
//! - `FIRST_WEAPON_FEATURE..` (`weapon<k>_`): [`WEAPON_SLOTS`] slots of
//!   [`WEAPON_FEATURES`] values, the combatant's attacks in list order (0 in absent slots;
//!   attacks past the last slot are not described).

use crate::actions::CombatantId;
use crate::effects::conditions::Condition;
use crate::episode::{Episode, LifeState};
use crate::geometry::grid::Cell;
use crate::observe::observation::{pair, PairFields};
use serde::Serialize;

/// Names of the grid planes, in order.
pub const PLANE_NAMES: [&str; 10] = [
    "passable",
    "difficult_terrain",
    "blocks_line_of_effect",
    "cover_bonus_div_8",
    "elevation_div_9",
    "me",
    "allies",
    "enemies",
    "threatened_by_enemies",
    "dying_or_stable",
];

/// Names of the per-combatant features, in order.
pub const FEATURE_NAMES: [&str; 155] = [
    "present",
    "is_me",
    "is_ally",
    "conscious",
    "hp_fraction",
    "hp_div_100",
    "disabled",
    "dying",
    "stable",
    "dead",
    "row_fraction",
    "col_fraction",
    "ac_div_30",
    "flat_footed",
    "charging",
    "aoo_remaining",
    "speed_div_60",
    "acts_before_me_this_round",
    "prone",
    "cannot_act",
    "denied_dex_to_ac",
    "concealment_div_100",
    "afraid",
    "sneak_dice_div_10",
    "cmb_div_20",
    "cmd_div_40",
    "power_attack",
    "grappled",
    "pinned",
    "grapple_controller",
    "running",
    "weapon_dropped",
    "weapon_broken",
    "total_defense",
    "fight_defensively",
    "defensive_ac_bonus_div_4",
    "readied",
    "readied_on_entry",
    "delayed",
    "immediate_used",
    "aware",
    "lunge",
    "cleaving",
    "stood_still",
    "deadly_aim",
    "combat_expertise",
    "combat_expertise_ac_bonus_div_4",
    "aid_attack_bonus_div_4",
    "aid_ac_bonus_div_4",
    "weapon_sheathed",
    "caster_level_div_20",
    "spell_slots_left_fraction",
    "spell_uses_left_fraction",
    "pending_cast",
    "held_charge",
    "active_buffs_div_10",
    "mirror_images_div_8",
    "absent",
    "summon_rounds_left_div_20",
    "cast_defensively",
    "spell_resistance_div_40",
    "rel_valid",
    "rel_enemy",
    "rel_distance_div_120",
    "rel_line_of_effect",
    "rel_can_attack_now",
    "rel_range_penalty_div_10",
    "rel_cover_bonus_div_8",
    "rel_flanking",
    "rel_can_charge",
    "rel_can_5foot_step_to_attack",
    "rel_reachable_to_attack",
    "rel_move_cost_to_attack_div_120",
    "rel_threatens_me",
    "rel_i_threaten",
    "cond_shaken",
    "cond_sickened",
    "cond_fatigued",
    "cond_exhausted",
    "cond_entangled",
    "cond_dazzled",
    "cond_blinded",
    "cond_deafened",
    "cond_flat_footed",
    "cond_prone",
    "cond_stunned",
    "cond_paralyzed",
    "cond_nauseated",
    "cond_dazed",
    "cond_staggered",
    "cond_frightened",
    "cond_panicked",
    "cond_cowering",
    "cond_helpless",
    "cond_fascinated",
    "cond_invisible",
    "cond_bleeding",
    "cond_confused",
    "cond_bane",
    "cond_grappled",
    "cond_pinned",
    "cond_blurred",
    "cond_displaced",
    "cond_asleep",
    "budget_standard",
    "budget_move",
    "budget_swift",
    "budget_full_round",
    "budget_five_foot_step",
    "budget_immediate",
    "decision_turn_action",
    "decision_reaction",
    "round_fraction",
    "rounds_left_fraction",
    "surprise_round",
    "weapon0_present",
    "weapon0_ranged",
    "weapon0_natural",
    "weapon0_reach_div_30",
    "weapon0_range_increment_div_120",
    "weapon0_ammunition_left_fraction",
    "weapon0_usable",
    "weapon0_broken",
    "weapon0_attack_bonus_div_30",
    "weapon0_average_damage_div_30",
    "weapon1_present",
    "weapon1_ranged",
    "weapon1_natural",
    "weapon1_reach_div_30",
    "weapon1_range_increment_div_120",
    "weapon1_ammunition_left_fraction",
    "weapon1_usable",
    "weapon1_broken",
    "weapon1_attack_bonus_div_30",
    "weapon1_average_damage_div_30",
    "weapon2_present",
    "weapon2_ranged",
    "weapon2_natural",
    "weapon2_reach_div_30",
    "weapon2_range_increment_div_120",
    "weapon2_ammunition_left_fraction",
    "weapon2_usable",
    "weapon2_broken",
    "weapon2_attack_bonus_div_30",
    "weapon2_average_damage_div_30",
    "weapon3_present",
    "weapon3_ranged",
    "weapon3_natural",
    "weapon3_reach_div_30",
    "weapon3_range_increment_div_120",
    "weapon3_ammunition_left_fraction",
    "weapon3_usable",
    "weapon3_broken",
    "weapon3_attack_bonus_div_30",
    "weapon3_average_damage_div_30",
];

/// The first feature of the magic group (`caster_level_div_20` … `spell_resistance_div_40`):
/// each of these is exactly within `[0, 1]` (ratios clamped).
pub const FIRST_MAGIC_FEATURE: usize = 50;

/// Per plane: every value of plane `p` is an integer 0–255 divided by `PLANE_DIVISORS[p]`
/// (float32 division): cover bonus / 8, elevation level / 9, the other planes 0 or 1. So a
/// plane travels exactly as one byte per value ([`TensorObservation::planes_u8`]).
pub const PLANE_DIVISORS: [u8; PLANES] = [1, 1, 1, 8, 9, 1, 1, 1, 1, 1];

/// Number of grid planes.
pub const PLANES: usize = PLANE_NAMES.len();
/// The first `TERRAIN_PLANES` planes depend on the map only (passable … elevation): the same
/// in every observation of an encounter.
pub const TERRAIN_PLANES: usize = 5;

/// The terrain planes of `enc`'s map, `[TERRAIN_PLANES, rows, cols]`, one byte per value
/// ([`planes_to_u8`] encoding): planes `0..TERRAIN_PLANES` of every observation.
pub fn terrain_planes_u8(enc: &crate::Encounter) -> Vec<u8> {
    let grid = &enc.grid;
    let cells = (grid.rows.max(0) * grid.cols.max(0)) as usize;
    let mut out = vec![0u8; TERRAIN_PLANES * cells];
    planes_to_u8(terrain_planes(grid), cells, &mut out);
    out
}

/// Planes `0..TERRAIN_PLANES` of `grid` (built once per map, then shared).
fn terrain_planes(grid: &crate::geometry::grid::Grid) -> &[f32] {
    let cells = (grid.rows.max(0) * grid.cols.max(0)) as usize;
    grid.terrain_planes.get_or_init(|| {
        let mut t = vec![0f32; TERRAIN_PLANES * cells];
        for i in 0..cells.min(grid.move_cost.len()) {
            let cost = grid.move_cost[i];
            t[i] = f32::from(u8::from(cost > 0));
            t[cells + i] = f32::from(u8::from(cost > 1));
            t[2 * cells + i] = f32::from(u8::from(grid.blocks_los[i]));
            t[3 * cells + i] = f32::from(grid.cover_bonus[i]) / 8.0;
            t[4 * cells + i] = grid.elevation[i] as f32 / 9.0;
        }
        t
    })
}
/// Number of features per combatant.
pub const FEATURES: usize = FEATURE_NAMES.len();

/// The first relation feature (`rel_valid` … `rel_i_threaten`): the viewer's relation to the
/// row's combatant, each within `[0, 1]`.
pub const FIRST_RELATION_FEATURE: usize = 61;
/// The first condition feature (`cond_shaken` …): one per [`Condition::ALL`], 0 or 1.
pub const FIRST_CONDITION_FEATURE: usize = FIRST_RELATION_FEATURE + 14;
/// The first budget feature (`budget_standard` … `decision_reaction`), viewer's row only.
pub const FIRST_BUDGET_FEATURE: usize = FIRST_CONDITION_FEATURE + Condition::ALL.len();
/// The first round feature (`round_fraction`, `rounds_left_fraction`, `surprise_round`).
pub const FIRST_ROUND_FEATURE: usize = FIRST_BUDGET_FEATURE + 8;
/// The first weapon feature (`weapon0_present`).
pub const FIRST_WEAPON_FEATURE: usize = FIRST_ROUND_FEATURE + 3;
/// Weapon slots per row (the spec's `ObservationSchema.weapon_slots`).
pub const WEAPON_SLOTS: usize = 4;
/// Features per weapon slot (`present` … `average_damage_div_30`).
pub const WEAPON_FEATURES: usize = 10;

/// Exact bounds `[low, high]` of every feature, in [`FEATURE_NAMES`] order, the same for every
/// row: [`build`] clamps each value into them. Most are `[0, 1]` (flags, fractions, ratios
/// clamped). The others, each a documented clamp wide enough for the Bestiary and the Core
/// Rulebook's characters (values outside are clamped, not wrapped):
/// - `hp_fraction` `[-1, 1]` (current / maximum hit points, negative while dying);
/// - `hp_div_100` `[-1, 10]` (−100 … 1,000 hit points);
/// - `ac_div_30` `[0, 3]` (AC 0 … 90); `cmd_div_40` `[0, 3]` (CMD 0 … 120);
/// - `aoo_remaining` `[0, 16]` (attacks of opportunity left this round; Combat Reflexes:
///   1 + Dex modifier);
/// - `speed_div_60` `[0, 4]` (0 … 240 ft); `sneak_dice_div_10` `[0, 2]` (0 … 20d6);
/// - `cmb_div_20` `[-1, 4]` (CMB −20 … +80);
/// - `defensive_ac_bonus_div_4`, `combat_expertise_ac_bonus_div_4` `[0, 2]` (0 … +8 dodge);
/// - `aid_attack_bonus_div_4`, `aid_ac_bonus_div_4` `[0, 4]` (0 … +16: eight aids of +2);
/// - `weapon<k>_reach_div_30` `[0, 2]` (0 … 60 ft), `weapon<k>_range_increment_div_120`
///   `[0, 2]` (0 … 240 ft);
/// - `weapon<k>_attack_bonus_div_30` `[-0.5, 2]` (−15 … +60);
///   `weapon<k>_average_damage_div_30` `[0, 4]` (0 … 120 average damage per hit).
pub const FEATURE_BOUNDS: [(f32, f32); FEATURES] = feature_bounds();

const fn feature_bounds() -> [(f32, f32); FEATURES] {
    let mut b = [(0.0f32, 1.0f32); FEATURES];
    b[4] = (-1.0, 1.0); // hp_fraction
    b[5] = (-1.0, 10.0); // hp_div_100
    b[12] = (0.0, 3.0); // ac_div_30
    b[15] = (0.0, 16.0); // aoo_remaining
    b[16] = (0.0, 4.0); // speed_div_60
    b[23] = (0.0, 2.0); // sneak_dice_div_10
    b[24] = (-1.0, 4.0); // cmb_div_20
    b[25] = (0.0, 3.0); // cmd_div_40
    b[35] = (0.0, 2.0); // defensive_ac_bonus_div_4
    b[46] = (0.0, 2.0); // combat_expertise_ac_bonus_div_4
    b[47] = (0.0, 4.0); // aid_attack_bonus_div_4
    b[48] = (0.0, 4.0); // aid_ac_bonus_div_4
    let mut k = 0;
    while k < WEAPON_SLOTS {
        let w = FIRST_WEAPON_FEATURE + k * WEAPON_FEATURES;
        b[w + 3] = (0.0, 2.0); // reach_div_30
        b[w + 4] = (0.0, 2.0); // range_increment_div_120
        b[w + 8] = (-0.5, 2.0); // attack_bonus_div_30
        b[w + 9] = (0.0, 4.0); // average_damage_div_30
        k += 1;
    }
    b
}

/// Exact bounds `[low, high]` of every plane of `enc`'s observations, in [`PLANE_NAMES`]
/// order: `[0, 1]` for the 0/1 planes; `cover_bonus_div_8` `[0, max(8, the map's highest
/// cover bonus) / 8]`; `elevation_div_9` `[0, max(9, the map's highest level) / 9]` (so
/// `[0, 1]` unless a map goes above level 9: never low = high, which Gymnasium's checker
/// warns about for a flat map). Each value is also a byte / [`PLANE_DIVISORS`]
/// ([`planes_to_u8`]).
pub fn plane_bounds(enc: &crate::Encounter) -> Vec<(f32, f32)> {
    let grid = &enc.grid;
    let cover = grid.cover_bonus.iter().copied().max().unwrap_or(0).max(8);
    let level = grid
        .elevation
        .iter()
        .copied()
        .max()
        .unwrap_or(0)
        .clamp(i32::from(PLANE_DIVISORS[4]), 255);
    let mut b = vec![(0.0f32, 1.0f32); PLANES];
    b[3] = (0.0, f32::from(cover) / f32::from(PLANE_DIVISORS[3]));
    b[4] = (0.0, level as f32 / f32::from(PLANE_DIVISORS[4]));
    b
}

/// A tensor observation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TensorObservation {
    /// `[PLANES, rows, cols]`.
    pub plane_shape: [usize; 3],
    pub planes: Vec<f32>,
    /// `[combatants, FEATURES]`, combatants in list order.
    pub feature_shape: [usize; 2],
    pub features: Vec<f32>,
}

impl TensorObservation {
    /// The planes as one byte per value, `[PLANES, rows, cols]` (see [`planes_to_u8`]).
    pub fn planes_u8(&self) -> Vec<u8> {
        let mut out = vec![0; self.planes.len()];
        planes_to_u8(
            &self.planes,
            self.plane_shape[1] * self.plane_shape[2],
            &mut out,
        );
        out
    }
}

/// Encode planes `[PLANES, rows, cols]` (`cells_per_plane` = rows × cols values each) as one
/// byte per value into `out` (same length): value × divisor ([`PLANE_DIVISORS`]). Exact:
/// `byte as f32 / divisor as f32` gives back the value bit for bit (the planes are built as
/// such divisions).
///
/// # Panics
/// If `out` is shorter than `planes`.
pub fn planes_to_u8(planes: &[f32], cells_per_plane: usize, out: &mut [u8]) {
    assert!(out.len() >= planes.len(), "output shorter than the planes");
    let per = cells_per_plane.max(1);
    for (p, (src, dst)) in planes.chunks(per).zip(out.chunks_mut(per)).enumerate() {
        let d = f32::from(PLANE_DIVISORS[p.min(PLANES - 1)]);
        for (&v, b) in src.iter().zip(dst.iter_mut()) {
            // Round half up; `as u8` saturates (negative and NaN → 0, above 255 → 255). For
            // the non-negative values planes hold this is `round()`, without its libm call.
            *b = (v * d + 0.5) as u8;
            debug_assert_eq!(f32::from(*b) / d, v, "plane value {v} is not byte / {d}");
        }
    }
}

/// Build the tensor observation for `viewer`.
pub(crate) fn build(ep: &Episode, viewer: CombatantId) -> TensorObservation {
    let enc = ep.encounter();
    let grid = &enc.grid;
    let (rows, cols) = (grid.rows as usize, grid.cols as usize);
    let cells = rows * cols;
    let mut planes = vec![0f32; PLANES * cells];
    let at = |p: usize, c: Cell| p * cells + c.row as usize * cols + c.col as usize;
    // The terrain planes: built once per map, copied.
    planes[..TERRAIN_PLANES * cells].copy_from_slice(terrain_planes(grid));
    let enemies: Vec<CombatantId> = ep.ids().filter(|&x| ep.enemies(viewer, x)).collect();
    let threatened = crate::rules::reach::threatened_squares(ep, &enemies);
    for (i, &t) in threatened.iter().enumerate().take(cells) {
        if t {
            planes[8 * cells + i] = 1.0;
        }
    }
    for x in ep.ids() {
        let life = ep.life_state(x);
        let plane = if life == LifeState::Dead {
            continue;
        } else if !life.is_conscious() {
            9
        } else if x == viewer {
            5
        } else if ep.enemies(viewer, x) {
            7
        } else {
            6
        };
        for cell in ep.cells_iter(x) {
            if grid.in_bounds(cell) {
                planes[at(plane, cell)] = 1.0;
            }
        }
    }
    let n = enc.combatants.len();
    let mut features = vec![0f32; n * FEATURES];
    let order = ep.initiative_order();
    let cap = enc.options.round_cap.max(1);
    let round_fraction = (ep.round() as f32 / cap as f32).clamp(0.0, 1.0);
    let surprise = ep.in_surprise_round();
    let my_slot = order.iter().position(|&c| c == viewer);
    for x in ep.ids() {
        let i = x.0 as usize;
        let spec = ep.spec(x);
        let st = &ep.st[i];
        let f = &mut features[i * FEATURES..(i + 1) * FEATURES];
        let b = |v: bool| f32::from(u8::from(v));
        let slot = order.iter().position(|&c| c == x);
        f[0] = 1.0;
        f[1] = b(x == viewer);
        f[2] = b(!ep.enemies(viewer, x));
        f[3] = b(st.life.is_conscious());
        f[4] = (st.hp as f32 / spec.max_hp().max(1) as f32).clamp(-1.0, 1.0);
        f[5] = st.hp as f32 / 100.0;
        f[6] = b(st.life == LifeState::Disabled);
        f[7] = b(st.life == LifeState::Dying);
        f[8] = b(st.life == LifeState::Stable);
        f[9] = b(st.life == LifeState::Dead);
        f[10] = st.pos.row as f32 / rows.max(1) as f32;
        f[11] = st.pos.col as f32 / cols.max(1) as f32;
        f[12] = spec.ac.total as f32 / 30.0;
        f[13] = b(ep.has_condition(x, Condition::FlatFooted));
        f[14] = b(st.charging);
        f[15] = ep.aoo_remaining(x) as f32;
        f[16] = ep.speed_ft(x) as f32 / 60.0;
        f[17] = b(matches!((slot, my_slot), (Some(s), Some(m)) if s < m));
        f[18] = b(ep.has_condition(x, Condition::Prone));
        f[19] = b(ep.cond_flag(x, |d| d.cant_act));
        f[20] = b(ep.denied_dex(x));
        f[21] = ep.cond_defs(x).map(|d| d.miss_chance).max().unwrap_or(0) as f32 / 100.0;
        f[22] = b(ep.cond_flag(x, |d| d.fear));
        f[23] = ep.sneak_attack_dice(x) as f32 / 10.0;
        f[24] = ep.cmb(x) as f32 / 20.0;
        f[25] = ep.cmd(x) as f32 / 40.0;
        f[26] = b(st.power_attack);
        f[27] = b(ep.has_condition(x, Condition::Grappled));
        f[28] = b(ep.has_condition(x, Condition::Pinned));
        f[29] = b(st.grapple.is_some_and(|g| g.controller));
        f[30] = b(st.running);
        f[31] = b(st.weapons.iter().any(|w| w.dropped_at.is_some()));
        f[32] = b(st.weapons.iter().any(|w| w.broken));
        f[33] = b(st.total_defense);
        f[34] = b(st.fight_defensively);
        f[35] = st.defensive_ac_bonus as f32 / 4.0;
        f[36] = b(st.readied.is_some());
        f[37] = b(st.readied.as_ref().is_some_and(|r| {
            matches!(
                r.trigger,
                crate::actions::ReadyTrigger::EnemyEntersReach { .. }
                    | crate::actions::ReadyTrigger::EnemyWithin { .. }
            )
        }));
        f[38] = b(st.resume_delayed);
        f[39] = b(st.immediate_used);
        f[40] = b(ep.spec(crate::actions::CombatantId(i as u16)).aware);
        f[41] = b(st.lunge);
        f[42] = b(st.cleaving);
        f[43] = b(st.stood_still);
        f[44] = b(st.deadly_aim);
        f[45] = b(st.combat_expertise);
        f[46] = st.combat_expertise_ac as f32 / 4.0;
        let aid = |m| crate::rules::aid::sum(ep, x, m, None) as f32 / 4.0;
        f[47] = aid(crate::actions::AidMode::Attack);
        f[48] = aid(crate::actions::AidMode::Ac);
        f[49] = b(st.weapons.iter().any(|w| w.sheathed));
        // Magic (CRB — Magic): every value within [0, 1].
        let ratio = |num: f32, den: f32| {
            if den > 0.0 {
                (num / den).clamp(0.0, 1.0)
            } else {
                0.0
            }
        };
        f[50] = if spec.has_spells() {
            ratio(spec.caster_level() as f32, 20.0)
        } else {
            0.0
        };
        let (slots_left, slots_max) = (1..10u8).fold((0u32, 0u32), |(l, m), lvl| {
            let max = spec.slots_of(lvl).unwrap_or(0);
            let left = st.slots_left.get(usize::from(lvl)).copied().unwrap_or(0);
            (l + left.min(max), m + max)
        });
        f[51] = ratio(slots_left as f32, slots_max as f32);
        let (uses_left, uses_max) =
            spec.spellbook()
                .iter()
                .enumerate()
                .fold((0u32, 0u32), |(l, m), (k, cs)| match cs.uses {
                    crate::content::combatant::SpellUses::Counted(max) => {
                        let left = st.spell_uses.get(k).copied().flatten().unwrap_or(0);
                        (l + left.min(max), m + max)
                    }
                    _ => (l, m),
                });
        f[52] = ratio(uses_left as f32, uses_max as f32);
        f[53] = b(st.pending_cast.is_some());
        f[54] = b(st.held_charge.is_some());
        f[55] = ratio(st.spell_effects.len() as f32, 10.0);
        f[56] = ratio(st.mirror_images as f32, 8.0);
        f[57] = b(st.absent);
        f[58] = ratio(st.summon_rounds as f32, 20.0);
        f[59] = b(st.cast_defensively);
        f[60] = ratio(spec.spell_resistance as f32, 40.0);
        // Conditions (CRB — Appendix: Conditions), multi-hot in `Condition::ALL` order.
        for c in &st.conditions {
            f[FIRST_CONDITION_FEATURE + c.condition as usize] = 1.0;
        }
        // The round and the round cap, the same in every row.
        f[FIRST_ROUND_FEATURE] = round_fraction;
        f[FIRST_ROUND_FEATURE + 1] = 1.0 - round_fraction;
        f[FIRST_ROUND_FEATURE + 2] = b(surprise);
        // Weapons: the first `WEAPON_SLOTS` attacks, in list order.
        for (k, w) in spec.attacks.iter().enumerate().take(WEAPON_SLOTS) {
            let g = &mut f[FIRST_WEAPON_FEATURE + k * WEAPON_FEATURES..][..WEAPON_FEATURES];
            let ranged = w.is_ranged();
            let ammo_left = st.ammo.get(k).copied().flatten();
            g[0] = 1.0;
            g[1] = b(ranged);
            g[2] = b(w.natural);
            g[3] = if ranged {
                0.0
            } else {
                crate::rules::reach::melee_reach(ep, x, w).1 as f32 / 30.0
            };
            g[4] = w.range_increment_ft.unwrap_or(0) as f32 / 120.0;
            g[5] = match (ammo_left, w.ammunition) {
                (Some(left), Some(max)) => ratio(left as f32, max as f32),
                // Not counted: unlimited.
                _ => 1.0,
            };
            g[6] = b(ep.weapon_usable(x, k) && ammo_left != Some(0));
            g[7] = b(ep.weapon_broken(x, k));
            g[8] = w.attack_bonus as f32 / 30.0;
            g[9] = crate::policy::average_damage(spec, k) as f32 / 30.0;
        }
    }
    // The viewer's relation to each combatant: the JSON observation's pairs, one source.
    let mut fields = None;
    for t in ep.ids() {
        let st = &ep.st[t.0 as usize];
        if t == viewer || st.life == LifeState::Dead || st.absent {
            continue;
        }
        let fields = fields.get_or_insert_with(|| PairFields::of(ep, viewer));
        let p = pair(ep, viewer, fields, t);
        let r = &mut features[t.0 as usize * FEATURES + FIRST_RELATION_FEATURE..][..14];
        let b = |v: bool| f32::from(u8::from(v));
        r[0] = 1.0;
        r[1] = b(ep.enemies(viewer, t));
        r[2] = p.distance_ft as f32 / 120.0;
        r[3] = b(p.has_line_of_effect);
        r[4] = b(p.weapon_for.is_ok());
        r[5] = -p.range_penalty as f32 / 10.0;
        r[6] = p.cover_bonus as f32 / 8.0;
        r[7] = b(p.flanking);
        r[8] = b(p.charge.is_ok());
        r[9] = b(p.can_step5_to_attack);
        r[10] = b(p.movement_cost_ft.is_some());
        r[11] = p.movement_cost_ft.map_or(1.0, |ft| ft as f32 / 120.0);
        r[12] = b(p.target_threatens_me);
        r[13] = b(p.i_threaten);
    }
    // The viewer's budget and the pending decision's kind, in the viewer's own row.
    if let Some(me) =
        features.get_mut(viewer.0 as usize * FEATURES..(viewer.0 as usize + 1) * FEATURES)
    {
        let b = |v: bool| f32::from(u8::from(v));
        let g = &mut me[FIRST_BUDGET_FEATURE..][..8];
        if let Some(d) = ep.decision().filter(|d| d.actor == viewer) {
            g[0] = b(d.budget.standard);
            g[1] = b(d.budget.move_action);
            g[2] = b(d.budget.swift);
            g[3] = b(d.budget.full_round);
            g[4] = b(d.budget.five_foot_step);
            g[6] = b(!d.kind.is_reaction());
            g[7] = b(d.kind.is_reaction());
        }
        g[5] = b(ep.can_take_immediate(viewer));
    }
    // Every value into its bounds.
    for row in features.chunks_mut(FEATURES) {
        for (v, &(lo, hi)) in row.iter_mut().zip(FEATURE_BOUNDS.iter()) {
            *v = v.clamp(lo, hi);
        }
    }
    TensorObservation {
        plane_shape: [PLANES, rows, cols],
        planes,
        feature_shape: [n, FEATURES],
        features,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every byte of every plane, divided as the planes are built, encodes back to itself.
    #[test]
    fn planes_to_u8_round_trips_every_byte_of_every_plane() {
        let cells = 256;
        let mut planes = vec![0f32; PLANES * cells];
        for p in 0..PLANES {
            for b in 0..cells {
                planes[p * cells + b] = b as f32 / f32::from(PLANE_DIVISORS[p]);
            }
        }
        let mut out = vec![0u8; planes.len()];
        planes_to_u8(&planes, cells, &mut out);
        for (i, &b) in out.iter().enumerate() {
            assert_eq!(
                usize::from(b),
                i % cells,
                "plane {}, byte {}",
                i / cells,
                i % cells
            );
        }
    }
}
