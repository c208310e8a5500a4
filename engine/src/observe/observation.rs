//! The observation snapshot (seed "Snapshot d'observation"): owned data, never aliasing the
//! engine, serialized to JSON with the seed's key names.
use crate::actions::{ActionResult, Budget};
use crate::effects::conditions::Condition;
use crate::geometry::grid::Cell;
use serde::Serialize;
use std::collections::BTreeMap;

/// One action result, as observed (the seed's `ActionResult(kind, ok, reason)`, plus the
/// refusal's detail).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ReadiedObs {
    /// What it does when it fires.
    pub action: crate::actions::Action,
    pub trigger: crate::actions::ReadyTrigger,
    /// The round it was readied in.
    pub round: u32,
}

/// One action result as the observation shows it (the seed's `ActionResult`, plus the
/// refusal's detail).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ResultObs {
    pub kind: crate::actions::ActionKind,
    pub ok: bool,
    /// The seed's reason code (`None` when accepted).
    pub reason: Option<&'static str>,
    /// The refusal's detail in words, when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
}

impl ResultObs {
    fn of(r: &ActionResult) -> ResultObs {
        ResultObs {
            kind: r.kind,
            ok: r.ok,
            reason: r.code(),
            detail: r
                .reason
                .as_ref()
                .map(|x| x.detail())
                .filter(|d| !d.is_empty()),
        }
    }
}

/// One attack of a combatant, as observed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AttackObs {
    /// Index in the combatant's `attacks` (the `weapon` of an action).
    pub index: usize,
    pub id: String,
    pub name: String,
    pub kind: String,
    pub attack_bonus: i32,
    /// Damage, e.g. `1d8+3 slashing`.
    pub damage: String,
    pub crit_range: i32,
    pub crit_mult: i32,
    /// Reach in feet (melee) or `None`.
    pub reach_ft: Option<i32>,
    pub range_increment_ft: Option<i32>,
    pub count: u32,
    pub natural: bool,
    pub secondary: bool,
    /// Shots or throws left (`None` = not counted).
    pub ammunition_left: Option<u32>,
    /// Broken by a sunder: −2 attack and damage (CRB — Conditions: Broken).
    pub weapon_broken: bool,
    /// Dropped (disarm): unusable until `retrieve_weapon`.
    pub weapon_dropped: bool,
    /// Where it lies when dropped.
    pub dropped_at: Option<Cell>,
    /// Destroyed by a sunder: unusable for good.
    pub weapon_destroyed: bool,
    /// Sheathed (not in hand): it neither attacks nor threatens until `draw_weapon` (CRB —
    /// Actions in Combat: Draw or Sheathe a Weapon).
    pub weapon_sheathed: bool,
    /// Item hit points left (sunder).
    pub item_hp: i32,
}

