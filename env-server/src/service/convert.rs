//! Every proto ↔ engine conversion of the service, in one place: request options with their
//! defaults ([`ObsOpts`], the reward options), controlled sets, actions (typed, with the field
//! at fault named in errors), action kinds and maneuvers, action results and their
//! `ResultCode`s ([`result_code`]: the one place that maps engine reason strings), decisions,
//! outcomes, observations, tensors, and the `EpisodeState` of a session.
//!
//! Conversions that need nothing but their input are `From` impls; those that need context
//! (the encounter, the request field, an option) or give `None` for UNSPECIFIED are functions.
//! The public functions (`kind_to_proto`, `maneuver_to_proto`, `action_to_proto`…) are the
//! crate's API, re-exported by `service`.
use super::sessions::Session;
use super::ServiceError;
use crate::proto;
use crate::scenarios::{InlineCombatant, InlineScenario, InlineSide, ScenarioInfo, ScenarioSource};
use pf1e_engine::actions::{AidMode, Direction, Metamagic, Note, ReadyTrigger, Reject};
use pf1e_engine::observe::text::{
    Lang, TextMode, TextOptions, CHARS_PER_TOKEN_RANGE, DEFAULT_CHARS_PER_TOKEN,
};
use pf1e_engine::reward::RewardConfig;
use pf1e_engine::DecisionKind;
use pf1e_engine::{
    Action, ActionKind, Cell, CombatantId, Controller, Encounter, Episode, Maneuver, Status,
};
use std::collections::{BTreeSet, HashMap};

/// What each EpisodeState of an episode carries (`proto::ObservationOptions`, defaults
/// applied).
#[derive(Debug, Clone, Copy)]
pub(super) struct ObsOpts {
    json: bool,
    typed: bool,
    tensors: bool,
    legal_actions: bool,
    mask: bool,
    /// `Observation.text` in these options (language, mode, budget; `None`: no text, the
    /// default — the hot path never renders it).
    pub(super) text: Option<TextOptions>,
}

impl ObsOpts {
    /// The request's options (the `observation` field), absent fields (or absent options)
    /// taking the proto's defaults.
    ///
    /// # Errors
    /// INVALID_ARGUMENT naming `observation.lang` when `lang` is neither empty, `en` nor
    /// `fr`; `observation.text_mode` when `text_mode` is neither empty, `full` nor `compact`;
    /// `observation.text_chars_per_token` when it is set (non-zero) and not a finite number
    /// from 0.5 to 16.
    pub(super) fn parse(o: Option<&proto::ObservationOptions>) -> Result<ObsOpts, ServiceError> {
        let default = proto::ObservationOptions::default();
        let o = o.unwrap_or(&default);
        let lang = match o.lang.as_str() {
            "" => Lang::En,
            code => code
                .parse::<Lang>()
                .map_err(|e| ServiceError::invalid("observation.lang", e.to_string()))?,
        };
        let mode = match o.text_mode.as_str() {
            "" => TextMode::Full,
            name => name
                .parse::<TextMode>()
                .map_err(|e| ServiceError::invalid("observation.text_mode", e.to_string()))?,
        };
        let cpt = o.text_chars_per_token;
        let chars_per_token = if cpt == 0.0 {
            DEFAULT_CHARS_PER_TOKEN
        } else if CHARS_PER_TOKEN_RANGE.contains(&cpt) {
            cpt
        } else {
            return Err(ServiceError::invalid(
                "observation.text_chars_per_token",
                format!(
                    "{cpt} is not a number of characters per token from {} to {}",
                    CHARS_PER_TOKEN_RANGE.start(),
                    CHARS_PER_TOKEN_RANGE.end()
                ),
            ));
        };
        let text = TextOptions {
            lang,
            mode,
            token_budget: (o.text_token_budget > 0).then_some(o.text_token_budget),
            chars_per_token,
        };
        Ok(ObsOpts {
            json: o.json.unwrap_or(true),
            typed: o.typed.unwrap_or(true),
            tensors: o.tensors,
            legal_actions: o.legal_actions.unwrap_or(true),
            mask: o.action_mask,
            text: o.text.then_some(text),
        })
    }
}

/// Default `RewardOptions.damage_weight`.
pub const DEFAULT_DAMAGE_WEIGHT: f32 = 1.0;
/// Default `RewardOptions.kill_weight`.
pub const DEFAULT_KILL_WEIGHT: f32 = 0.1;
/// Largest accepted absolute reward weight.
pub const MAX_REWARD_WEIGHT: f32 = 1000.0;

/// Reward shaping (`proto::RewardOptions`, defaults applied): the engine's
/// [`RewardConfig`]. Unset weights take [`DEFAULT_DAMAGE_WEIGHT`] / [`DEFAULT_KILL_WEIGHT`];
/// a weight that is not finite or is beyond ±[`MAX_REWARD_WEIGHT`] is INVALID_ARGUMENT naming
/// `{field}.damage_weight` / `{field}.kill_weight`; an unset `round_discount` is 1 (no
/// discount), one not finite or outside (0, 1] is INVALID_ARGUMENT naming
/// `{field}.round_discount`. (A function, not `TryFrom`: the orphan
/// rule forbids `impl TryFrom<Option<&proto::RewardOptions>> for RewardConfig`, and the error
/// names `field`.)
pub fn reward_config(
    o: Option<&proto::RewardOptions>,
    field: &str,
) -> Result<RewardConfig, ServiceError> {
    let o = o.cloned().unwrap_or_default();
    let weight = |v: Option<f32>, default: f32, name: &str| {
        let w = v.unwrap_or(default);
        if !w.is_finite() || w.abs() > MAX_REWARD_WEIGHT {
            return Err(ServiceError::invalid(
                format!("{field}.{name}"),
                format!("{w} is not a finite weight within ±{MAX_REWARD_WEIGHT}"),
            ));
        }
        Ok(f64::from(w))
    };
    let g = o.round_discount.unwrap_or(1.0);
    if !(g.is_finite() && g > 0.0 && g <= 1.0) {
        return Err(ServiceError::invalid(
            format!("{field}.round_discount"),
            format!("{g} is not a discount per round in (0, 1]"),
        ));
    }
    Ok(RewardConfig {
        shaped: o.shaped,
        round_discount: f64::from(g),
        damage_weight: weight(o.damage_weight, DEFAULT_DAMAGE_WEIGHT, "damage_weight")?,
        kill_weight: weight(o.kill_weight, DEFAULT_KILL_WEIGHT, "kill_weight")?,
    })
}

