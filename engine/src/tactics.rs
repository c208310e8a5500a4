//! Tactics specs: strategies written as data and played by the engine as built-in policies
//! (the seed's Phase 2, "stratégies en langage naturel traduites en politiques"; issue 13).
//!
//! A [`TacticsSpec`] is the tactics of one side (YAML or JSON, `deny_unknown_fields`): a
//! `default` [`TacticsBlock`] for every combatant of the side and optional per-combatant
//! overrides (`combatants`, keyed by combatant id or file stem). It is attached to an
//! [`Encounter`] with [`Encounter::with_tactics`] (names are checked against the encounter
//! there), so every episode, Monte Carlo batch, sweep and transcript of that encounter plays it,
//! and the encounter's JSON (hence `rules_data_version`) includes it.
//!
//! # Evaluation order (one turn plan; the policy plans again after a preparatory action)
//! 1. **Forced**, as the default policy (`policy.rs`): no conscious enemy → end the turn; a
//!    frightened or panicked combatant flees; a pinned one escapes; a prone one stands up; a
//!    better dropped or sheathed weapon is picked up or drawn; a combatant that cannot attack
//!    only moves toward the target.
//! 2. **Target**: the conscious enemy that comes first by the block's `target` criteria in
//!    order (later ones break ties), then the nearest, then list order.
//! 3. **Rules**, in order: the first rule whose `when` conditions all hold and whose `do`
//!    gives a plan the engine's own check (`actions/check.rs`) accepts is the turn's plan. A
//!    rule whose action is not legal now is skipped. A `power_attack` rule whose conditions
//!    hold decides the Power Attack toggle: the toggle is the plan when the state differs
//!    (a free action; the policy plans again), else the evaluation goes on with the next rule.
//! 4. **Power Attack** by the default's rule (on when it pays against the target) when no
//!    `power_attack` rule held.
//! 5. **Positioning and the attack** on the target: the default policy's attack plan aimed at
//!    the target, changed by the positioning (precedence: `hold` > `stay_adjacent_to` >
//!    `keep_range_ft` > `seek_flanking`), then the default's spell choice (its offence tries
//!    the target first) and its menu rules (coup de grace, total defense); `avoid_provoking`
//!    applies last, to the whole plan.
//!
//! Every action proposed is checked by the engine before it is proposed (the first action of
//! a list exactly; later ones of a list as the default policy's own lists are, and a move's
//! follow-up attack goes in the plan's `then`, checked once the move is done), so a tactics
//! spec never makes the engine refuse an action. Deterministic: no randomness, ties by the
//! orders stated. Details and limits: `docs/tactics.md`.
use crate::actions::space::STEP_DIRECTIONS;
use crate::actions::{Action, ActionKind, CombatantId};
use crate::content::encounter::{Encounter, EncounterError, Placed};
use crate::content::yaml::{field_path, serde_path};
use crate::episode::Episode;
use crate::geometry::grid::{self, Cell};
use crate::policy::{self, with, PolicyPlan};
use crate::rules;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Longest tactics text accepted, in bytes.
pub const MAX_TACTICS_BYTES: usize = 64 * 1024;
/// Most rules in one block.
pub const MAX_RULES: usize = 64;
/// Most target criteria in one block.
pub const MAX_CRITERIA: usize = 16;

/// The tactics of one side (see the module doc).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TacticsSpec {
    /// Short name (1–100 characters), shown in reports.
    pub name: String,
    /// The strategy in words (what a user wrote).
    pub description: String,
    /// Where it comes from (a file, "compiled by <model>"…), free text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
    /// The block of every combatant of the side without an override.
    #[serde(default)]
    pub default: TacticsBlock,
    /// Overrides: combatant id (`goblin-2`) or file stem (`goblin`, every goblin) → block. An
    /// exact id wins over a stem; among stems, the first key in sorted order.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub combatants: BTreeMap<String, TacticsBlock>,
}

/// The tactics of one combatant.
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TacticsBlock {
    /// Target priority: criteria in order, later ones break ties (then nearest, then list
    /// order). Empty: the nearest enemy, as the default policy.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub target: Vec<TargetCriterion>,
    /// How it moves.
    #[serde(default)]
    pub positioning: Positioning,
    /// `when` → `do` rules, in order; the first applicable wins.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rules: Vec<TacticsRule>,
}

/// One target criterion (the lower key wins).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TargetCriterion {
    /// The nearest (5-10-5 distance between footprints, in squares).
    Nearest,
    /// The fewest current hit points.
    LowestHp,
    /// The most current hit points.
    HighestHp,
    /// The lowest current hit points / maximum hit points.
    LowestHpFraction,
    /// The lowest printed total AC.
    LowestAc,
    /// The highest printed total AC.
    HighestAc,
    /// Creatures with spells (a non-empty spellbook, spell-like abilities included) first.
    CastersFirst,
    /// Enemies that a conscious ally of the actor already threatens first.
    ThreatenedByAlly,
    /// Enemies that one of the actor's weapons can attack from where it stands first.
    AttackableNow,
    /// The enemy with this id (`orc-2`), file stem (`orc`) or name (`Orc`, any case) first.
    Named(String),
}

/// Positioning (see the module doc for their precedence).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Positioning {
    /// Stay at least this far (feet, 5–1000, a multiple of 5) from every conscious enemy:
    /// when one is closer, move away (a 5-foot step when threatened and it suffices) and
    /// attack; when none is, attack from here, or move to a square at that range from which
    /// a ranged weapon reaches the target. Meant for ranged attackers and casters.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub keep_range_ft: Option<u32>,
    /// With `keep_range_ft`: among the squares it may move to, prefer those where the
    /// nearest enemy's ranged attacks suffer the most terrain cover (a pillar in between);
    /// when it stays, a 5-foot step to a square with more cover that keeps the shot.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub prefer_cover: bool,
    /// When it must move (or may 5-foot step) to attack in melee, prefer a square from which
    /// it flanks the target (CRB — Combat Modifiers: Flanking).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub seek_flanking: bool,
    /// An ally (id, file stem or name): end every move adjacent to it while it is conscious;
    /// attack only what can be attacked from such squares.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stay_adjacent_to: Option<String>,
    /// Never take a move, charge, ranged attack or cast that provokes an attack of
    /// opportunity as far as the policy can tell before acting: a 5-foot step, a melee
    /// attack, a move by a path that leaves no threatened square, a withdraw, or casting
    /// defensively instead.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub avoid_provoking: bool,
    /// Stay in place: attack only what can be attacked from here (casting is fine).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub hold: bool,
}

/// One rule: when every condition of `when` holds, do `do`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TacticsRule {
    /// The conditions (all must hold; none: always).
    #[serde(default)]
    pub when: RuleWhen,
    /// The action.
    #[serde(rename = "do")]
    pub action: RuleAction,
}

