//! The attack roll (CRB — Combat: Attack Roll; Table: Attack Roll Modifiers; Armor Class,
//! Touch Attacks, Flat-Footed; Critical Hits): modifiers collected as typed bonuses and
//! stacked (`effects`), the target's AC, the d20 with natural 1/20, firearm misfire, the
//! critical threat and confirmation, concealment, then damage (`damage`).

use crate::actions::CombatantId;
use crate::content::combatant::AttackKind;
use crate::effects::conditions::Condition;
use crate::effects::{BonusType, Modifier, Stat};
use crate::episode::Episode;
use crate::rules::cover::cover_bonus;
use crate::rules::damage::roll_damage;
use crate::rules::flanking::flanking;
use crate::rules::idx;
use crate::rules::ranged::distance_ft_from;
use crate::rules::ranged::into_melee_penalty;
use crate::rules::ranged::range_penalty;

/// Options of one attack roll.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct AttackOpts {
    /// Iterative (−5/−10/−15) penalty as a negative number (Multiattack's +3 on a secondary
    /// natural attack of a hand-built combatant: positive).
    pub penalty: i32,
    /// The attack ends a charge (+2).
    pub charge: bool,
    /// An attack of opportunity provoked by movement (leaving a threatened square, entering
    /// an opponent's square): Mobility's +4 dodge AC applies (CRB — Feats: Mobility).
    #[serde(default)]
    pub movement_aoo: bool,
    /// Two-weapon fighting penalty of the hand (0 without; CRB — Combat: Two-Weapon
    /// Fighting), logged as the modifier `two-weapon fighting`.
    #[serde(default)]
    pub twf: i32,
    /// Rapid Shot's −2 (CRB — Feats: Rapid Shot).
    #[serde(default)]
    pub rapid_shot: bool,
    /// The entry of a full attack's list this attack is ([`crate::rules::attack_list`]);
    /// `None` for a single attack (attack action, charge, attack of opportunity).
    #[serde(default)]
    pub tag: Option<crate::rules::attack_list::EntryTag>,
    /// Vital Strike: the weapon's damage dice are rolled this many extra times (1 Vital
    /// Strike, 2 Improved, 3 Greater), never multiplied on a critical (CRB — Feats: Vital
    /// Strike). Only the attack action sets it.
    #[serde(default)]
    pub vital_strike: u8,
}

