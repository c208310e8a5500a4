//! Combat maneuvers (CRB — Combat: Combat Maneuvers; APG — dirty trick, drag, reposition,
//! steal): validation, the check and its effects. Items dropped or broken by them are in
//! `items`, the grapple link in `grapple`.
//!
//! **CMB** = BAB + Str modifier (Dex for Tiny and smaller) + special size modifier, or the
//! printed value (`cmb`, per-maneuver `cmb_vs`). The roll is an attack roll: d20 + CMB + the
//! attacker's melee attack-roll modifiers (conditions, feats, Power Attack −X, flanking +2, a
//! broken weapon −2) + +4 against a stunned target + +5 circumstance to maintain a grapple −
//! the damage of the attack of opportunity it provoked. Natural 20 succeeds, natural 1 fails;
//! a helpless target is an automatic success; concealment is rolled after a success.
//! **CMD** = 10 + BAB + Str + Dex + special size modifier (+1 with the Dodge feat when the
//! printed numbers include static feats, as a Bestiary CMD does), or the printed value
//! (`cmd`, per-maneuver `cmd_vs`), then: a creature denied its Dex bonus to AC loses its Dex
//! bonus (a Dex penalty stays) and every dodge bonus, the Dodge feat's included in the base
//! too; circumstance, deflection, dodge, insight, luck, morale, profane and sacred bonuses to
//! AC add (the Dodge feat's among them with `printed_feats_included: false`); every AC
//! penalty applies (the maneuver is a melee attack: prone −4 counts). CRB — Combat: Combat
//! Maneuver Defense.
//!
//! Every maneuver but escape provokes an attack of opportunity from its target unless the
//! attacker has the matching Improved feat (maintaining a grapple does not); the AoO's damage
//! is a penalty on the roll and a maneuver whose attacker falls is lost.

use crate::actions::reject::{Reject, TargetIssue};
use crate::actions::{Action, CombatantId, Maneuver};
use crate::content::combatant::{AttackSpec, Size};
use crate::effects::conditions::Condition;
use crate::effects::{BonusType, Modifier, RollContext, Stat};
use crate::episode::frames::Frame;
use crate::episode::Episode;
use crate::geometry::grid::{self, Cell, SQUARE_FT};
use crate::rules::aoo::Provocation;
use crate::rules::grapple::check_grapple_apart;
use crate::rules::grapple::deal_weapon_damage;
use crate::rules::grapple::end_grapple;
use crate::rules::grapple::start_grapple;
use crate::rules::items::drop_weapon;
use crate::rules::power_attack::power_attack_x;
use crate::rules::{self, idx};
use serde::{Deserialize, Serialize};

/// A validated maneuver.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct ManeuverPlan {
    pub target: CombatantId,
    pub maneuver: Maneuver,
    /// The attacker's weapon used (`None` for escape).
    pub weapon: Option<usize>,
    /// Maintaining a grapple the attacker controls: a grapple or pin against its partner (+5;
    /// no other maneuver — CRB — Combat: Grapple).
    pub maintain: bool,
    /// Reposition: the wanted square (anchor) of the target.
    pub destination: Option<Cell>,
    /// Bull rush: the chosen push direction (`None`: straight away, [`direction`]).
    #[serde(default)]
    pub direction: Option<crate::actions::Direction>,
}

/// AC bonus types that also add to CMD (CRB — Combat Maneuver Defense).
const CMD_AC_TYPES: [BonusType; 8] = [
    BonusType::Circumstance,
    BonusType::Deflection,
    BonusType::Dodge,
    BonusType::Insight,
    BonusType::Luck,
    BonusType::Morale,
    BonusType::Profane,
    BonusType::Sacred,
];

impl Episode {
    /// The combatant's CMB for a maneuver family with its current condition modifiers (no
    /// situational modifier): what the observation shows.
    pub fn cmb(&self, c: CombatantId) -> i32 {
        self.spec(c).base_cmb("") + cmb_mods(self, c, None, Maneuver::Trip).total
    }

    /// The combatant's CMD now (its conditions, denied Dex), for the observation.
    pub fn cmd(&self, c: CombatantId) -> i32 {
        cmd_of(self, c, "").0
    }
}

