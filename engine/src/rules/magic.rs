//! Spellcasting (CRB — Magic): casting a spell of a caster's spellbook — its cost (slots,
//! prepared copies, uses per day), its casting time in the action economy, the attack of
//! opportunity it provokes, concentration (casting defensively, grappled, entangled, damaged
//! while casting), 1-round castings, touch spells and the held charge, rays, areas, spell
//! resistance, saving throws and the effect kinds of `content::spells` — damage (DR never
//! applies, energy resistance and immunity do), healing (cure harms undead), conditions,
//! buffs and debuffs through the typed-bonus stacking, mirror image, recurring damage,
//! dispel magic.
//!
//! Simplifications (each also in `docs/conformance.md` and the README's limits):
//! - spell resistance and saves apply to hostile creatures only: an ally is a willing target
//!   (it lowers its SR and forgoes the save of a harmless spell — CRB — Magic: Spell
//!   Resistance, Saving Throw);
//! - durations count down at the end of the bearer's turns (as conditions do), not the
//!   caster's;
//! - the damage taken while casting is the net hit point loss between the start of the cast
//!   and its completion (the seed's rule);
//! - a held charge is delivered with `cast_spell` of the same spell (a standard action, no
//!   slot) and dissipates when another spell is cast; touching something else by accident
//!   is not modelled.

use crate::actions::{CombatantId, Metamagic};
use crate::content::combatant::{CasterSpell, SpellUses};
use crate::content::spells::{
    AreaOrigin, AreaShape, CastTime, CreatureFilter, OnSave, PartialDamage, SpellAttack,
    SpellEffect, SpellSpec, Targeting,
};
use crate::effects::conditions::Condition;
use crate::episode::Episode;
use crate::geometry::grid::Cell;
use crate::rules::idx;
use serde::{Deserialize, Serialize};

pub use crate::content::spells::SPECIALS;

/// A set of metamagic feats applied to one cast (a bit per [`Metamagic::ALL`] entry).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct MetamagicSet(pub u8);

impl MetamagicSet {
    /// The set of `list`.
    pub fn of(list: &[Metamagic]) -> MetamagicSet {
        MetamagicSet(list.iter().fold(0, |b, m| b | Self::bit(*m)))
    }
    fn bit(m: Metamagic) -> u8 {
        1 << Metamagic::ALL.iter().position(|x| *x == m).unwrap_or(0)
    }
    /// Whether `m` is in the set.
    pub fn has(self, m: Metamagic) -> bool {
        self.0 & Self::bit(m) != 0
    }
    /// Whether the set is empty.
    pub fn is_empty(self) -> bool {
        self.0 == 0
    }
    /// The union.
    pub fn with(self, other: MetamagicSet) -> MetamagicSet {
        MetamagicSet(self.0 | other.0)
    }
    /// Its feats, in [`Metamagic::ALL`] order.
    pub fn list(self) -> Vec<Metamagic> {
        Metamagic::ALL
            .into_iter()
            .filter(|m| self.has(*m))
            .collect()
    }
    /// Spell levels added to the slot.
    pub fn level_increase(self) -> u8 {
        self.list().iter().map(|m| m.level_increase()).sum()
    }
}

/// A checked cast (every choice made, nothing rolled).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct CastPlan {
    /// Spellbook index.
    pub spell: usize,
    /// The creature aimed at (the caster for a personal spell).
    pub target: Option<CombatantId>,
    /// The square of an area's origin or direction.
    pub at: Option<Cell>,
    /// Cast defensively.
    pub defensively: bool,
    /// Deliver the held charge of this touch spell (no new cast).
    pub deliver: bool,
    /// Metamagic applied (the slot is that many levels higher).
    #[serde(default)]
    pub metamagic: MetamagicSet,
}

/// A 1-round casting in progress (the seed's `pending_cast`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct PendingCast {
    /// Spellbook index.
    pub spell: usize,
    pub target: Option<CombatantId>,
    pub at: Option<Cell>,
    /// Hit points when the casting began (damage since then calls for concentration).
    pub hp_at_cast: i32,
    #[serde(default)]
    pub metamagic: MetamagicSet,
}

/// A touch spell's held charge (CRB — Magic: Holding the Charge).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct HeldCharge {
    /// Spellbook index.
    pub spell: usize,
    #[serde(default)]
    pub metamagic: MetamagicSet,
}

/// A spell effect with a duration on its bearer (a buff or a debuff).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ActiveSpell {
    /// The spell's name (the modifiers' source: a spell does not stack with itself).
    pub spell: String,
    pub caster: CombatantId,
    pub caster_level: i32,
    /// Bearer's turns left.
    pub rounds: u32,
    pub modifiers: Vec<crate::effects::Modifier>,
    /// A `special` behaviour (haste, slow…), if any.
    #[serde(default)]
    pub special: Option<String>,
}

/// A persistent area of a spell (web, grease, entangle, fog cloud, stinking cloud,
/// silence, darkness…) on its squares for `rounds` of its caster's turns: a creature in it
/// at the start of its turn gets `condition` until the end of its next turn (a save each
/// turn when the spell allows one), and attacks against or from a creature in a
/// concealment area are at 20 % miss chance (adjacent) or 50 % (farther) — CRB — Spells:
/// Web, Grease, Entangle, Fog Cloud, Obscuring Mist. Simplified: the difficult terrain of
/// these spells and their blocking of sight for line of effect are not modelled (the map's
/// grid is fixed for an episode).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Zone {
    pub spell: String,
    pub cells: Vec<Cell>,
    pub rounds: u32,
    #[serde(default)]
    pub condition: Option<String>,
    #[serde(default)]
    pub concealment: bool,
    #[serde(default)]
    pub save: Option<crate::content::spells::SaveSpec>,
    pub dc: i32,
}

/// Recurring spell damage (acid arrow): `dice` at the start of the bearer's next `rounds`
/// turns.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RecurringDamage {
    pub spell: String,
    pub caster: CombatantId,
    pub dice: String,
    pub types: Vec<String>,
    pub rounds: u32,
}

/// The budget slot of casting `cs` (CRB — Magic: Casting Time): 1 round and full-round are
/// full-round actions; immediate is the turn's swift action (off-turn casting is not
/// offered); `long` has none (refused before).
pub(crate) fn cast_slot(cs: &CasterSpell, mm: MetamagicSet) -> crate::actions::Slot {
    use crate::actions::Slot;
    // Quicken Spell: a swift action (CRB — Feats: Quicken Spell). A spontaneous caster
    // (casting from slots) takes a full-round action for any other metamagic spell of a
    // standard action (CRB — Magic: Spontaneous Casting and Metamagic Feats).
    if mm.has(Metamagic::Quicken) {
        return Slot::Swift;
    }
    if !mm.is_empty() && cs.uses == SpellUses::Slot && cs.spell.cast_time == CastTime::Standard {
        return Slot::FullRound;
    }
    match cs.spell.cast_time {
        CastTime::Standard | CastTime::Long => Slot::Standard,
        CastTime::FullRound | CastTime::OneRound => Slot::FullRound,
        CastTime::Swift | CastTime::Immediate => Slot::Swift,
        CastTime::Free => Slot::Free,
    }
}

/// Whether `c` can pay for spellbook entry `si` now (slot, prepared copy, use per day), at
/// `extra` levels above the spell's (metamagic).
pub(crate) fn has_use(ep: &Episode, c: CombatantId, si: usize, extra: u8) -> bool {
    let Some(cs) = ep.spec(c).spellbook().get(si) else {
        return false;
    };
    let st = &ep.st[idx(c)];
    let level = (cs.level + extra) as usize;
    match cs.uses {
        SpellUses::Unlimited if extra == 0 => true,
        SpellUses::Unlimited => st.slots_left.get(level).copied().unwrap_or(0) > 0,
        SpellUses::Counted(_) => st.spell_uses.get(si).copied().flatten().unwrap_or(0) > 0,
        SpellUses::Slot => st.slots_left.get(level).copied().unwrap_or(0) > 0,
    }
}

fn spend_use(ep: &mut Episode, c: CombatantId, si: usize, extra: u8) {
    let mut cs = ep.spec(c).spellbook()[si].clone();
    cs.level += extra;
    if extra > 0 && cs.uses == SpellUses::Unlimited {
        cs.uses = SpellUses::Slot;
    }
    let st = &mut ep.st[idx(c)];
    match cs.uses {
        SpellUses::Unlimited => {}
        SpellUses::Counted(_) => {
            if let Some(Some(n)) = st.spell_uses.get_mut(si) {
                *n = n.saturating_sub(1);
            }
        }
        SpellUses::Slot => {
            if let Some(n) = st.slots_left.get_mut(cs.level as usize) {
                *n = n.saturating_sub(1);
            }
        }
    }
}

/// The range of `cs` in feet (touch: the caster's natural reach, at least 5 ft).
pub(crate) fn range_ft(ep: &Episode, c: CombatantId, cs: &CasterSpell) -> i32 {
    use crate::content::spells::SpellRange;
    match cs.spell.range {
        SpellRange::Touch => ep.natural_reach_ft(c).max(5),
        r => r.feet(cs.caster_level),
    }
}