/// Controllers per combatant and the reward side from the request's `controlled`.
pub fn controllers(
    enc: &Encounter,
    controlled: Option<&proto::Controlled>,
) -> Result<(Vec<Controller>, Option<String>), ServiceError> {
    let mut ctl = vec![Controller::DefaultPolicy; enc.combatants.len()];
    let Some(c) = controlled else {
        return Ok((ctl, None));
    };
    for (i, side) in c.sides.iter().enumerate() {
        if !enc.sides.contains(side) {
            return Err(ServiceError::invalid(
                format!("controlled.sides[{i}]"),
                format!("unknown side {side:?} (sides: {})", enc.sides.join(", ")),
            ));
        }
        for (k, p) in enc.combatants.iter().enumerate() {
            if p.side == *side {
                ctl[k] = Controller::External;
            }
        }
    }
    for (i, id) in c.combatant_ids.iter().enumerate() {
        match enc.combatants.iter().position(|p| p.id == *id) {
            Some(k) => ctl[k] = Controller::External,
            None => {
                let ids: Vec<&str> = enc.combatants.iter().map(|p| p.id.as_str()).collect();
                return Err(ServiceError::invalid(
                    format!("controlled.combatant_ids[{i}]"),
                    format!("unknown combatant {id:?} (ids: {})", ids.join(", ")),
                ));
            }
        }
    }
    let sides: BTreeSet<&str> = enc
        .combatants
        .iter()
        .zip(&ctl)
        .filter(|(_, c)| **c == Controller::External)
        .map(|(p, _)| p.side.as_str())
        .collect();
    let reward_side = if sides.len() == 1 {
        sides.into_iter().next().map(str::to_string)
    } else {
        None
    };
    Ok((ctl, reward_side))
}

/// The engine action of a proto action. `field` names it (`actions[i]`).
pub(super) fn action_from_proto(
    a: &proto::Action,
    field: &str,
    enc: &Encounter,
) -> Result<Action, ServiceError> {
    let kind = match proto::ActionKind::try_from(a.kind) {
        Ok(proto::ActionKind::Unspecified) => {
            return Err(ServiceError::invalid(
                format!("{field}.kind"),
                "must be set (ACTION_KIND_UNSPECIFIED is not an action)",
            ))
        }
        Ok(k) => kind_from_proto(k)
            .ok_or_else(|| ServiceError::Internal("unmapped action kind".into()))?,
        Err(_) => {
            return Err(ServiceError::invalid(
                format!("{field}.kind"),
                format!("unknown action kind {}", a.kind),
            ))
        }
    };
    let target = match a.target {
        None => None,
        Some(t) => {
            let n = enc.combatants.len();
            if (t as usize) >= n {
                return Err(ServiceError::invalid(
                    format!("{field}.target"),
                    format!("no combatant with index {t} (the encounter has {n}: 0..{n})"),
                ));
            }
            let t = u16::try_from(t)
                .map_err(|_| ServiceError::invalid(format!("{field}.target"), "too large"))?;
            Some(CombatantId(t))
        }
    };
    let destination = match &a.destination {
        None => None,
        Some(c) => {
            let (rows, cols) = (enc.map.rows, enc.map.cols);
            if c.row < 0 || c.col < 0 || c.row >= rows || c.col >= cols {
                return Err(ServiceError::invalid(
                    format!("{field}.destination"),
                    format!(
                        "({},{}) is off the map ({rows} rows × {cols} columns)",
                        c.row, c.col
                    ),
                ));
            }
            Some(Cell::new(c.row, c.col))
        }
    };
    let weapon = a.weapon.map(|w| w as usize);
    let maneuver = match a.maneuver {
        None => None,
        Some(m) => match proto::ManeuverType::try_from(m) {
            Ok(proto::ManeuverType::Unspecified) => None,
            Ok(m) => maneuver_from_proto(m),
            Err(_) => {
                return Err(ServiceError::invalid(
                    format!("{field}.maneuver"),
                    format!("unknown maneuver type {m}"),
                ))
            }
        },
    };
    let aid_mode = match a.aid_mode {
        None => None,
        Some(m) => match proto::AidMode::try_from(m) {
            Ok(proto::AidMode::Unspecified) => None,
            Ok(proto::AidMode::Attack) => Some(AidMode::Attack),
            Ok(proto::AidMode::Ac) => Some(AidMode::Ac),
            Err(_) => {
                return Err(ServiceError::invalid(
                    format!("{field}.aid_mode"),
                    format!("unknown aid mode {m}"),
                ))
            }
        },
    };
    let ally = match a.ally {
        None => None,
        Some(f) => {
            let n = enc.combatants.len();
            if (f as usize) >= n {
                return Err(ServiceError::invalid(
                    format!("{field}.ally"),
                    format!("no combatant with index {f} (the encounter has {n}: 0..{n})"),
                ));
            }
            let f = u16::try_from(f)
                .map_err(|_| ServiceError::invalid(format!("{field}.ally"), "too large"))?;
            Some(CombatantId(f))
        }
    };
    let direction = match a.direction {
        None => None,
        Some(d) => match proto::Direction::try_from(d) {
            Ok(proto::Direction::Unspecified) => None,
            Ok(d) => Some(direction_from_proto(d)),
            Err(_) => {
                return Err(ServiceError::invalid(
                    format!("{field}.direction"),
                    format!("unknown direction {d}"),
                ))
            }
        },
    };
    if (aid_mode.is_some() || ally.is_some()) && kind != ActionKind::AidAnother {
        return Err(ServiceError::invalid(
            format!("{field}.aid_mode"),
            format!(
                "only an `aid_another` action takes an aid mode or an ally, not `{}`",
                kind.name()
            ),
        ));
    }
    if direction.is_some() && kind != ActionKind::Maneuver {
        return Err(ServiceError::invalid(
            format!("{field}.direction"),
            format!(
                "only a `maneuver` (bull rush) takes a direction, not `{}`",
                kind.name()
            ),
        ));
    }
    if maneuver.is_some() && kind != ActionKind::Maneuver {
        return Err(ServiceError::invalid(
            format!("{field}.maneuver"),
            format!(
                "only a `maneuver` action takes a maneuver type, not `{}`",
                kind.name()
            ),
        ));
    }
    let trigger = match &a.trigger {
        None => None,
        Some(t) => Some(trigger_from_proto(t, &format!("{field}.trigger"), enc)?),
    };
    let readied = match &a.readied {
        None => None,
        Some(r) => {
            if r.readied.is_some() || r.trigger.is_some() {
                return Err(ServiceError::invalid(
                    format!("{field}.readied"),
                    "a readied action cannot itself carry a readied action or a trigger",
                ));
            }
            Some(Box::new(action_from_proto(
                r,
                &format!("{field}.readied"),
                enc,
            )?))
        }
    };
    if (readied.is_some() || trigger.is_some()) && kind != ActionKind::Ready {
        return Err(ServiceError::invalid(
            format!("{field}.readied"),
            format!(
                "only a `ready` action takes a readied action and a trigger, not `{}`",
                kind.name()
            ),
        ));
    }
    let spell = a.spell.map(|s| s as usize);
    let target_pos = match &a.target_pos {
        None => None,
        Some(c) => {
            let (rows, cols) = (enc.map.rows, enc.map.cols);
            if c.row < 0 || c.col < 0 || c.row >= rows || c.col >= cols {
                return Err(ServiceError::invalid(
                    format!("{field}.target_pos"),
                    format!(
                        "({},{}) is off the map ({rows} rows × {cols} columns)",
                        c.row, c.col
                    ),
                ));
            }
            Some(Cell::new(c.row, c.col))
        }
    };
    let mut metamagic = Vec::with_capacity(a.metamagic.len());
    for (i, &m) in a.metamagic.iter().enumerate() {
        let m = match proto::Metamagic::try_from(m) {
            Ok(proto::Metamagic::Unspecified) => {
                return Err(ServiceError::invalid(
                    format!("{field}.metamagic[{i}]"),
                    "must be set (METAMAGIC_UNSPECIFIED is not a metamagic feat)",
                ))
            }
            Ok(m) => metamagic_from_proto(m)
                .ok_or_else(|| ServiceError::Internal("unmapped metamagic".into()))?,
            Err(_) => {
                return Err(ServiceError::invalid(
                    format!("{field}.metamagic[{i}]"),
                    format!("unknown metamagic {m}"),
                ))
            }
        };
        if metamagic.contains(&m) {
            return Err(ServiceError::invalid(
                format!("{field}.metamagic[{i}]"),
                format!("`{}` given twice", m.name()),
            ));
        }
        metamagic.push(m);
    }
    if (spell.is_some() || target_pos.is_some() || a.defensively) && kind != ActionKind::CastSpell {
        let f = if spell.is_some() {
            "spell"
        } else if target_pos.is_some() {
            "target_pos"
        } else {
            "defensively"
        };
        return Err(ServiceError::invalid(
            format!("{field}.{f}"),
            format!(
                "only a `cast_spell` action takes a spell, a target square or `defensively`, not `{}`",
                kind.name()
            ),
        ));
    }
    if !metamagic.is_empty()
        && !matches!(kind, ActionKind::CastSpell | ActionKind::ActivateMetamagic)
    {
        return Err(ServiceError::invalid(
            format!("{field}.metamagic"),
            format!(
                "only `cast_spell` and `activate_metamagic` take metamagic, not `{}`",
                kind.name()
            ),
        ));
    }
    Ok(Action {
        kind,
        target,
        destination,
        weapon,
        maneuver,
        readied,
        trigger,
        aid_mode,
        ally,
        direction,
        spell,
        target_pos,
        defensively: a.defensively,
        metamagic,
    })
}