/// Per-combatant state.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CombatantObs {
    pub index: u16,
    pub id: String,
    pub name: String,
    pub side: String,
    pub pos: Cell,
    pub occupied_cells: Vec<Cell>,
    pub size: String,
    pub hp: i32,
    pub hp_max: i32,
    /// Conscious and able to act (`hp >= 0`, not dead).
    pub active: bool,
    pub dead: bool,
    pub disabled: bool,
    pub dying: bool,
    pub stabilized: bool,
    /// Condition names with rounds left (`None` = no duration).
    pub conditions: BTreeMap<String, Option<u32>>,
    pub ac: AcObs,
    pub saves: SavesObs,
    pub bab: i32,
    pub initiative_mod: i32,
    pub initiative_total: i32,
    pub speed_land_ft: i32,
    pub speed_effective_ft: i32,
    pub natural_reach_ft: i32,
    pub creature_type: Option<String>,
    pub dr: Option<DrObs>,
    pub resistances: BTreeMap<String, i32>,
    pub immunities: Vec<String>,
    pub spell_resistance: i32,
    pub attacks: Vec<AttackObs>,
    pub feats: Vec<String>,
    pub features: Vec<String>,
    pub aoo_remaining: u32,
    pub moved_this_turn: bool,
    pub player_character: bool,
    pub last_turn_results: Vec<ResultObs>,
    /// Feat names the engine does not know (reported, ignored — `engine/src/content/feats.rs`).
    pub unknown_feats: Vec<String>,
    /// Rule traits (`immune_critical`, `immune_flanking`, `immune_precision`,
    /// `cannot_be_tripped`, `no_legs`).
    pub traits: Vec<String>,
    /// Sneak attack dice (d6) of the combatant, 0 without sneak attack.
    pub sneak_dice: u32,
    /// Concealment miss chance its conditions give it against attacks, in percent.
    pub concealment: u32,
    /// Denied its Dexterity bonus to AC by its own conditions.
    pub denied_dex_to_ac: bool,
    /// Combat Maneuver Bonus with its current conditions (CRB — Combat Maneuvers).
    pub cmb: i32,
    /// Combat Maneuver Defense now (conditions, denied Dex).
    pub cmd: i32,
    /// Power Attack is on.
    pub power_attack: bool,
    /// Prone.
    pub prone: bool,
    /// Id of the creature it is grappling with, if any.
    pub grappled_with: Option<String>,
    /// It initiated (controls) that grapple.
    pub grapple_controller: bool,
    /// Ran this turn (denied Dex to AC unless it has Run).
    pub running: bool,
    /// In total defense until its next turn: no attacks of opportunity (CRB — Actions in
    /// Combat: Total Defense).
    pub total_defense: bool,
    /// Fights defensively until its next turn: −4 on its attack rolls (the seed's key).
    pub fight_defensively: bool,
    /// Dodge bonus to AC of total defense (4) or fighting defensively (2), 0 without; lost
    /// while denied Dex (the seed's key).
    pub defensive_ac_bonus: i32,
    /// Its readied action waiting for its trigger, `null` without (the seed's `readied`:
    /// `{action, trigger, round}`; CRB — Special Initiative Actions: Ready).
    pub readied: Option<ReadiedObs>,
    /// It delayed this round and its turn comes back later in it (CRB — Delay).
    pub delayed: bool,
    /// An immediate action used since its last turn: no immediate action until then, and its
    /// next turn has no swift action (the seed's `immediate_used`).
    pub immediate_used: bool,
    /// Aware of its opponents at the start (the seed's `aware`): the unaware do not act in
    /// the surprise round.
    pub aware: bool,
    /// Declared Lunge this turn: +5 ft reach on its melee attacks until the end of its turn,
    /// −2 AC until the start of its next (CRB — Feats: Lunge).
    pub lunge: bool,
    /// Cleave's AC penalty (−2 after a cleave, until the start of its next turn; 0 without —
    /// CRB — Feats: Cleave).
    pub cleave_ac_penalty: i32,
    /// A foe's Stand Still stopped it: it cannot move for the rest of its turn (CRB — Feats:
    /// Stand Still).
    pub stood_still: bool,
    /// Deadly Aim is on (CRB — Feats: Deadly Aim; the seed's key).
    pub deadly_aim: bool,
    /// Combat Expertise is on (the toggle; CRB — Feats: Combat Expertise; the seed's key).
    pub combat_expertise: bool,
    /// Combat Expertise in effect until its next turn: its +X dodge AC (−X melee attack and
    /// CMB); 0 when not in effect.
    pub combat_expertise_ac_bonus: i32,
    /// Aid another bonus (+2 per success, stacking) on its next attack roll, summed over the
    /// opponents it applies to (the seed's key; CRB — Combat: Aid Another).
    pub aid_attack_bonus: i32,
    /// Aid another bonus (+2 per success, stacking) to its AC against the next attack of the
    /// opponents it applies to, summed (the seed's key).
    pub aid_ac_bonus: i32,
    /// Any of its weapons is broken / dropped (summaries of `attacks`).
    pub weapon_broken: bool,
    pub weapon_dropped: bool,
    /// Its spells and spell-like abilities (the spellbook; its index is the `spell` of a
    /// `cast_spell` action) — the seed's `spells`.
    pub spells: Vec<SpellObs>,
    /// Spell slots left by spell level (`"1": 3`; levels with slots only).
    pub spell_slots_left: BTreeMap<String, u32>,
    /// The casting ability (`int`, `wis`, `cha`), if a caster.
    pub casting_ability: Option<String>,
    /// Caster level (0 without spells).
    pub caster_level: i32,
    /// Concentration check bonus.
    pub concentration_bonus: i32,
    /// Metamagic feats it has, the ones it may apply per cast (a cast's `metamagic` or
    /// `activate_metamagic` — CRB — Feats: Metamagic Feats).
    pub metamagic_feats: Vec<String>,
    /// The 1-round casting in progress (the seed's `pending_cast`: `{spell_name, target_id,
    /// target_pos}`), `null` without.
    pub pending_cast: Option<PendingCastObs>,
    /// The touch spell whose charge it holds (CRB — Holding the Charge), `null` without.
    pub held_charge: Option<String>,
    /// Spell effects on it with rounds left (the seed's `active_buffs`: buffs and debuffs).
    pub active_buffs: BTreeMap<String, u32>,
    /// Recurring spell damage on it (the seed's `recurring_damage`).
    pub recurring_damage: Vec<RecurringObs>,
    /// While it bleeds: the hit points it loses at the start of each of its turns, dice
    /// notation (`"1"`, `"1d6"`; the seed's `bleed_damage`, there an integer with 0 for not
    /// bleeding); absent when it does not bleed.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bleed_damage: Option<String>,
    /// Mirror images left.
    pub mirror_images: u32,
    /// Declared `cast_defensively` this turn.
    pub cast_defensively: bool,
    /// Class features the engine does not model yet (reported, like unknown feats).
    pub class_features_not_modelled: Vec<String>,
    /// A slot reserved for a summoned creature, not on the map now (never summoned, or
    /// gone): it reads `dead` too.
    pub absent: bool,
    /// The id of its summoner, for a summoned creature's slot.
    pub summoned_by: Option<String>,
    /// A summoned creature's turns left before it vanishes (0 otherwise).
    pub summon_rounds_left: u32,
}