/// Distance in feet from `c`'s footprint to `t`'s (5-10-5).
pub(crate) fn distance_ft(ep: &Episode, c: CombatantId, t: CombatantId) -> i32 {
    crate::geometry::grid::footprint_distance_squares(
        ep.st[idx(c)].pos,
        ep.fp_side(c),
        ep.st[idx(t)].pos,
        ep.fp_side(t),
    ) * crate::geometry::grid::SQUARE_FT
}

/// Distance in feet from `c`'s footprint to square `at`.
pub(crate) fn distance_to_cell_ft(ep: &Episode, c: CombatantId, at: Cell) -> i32 {
    crate::geometry::grid::footprint_distance_squares(ep.st[idx(c)].pos, ep.fp_side(c), at, 1)
        * crate::geometry::grid::SQUARE_FT
}

/// Whether `c` has line of effect to `t` (CRB — Magic: Line of Effect).
pub(crate) fn line_of_effect(ep: &Episode, c: CombatantId, t: CombatantId) -> bool {
    c == t
        || crate::geometry::los::has_line_of_effect(
            &ep.enc.grid,
            ep.st[idx(c)].pos,
            ep.fp_side(c),
            ep.st[idx(t)].pos,
            ep.fp_side(t),
        )
}

/// Whether the area of `spell` is aimed from the caster (a cone, a line, a burst or
/// emanation centred on the caster).
pub(crate) fn area_from_caster(spell: &SpellSpec) -> bool {
    spell.area.is_some_and(|a| {
        a.origin == AreaOrigin::Caster || matches!(a.shape, AreaShape::Cone | AreaShape::Line)
    })
}

/// Whether the area of `spell` needs a square (a point of origin or a direction).
pub(crate) fn area_needs_square(spell: &SpellSpec) -> bool {
    spell.area.is_some_and(|a| {
        a.origin == AreaOrigin::Point || matches!(a.shape, AreaShape::Cone | AreaShape::Line)
    })
}

/// Whether `spell` can affect `t` at all, as far as the observation tells (type and
/// immunities): the default policy never spends a slot on a creature it cannot affect.
pub(crate) fn can_affect(ep: &Episode, spell: &SpellSpec, t: CombatantId) -> bool {
    if immune_to_spell(ep, spell, t) || negated_by_shield(ep, spell, t) {
        return false;
    }
    spell.effects.iter().any(|e| {
        effect_applies(ep, e, t)
            && !matches!(e, SpellEffect::Damage { types, .. }
                if !types.is_empty() && types.iter().all(|ty| ep.spec(t).immunities.contains(ty)))
    })
}

/// The name of the spell that *shield* negates (CRB — Spells: Shield: "negates magic missile
/// attacks directed at you").
const MAGIC_MISSILE: &str = "magic missile";

/// Whether `spell` aimed at `t` is negated by a *shield* spell effect on `t` (the `shield`
/// special of `data/spells/shield.json`; CRB — Spells: Shield).
fn negated_by_shield(ep: &Episode, spell: &SpellSpec, t: CombatantId) -> bool {
    spell.name == MAGIC_MISSILE
        && ep.st[idx(t)]
            .spell_effects
            .iter()
            .any(|e| e.special.as_deref() == Some("shield"))
}

fn creature_type(ep: &Episode, t: CombatantId) -> &str {
    ep.spec(t).creature_type.as_deref().unwrap_or("")
}

fn filter_ok(ep: &Episode, f: CreatureFilter, t: CombatantId) -> bool {
    let ty = creature_type(ep, t);
    match f {
        CreatureFilter::Any => true,
        CreatureFilter::Living => ty != "undead" && ty != "construct",
        CreatureFilter::Undead => ty == "undead",
        CreatureFilter::Humanoid => ty == "humanoid",
        CreatureFilter::Dying => ep.life_state(t) == crate::episode::LifeState::Dying,
        CreatureFilter::BelowZero => {
            ty != "undead"
                && ty != "construct"
                && matches!(
                    ep.life_state(t),
                    crate::episode::LifeState::Dying | crate::episode::LifeState::Stable
                )
        }
    }
}

fn effect_applies(ep: &Episode, e: &SpellEffect, t: CombatantId) -> bool {
    match e {
        SpellEffect::Damage { creatures, .. } => filter_ok(ep, *creatures, t),
        SpellEffect::Heal { creatures, .. } | SpellEffect::Buff { creatures, .. } => {
            filter_ok(ep, *creatures, t)
        }
        SpellEffect::Condition {
            condition,
            creatures,
            max_hd,
            ..
        } => {
            filter_ok(ep, *creatures, t)
                && max_hd.is_none_or(|m| hit_dice(ep, t) <= m as i32)
                && !immune_to_condition(ep, condition, t)
        }
        SpellEffect::ResumeDying { .. } => filter_ok(ep, CreatureFilter::BelowZero, t),
        SpellEffect::Phases { phases } => phases.iter().any(|p| {
            p.max_hd.is_none_or(|m| hit_dice(ep, t) <= m as i32)
                && p.conditions.iter().any(|c| {
                    filter_ok(ep, c.creatures, t) && !immune_to_condition(ep, &c.condition, t)
                })
        }),
        _ => true,
    }
}

/// Hit Dice of a combatant (its `level`).
fn hit_dice(ep: &Episode, t: CombatantId) -> i32 {
    ep.spec(t).level.max(1)
}

/// Undead and constructs: immune to mind-affecting effects, and to paralysis, sleep and
/// stunning (Bestiary — Creature Types: Undead, Construct).
fn immune_to_spell(ep: &Episode, spell: &SpellSpec, t: CombatantId) -> bool {
    let ty = creature_type(ep, t);
    (ty == "undead" || ty == "construct") && spell.descriptors.iter().any(|d| d == "mind-affecting")
}

fn immune_to_condition(ep: &Episode, condition: &str, t: CombatantId) -> bool {
    let ty = creature_type(ep, t);
    (ty == "undead" || ty == "construct")
        && matches!(
            condition,
            "paralyzed" | "asleep" | "stunned" | "nauseated" | "sickened"
        )
}

/// Start a cast (the plan's checks passed): a held charge delivered, or the spell paid for,
/// its concentration checks made, the attack of opportunity it provokes opened, then
/// [`complete`] (a [`crate::episode::frames::Frame::Cast`] frame above the window).
pub(crate) fn start(ep: &mut Episode, a: CombatantId, p: CastPlan) {
    let cs = ep.spec(a).spellbook()[p.spell].clone();
    let name = cs.spell.name.clone();
    if p.deliver {
        ep.log_turn(a, format!("touches with the held charge of {name}"));
        let mm = ep.st[idx(a)]
            .held_charge
            .map_or(p.metamagic, |h| h.metamagic);
        resolve(ep, a, p.spell, p.target, p.at, true, mm);
        return;
    }
    // A new spell dissipates a held charge (CRB — Holding the Charge).
    if let Some(h) = ep.st[idx(a)].held_charge.take() {
        let old = ep.spec(a).spellbook()[h.spell].spell.name.clone();
        ep.log_turn(a, format!("the held charge of {old} dissipates"));
    }
    spend_use(ep, a, p.spell, p.metamagic.level_increase());
    let defensively = p.defensively || std::mem::take(&mut ep.st[idx(a)].cast_defensively);
    ep.st[idx(a)].metamagic_next = MetamagicSet::default();
    // The cast's transcript line, formatted only when a transcript is kept.
    if ep.keeps_transcript() {
        let at = match (p.target, p.at) {
            (_, Some(c)) => format!(" at {c}"),
            (Some(t), None) if t != a => format!(" on {}", ep.id_of(t)),
            _ => String::new(),
        };
        let how = if cs.spell_like {
            "uses the spell-like ability"
        } else {
            "casts"
        };
        let raised = cs.level + p.metamagic.level_increase();
        let slot = match cs.uses {
            SpellUses::Slot => format!(" (level {raised} slot)"),
            SpellUses::Unlimited if raised > cs.level => format!(" (level {raised} slot)"),
            _ => String::new(),
        };
        let mm = p.metamagic.list();
        let slot = if mm.is_empty() {
            slot
        } else {
            let names: Vec<&str> = mm.iter().map(|m| m.name()).collect();
            format!("{slot} [{}]", names.join(", "))
        };
        let mode = if defensively { ", defensively" } else { "" };
        ep.log_turn(a, format!("{how} {name}{at}{slot}{mode}"));
    }
    // The spell's level for concentration: the heightened one with Heighten Spell.
    let level = i32::from(cs.level) + i32::from(p.metamagic.has(Metamagic::Heighten));
    // Grappled (CRB — Magic: Concentration, Grappled or Pinned): DC 10 + the grappler's CMB
    // + spell level; no attack of opportunity (the grappler is busy).
    let grappled = ep.st[idx(a)].grapple;
    if let Some(g) = grappled {
        let cmb = ep.spec(g.with).base_cmb("grapple");
        if !concentration(ep, a, 10 + cmb + level, true, "grappled") {
            return lose(ep, a, &name);
        }
    }
    // Entangled (CRB — Magic: Concentration, Entangled): DC 15 + spell level.
    if ep.has_condition(a, Condition::Entangled)
        && !concentration(ep, a, 15 + level, false, "entangled")
    {
        return lose(ep, a, &name);
    }
    if defensively {
        // Casting defensively (CRB — Magic: Concentration): DC 15 + double the spell level.
        if !concentration(ep, a, 15 + 2 * level, true, "casting defensively") {
            return lose(ep, a, &name);
        }
    }
    // A quickened spell does not provoke (CRB — Feats: Quicken Spell).
    let provokes = !defensively && grappled.is_none() && !p.metamagic.has(Metamagic::Quicken);
    ep.frames.push(crate::episode::frames::Frame::Cast {
        caster: a,
        plan: p,
        hp_before: provokes.then_some(ep.st[idx(a)].hp),
    });
    if provokes {
        ep.open_window(a, crate::rules::aoo::Provocation::CastSpell, None);
    }
}