/// Proto metamagic → engine metamagic (`None` for UNSPECIFIED): one exhaustive match.
pub fn metamagic_from_proto(m: proto::Metamagic) -> Option<Metamagic> {
    use proto::Metamagic as P;
    Some(match m {
        P::Unspecified => return None,
        P::Empower => Metamagic::Empower,
        P::Extend => Metamagic::Extend,
        P::Heighten => Metamagic::Heighten,
        P::Maximize => Metamagic::Maximize,
        P::Quicken => Metamagic::Quicken,
        P::Silent => Metamagic::Silent,
        P::Still => Metamagic::Still,
    })
}

/// Engine metamagic → proto metamagic.
impl From<Metamagic> for proto::Metamagic {
    fn from(m: Metamagic) -> Self {
        use proto::Metamagic as P;
        match m {
            Metamagic::Empower => P::Empower,
            Metamagic::Extend => P::Extend,
            Metamagic::Heighten => P::Heighten,
            Metamagic::Maximize => P::Maximize,
            Metamagic::Quicken => P::Quicken,
            Metamagic::Silent => P::Silent,
            Metamagic::Still => P::Still,
        }
    }
}

/// Engine metamagic → proto metamagic (`proto::Metamagic::from`).
pub fn metamagic_to_proto(m: Metamagic) -> proto::Metamagic {
    m.into()
}

/// The engine trigger of a proto `ReadyTrigger` (`field` names it).
fn trigger_from_proto(
    t: &proto::ReadyTrigger,
    field: &str,
    enc: &Encounter,
) -> Result<ReadyTrigger, ServiceError> {
    let by = match t.by {
        None => None,
        Some(b) => {
            let n = enc.combatants.len();
            if (b as usize) >= n {
                return Err(ServiceError::invalid(
                    format!("{field}.by"),
                    format!("no combatant with index {b} (the encounter has {n}: 0..{n})"),
                ));
            }
            Some(CombatantId(b as u16))
        }
    };
    use proto::ReadyTriggerEvent as E;
    if t.within_ft != 0 && t.event != E::EnemyWithin as i32 {
        return Err(ServiceError::invalid(
            format!("{field}.within_ft"),
            "only READY_TRIGGER_EVENT_ENEMY_WITHIN takes a distance",
        ));
    }
    Ok(match E::try_from(t.event) {
        Ok(E::EnemyEntersReach) => ReadyTrigger::EnemyEntersReach { by },
        // Out of u16 is out of 5–120 too: the engine refuses it (`invalid_ready`), as any
        // other bad distance.
        Ok(E::EnemyWithin) => ReadyTrigger::EnemyWithin {
            ft: u16::try_from(t.within_ft).unwrap_or(u16::MAX),
            by,
        },

        Ok(E::EnemyAttacks) => ReadyTrigger::EnemyAttacks { by },
        Ok(E::AllyActs) => ReadyTrigger::AllyActs { by },
        Ok(E::Unspecified) => {
            return Err(ServiceError::invalid(
                format!("{field}.event"),
                "must be set (READY_TRIGGER_EVENT_UNSPECIFIED is not an event)",
            ))
        }
        Err(_) => {
            return Err(ServiceError::invalid(
                format!("{field}.event"),
                format!("unknown ready trigger event {}", t.event),
            ))
        }
    })
}

