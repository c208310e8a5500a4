//! Spell targeting and effects (CRB — Magic: Aiming a Spell, Saving Throw, Spell
//! Resistance; Combat: Touch Spells in Combat, Energy Resistance, Damage Reduction, Injury
//! and Death; the spell entries named in each test): touch attacks and the held charge,
//! rays, areas with saves for half, spell resistance per creature, healing (cure harms
//! undead; dying healed), partial saves, buffs through the bonus stacking, mirror image,
//! recurring damage, dispel magic, haste, summoning.

mod common;

use common::*;
use pf1e_engine::episode::LifeState;
use pf1e_engine::{Action, ActionKind, CombatantId, Episode};
use serde_json::{json, Value};

fn cast(spell: usize, t: CombatantId) -> Action {
    Action {
        spell: Some(spell),
        target: Some(t),
        ..Action::new(ActionKind::CastSpell)
    }
}

fn cast_at(spell: usize, row: i32, col: i32) -> Action {
    Action {
        spell: Some(spell),
        target_pos: Some(pf1e_engine::Cell::new(row, col)),
        ..Action::new(ActionKind::CastSpell)
    }
}

/// Units in a 7 × 14 room: the first acts first (its d20 20, the others 1); then `faces`.
fn fight(units: Vec<Unit>, faces: &[u32]) -> Episode {
    let first = units[0].id;
    let n = units.len();
    let enc = encounter(&room(7, 14), units);
    let mut all = vec![20];
    all.extend(std::iter::repeat_n(1, n - 1));
    // Reserved summon slots roll initiative too.
    let extra = enc.combatants.len() - n;
    all.extend(std::iter::repeat_n(1, extra));
    all.extend_from_slice(faces);
    let mut ep = episode(enc, &all);
    turn_of(&mut ep, first);
    ep
}

fn mage(cl: i32, spells: &[&str]) -> Value {
    caster("mage", cl, spells, json!({"1": 4, "2": 3, "3": 2}))
}

fn hp(ep: &Episode, c: CombatantId) -> i32 {
    ep.observation(None).combatants[c.0 as usize].hp
}