/// The attacker's modifiers that count on a maneuver roll: every modifier to CMB or to melee
/// attack rolls (one source counts once); the grappled penalty does not count to grapple or
/// escape (CRB — Conditions: Grappled); Power Attack −X.
fn cmb_mods(
    ep: &Episode,
    a: CombatantId,
    weapon: Option<&AttackSpec>,
    m: Maneuver,
) -> crate::effects::Resolved {
    let grapple_family = matches!(m, Maneuver::Grapple | Maneuver::Pin | Maneuver::Escape);
    let mut mods: Vec<Modifier> = Vec::new();
    let mut all = ep.modifiers_for(a);
    if m != Maneuver::Escape && ep.st[idx(a)].power_attack {
        let x = power_attack_x(ep, a);
        all.push(Modifier::new(
            Stat::Cmb,
            -x,
            BonusType::Untyped,
            "Power Attack",
        ));
    }
    for mm in all {
        let applies = matches!(mm.stat, Stat::Cmb | Stat::Attack | Stat::MeleeAttack);
        if !applies || (grapple_family && mm.source == "grappled") {
            continue;
        }
        mods.push(Modifier {
            stat: Stat::Cmb,
            ..mm
        });
    }
    let wid = weapon.map(|w| w.weapon_id());
    let ctx = RollContext {
        ranged: false,
        distance_ft: None,
        weapon: weapon.map(|w| (wid.as_deref().unwrap_or(""), w.name.as_str())),
        descriptors: &[],
    };
    crate::effects::resolve(&mods, Stat::Cmb, &ctx)
}

/// CMD of `t` against a maneuver of `family` now, and a note of what changed it.
pub(crate) fn cmd_of(ep: &Episode, t: CombatantId, family: &str) -> (i32, String) {
    let spec = ep.spec(t);
    let mut cmd = spec.base_cmd(family);
    let mut notes = Vec::new();
    let denied = ep.denied_dex(t);
    let (base, eff) = ep.dex_mods(t);
    // "A flat-footed creature does not add its Dexterity bonus to its CMD"; a penalty stays.
    let contrib = if denied { eff.min(0) } else { eff };
    let dd = contrib - base;
    if dd != 0 {
        cmd += dd;
        notes.push(format!("Dex {dd:+}"));
    }
    // "Any situation that denies you your Dexterity bonus also denies you dodge bonuses"
    // (CRB — Combat: Armor Class, Dodge Bonuses): the Dodge feat's in the base CMD too.
    let dodge = spec.dodge_in_printed_numbers();
    if denied && dodge != 0 {
        cmd -= dodge;
        notes.push(format!("Dodge {:+}", -dodge));
    }
    let mut mods: Vec<Modifier> = Vec::new();
    for m in ep.modifiers_for(t) {
        if m.stat == Stat::Cmd {
            if m.source != "Dex penalty" {
                mods.push(m);
            }
        } else if matches!(m.stat, Stat::Ac | Stat::AcVsMelee) {
            let bonus_ok = CMD_AC_TYPES.contains(&m.bonus_type)
                && !(denied && m.bonus_type == BonusType::Dodge);
            if m.value < 0 || bonus_ok {
                mods.push(Modifier {
                    stat: Stat::Cmd,
                    ..m
                });
            }
        }
    }
    if ep.st[idx(t)].charging {
        mods.push(Modifier::new(Stat::Cmd, -2, BonusType::Untyped, "charging"));
    }
    let r = crate::effects::resolve(&mods, Stat::Cmd, &RollContext::default());
    cmd += r.total;
    if !r.applied.is_empty() {
        notes.push(r.note());
    }
    (cmd, notes.join(", "))
}

/// Whether `t` is too large for a size-limited maneuver of `a` (more than one size larger).
fn too_large(ep: &Episode, a: CombatantId, t: CombatantId) -> bool {
    size_rank(ep.spec(t).size) > size_rank(ep.spec(a).size) + 1
}

fn size_rank(s: Size) -> i32 {
    s as i32
}

/// The first usable melee weapon of `a` (or `wanted`) that reaches `t` from where it stands.
pub(crate) fn maneuver_weapon(
    ep: &Episode,
    a: CombatantId,
    t: CombatantId,
    wanted: Option<usize>,
) -> Result<usize, Reject> {
    let attacks = &ep.spec(a).attacks;
    let pos = ep.st[idx(a)].pos;
    let ok = |w: usize| {
        !attacks[w].is_ranged() && rules::weapons::can_weapon_attack(ep, a, pos, w, t).is_ok()
    };
    match wanted {
        Some(w) if w < attacks.len() => {
            if ok(w) {
                Ok(w)
            } else {
                Err(Reject::WeaponUnavailable { weapon: Some(w) })
            }
        }
        Some(w) => Err(Reject::WeaponUnavailable { weapon: Some(w) }),
        None => {
            let any_melee =
                (0..attacks.len()).any(|w| !attacks[w].is_ranged() && ep.weapon_usable(a, w));
            if !any_melee {
                return Err(Reject::NoWeapon);
            }
            (0..attacks.len())
                .find(|&w| ok(w))
                .ok_or(Reject::OutOfRange)
        }
    }
}