/// The conditions of a rule (each optional; all given must hold). "The target" is the
/// combatant's chosen target (step 2 of the evaluation order).
#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RuleWhen {
    /// Own hit points below this fraction of the maximum (0 < f ≤ 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hp_below_fraction: Option<f64>,
    /// The target's hit points below this fraction of its maximum (0 < f ≤ 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_hp_below_fraction: Option<f64>,
    /// Some other ally (not dead, on the map) below this fraction of its maximum hit points.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ally_hp_below_fraction: Option<f64>,
    /// At least this many conscious enemies adjacent (footprints 5 ft apart or touching).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enemies_adjacent_at_least: Option<u32>,
    /// The target's printed total AC is at most this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_ac_at_most: Option<i32>,
    /// The target is adjacent (true) or not (false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target_adjacent: Option<bool>,
    /// An enemy threatens the combatant's square (true) or none does (false).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threatened: Option<bool>,
    /// The round (1 = the first) is at least this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round_at_least: Option<u32>,
    /// The round is at most this.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub round_at_most: Option<u32>,
    /// The combatant knows this spell (name, any case) and can still cast it (a slot, a
    /// prepared copy or a use left).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub has_spell_slot: Option<String>,
}

/// The action of a rule. Unit actions are written as a string (`do: withdraw`), the others
/// as a one-key object (`do: {power_attack: true}`, `do: {cast: {spell: fireball}}`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RuleAction {
    /// Full attack (one attack when limited to one action) on the target from here, else
    /// after a 5-foot step.
    FullAttack,
    /// Charge the target (straight clear line, CRB — Combat: Charge).
    Charge,
    /// Withdraw (full-round; the first square does not provoke) to the reachable square
    /// whose path crosses the fewest threatened squares, then the farthest from the nearest
    /// enemy, if that is farther than here.
    Withdraw,
    /// Total defense (+4 dodge AC, CRB — Actions in Combat).
    TotalDefense,
    /// Fight defensively (−4 attack, +2 dodge AC) with the attack the rest of the policy
    /// would make; only when that plan attacks this turn.
    FightDefensively,
    /// End the turn without acting.
    EndTurn,
    /// Power Attack on (`true`) or off (`false`) while the conditions hold.
    PowerAttack(bool),
    /// Cast a spell.
    Cast(CastRule),
}

/// `do: {cast: {spell, on}}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CastRule {
    /// Spell name as in the combatant's spellbook (any case).
    pub spell: String,
    /// At whom.
    #[serde(default)]
    pub on: CastOn,
}

/// The recipient of a `cast` rule.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum CastOn {
    /// The target; an area spell that needs a point of origin is aimed at the target's
    /// square, one centred on the caster (or a cone from it) is cast from where it stands.
    #[default]
    Target,
    /// The caster itself.
    #[serde(rename = "self")]
    Caster,
    /// The ally (itself included, not dead) with the lowest hit points fraction below 1.
    MostWoundedAlly,
}

/// A tactics spec that cannot be used: `field` is the path (`default.rules[2].when.hp_below_fraction`),
/// `reason` says why.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {reason}")]
pub struct TacticsError {
    pub field: String,
    pub reason: String,
}

fn terr(field: impl Into<String>, reason: impl Into<String>) -> TacticsError {
    TacticsError {
        field: field.into(),
        reason: reason.into(),
    }
}

impl TacticsSpec {
    /// Parse and check a tactics spec (JSON when the text starts with `{`, else YAML).
    ///
    /// # Errors
    /// [`TacticsError`] naming the field: a syntax or type error, an unknown field or value,
    /// a value out of range (fractions in (0, 1], `keep_range_ft` 5–1000 and a multiple of 5,
    /// rounds ≥ 1, at most [`MAX_RULES`] rules and [`MAX_CRITERIA`] criteria, non-empty
    /// names), an explicit YAML tag (`!!str`, `!x`), or a text over [`MAX_TACTICS_BYTES`].
    pub fn from_yaml_or_json(text: &str) -> Result<TacticsSpec, TacticsError> {
        if text.len() > MAX_TACTICS_BYTES {
            return Err(terr(
                "(document)",
                format!("longer than {MAX_TACTICS_BYTES} bytes"),
            ));
        }
        // YAML goes through a JSON value: one set of rules (and messages) for both, and the
        // one-key maps of `named`, `power_attack` and `cast` read as in JSON (serde_yaml
        // would want YAML tags for them).
        let value: serde_json::Value = if text.trim_start().starts_with('{') {
            serde_json::from_str(text).map_err(|e| terr("(document)", e.to_string()))?
        } else {
            // serde_yaml drops an explicit tag on a scalar (`round: !!str 2` reads as 2):
            // refused, naming the field, as for maps and scenarios.
            if let Some(tag) = crate::content::yaml::find_explicit_tag(text) {
                // The tag scan names the document `<root>`; tactics errors say `(document)`.
                let field = match tag.path.strip_prefix("<root>") {
                    Some(rest) => format!("(document){rest}"),
                    None => tag.path,
                };
                return Err(terr(
                    field,
                    format!(
                        "explicit YAML tag `{}` is not accepted: write the plain value",
                        tag.tag
                    ),
                ));
            }
            // YAML's `.nan` / `.inf` would become JSON `null` (a condition silently dropped):
            // refused here, naming the field.
            let y: serde_yaml::Value =
                serde_yaml::from_str(text).map_err(|e| terr("(document)", e.to_string()))?;
            if let Some(field) = non_finite_number(&y, "") {
                return Err(terr(
                    field,
                    "not a finite number (.nan and .inf are not accepted)",
                ));
            }
            serde_yaml::from_str(text).map_err(|e| terr("(document)", e.to_string()))?
        };
        let spec: TacticsSpec =
            serde_path_to_error::deserialize(value).map_err(|e| path_error(&e))?;
        spec.check()?;
        Ok(spec)
    }

    /// The range checks of [`TacticsSpec::from_yaml_or_json`] (for a spec built in code).
    ///
    /// # Errors
    /// [`TacticsError`] naming the field.
    pub fn check(&self) -> Result<(), TacticsError> {
        let n = self.name.trim().chars().count();
        if n == 0 || n > 100 {
            return Err(terr("name", "must be 1 to 100 characters"));
        }
        check_block(&self.default, "default")?;
        for (k, b) in &self.combatants {
            if k.trim().is_empty() {
                return Err(terr("combatants", "an empty combatant key"));
            }
            check_block(b, &field_path("combatants", k))?;
        }
        Ok(())
    }

    /// The block of the combatant `p` (its exact id, else the first key matching its stem or
    /// name, else `default`).
    pub fn block_for(&self, p: &Placed) -> &TacticsBlock {
        if let Some(b) = self.combatants.get(&p.id) {
            return b;
        }
        self.combatants
            .iter()
            .find(|(k, _)| name_matches(p, k))
            .map(|(_, b)| b)
            .unwrap_or(&self.default)
    }
}