#[test]
fn crb_fireball_one_roll_reflex_half_per_creature_spell_resistance_per_creature() {
    // CL 5: 5d6 rolled once (1+2+3+4+5 = 15). foe-a fails its Reflex (d20 3 vs DC 16: 15),
    // foe-b saves (d20 19: 7, half rounded down); foe-c has SR 30: the caster level check
    // d20 10 + 5 = 15 fails, no effect.
    let sr = set(creature("foe-c"), "spell_resistance", json!(30));
    let mut ep = fight(
        vec![
            unit("a", "mage", mage(5, &["fireball"]), (3, 1)),
            unit("b", "foe-a", creature("foe-a"), (2, 10)),
            unit("b", "foe-b", creature("foe-b"), (3, 10)),
            unit("b", "foe-c", sr, (4, 10)),
        ],
        &[3, 1, 2, 3, 4, 5, 19, 10],
    );
    assert_all_ok(&submit(&mut ep, &[cast_at(0, 3, 10)]));
    let (a, b, c) = (cid(&ep, "foe-a"), cid(&ep, "foe-b"), cid(&ep, "foe-c"));
    let l = log(&ep);
    assert_eq!(hp(&ep, a), 15, "{l}");
    assert_eq!(hp(&ep, b), 23, "{l}");
    assert_eq!(hp(&ep, c), 30, "{l}");
    assert!(l.contains("resisted"), "{l}");
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_spell_damage_ignores_dr_energy_resistance_and_immunity_apply() {
    // Magic missile (force) against DR 10/—: 4 damage; burning-hands-like fire against
    // fire resistance 5: test ray (cold) against immunity to cold: 0.
    let tough = set(creature("tough"), "dr", json!({"amount": 10}));
    let mut ep = fight(
        vec![
            unit("a", "mage", mage(1, &["magic missile", "test ray"]), (3, 1)),
            unit(
                "b",
                "tough",
                set(tough, "immunities", json!(["cold"])),
                (3, 4),
            ),
        ],
        &[3, 15, 3],
    );
    let t = cid(&ep, "tough");
    assert_all_ok(&submit(&mut ep, &[cast(0, t)]));
    assert_eq!(hp(&ep, t), 26, "{}", log(&ep));
    end_turn(&mut ep);
    turn_of(&mut ep, "mage");
    let r = submit(&mut ep, &[cast(1, t)]);
    assert!(ok(&r[0]));
    assert_eq!(hp(&ep, t), 26);
    assert!(log(&ep).contains("[immune cold]"), "{}", log(&ep));
}

#[test]
fn crb_touch_spell_miss_holds_the_charge_delivered_later_without_a_slot() {
    // Test shock (melee touch): touch attack d20 2 + 1 misses touch AC 10: the charge is
    // held; next turn the touch (d20 18 hits) deals 1d6 = 4, no slot spent.
    let mut ep = fight(
        vec![
            unit("a", "mage", mage(1, &["test shock"]), (3, 1)),
            unit("b", "foe", creature("foe"), (3, 2)),
        ],
        &[2, 18, 4],
    );
    let (m, f) = (cid(&ep, "mage"), cid(&ep, "foe"));
    assert_all_ok(&submit(&mut ep, &[cast(0, f)]));
    let obs = ep.observation(None);
    assert_eq!(
        obs.combatants[m.0 as usize].held_charge.as_deref(),
        Some("test shock")
    );
    assert_eq!(obs.combatants[m.0 as usize].spell_slots_left["1"], 3);
    end_turn(&mut ep);
    turn_of(&mut ep, "foe");
    end_turn(&mut ep);
    turn_of(&mut ep, "mage");
    assert_all_ok(&submit(&mut ep, &[cast(0, f)]));
    let l = log(&ep);
    assert!(
        l.contains("touches with the held charge of test shock"),
        "{l}"
    );
    assert_eq!(hp(&ep, f), 26, "{l}");
    let obs = ep.observation(None);
    assert_eq!(obs.combatants[m.0 as usize].held_charge, None);
    assert_eq!(obs.combatants[m.0 as usize].spell_slots_left["1"], 3);
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_ray_critical_on_a_natural_20_confirmed_doubles_the_dice() {
    // Test ray 1d3: natural 20, confirmation 15 hits: 1d3 twice (2 + 3).
    let mut ep = fight(
        vec![
            unit("a", "mage", mage(1, &["test ray"]), (3, 1)),
            unit("b", "foe", creature("foe"), (3, 5)),
        ],
        &[20, 15, 2, 3],
    );
    let f = cid(&ep, "foe");
    assert_all_ok(&submit(&mut ep, &[cast(0, f)]));
    assert_eq!(hp(&ep, f), 25, "{}", log(&ep));
    assert!(log(&ep).contains("-> CRIT x2"), "{}", log(&ep));
}

#[test]
fn crb_cure_light_wounds_heals_an_ally_without_a_roll_and_harms_undead_will_half() {
    let cleric = |name: &str| {
        let mut v = caster(name, 3, &["cure light wounds"], json!({"1": 3}));
        v["caster_class"] = json!("cleric");
        v["casting_ability"] = json!("wis");
        v["abilities"]["wis_score"] = json!(14);
        v
    };
    let hurt = set(creature("ally"), "hp_max", json!(30));
    let zombie = set(
        set(creature("zombie"), "creature_type", json!("undead")),
        "abilities",
        json!({
        "str_score": 10, "dex_score": 10, "con_score": null,
        "int_score": null, "wis_score": 10, "cha_score": 10}),
    );
    let mut ep = fight(
        vec![
            unit("a", "cleric", cleric("cleric"), (3, 1)),
            unit("a", "ally", hurt, (3, 2)),
            unit("b", "zombie", zombie, (4, 1)),
        ],
        // heal 1d8 = 5 (+3) ; then touch vs zombie d20 15 hits, Will d20 20 saves: 1d8 6 + 3 = 9 → 4.
        &[5, 15, 20, 6],
    );
    let (al, z) = (cid(&ep, "ally"), cid(&ep, "zombie"));
    // Wound the ally first (test state).
    ep.set_hp_for_tests(al, 10);
    assert_all_ok(&submit(&mut ep, &[cast(0, al)]));
    assert_eq!(hp(&ep, al), 18, "{}", log(&ep));
    end_turn(&mut ep);
    turn_of(&mut ep, "cleric");
    // The cast provokes from the zombie (no longer flat-footed): it declines.
    submit_raw(&mut ep, &[cast(0, z)]);
    let d = decision(&ep);
    assert!(d.kind.is_reaction());
    ep.submit(d.decision_id, &[Action::new(ActionKind::Decline)])
        .unwrap();
    assert_eq!(hp(&ep, z), 26, "{}", log(&ep));
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_healing_a_dying_creature_to_zero_or_more_makes_it_conscious() {
    let mut v = caster("cleric", 1, &["cure light wounds"], json!({"1": 1}));
    v["casting_ability"] = json!("wis");
    let mut ep = fight(
        vec![
            unit("a", "cleric", v, (3, 1)),
            unit("a", "ally", creature("ally"), (3, 2)),
            unit("b", "foe", creature("foe"), (5, 10)),
        ],
        &[4],
    );
    let al = cid(&ep, "ally");
    ep.set_hp_for_tests(al, -3);
    assert_eq!(ep.life_state(al), LifeState::Dying);
    assert_all_ok(&submit(&mut ep, &[cast(0, al)]));
    // 1d8 4 + 1 = 5: −3 → 2, conscious.
    assert_eq!(hp(&ep, al), 2);
    assert_eq!(ep.life_state(al), LifeState::Healthy);
}

/// CRB — Appendix: Conditions, Bleed: "Bleeding can be stopped by a DC 15 Heal check or
/// through the application of any spell that cures hit point damage." The bleeding ally
/// (1d6 a turn) is cured (1d8 4 + 1): it stops bleeding, and its next turn costs nothing.
#[test]
fn crb_magical_healing_stops_bleeding() {
    use pf1e_engine::effects::conditions::Condition;
    let mut v = caster("cleric", 1, &["cure light wounds"], json!({"1": 1}));
    v["casting_ability"] = json!("wis");
    let ally = set(
        creature("ally"),
        "conditions",
        json!([{"name": "bleeding", "amount": "1d6"}]),
    );
    let mut ep = fight(
        vec![
            unit("a", "cleric", v, (3, 1)),
            unit("a", "ally", ally, (3, 2)),
            unit("b", "foe", creature("foe"), (5, 10)),
        ],
        &[4],
    );
    let al = cid(&ep, "ally");
    ep.set_hp_for_tests(al, 10);
    assert_all_ok(&submit(&mut ep, &[cast(0, al)]));
    assert_eq!(hp(&ep, al), 15);
    assert!(!ep.has_condition(al, Condition::Bleeding), "{}", log(&ep));
    assert!(log(&ep).contains("ally: stops bleeding"), "{}", log(&ep));
    end_turn(&mut ep);
    turn_of(&mut ep, "foe");
    assert_eq!(hp(&ep, al), 15, "{}", log(&ep));
    assert_eq!(
        ep.observation(None).combatants[al.0 as usize].bleed_damage,
        None
    );
    assert_eq!(dice_left(&ep), 0);
}

/// CRB — Spells: Bleed: "you target a living creature that has –1 or fewer hit points":
/// a stable one "begins dying" again (it will roll to stabilize normally), and "a creature
/// that is dying" takes 1 point of damage (Will negates). A healthy creature is not a
/// creature the spell can affect: no save is rolled and nothing happens. (**SRD≠seed**: the
/// seed makes the target bleed 1 hp a turn, which would also make it fail every later
/// stabilization check — the SRD says it "can be stabilized later normally".)
#[test]
fn crb_bleed_cantrip_only_on_a_creature_below_0_hp_stable_resumes_dying_dying_takes_1() {
    let mut ep = fight(
        vec![
            unit("a", "mage", mage(1, &["bleed"]), (3, 1)),
            unit("b", "foe", creature("foe"), (3, 4)),
            unit("b", "hurt", creature("hurt"), (4, 4)),
            unit("b", "down", creature("down"), (5, 4)),
        ],
        // Round 1: hurt's stabilization check d20 1 fails (−2 → −3). Round 2: hurt's Will
        // d20 2 fails → 1 damage (−4); its check d20 1 fails (−5). Round 3: down's Will d20
        // 3 fails.
        &[1, 2, 1, 3],
    );
    let (f, h, d) = (cid(&ep, "foe"), cid(&ep, "hurt"), cid(&ep, "down"));
    ep.set_hp_for_tests(h, -2);
    ep.set_hp_for_tests(d, -2);
    ep.set_life_for_tests(d, LifeState::Stable);
    // A healthy foe: no effect, no save.
    assert_all_ok(&submit(&mut ep, &[cast(0, f)]));
    assert_eq!(hp(&ep, f), 30);
    assert!(
        log(&ep).contains("bleed: foe is not a creature it can affect"),
        "{}",
        log(&ep)
    );
    end_turn(&mut ep);
    turn_of(&mut ep, "mage");
    assert_eq!(hp(&ep, h), -3, "{}", log(&ep));
    assert_all_ok(&submit(&mut ep, &[cast(0, h)]));
    assert_eq!(hp(&ep, h), -4, "{}", log(&ep));
    assert_eq!(ep.life_state(h), LifeState::Dying);
    end_turn(&mut ep);
    turn_of(&mut ep, "mage");
    assert_all_ok(&submit(&mut ep, &[cast(0, d)]));
    assert_eq!(hp(&ep, d), -2);
    assert_eq!(ep.life_state(d), LifeState::Dying, "{}", log(&ep));
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_cause_fear_partial_save_shaken_one_round_instead_of_frightened() {
    use pf1e_engine::effects::conditions::Condition;
    let mut ep = fight(
        vec![
            unit("a", "mage", mage(1, &["cause fear"]), (3, 1)),
            unit("b", "foe", creature("foe"), (3, 5)),
            unit("b", "foe-2", creature("foe-2"), (4, 5)),
        ],
        // foe saves (d20 18 vs DC 14): shaken 1 round; then foe-2 fails (d20 2): 1d4 = 3 rounds.
        &[18, 2, 3],
    );
    let (f, g) = (cid(&ep, "foe"), cid(&ep, "foe-2"));
    assert_all_ok(&submit(&mut ep, &[cast(0, f)]));
    assert!(ep.has_condition(f, Condition::Shaken));
    assert!(!ep.has_condition(f, Condition::Frightened));
    end_turn(&mut ep);
    turn_of(&mut ep, "mage");
    assert_all_ok(&submit(&mut ep, &[cast(0, g)]));
    let obs = ep.observation(None);
    assert_eq!(
        obs.combatants[g.0 as usize].conditions.get("frightened"),
        Some(&Some(3))
    );
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_bless_morale_bonus_on_attack_rolls_of_allies_in_the_burst_not_stacking_with_itself() {
    let mut v = caster("cleric", 1, &["bless"], json!({"1": 2}));
    v["casting_ability"] = json!("wis");
    v["caster_class"] = json!("cleric");
    let mut ep = fight(
        vec![
            unit("a", "cleric", v, (3, 1)),
            unit("a", "ally", creature("ally"), (3, 3)),
            unit("b", "foe", creature("foe"), (3, 5)),
        ],
        &[],
    );
    let (c, al, f) = (cid(&ep, "cleric"), cid(&ep, "ally"), cid(&ep, "foe"));
    assert_all_ok(&submit(&mut ep, &[cast(0, c)]));
    let obs = ep.observation(None);
    assert_eq!(
        obs.combatants[al.0 as usize].active_buffs.get("bless"),
        Some(&10)
    );
    assert_eq!(
        obs.combatants[c.0 as usize].active_buffs.get("bless"),
        Some(&10)
    );
    assert!(obs.combatants[f.0 as usize].active_buffs.is_empty());
}

#[test]
fn crb_mirror_image_a_hit_strikes_an_image_with_probability_images_over_images_plus_one() {
    // CL 1: 1d4 = 2 images. The foe's hit (d20 15): d3 = 1 → an image is destroyed.
    let mut ep = fight(
        vec![
            unit("a", "mage", mage(3, &["test images"]), (3, 1)),
            unit("b", "foe", creature("foe"), (3, 2)),
        ],
        &[1, 15, 1],
    );
    let m = cid(&ep, "mage");
    assert_all_ok(&submit(&mut ep, &[cast(0, m)]));
    assert_eq!(
        ep.observation(None).combatants[m.0 as usize].mirror_images,
        2,
        "{}",
        log(&ep)
    );
    end_turn(&mut ep);
    turn_of(&mut ep, "foe");
    assert_all_ok(&submit(&mut ep, &[attack(m)]));
    let l = log(&ep);
    assert!(
        l.contains("a mirror image (d3=1): the image is destroyed, 1 left"),
        "{l}"
    );
    assert_eq!(hp(&ep, m), 30);
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_acid_arrow_recurring_damage_at_the_start_of_the_targets_turns() {
    // CL 3: 2d4 now, then 2d4 at the start of the target's next turn (1 more round).
    let mut ep = fight(
        vec![
            unit("a", "mage", mage(3, &["acid arrow"]), (3, 1)),
            unit("b", "foe", creature("foe"), (3, 6)),
        ],
        &[15, 1, 2, 3, 4],
    );
    let f = cid(&ep, "foe");
    assert_all_ok(&submit(&mut ep, &[cast(0, f)]));
    assert_eq!(hp(&ep, f), 27);
    end_turn(&mut ep);
    turn_of(&mut ep, "foe");
    assert_eq!(hp(&ep, f), 20, "{}", log(&ep));
    assert!(ep.observation(None).combatants[f.0 as usize]
        .recurring_damage
        .is_empty());
}

/// CRB — Combat: Injury and Death, Stable Characters and Recovery: a dying creature taking
/// continuous damage ("such as from an acid arrow") still takes it and automatically fails
/// its stabilization check, losing 1 more hit point. The foe (3 hp) drops to −2 from the
/// arrow (2 + 3); at the start of its turn the acid burns 2 (1 + 1): −4; no d20: −5.
#[test]
fn crb_acid_arrow_keeps_burning_a_dying_creature_which_fails_to_stabilize() {
    let mut ep = fight(
        vec![
            unit("a", "mage", mage(3, &["acid arrow"]), (3, 1)),
            unit("b", "foe", set(creature("foe"), "hp_max", json!(3)), (3, 6)),
            unit("b", "buddy", creature("buddy"), (6, 13)),
        ],
        &[15, 2, 3, 1, 1],
    );
    let f = cid(&ep, "foe");
    assert_all_ok(&submit(&mut ep, &[cast(0, f)]));
    assert_eq!(hp(&ep, f), -2);
    end_turn(&mut ep);
    turn_of(&mut ep, "buddy");
    assert_eq!(hp(&ep, f), -5, "{}", log(&ep));
    assert_eq!(ep.life_state(f), LifeState::Dying);
    assert_eq!(dice_left(&ep), 0);
}

#[test]
fn crb_dispel_magic_ends_a_spell_effect_on_a_caster_level_check() {
    let mut v = caster(
        "mage",
        5,
        &["bless", "dispel magic"],
        json!({"1": 2, "3": 1}),
    );
    v["caster_class"] = json!("cleric");
    let mut ep = fight(
        vec![
            unit("a", "mage", v, (3, 1)),
            unit("b", "foe", creature("foe"), (3, 6)),
        ],
        // Dispel check d20 12 + 5 = 17 vs 11 + 5 = 16: dispelled.
        &[12],
    );
    let (m, _f) = (cid(&ep, "mage"), cid(&ep, "foe"));
    assert_all_ok(&submit(&mut ep, &[cast(0, m)]));
    end_turn(&mut ep);
    turn_of(&mut ep, "mage");
    assert_all_ok(&submit(&mut ep, &[cast(1, m)]));
    assert!(
        ep.observation(None).combatants[m.0 as usize]
            .active_buffs
            .is_empty(),
        "{}",
        log(&ep)
    );
}

#[test]
fn crb_haste_gives_one_extra_attack_at_the_full_bonus_in_a_full_attack() {
    let mut ep = fight(
        vec![
            unit("a", "mage", mage(5, &["haste"]), (3, 1)),
            unit("b", "foe", creature("foe"), (3, 2)),
        ],
        &[1, 1],
    );
    let (m, f) = (cid(&ep, "mage"), cid(&ep, "foe"));
    assert_all_ok(&submit(&mut ep, &[cast_at(0, 3, 1)]));
    assert!(ep.observation(None).combatants[m.0 as usize]
        .active_buffs
        .contains_key("haste"));
    end_turn(&mut ep);
    turn_of(&mut ep, "mage");
    let _ = submit(&mut ep, &[full_attack(f)]);
    // BAB +1: one iterative attack, plus haste's: two rolls (both natural 1s, misses).
    assert_eq!(lines_with(&ep, "longsword vs foe").len(), 2, "{}", log(&ep));
}

/// CRB — Spells: Color Spray, by Hit Dice: "2 HD or less: The creature is unconscious,
/// blinded, and stunned for 2d4 rounds, then blinded and stunned for 1d4 rounds, and then
/// stunned for 1 round"; "3 or 4 HD: The creature is blinded and stunned for 1d4 rounds,
/// then stunned for 1 round"; "5 or more HD: The creature is stunned for 1 round." The
/// phases run in sequence, each duration rolled once: foe-2 (2d4 = 3, then 1d4 = 2) is
/// asleep 3 turns, blinded 5 and stunned 6; foe-4 (1d4 = 3) blinded 3, stunned 4; foe-6
/// stunned 1. Every Will save rolls 1.
#[test]
fn crb_color_spray_phases_in_sequence_one_roll_per_phase() {
    let lvl = |name: &str, hd: i32| set(creature(name), "level", json!(hd));
    let mut ep = fight(
        vec![
            unit("a", "mage", mage(1, &["color spray"]), (3, 1)),
            unit("b", "foe-6", lvl("foe-6", 6), (2, 3)),
            unit("b", "foe-2", lvl("foe-2", 2), (3, 2)),
            unit("b", "foe-4", lvl("foe-4", 4), (3, 3)),
        ],
        // In combatant order: foe-6's save; foe-2's save, 2d4, 1d4; foe-4's save, 1d4.
        &[1, 1, 1, 2, 2, 1, 3],
    );
    assert_all_ok(&submit(&mut ep, &[cast_at(0, 3, 3)]));
    assert!(
        log(&ep).contains("affects foe-6, foe-2, foe-4"),
        "{}",
        log(&ep)
    );
    let obs = ep.observation(None);
    // Their conditions but flat-footed (they have not acted yet).
    let conds = |id: &str| {
        let mut c = obs.combatants[cid(&ep, id).0 as usize].conditions.clone();
        c.remove("flat_footed");
        c
    };
    let want = |v: &[(&str, u32)]| {
        v.iter()
            .map(|(n, r)| (n.to_string(), Some(*r)))
            .collect::<std::collections::BTreeMap<_, _>>()
    };
    assert_eq!(
        conds("foe-2"),
        want(&[("asleep", 3), ("blinded", 5), ("stunned", 6)]),
        "{}",
        log(&ep)
    );
    assert_eq!(conds("foe-4"), want(&[("blinded", 3), ("stunned", 4)]));
    assert_eq!(conds("foe-6"), want(&[("stunned", 1)]));
    assert_eq!(dice_left(&ep), 0);
}

/// CRB — Spells: Haste: "All of the hasted creature's modes of movement … increase by 30
/// feet, to a maximum of twice the subject's normal speed using that form of movement. This
/// increase counts as an enhancement bonus." The mage (30 ft) moves 60 ft; its ally (20 ft)
/// 40 ft, not 50.
#[test]
fn crb_haste_plus_30_ft_to_every_movement_mode_at_most_double() {
    let slow = set(creature("ally"), "speed_land_ft", json!(20));
    let mut ep = fight(
        vec![
            unit("a", "mage", mage(5, &["haste"]), (3, 1)),
            unit("a", "ally", slow, (4, 1)),
            unit("b", "foe", creature("foe"), (6, 13)),
        ],
        &[],
    );
    let (m, al) = (cid(&ep, "mage"), cid(&ep, "ally"));
    let speed = |ep: &Episode, c: CombatantId| {
        ep.observation(None).combatants[c.0 as usize].speed_effective_ft
    };
    assert_eq!((speed(&ep, m), speed(&ep, al)), (30, 20));
    assert_all_ok(&submit(&mut ep, &[cast_at(0, 3, 1)]));
    assert_eq!((speed(&ep, m), speed(&ep, al)), (60, 40), "{}", log(&ep));
    end_turn(&mut ep);
    turn_of(&mut ep, "mage");
    // 11 squares in a straight line: 55 ft in one move action.
    assert_all_ok(&submit(&mut ep, &[move_to(3, 12)]));
    assert_eq!(ep.position(m), pf1e_engine::Cell::new(3, 12));
}

#[test]
fn crb_summon_monster_brings_a_creature_next_to_the_caster_for_one_round_per_level() {
    // Summon monster I takes 1 round: the dire rat appears just before the mage's next turn,
    // acts after it, and vanishes after 1 of its turns (CL 1).
    let mut ep = fight(
        vec![
            unit("a", "mage", mage(1, &["summon monster i"]), (3, 1)),
            unit("b", "foe", creature("foe"), (3, 12)),
        ],
        &[],
    );
    let m = cid(&ep, "mage");
    let slots = ep.encounter().combatants.len();
    assert_eq!(slots, 3, "one reserved slot for the rat");
    let rat = CombatantId(2);
    assert!(ep.observation(None).combatants[2].absent);
    assert_all_ok(&submit(&mut ep, &[cast(0, m)]));
    end_turn(&mut ep);
    turn_of(&mut ep, "mage");
    let obs = ep.observation(None);
    assert!(!obs.combatants[2].absent, "{}", log(&ep));
    assert!(obs.combatants[2].active);
    assert_eq!(obs.combatants[2].summoned_by.as_deref(), Some("mage"));
    end_turn(&mut ep);
    // The rat acts right after the mage.
    match ep.advance() {
        pf1e_engine::Status::Decision(d) => assert_eq!(d.actor, rat),
        s => panic!("{s:?}"),
    }
    end_turn(&mut ep);
    turn_of(&mut ep, "mage");
    assert!(ep.observation(None).combatants[2].absent, "{}", log(&ep));
    assert!(log(&ep).contains("vanishes (the summoning ends)"));
}

/// CRB — Combat: Table: Attack Roll Modifiers (attacker on higher ground +1 melee; attacker
/// invisible +2, the defender loses its Dexterity bonus to AC); Conditions: Invisible; Combat:
/// Touch Spells in Combat ("you make a touch attack"): a touch spell's attack roll takes the
/// attack-roll modifiers a weapon attack gets, from the one collector
/// (`rules::attack_roll::attack_roll_mods`). The invisible mage on a raised square touches a
/// Dex 14 foe that has acted (touch AC 12, 10 without its Dex): d20 6 + BAB 1 + high ground
/// 1 + invisible 2 = 10 hits touch AC 10 (7 against 12 before).
#[test]
fn crb_spell_attack_rolls_take_high_ground_and_an_invisible_attackers_plus_2_target_denied_dex() {
    let invisible = set(
        mage(1, &["test shock"]),
        "conditions",
        json!([{"name": "invisible"}]),
    );
    let mut quick = set(
        creature("foe"),
        "ac",
        json!({"total": 12, "touch": 12, "flat_footed": 10}),
    );
    quick["abilities"]["dex_score"] = json!(14);
    let enc = encounter_with(
        &room(3, 6),
        Some(&["00000000", "00000000", "00100000", "00000000", "00000000"]),
        vec![
            unit("a", "mage", invisible, (2, 2)),
            unit("b", "foe", quick, (2, 3)),
        ],
        pf1e_engine::RulesOptions::default(),
    );
    // The foe acts first (not flat-footed any more), then the mage.
    let mut ep = episode(enc, &[1, 20, 6, 3, 3, 3, 3]);
    turn_of(&mut ep, "mage");
    let f = cid(&ep, "foe");
    assert_all_ok(&submit(&mut ep, &[cast(0, f)]));
    let l = log(&ep);
    assert!(
        l.contains(
            "melee touch vs foe d20=6+4=10 touch AC 10 [high ground +1, invisible +2] -> HIT"
        ),
        "{l}"
    );
    assert!(hp(&ep, f) < 30, "{l}");
}

/// CRB — Combat: Special Attacks, Aid Another ("+2 bonus on his next attack roll against
/// that opponent"); Combat: Touch Spells in Combat: the aid another bonus counts on the
/// ally's next attack roll whatever makes it — a touch spell too — and is spent by it. The
/// hero aids (d20 5 + 5 = 10 vs AC 10); the mage's touch: d20 7 + BAB 1 + aid 2 = 10 hits
/// touch AC 10 (8 would miss).
#[test]
fn crb_aid_another_bonus_counts_on_the_allys_touch_spell_attack() {
    let enc = encounter(
        &room(4, 8),
        vec![
            unit("a", "mage", mage(1, &["test shock"]), (1, 3)),
            unit("a", "hero", creature("hero"), (2, 2)),
            unit("b", "guard", creature("guard"), (2, 3)),
        ],
    );
    let mut ep = episode(enc, &[10, 20, 1, 5, 7, 3, 3, 3, 3, 3, 3]);
    turn_of(&mut ep, "hero");
    let (m, g) = (cid(&ep, "mage"), cid(&ep, "guard"));
    let aid = Action {
        target: Some(g),
        ally: Some(m),
        aid_mode: Some(pf1e_engine::AidMode::Attack),
        ..Action::new(ActionKind::AidAnother)
    };
    assert_all_ok(&submit(&mut ep, &[aid]));
    end_turn(&mut ep);
    turn_of(&mut ep, "mage");
    assert_all_ok(&submit(&mut ep, &[cast(0, g)]));
    let l = log(&ep);
    assert!(
        l.contains("melee touch vs guard d20=7+3=10 touch AC 10 [aid another +2] -> HIT"),
        "{l}"
    );
    assert_eq!(
        ep.observation(None).combatants[m.0 as usize].aid_attack_bonus,
        0
    );
}

/// CRB — Combat: Touch Attacks ("your AC doesn't include any armor bonus, shield bonus, or
/// natural armor bonus"); Spells: Shield ("+4 shield bonus to AC … negates magic missile
/// attacks directed at you"). The foe casts *shield*: its touch AC stays 10 — the ray's
/// d20 9 + BAB 1 = 10 hits (14 before) —, and the mage's *magic missile* at it is negated
/// (no die rolled, no damage).
#[test]
fn crb_touch_ac_leaves_out_shield_bonus_and_shield_negates_magic_missile() {
    let mut ep = fight(
        vec![
            unit(
                "a",
                "foe",
                caster("foe", 1, &["shield"], json!({"1": 1})),
                (3, 1),
            ),
            unit("b", "mage", mage(3, &["test ray", "magic missile"]), (3, 6)),
        ],
        &[9, 2],
    );
    let f = cid(&ep, "foe");
    assert_all_ok(&submit(&mut ep, &[cast(0, f)]));
    end_turn(&mut ep);
    turn_of(&mut ep, "mage");
    assert_all_ok(&submit(&mut ep, &[cast(0, f)]));
    let l = log(&ep);
    assert!(
        l.contains("ranged touch vs foe d20=9+1=10 touch AC 10 -> HIT"),
        "{l}"
    );
    assert_eq!(hp(&ep, f), 28, "{l}");
    end_turn(&mut ep);
    turn_of(&mut ep, "mage");
    assert_all_ok(&submit(&mut ep, &[cast(1, f)]));
    let l = log(&ep);
    assert!(l.contains("magic missile: foe's shield negates it"), "{l}");
    assert_eq!(hp(&ep, f), 28, "{l}");
    assert_eq!(dice_left(&ep), 0);
}

/// CRB — Magic: Spell Resistance ("the defender's spell resistance is checked once" per
/// spell: a creature that resists a spell resists all of it); Spells: Magic Missile. CL 5:
/// three missiles at a foe with SR 30; the caster level check d20 10 + 5 = 15 fails, and no
/// missile hits (no more dice rolled).
#[test]
fn crb_spell_resistance_checked_once_holds_for_every_missile() {
    let sr = set(creature("foe"), "spell_resistance", json!(30));
    let mut ep = fight(
        vec![
            unit("a", "mage", mage(5, &["magic missile"]), (3, 1)),
            unit("b", "foe", sr, (3, 6)),
        ],
        &[10],
    );
    let f = cid(&ep, "foe");
    assert_all_ok(&submit(&mut ep, &[cast(0, f)]));
    let l = log(&ep);
    assert_eq!(hp(&ep, f), 30, "{l}");
    assert_eq!(lines_with(&ep, "caster level check").len(), 1, "{l}");
    assert_eq!(lines_with(&ep, "spell resistance holds").len(), 2, "{l}");
    assert_eq!(dice_left(&ep), 0);
}

/// CRB — Magic: Spell Resistance; Spells: Scorching Ray: SR is checked when the first ray
/// reaches the creature — a ray that misses makes no check — and then holds for the other
/// rays. CL 7: two rays; the first misses (d20 2), the second hits (d20 15) and meets the SR
/// (d20 10 + 7 = 17 vs SR 25: resisted): no damage.
#[test]
fn crb_spell_resistance_is_checked_by_the_first_ray_that_hits() {
    let sr = set(creature("foe"), "spell_resistance", json!(25));
    let mut ep = fight(
        vec![
            unit("a", "mage", mage(7, &["scorching ray"]), (3, 1)),
            unit("b", "foe", sr, (3, 5)),
        ],
        &[2, 15, 10],
    );
    let f = cid(&ep, "foe");
    assert_all_ok(&submit(&mut ep, &[cast(0, f)]));
    let l = log(&ep);
    assert_eq!(hp(&ep, f), 30, "{l}");
    assert_eq!(lines_with(&ep, "caster level check").len(), 1, "{l}");
    assert_eq!(dice_left(&ep), 0);
}