/// One attack roll with a weapon, its critical confirmation, concealment and damage (a ranged
/// attack's attack of opportunity is resolved before, by its [`crate::episode::frames::Frame::Swing`]).
///
/// Attack modifiers (CRB — Combat: Attack Roll; Table: Attack Roll Modifiers) are collected as
/// typed [`crate::effects::Modifier`]s — the attacker's conditions and feats, charge, flanking,
/// high ground, range, shooting into melee, helpless target, invisible attacker — and stacked
/// by [`crate::effects::resolve`]; the AC likewise (see [`armor_class`]).
pub(crate) fn attack_roll(
    ep: &mut Episode,
    a: CombatantId,
    t: CombatantId,
    w: usize,
    opts: AttackOpts,
) {
    use crate::effects::RollContext;
    let spec = ep.spec_arc(a);
    let weapon = spec.attacks[w].clone();
    let ranged = weapon.is_ranged();
    let from = ep.st[idx(a)].pos;
    let d_ft = distance_ft_from(ep, a, from, t);
    let wid = weapon.weapon_id();
    let ctx = RollContext {
        ranged,
        distance_ft: Some(d_ft),
        weapon: Some((&wid, &weapon.name)),
        descriptors: &[],
    };
    let sit = |stat: Stat, v: i32, src: &str| Modifier::new(stat, v, BonusType::Untyped, src);
    // The attacker's own modifiers: its conditions and feats, Power Attack (CRB — Feats: −X
    // melee attack, +2X damage, +3X two-handed, +X with a secondary natural attack), a broken
    // weapon's −2 attack and damage (CRB — Conditions: Broken).
    let off_hand = opts.tag.is_some_and(|t| t.off_hand());
    let mut own = crate::rules::damage::weapon_mods_hand(ep, a, w, off_hand);
    // Two-weapon fighting's penalty of the hand, Rapid Shot's −2 (CRB — Combat: Two-Weapon
    // Fighting; Feats: Rapid Shot), on the attack and its confirmation.
    if opts.twf != 0 {
        own.push(sit(Stat::Attack, opts.twf, "two-weapon fighting"));
    }
    if opts.rapid_shot {
        own.push(sit(Stat::Attack, -2, "Rapid Shot"));
    }
    // Off hand: only ½ the Str bonus to damage (CRB — Combat: Two-Weapon Fighting, Off-Hand;
    // Double Slice: the full Str bonus). The data's damage holds the full Str bonus of a
    // melee or thrown weapon (`data/README.md`), so the other half is taken off here.
    if off_hand
        && !spec.has_feat(crate::content::feats::Feat::DoubleSlice)
        && (!ranged || weapon.thrown)
    {
        let s = spec.abilities.str_mod();
        if s > 0 {
            own.push(sit(Stat::Damage, -(s - s / 2), "off hand 1/2 Str"));
        }
    }
    let range = if ranged {
        range_penalty(&weapon, d_ft)
    } else {
        0
    };
    let AttackSituation {
        mods,
        flanked,
        invisible,
    } = attack_roll_mods(ep, a, from, t, ranged, opts.charge, range, own);
    let broken = ep.weapon_broken(a, w);
    let res = crate::effects::resolve(&mods, Stat::Attack, &ctx);
    let bonus = weapon.attack_bonus + opts.penalty + res.total;
    // The transcript line's parts are formatted only when a transcript is kept.
    let keep = ep.keeps_transcript();
    let mut notes: Vec<String> = Vec::new();
    if keep && !res.applied.is_empty() {
        notes.push(res.note());
    }
    match opts.tag {
        Some(crate::rules::attack_list::EntryTag::OffHand(_)) => notes.push("off hand".into()),
        Some(crate::rules::attack_list::EntryTag::Manyshot) => {
            notes.push("Manyshot: two arrows".into())
        }
        _ => {}
    }
    // Target AC (CRB — Combat: Armor Class, Touch Attacks, Flat-Footed).
    let touch = weapon.kind == AttackKind::Touch
        || (weapon.firearm && weapon.range_increment_ft.is_some_and(|inc| d_ft <= inc));
    let (ac, denied) = target_ac(ep, a, from, t, touch, ranged, invisible, &opts, &mut notes);
    if let Some(Some(left)) = ep.st[idx(a)].ammo.get_mut(w) {
        *left = left.saturating_sub(1);
    }
    let d = ep.roll(20) as i32;
    let total = d + bonus;
    ep.attrition[idx(a)].attacks += 1;
    let hit = d != 1 && (d == 20 || total >= ac);
    let tid = ep.id_of(t).to_string();
    let ac_label = if touch { "touch AC" } else { "AC" };
    let note = if notes.is_empty() || !keep {
        String::new()
    } else {
        format!(" [{}]", notes.join(", "))
    };
    let head = if keep {
        format!(
            "{} vs {tid} d20={d}{bonus:+}={total} {ac_label} {ac}{note}",
            weapon.name
        )
    } else {
        String::new()
    };
    // Firearm misfire (Ultimate Combat — Firearms): a natural roll within the misfire value
    // (1; +4 once broken) misses; the firearm gains the broken condition, and a broken
    // firearm that misfires again explodes (here: destroyed; the explosion's damage is not
    // modelled).
    if weapon.firearm {
        let broken = ep.st[idx(a)].weapons.get(w).is_some_and(|s| s.broken);
        let misfire = if broken { 5 } else { 1 };
        if d <= misfire {
            let what = if let Some(state) = ep.st[idx(a)].weapons.get_mut(w) {
                if state.broken {
                    state.destroyed = true;
                    "MISFIRE: the broken firearm explodes (destroyed)"
                } else {
                    state.broken = true;
                    "MISFIRE: the firearm is broken"
                }
            } else {
                "MISFIRE"
            };
            ep.log_turn_with(a, || format!("{head} -> {what}"));
            return;
        }
    }
    if !hit {
        ep.log_turn_with(a, || format!("{head} -> MISS"));
        return;
    }
    // Mirror image (CRB — Spells: Mirror Image): the hit may strike an image instead.
    if let Some(image) = crate::rules::magic::mirror_image_takes(ep, t) {
        ep.log_turn_with(a, || format!("{head} -> HIT {image}"));
        return;
    }
    // Critical threat and confirmation: the confirmation is an attack roll with the same
    // bonus against the same AC; natural 20 confirms, natural 1 fails (CRB — Combat: Critical
    // Hits). A creature "not subject to critical hits" (trait `immune_critical`) takes a normal
    // hit and no confirmation is rolled.
    let mut mult = 1;
    let mut crit_note = String::new();
    // A broken weapon threatens only on a natural 20 and multiplies by ×2.
    let threat = if broken {
        20
    } else {
        crate::content::feats::crit_range(&spec, &weapon)
    };
    if d >= threat {
        if ep.traits(t).immune_critical {
            crit_note = " (immune to critical hits)".into();
        } else {
            let c = ep.roll(20) as i32;
            let ct = c + bonus;
            let confirmed = c != 1 && (c == 20 || ct >= ac);
            if confirmed {
                mult = if broken { 2 } else { weapon.crit_mult };
                if keep {
                    crit_note = format!(" x{mult} (confirm d20={c}{bonus:+}={ct})");
                }
            } else if keep {
                crit_note = format!(" (threat not confirmed d20={c}{bonus:+}={ct})");
            }
        }
    }
    // Concealment (CRB — Combat: Concealment): after the hit and the confirmation.
    let concealment = crate::rules::concealment::roll_concealment(ep, a, t);
    if let Some(c) = &concealment {
        if c.missed {
            ep.log_turn_with(a, || format!("{head} -> MISS ({c}){crit_note}"));
            return;
        }
        if keep {
            crit_note = format!("{crit_note} ({c})");
        }
    }
    let miss = concealment.map_or(0, |c| c.chance);
    // Sneak attack (CRB — Classes: Rogue, Sneak Attack): when the target is denied its Dex
    // bonus to AC or flanked, melee or ranged within 30 ft; never against a target with
    // concealment nor one immune to precision damage.
    let sneak = spec.resolved().sneak_dice;
    let sneak = if sneak > 0
        && miss == 0
        && !ep.traits(t).immune_precision
        && (denied || flanked)
        && (!ranged || d_ft <= 30)
    {
        sneak
    } else {
        0
    };
    let dmg_mod = crate::effects::resolve(&mods, Stat::Damage, &ctx);
    let hd = crate::rules::damage::HitDamage {
        mult,
        dmg_mod: dmg_mod.total,
        sneak_d6: sneak,
        vital_dice: u32::from(opts.vital_strike),
        skip_precision: false,
    };
    let mut dmg = roll_damage(ep, a, w, t, hd);
    // Manyshot (CRB — Feats: Manyshot): the second arrow hits with the first; its damage is
    // rolled apart (DR and resistances apply to each arrow), without the critical
    // multiplier and without precision damage, with the other damage bonuses.
    if opts.tag == Some(crate::rules::attack_list::EntryTag::Manyshot) {
        let second = roll_damage(
            ep,
            a,
            w,
            t,
            crate::rules::damage::HitDamage {
                mult: 1,
                dmg_mod: dmg_mod.total,
                skip_precision: true,
                ..Default::default()
            },
        );
        dmg.total += second.total;
        dmg.note = format!(
            "{} [second arrow {}{}]",
            dmg.note, second.total, second.note
        );
    }
    ep.attrition[idx(a)].hits += 1;
    if mult > 1 {
        ep.attrition[idx(a)].crits += 1;
    }
    let verdict = if mult > 1 { "CRIT" } else { "HIT" };
    let head = if keep {
        format!("{head} -> {verdict}{crit_note}")
    } else {
        head
    };
    let line = |before: i32, after: i32| {
        format!(
            "{head} {} damage{} ({tid} hp {before}->{after})",
            dmg.total, dmg.note
        )
    };
    crate::rules::damage::take_damage(ep, Some(a), t, dmg.total, Some(&line));
    // Trip (Bestiary — Universal Monster Rules: Trip): a free trip attempt on a hit with the
    // specified attack, without provoking.
    if ep.conscious(t) && ep.conscious(a) && spec.resolved().trip_rider[w] {
        crate::rules::maneuvers::free_trip(ep, a, t, w);
    }
}