/// The item of `t` a disarm or sunder aims at: its held (non-natural) weapons, best attack
/// bonus first, then list order.
fn held_items(ep: &Episode, t: CombatantId) -> Vec<usize> {
    let attacks = &ep.spec(t).attacks;
    let mut v: Vec<usize> = (0..attacks.len())
        .filter(|&w| !attacks[w].natural && ep.weapon_usable(t, w))
        .collect();
    v.sort_by_key(|&w| (-attacks[w].attack_bonus, w));
    v
}

/// Free squares (anchors) for `c`'s footprint, ignoring `ignore` (creatures that will move).
pub(crate) fn free_for(ep: &Episode, c: CombatantId, anchor: Cell, ignore: &[CombatantId]) -> bool {
    let side = ep.fp_side(c);
    let grid = &ep.enc.grid;
    let cells = grid::footprint(anchor, side);
    if !cells
        .iter()
        .all(|x| grid.in_bounds(*x) && grid.passable(*x))
    {
        return false;
    }
    for o in ep.ids() {
        if o == c || ignore.contains(&o) || ep.life_state(o) == crate::episode::LifeState::Dead {
            continue;
        }
        if ep.cells_of(o).iter().any(|x| cells.contains(x)) {
            return false;
        }
    }
    true
}

/// Unit direction (per axis −1/0/1) from the centre of `from`'s space to the centre of `to`'s.
fn direction(ep: &Episode, from: CombatantId, to: CombatantId) -> (i32, i32) {
    let (a, sa) = (ep.st[idx(from)].pos, ep.fp_side(from));
    let (b, sb) = (ep.st[idx(to)].pos, ep.fp_side(to));
    let dr = (2 * b.row + sb) - (2 * a.row + sa);
    let dc = (2 * b.col + sb) - (2 * a.col + sa);
    (dr.signum(), dc.signum())
}

/// Validate a `maneuver` action (no dice, no change).
pub(crate) fn plan_maneuver(
    ep: &Episode,
    a: CombatantId,
    act: &Action,
) -> Result<ManeuverPlan, Reject> {
    let m = act.maneuver.ok_or(Reject::MissingManeuver)?;
    // Only a bull rush takes a direction.
    if act.direction.is_some() && m != Maneuver::BullRush {
        return Err(Reject::InvalidDirection);
    }
    let link = ep.st[idx(a)].grapple;
    if m == Maneuver::Escape {
        let Some(g) = link else {
            return Err(Reject::NotGrappled);
        };
        if let Some(t) = act.target.filter(|&t| t != g.with) {
            return Err(Reject::InvalidTarget {
                target: Some(t),
                why: TargetIssue::NotTheGrappler,
            });
        }
        if g.controller {
            // The grappler may simply release (not modelled); escape is for the grappled one.
            return Err(Reject::NotGrappled);
        }
        return Ok(ManeuverPlan {
            target: g.with,
            maneuver: m,
            weapon: None,
            maintain: false,
            destination: None,
            direction: None,
        });
    }
    let t = crate::actions::check::target_check(ep, a, act.target)?;
    // Maintaining (CRB — Combat: Grapple): the grapple check of the controlling grappler
    // against its partner — to move, damage or pin it (`grapple` / `pin`); any other
    // maneuver against the grappled foe (disarm, trip…) is an ordinary one: no +5, and the
    // grappled condition's −2 applies (CRB — Conditions: Grappled).
    let maintain = matches!(m, Maneuver::Grapple | Maneuver::Pin)
        && link.is_some_and(|g| g.with == t && g.controller);
    match m {
        Maneuver::Pin if !maintain => return Err(Reject::NotGrappled),
        Maneuver::Grapple if !maintain && (link.is_some() || ep.st[idx(t)].grapple.is_some()) => {
            // One grapple per creature (multiple grapplers are not modelled).
            return Err(Reject::InvalidTarget {
                target: Some(t),
                why: TargetIssue::AlreadyGrappling,
            });
        }
        _ => {}
    }
    if m.size_limited() && too_large(ep, a, t) {
        return Err(Reject::TargetTooLarge);
    }
    if m == Maneuver::Trip && cannot_be_tripped(ep, t) {
        return Err(Reject::InvalidTarget {
            target: Some(t),
            why: TargetIssue::CannotBeTripped,
        });
    }
    if matches!(m, Maneuver::Disarm | Maneuver::Sunder) && held_items(ep, t).is_empty() {
        return Err(Reject::InvalidTarget {
            target: Some(t),
            why: TargetIssue::NothingHeld,
        });
    }
    let w = maneuver_weapon(ep, a, t, act.weapon)?;
    let apos = ep.st[idx(a)].pos;
    let adjacent =
        grid::footprint_distance_squares(apos, ep.fp_side(a), ep.st[idx(t)].pos, ep.fp_side(t))
            <= 1;
    match m {
        Maneuver::Overrun => {
            if ep.turn.stepped {
                return Err(Reject::AlreadyMoved);
            }
            if let Some(condition) = ep.first_condition(a, |d| d.cant_move) {
                return Err(Reject::PreventedByCondition { condition });
            }
            if !adjacent || overrun_landing(ep, a, t).is_none() {
                return Err(Reject::UnreachableDestination);
            }
        }
        Maneuver::Drag => {
            if let Some(condition) = ep.first_condition(a, |d| d.cant_move) {
                return Err(Reject::PreventedByCondition { condition });
            }
            let (dr, dc) = direction(ep, t, a);
            let behind = Cell::new(apos.row + dr, apos.col + dc);
            if !adjacent || !free_for(ep, a, behind, &[t]) {
                return Err(Reject::UnreachableDestination);
            }
        }
        Maneuver::BullRush => {
            if let Some(d) = act.direction {
                if !bull_rush_directions(ep, a, t).contains(&d.delta()) {
                    return Err(Reject::InvalidDirection);
                }
            }
        }
        Maneuver::Reposition => {
            if let Some(d) = act.destination {
                if !ep.enc.grid.in_bounds(d) || !free_for(ep, t, d, &[]) {
                    return Err(Reject::InvalidDestination);
                }
            }
        }
        _ => {}
    }
    Ok(ManeuverPlan {
        target: t,
        maneuver: m,
        weapon: Some(w),
        maintain,
        destination: act.destination,
        direction: act.direction,
    })
}