/// The cast once its attacks of opportunity are resolved: a caster that fell loses the
/// spell; one damaged meanwhile makes a concentration check DC 10 + damage + spell level;
/// a 1-round casting waits for the caster's next turn, the others take effect.
pub(crate) fn complete(ep: &mut Episode, a: CombatantId, p: CastPlan, hp_before: Option<i32>) {
    let cs = ep.spec(a).spellbook()[p.spell].clone();
    let name = cs.spell.name.clone();
    if !ep.conscious(a) {
        ep.log_turn(a, format!("loses {name} (cannot act)"));
        return;
    }
    if let Some(hp) = hp_before {
        let dmg = hp - ep.st[idx(a)].hp;
        let level = i32::from(cs.level) + i32::from(p.metamagic.has(Metamagic::Heighten));
        if dmg > 0 && !concentration(ep, a, 10 + dmg + level, false, "damaged while casting") {
            return lose(ep, a, &name);
        }
    }
    if cs.spell.cast_time == CastTime::OneRound {
        ep.st[idx(a)].pending_cast = Some(PendingCast {
            spell: p.spell,
            target: p.target,
            at: p.at,
            hp_at_cast: ep.st[idx(a)].hp,
            metamagic: p.metamagic,
        });
        ep.log_turn(
            a,
            format!("begins casting {name} (it takes effect before its next turn)"),
        );
        return;
    }
    // A ray's ranged touch attack provokes again (CRB — Combat: Attacks of Opportunity:
    // making a ranged attack; Magic: Aiming a Spell — Ray; Paizo FAQ): its window, then
    // [`ray`] (a [`crate::episode::frames::Frame::Ray`] frame below it).
    if ray_provokes(ep, a, &cs.spell, p.target) {
        ep.frames
            .push(crate::episode::frames::Frame::Ray { caster: a, plan: p });
        ep.open_window(a, crate::rules::aoo::Provocation::RangedAttack, None);
        return;
    }
    resolve(ep, a, p.spell, p.target, p.at, false, p.metamagic);
}

/// Whether casting `spell` at `target` makes a ray's ranged touch attack that provokes an
/// attack of opportunity of its own (CRB — Combat: Attacks of Opportunity, "Performing a
/// Distracting Act": making a ranged attack; Magic: Aiming a Spell — Ray, "as if using a
/// ranged weapon"; Paizo FAQ: a ray spell provokes twice, for the casting and for the
/// attack; casting defensively or a quickened spell removes only the first): a ranged touch
/// spell aimed at a hostile creature (an attack roll is made). All the rays of one casting
/// (scorching ray) are one provocation: they are fired together, as Manyshot's arrows.
pub(crate) fn ray_provokes(
    ep: &Episode,
    a: CombatantId,
    spell: &SpellSpec,
    target: Option<CombatantId>,
) -> bool {
    spell.attack == SpellAttack::RangedTouch
        && spell.targeting == Targeting::Creature
        && target.is_some_and(|t| ep.enemies(a, t))
}

/// A ray's attacks once the opportunities its ranged touch attack provoked are resolved
/// ([`ray_provokes`]): a caster that fell or can no longer act loses them (the spell is
/// spent); otherwise the spell resolves.
pub(crate) fn ray(ep: &mut Episode, a: CombatantId, p: CastPlan) {
    if !ep.conscious(a) || ep.cond_flag(a, |d| d.cant_act) {
        let name = ep.spec(a).spellbook()[p.spell].spell.name.clone();
        ep.log_turn(a, format!("loses the ray of {name} (cannot act)"));
        return;
    }
    resolve(ep, a, p.spell, p.target, p.at, false, p.metamagic);
}

/// Just before `a`'s turn: a 1-round casting in progress takes effect (CRB — Magic: Casting
/// Time), after a concentration check if it was damaged since it began.
pub(crate) fn before_turn(ep: &mut Episode, a: CombatantId) {
    let Some(pc) = ep.st[idx(a)].pending_cast.take() else {
        return;
    };
    let cs = ep.spec(a).spellbook()[pc.spell].clone();
    let name = cs.spell.name.clone();
    // A caster that can no longer act (unconscious, paralyzed, stunned…) loses the spell.
    if !ep.conscious(a) || ep.cond_flag(a, |d| d.cant_act) {
        ep.log_turn(a, format!("loses {name} (cannot act)"));
        return;
    }
    let level = i32::from(cs.level) + i32::from(pc.metamagic.has(Metamagic::Heighten));
    // Grappled since the casting began: the grappled concentration check.
    if let Some(g) = ep.st[idx(a)].grapple {
        let cmb = ep.spec(g.with).base_cmb("grapple");
        if !concentration(ep, a, 10 + cmb + level, true, "grappled") {
            return lose(ep, a, &name);
        }
    }
    let dmg = pc.hp_at_cast - ep.st[idx(a)].hp;
    if dmg > 0 && !concentration(ep, a, 10 + dmg + level, false, "damaged while casting") {
        return lose(ep, a, &name);
    }
    ep.log_turn(a, format!("finishes casting {name}"));
    resolve(ep, a, pc.spell, pc.target, pc.at, false, pc.metamagic);
}

/// At the start of `c`'s turn: its recurring spell damage (CRB — e.g. Acid Arrow).
pub(crate) fn start_of_turn(ep: &mut Episode, c: CombatantId) {
    let list = std::mem::take(&mut ep.st[idx(c)].recurring);
    let mut keep = Vec::new();
    for mut r in list {
        if !ep.conscious(c) && ep.life_state(c) == crate::episode::LifeState::Dead {
            break;
        }
        let dice: crate::dice::DiceExpr = match r.dice.parse() {
            Ok(d) => d,
            Err(_) => continue,
        };
        let rolled = dice.roll(&mut ep.dice).total.max(0);
        let (dealt, note) = energy_adjust(ep, c, rolled, &r.types);
        let (spell, caster) = (r.spell.clone(), r.caster);
        let cid = ep.id_of(c).to_string();
        let line = move |before: i32, after: i32| {
            format!("{spell} burns {cid}: {dealt} damage{note} (hp {before}->{after})")
        };
        crate::rules::damage::take_damage(ep, Some(caster), c, dealt, Some(&line));
        r.rounds = r.rounds.saturating_sub(1);
        if r.rounds > 0 {
            keep.push(r);
        }
    }
    ep.st[idx(c)].recurring = keep;
}

/// At the start of `c`'s turn: every persistent area it stands in with a condition gives it
/// that condition until the end of its next turn, unless it saves.
pub(crate) fn zones_at_start_of_turn(ep: &mut Episode, c: CombatantId) {
    let cells = ep.cells_of(c);
    let hits: Vec<Zone> = ep
        .st
        .iter()
        .flat_map(|s| s.zones.iter())
        .filter(|z| z.condition.is_some() && z.cells.iter().any(|x| cells.contains(x)))
        .cloned()
        .collect();
    for z in hits {
        let Some(name) = z.condition.as_deref() else {
            continue;
        };
        let Some(cond) = Condition::from_name(name) else {
            continue;
        };
        if immune_to_condition(ep, name, c) {
            continue;
        }
        if let Some(save) = z.save {
            let r = ep.roll_save(c, save.kind, z.dc, &[]);
            if r.success {
                continue;
            }
        }
        ep.log_turn(c, format!("is in the {}", z.spell));
        ep.add_condition(c, cond, Some(2));
    }
}

/// The concealment miss chance, in percent, that persistent areas give an attack of `a` on
/// `t`: 20 % adjacent, 50 % farther, when either stands in a concealment area (fog).
pub(crate) fn zone_miss_chance(ep: &Episode, a: CombatantId, t: CombatantId) -> u32 {
    if !ep.st.iter().any(|s| s.zones.iter().any(|z| z.concealment)) {
        return 0;
    }
    let inside = |c: CombatantId| {
        let cells = ep.cells_of(c);
        ep.st
            .iter()
            .flat_map(|s| s.zones.iter())
            .any(|z| z.concealment && z.cells.iter().any(|x| cells.contains(x)))
    };
    if inside(a) || inside(t) {
        if distance_ft(ep, a, t) <= crate::geometry::grid::SQUARE_FT {
            20
        } else {
            50
        }
    } else {
        0
    }
}