/// Engine trigger → proto trigger.
pub fn trigger_to_proto(t: &ReadyTrigger) -> proto::ReadyTrigger {
    use proto::ReadyTriggerEvent as E;
    let (event, within_ft) = match t {
        ReadyTrigger::EnemyEntersReach { .. } => (E::EnemyEntersReach, 0),
        ReadyTrigger::EnemyWithin { ft, .. } => (E::EnemyWithin, u32::from(*ft)),
        ReadyTrigger::EnemyAttacks { .. } => (E::EnemyAttacks, 0),
        ReadyTrigger::AllyActs { .. } => (E::AllyActs, 0),
    };
    proto::ReadyTrigger {
        event: event as i32,
        by: t.by().map(|b| u32::from(b.0)),
        within_ft,
    }
}

/// Proto direction (not UNSPECIFIED) → engine direction.
fn direction_from_proto(d: proto::Direction) -> Direction {
    match d {
        proto::Direction::Unspecified | proto::Direction::N => Direction::N,
        proto::Direction::Ne => Direction::Ne,
        proto::Direction::E => Direction::E,
        proto::Direction::Se => Direction::Se,
        proto::Direction::S => Direction::S,
        proto::Direction::Sw => Direction::Sw,
        proto::Direction::W => Direction::W,
        proto::Direction::Nw => Direction::Nw,
    }
}

/// Engine direction → proto direction.
fn direction_to_proto(d: Direction) -> proto::Direction {
    match d {
        Direction::N => proto::Direction::N,
        Direction::Ne => proto::Direction::Ne,
        Direction::E => proto::Direction::E,
        Direction::Se => proto::Direction::Se,
        Direction::S => proto::Direction::S,
        Direction::Sw => proto::Direction::Sw,
        Direction::W => proto::Direction::W,
        Direction::Nw => proto::Direction::Nw,
    }
}

/// Proto maneuver type → engine maneuver (`None` for UNSPECIFIED): one exhaustive match.
pub fn maneuver_from_proto(m: proto::ManeuverType) -> Option<Maneuver> {
    use proto::ManeuverType as P;
    Some(match m {
        P::Unspecified => return None,
        P::Trip => Maneuver::Trip,
        P::Disarm => Maneuver::Disarm,
        P::BullRush => Maneuver::BullRush,
        P::Sunder => Maneuver::Sunder,
        P::Grapple => Maneuver::Grapple,
        P::Pin => Maneuver::Pin,
        P::Escape => Maneuver::Escape,
        P::Overrun => Maneuver::Overrun,
        P::DirtyTrickBlinded => Maneuver::DirtyTrickBlinded,
        P::DirtyTrickDazzled => Maneuver::DirtyTrickDazzled,
        P::DirtyTrickDeafened => Maneuver::DirtyTrickDeafened,
        P::DirtyTrickEntangled => Maneuver::DirtyTrickEntangled,
        P::DirtyTrickShaken => Maneuver::DirtyTrickShaken,
        P::DirtyTrickSickened => Maneuver::DirtyTrickSickened,
        P::Steal => Maneuver::Steal,
        P::Reposition => Maneuver::Reposition,
        P::Drag => Maneuver::Drag,
    })
}

/// Engine maneuver → proto maneuver type.
impl From<Maneuver> for proto::ManeuverType {
    fn from(m: Maneuver) -> Self {
        use proto::ManeuverType as P;
        match m {
            Maneuver::Trip => P::Trip,
            Maneuver::Disarm => P::Disarm,
            Maneuver::BullRush => P::BullRush,
            Maneuver::Sunder => P::Sunder,
            Maneuver::Grapple => P::Grapple,
            Maneuver::Pin => P::Pin,
            Maneuver::Escape => P::Escape,
            Maneuver::Overrun => P::Overrun,
            Maneuver::DirtyTrickBlinded => P::DirtyTrickBlinded,
            Maneuver::DirtyTrickDazzled => P::DirtyTrickDazzled,
            Maneuver::DirtyTrickDeafened => P::DirtyTrickDeafened,
            Maneuver::DirtyTrickEntangled => P::DirtyTrickEntangled,
            Maneuver::DirtyTrickShaken => P::DirtyTrickShaken,
            Maneuver::DirtyTrickSickened => P::DirtyTrickSickened,
            Maneuver::Steal => P::Steal,
            Maneuver::Reposition => P::Reposition,
            Maneuver::Drag => P::Drag,
        }
    }
}

/// Engine maneuver → proto maneuver type (`proto::ManeuverType::from`).
pub fn maneuver_to_proto(m: Maneuver) -> proto::ManeuverType {
    m.into()
}

/// Proto action kind → engine action kind (`None` for UNSPECIFIED).
pub fn kind_from_proto(k: proto::ActionKind) -> Option<ActionKind> {
    Some(match k {
        proto::ActionKind::Unspecified => return None,
        proto::ActionKind::EndTurn => ActionKind::EndTurn,
        proto::ActionKind::Attack => ActionKind::Attack,
        proto::ActionKind::FullAttack => ActionKind::FullAttack,
        proto::ActionKind::Charge => ActionKind::Charge,
        proto::ActionKind::Move => ActionKind::Move,
        proto::ActionKind::FiveFootStep => ActionKind::FiveFootStep,
        proto::ActionKind::Withdraw => ActionKind::Withdraw,
        proto::ActionKind::Maneuver => ActionKind::Maneuver,
        proto::ActionKind::StandUp => ActionKind::StandUp,
        proto::ActionKind::DropProne => ActionKind::DropProne,
        proto::ActionKind::RetrieveWeapon => ActionKind::RetrieveWeapon,
        proto::ActionKind::RepairWeapon => ActionKind::RepairWeapon,
        proto::ActionKind::ActivatePowerAttack => ActionKind::ActivatePowerAttack,
        proto::ActionKind::Run => ActionKind::Run,
        proto::ActionKind::AttackOfOpportunity => ActionKind::AttackOfOpportunity,
        proto::ActionKind::Decline => ActionKind::Decline,
        proto::ActionKind::TotalDefense => ActionKind::TotalDefense,
        proto::ActionKind::FightDefensively => ActionKind::FightDefensively,
        proto::ActionKind::Delay => ActionKind::Delay,
        proto::ActionKind::Ready => ActionKind::Ready,
        proto::ActionKind::FireReadied => ActionKind::FireReadied,
        proto::ActionKind::Cleave => ActionKind::Cleave,
        proto::ActionKind::SpringAttack => ActionKind::SpringAttack,
        proto::ActionKind::ShotOnTheRun => ActionKind::ShotOnTheRun,
        proto::ActionKind::ActivateLunge => ActionKind::ActivateLunge,
        proto::ActionKind::StandStill => ActionKind::StandStill,
        proto::ActionKind::ActivateDeadlyAim => ActionKind::ActivateDeadlyAim,
        proto::ActionKind::ActivateCombatExpertise => ActionKind::ActivateCombatExpertise,
        proto::ActionKind::AidAnother => ActionKind::AidAnother,
        proto::ActionKind::CoupDeGrace => ActionKind::CoupDeGrace,
        proto::ActionKind::DrawWeapon => ActionKind::DrawWeapon,
        proto::ActionKind::SheatheWeapon => ActionKind::SheatheWeapon,
        proto::ActionKind::CastSpell => ActionKind::CastSpell,
        proto::ActionKind::CastDefensively => ActionKind::CastDefensively,
        proto::ActionKind::ActivateMetamagic => ActionKind::ActivateMetamagic,
    })
}