/// One spell of a spellbook, as observed (the seed's summary keys).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SpellObs {
    /// Index in the spellbook (the `spell` of a `cast_spell` action).
    pub index: usize,
    pub name: String,
    pub level: u8,
    pub school: String,
    /// Range in feet at its caster level (0: personal; touch: the caster's reach).
    pub range_ft: i32,
    /// `personal`, `touch`, `close`, `medium`, `long` or `feet`.
    pub range: String,
    /// `caster`, `creature` or `area`.
    pub targeting: String,
    /// `{shape, size_ft, origin, affects}` of its area, `null` without.
    pub area: Option<AreaObs>,
    /// `fort`, `ref` or `will`, `null` without a save.
    pub save: Option<String>,
    /// What a successful save does: `negates`, `half`, `partial`, `none`.
    pub save_effect: Option<String>,
    /// A successful save negates it (the seed's `save_negates`).
    pub save_negates: bool,
    /// Half damage on a successful save (the seed's `half_on_save`).
    pub half_on_save: bool,
    pub dc: i32,
    /// Spell resistance applies.
    pub spell_resistance: bool,
    /// The seed's casting-time code (`standard`, `one_round`…).
    pub cast_time: String,
    pub harmless: bool,
    /// `none`, `melee_touch` or `ranged_touch`.
    pub attack: String,
    pub caster_level: i32,
    /// A spell-like ability.
    pub spell_like: bool,
    /// Casts left: slots of its level, prepared copies or uses per day; `null`: unlimited.
    pub uses_left: Option<u32>,
    pub summary: String,
    pub not_modelled: Vec<String>,
}

/// An area template, as observed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AreaObs {
    pub shape: String,
    pub size_ft: u32,
    /// `point` or `caster`.
    pub origin: String,
    /// `all`, `allies` or `enemies`.
    pub affects: String,
    /// The seed's `centered_on_caster`.
    pub centered_on_caster: bool,
}

/// A 1-round casting in progress, as observed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PendingCastObs {
    pub spell_name: String,
    pub target_id: Option<String>,
    pub target_pos: Option<Cell>,
}

/// Recurring spell damage, as observed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RecurringObs {
    pub spell: String,
    pub formula: String,
    pub types: Vec<String>,
    pub rounds_left: u32,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct AcObs {
    pub total: i32,
    pub touch: i32,
    pub flat_footed: i32,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SavesObs {
    pub fort: i32,
    #[serde(rename = "ref")]
    pub reflex: i32,
    pub will: i32,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DrObs {
    pub amount: i32,
    pub bypass: Vec<String>,
}

/// Per actor × target pair (actor = the observation's acting combatant).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PairObs {
    pub target_index: u16,
    pub target_id: String,
    pub distance_ft: i32,
    /// Index of the weapon the default policy would use, or `None`.
    pub weapon_for: Option<usize>,
    /// Why no weapon can attack (`no_weapon`, `no_line_of_effect`, `out_of_range`).
    pub weapon_reason: Option<String>,
    pub range_penalty: i32,
    pub can_charge: bool,
    pub charge_reason: Option<String>,
    pub can_step5_to_attack: bool,
    pub has_line_of_effect: bool,
    pub flanking: bool,
    /// Cheapest movement cost to a square from which to attack, in feet (`None` unreachable).
    pub movement_cost_ft: Option<i32>,
    pub target_threatens_me: bool,
    pub cover_bonus: i32,
}

/// One terrain type of the map, as observed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TerrainSemantics {
    #[serde(rename = "type")]
    pub kind: String,
    pub move_cost: Option<u32>,
    pub blocks_los: bool,
    pub cover: bool,
    pub cover_bonus: u8,
}