/// At the end of `c`'s turn: its persistent areas and spell effects count down; expired ones
/// end.
pub(crate) fn end_of_turn(ep: &mut Episode, c: CombatantId) {
    let st = &mut ep.st[idx(c)];
    let gone = count_down(&mut st.zones, |z| &mut z.rounds, |z| z.spell.clone());
    let ended = count_down(
        &mut st.spell_effects,
        |e| &mut e.rounds,
        |e| e.spell.clone(),
    );
    for s in gone {
        ep.log_turn(c, format!("the {s} ends"));
    }
    for s in ended {
        ep.log_turn(c, format!("{s} ends"));
    }
}

/// One round less for each item of `list` (`rounds` of it); the expired ones are removed and
/// their `name`s returned, in order.
fn count_down<T>(
    list: &mut Vec<T>,
    rounds: impl Fn(&mut T) -> &mut u32,
    name: impl Fn(&T) -> String,
) -> Vec<String> {
    let mut expired = Vec::new();
    list.retain_mut(|x| {
        let r = rounds(x);
        *r = r.saturating_sub(1);
        if *r == 0 {
            expired.push(name(x));
            false
        } else {
            true
        }
    });
    expired
}

/// The modifiers of `c`'s spell effects (for `Episode::modifiers_for`).
pub(crate) fn effect_modifiers(
    ep: &Episode,
    c: CombatantId,
    out: &mut Vec<crate::effects::Modifier>,
) {
    for e in &ep.st[idx(c)].spell_effects {
        out.extend(e.modifiers.iter().cloned());
    }
}

/// Whether `c` is hasted (haste's extra attack in a full attack — CRB — Spells: Haste).
pub(crate) fn hasted(ep: &Episode, c: CombatantId) -> bool {
    ep.st[idx(c)]
        .spell_effects
        .iter()
        .any(|e| e.special.as_deref() == Some("haste"))
}

fn lose(ep: &mut Episode, a: CombatantId, name: &str) {
    ep.log_turn(a, format!("loses {name} (the spell fizzles)"));
}

/// A concentration check of `c` (CRB — Magic: Concentration): d20 + caster level + casting
/// ability modifier (or the printed bonus), +4 with Combat Casting when `combat_casting`
/// (casting defensively or grappled). Logged; returns success.
pub(crate) fn concentration(
    ep: &mut Episode,
    c: CombatantId,
    dc: i32,
    combat_casting: bool,
    why: &str,
) -> bool {
    let spec = ep.spec(c);
    let cc = combat_casting && spec.has_feat(crate::content::feats::Feat::CombatCasting);
    let bonus = spec.concentration() + if cc { 4 } else { 0 };
    let d = ep.roll(20) as i32;
    let total = d + bonus;
    let ok = total >= dc;
    let note = if cc { " [Combat Casting +4]" } else { "" };
    ep.log_turn(
        c,
        format!(
            "concentration ({why}) d20={d}{bonus:+}={total} vs DC {dc}{note} -> {}",
            if ok { "success" } else { "failure" }
        ),
    );
    ok
}

/// The save DC of `cs` for caster `a`: its DC plus Spell Focus / Greater Spell Focus of
/// its school (CRB — Feats: Spell Focus) — a printed DC is final.
fn save_dc(ep: &Episode, a: CombatantId, cs: &CasterSpell) -> i32 {
    if cs.dc_printed {
        return cs.dc;
    }
    let spec = ep.spec(a);
    let school = cs.spell.school.as_str();
    let focus = |base: &str| {
        spec.feats.iter().any(|f| {
            let (b, arg) = crate::content::feats::split_name(f);
            b.eq_ignore_ascii_case(base) && arg.is_some_and(|x| x.eq_ignore_ascii_case(school))
        })
    };
    cs.dc + i32::from(focus("Spell Focus")) + i32::from(focus("Greater Spell Focus"))
}

/// The caster level check against spell resistance (CRB — Magic: Spell Resistance): d20 +
/// caster level (+2 Spell Penetration, +2 more Greater) ≥ SR. Logged.
fn overcomes_sr(ep: &mut Episode, a: CombatantId, t: CombatantId, cl: i32) -> bool {
    let sr = ep.spec(t).spell_resistance;
    let spec = ep.spec(a);
    let pen = 2 * i32::from(spec.has_feat(crate::content::feats::Feat::SpellPenetration))
        + 2 * i32::from(spec.has_feat(crate::content::feats::Feat::GreaterSpellPenetration));
    let d = ep.roll(20) as i32;
    let total = d + cl + pen;
    let ok = total >= sr;
    let tid = ep.id_of(t).to_string();
    ep.log_turn(
        a,
        format!(
            "caster level check vs {tid}'s SR {sr}: d20={d}{:+}={total} -> {}",
            cl + pen,
            if ok { "overcome" } else { "resisted" }
        ),
    );
    ok
}

/// Resolve the spell `si` of `a` (paid for, concentration passed): its attack, targets and
/// effects.
pub(crate) fn resolve(
    ep: &mut Episode,
    a: CombatantId,
    si: usize,
    target: Option<CombatantId>,
    at: Option<Cell>,
    delivering: bool,
    mm: MetamagicSet,
) {
    let cs = ep.spec(a).spellbook()[si].clone();
    let spell = cs.spell.clone();
    match spell.targeting {
        Targeting::Caster => affect(
            ep,
            a,
            a,
            si,
            1,
            &mut None,
            true,
            None,
            mm,
            &mut Vec::new(),
            &mut None,
        ),
        Targeting::Creature => {
            let Some(t) = target else { return };
            if ep.life_state(t) == crate::episode::LifeState::Dead {
                ep.log_turn(a, format!("{}: the target is dead", spell.name));
                return;
            }
            if negated_by_shield(ep, &spell, t) {
                let tid = ep.id_of(t).to_string();
                ep.log_turn(a, format!("{}: {tid}'s shield negates it", spell.name));
                return;
            }
            let hostile = ep.enemies(a, t);
            let n = projectiles(&spell, cs.caster_level);
            // Spell resistance is checked once per creature per spell and holds for every
            // projectile against it (CRB — Magic: Spell Resistance); the save and the other
            // effects come with the first projectile that reaches it (a ray that misses
            // does not).
            let mut sr: Option<bool> = None;
            let mut reached = false;
            for i in 0..n {
                if i > 0 && !ep.conscious(t) {
                    break;
                }
                let mult = if spell.attack != SpellAttack::None && hostile {
                    match spell_attack(ep, a, t, spell.attack == SpellAttack::RangedTouch) {
                        Some(m) => m,
                        None => {
                            if spell.attack == SpellAttack::MeleeTouch {
                                ep.st[idx(a)].held_charge = Some(HeldCharge {
                                    spell: si,
                                    metamagic: mm,
                                });
                                ep.log_turn(a, format!("holds the charge of {}", spell.name));
                            }
                            continue;
                        }
                    }
                } else {
                    1
                };
                if delivering || spell.attack == SpellAttack::MeleeTouch {
                    ep.st[idx(a)].held_charge = None;
                }
                affect(
                    ep,
                    a,
                    t,
                    si,
                    mult,
                    &mut None,
                    !reached,
                    None,
                    mm,
                    &mut Vec::new(),
                    &mut sr,
                );
                reached = true;
            }
        }
        Targeting::Area => {
            let cells = area_cells(ep, a, &spell, target, at);
            let affects = spell.area.map(|x| x.affects).unwrap_or_default();
            let includes_caster = spell.area.is_some_and(|x| x.includes_caster);
            let set: std::collections::BTreeSet<Cell> = cells.iter().copied().collect();
            let mut hit: Vec<CombatantId> = ep
                .ids()
                .filter(|&t| ep.life_state(t) != crate::episode::LifeState::Dead)
                .filter(|&t| ep.cells_iter(t).any(|c| set.contains(&c)))
                .filter(|&t| t != a || includes_caster)
                .filter(|&t| match affects {
                    crate::content::spells::Affects::All => true,
                    crate::content::spells::Affects::Allies => !ep.enemies(a, t),
                    crate::content::spells::Affects::Enemies => ep.enemies(a, t),
                })
                .collect();
            // A Hit Dice pool (sleep) goes to the lowest Hit Dice first.
            let mut pool = spell.effects.iter().find_map(|e| match e {
                SpellEffect::Condition {
                    total_hd: Some(h), ..
                } => Some(*h as i32),
                _ => None,
            });
            if pool.is_some() {
                hit.sort_by_key(|&t| (hit_dice(ep, t), t.0));
            }
            let origin = area_origin(ep, a, &spell, target, at);
            record_area(ep, a, &spell, &cells, origin, target, at);
            let ids: Vec<String> = hit.iter().map(|&t| ep.id_of(t).to_string()).collect();
            ep.log_turn(
                a,
                format!(
                    "{}: {} squares, affects {}",
                    spell.name,
                    cells.len(),
                    if ids.is_empty() {
                        "no one".into()
                    } else {
                        ids.join(", ")
                    }
                ),
            );
            // A persistent area stays on its squares.
            if let Some(SpellEffect::Terrain {
                condition,
                concealment,
                ..
            }) = spell
                .effects
                .iter()
                .find(|e| matches!(e, SpellEffect::Terrain { .. }))
            {
                let rounds = spell.duration.fixed_rounds(cs.caster_level).max(1)
                    * if mm.has(Metamagic::Extend) { 2 } else { 1 };
                let dc = save_dc(ep, a, &cs) + i32::from(mm.has(Metamagic::Heighten));
                let zones = &mut ep.st[idx(a)].zones;
                zones.retain(|z| z.spell != spell.name);
                zones.push(Zone {
                    spell: spell.name.clone(),
                    cells: cells.clone(),
                    rounds,
                    condition: condition.clone(),
                    concealment: *concealment,
                    save: spell.save,
                    dc,
                });
            }
            // One damage roll for the whole area (every creature takes the same roll).
            let mut rolls = Vec::new();
            for t in hit {
                affect(
                    ep, a, t, si, 1, &mut pool, true, origin, mm, &mut rolls, &mut None,
                );
            }
        }
    }
}