/// Where an overrun lands: the anchor just past the target in the line of approach.
fn overrun_landing(ep: &Episode, a: CombatantId, t: CombatantId) -> Option<Cell> {
    let (dr, dc) = direction(ep, a, t);
    let apos = ep.st[idx(a)].pos;
    let k = ep.fp_side(a) + ep.fp_side(t);
    let land = Cell::new(apos.row + dr * k, apos.col + dc * k);
    free_for(ep, a, land, &[]).then_some(land)
}

/// Result of one maneuver roll.
struct Roll {
    success: bool,
    margin: i32,
}

/// Roll a maneuver of `a` against `t` (after any AoO): logs the line, returns the result.
fn roll_maneuver(
    ep: &mut Episode,
    a: CombatantId,
    t: CombatantId,
    m: Maneuver,
    weapon: Option<usize>,
    aoo_penalty: i32,
    maintain: bool,
) -> Roll {
    let spec = ep.spec_arc(a);
    let wspec = weapon.map(|w| spec.attacks[w].clone());
    let family = m.family();
    let res = cmb_mods(ep, a, wspec.as_ref(), m);
    let mut bonus = spec.base_cmb(family) + res.total;
    let mut notes: Vec<String> = Vec::new();
    if !res.applied.is_empty() {
        notes.push(res.note());
    }
    let mut sit = |v: i32, what: &str, bonus: &mut i32| {
        *bonus += v;
        notes.push(format!("{what} {v:+}"));
    };
    if m != Maneuver::Escape {
        let pos = ep.st[idx(a)].pos;
        if rules::flanking::flanking(ep, a, pos, t) {
            sit(2, "flanking", &mut bonus);
        }
        if ep.has_condition(t, Condition::Stunned) {
            sit(4, "stunned target", &mut bonus);
        }
        if maintain {
            sit(5, "maintain grapple", &mut bonus);
        }
        if weapon.is_some_and(|w| ep.weapon_broken(a, w)) {
            sit(-2, "broken", &mut bonus);
        }
    }
    if aoo_penalty > 0 {
        sit(-aoo_penalty, "AoO damage", &mut bonus);
    }
    // Escape: the better of CMB and Escape Artist (a skill check: no automatic 20 or 1).
    let skill = m == Maneuver::Escape && spec.escape_artist.is_some_and(|e| e > bonus);
    if skill {
        bonus = spec.escape_artist.unwrap_or(0);
        notes.push("Escape Artist".into());
    }
    let (cmd, cmd_note) = cmd_of(ep, t, family);
    let d = ep.roll(20) as i32;
    let total = d + bonus;
    let auto = m != Maneuver::Escape && ep.cond_flag(t, |c| c.helpless);
    let mut success = if skill {
        total >= cmd
    } else {
        auto || (d != 1 && (d == 20 || total >= cmd))
    };
    let tid = ep.id_of(t).to_string();
    let mut note = notes.join(", ");
    if !cmd_note.is_empty() {
        if !note.is_empty() {
            note.push_str(", ");
        }
        note.push_str(&format!("target {cmd_note}"));
    }
    let note = if note.is_empty() {
        String::new()
    } else {
        format!(" [{note}]")
    };
    let mut verdict = if success { "SUCCESS" } else { "FAIL" }.to_string();
    if auto {
        verdict.push_str(" (helpless target)");
    }
    // Combat maneuvers are attack rolls: concealment is rolled (CRB — Performing a Combat
    // Maneuver).
    if success && m != Maneuver::Escape {
        if let Some(c) = crate::rules::concealment::roll_concealment(ep, a, t) {
            if c.missed {
                success = false;
                verdict = format!("FAIL ({c})");
            } else {
                verdict.push_str(&format!(" ({c})"));
            }
        }
    }
    ep.log_turn(
        a,
        format!(
            "{} vs {tid} d20={d}{bonus:+}={total} CMD {cmd}{note} -> {verdict}",
            m.name()
        ),
    );
    Roll {
        success,
        margin: total - cmd,
    }
}