/// The full snapshot.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Observation {
    /// The round (0: the surprise round, or before initiative).
    pub round: u32,
    /// This is the surprise round (CRB — Combat: The Surprise Round).
    pub surprise_round: bool,
    /// Id of the combatant whose decision this is (or who acts next).
    pub acting_combatant: Option<String>,
    pub acting_index: Option<u16>,
    pub budget: Option<Budget>,
    pub combatants: Vec<CombatantObs>,
    pub pairs: Vec<PairObs>,
    /// Terrain rows as strings.
    pub terrain: Vec<String>,
    pub elevation: Vec<Vec<i32>>,
    /// Squares threatened (melee, AoO) by enemies of the acting combatant, row-major bools.
    pub threatened: Vec<Vec<bool>>,
    pub enemies_threatening_me: Vec<String>,
    pub initiative_order: Vec<String>,
    pub terrain_semantics: BTreeMap<String, TerrainSemantics>,
    /// Persistent spell areas on the map (web, fog cloud…): `rules::magic::Zone`.
    pub spell_areas: Vec<SpellAreaObs>,
}

/// A persistent spell area, as observed.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SpellAreaObs {
    pub spell: String,
    /// Id of its caster.
    pub caster: String,
    /// Its squares (row, col).
    pub cells: Vec<Cell>,
    /// Its caster's turns left.
    pub rounds_left: u32,
    /// The condition it gives a creature inside at the start of its turn, if any.
    pub condition: Option<String>,
    /// It gives concealment (20 % adjacent, 50 % farther).
    pub concealment: bool,
}