/// While the episode records its steps for a viewer ([`Episode::record_steps`]): keep the
/// area about to be reported on the next transcript line. Reads nothing play depends on and
/// changes nothing but the recording.
fn record_area(
    ep: &mut Episode,
    a: CombatantId,
    spell: &SpellSpec,
    cells: &[Cell],
    origin: Option<crate::geometry::areas::Corner>,
    target: Option<CombatantId>,
    at: Option<Cell>,
) {
    if ep.steps.is_none() {
        return;
    }
    let Some(area) = spell.area else { return };
    let line = ep.log.len();
    let (origin, toward) = match area.shape {
        AreaShape::Cone | AreaShape::Line => (None, at.or(target.map(|t| ep.st[idx(t)].pos))),
        _ => (origin.map(|o| [o.row, o.col]), None),
    };
    let shape = match area.shape {
        AreaShape::Burst => "burst",
        AreaShape::Spread => "spread",
        AreaShape::Emanation => "emanation",
        AreaShape::Cone => "cone",
        AreaShape::Line => "line",
        AreaShape::Cylinder => "cylinder",
    };
    if let Some(rec) = ep.steps.as_mut() {
        rec.areas.push(crate::episode::AreaCast {
            line,
            caster: a,
            spell: spell.name.clone(),
            shape: shape.to_string(),
            size_ft: area.size_ft,
            origin,
            toward,
            cells: cells.to_vec(),
        });
    }
}

/// The squares of `spell`'s area cast by `a` aimed at `target` / `at`.
pub(crate) fn area_cells(
    ep: &Episode,
    a: CombatantId,
    spell: &SpellSpec,
    target: Option<CombatantId>,
    at: Option<Cell>,
) -> Vec<Cell> {
    use crate::geometry::areas;
    let Some(area) = spell.area else {
        return Vec::new();
    };
    let grid = &ep.enc.grid;
    let pos = ep.st[idx(a)].pos;
    let side = ep.fp_side(a);
    let toward = at.or(target.map(|t| ep.st[idx(t)].pos));
    match area.shape {
        AreaShape::Cone => toward.map_or(Vec::new(), |to| {
            areas::cone(grid, pos, side, to, area.size_ft)
        }),
        AreaShape::Line => toward.map_or(Vec::new(), |to| {
            // The line runs from the caster toward the square, to its full length: aim
            // through a point as far as the length in that direction, so that a square
            // next to the caster gives a straight line (not the ray through its centre).
            let (dr, dc) = (to.row - pos.row, to.col - pos.col);
            let k = (area.size_ft as i32 / crate::geometry::grid::SQUARE_FT + 1)
                / dr.abs().max(dc.abs()).max(1)
                + 1;
            let far = Cell::new(pos.row + dr * k, pos.col + dc * k);
            areas::line(grid, pos, side, far, area.size_ft)
        }),
        shape => {
            let Some(origin) = area_origin(ep, a, spell, target, at) else {
                return Vec::new();
            };
            if shape == AreaShape::Spread {
                areas::spread(grid, origin, area.size_ft)
            } else {
                areas::burst(grid, origin, area.size_ft)
            }
        }
    }
}

/// The intersection a burst-like area starts from: the caster's centre-most corner for one
/// centred on the caster (its anchor's bottom-right corner for a 1×1 caster — CRB: an
/// emanation or burst "centered on you" spreads from your square; modelled from the corner
/// nearest its centre), else the top-left corner of the aimed square.
fn area_origin(
    ep: &Episode,
    a: CombatantId,
    spell: &SpellSpec,
    target: Option<CombatantId>,
    at: Option<Cell>,
) -> Option<crate::geometry::areas::Corner> {
    let area = spell.area?;
    if area.origin == AreaOrigin::Caster {
        let pos = ep.st[idx(a)].pos;
        let side = ep.fp_side(a);
        let half = (side + 1) / 2;
        return Some(crate::geometry::areas::Corner {
            row: pos.row + half,
            col: pos.col + half,
        });
    }
    at.or(target.map(|t| ep.st[idx(t)].pos))
        .map(crate::geometry::areas::corner_of)
}

/// Number of projectiles of `spell` at caster level `cl` (magic missile, scorching ray).
fn projectiles(spell: &SpellSpec, cl: i32) -> u32 {
    spell
        .effects
        .iter()
        .find_map(|e| match e {
            SpellEffect::Damage {
                projectiles: Some(p),
                ..
            } => Some(p.base + p.scaling.map_or(0, |s| s.at(cl))),
            _ => None,
        })
        .unwrap_or(1)
        .clamp(1, 20)
}

/// A touch attack of `a` on `t` (CRB — Combat: Touch Spells in Combat; Magic: Ranged Touch
/// Attacks — rays): d20 + BAB + Str (melee) or Dex (ranged) modifier + the attack-roll
/// modifiers of [`crate::rules::attack_roll::attack_roll_mods`] (the collector weapon attacks
/// use), against the touch AC of [`crate::rules::attack_roll::target_ac`] (denied Dex against
/// an invisible attacker, a charging target, aid another, cover); concealment; a natural 20
/// threatens a critical, confirmed by a second roll (critical spell damage: ×2).
/// `Some(multiplier)` on a hit.
fn spell_attack(ep: &mut Episode, a: CombatantId, t: CombatantId, ranged: bool) -> Option<i32> {
    use crate::effects::{RollContext, Stat};
    let spec = ep.spec_arc(a);
    let from = ep.st[idx(a)].pos;
    let ab = if ranged {
        spec.abilities.dex_mod()
    } else {
        spec.abilities.str_mod()
    };
    // The attack-roll modifiers a weapon attack gets (the one collector): the attacker's
    // conditions and feats, flanking, high ground, shooting into melee, a helpless target,
    // an invisible attacker, aid another; a ray has no range increments.
    let own = ep.modifiers_for(a);
    let crate::rules::attack_roll::AttackSituation {
        mods, invisible, ..
    } = crate::rules::attack_roll::attack_roll_mods(ep, a, from, t, ranged, false, 0, own);
    let ctx = RollContext {
        ranged,
        distance_ft: Some(distance_ft(ep, a, t)),
        weapon: None,
        descriptors: &[],
    };
    let res = crate::effects::resolve(&mods, Stat::Attack, &ctx);
    let bonus = spec.bab + ab + res.total;
    let mut notes = Vec::new();
    if !res.applied.is_empty() {
        notes.push(res.note());
    }
    let (ac, _denied) = crate::rules::attack_roll::target_ac(
        ep,
        a,
        from,
        t,
        true,
        ranged,
        invisible,
        &crate::rules::attack_roll::AttackOpts::default(),
        &mut notes,
    );
    let d = ep.roll(20) as i32;
    let total = d + bonus;
    ep.attrition[idx(a)].attacks += 1;
    let hit = d != 1 && (d == 20 || total >= ac);
    let tid = ep.id_of(t).to_string();
    let note = if notes.is_empty() {
        String::new()
    } else {
        format!(" [{}]", notes.join(", "))
    };
    let what = if ranged {
        "ranged touch"
    } else {
        "melee touch"
    };
    let head = format!("{what} vs {tid} d20={d}{bonus:+}={total} touch AC {ac}{note}");
    if !hit {
        ep.log_turn(a, format!("{head} -> MISS"));
        return None;
    }
    let mut mult = 1;
    let mut crit = String::new();
    if d == 20 && !ep.traits(t).immune_critical {
        let c = ep.roll(20) as i32;
        let ct = c + bonus;
        if c != 1 && (c == 20 || ct >= ac) {
            mult = 2;
            crit = format!(" x2 (confirm d20={c}{bonus:+}={ct})");
        } else {
            crit = format!(" (threat not confirmed d20={c}{bonus:+}={ct})");
        }
    }
    if let Some(c) = crate::rules::concealment::roll_concealment(ep, a, t) {
        if c.missed {
            ep.log_turn(a, format!("{head} -> MISS ({c})"));
            return None;
        }
        crit = format!("{crit} ({c})");
    }
    ep.attrition[idx(a)].hits += 1;
    if mult > 1 {
        ep.attrition[idx(a)].crits += 1;
    }
    ep.log_turn(
        a,
        format!("{head} -> {}{crit}", if mult > 1 { "CRIT" } else { "HIT" }),
    );
    Some(mult)
}