/// Engine action kind → proto action kind.
impl From<ActionKind> for proto::ActionKind {
    fn from(k: ActionKind) -> Self {
        match k {
            ActionKind::EndTurn => proto::ActionKind::EndTurn,
            ActionKind::Attack => proto::ActionKind::Attack,
            ActionKind::FullAttack => proto::ActionKind::FullAttack,
            ActionKind::Charge => proto::ActionKind::Charge,
            ActionKind::Move => proto::ActionKind::Move,
            ActionKind::FiveFootStep => proto::ActionKind::FiveFootStep,
            ActionKind::Withdraw => proto::ActionKind::Withdraw,
            ActionKind::Maneuver => proto::ActionKind::Maneuver,
            ActionKind::StandUp => proto::ActionKind::StandUp,
            ActionKind::DropProne => proto::ActionKind::DropProne,
            ActionKind::RetrieveWeapon => proto::ActionKind::RetrieveWeapon,
            ActionKind::RepairWeapon => proto::ActionKind::RepairWeapon,
            ActionKind::ActivatePowerAttack => proto::ActionKind::ActivatePowerAttack,
            ActionKind::Run => proto::ActionKind::Run,
            ActionKind::AttackOfOpportunity => proto::ActionKind::AttackOfOpportunity,
            ActionKind::Decline => proto::ActionKind::Decline,
            ActionKind::TotalDefense => proto::ActionKind::TotalDefense,
            ActionKind::FightDefensively => proto::ActionKind::FightDefensively,
            ActionKind::Delay => proto::ActionKind::Delay,
            ActionKind::Ready => proto::ActionKind::Ready,
            ActionKind::FireReadied => proto::ActionKind::FireReadied,
            ActionKind::Cleave => proto::ActionKind::Cleave,
            ActionKind::SpringAttack => proto::ActionKind::SpringAttack,
            ActionKind::ShotOnTheRun => proto::ActionKind::ShotOnTheRun,
            ActionKind::ActivateLunge => proto::ActionKind::ActivateLunge,
            ActionKind::StandStill => proto::ActionKind::StandStill,
            ActionKind::ActivateDeadlyAim => proto::ActionKind::ActivateDeadlyAim,
            ActionKind::ActivateCombatExpertise => proto::ActionKind::ActivateCombatExpertise,
            ActionKind::AidAnother => proto::ActionKind::AidAnother,
            ActionKind::CoupDeGrace => proto::ActionKind::CoupDeGrace,
            ActionKind::DrawWeapon => proto::ActionKind::DrawWeapon,
            ActionKind::SheatheWeapon => proto::ActionKind::SheatheWeapon,
            ActionKind::CastSpell => proto::ActionKind::CastSpell,
            ActionKind::CastDefensively => proto::ActionKind::CastDefensively,
            ActionKind::ActivateMetamagic => proto::ActionKind::ActivateMetamagic,
        }
    }
}

/// Engine action kind → proto action kind (`proto::ActionKind::from`).
pub fn kind_to_proto(k: ActionKind) -> proto::ActionKind {
    k.into()
}

/// Engine action → proto action.
impl From<&Action> for proto::Action {
    fn from(a: &Action) -> Self {
        proto::Action {
            kind: kind_to_proto(a.kind) as i32,
            target: a.target.map(|t| u32::from(t.0)),
            destination: a.destination.map(|c| proto::Cell {
                row: c.row,
                col: c.col,
            }),
            weapon: a.weapon.map(|w| u32::try_from(w).unwrap_or(u32::MAX)),
            maneuver: a.maneuver.map(|m| maneuver_to_proto(m) as i32),
            readied: a
                .readied
                .as_deref()
                .map(|r| Box::new(proto::Action::from(r))),
            trigger: a.trigger.as_ref().map(trigger_to_proto),
            aid_mode: a.aid_mode.map(|m| match m {
                AidMode::Attack => proto::AidMode::Attack as i32,
                AidMode::Ac => proto::AidMode::Ac as i32,
            }),
            ally: a.ally.map(|f| u32::from(f.0)),
            direction: a.direction.map(|d| direction_to_proto(d) as i32),
            spell: a.spell.map(|s| u32::try_from(s).unwrap_or(u32::MAX)),
            target_pos: a.target_pos.map(|c| proto::Cell {
                row: c.row,
                col: c.col,
            }),
            defensively: a.defensively,
            metamagic: a
                .metamagic
                .iter()
                .map(|&m| metamagic_to_proto(m) as i32)
                .collect(),
        }
    }
}

/// Engine action → proto action (`proto::Action::from`).
pub fn action_to_proto(a: &Action) -> proto::Action {
    a.into()
}