/// Build the observation of an episode for `viewer` (the pending decision's actor, or the
/// combatant whose turn it is, when `None`).
pub(crate) fn build(
    ep: &crate::episode::Episode,
    viewer: Option<crate::actions::CombatantId>,
) -> Observation {
    use crate::actions::CombatantId;
    use crate::rules;
    let enc = ep.encounter();
    let decision = ep.decision().cloned();
    let acting = viewer.or(decision.as_ref().map(|d| d.actor)).or_else(|| {
        ep.initiative_order()
            .get(
                ep.turn_pos
                    .min(ep.initiative_order().len().saturating_sub(1)),
            )
            .copied()
    });
    let combatants: Vec<CombatantObs> = ep
        .ids()
        .map(|c| {
            let i = c.0 as usize;
            let p = &enc.combatants[i];
            let s = &p.spec;
            let st = &ep.st[i];
            let mut conditions = BTreeMap::new();
            for c in &st.conditions {
                conditions.insert(c.condition.name().to_string(), c.rounds);
            }
            if st.charging {
                conditions.insert("charging".to_string(), Some(1));
            }
            if st.life == crate::episode::LifeState::Disabled {
                conditions.insert("disabled".to_string(), None);
            }
            if matches!(
                st.life,
                crate::episode::LifeState::Dying | crate::episode::LifeState::Stable
            ) {
                conditions.insert("unconscious".to_string(), None);
            }
            CombatantObs {
                unknown_feats: crate::content::feats::unknown_feats(s),
                traits: s.traits.clone(),
                sneak_dice: ep.sneak_attack_dice(c),
                concealment: ep.cond_defs(c).map(|d| d.miss_chance).max().unwrap_or(0),
                denied_dex_to_ac: ep.denied_dex(c),
                cmb: ep.cmb(c),
                cmd: ep.cmd(c),
                power_attack: st.power_attack,
                prone: ep.has_condition(c, Condition::Prone),
                grappled_with: st.grapple.map(|g| ep.id_of(g.with).to_string()),
                grapple_controller: st.grapple.is_some_and(|g| g.controller),
                running: st.running,
                total_defense: st.total_defense,
                fight_defensively: st.fight_defensively,
                defensive_ac_bonus: st.defensive_ac_bonus,
                readied: st.readied.as_ref().map(|r| ReadiedObs {
                    action: r.action.clone(),
                    trigger: r.trigger,
                    round: r.round,
                }),
                delayed: st.resume_delayed,
                immediate_used: st.immediate_used,
                aware: s.aware,
                lunge: st.lunge,
                cleave_ac_penalty: if st.cleaving {
                    crate::rules::feats_movement::CLEAVE_AC
                } else {
                    0
                },
                stood_still: st.stood_still,
                deadly_aim: st.deadly_aim,
                combat_expertise: st.combat_expertise,
                combat_expertise_ac_bonus: st.combat_expertise_ac,
                aid_attack_bonus: rules::aid::sum(ep, c, crate::actions::AidMode::Attack, None),
                aid_ac_bonus: rules::aid::sum(ep, c, crate::actions::AidMode::Ac, None),
                weapon_broken: st.weapons.iter().any(|w| w.broken),
                weapon_dropped: st.weapons.iter().any(|w| w.dropped_at.is_some()),
                spells: spells_obs(ep, c),
                spell_slots_left: (1..10usize)
                    .filter(|&l| s.slots_of(l as u8).unwrap_or(0) > 0)
                    .map(|l| (l.to_string(), st.slots_left.get(l).copied().unwrap_or(0)))
                    .collect(),
                casting_ability: s.casting_ability.map(|a| format!("{a:?}").to_lowercase()),
                caster_level: if s.has_spells() { s.caster_level() } else { 0 },
                concentration_bonus: if s.has_spells() { s.concentration() } else { 0 },
                metamagic_feats: s
                    .feats
                    .iter()
                    .filter(|f| {
                        crate::content::feats::Feat::from_base_name(
                            crate::content::feats::split_name(f).0,
                        )
                        .is_some_and(crate::content::feats::is_metamagic)
                    })
                    .cloned()
                    .collect(),
                pending_cast: st.pending_cast.map(|pc| PendingCastObs {
                    spell_name: s.spellbook()[pc.spell].spell.name.clone(),
                    target_id: pc.target.map(|t| ep.id_of(t).to_string()),
                    target_pos: pc.at,
                }),
                held_charge: st
                    .held_charge
                    .map(|h| s.spellbook()[h.spell].spell.name.clone()),
                active_buffs: st
                    .spell_effects
                    .iter()
                    .map(|e| (e.spell.clone(), e.rounds))
                    .collect(),
                bleed_damage: ep
                    .has_condition(c, crate::effects::conditions::Condition::Bleeding)
                    .then(|| st.bleed_damage.clone().unwrap_or_else(|| "1".into())),
                recurring_damage: st
                    .recurring
                    .iter()
                    .map(|r| RecurringObs {
                        spell: r.spell.clone(),
                        formula: r.dice.clone(),
                        types: r.types.clone(),
                        rounds_left: r.rounds,
                    })
                    .collect(),
                mirror_images: st.mirror_images,
                cast_defensively: st.cast_defensively,
                class_features_not_modelled: s.class_features.clone(),
                absent: st.absent,
                summoned_by: p.summoned_by.map(|(c, _)| enc.combatants[c].id.clone()),
                summon_rounds_left: st.summon_rounds,
                index: c.0,
                id: p.id.clone(),
                name: s.name.clone(),
                side: p.side.clone(),
                pos: st.pos,
                occupied_cells: ep.cells_of(c),
                size: format!("{:?}", s.size),
                hp: st.hp,
                hp_max: s.max_hp(),
                active: st.life.is_conscious(),
                dead: st.life == crate::episode::LifeState::Dead,
                disabled: st.life == crate::episode::LifeState::Disabled,
                dying: st.life == crate::episode::LifeState::Dying,
                stabilized: st.life == crate::episode::LifeState::Stable,
                conditions,
                ac: AcObs {
                    total: s.ac.total,
                    touch: s.ac.touch,
                    flat_footed: s.ac.flat_footed,
                },
                saves: SavesObs {
                    fort: s.saves.fort,
                    reflex: s.saves.reflex,
                    will: s.saves.will,
                },
                bab: s.bab,
                initiative_mod: s.initiative_mod,
                initiative_total: st.initiative_total,
                speed_land_ft: s.speed_land_ft,
                speed_effective_ft: ep.speed_ft(c),
                natural_reach_ft: s.size.natural_reach_ft(),
                creature_type: s.creature_type.clone(),
                dr: s.dr.as_ref().map(|d| DrObs {
                    amount: d.amount,
                    bypass: d.bypass.clone(),
                }),
                resistances: s.resistances.clone(),
                immunities: s.immunities.clone(),
                spell_resistance: s.spell_resistance,
                attacks: s
                    .attacks
                    .iter()
                    .enumerate()
                    .map(|(k, w)| AttackObs {
                        index: k,
                        id: w.weapon_id(),
                        name: w.name.clone(),
                        kind: format!("{:?}", w.kind).to_lowercase(),
                        attack_bonus: w.attack_bonus,
                        damage: w
                            .damage
                            .iter()
                            .map(|d| {
                                if d.types.is_empty() {
                                    d.formula.clone()
                                } else {
                                    format!("{} {}", d.formula, d.types.join("/"))
                                }
                            })
                            .collect::<Vec<_>>()
                            .join(" + "),
                        crit_range: w.crit_range,
                        crit_mult: w.crit_mult,
                        reach_ft: (!w.is_ranged()).then(|| rules::reach::melee_reach(ep, c, w).1),
                        range_increment_ft: w.range_increment_ft,
                        count: w.count,
                        natural: w.natural,
                        secondary: w.secondary,
                        ammunition_left: st.ammo.get(k).copied().flatten(),
                        weapon_broken: st.weapons.get(k).is_some_and(|x| x.broken),
                        weapon_dropped: st.weapons.get(k).is_some_and(|x| x.dropped_at.is_some()),
                        dropped_at: st.weapons.get(k).and_then(|x| x.dropped_at),
                        weapon_destroyed: st.weapons.get(k).is_some_and(|x| x.destroyed),
                        weapon_sheathed: ep.weapon_sheathed(c, k),
                        item_hp: st.weapons.get(k).map_or(0, |x| x.hp),
                    })
                    .collect(),
                feats: s.feats.clone(),
                features: s.features.clone(),
                aoo_remaining: ep.aoo_remaining(c),
                moved_this_turn: decision.as_ref().is_some_and(|d| d.actor == c) && ep.turn.moved,
                player_character: s.player_character,
                last_turn_results: st.last_turn_results.iter().map(ResultObs::of).collect(),
            }
        })
        .collect();
    let mut pairs = Vec::new();
    let mut threatened = vec![vec![false; enc.map.cols as usize]; enc.map.rows as usize];
    let mut enemies_threatening_me = Vec::new();
    if let Some(a) = acting {
        let fields = PairFields::of(ep, a);
        for t in ep.ids().filter(|&t| t != a) {
            let p = pair(ep, a, &fields, t);
            pairs.push(PairObs {
                target_index: t.0,
                target_id: ep.id_of(t).to_string(),
                distance_ft: p.distance_ft,
                weapon_for: p.weapon_for.ok(),
                weapon_reason: p.weapon_for.err().map(|r| r.code().to_string()),
                range_penalty: p.range_penalty,
                can_charge: p.charge.is_ok(),
                charge_reason: p.charge.err().map(|r| r.code().to_string()),
                can_step5_to_attack: p.can_step5_to_attack,
                has_line_of_effect: p.has_line_of_effect,
                flanking: p.flanking,
                movement_cost_ft: p.movement_cost_ft,
                target_threatens_me: p.target_threatens_me,
                cover_bonus: p.cover_bonus,
            });
            if p.target_threatens_me {
                enemies_threatening_me.push(ep.id_of(t).to_string());
            }
        }
        let enemies: Vec<CombatantId> = ep.ids().filter(|&x| ep.enemies(a, x)).collect();
        let flat = rules::reach::threatened_squares(ep, &enemies);
        let cols = enc.map.cols as usize;
        for (r, row) in threatened.iter_mut().enumerate() {
            for (c, v) in row.iter_mut().enumerate() {
                *v = flat[r * cols + c];
            }
        }
    }
    let spell_areas = ep
        .ids()
        .flat_map(|c| {
            ep.st[c.0 as usize].zones.iter().map(move |z| SpellAreaObs {
                spell: z.spell.clone(),
                caster: ep.id_of(c).to_string(),
                cells: z.cells.clone(),
                rounds_left: z.rounds,
                condition: z.condition.clone(),
                concealment: z.concealment,
            })
        })
        .collect();
    Observation {
        spell_areas,
        round: ep.round(),
        surprise_round: ep.in_surprise_round(),
        acting_combatant: acting.map(|a| ep.id_of(a).to_string()),
        acting_index: acting.map(|a| a.0),
        budget: decision.as_ref().map(|d| d.budget),
        combatants,
        pairs,
        terrain: enc.map.terrain.iter().map(|r| r.iter().collect()).collect(),
        elevation: enc.map.elevation.clone(),
        threatened,
        enemies_threatening_me,
        initiative_order: ep
            .initiative_order()
            .iter()
            .map(|&c| ep.id_of(c).to_string())
            .collect(),
        terrain_semantics: enc
            .map
            .legend
            .iter()
            .map(|(ch, t)| {
                (
                    ch.to_string(),
                    TerrainSemantics {
                        kind: t.kind.clone(),
                        move_cost: t.move_cost,
                        blocks_los: t.blocks_los,
                        cover: t.cover,
                        cover_bonus: t.effective_cover_bonus(),
                    },
                )
            })
            .collect(),
    }
}