/// The attack-roll modifiers of one attack as [`attack_roll_mods`] collected them.
pub(crate) struct AttackSituation {
    /// The modifiers, in the order the transcript lists them.
    pub mods: Vec<Modifier>,
    /// The attacker flanks the target (melee; sneak attack reads it).
    pub flanked: bool,
    /// The attacker is invisible to the target: the target is denied its Dex bonus to AC.
    pub invisible: bool,
}

/// The one collector of attack-roll modifiers, for weapon attacks ([`attack_roll`]) and
/// spells' touch and ray attacks (`rules::magic`) alike (CRB — Combat: Table: Attack Roll
/// Modifiers; Conditions: Helpless, Invisible; Special Attacks: Aid Another; Magic: Aiming a
/// Spell — Ray, "as if with a ranged weapon"; Combat: Touch Spells in Combat), in this order:
/// charge +2 (`charge`); melee: flanking +2, higher ground +1; ranged: `range_penalty` (a
/// weapon's range increments; 0 for a ray, which has none) and shooting into melee −4; a
/// helpless target +4 (melee); an invisible attacker +2 unless the target is blinded; then
/// `own` — the attacker's conditions and feats (prone −4 melee, shaken, fighting defensively…;
/// a weapon adds Power Attack, a broken weapon, two-weapon fighting, Rapid Shot); then aid
/// another's attack-mode bonuses against `t`, spent by this roll. `from` is the attacker's
/// square (Spring Attack and Shot on the Run attack from a square of their path).
#[allow(clippy::too_many_arguments)]
pub(crate) fn attack_roll_mods(
    ep: &mut Episode,
    a: CombatantId,
    from: crate::geometry::grid::Cell,
    t: CombatantId,
    ranged: bool,
    charge: bool,
    range_penalty: i32,
    own: Vec<Modifier>,
) -> AttackSituation {
    let mut mods: Vec<Modifier> = Vec::new();
    let sit = |v: i32, src: &str| Modifier::new(Stat::Attack, v, BonusType::Untyped, src);
    if charge {
        mods.push(sit(2, "charge"));
    }
    let flanked = !ranged && flanking(ep, a, from, t);
    if !ranged {
        if flanked {
            mods.push(sit(2, "flanking"));
        }
        let (ea, et) = (
            ep.enc.grid.elevation(from),
            ep.enc.grid.elevation(ep.st[idx(t)].pos),
        );
        if ea > et {
            mods.push(sit(1, "high ground"));
        }
    } else {
        if range_penalty != 0 {
            mods.push(sit(range_penalty, "range"));
        }
        let im = into_melee_penalty(ep, a, t);
        if im != 0 {
            mods.push(sit(im, "into melee"));
        }
    }
    // Helpless target: +4 to melee attacks (CRB — Conditions: Helpless).
    if !ranged && ep.cond_flag(t, |d| d.helpless) {
        mods.push(sit(4, "helpless target"));
    }
    // Invisible attacker: +2 (CRB — Conditions: Invisible).
    let invisible =
        ep.has_condition(a, Condition::Invisible) && !ep.has_condition(t, Condition::Blinded);
    if invisible {
        mods.push(sit(2, "invisible"));
    }
    mods.extend(own);
    // Aid another (CRB — Combat: Aid Another): the attacker's attack-mode bonuses against
    // this target, spent by this roll.
    let aid = crate::rules::aid::spend(ep, a, crate::actions::AidMode::Attack, t);
    if aid > 0 {
        mods.push(sit(aid, "aid another"));
    }
    AttackSituation {
        mods,
        flanked,
        invisible,
    }
}