/// Execute a validated maneuver: the attack of opportunity it provokes from its target comes
/// first (a frame), then [`step_maneuver`] rolls it.
pub(crate) fn execute_maneuver(ep: &mut Episode, a: CombatantId, p: ManeuverPlan) {
    let provokes = p.maneuver != Maneuver::Escape
        && !p.maintain
        && p.maneuver
            .improved_feat()
            .is_none_or(|f| !ep.spec(a).has_feat(f));
    if provokes {
        let t = p.target;
        ep.frames.push(Frame::Maneuver {
            attacker: a,
            plan: p,
            hp_before: Some(ep.st[idx(a)].hp),
            provoked: true,
        });
        ep.open_window(a, Provocation::Maneuver, Some(t));
    } else {
        step_maneuver(ep, a, p, None, false);
    }
}

/// The maneuver after the attack of opportunity it provoked (`hp_before`: the attacker's hp
/// before it): lost if the attacker fell; the AoO's damage is a penalty on the roll.
pub(crate) fn step_maneuver(
    ep: &mut Episode,
    a: CombatantId,
    p: ManeuverPlan,
    hp_before: Option<i32>,
    provoked: bool,
) {
    let ManeuverPlan {
        target: t,
        maneuver: m,
        weapon,
        maintain,
        destination,
        direction,
    } = p;
    let mut penalty = 0;
    if provoked {
        if !ep.conscious(a) {
            ep.log_turn(
                a,
                format!("{} lost (fell to the attack of opportunity)", m.name()),
            );
            return;
        }
        penalty = (hp_before.unwrap_or(0) - ep.st[idx(a)].hp).max(0);
    }
    if !ep.conscious(t) {
        return;
    }
    let r = roll_maneuver(ep, a, t, m, weapon, penalty, maintain);
    let target_square = match (m, direction) {
        (Maneuver::BullRush, Some(d)) => Aim::Direction(d.delta()),
        _ => destination.map_or(Aim::Default, Aim::Square),
    };
    apply_effect(ep, a, t, m, weapon, maintain, target_square, r);
}

/// Where a maneuver moves its target, when the attacker chose: a reposition's square, a bull
/// rush's direction.
#[derive(Debug, Clone, Copy)]
enum Aim {
    Default,
    Square(Cell),
    Direction((i32, i32)),
}

/// The directions a bull rush may push `t` (CRB — Combat: Bull Rush: "push an opponent
/// straight back"), first the default: straight away from `a` — the unit step of the line
/// from the centre of `a`'s space to the centre of `t`'s. When that line runs between two
/// grid directions (not along a row, a column or a diagonal: a reach or a larger attacker),
/// both neighbouring directions are "straight back" on the grid and the attacker chooses;
/// otherwise there is one. (APG — Reposition moves the target to a chosen square instead:
/// the maneuver's `destination`.)
pub(crate) fn bull_rush_directions(
    ep: &Episode,
    a: CombatantId,
    t: CombatantId,
) -> Vec<(i32, i32)> {
    let (pa, sa) = (ep.st[idx(a)].pos, ep.fp_side(a));
    let (pt, st) = (ep.st[idx(t)].pos, ep.fp_side(t));
    let dr = (2 * pt.row + st) - (2 * pa.row + sa);
    let dc = (2 * pt.col + st) - (2 * pa.col + sa);
    let diag = (dr.signum(), dc.signum());
    let mut out = vec![diag];
    if dr != 0 && dc != 0 && dr.abs() != dc.abs() {
        out.push(if dr.abs() > dc.abs() {
            (dr.signum(), 0)
        } else {
            (0, dc.signum())
        });
    }
    out
}