/// The actor's movement fields one observation's pairs share: computed once per observation,
/// not per target ([`pair`]).
pub(crate) struct PairFields {
    /// The actor's anchor square.
    pos: crate::geometry::grid::Cell,
    /// Squares it can stop on with its whole movement, sorted by cost (squares of movement),
    /// then square.
    stoppable: Vec<(crate::geometry::grid::Cell, u32)>,
    /// Its field bounded to one square (the 5-foot step).
    step_field: crate::geometry::grid::PathField,
}

impl PairFields {
    /// The fields of actor `a` now (`move_field(a, None)` and `move_field(a, Some(1))`).
    pub(crate) fn of(ep: &crate::episode::Episode, a: crate::actions::CombatantId) -> PairFields {
        let mut stoppable = ep.move_field(a, None).stoppable();
        stoppable.sort_by_key(|(c, k)| (*k, *c));
        PairFields {
            pos: ep.position(a),
            stoppable,
            step_field: ep.move_field(a, Some(1)),
        }
    }
}

/// One actor × target pair's facts: what the JSON observation's [`PairObs`] and the tensor's
/// `rel_` features both show ([`pair`] is their one source, so the two cannot disagree).
pub(crate) struct Pair {
    /// Distance in feet from the actor's square ([`crate::rules::ranged::distance_ft_from`]).
    pub distance_ft: i32,
    /// The weapon (attack index) that can attack the target from here, or why none.
    pub weapon_for: Result<usize, crate::actions::Reject>,
    /// Range penalty of that weapon at this distance (≤ 0; 0 without a weapon).
    pub range_penalty: i32,
    /// A charge at the target is possible now, or why not (CRB — Combat: Charge).
    pub charge: Result<(), crate::actions::Reject>,
    /// A 5-foot step reaches a square from which a weapon can attack it.
    pub can_step5_to_attack: bool,
    pub has_line_of_effect: bool,
    /// Flanking it with the melee weapon that can attack it (CRB — Combat: Flanking).
    pub flanking: bool,
    /// Cheapest movement cost to a square from which to attack, in feet (`None`: unreachable).
    pub movement_cost_ft: Option<i32>,
    /// An enemy that threatens the actor's square.
    pub target_threatens_me: bool,
    /// The actor threatens the target's square (any relation).
    pub i_threaten: bool,
    /// Cover bonus to the target's AC against that weapon (0 without a weapon).
    pub cover_bonus: i32,
}