/// The AC an attack roll of `a` (from `from`) must reach against `t`, for weapon and spell
/// attacks alike, and whether `t` is denied its Dex bonus to AC against it: [`armor_class`]
/// (touch or not; denied when `t` is ([`Episode::denied_dex`]) or the attacker is
/// `invisible` to it — CRB — Conditions: Invisible), a charging target's −2 (CRB — Combat:
/// Charge), Mobility's +4 dodge against a movement attack of opportunity (`opts`), aid
/// another's AC-mode bonuses of `t` against `a` (spent by this roll), then cover (CRB —
/// Combat: Cover). Each change is added to `notes`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn target_ac(
    ep: &mut Episode,
    a: CombatantId,
    from: crate::geometry::grid::Cell,
    t: CombatantId,
    touch: bool,
    ranged: bool,
    invisible: bool,
    opts: &AttackOpts,
    notes: &mut Vec<String>,
) -> (i32, bool) {
    let denied = ep.denied_dex(t) || invisible;
    let (mut ac, ac_note) = armor_class(ep, t, touch, denied, ranged);
    if !ac_note.is_empty() {
        notes.push(format!("target {ac_note}"));
    }
    if ep.st[idx(t)].charging {
        ac -= 2;
        notes.push("target charging AC -2".into());
    }
    let mobility = crate::rules::feats_movement::mobility_bonus(ep, t, opts, denied);
    if mobility != 0 {
        ac += mobility;
        notes.push(format!("target Mobility dodge +{mobility}"));
    }
    // Aid another: the target's AC-mode bonuses against this attacker, spent by this roll.
    let aid_ac = crate::rules::aid::spend(ep, t, crate::actions::AidMode::Ac, a);
    if aid_ac > 0 {
        ac += aid_ac;
        notes.push(format!("aid another AC +{aid_ac}"));
    }
    let cover = cover_bonus(ep, a, from, t, ranged);
    if cover > 0 {
        ac += cover;
        notes.push(format!("cover +{cover}"));
    }
    (ac, denied)
}