/// The engine's refusal → `ResultCode`: the one place that maps them, exhaustive (a new
/// [`Reject`] variant does not compile until it has its code).
pub fn result_code(reason: Option<&Reject>) -> proto::ResultCode {
    use proto::ResultCode as C;
    let Some(reason) = reason else {
        return C::Ok;
    };
    match reason {
        Reject::MissingTarget => C::MissingTarget,
        Reject::InvalidTarget { .. } => C::InvalidTarget,
        Reject::WeaponUnavailable { .. } => C::WeaponUnavailable,
        Reject::NoWeapon => C::NoWeapon,
        Reject::NoLineOfEffect => C::NoLineOfEffect,
        Reject::OutOfRange => C::OutOfRange,
        Reject::OutOfAmmunition { .. } => C::OutOfAmmunition,
        Reject::NoChargePath => C::NoChargePath,
        Reject::UnreachableDestination => C::UnreachableDestination,
        Reject::InvalidDestination => C::InvalidDestination,
        Reject::AlreadyMoved => C::AlreadyMoved,
        Reject::DowngradedActionEconomy { .. } => C::DowngradedActionEconomy,
        Reject::DowngradedDisabled { .. } => C::DowngradedDisabled,
        Reject::CannotAct { .. } => C::CannotAct,
        Reject::TurnEnded => C::TurnEnded,
        Reject::PreventedByCondition { .. } => C::PreventedByCondition,
        Reject::NotProne => C::NotProne,
        Reject::AlreadyProne => C::AlreadyProne,
        Reject::NoPowerAttack => C::NoPowerAttack,
        Reject::TargetTooLarge => C::TargetTooLarge,
        Reject::NotGrappled => C::NotGrappled,
        Reject::MissingManeuver => C::MissingManeuver,
        Reject::CannotRun => C::CannotRun,
        Reject::WrongDecisionKind => C::WrongDecisionKind,
        Reject::DecisionAnswered => C::DecisionAnswered,
        Reject::FightingDefensively => C::FightingDefensively,
        Reject::AlreadyDelayed => C::AlreadyDelayed,
        Reject::AlreadyActed => C::AlreadyActed,
        Reject::InvalidDelay => C::InvalidDelay,
        Reject::InvalidReady { .. } => C::InvalidReady,
        Reject::DowngradedSurprise { .. } => C::DowngradedSurprise,
        Reject::DowngradedStaggered { .. } => C::DowngradedStaggered,
        Reject::DowngradedNauseated { .. } => C::DowngradedNauseated,
        Reject::MissingFeat => C::MissingFeat,
        Reject::AdjacentAtStart => C::AdjacentAtStart,
        Reject::StoodStill => C::StoodStill,
        Reject::FeatNotApplicable => C::FeatNotApplicable,
        Reject::NoDeadlyAim => C::NoDeadlyAim,
        Reject::NoCombatExpertise => C::NoCombatExpertise,
        Reject::NotEngaged => C::NotEngaged,
        Reject::NotHelpless => C::NotHelpless,
        Reject::ImmuneToCriticalHits => C::ImmuneToCriticalHits,
        Reject::HandsFull => C::HandsFull,
        Reject::TargetConcealed => C::TargetConcealed,
        Reject::InvalidDirection => C::InvalidDirection,
        Reject::MissingSpell => C::MissingSpell,
        Reject::UnknownSpell { .. } => C::UnknownSpell,
        Reject::DowngradedCastTime => C::DowngradedCastTime,
        Reject::NoSlot { .. } => C::NoSlot,
        Reject::NoSpells => C::NoSpells,
        Reject::AlreadyDeclared => C::AlreadyDeclared,
        Reject::MetamagicNotApplicable => C::MetamagicNotApplicable,
    }
}

/// An engine explanation → proto: `code` and `result_code` from the refusal
/// ([`result_code`], the one exhaustive map), empty / `RESULT_CODE_OK` when legal.
pub(super) fn explanation_to_proto(
    x: &pf1e_engine::actions::explain::Explanation,
) -> proto::Explanation {
    proto::Explanation {
        action_id: x.action_id,
        label: x.label.clone(),
        legal: x.legal,
        code: x
            .reject
            .as_ref()
            .map(Reject::code)
            .unwrap_or_default()
            .to_string(),
        result_code: result_code(x.reject.as_ref()) as i32,
        reason: x.reason.clone(),
        field: x.field.to_string(),
    }
}

/// An accepted action's note → `ResultCode` (`RESULT_CODE_OK` without one).
pub fn note_code(note: Option<Note>) -> proto::ResultCode {
    match note {
        None => proto::ResultCode::Ok,
        Some(Note::Delayed) => proto::ResultCode::Delayed,
        Some(Note::Ready) => proto::ResultCode::Ready,
    }
}

/// An engine action result → proto (`field`: the request field of the action, e.g.
/// `action_ids[0]`); its `code` from the refusal ([`result_code`]) or the note ([`note_code`]).
pub fn result_to_proto(r: &pf1e_engine::ActionResult, field: String) -> proto::ActionResult {
    proto::ActionResult {
        kind: kind_to_proto(r.kind) as i32,
        ok: r.ok,
        reason: r.code().unwrap_or_default().to_string(),
        field,
        code: if r.reason.is_some() {
            result_code(r.reason.as_ref())
        } else {
            note_code(r.note)
        } as i32,
        detail: r.reason.as_ref().map(Reject::detail).unwrap_or_default(),
    }
}

/// Engine action budget → proto budget.
impl From<&pf1e_engine::Budget> for proto::Budget {
    fn from(b: &pf1e_engine::Budget) -> Self {
        proto::Budget {
            standard: b.standard,
            r#move: b.move_action,
            swift: b.swift,
            full_round: b.full_round,
            five_foot_step: b.five_foot_step,
        }
    }
}

/// Engine tensor observation → proto tensors (shapes as `u32`).
impl From<pf1e_engine::observe::tensor::TensorObservation> for proto::TensorObservation {
    fn from(t: pf1e_engine::observe::tensor::TensorObservation) -> Self {
        proto::TensorObservation {
            planes: t.planes,
            plane_shape: t.plane_shape.iter().map(|&x| x as u32).collect(),
            features: t.features,
            feature_shape: t.feature_shape.iter().map(|&x| x as u32).collect(),
        }
    }
}

/// The pending decision `d` of `ep` → proto (actor, round, budget, kind and a reaction's offer).
pub fn decision_to_proto(ep: &Episode, d: &pf1e_engine::Decision) -> proto::Decision {
    let actor = &ep.encounter().combatants[usize::from(d.actor.0)];
    let (kind, offers) = decision_kind_to_proto(ep.encounter(), &d.kind);
    proto::Decision {
        decision_id: d.decision_id,
        actor_index: u32::from(d.actor.0),
        actor_id: actor.id.clone(),
        round: d.round,
        budget: Some(proto::Budget::from(&d.budget)),
        kind: kind as i32,
        attack_of_opportunity: offers.attack_of_opportunity,
        readied_trigger: offers.readied_trigger,
        step_up: offers.step_up,
    }
}

/// The offer of a reaction decision, by kind (at most one is set).
#[derive(Default)]
pub(super) struct Offers {
    pub attack_of_opportunity: Option<proto::AttackOfOpportunityOffer>,
    pub readied_trigger: Option<proto::ReadiedTriggerOffer>,
    pub step_up: Option<proto::StepUpOffer>,
}