/// The path (`default.rules[0].when.hp_below_fraction`, after `path`) of the first NaN or
/// infinite number of a YAML value, if any; `(document)` for the whole document. A tactics
/// spec is read through a JSON value, where such a number would silently become `null`: a
/// YAML text that embeds one (a sweep spec's inline `tactics`) checks it first.
pub fn non_finite_number(v: &serde_yaml::Value, path: &str) -> Option<String> {
    use serde_yaml::Value as Y;
    match v {
        Y::Number(n) => n.as_f64().filter(|f| !f.is_finite()).map(|_| {
            if path.is_empty() {
                "(document)".to_string()
            } else {
                path.to_string()
            }
        }),
        Y::Sequence(xs) => xs
            .iter()
            .enumerate()
            .find_map(|(i, x)| non_finite_number(x, &format!("{path}[{i}]"))),
        Y::Mapping(m) => m.iter().find_map(|(k, x)| {
            let key = match k {
                Y::String(s) => s.clone(),
                other => serde_yaml::to_string(other)
                    .unwrap_or_default()
                    .trim()
                    .to_string(),
            };
            let p = field_path(path, &key);
            non_finite_number(x, &p)
        }),
        Y::Tagged(t) => non_finite_number(&t.value, path),
        _ => None,
    }
}

fn path_error<E: std::fmt::Display>(e: &serde_path_to_error::Error<E>) -> TacticsError {
    let path = serde_path("", e.path());
    let field = if path.is_empty() {
        "(document)".to_string()
    } else {
        path
    };
    terr(field, e.inner().to_string())
}

fn check_fraction(v: Option<f64>, field: &str) -> Result<(), TacticsError> {
    match v {
        Some(f) if !(f.is_finite() && f > 0.0 && f <= 1.0) => Err(terr(
            field,
            format!("must be a fraction in (0, 1] (got {f})"),
        )),
        _ => Ok(()),
    }
}

fn check_block(b: &TacticsBlock, at: &str) -> Result<(), TacticsError> {
    if b.target.len() > MAX_CRITERIA {
        return Err(terr(
            format!("{at}.target"),
            format!("at most {MAX_CRITERIA} criteria"),
        ));
    }
    for (i, c) in b.target.iter().enumerate() {
        if let TargetCriterion::Named(n) = c {
            if n.trim().is_empty() {
                return Err(terr(format!("{at}.target[{i}].named"), "empty name"));
            }
        }
    }
    let p = &b.positioning;
    if let Some(r) = p.keep_range_ft {
        if !(5..=1000).contains(&r) || r % 5 != 0 {
            return Err(terr(
                format!("{at}.positioning.keep_range_ft"),
                format!("must be 5 to 1000 feet, a multiple of 5 (got {r})"),
            ));
        }
    }
    if p.prefer_cover && p.keep_range_ft.is_none() {
        return Err(terr(
            format!("{at}.positioning.prefer_cover"),
            "only with keep_range_ft",
        ));
    }
    if p.stay_adjacent_to
        .as_ref()
        .is_some_and(|s| s.trim().is_empty())
    {
        return Err(terr(
            format!("{at}.positioning.stay_adjacent_to"),
            "empty name",
        ));
    }
    if b.rules.len() > MAX_RULES {
        return Err(terr(
            format!("{at}.rules"),
            format!("at most {MAX_RULES} rules"),
        ));
    }
    for (i, r) in b.rules.iter().enumerate() {
        let w = &r.when;
        let f = |name: &str| format!("{at}.rules[{i}].when.{name}");
        check_fraction(w.hp_below_fraction, &f("hp_below_fraction"))?;
        check_fraction(w.target_hp_below_fraction, &f("target_hp_below_fraction"))?;
        check_fraction(w.ally_hp_below_fraction, &f("ally_hp_below_fraction"))?;
        if w.round_at_least == Some(0) {
            return Err(terr(f("round_at_least"), "rounds start at 1"));
        }
        if w.round_at_most == Some(0) {
            return Err(terr(f("round_at_most"), "rounds start at 1"));
        }
        if w.has_spell_slot
            .as_ref()
            .is_some_and(|s| s.trim().is_empty())
        {
            return Err(terr(f("has_spell_slot"), "empty spell name"));
        }
        if let RuleAction::Cast(c) = &r.action {
            if c.spell.trim().is_empty() {
                return Err(terr(
                    format!("{at}.rules[{i}].do.cast.spell"),
                    "empty spell name",
                ));
            }
        }
    }
    Ok(())
}

/// The id without a trailing `-<digits>` disambiguation (`goblin-2` → `goblin`).
fn base_id(id: &str) -> &str {
    match id.rsplit_once('-') {
        Some((b, n)) if !n.is_empty() && n.bytes().all(|c| c.is_ascii_digit()) => b,
        _ => id,
    }
}

/// Whether `key` names combatant `p`: its id, its base id (file stem) or its name (any case).
pub fn name_matches(p: &Placed, key: &str) -> bool {
    p.id == key || base_id(&p.id) == key || p.spec.name.eq_ignore_ascii_case(key.trim())
}

fn knows_spell(p: &Placed, spell: &str) -> Option<usize> {
    p.spec
        .spellbook()
        .iter()
        .position(|cs| cs.spell.name.eq_ignore_ascii_case(spell.trim()))
}