/// The facts of actor `a` about target `t` (`t != a`), `fields` being [`PairFields::of`] `a`.
pub(crate) fn pair(
    ep: &crate::episode::Episode,
    a: crate::actions::CombatantId,
    fields: &PairFields,
    t: crate::actions::CombatantId,
) -> Pair {
    use crate::geometry::grid;
    use crate::rules;
    let pos = fields.pos;
    let d = rules::ranged::distance_ft_from(ep, a, pos, t);
    let weapon_for = rules::weapons::weapon_for(ep, a, pos, t);
    let w = weapon_for.as_ref().ok().copied();
    let attacks = &ep.spec(a).attacks;
    let range_penalty = w.map_or(0, |w| rules::ranged::range_penalty(&attacks[w], d));
    let ranged = w.is_some_and(|w| attacks[w].is_ranged());
    let charge = if ep.conscious(t) && ep.enemies(a, t) {
        rules::charge::charge_path(ep, a, t, None).map(|_| ())
    } else {
        Err(crate::actions::Reject::InvalidTarget {
            target: Some(t),
            why: if ep.conscious(t) {
                crate::actions::TargetIssue::Ally
            } else {
                crate::actions::TargetIssue::Unconscious
            },
        })
    };
    let step_field = &fields.step_field;
    let can_step5_to_attack = crate::actions::space::STEP_DIRECTIONS
        .iter()
        .any(|(dr, dc)| {
            let c = grid::Cell::new(pos.row + dr, pos.col + dc);
            step_field.can_stop(c)
                && step_field.cost(c) == Some(1)
                && rules::weapons::weapon_for(ep, a, c, t).is_ok()
        });
    // `stoppable` is sorted by cost: the first square from which a weapon can attack.
    let movement_cost_ft = fields
        .stoppable
        .iter()
        .find(|(c, _)| rules::weapons::weapon_for(ep, a, *c, t).is_ok())
        .map(|(_, k)| *k as i32 * grid::SQUARE_FT);
    Pair {
        distance_ft: d,
        range_penalty,
        charge,
        can_step5_to_attack,
        has_line_of_effect: crate::geometry::los::has_line_of_effect(
            &ep.encounter().grid,
            pos,
            ep.fp_side(a),
            ep.position(t),
            ep.fp_side(t),
        ),
        flanking: !ranged && w.is_some() && rules::flanking::flanking(ep, a, pos, t),
        movement_cost_ft,
        target_threatens_me: ep.enemies(a, t) && rules::reach::threatens(ep, t, a, pos),
        i_threaten: rules::reach::threatens(ep, a, t, ep.position(t)),
        cover_bonus: if w.is_some() {
            rules::cover::cover_bonus(ep, a, pos, t, ranged)
        } else {
            0
        },
        weapon_for,
    }
}