/// An overrun's move through its target after the opportunity of leaving its square, then
/// the target knocked prone if the check beat its CMD by 5 or more (CRB — Overrun) — unless
/// it cannot be tripped ([`knock_prone`]: a flying or legless target is passed, not felled).
pub(crate) fn finish_overrun(
    ep: &mut Episode,
    a: CombatantId,
    t: CombatantId,
    land: Cell,
    margin: i32,
) {
    if ep.conscious(a) {
        let tid = ep.id_of(t).to_string();
        let from = ep.st[idx(a)].pos;
        ep.st[idx(a)].pos = land;
        ep.log_turn(a, format!("moves through {tid}: {from}->{land}"));
    }
    if margin >= 5 {
        knock_prone(ep, t);
    }
}

/// Knock `c` prone as a trip does — the trip's target, the tripper that fails by 10 or more
/// (CRB — Combat: Trip), the target of an overrun that beats its CMD by 5 or more (CRB —
/// Combat: Overrun) — unless it cannot be tripped ([`cannot_be_tripped`]: no legs, a fly
/// speed, the trait `cannot_be_tripped`). Our ruling: the SRD says such creatures "cannot be
/// tripped" and states the two other prone results without that exception; a creature with
/// no legs to sweep or that flies cannot be knocked prone by them either, so a legless or
/// flying tripper that fails by 10 stays up and an overrun passes through a flier without
/// felling it.
fn knock_prone(ep: &mut Episode, c: CombatantId) {
    if !cannot_be_tripped(ep, c) {
        ep.add_condition(c, Condition::Prone, None);
    }
}

/// Whether `t` cannot be tripped at all (CRB — Combat: Trip: "Some creatures—such as oozes,
/// creatures without legs, and flying creatures—cannot be tripped"): the trait `no_legs`
/// (oozes, snakes…), a fly speed (`speed_fly_ft` above 0: the engine has no altitude, so a
/// creature that can fly is taken to fly), or the trait `cannot_be_tripped`. The trip
/// maneuver (`invalid_target`, cannot be tripped), the Trip rider ([`free_trip`]) and every
/// maneuver result that knocks prone ([`knock_prone`]: a failed trip's attacker, an
/// overrun's target) read it.
pub(crate) fn cannot_be_tripped(ep: &Episode, t: CombatantId) -> bool {
    let traits = ep.traits(t);
    traits.cannot_be_tripped || traits.no_legs || ep.spec(t).speed_fly_ft.unwrap_or(0) > 0
}

/// A free trip attempt that does not provoke (the Trip universal monster rule); none
/// against a prone target, one too large ([`too_large`]) or one that cannot be tripped
/// ([`cannot_be_tripped`]).
pub(crate) fn free_trip(ep: &mut Episode, a: CombatantId, t: CombatantId, w: usize) {
    if ep.has_condition(t, Condition::Prone) || too_large(ep, a, t) || cannot_be_tripped(ep, t) {
        return;
    }
    let r = roll_maneuver(ep, a, t, Maneuver::Trip, Some(w), 0, false);
    apply_effect(ep, a, t, Maneuver::Trip, Some(w), false, Aim::Default, r);
}