impl Encounter {
    /// A copy of this encounter whose side `side` plays `spec` (replacing any tactics it
    /// had). The names in the spec are checked against the encounter: a `combatants` key
    /// must name a combatant of the side, `named` an enemy, `stay_adjacent_to` a combatant of
    /// the side, a `cast` / `has_spell_slot` spell one that a combatant concerned knows.
    ///
    /// # Errors
    /// [`EncounterError`] with field `tactics[<side>]` and the reason `<field>: <why>`
    /// (e.g. `default.target[1].named: no enemy of side players is called `ogre` …`), or an
    /// unknown side.
    pub fn with_tactics(
        &self,
        side: &str,
        spec: Arc<TacticsSpec>,
    ) -> Result<Encounter, EncounterError> {
        let err = |e: TacticsError| EncounterError {
            field: format!("tactics[{side}]"),
            reason: e.to_string(),
        };
        if !self.sides.iter().any(|s| s == side) {
            return Err(EncounterError {
                field: format!("tactics[{side}]"),
                reason: format!("unknown side: the encounter has {}", self.sides.join(", ")),
            });
        }
        spec.check().map_err(err)?;
        let members: Vec<&Placed> = self
            .combatants
            .iter()
            .filter(|p| p.side == side && p.summoned_by.is_none())
            .collect();
        let enemies: Vec<&Placed> = self.combatants.iter().filter(|p| p.side != side).collect();
        let list = |ps: &[&Placed]| {
            ps.iter()
                .map(|p| p.id.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        };
        for k in spec.combatants.keys() {
            if !members.iter().any(|p| name_matches(p, k)) {
                return Err(err(terr(
                    field_path("combatants", k),
                    format!(
                        "no combatant of side {side} is called `{k}` (it has {})",
                        list(&members)
                    ),
                )));
            }
        }
        let mut blocks: Vec<(String, &TacticsBlock, Vec<&Placed>)> = vec![(
            "default".into(),
            &spec.default,
            members
                .iter()
                .copied()
                .filter(|p| std::ptr::eq(spec.block_for(p), &spec.default))
                .collect(),
        )];
        for (k, b) in &spec.combatants {
            let who: Vec<&Placed> = members
                .iter()
                .copied()
                .filter(|p| std::ptr::eq(spec.block_for(p), b))
                .collect();
            blocks.push((field_path("combatants", k), b, who));
        }
        for (at, b, who) in &blocks {
            for (i, c) in b.target.iter().enumerate() {
                if let TargetCriterion::Named(n) = c {
                    if !enemies.iter().any(|p| name_matches(p, n)) {
                        return Err(err(terr(
                            format!("{at}.target[{i}].named"),
                            format!(
                                "no enemy of side {side} is called `{n}` (enemies: {})",
                                list(&enemies)
                            ),
                        )));
                    }
                }
            }
            if let Some(n) = &b.positioning.stay_adjacent_to {
                if !members.iter().any(|p| name_matches(p, n)) {
                    return Err(err(terr(
                        format!("{at}.positioning.stay_adjacent_to"),
                        format!(
                            "no combatant of side {side} is called `{n}` (it has {})",
                            list(&members)
                        ),
                    )));
                }
            }
            // A spell must be known by one of the combatants the block applies to (by any
            // of the side for a default block that applies to no one).
            let casters: &[&Placed] = if who.is_empty() { &members } else { who };
            for (i, r) in b.rules.iter().enumerate() {
                let spells = [
                    (
                        format!("{at}.rules[{i}].when.has_spell_slot"),
                        r.when.has_spell_slot.as_deref(),
                    ),
                    (
                        format!("{at}.rules[{i}].do.cast.spell"),
                        match &r.action {
                            RuleAction::Cast(c) => Some(c.spell.as_str()),
                            _ => None,
                        },
                    ),
                ];
                for (field, s) in spells {
                    let Some(s) = s else { continue };
                    if !casters.iter().any(|p| knows_spell(p, s).is_some()) {
                        return Err(err(terr(
                            field,
                            format!("none of {} knows the spell `{s}`", list(casters)),
                        )));
                    }
                }
            }
        }
        let mut out = self.clone();
        out.tactics.insert(side.to_string(), spec);
        Ok(out)
    }

    /// The tactics block combatant `index` plays, if its side has tactics.
    pub fn tactics_block(&self, index: usize) -> Option<&TacticsBlock> {
        let p = self.combatants.get(index)?;
        self.tactics.get(&p.side).map(|s| s.block_for(p))
    }
}

// ----- the policy ------------------------------------------------------------------------

/// The built-in policy's plan for `a` now: its side's tactics if it has some, else the default
/// policy.
pub(crate) fn policy_for(ep: &Episode, a: CombatantId) -> PolicyPlan {
    let enc = Arc::clone(ep.encounter());
    match enc.tactics_block(rules::idx(a)) {
        Some(b) => plan(ep, a, b),
        None => policy::default_policy(ep, a),
    }
}

fn hp_fraction_below(ep: &Episode, x: CombatantId, f: f64) -> bool {
    let max = ep.spec(x).max_hp().max(1);
    (ep.hp(x) as f64) < f * max as f64
}

fn distance(ep: &Episode, a: CombatantId, from: Cell, x: CombatantId) -> i32 {
    grid::footprint_distance_squares(from, ep.fp_side(a), ep.position(x), ep.fp_side(x))
}

fn enemies_of(ep: &Episode, a: CombatantId) -> Vec<CombatantId> {
    ep.ids()
        .filter(|&t| t != a && ep.enemies(a, t) && ep.conscious(t))
        .collect()
}

/// Step 2: the target by the criteria.
fn choose_target(ep: &Episode, a: CombatantId, b: &TacticsBlock) -> Option<CombatantId> {
    let pos = ep.position(a);
    let enc = ep.encounter();
    let key = |t: CombatantId| -> Vec<i64> {
        let mut k: Vec<i64> = b
            .target
            .iter()
            .map(|c| match c {
                TargetCriterion::Nearest => distance(ep, a, pos, t) as i64,
                TargetCriterion::LowestHp => ep.hp(t) as i64,
                TargetCriterion::HighestHp => -(ep.hp(t) as i64),
                TargetCriterion::LowestHpFraction => {
                    ep.hp(t) as i64 * 1_000_000 / ep.spec(t).max_hp().max(1) as i64
                }
                TargetCriterion::LowestAc => ep.spec(t).ac.total as i64,
                TargetCriterion::HighestAc => -(ep.spec(t).ac.total as i64),
                TargetCriterion::CastersFirst => ep.spec(t).spellbook().is_empty() as i64,
                TargetCriterion::ThreatenedByAlly => !ep.ids().any(|x| {
                    x != a
                        && !ep.enemies(a, x)
                        && ep.conscious(x)
                        && rules::reach::threatens(ep, x, t, ep.position(t))
                }) as i64,
                TargetCriterion::AttackableNow => {
                    rules::weapons::weapon_for(ep, a, pos, t).is_err() as i64
                }
                TargetCriterion::Named(n) => {
                    !name_matches(&enc.combatants[rules::idx(t)], n) as i64
                }
            })
            .collect();
        k.push(distance(ep, a, pos, t) as i64);
        k.push(t.0 as i64);
        k
    };
    enemies_of(ep, a).into_iter().min_by_key(|&t| key(t))
}

/// Whether every condition of `w` holds for `a` with target `t`.
fn holds(ep: &Episode, a: CombatantId, t: CombatantId, w: &RuleWhen) -> bool {
    let pos = ep.position(a);
    if w.hp_below_fraction
        .is_some_and(|f| !hp_fraction_below(ep, a, f))
    {
        return false;
    }
    if w.target_hp_below_fraction
        .is_some_and(|f| !hp_fraction_below(ep, t, f))
    {
        return false;
    }
    if let Some(f) = w.ally_hp_below_fraction {
        let enc = ep.encounter();
        let any = ep.ids().any(|x| {
            x != a
                && !ep.enemies(a, x)
                && ep.life_state(x) != crate::episode::LifeState::Dead
                && enc.combatants[rules::idx(x)]
                    .summoned_by
                    .is_none_or(|_| ep.conscious(x))
                && hp_fraction_below(ep, x, f)
        });
        if !any {
            return false;
        }
    }
    if let Some(n) = w.enemies_adjacent_at_least {
        let k = enemies_of(ep, a)
            .into_iter()
            .filter(|&x| distance(ep, a, pos, x) <= 1)
            .count();
        if (k as u32) < n {
            return false;
        }
    }
    if w.target_ac_at_most.is_some_and(|n| ep.spec(t).ac.total > n) {
        return false;
    }
    if w.target_adjacent
        .is_some_and(|v| (distance(ep, a, pos, t) <= 1) != v)
    {
        return false;
    }
    if w.threatened
        .is_some_and(|v| policy::is_threatened(ep, a) != v)
    {
        return false;
    }
    if w.round_at_least.is_some_and(|n| ep.round() < n) {
        return false;
    }
    if w.round_at_most.is_some_and(|n| ep.round() > n) {
        return false;
    }
    if let Some(s) = &w.has_spell_slot {
        let enc = ep.encounter();
        match knows_spell(&enc.combatants[rules::idx(a)], s) {
            Some(si) if rules::magic::has_use(ep, a, si, 0) => {}
            _ => return false,
        }
    }
    true
}

fn ok(ep: &Episode, a: CombatantId, act: &Action) -> bool {
    ep.check(a, act).is_ok()
}

/// The attack kind the budget allows now (one attack when limited to one action or after a
/// move action), if any.
fn attack_kind(ep: &Episode, a: CombatantId) -> Option<ActionKind> {
    let single = ep.single_action(a) || ep.turn.move_used;
    let b = ep.budget(a);
    if single {
        b.standard.then_some(ActionKind::Attack)
    } else {
        b.full_round.then_some(ActionKind::FullAttack)
    }
}

/// An attack (full attack when it can) on `t` from where `a` stands, checked.
fn attack_here(ep: &Episode, a: CombatantId, t: CombatantId, threatened: bool) -> Option<Action> {
    let kind = attack_kind(ep, a)?;
    let w = policy::pick_weapon(ep, a, ep.position(a), t, threatened)?;
    let act = with(kind, t, Some(w), None);
    ok(ep, a, &act).then_some(act)
}

/// An attack from here on the first enemy (in the block's target order) that can be attacked.
fn attack_anyone_here(
    ep: &Episode,
    a: CombatantId,
    t: CombatantId,
    threatened: bool,
) -> Option<Action> {
    if let Some(x) = attack_here(ep, a, t, threatened) {
        return Some(x);
    }
    let mut order = enemies_of(ep, a);
    // After the target, list order (docs/tactics.md, `hold`).
    order.retain(|&x| x != t);
    order
        .into_iter()
        .find_map(|x| attack_here(ep, a, x, threatened))
}

fn can_move(ep: &Episode, a: CombatantId) -> bool {
    !ep.cond_flag(a, |d| d.cant_move) && ep.speed_ft(a) > 0 && ep.budget(a).move_action
}

/// A 5-foot step to a square accepted by `keep`, then an attack on `t` with the preferred
/// mode (`ranged`) from there; the first such square in [`STEP_DIRECTIONS`] order.
fn step_then_attack(
    ep: &Episode,
    a: CombatantId,
    t: CombatantId,
    ranged: bool,
    keep: impl Fn(Cell) -> bool,
) -> Option<PolicyPlan> {
    let kind = attack_kind(ep, a)?;
    let pos = ep.position(a);
    let field = ep.move_field(a, None);
    for (dr, dc) in STEP_DIRECTIONS {
        let c = Cell::new(pos.row + dr, pos.col + dc);
        if !(field.can_stop(c) && field.cost(c) == Some(1) && keep(c)) {
            continue;
        }
        let Some(w) = policy::weapon_of_mode(ep, a, c, t, ranged) else {
            continue;
        };
        let step = Action {
            destination: Some(c),
            ..Action::new(ActionKind::FiveFootStep)
        };
        if ok(ep, a, &step) {
            return Some(vec![step, with(kind, t, Some(w), None)].into());
        }
    }
    None
}

/// A move to `dest`, then (if it has an action left) an attack on `t` with `weapon`, checked
/// once the move is done.
fn move_then_attack(
    ep: &Episode,
    a: CombatantId,
    t: CombatantId,
    dest: Cell,
    weapon: Option<usize>,
) -> Option<PolicyPlan> {
    let mv = Action {
        destination: Some(dest),
        ..Action::new(ActionKind::Move)
    };
    if !ok(ep, a, &mv) {
        return None;
    }
    let then = (!ep.single_action(a)).then(|| with(ActionKind::Attack, t, weapon, None));
    Some(PolicyPlan {
        actions: vec![mv],
        then,
    })
}

/// What the policy knows of a move: the reachable squares with a move action (cost in
/// squares; the start excluded) and whether the path to each leaves a threatened square.
struct Moves {
    squares: Vec<(Cell, u32, bool)>,
}

impl Moves {
    /// Move to the cheapest square `keep` accepts (`keep(square, provokes)`; ties by square)
    /// from which a weapon of the preferred mode — else the other — can attack `t`, then
    /// attack: the plan, if the engine accepts it.
    fn move_then_attack(
        &self,
        ep: &Episode,
        a: CombatantId,
        t: CombatantId,
        ranged: bool,
        keep: impl Fn(Cell, bool) -> bool,
    ) -> Option<PolicyPlan> {
        let ((_, c), w) = self
            .squares
            .iter()
            .filter(|&&(c, _, prov)| keep(c, prov))
            .filter_map(|&(c, k, _)| {
                policy::weapon_of_mode(ep, a, c, t, ranged)
                    .or_else(|| policy::weapon_of_mode(ep, a, c, t, !ranged))
                    .map(|w| ((k, c), w))
            })
            .min_by_key(|(key, _)| *key)?;
        move_then_attack(ep, a, t, c, Some(w))
    }
}

fn moves(ep: &Episode, a: CombatantId, threat: &[bool]) -> Moves {
    if !can_move(ep, a) {
        return Moves {
            squares: Vec::new(),
        };
    }
    let pos = ep.position(a);
    let n = (ep.speed_ft(a) / grid::SQUARE_FT).max(0) as u32;
    let field = ep.move_field(a, Some(n));
    let cols = ep.encounter().grid.cols;
    let th = |c: Cell| threat.get((c.row * cols + c.col) as usize).copied() == Some(true);
    let squares = field
        .stoppable_iter()
        .filter(|&(c, k)| c != pos && k <= n)
        .map(|(c, k)| {
            let provokes = field.path_to(c).is_some_and(|path| {
                th(pos)
                    || path
                        .iter()
                        .take(path.len().saturating_sub(1))
                        .any(|&c| th(c))
            });
            (c, k, provokes)
        })
        .collect();
    Moves { squares }
}

fn threat_map(ep: &Episode, a: CombatantId) -> Vec<bool> {
    rules::reach::threatened_squares(ep, &enemies_of(ep, a))
}

fn prefers_ranged(ep: &Episode, a: CombatantId) -> bool {
    policy::prefers_ranged(ep, a)
}

/// Step 5's positioning on the attack plan `p`. `None`: keep `p`.
fn positioned(
    ep: &Episode,
    a: CombatantId,
    t: CombatantId,
    b: &TacticsBlock,
    threatened: bool,
) -> Option<PolicyPlan> {
    let pos_spec = &b.positioning;
    let pos = ep.position(a);
    if pos_spec.hold {
        return Some(
            attack_anyone_here(ep, a, t, threatened)
                .map(|x| vec![x].into())
                .unwrap_or_default(),
        );
    }
    let avoid = pos_spec.avoid_provoking;
    let threat = threat_map(ep, a);
    let cols = ep.encounter().grid.cols;
    let th = |c: Cell| threat.get((c.row * cols + c.col) as usize).copied() == Some(true);
    if let Some(name) = &pos_spec.stay_adjacent_to {
        let enc = ep.encounter();
        let ally = ep.ids().find(|&x| {
            x != a
                && !ep.enemies(a, x)
                && ep.conscious(x)
                && name_matches(&enc.combatants[rules::idx(x)], name)
        });
        if let Some(x) = ally {
            let adj = |c: Cell| {
                grid::footprint_distance_squares(c, ep.fp_side(a), ep.position(x), ep.fp_side(x))
                    <= 1
            };
            let ranged = prefers_ranged(ep, a);
            if adj(pos) {
                if let Some(act) = attack_anyone_here(ep, a, t, threatened) {
                    return Some(vec![act].into());
                }
                if let Some(p) = step_then_attack(ep, a, t, ranged, |c| adj(c) && !(avoid && th(c)))
                {
                    return Some(p);
                }
            }
            let m = moves(ep, a, &threat);
            if let Some(p) =
                m.move_then_attack(ep, a, t, ranged, |c, prov| adj(c) && !(avoid && prov))
            {
                return Some(p);
            }
            if adj(pos) {
                return Some(PolicyPlan::default());
            }
            // Not adjacent: get as close to the ally as a move allows.
            let here =
                grid::footprint_distance_squares(pos, ep.fp_side(a), ep.position(x), ep.fp_side(x));
            let closer = m
                .squares
                .iter()
                .filter(|&&(_, _, prov)| !(avoid && prov))
                .map(|&(c, k, _)| {
                    let d = grid::footprint_distance_squares(
                        c,
                        ep.fp_side(a),
                        ep.position(x),
                        ep.fp_side(x),
                    );
                    ((d, k, c), c)
                })
                .filter(|((d, _, _), _)| *d < here)
                .min_by_key(|(key, _)| *key);
            if let Some((_, c)) = closer {
                if let Some(p) = move_then_attack(ep, a, t, c, None) {
                    return Some(p);
                }
            }
            return Some(PolicyPlan::default());
        }
    }
    if let Some(range_ft) = pos_spec.keep_range_ft {
        return range_plan(ep, a, t, range_ft as i32, pos_spec, threatened, &threat);
    }
    if pos_spec.seek_flanking && !prefers_ranged(ep, a) {
        if rules::flanking::flanking(ep, a, pos, t) {
            if let Some(act) = attack_here(ep, a, t, threatened) {
                return Some(vec![act].into());
            }
        }
        if let Some(p) = step_then_attack(ep, a, t, false, |c| {
            rules::flanking::flanking(ep, a, c, t) && !(avoid && th(c) && th(pos))
        }) {
            return Some(p);
        }
        if attack_here(ep, a, t, threatened).is_some() {
            return None;
        }
        let m = moves(ep, a, &threat);
        let best = m
            .squares
            .iter()
            .filter(|&&(_, _, prov)| !(avoid && prov))
            .filter(|&&(c, _, _)| rules::flanking::flanking(ep, a, c, t))
            .filter_map(|&(c, k, _)| {
                policy::weapon_of_mode(ep, a, c, t, false).map(|w| ((k, c), w))
            })
            .min_by_key(|(key, _)| *key);
        if let Some(((_, c), w)) = best {
            return move_then_attack(ep, a, t, c, Some(w));
        }
    }
    None
}

/// `keep_range_ft`: see [`Positioning::keep_range_ft`].
fn range_plan(
    ep: &Episode,
    a: CombatantId,
    t: CombatantId,
    range_ft: i32,
    pos_spec: &Positioning,
    threatened: bool,
    threat: &[bool],
) -> Option<PolicyPlan> {
    let pos = ep.position(a);
    let foes = enemies_of(ep, a);
    let cols = ep.encounter().grid.cols;
    let th = |c: Cell| threat.get((c.row * cols + c.col) as usize).copied() == Some(true);
    let dist_ft = |c: Cell| {
        foes.iter()
            .map(|&x| distance(ep, a, c, x) * grid::SQUARE_FT)
            .min()
            .unwrap_or(i32::MAX)
    };
    let nearest = policy::nearest_enemy(ep, a);
    // Terrain cover the nearest enemy's ranged attacks would suffer against `a` at `c`.
    let cover = |c: Cell| -> i32 {
        if !pos_spec.prefer_cover {
            return 0;
        }
        nearest.map_or(0, |x| {
            crate::geometry::los::terrain_cover_bonus(
                &ep.encounter().grid,
                ep.position(x),
                ep.fp_side(x),
                c,
                ep.fp_side(a),
                crate::geometry::los::CoverMode::Ranged,
            ) as i32
        })
    };
    let shoot_from = |c: Cell| policy::weapon_of_mode(ep, a, c, t, true);
    let here_ft = dist_ft(pos);
    let avoid = pos_spec.avoid_provoking;
    if here_ft >= range_ft {
        if pos_spec.prefer_cover && attack_kind(ep, a) == Some(ActionKind::FullAttack) {
            let now = cover(pos);
            if let Some(p) = step_then_attack(ep, a, t, true, |c| {
                cover(c) > now && dist_ft(c) >= range_ft && !th(c)
            }) {
                return Some(p);
            }
        }
        if let Some(act) = attack_here(ep, a, t, threatened) {
            return Some(vec![act].into());
        }
        let m = moves(ep, a, threat);
        let best = m
            .squares
            .iter()
            .filter(|&&(c, _, prov)| !(avoid && prov) && dist_ft(c) >= range_ft)
            .filter_map(|&(c, k, _)| shoot_from(c).map(|w| ((-cover(c), k, c), w)))
            .min_by_key(|(key, _)| *key);
        return best.and_then(|((_, _, c), w)| move_then_attack(ep, a, t, c, Some(w)));
    }
    // Too close: step away if that suffices, else move away (or withdraw).
    if threatened || attack_kind(ep, a).is_some() {
        if let Some(p) = step_then_attack(ep, a, t, true, |c| {
            !th(c) && (dist_ft(c) >= range_ft || dist_ft(c) > here_ft)
        }) {
            return Some(p);
        }
    }
    let m = moves(ep, a, threat);
    let best = m
        .squares
        .iter()
        .filter(|&&(c, _, prov)| !(avoid && prov) && dist_ft(c) > here_ft)
        .map(|&(c, k, _)| {
            let w = shoot_from(c);
            (
                (dist_ft(c) < range_ft, w.is_none(), -cover(c), k, c),
                (c, w),
            )
        })
        .min_by_key(|(key, _)| *key);
    if let Some((_, (c, w))) = best {
        if let Some(p) = move_then_attack(ep, a, t, c, w) {
            return Some(p);
        }
    }
    if threatened && avoid {
        if let Some(dest) = policy::flee_square(ep, a, t) {
            return Some(
                vec![Action {
                    destination: Some(dest),
                    ..Action::new(ActionKind::Withdraw)
                }]
                .into(),
            );
        }
    }
    None
}

/// Whether plan `p` provokes as far as the policy can tell now: a move leaving a threatened
/// square (its start included), a charge or run from a threatened square, a ranged attack or
/// a cast (not defensive) while threatened, a ray's attack while threatened (defensive or not:
/// `rules::magic::ray_provokes`).
fn provokes(
    ep: &Episode,
    a: CombatantId,
    p: &PolicyPlan,
    threatened: bool,
    threat: &[bool],
) -> bool {
    let cols = ep.encounter().grid.cols;
    let th = |c: Cell| threat.get((c.row * cols + c.col) as usize).copied() == Some(true);
    let pos = ep.position(a);
    p.actions.iter().any(|x| match x.kind {
        ActionKind::Move => {
            let n = (ep.speed_ft(a) / grid::SQUARE_FT).max(0) as u32;
            let path = match (x.destination, x.target) {
                (Some(d), _) => ep.move_field(a, Some(n)).path_to(d),
                (None, Some(t)) => rules::movement::path_toward(ep, a, t, x.weapon, n),
                _ => None,
            };
            th(pos)
                || path.is_some_and(|path| {
                    path.iter()
                        .take(path.len().saturating_sub(1))
                        .any(|&c| th(c))
                })
        }
        ActionKind::Charge | ActionKind::Run | ActionKind::StandUp => threatened,
        ActionKind::Attack | ActionKind::FullAttack => {
            threatened
                && x.weapon
                    .is_some_and(|w| ep.spec(a).attacks.get(w).is_some_and(|s| s.is_ranged()))
        }
        ActionKind::CastSpell => threatened && (!x.defensively || casts_a_ray(ep, a, x)),
        _ => false,
    })
}

/// Whether cast action `x` of `a` makes a ray attack that provokes
/// ([`rules::magic::ray_provokes`]).
fn casts_a_ray(ep: &Episode, a: CombatantId, x: &Action) -> bool {
    x.spell
        .and_then(|si| ep.spec(a).spellbook().get(si))
        .is_some_and(|cs| rules::magic::ray_provokes(ep, a, &cs.spell, x.target))
}

/// `avoid_provoking` over the final plan `p` (see [`Positioning::avoid_provoking`]).
fn avoid_provoking(
    ep: &Episode,
    a: CombatantId,
    t: CombatantId,
    p: PolicyPlan,
    threatened: bool,
) -> PolicyPlan {
    let threat = threat_map(ep, a);
    if !provokes(ep, a, &p, threatened, &threat) {
        return p;
    }
    // A cast: cast it defensively (a ray's attack still provokes).
    if p.actions.len() == 1
        && p.actions[0].kind == ActionKind::CastSpell
        && !casts_a_ray(ep, a, &p.actions[0])
    {
        let mut c = p.actions[0].clone();
        c.defensively = true;
        if ok(ep, a, &c) {
            return vec![c].into();
        }
    }
    let cols = ep.encounter().grid.cols;
    let th = |c: Cell| threat.get((c.row * cols + c.col) as usize).copied() == Some(true);
    let ranged = prefers_ranged(ep, a);
    if threatened {
        // A melee attack from here provokes nothing.
        if let Some(kind) = attack_kind(ep, a) {
            let pos = ep.position(a);
            let melee = policy::weapon_of_mode(ep, a, pos, t, false).map(|w| (t, w));
            let melee = melee.or_else(|| {
                enemies_of(ep, a)
                    .into_iter()
                    .find_map(|x| policy::weapon_of_mode(ep, a, pos, x, false).map(|w| (x, w)))
            });
            if let Some((x, w)) = melee {
                let act = with(kind, x, Some(w), None);
                if ok(ep, a, &act) {
                    return vec![act].into();
                }
            }
        }
        if let Some(p) = step_then_attack(ep, a, t, ranged, |c| !th(c))
            .or_else(|| step_then_attack(ep, a, t, !ranged, |c| !th(c)))
        {
            return p;
        }
        if let Some(dest) = policy::flee_square(ep, a, t) {
            return vec![Action {
                destination: Some(dest),
                ..Action::new(ActionKind::Withdraw)
            }]
            .into();
        }
    } else {
        let m = moves(ep, a, &threat);
        if let Some(p) = m.move_then_attack(ep, a, t, ranged, |_, prov| !prov) {
            return p;
        }
        // No square to attack from without provoking: the closest safe square to the target.
        let pos = ep.position(a);
        let here = distance(ep, a, pos, t);
        let closer = m
            .squares
            .iter()
            .filter(|&&(_, _, prov)| !prov)
            .map(|&(c, k, _)| ((distance(ep, a, c, t), k, c), c))
            .filter(|((d, _, _), _)| *d < here)
            .min_by_key(|(key, _)| *key);
        if let Some((_, c)) = closer {
            let mv = Action {
                destination: Some(c),
                ..Action::new(ActionKind::Move)
            };
            if ok(ep, a, &mv) {
                return vec![mv].into();
            }
        }
    }
    let td = Action::new(ActionKind::TotalDefense);
    if threatened && ok(ep, a, &td) {
        return vec![td].into();
    }
    PolicyPlan::default()
}

/// Whether a plan attacks this turn with an attack or full attack (the plan `fight_defensively`
/// declares before).
fn plan_has_attack(p: &PolicyPlan) -> bool {
    p.actions
        .iter()
        .any(|x| matches!(x.kind, ActionKind::Attack | ActionKind::FullAttack))
        || p.then
            .as_ref()
            .is_some_and(|x| x.kind == ActionKind::Attack)
}

/// Step 5: the positioned attack plan with the spells and menu rules, then `avoid_provoking`.
fn base_plan(ep: &Episode, a: CombatantId, t: CombatantId, b: &TacticsBlock) -> PolicyPlan {
    let threatened = policy::is_threatened(ep, a);
    let p = positioned(ep, a, t, b, threatened)
        .unwrap_or_else(|| policy::attack_plan(ep, a, t, threatened));
    let p = policy::finish(ep, a, t, threatened, p, Some(t));
    if b.positioning.avoid_provoking {
        avoid_provoking(ep, a, t, p, threatened)
    } else {
        p
    }
}

/// A rule's action as a checked plan, `None` when it does not apply now.
fn rule_plan(
    ep: &Episode,
    a: CombatantId,
    t: CombatantId,
    b: &TacticsBlock,
    act: &RuleAction,
) -> Option<PolicyPlan> {
    let threatened = policy::is_threatened(ep, a);
    match act {
        RuleAction::FullAttack => attack_here(ep, a, t, threatened)
            .map(|x| vec![x].into())
            .or_else(|| step_then_attack(ep, a, t, prefers_ranged(ep, a), |_| true)),
        RuleAction::Charge => {
            let c = with(ActionKind::Charge, t, None, None);
            ok(ep, a, &c).then(|| vec![c].into())
        }
        RuleAction::Withdraw => policy::flee_square(ep, a, t).map(|dest| {
            vec![Action {
                destination: Some(dest),
                ..Action::new(ActionKind::Withdraw)
            }]
            .into()
        }),
        RuleAction::TotalDefense => {
            let td = Action::new(ActionKind::TotalDefense);
            ok(ep, a, &td).then(|| vec![td].into())
        }
        RuleAction::EndTurn => Some(PolicyPlan::default()),
        RuleAction::FightDefensively => {
            let fd = Action::new(ActionKind::FightDefensively);
            if !ok(ep, a, &fd) {
                return None;
            }
            let p = base_plan(ep, a, t, b);
            if !plan_has_attack(&p) {
                return None;
            }
            let mut actions = vec![fd];
            actions.extend(p.actions);
            Some(PolicyPlan {
                actions,
                then: p.then,
            })
        }
        RuleAction::PowerAttack(_) => None,
        RuleAction::Cast(c) => {
            let enc = ep.encounter();
            let si = knows_spell(&enc.combatants[rules::idx(a)], &c.spell)?;
            let spell = &ep.spec(a).spellbook()[si].spell;
            let mut cast = Action {
                spell: Some(si),
                ..Action::new(ActionKind::CastSpell)
            };
            match c.on {
                CastOn::Target => {
                    if spell.targeting == crate::content::spells::Targeting::Area {
                        if rules::magic::area_needs_square(spell) {
                            cast.target_pos = Some(ep.position(t));
                        } else {
                            cast.target = Some(a);
                        }
                    } else {
                        cast.target = Some(t);
                    }
                }
                CastOn::Caster => cast.target = Some(a),
                CastOn::MostWoundedAlly => {
                    let x = ep
                        .ids()
                        .filter(|&x| {
                            !ep.enemies(a, x)
                                && ep.life_state(x) != crate::episode::LifeState::Dead
                                && ep.hp(x) < ep.spec(x).max_hp()
                                && enc.combatants[rules::idx(x)]
                                    .summoned_by
                                    .is_none_or(|_| ep.conscious(x))
                        })
                        .min_by_key(|&x| {
                            (
                                ep.hp(x) as i64 * 1_000_000 / ep.spec(x).max_hp().max(1) as i64,
                                x.0,
                            )
                        })?;
                    cast.target = Some(x);
                }
            }
            if b.positioning.avoid_provoking && threatened {
                cast.defensively = true;
            }
            ok(ep, a, &cast).then(|| vec![cast].into())
        }
    }
}

/// The tactics policy (the evaluation order of the module doc).
fn plan(ep: &Episode, a: CombatantId, b: &TacticsBlock) -> PolicyPlan {
    let Some(t) = choose_target(ep, a, b) else {
        return PolicyPlan::default();
    };
    if let Some(p) = policy::forced(ep, a, t, false) {
        return p;
    }
    let has_pa = ep
        .spec(a)
        .has_feat(crate::content::feats::Feat::PowerAttack);
    let mut pa_decided = false;
    for r in &b.rules {
        if !holds(ep, a, t, &r.when) {
            continue;
        }
        if let RuleAction::PowerAttack(on) = r.action {
            if pa_decided || !has_pa {
                continue;
            }
            pa_decided = true;
            if on != ep.power_attack_on(a) {
                let toggle = Action::new(ActionKind::ActivatePowerAttack);
                if ok(ep, a, &toggle) {
                    return vec![toggle].into();
                }
            }
            continue;
        }
        if let Some(p) = rule_plan(ep, a, t, b, &r.action) {
            return p;
        }
    }
    if !pa_decided && has_pa && policy::power_attack_pays(ep, a, t) != ep.power_attack_on(a) {
        let toggle = Action::new(ActionKind::ActivatePowerAttack);
        if ok(ep, a, &toggle) {
            return vec![toggle].into();
        }
    }
    base_plan(ep, a, t, b)
}

// ----- the JSON Schema -------------------------------------------------------------------

/// The JSON Schema (draft 2020-12) of a tactics spec: plain objects with
/// `additionalProperties: false`, enums for every closed vocabulary, so it serves as a
/// grammar for constrained decoding. Ranges are those [`TacticsSpec::check`] enforces; names
/// (`named`, `stay_adjacent_to`, spells, `combatants` keys) are checked against the encounter
/// by [`Encounter::with_tactics`], not by the schema.
pub fn tactics_json_schema() -> serde_json::Value {
    use serde_json::json;
    let fraction = json!({"type": "number", "exclusiveMinimum": 0, "maximum": 1});
    let round = json!({"type": "integer", "minimum": 1});
    let name = json!({"type": "string", "minLength": 1, "maxLength": 100});
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://pf1e-gym/schemas/tactics.json",
        "title": "pf1e-gym tactics spec (the tactics of one side)",
        "type": "object",
        "additionalProperties": false,
        "required": ["name", "description"],
        "properties": {
            "name": name,
            "description": {"type": "string", "description": "the strategy in words"},
            "source": {"type": "string"},
            "default": {"$ref": "#/$defs/block"},
            "combatants": {
                "type": "object",
                "description": "combatant id or file stem -> block",
                "additionalProperties": {"$ref": "#/$defs/block"}
            }
        },
        "$defs": {
            "block": {
                "type": "object",
                "additionalProperties": false,
                "properties": {
                    "target": {
                        "type": "array",
                        "maxItems": MAX_CRITERIA,
                        "items": {"$ref": "#/$defs/criterion"}
                    },
                    "positioning": {"$ref": "#/$defs/positioning"},
                    "rules": {
                        "type": "array",
                        "maxItems": MAX_RULES,
                        "items": {"$ref": "#/$defs/rule"}
                    }
                }
            },
            "criterion": {
                "anyOf": [
                    {"type": "string", "enum": [
                        "nearest", "lowest_hp", "highest_hp", "lowest_hp_fraction",
                        "lowest_ac", "highest_ac", "casters_first", "threatened_by_ally",
                        "attackable_now"
                    ]},
                    {
                        "type": "object",
                        "additionalProperties": false,
                        "required": ["named"],
                        "properties": {"named": name}
                    }
                ]
            },
            "positioning": {
                "type": "object",
                "additionalProperties": false,
                "properties": {
                    "keep_range_ft": {"type": "integer", "minimum": 5, "maximum": 1000, "multipleOf": 5},
                    "prefer_cover": {"type": "boolean"},
                    "seek_flanking": {"type": "boolean"},
                    "stay_adjacent_to": name,
                    "avoid_provoking": {"type": "boolean"},
                    "hold": {"type": "boolean"}
                }
            },
            "rule": {
                "type": "object",
                "additionalProperties": false,
                "required": ["do"],
                "properties": {
                    "when": {"$ref": "#/$defs/when"},
                    "do": {"$ref": "#/$defs/action"}
                }
            },
            "when": {
                "type": "object",
                "additionalProperties": false,
                "properties": {
                    "hp_below_fraction": fraction,
                    "target_hp_below_fraction": fraction,
                    "ally_hp_below_fraction": fraction,
                    "enemies_adjacent_at_least": {"type": "integer", "minimum": 0},
                    "target_ac_at_most": {"type": "integer"},
                    "target_adjacent": {"type": "boolean"},
                    "threatened": {"type": "boolean"},
                    "round_at_least": round,
                    "round_at_most": round,
                    "has_spell_slot": name
                }
            },
            "action": {
                "anyOf": [
                    {"type": "string", "enum": [
                        "full_attack", "charge", "withdraw", "total_defense",
                        "fight_defensively", "end_turn"
                    ]},
                    {
                        "type": "object",
                        "additionalProperties": false,
                        "required": ["power_attack"],
                        "properties": {"power_attack": {"type": "boolean"}}
                    },
                    {
                        "type": "object",
                        "additionalProperties": false,
                        "required": ["cast"],
                        "properties": {"cast": {
                            "type": "object",
                            "additionalProperties": false,
                            "required": ["spell"],
                            "properties": {
                                "spell": name,
                                "on": {"type": "string", "enum": ["target", "self", "most_wounded_ally"]}
                            }
                        }}
                    }
                ]
            }
        }
    })
}

/// What the built-in policy (the encounter's tactics for `a`'s side, else the default policy)
/// would do now at `a`'s turn: the actions in order, then the follow-up (checked once they
/// are done). For tests and explanations; the episode plays exactly this plan for a
/// combatant it controls. Meaningful at a turn of `a` (a decision or the policy's own turn).
pub fn built_in_plan(ep: &Episode, a: CombatantId) -> (Vec<Action>, Option<Action>) {
    let p = policy_for(ep, a);
    (p.actions, p.then)
}