/// Engine decision kind → the proto kind and, for a reaction, its offer.
pub(super) fn decision_kind_to_proto(
    enc: &Encounter,
    kind: &DecisionKind,
) -> (proto::DecisionKind, Offers) {
    let id_of = |c: CombatantId| {
        enc.combatants
            .get(usize::from(c.0))
            .map(|p| p.id.clone())
            .unwrap_or_default()
    };
    match kind {
        DecisionKind::TurnAction => (proto::DecisionKind::TurnAction, Offers::default()),
        DecisionKind::ReadiedTrigger {
            trigger_by,
            trigger,
            readied,
        } => (
            proto::DecisionKind::ReadiedTrigger,
            Offers {
                readied_trigger: Some(proto::ReadiedTriggerOffer {
                    trigger_by_index: u32::from(trigger_by.0),
                    trigger_by_id: id_of(*trigger_by),
                    trigger: Some(trigger_to_proto(trigger)),
                    readied: Some(proto::Action::from(readied)),
                }),
                ..Offers::default()
            },
        ),
        DecisionKind::StepUp { foe, squares } => (
            proto::DecisionKind::StepUp,
            Offers {
                step_up: Some(proto::StepUpOffer {
                    foe_index: u32::from(foe.0),
                    foe_id: id_of(*foe),
                    squares: squares
                        .iter()
                        .map(|c| proto::Cell {
                            row: c.row,
                            col: c.col,
                        })
                        .collect(),
                }),
                ..Offers::default()
            },
        ),
        DecisionKind::AttackOfOpportunity {
            provoker,
            provocation,
            weapons,
            ..
        } => (
            proto::DecisionKind::AttackOfOpportunity,
            Offers {
                attack_of_opportunity: Some(proto::AttackOfOpportunityOffer {
                    provoker_index: u32::from(provoker.0),
                    provoker_id: enc
                        .combatants
                        .get(usize::from(provoker.0))
                        .map(|p| p.id.clone())
                        .unwrap_or_default(),
                    provocation: provocation.name().to_string(),
                    weapons: weapons
                        .iter()
                        .map(|&w| u32::try_from(w).unwrap_or(u32::MAX))
                        .collect(),
                }),
                ..Offers::default()
            },
        ),
    }
}

/// Engine outcome → proto outcome (no winner: empty string).
impl From<&pf1e_engine::Outcome> for proto::Outcome {
    fn from(o: &pf1e_engine::Outcome) -> Self {
        proto::Outcome {
            winner: o.winner.clone().unwrap_or_default(),
            rounds: o.rounds,
            truncated: o.truncated,
        }
    }
}

/// The typed observation, with the JSON snapshot when `json` and the text rendering `text`
/// (empty when not asked for).
pub(super) fn observation_to_proto(
    obs: &pf1e_engine::Observation,
    json: bool,
    text: String,
) -> proto::Observation {
    proto::Observation {
        text,
        round: obs.round,
        acting_index: obs.acting_index.map(u32::from),
        acting_id: obs.acting_combatant.clone().unwrap_or_default(),
        budget: obs.budget.as_ref().map(proto::Budget::from),
        combatants: obs
            .combatants
            .iter()
            .map(|c| proto::CombatantState {
                index: u32::from(c.index),
                id: c.id.clone(),
                name: c.name.clone(),
                side: c.side.clone(),
                row: c.pos.row,
                col: c.pos.col,
                hp: c.hp,
                hp_max: c.hp_max,
                active: c.active,
                dead: c.dead,
                dying: c.dying,
                disabled: c.disabled,
                stabilized: c.stabilized,
                ac: c.ac.total,
                ac_touch: c.ac.touch,
                ac_flat_footed: c.ac.flat_footed,
                aoo_remaining: c.aoo_remaining,
                moved_this_turn: c.moved_this_turn,
                conditions: c.conditions.keys().cloned().collect(),
                size: c.size.clone(),
            })
            .collect(),
        initiative_order: obs.initiative_order.clone(),
        json: if json {
            serde_json::to_string(obs).unwrap_or_else(|e| format!("{{\"error\":\"{e}\"}}"))
        } else {
            String::new()
        },
    }
}

/// The EpisodeState of a session.
pub(super) fn episode_state(id: &str, s: &Session) -> proto::EpisodeState {
    let ep = &s.episode;
    let o = s.obs;
    let rewards: HashMap<String, f32> = s.last_rewards.iter().cloned().collect();
    let mut state = proto::EpisodeState {
        episode_id: id.to_string(),
        results: s.last_results.clone(),
        pending_results: s.last_pending,
        late_results: s.last_late.clone(),
        action_space_size: ep.action_space_size(),
        reward_side: s.reward_side.clone().unwrap_or_default(),
        reward: s
            .reward_side
            .as_ref()
            .and_then(|side| rewards.get(side).copied())
            .unwrap_or(0.0),
        steps: s.steps,
        ..Default::default()
    };
    match &s.status {
        Status::Decision(d) => {
            state.decision = Some(decision_to_proto(ep, d));
            // The legal actions once, shared by the list and the text.
            let legal = (o.legal_actions || o.text.is_some()).then(|| ep.legal_actions());
            if o.json || o.typed || o.text.is_some() {
                let obs = ep.observation(Some(d.actor));
                let text = match (o.text, &legal) {
                    (Some(opts), Some(legal)) => pf1e_engine::observe::text::render_opts(
                        ep,
                        &obs,
                        legal,
                        &opts,
                        &s.last_engine_results,
                    ),
                    _ => String::new(),
                };
                state.observation = Some(if o.json || o.typed {
                    observation_to_proto(&obs, o.json, text)
                } else {
                    // Text only: no typed core.
                    proto::Observation {
                        text,
                        ..Default::default()
                    }
                });
            }
            if let Some(legal) = legal.filter(|_| o.legal_actions) {
                if o.tensors || o.mask {
                    let mut mask = vec![0u8; state.action_space_size as usize];
                    for l in &legal {
                        if let Some(m) = mask.get_mut(l.id as usize) {
                            *m = 1;
                        }
                    }
                    state.action_mask = mask;
                }
                state.legal_actions = legal
                    .into_iter()
                    .map(|l| proto::LegalAction {
                        id: l.id,
                        action: Some(proto::Action::from(&l.action)),
                        label: l.label,
                    })
                    .collect();
            } else if o.tensors || o.mask {
                // The mask alone: legal ids without building labels.
                state.action_mask = ep.action_mask();
            }
            if o.tensors {
                state.tensors = Some(proto::TensorObservation::from(
                    ep.observation_tensor(d.actor),
                ));
            }
        }
        Status::Terminal(out) => {
            if o.json || o.typed || o.text.is_some() {
                let obs = ep.observation(None);
                let text = o.text.map_or_else(String::new, |opts| {
                    pf1e_engine::observe::text::render_opts(
                        ep,
                        &obs,
                        &[],
                        &opts,
                        &s.last_engine_results,
                    )
                });
                state.observation = Some(if o.json || o.typed {
                    observation_to_proto(&obs, o.json, text)
                } else {
                    // Text only: no typed core.
                    proto::Observation {
                        text,
                        ..Default::default()
                    }
                });
            }
            state.terminated = !out.truncated;
            state.truncated = out.truncated;
            state.outcome = Some(proto::Outcome::from(out));
            if o.tensors || o.mask {
                state.action_mask = vec![0u8; state.action_space_size as usize];
            }
            if o.tensors {
                let viewer = s
                    .viewer
                    .or_else(|| s.controlled.first().copied())
                    .unwrap_or(CombatantId(0));
                if usize::from(viewer.0) < ep.encounter().combatants.len() {
                    state.tensors = Some(proto::TensorObservation::from(
                        ep.observation_tensor(viewer),
                    ));
                }
            }
            state.final_agents = s
                .controlled
                .iter()
                .map(|&c| {
                    let p = &ep.encounter().combatants[usize::from(c.0)];
                    proto::AgentFinal {
                        combatant_index: u32::from(c.0),
                        combatant_id: p.id.clone(),
                        side: p.side.clone(),
                        reward: rewards.get(&p.side).copied().unwrap_or(0.0),
                        tensors: o
                            .tensors
                            .then(|| proto::TensorObservation::from(ep.observation_tensor(c))),
                    }
                })
                .collect();
        }
    }
    state.rewards = rewards;
    state
}