#[allow(clippy::too_many_arguments)]
fn apply_effect(
    ep: &mut Episode,
    a: CombatantId,
    t: CombatantId,
    m: Maneuver,
    weapon: Option<usize>,
    maintain: bool,
    aim: Aim,
    r: Roll,
) {
    let destination = match aim {
        Aim::Square(c) => Some(c),
        _ => None,
    };
    let tid = ep.id_of(t).to_string();
    if !r.success {
        match m {
            // Trip: "If your attack fails by 10 or more, you are knocked prone instead" —
            // not an attacker that cannot be tripped (legless, flying: [`knock_prone`]).
            Maneuver::Trip if r.margin <= -10 && !cannot_be_tripped(ep, a) => {
                ep.log_turn(a, "fails by 10 or more: falls prone".into());
                knock_prone(ep, a);
            }
            // Disarm: "If your attack fails by 10 or more, you drop the weapon that you were
            // using to attempt the disarm."
            Maneuver::Disarm if r.margin <= -10 => {
                if let Some(w) = weapon.filter(|&w| !ep.spec(a).attacks[w].natural) {
                    drop_weapon(ep, a, w);
                }
            }
            // A failed check to maintain a grapple ends it.
            Maneuver::Grapple | Maneuver::Pin if maintain => {
                ep.log_turn(a, format!("loses its hold on {tid}"));
                end_grapple(ep, a);
            }
            _ => {}
        }
        return;
    }
    match m {
        Maneuver::Trip => {
            knock_prone(ep, t);
        }
        Maneuver::Disarm => {
            let n = if r.margin >= 10 { 2 } else { 1 };
            for w in held_items(ep, t).into_iter().take(n) {
                drop_weapon(ep, t, w);
            }
        }
        Maneuver::Sunder => {
            if let (Some(w), Some(&item)) = (weapon, held_items(ep, t).first()) {
                sunder(ep, a, w, t, item);
            }
        }
        Maneuver::BullRush => {
            let dir = match aim {
                Aim::Direction(d) => d,
                _ => direction(ep, a, t),
            };
            let squares = 1 + r.margin.max(0) / 5;
            let moved = push(ep, t, dir, squares, &[]);
            ep.log_turn(a, format!("pushes {tid} back {} ft", moved * SQUARE_FT));
        }
        Maneuver::Drag => {
            let dir = direction(ep, t, a);
            let squares = 1 + r.margin.max(0) / 5;
            let mut moved = 0;
            for _ in 0..squares {
                let ap = ep.st[idx(a)].pos;
                let tp = ep.st[idx(t)].pos;
                let (na, nt) = (
                    Cell::new(ap.row + dir.0, ap.col + dir.1),
                    Cell::new(tp.row + dir.0, tp.col + dir.1),
                );
                if !free_for(ep, a, na, &[t]) || !free_for(ep, t, nt, &[a]) {
                    break;
                }
                ep.st[idx(a)].pos = na;
                ep.st[idx(t)].pos = nt;
                moved += 1;
            }
            if moved > 0 {
                ep.turn.moved = true;
            }
            ep.log_turn(a, format!("drags {tid} {} ft", moved * SQUARE_FT));
        }
        Maneuver::Reposition => {
            let squares = 1 + r.margin.max(0) / 5;
            if let Some(to) = reposition_square(ep, a, t, squares, destination) {
                let from = ep.st[idx(t)].pos;
                ep.st[idx(t)].pos = to;
                ep.log_turn(a, format!("repositions {tid} {from}->{to}"));
                check_grapple_apart(ep, t);
            } else {
                ep.log_turn(a, format!("no square to reposition {tid} to"));
            }
        }
        Maneuver::Overrun => {
            // The overrunner moves through the target's space (leaving its square provokes),
            // then "if your attack exceeds your opponent's CMD by 5 or more … knocked prone"
            // (not a target that cannot be tripped: [`knock_prone`]).
            if let Some(land) = overrun_landing(ep, a, t) {
                ep.turn.moved = true;
                ep.frames.push(Frame::OverrunMove {
                    attacker: a,
                    target: t,
                    land,
                    margin: r.margin,
                });
                ep.open_window(a, Provocation::Leaving, None);
            } else if r.margin >= 5 {
                knock_prone(ep, t);
            }
        }
        Maneuver::Grapple if maintain => {
            // The damage option: the grappler's weapon damage.
            if let Some(w) = weapon {
                deal_weapon_damage(ep, a, t, w);
            }
        }
        Maneuver::Grapple => start_grapple(ep, a, t),
        Maneuver::Pin => {
            ep.add_condition(t, Condition::Pinned, None);
        }
        Maneuver::Escape => {
            ep.log_turn(a, format!("escapes the grapple of {tid}"));
            end_grapple(ep, a);
        }
        Maneuver::Steal => {
            ep.log_turn(
                a,
                "nothing stealable (wielded weapons need a disarm; no other item is modelled)"
                    .into(),
            );
        }
        _ => {
            if let Some(cond) = m.dirty_trick_condition() {
                let rounds = 1 + r.margin.max(0) as u32 / 5;
                ep.add_condition(t, cond, Some(rounds));
            }
        }
    }
}