/// The AC bonus types a touch attack ignores (CRB — Combat: Touch Attacks).
const TOUCH_EXCLUDED: [BonusType; 3] =
    [BonusType::Armor, BonusType::Shield, BonusType::NaturalArmor];

/// Armor Class of `t` against an attack (CRB — Combat: Armor Class, Touch Attacks,
/// Flat-Footed): total, touch or flat-footed from the printed numbers; then the change of its
/// Dexterity part from Dex penalties (a denied creature keeps only a negative Dex modifier;
/// helpless: Dex 0), then its conditions' and spells' AC modifiers (vs melee / vs ranged;
/// dodge bonuses are lost when denied Dex; a touch attack leaves out armor, shield and
/// natural armor bonuses — CRB — Combat: Touch Attacks: "your AC doesn't include any armor
/// bonus, shield bonus, or natural armor bonus" — so *shield* or *mage armor* never raise
/// touch AC). Returns the AC and a note of the modifiers applied.
pub(crate) fn armor_class(
    ep: &Episode,
    t: CombatantId,
    touch: bool,
    denied: bool,
    ranged: bool,
) -> (i32, String) {
    use crate::effects::RollContext;
    let tspec = ep.spec(t);
    let mut ac = match (touch, denied) {
        (false, false) => tspec.ac.total,
        (false, true) => tspec.ac.flat_footed,
        (true, false) => tspec.ac.touch,
        (true, true) => tspec.ac.touch - (tspec.ac.total - tspec.ac.flat_footed).max(0),
    };
    let mut notes = Vec::new();
    let (base, eff) = ep.dex_mods(t);
    let contrib = |m: i32| if denied { m.min(0) } else { m };
    let dd = contrib(eff) - contrib(base);
    if dd != 0 {
        ac += dd;
        notes.push(format!("Dex {dd:+}"));
    }
    let mods: Vec<_> = ep
        .modifiers_for(t)
        .into_iter()
        .filter(|m| !(denied && m.bonus_type == BonusType::Dodge))
        .filter(|m| !(touch && TOUCH_EXCLUDED.contains(&m.bonus_type)))
        .collect();
    let ctx = RollContext {
        ranged,
        ..Default::default()
    };
    let r = crate::effects::resolve(&mods, Stat::Ac, &ctx);
    ac += r.total;
    if !r.applied.is_empty() {
        notes.push(r.note());
    }
    (ac, notes.join(", "))
}