/// Energy immunity and resistance on `amount` of spell damage of `types` to `t` (the best
/// resistance among the types; DR never applies to spell damage — CRB — Combat: Damage
/// Reduction, Energy Resistance).
fn energy_adjust(ep: &Episode, t: CombatantId, amount: i32, types: &[String]) -> (i32, String) {
    let spec = ep.spec(t);
    if !types.is_empty() && types.iter().any(|ty| spec.immunities.contains(ty)) {
        return (0, format!(" [immune {}]", types.join("/")));
    }
    if let Some(r) = types.iter().filter_map(|ty| spec.resistances.get(ty)).max() {
        let cut = (*r).min(amount);
        if cut > 0 {
            return (
                amount - cut,
                format!(" [resist {} -{cut}]", types.join("/")),
            );
        }
    }
    (amount, String::new())
}

/// Roll `dice` plus `extra` more dice of its first dice term, `mult` times (a critical
/// ray), plus `flat`.
fn roll_spell_dice(
    ep: &mut Episode,
    dice: &str,
    extra: u32,
    flat: i32,
    mult: i32,
) -> (i32, String) {
    roll_spell_dice_mm(ep, dice, extra, flat, mult, MetamagicSet::default())
}

/// [`roll_spell_dice`] with Maximize Spell (the dice at their maximum) and Empower Spell
/// (the dice ×1.5, rounded down; with Maximize: the maximum plus half a normal roll) —
/// CRB — Feats: Empower Spell, Maximize Spell. Constants are not variable: never changed.
fn roll_spell_dice_mm(
    ep: &mut Episode,
    dice: &str,
    extra: u32,
    flat: i32,
    mult: i32,
    mm: MetamagicSet,
) -> (i32, String) {
    if mm.has(Metamagic::Empower) || mm.has(Metamagic::Maximize) {
        let Ok(mut expr) = dice.parse::<crate::dice::DiceExpr>() else {
            return (0, dice.to_string());
        };
        if extra > 0 {
            if let Some(crate::dice::Term::Dice { count, .. }) = expr
                .terms
                .iter_mut()
                .find(|t| matches!(t, crate::dice::Term::Dice { .. }))
            {
                *count = count.saturating_add(extra);
            }
        }
        let constant: i32 = expr
            .terms
            .iter()
            .map(|t| match t {
                crate::dice::Term::Flat(v) => *v,
                _ => 0,
            })
            .sum();
        // Empower: the roll and its bonuses ×1.5 ("including bonuses to those dice rolls");
        // Maximize: the dice at their maximum, the bonuses as they are; both: the maximum
        // plus half the normally rolled result.
        let _ = constant;
        let mut total = 0;
        for _ in 0..mult.max(1) {
            total += if mm.has(Metamagic::Maximize) {
                let max = expr.max() + flat;
                if mm.has(Metamagic::Empower) {
                    max + (expr.roll(&mut ep.dice).total + flat) / 2
                } else {
                    max
                }
            } else {
                (expr.roll(&mut ep.dice).total + flat) * 3 / 2
            };
        }
        let flat = 0;
        let tag = match (mm.has(Metamagic::Maximize), mm.has(Metamagic::Empower)) {
            (true, true) => "maximized+empowered ",
            (true, false) => "maximized ",
            _ => "empowered ",
        };
        let text = if flat != 0 {
            format!("{tag}{expr}{flat:+}")
        } else {
            format!("{tag}{expr}")
        };
        return ((total + flat).max(0), text);
    }
    let Ok(mut expr) = dice.parse::<crate::dice::DiceExpr>() else {
        return (0, dice.to_string());
    };
    if extra > 0 {
        if let Some(crate::dice::Term::Dice { count, .. }) = expr
            .terms
            .iter_mut()
            .find(|t| matches!(t, crate::dice::Term::Dice { .. }))
        {
            *count = count.saturating_add(extra);
        }
    }
    let mut total = 0;
    for _ in 0..mult.max(1) {
        total += expr.roll(&mut ep.dice).total;
    }
    let text = if flat != 0 {
        format!("{expr}{flat:+}")
    } else {
        expr.to_string()
    };
    ((total + flat).max(0), text)
}