/// Push `c` up to `squares` squares along `dir` (5-10-5 per diagonal), stopping at the first
/// obstacle; the movement provokes nothing. Returns the squares moved.
fn push(
    ep: &mut Episode,
    c: CombatantId,
    dir: (i32, i32),
    squares: i32,
    ignore: &[CombatantId],
) -> i32 {
    let mut budget = squares;
    let mut moved = 0;
    let mut odd = false;
    let diagonal = dir.0 != 0 && dir.1 != 0;
    loop {
        let cost = if diagonal && odd { 2 } else { 1 };
        if cost > budget {
            break;
        }
        let p = ep.st[idx(c)].pos;
        let next = Cell::new(p.row + dir.0, p.col + dir.1);
        if !free_for(ep, c, next, ignore) {
            break;
        }
        ep.st[idx(c)].pos = next;
        budget -= cost;
        moved += 1;
        if diagonal {
            odd = !odd;
        }
    }
    if moved > 0 {
        check_grapple_apart(ep, c);
    }
    moved
}

/// Reposition's square: `wanted` if free, within the attacker's reach and at most `squares`
/// away; else (no destination) the free square in reach and range that is farthest from the
/// target's nearest ally, then (row, col).
fn reposition_square(
    ep: &Episode,
    a: CombatantId,
    t: CombatantId,
    squares: i32,
    wanted: Option<Cell>,
) -> Option<Cell> {
    let tpos = ep.st[idx(t)].pos;
    let (apos, aside, tside) = (ep.st[idx(a)].pos, ep.fp_side(a), ep.fp_side(t));
    let reach = ep
        .spec(a)
        .attacks
        .iter()
        .enumerate()
        .filter(|(i, w)| !w.is_ranged() && ep.weapon_usable(a, *i))
        .map(|(_, w)| rules::reach::melee_reach(ep, a, w))
        .max_by_key(|r| r.1)
        .unwrap_or((None, ep.natural_reach_ft(a)));
    let ok = |c: Cell| {
        c != tpos
            && grid::distance_squares(tpos, c) <= squares
            && free_for(ep, t, c, &[])
            && rules::reach::footprints_in_reach(apos, aside, c, tside, reach)
    };
    if let Some(w) = wanted {
        return ok(w).then_some(w);
    }
    let allies: Vec<CombatantId> = ep
        .ids()
        .filter(|&o| o != t && !ep.enemies(t, o) && ep.conscious(o))
        .collect();
    let far = |c: Cell| {
        allies
            .iter()
            .map(|&o| grid::footprint_distance_squares(c, tside, ep.st[idx(o)].pos, ep.fp_side(o)))
            .min()
            .unwrap_or(0)
    };
    let mut best: Option<(i32, Cell)> = None;
    for r in tpos.row - squares..=tpos.row + squares {
        for c in tpos.col - squares..=tpos.col + squares {
            let cell = Cell::new(r, c);
            if ok(cell) {
                let key = far(cell);
                if best.is_none_or(|(k, b)| key > k || (key == k && cell < b)) {
                    best = Some((key, cell));
                }
            }
        }
    }
    best.map(|(_, c)| c)
}

/// Sunder: the attacker's weapon damage to the item; damage beyond its hardness is lost from
/// its hit points; at half or less it is broken; below 0 the attacker destroys it (CRB —
/// Sunder; Conditions: Broken).
fn sunder(ep: &mut Episode, a: CombatantId, w: usize, t: CombatantId, item: usize) {
    let aspec = ep.spec_arc(a);
    let weapon = &aspec.attacks[w];
    let mods = crate::rules::damage::weapon_mods(ep, a, w);
    let mut dmg = weapon.damage_bonus + crate::rules::damage::damage_bonus(&mods, weapon, None);
    for c in &aspec.resolved().damage[w] {
        dmg += c.dice.roll(&mut ep.dice).total;
    }
    let dmg = dmg.max(0);
    let tspec = ep.spec_arc(t);
    let item_spec = &tspec.attacks[item];
    let hardness = item_spec.item_hardness();
    let max_hp = item_spec.item_hit_points();
    let through = (dmg - hardness).max(0);
    let s = &mut ep.st[idx(t)].weapons[item];
    s.hp -= through;
    let what = if s.hp < 0 {
        s.destroyed = true;
        "destroyed"
    } else if s.hp * 2 <= max_hp {
        s.broken = true;
        "broken"
    } else {
        "damaged"
    };
    let left = s.hp.max(0);
    let name = item_spec.name.clone();
    ep.log_turn(
        a,
        format!(
            "sunders {name}: {dmg} damage - hardness {hardness} = {through} (hp {left}/{max_hp}, {what})"
        ),
    );
}