/// Proto scenario → the scenario loader's ([`crate::scenarios::ScenarioSource`]); `None`
/// when the oneof is unset (the loader reports it missing, naming the field).
pub(crate) fn scenario_source(s: Option<&proto::Scenario>) -> Option<ScenarioSource> {
    Some(match s?.source.as_ref()? {
        proto::scenario::Source::Named(n) => ScenarioSource::Named(n.clone()),
        proto::scenario::Source::Inline(i) => ScenarioSource::Inline(InlineScenario::from(i)),
    })
}

impl From<&proto::InlineScenario> for InlineScenario {
    fn from(i: &proto::InlineScenario) -> Self {
        InlineScenario {
            map_yaml: i.map_yaml.clone(),
            sides: i
                .sides
                .iter()
                .map(|s| InlineSide {
                    name: s.name.clone(),
                    combatants: s
                        .combatants
                        .iter()
                        .map(|c| InlineCombatant {
                            json: c.json.clone(),
                            base_id: c.base_id.clone(),
                        })
                        .collect(),
                })
                .collect(),
            round_cap: i.round_cap,
            simple_monster_death: i.simple_monster_death,
        }
    }
}

impl From<ScenarioInfo> for proto::ScenarioInfo {
    fn from(f: ScenarioInfo) -> Self {
        proto::ScenarioInfo {
            name: f.name,
            description: f.description,
            map: f.map,
            sides: f
                .sides
                .into_iter()
                .map(|(name, combatants)| proto::SideInfo { name, combatants })
                .collect(),
            round_cap: f.round_cap,
            simple_monster_death: f.simple_monster_death,
            error: f.error,
        }
    }
}

/// The tactics of a request (`ResetRequest.tactics`: side → tactics spec text) in side order.
pub(super) fn tactics_texts(
    map: &std::collections::HashMap<String, String>,
) -> std::collections::BTreeMap<String, String> {
    map.iter().map(|(k, v)| (k.clone(), v.clone())).collect()
}

/// `enc` with the tactics `texts` (side → spec text) attached, sides in order. `field` names
/// the request field (`tactics`, `transcript_json.tactics`).
///
/// # Errors
/// [`ServiceError::InvalidArgument`] with field `<field>[<side>]` and the reason
/// `<spec field>: <why>` (a parse error, a value out of range, a name the encounter does not
/// have) or `unknown side …`.
pub(super) fn with_tactics(
    enc: std::sync::Arc<pf1e_engine::Encounter>,
    texts: &std::collections::BTreeMap<String, String>,
    field: &str,
) -> Result<std::sync::Arc<pf1e_engine::Encounter>, ServiceError> {
    if texts.is_empty() {
        return Ok(enc);
    }
    let mut out = (*enc).clone();
    for (side, text) in texts {
        let f = format!("{field}[{side}]");
        if !out.sides.iter().any(|s| s == side) {
            return Err(ServiceError::invalid(
                f,
                format!("unknown side: the scenario has {}", out.sides.join(", ")),
            ));
        }
        let spec = pf1e_engine::TacticsSpec::from_yaml_or_json(text)
            .map_err(|e| ServiceError::invalid(f.clone(), e.to_string()))?;
        out = out
            .with_tactics(side, std::sync::Arc::new(spec))
            .map_err(|e| ServiceError::invalid(f.clone(), e.reason))?;
    }
    Ok(std::sync::Arc::new(out))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_proto_kind_maps_back_and_forth() {
        for k in ActionKind::ALL {
            assert_eq!(kind_from_proto(kind_to_proto(k)), Some(k));
        }
        assert_eq!(kind_from_proto(proto::ActionKind::Unspecified), None);
        for m in Maneuver::ALL {
            assert_eq!(maneuver_from_proto(maneuver_to_proto(m)), Some(m));
            // Same order as the engine's action-space block.
            let i = Maneuver::ALL.iter().position(|x| *x == m).unwrap() as i32;
            assert_eq!(maneuver_to_proto(m) as i32, i + 1);
        }
        assert_eq!(maneuver_from_proto(proto::ManeuverType::Unspecified), None);
        for m in Metamagic::ALL {
            assert_eq!(metamagic_from_proto(metamagic_to_proto(m)), Some(m));
            // Same order as the engine's `activate_metamagic` block.
            let i = Metamagic::ALL.iter().position(|x| *x == m).unwrap() as i32;
            assert_eq!(metamagic_to_proto(m) as i32, i + 1);
            assert_eq!(
                metamagic_to_proto(m).as_str_name(),
                format!("METAMAGIC_{}", m.name().to_uppercase())
            );
        }
        assert_eq!(metamagic_from_proto(proto::Metamagic::Unspecified), None);
    }
}