/// The spell `si` of `a` on creature `t`: spell resistance, the save, then each effect
/// (`mult` multiplies damage dice — a critical touch or ray; `pool` is a Hit Dice pool;
/// `first` is false for a later projectile: the save and the non-damage effects once;
/// `origin` is an area's point of origin, for cover on Reflex saves; `sr` is the result of
/// the spell resistance check against `t` for this cast, made by the first projectile that
/// reaches it and holding for every later one — CRB — Magic: Spell Resistance).
#[allow(clippy::too_many_arguments)]
fn affect(
    ep: &mut Episode,
    a: CombatantId,
    t: CombatantId,
    si: usize,
    mult: i32,
    pool: &mut Option<i32>,
    first: bool,
    origin: Option<crate::geometry::areas::Corner>,
    mm: MetamagicSet,
    rolls: &mut Vec<Option<(i32, String)>>,
    sr: &mut Option<bool>,
) {
    let again = (!first).then_some(());
    let cs = ep.spec(a).spellbook()[si].clone();
    let spell = cs.spell.clone();
    let tid = ep.id_of(t).to_string();
    let hostile = ep.enemies(a, t);
    if immune_to_spell(ep, &spell, t) {
        ep.log_turn_with(a, || {
            format!("{}: {tid} is immune (mind-affecting)", spell.name)
        });
        return;
    }
    // Not a creature any of its effects works on (bleed on a creature above −1 hp, hold
    // person on a non-humanoid…): nothing happens, no resistance or save is rolled (CRB —
    // Magic: Aiming a Spell, Target or Targets: the spell names the creatures it can target).
    if !spell.effects.iter().any(|e| effect_applies(ep, e, t)) {
        ep.log_turn_with(a, || {
            format!("{}: {tid} is not a creature it can affect", spell.name)
        });
        return;
    }
    if spell.spell_resistance && hostile && ep.spec(t).spell_resistance > 0 {
        let overcome = match *sr {
            Some(known) => {
                if !known {
                    ep.log_turn(a, format!("{}: {tid}'s spell resistance holds", spell.name));
                }
                known
            }
            None => {
                let ok = overcomes_sr(ep, a, t, cs.caster_level);
                *sr = Some(ok);
                ok
            }
        };
        if !overcome {
            return;
        }
    }
    // Hit Dice limits (sleep, color spray's pool): checked before the save.
    if let Some(p) = pool {
        let hd = hit_dice(ep, t);
        if hd > *p {
            ep.log_turn_with(a, || {
                format!(
                    "{}: {tid} ({hd} HD) is beyond the Hit Dice left",
                    spell.name
                )
            });
            return;
        }
    }
    let mut saved = false;
    if let Some(save) = spell.save {
        let willing = !hostile && spell.harmless;
        if !willing && again.is_none() {
            // Heighten Spell: the DC of the raised level (CRB — Feats: Heighten Spell); other
            // metamagic leaves it at the spell's own level.
            let dc = save_dc(ep, a, &cs) + i32::from(mm.has(Metamagic::Heighten));
            let descriptors: Vec<String> = spell
                .descriptors
                .iter()
                .map(|d| d.replace('-', "_"))
                .chain(std::iter::once(spell.school.clone()))
                .collect();
            // Cover and Reflex saves (CRB — Combat: Cover): against an area, half the terrain
            // cover bonus between the creature and the area's origin, applied as the same
            // reduction of the DC (natural 1 and 20 unchanged).
            let cover = match (save.kind, origin) {
                (crate::rules::saves::SaveKind::Ref, Some(o)) => {
                    crate::geometry::areas::reflex_cover_from(
                        &ep.enc.grid,
                        o,
                        ep.st[idx(t)].pos,
                        ep.fp_side(t),
                    )
                }
                _ => 0,
            };
            if cover > 0 {
                ep.log_turn_with(t, || {
                    format!("cover from the area's origin: +{cover} on its Reflex save")
                });
            }
            let r = ep.roll_save(t, save.kind, dc - cover, &descriptors);
            saved = r.success;
            if saved && save.on_success == OnSave::Negates {
                ep.log_turn_with(a, || format!("{}: {tid} saves, no effect", spell.name));
                return;
            }
        }
    }
    let on_success = spell.save.map(|s| s.on_success);
    let cl = cs.caster_level;
    // The buff/debuff modifiers and special behaviour of this cast: one spell effect.
    let mut buff: Vec<crate::effects::Modifier> = Vec::new();
    let mut special: Option<String> = None;
    let mut has_buff = false;
    if rolls.len() < spell.effects.len() {
        rolls.resize(spell.effects.len(), None);
    }
    for (ei, e) in spell.effects.iter().enumerate() {
        if !effect_applies(ep, e, t) {
            continue;
        }
        if again.is_some() && !matches!(e, SpellEffect::Damage { .. }) {
            continue;
        }
        match e {
            SpellEffect::Damage {
                dice,
                dice_scaling,
                flat_scaling,
                types,
                recurring,
                partial,
                ..
            } => {
                let extra = dice_scaling.map_or(0, |s| s.at(cl));
                let flat = flat_scaling.map_or(0, |s| s.at(cl)) as i32;
                let (rolled, text) = match &rolls[ei] {
                    Some(r) => r.clone(),
                    None => {
                        let r = roll_spell_dice_mm(ep, dice, extra, flat, mult, mm);
                        rolls[ei] = Some(r.clone());
                        r
                    }
                };
                let amount = match (saved, on_success) {
                    (true, Some(OnSave::Half)) => rolled / 2,
                    (true, Some(OnSave::Partial)) => match partial {
                        Some(PartialDamage::Half) => rolled / 2,
                        Some(PartialDamage::None) => 0,
                        Some(PartialDamage::Full) | None => rolled,
                    },
                    _ => rolled,
                };
                let (dealt, note) = energy_adjust(ep, t, amount, types);
                let half = if amount != rolled { " (half)" } else { "" };
                let name = spell.name.clone();
                let tid2 = tid.clone();
                let line = move |before: i32, after: i32| {
                    format!("{name} hits {tid2}: {text}={rolled}{half} -> {dealt} damage{note} ({tid2} hp {before}->{after})")
                };
                crate::rules::damage::take_damage(ep, Some(a), t, dealt, Some(&line));
                if let Some(r) = recurring {
                    if ep.life_state(t) != crate::episode::LifeState::Dead {
                        let rounds = r.rounds + r.scaling.map_or(0, |s| s.at(cl));
                        ep.st[idx(t)].recurring.push(RecurringDamage {
                            spell: spell.name.clone(),
                            caster: a,
                            dice: r.dice.clone(),
                            types: types.clone(),
                            rounds,
                        });
                    }
                }
            }
            SpellEffect::Heal {
                dice, flat_scaling, ..
            } => {
                let flat = flat_scaling.map_or(0, |s| s.at(cl)) as i32;
                let (rolled, text) = roll_spell_dice_mm(ep, dice, 0, flat, 1, mm);
                let what = if ep.keeps_transcript() {
                    format!("{}: {text}", spell.name)
                } else {
                    String::new()
                };
                heal(ep, a, t, rolled, &what);
            }
            SpellEffect::Condition {
                condition,
                duration,
                partial,
                total_hd,
                ..
            } => {
                let (name, dur) = if saved {
                    match (on_success, partial) {
                        (Some(OnSave::Partial), Some(p)) => {
                            (p.condition.as_str(), p.duration.clone())
                        }
                        _ => continue,
                    }
                } else {
                    (condition.as_str(), duration.clone())
                };
                let dur = dur.unwrap_or_else(|| spell.duration.clone());
                let mut rounds = dur.fixed_rounds(cl);
                if let Some(d) = &dur.dice {
                    let (r, _) = roll_spell_dice(ep, d, 0, 0, 1);
                    rounds += r.max(0) as u32;
                }
                // Extend Spell: the duration doubled (CRB — Feats: Extend Spell).
                let rounds = rounds.max(1) * if mm.has(Metamagic::Extend) { 2 } else { 1 };
                if let Some(c) = Condition::from_name(name) {
                    if immune_to_condition(ep, name, t) {
                        continue;
                    }
                    ep.add_condition(t, c, Some(rounds));
                    if total_hd.is_some() {
                        if let Some(p) = pool {
                            *p -= hit_dice(ep, t);
                        }
                    }
                }
            }
            SpellEffect::Buff { modifiers, .. } => {
                if saved {
                    continue;
                }
                buff.extend(modifiers.iter().map(|m| crate::effects::Modifier {
                    stat: m.stat,
                    value: m.value + m.scaling.map_or(0, |s| s.at(cl) as i32) * m.value.signum(),
                    bonus_type: m.bonus_type,
                    source: spell.name.clone(),
                    when: m.when.clone(),
                }));
                has_buff = true;
            }
            SpellEffect::MirrorImage { dice, scaling, max } => {
                let (n, _) =
                    roll_spell_dice(ep, dice, 0, scaling.map_or(0, |s| s.at(cl)) as i32, 1);
                let n = (n.max(1) as u32).min(*max);
                ep.st[idx(t)].mirror_images = n;
                ep.log_turn(t, format!("has {n} mirror images"));
            }
            SpellEffect::Dispel { max_cl } => dispel(ep, a, t, cl.min(*max_cl as i32)),
            SpellEffect::Phases { phases } => {
                if saved {
                    continue;
                }
                // Each condition lasts to the end of the last phase it is in: the phases'
                // rolled durations added up, in order.
                let mut elapsed = 0u32;
                let mut until: Vec<(Condition, u32)> = Vec::new();
                for ph in phases {
                    if ph.max_hd.is_some_and(|m| hit_dice(ep, t) > m as i32) {
                        continue;
                    }
                    let mut rounds = ph.duration.fixed_rounds(cl);
                    if let Some(d) = &ph.duration.dice {
                        let (r, _) = roll_spell_dice(ep, d, 0, 0, 1);
                        rounds += r.max(0) as u32;
                    }
                    elapsed += rounds.max(1) * if mm.has(Metamagic::Extend) { 2 } else { 1 };
                    for c in &ph.conditions {
                        let Some(cond) = Condition::from_name(&c.condition) else {
                            continue;
                        };
                        if !filter_ok(ep, c.creatures, t)
                            || immune_to_condition(ep, &c.condition, t)
                        {
                            continue;
                        }
                        match until.iter_mut().find(|(x, _)| *x == cond) {
                            Some(u) => u.1 = elapsed,
                            None => until.push((cond, elapsed)),
                        }
                    }
                }
                for (cond, rounds) in until {
                    ep.add_condition(t, cond, Some(rounds));
                }
            }
            SpellEffect::ResumeDying { damage } => {
                if ep.life_state(t) == crate::episode::LifeState::Stable {
                    // New damage is not needed: it simply is dying again.
                    ep.st[idx(t)].life = crate::episode::LifeState::Dying;
                    ep.log_turn(t, format!("is dying again ({})", spell.name));
                } else {
                    let (rolled, text) = roll_spell_dice(ep, damage, 0, 0, 1);
                    let name = spell.name.clone();
                    let tid2 = tid.clone();
                    let line = move |before: i32, after: i32| {
                        format!("{name} hits {tid2}: {text}={rolled} -> {rolled} damage ({tid2} hp {before}->{after})")
                    };
                    crate::rules::damage::take_damage(ep, Some(a), t, rolled.max(0), Some(&line));
                }
            }
            SpellEffect::Special { name } => {
                if saved {
                    continue;
                }
                special = Some(name.clone());
                has_buff = true;
            }
            SpellEffect::Summon { count, .. } => {
                let rounds = spell.duration.fixed_rounds(cl).max(1)
                    * if mm.has(Metamagic::Extend) { 2 } else { 1 };
                summon(ep, a, si, count, rounds, cl);
            }
            SpellEffect::Terrain {
                condition: Some(c), ..
            } => {
                if saved {
                    continue;
                }
                if let Some(cond) = Condition::from_name(c) {
                    if !immune_to_condition(ep, c, t) {
                        ep.add_condition(t, cond, Some(2));
                    }
                }
            }
            SpellEffect::Terrain { .. } => {}
        }
    }
    if has_buff {
        let rounds =
            spell.duration.fixed_rounds(cl).max(1) * if mm.has(Metamagic::Extend) { 2 } else { 1 };
        add_effect(ep, t, &spell.name, a, cl, rounds, buff, special);
    }
}

#[allow(clippy::too_many_arguments)]
fn add_effect(
    ep: &mut Episode,
    t: CombatantId,
    spell: &str,
    caster: CombatantId,
    cl: i32,
    rounds: u32,
    modifiers: Vec<crate::effects::Modifier>,
    special: Option<String>,
) {
    let list = &mut ep.st[idx(t)].spell_effects;
    // The same spell does not stack with itself (CRB — Magic: Combining Magic Effects): the
    // new casting replaces the old.
    list.retain(|e| e.spell != spell);
    list.push(ActiveSpell {
        spell: spell.to_string(),
        caster,
        caster_level: cl,
        rounds,
        modifiers,
        special: special.clone(),
    });
    ep.log_turn(t, format!("is under {spell} ({rounds} rounds)"));
}