/// The spellbook of `c`, as observed.
fn spells_obs(ep: &crate::episode::Episode, c: crate::actions::CombatantId) -> Vec<SpellObs> {
    use crate::content::combatant::SpellUses;
    let s = ep.spec(c);
    let st = &ep.st[c.0 as usize];
    let snake = |x: String| {
        let mut o = String::new();
        for (i, ch) in x.chars().enumerate() {
            if ch.is_ascii_uppercase() && i > 0 {
                o.push('_');
            }
            o.push(ch.to_ascii_lowercase());
        }
        o
    };
    s.spellbook()
        .iter()
        .enumerate()
        .map(|(i, cs)| {
            let sp = &cs.spell;
            SpellObs {
                index: i,
                name: sp.name.clone(),
                level: cs.level,
                school: sp.school.clone(),
                range_ft: crate::rules::magic::range_ft(ep, c, cs),
                range: match sp.range {
                    crate::content::spells::SpellRange::Feet(_) => "feet".into(),
                    r => snake(format!("{r:?}")),
                },
                targeting: snake(format!("{:?}", sp.targeting)),
                area: sp.area.map(|a| AreaObs {
                    shape: snake(format!("{:?}", a.shape)),
                    size_ft: a.size_ft,
                    origin: snake(format!("{:?}", a.origin)),
                    affects: snake(format!("{:?}", a.affects)),
                    centered_on_caster: a.origin == crate::content::spells::AreaOrigin::Caster,
                }),
                save: sp.save.map(|x| snake(format!("{:?}", x.kind))),
                save_effect: sp.save.map(|x| snake(format!("{:?}", x.on_success))),
                save_negates: sp
                    .save
                    .is_some_and(|x| x.on_success == crate::content::spells::OnSave::Negates),
                half_on_save: sp
                    .save
                    .is_some_and(|x| x.on_success == crate::content::spells::OnSave::Half),
                dc: cs.dc,
                spell_resistance: sp.spell_resistance,
                cast_time: sp.cast_time.name().to_string(),
                harmless: sp.harmless,
                attack: snake(format!("{:?}", sp.attack)),
                caster_level: cs.caster_level,
                spell_like: cs.spell_like,
                uses_left: match cs.uses {
                    SpellUses::Unlimited => None,
                    SpellUses::Counted(_) => {
                        Some(st.spell_uses.get(i).copied().flatten().unwrap_or(0))
                    }
                    SpellUses::Slot => {
                        Some(st.slots_left.get(cs.level as usize).copied().unwrap_or(0))
                    }
                },
                summary: sp.summary.clone(),
                not_modelled: sp.not_modelled.clone(),
            }
        })
        .collect()
}