/// Heal `amount` hit points of `t` (CRB — Combat: Injury and Death): up to its maximum; a
/// dying creature healed to 0 or more is conscious again (disabled at 0), one still below 0
/// becomes stable. A spell that cures hit point damage (`amount` above 0, even at full hit
/// points) also stops bleeding (CRB — Appendix: Conditions, Bleed); stabilize's 0 does not.
pub(crate) fn heal(ep: &mut Episode, by: CombatantId, t: CombatantId, amount: i32, what: &str) {
    use crate::episode::LifeState;
    let i = idx(t);
    if ep.st[i].life == LifeState::Dead {
        return;
    }
    let stops_bleeding = amount > 0;
    let max = ep.spec(t).max_hp();
    let before = ep.st[i].hp;
    let after = (before + amount.max(0)).min(max).max(before);
    ep.st[i].hp = after;
    let tid = ep.id_of(t).to_string();
    ep.log_turn(
        by,
        format!(
            "{what} heals {tid} {} hp (hp {before}->{after})",
            after - before
        ),
    );
    let new = if after > 0 {
        LifeState::Healthy
    } else if after == 0 {
        LifeState::Disabled
    } else {
        LifeState::Stable
    };
    if ep.st[i].life != new {
        ep.st[i].life = new;
        let st = match new {
            LifeState::Healthy => "is conscious again",
            LifeState::Disabled => "is disabled (0 hp)",
            _ => "is stable",
        };
        ep.log_turn(t, st.to_string());
    }
    if stops_bleeding {
        crate::rules::life::stop_bleeding(ep, t);
    }
}

/// Dispel magic, targeted (CRB — Spells: Dispel Magic, Targeted Dispel): one dispel check
/// d20 + `cl` against 11 + the caster level of each spell effect on `t`, from the highest
/// caster level down; the first it beats ends (one spell per dispel).
fn dispel(ep: &mut Episode, a: CombatantId, t: CombatantId, cl: i32) {
    let mut order: Vec<usize> = (0..ep.st[idx(t)].spell_effects.len()).collect();
    if order.is_empty() {
        let tid = ep.id_of(t).to_string();
        ep.log_turn(a, format!("dispel magic: no spell effect on {tid}"));
        return;
    }
    order.sort_by_key(|&k| std::cmp::Reverse(ep.st[idx(t)].spell_effects[k].caster_level));
    let d = ep.roll(20) as i32;
    let total = d + cl;
    let mut parts = Vec::new();
    let mut ended = None;
    for k in order {
        let e = &ep.st[idx(t)].spell_effects[k];
        let dc = 11 + e.caster_level;
        let ok = total >= dc;
        parts.push(format!(
            "{} DC {dc} {}",
            e.spell,
            if ok { "dispelled" } else { "holds" }
        ));
        if ok {
            ended = Some(k);
            break;
        }
    }
    ep.log_turn(
        a,
        format!("dispel check d20={d}{cl:+}={total}: {}", parts.join(", ")),
    );
    if let Some(k) = ended {
        let e = ep.st[idx(t)].spell_effects.remove(k);
        if e.special.as_deref() == Some("invisibility") {
            ep.remove_condition(t, Condition::Invisible);
        }
    }
}

/// Mirror image (CRB — Spells: Mirror Image): an attack that hits a creature with images
/// hits one of them instead with probability images / (images + 1) — one d(images + 1):
/// any result but the highest is an image, destroyed. `Some(what happened)` when an image
/// took the hit.
pub(crate) fn mirror_image_takes(ep: &mut Episode, t: CombatantId) -> Option<String> {
    let n = ep.st[idx(t)].mirror_images;
    if n == 0 {
        return None;
    }
    let d = ep.roll(n + 1);
    if d > n {
        return None;
    }
    ep.st[idx(t)].mirror_images = n - 1;
    Some(format!(
        "a mirror image (d{}={d}): the image is destroyed, {} left",
        n + 1,
        n - 1
    ))
}

/// Summon (CRB — Spells: Summon Monster I, Summon Nature's Ally I): `count` creatures of the
/// spell into the summoner's reserved slots that are free (absent), each on the nearest
/// free square to the summoner within close range (25 ft + 5 ft per 2 levels), acting
/// right after the summoner in the initiative order, for `rounds` of its own turns.
/// Simplifications: the engine picks the square (nearest, then row-major); a slot still
/// in use (its creature present or dead) is not reused.
fn summon(ep: &mut Episode, a: CombatantId, si: usize, count: &str, rounds: u32, cl: i32) {
    let (n, _) = roll_spell_dice(ep, count, 0, 0, 1);
    let mut left = n.max(1) as usize;
    let range_sq = (25 + 5 * (cl.max(1) / 2)) / crate::geometry::grid::SQUARE_FT;
    let slots: Vec<usize> = (0..ep.n())
        .filter(|&j| ep.enc.combatants[j].summoned_by == Some((idx(a), si)) && ep.st[j].absent)
        .collect();
    if slots.is_empty() {
        ep.log_turn(a, "no free summon slot: nothing is summoned".into());
        return;
    }
    for j in slots {
        if left == 0 {
            break;
        }
        let side = ep.enc.combatants[j].spec.size.footprint_side();
        let Some(at) = summon_square(ep, a, side, range_sq) else {
            ep.log_turn(a, "no room to summon within range".into());
            break;
        };
        let placed = ep.enc.combatants[j].clone();
        let mut st = crate::episode::initial_state(&placed);
        st.pos = at;
        st.absent = false;
        st.summon_rounds = rounds;
        st.initiative_total = ep.st[idx(a)].initiative_total;
        // Summoned creatures act at once on the summoner's initiative: not flat-footed.
        st.conditions
            .retain(|c| c.condition != Condition::FlatFooted);
        ep.st[j] = st;
        let id = CombatantId(j as u16);
        move_after(ep, id, a);
        let sid = ep.id_of(id).to_string();
        ep.log_turn(a, format!("summons {sid} at {at} ({rounds} rounds)"));
        left -= 1;
    }
}

/// The nearest free anchor square for a creature of footprint `side` within `range_sq`
/// squares of `a` (ties: row-major).
fn summon_square(ep: &Episode, a: CombatantId, side: i32, range_sq: i32) -> Option<Cell> {
    let grid = &ep.enc.grid;
    let occupied: std::collections::BTreeSet<Cell> = ep
        .ids()
        .filter(|&c| !ep.st[idx(c)].absent && ep.life_state(c) != crate::episode::LifeState::Dead)
        .flat_map(|c| ep.cells_of(c))
        .collect();
    let (pos, aside) = (ep.st[idx(a)].pos, ep.fp_side(a));
    let mut best: Option<(i32, Cell)> = None;
    for row in pos.row - range_sq - side..=pos.row + range_sq + aside {
        for col in pos.col - range_sq - side..=pos.col + range_sq + aside {
            let at = Cell::new(row, col);
            let d = crate::geometry::grid::footprint_distance_squares(pos, aside, at, side);
            if d == 0 || d > range_sq {
                continue;
            }
            let cells = crate::geometry::grid::footprint(at, side);
            if !cells
                .iter()
                .all(|c| grid.in_bounds(*c) && grid.passable(*c) && !occupied.contains(c))
            {
                continue;
            }
            if !crate::geometry::los::has_line_of_effect(grid, pos, aside, at, side) {
                continue;
            }
            if best.is_none_or(|(bd, bc)| (d, at) < (bd, bc)) {
                best = Some((d, at));
            }
        }
    }
    best.map(|(_, c)| c)
}

/// Move `who` to just after `after` in the initiative order (the current turn keeps its
/// place).
fn move_after(ep: &mut Episode, who: CombatantId, after: CombatantId) {
    let Some(j) = ep.order.iter().position(|&c| c == who) else {
        return;
    };
    ep.order.remove(j);
    if j < ep.turn_pos {
        ep.turn_pos -= 1;
    }
    let k = ep
        .order
        .iter()
        .position(|&c| c == after)
        .map_or(ep.order.len(), |k| k + 1);
    ep.order.insert(k, who);
    if k <= ep.turn_pos {
        ep.turn_pos += 1;
    }
}

/// At the end of a summoned creature's turn: one round less; at none, it vanishes.
pub(crate) fn summon_end_of_turn(ep: &mut Episode, c: CombatantId) {
    if ep.enc.combatants[idx(c)].summoned_by.is_none() || ep.st[idx(c)].absent {
        return;
    }
    let st = &mut ep.st[idx(c)];
    st.summon_rounds = st.summon_rounds.saturating_sub(1);
    if st.summon_rounds == 0 && st.life != crate::episode::LifeState::Dead {
        vanish(ep, c);
    }
}

/// A summoned creature leaves the map (its slot free again for a new summoning).
pub(crate) fn vanish(ep: &mut Episode, c: CombatantId) {
    if ep.st[idx(c)].grapple.is_some() {
        crate::rules::grapple::end_grapple(ep, c);
    }
    let st = &mut ep.st[idx(c)];
    st.absent = true;
    st.life = crate::episode::LifeState::Dead;
    ep.log_turn(c, "vanishes (the summoning ends)".into());
}
