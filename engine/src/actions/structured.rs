//! Structured JSON actions: the form a language model writes (P8). One action is a JSON
//! object whose fields mirror [`Action`]'s, with names instead of indices:
//!
//! ```json
//! {"kind": "full_attack", "target": "orc-2", "weapon": "falchion"}
//! {"kind": "move", "destination": [4, 7]}
//! {"kind": "maneuver", "maneuver": "trip", "target": "orc-2"}
//! {"kind": "cast_spell", "spell": "magic missile", "target": "orc-2"}
//! {"kind": "cast_spell", "spell": "fireball", "target_pos": [3, 9], "metamagic": ["empower"]}
//! {"kind": "ready", "readied": {"kind": "attack", "weapon": "longbow"},
//!  "trigger": {"event": "enemy_within", "within_ft": 30, "by": "orc"}}
//! ```
//!
//! - `kind`: an action-kind name ([`ActionKind::name`]: `end_turn`, `5foot_step`…);
//! - `target`, `ally`, `trigger.by`: a combatant id (exact; a case-insensitive match is
//!   accepted too) or its list index (an integer);
//! - `weapon`: a weapon name of the actor's attacks (case-insensitive; the first of that
//!   name), its weapon id (`short_sword_off_hand`: the second of two of a name) or its index; `spell`: a spell name of the actor's spellbook (case-insensitive)
//!   or its index;
//! - `destination`, `target_pos`: a square `[row, col]` (0-based, in squares);
//! - `maneuver` ([`Maneuver::name`]), `metamagic` (a list of [`Metamagic::name`]), `aid_mode`
//!   (`attack`, `ac`), `direction` (`n`, `ne`… [`Direction::name`]), `defensively` (a bool);
//! - `readied`: a nested action; `trigger`: `{"event": "enemy_enters_reach" | "enemy_within"
//!   | "enemy_attacks" | "ally_acts", "by": …, "within_ft": 5–120}` (`within_ft` with
//!   `enemy_within` only, and required there).
//!
//! A text is one action object, an array of them, or a turn plan `{"plan": [...]}`
//! ([`parse_actions`]). Unknown fields are refused (`deny_unknown_fields`). Errors are a
//! [`StructuredError`] naming the field path (`target`, `[1].weapon`, `plan[2].kind`) and the
//! reason, listing the accepted values when they are few.
//!
//! [`to_json`] is the inverse (names where they are unambiguous, else indices), and
//! [`action_json_schema`] / [`plan_json_schema`] the JSON Schemas (draft 2020-12) of one
//! encounter, with its combatant ids, weapon, spell, kind and maneuver names as enums: plain
//! objects, enums and arrays, no `$ref`, fit for grammar-constrained decoding and for a
//! tool/function parameter schema. The schemas are a strict subset of what the parser
//! accepts: combatants by id only; weapons and spells by name — the second weapon of a name
//! by its weapon id (`short_sword_off_hand`), the second spell of a name by its index, as
//! [`to_json`] writes them (the enum lists those too).

use crate::actions::{
    Action, ActionKind, AidMode, CombatantId, Direction, Maneuver, Metamagic, ReadyTrigger,
};
use crate::content::encounter::Encounter;
use crate::episode::Episode;
use crate::geometry::grid::Cell;
use serde_json::{json, Map, Value};

/// Most values a reason lists in full ("ids: goblin, goblin-2, orc").
const LIST_MAX: usize = 24;

/// A structured action that does not resolve: `field` is the path in the JSON text
/// (`target`, `[1].weapon`, `plan[2].kind`; empty for the text as a whole), `reason` what is
/// wrong, with the accepted values when they are few.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StructuredError {
    pub field: String,
    pub reason: String,
}

impl std::fmt::Display for StructuredError {
    /// `field: reason` (the reason alone when the field is empty).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.field.is_empty() {
            f.write_str(&self.reason)
        } else {
            write!(f, "{}: {}", self.field, self.reason)
        }
    }
}

impl std::error::Error for StructuredError {}

fn err(field: impl Into<String>, reason: impl Into<String>) -> StructuredError {
    StructuredError {
        field: field.into(),
        reason: reason.into(),
    }
}

fn join(path: &str, key: &str) -> String {
    if path.is_empty() {
        key.to_string()
    } else {
        format!("{path}.{key}")
    }
}

/// "a, b, c" (the first [`LIST_MAX`], then "…").
fn listing<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    let v: Vec<&str> = names.into_iter().collect();
    let mut s = v
        .iter()
        .take(LIST_MAX)
        .copied()
        .collect::<Vec<_>>()
        .join(", ");
    if v.len() > LIST_MAX {
        s.push_str(&format!(", … ({} in all)", v.len()));
    }
    if s.is_empty() {
        s.push_str("none");
    }
    s
}

/// Parse `text` — one structured action object, an array of them, or a plan `{"plan":
/// [...]}` — into actions of `actor` (whose weapons and spellbook resolve `weapon` and
/// `spell`) in `enc`.
///
/// # Errors
/// [`StructuredError`]: unparsable JSON (field empty, the line and column in the reason), an
/// empty list, an unknown field, a value of the wrong type, an unknown name.
pub fn parse_actions(
    enc: &Encounter,
    actor: CombatantId,
    text: &str,
) -> Result<Vec<Action>, StructuredError> {
    let v: Value =
        serde_json::from_str(text).map_err(|e| err("", format!("not valid JSON: {e}")))?;
    actions_from_value(enc, actor, &v)
}

/// [`parse_actions`] of a parsed JSON value.
///
/// # Errors
/// As [`parse_actions`].
pub fn actions_from_value(
    enc: &Encounter,
    actor: CombatantId,
    v: &Value,
) -> Result<Vec<Action>, StructuredError> {
    let list = |items: &[Value], path: &str| -> Result<Vec<Action>, StructuredError> {
        if items.is_empty() {
            return Err(err(path, "an empty list: give at least one action"));
        }
        items
            .iter()
            .enumerate()
            .map(|(i, x)| action_from_value(enc, actor, x, &format!("{path}[{i}]")))
            .collect()
    };
    match v {
        Value::Array(items) => list(items, ""),
        Value::Object(o) if o.contains_key("plan") => {
            if let Some(k) = o.keys().find(|k| *k != "plan") {
                return Err(err(
                    k.as_str(),
                    "unknown field: a plan has only \"plan\" (a list of actions)",
                ));
            }
            match &o["plan"] {
                Value::Array(items) => list(items, "plan"),
                _ => Err(err("plan", "expected a list of actions")),
            }
        }
        Value::Object(_) => Ok(vec![action_from_value(enc, actor, v, "")?]),
        _ => Err(err(
            "",
            "expected an action object, a list of actions or {\"plan\": [...]}",
        )),
    }
}

/// The fields of a structured action (the order [`to_json`] writes them in).
const FIELDS: [&str; 14] = [
    "kind",
    "target",
    "destination",
    "weapon",
    "maneuver",
    "spell",
    "target_pos",
    "defensively",
    "metamagic",
    "aid_mode",
    "ally",
    "direction",
    "readied",
    "trigger",
];

/// One structured action (a JSON object) of `actor` at field path `path` (prefix of the
/// errors' fields: `""` for a lone action).
///
/// # Errors
/// As [`parse_actions`].
pub fn action_from_value(
    enc: &Encounter,
    actor: CombatantId,
    v: &Value,
    path: &str,
) -> Result<Action, StructuredError> {
    let here = |k: &str| join(path, k);
    let Value::Object(o) = v else {
        return Err(err(path, "expected an action object {\"kind\": …}"));
    };
    if let Some(k) = o.keys().find(|k| !FIELDS.contains(&k.as_str())) {
        return Err(err(
            here(k),
            format!("unknown field; fields: {}", FIELDS.join(", ")),
        ));
    }
    let kind_v = o.get("kind").ok_or_else(|| err(here("kind"), "missing"))?;
    let kind = {
        let s = str_of(kind_v, &here("kind"), "an action kind name")?;
        ActionKind::ALL
            .into_iter()
            .find(|k| k.name() == s.trim().to_lowercase())
            .ok_or_else(|| {
                err(
                    here("kind"),
                    format!(
                        "no action kind {s:?}; kinds: {}",
                        listing(ActionKind::ALL.iter().map(|k| k.name()))
                    ),
                )
            })?
    };
    let mut a = Action::new(kind);
    let spec = enc.combatants.get(actor.0 as usize).map(|p| p.spec.clone());
    for (k, x) in o {
        let f = here(k);
        if x.is_null() {
            continue;
        }
        match k.as_str() {
            "kind" => {}
            "target" => a.target = Some(combatant(enc, x, &f)?),
            "ally" => a.ally = Some(combatant(enc, x, &f)?),
            "destination" => a.destination = Some(square(x, &f)?),
            "target_pos" => a.target_pos = Some(square(x, &f)?),
            "weapon" => {
                let names: Vec<&str> = spec
                    .as_ref()
                    .map(|s| s.attacks.iter().map(|w| w.name.as_str()).collect())
                    .unwrap_or_default();
                // A weapon id (`short_sword_off_hand`) names the second of two of a name.
                let l = x.as_str().map(|v| v.trim().to_lowercase());
                let by_id = match (&spec, l) {
                    (Some(sp), Some(l)) if !names.iter().any(|n| n.to_lowercase() == l) => sp
                        .attacks
                        .iter()
                        .position(|w| w.weapon_id().to_lowercase() == l),
                    _ => None,
                };
                a.weapon = Some(match by_id {
                    Some(i) => i,
                    None => named_index(x, &f, &names, "weapon", "the actor's weapons")?,
                });
            }
            "spell" => {
                let names: Vec<&str> = spec
                    .as_ref()
                    .map(|s| {
                        s.spellbook()
                            .iter()
                            .map(|c| c.spell.name.as_str())
                            .collect()
                    })
                    .unwrap_or_default();
                a.spell = Some(named_index(x, &f, &names, "spell", "the actor's spells")?);
            }
            "maneuver" => {
                let s = str_of(x, &f, "a maneuver name")?;
                a.maneuver = Some(Maneuver::from_name(s).ok_or_else(|| {
                    err(
                        &f,
                        format!(
                            "no maneuver {s:?}; maneuvers: {}",
                            listing(Maneuver::ALL.iter().map(|m| m.name()))
                        ),
                    )
                })?);
            }
            "defensively" => {
                a.defensively = x
                    .as_bool()
                    .ok_or_else(|| err(&f, "expected true or false"))?;
            }
            "metamagic" => {
                let Value::Array(items) = x else {
                    return Err(err(&f, "expected a list of metamagic feat names"));
                };
                for (i, m) in items.iter().enumerate() {
                    let fi = format!("{f}[{i}]");
                    let s = str_of(m, &fi, "a metamagic feat name")?;
                    let mm = Metamagic::ALL
                        .into_iter()
                        .find(|x| x.name() == s.trim().to_lowercase())
                        .ok_or_else(|| {
                            err(
                                &fi,
                                format!(
                                    "no metamagic {s:?}; metamagic: {}",
                                    listing(Metamagic::ALL.iter().map(|m| m.name()))
                                ),
                            )
                        })?;
                    a.metamagic.push(mm);
                }
            }
            "aid_mode" => {
                let s = str_of(x, &f, "\"attack\" or \"ac\"")?;
                a.aid_mode = Some(
                    AidMode::ALL
                        .into_iter()
                        .find(|m| m.name() == s.trim().to_lowercase())
                        .ok_or_else(|| err(&f, format!("no aid mode {s:?}; modes: attack, ac")))?,
                );
            }
            "direction" => {
                let s = str_of(x, &f, "a direction (n, ne, e, se, s, sw, w, nw)")?;
                a.direction = Some(
                    Direction::ALL
                        .into_iter()
                        .find(|d| d.name() == s.trim().to_lowercase())
                        .ok_or_else(|| {
                            err(
                                &f,
                                format!(
                                    "no direction {s:?}; directions: {}",
                                    listing(Direction::ALL.iter().map(|d| d.name()))
                                ),
                            )
                        })?,
                );
            }
            "readied" => {
                a.readied = Some(Box::new(action_from_value(enc, actor, x, &f)?));
            }
            "trigger" => a.trigger = Some(trigger(enc, x, &f)?),
            _ => unreachable!("unknown fields refused above"),
        }
    }
    check_fields_of_kind(&a, path)?;
    Ok(a)
}

/// The fields `a.kind` does not take, a repeated metamagic feat and a readied action that
/// carries its own `readied` or `trigger` are refused, as the server refuses them in a typed
/// `Action` (`env-server` `convert::action_from_proto`): ignoring them silently would play
/// (and Explain would call legal) an action other than the one written.
fn check_fields_of_kind(a: &Action, path: &str) -> Result<(), StructuredError> {
    let kind = a.kind;
    let not_taken = |field: &str, what: &str| {
        err(
            join(path, field),
            format!("{what}, not `{}`: leave the field out", kind.name()),
        )
    };
    if kind != ActionKind::CastSpell {
        if a.spell.is_some() {
            return Err(not_taken("spell", "only `cast_spell` takes a spell"));
        }
        if a.target_pos.is_some() {
            return Err(not_taken(
                "target_pos",
                "only `cast_spell` takes a target square (`target_pos`)",
            ));
        }
        if a.defensively {
            return Err(not_taken(
                "defensively",
                "only `cast_spell` takes `defensively` (or declare `cast_defensively` first)",
            ));
        }
    }
    if !a.metamagic.is_empty()
        && !matches!(kind, ActionKind::CastSpell | ActionKind::ActivateMetamagic)
    {
        return Err(not_taken(
            "metamagic",
            "only `cast_spell` and `activate_metamagic` take metamagic",
        ));
    }
    if let Some(i) = (1..a.metamagic.len()).find(|&i| a.metamagic[..i].contains(&a.metamagic[i])) {
        return Err(err(
            format!("{}[{i}]", join(path, "metamagic")),
            format!("`{}` given twice", a.metamagic[i].name()),
        ));
    }
    if kind != ActionKind::Maneuver {
        if a.maneuver.is_some() {
            return Err(not_taken(
                "maneuver",
                "only `maneuver` takes a maneuver type",
            ));
        }
        if a.direction.is_some() {
            return Err(not_taken(
                "direction",
                "only `maneuver` (bull rush) takes a direction",
            ));
        }
    }
    if kind != ActionKind::AidAnother {
        if a.ally.is_some() {
            return Err(not_taken("ally", "only `aid_another` takes an ally"));
        }
        if a.aid_mode.is_some() {
            return Err(not_taken(
                "aid_mode",
                "only `aid_another` takes an aid mode",
            ));
        }
    }
    if kind != ActionKind::Ready {
        if a.readied.is_some() {
            return Err(not_taken("readied", "only `ready` takes a readied action"));
        }
        if a.trigger.is_some() {
            return Err(not_taken("trigger", "only `ready` takes a trigger"));
        }
    }
    if let Some(r) = &a.readied {
        let inner = join(path, "readied");
        if r.readied.is_some() {
            return Err(err(
                join(&inner, "readied"),
                "a readied action cannot itself carry a readied action",
            ));
        }
        if r.trigger.is_some() {
            return Err(err(
                join(&inner, "trigger"),
                "a readied action cannot itself carry a trigger",
            ));
        }
    }
    Ok(())
}

fn str_of<'v>(v: &'v Value, field: &str, what: &str) -> Result<&'v str, StructuredError> {
    v.as_str()
        .ok_or_else(|| err(field, format!("expected a string ({what})")))
}

/// A combatant by id (exact, then case-insensitive) or list index.
fn combatant(enc: &Encounter, v: &Value, field: &str) -> Result<CombatantId, StructuredError> {
    let n = enc.combatants.len();
    let ids = || listing(enc.combatants.iter().map(|p| p.id.as_str()));
    match v {
        Value::Number(x) => match x.as_u64() {
            Some(i) if (i as usize) < n => Ok(CombatantId(i as u16)),
            _ => Err(err(
                field,
                format!("no combatant index {x}: indices 0..{n}; ids: {}", ids()),
            )),
        },
        Value::String(s) => enc
            .combatants
            .iter()
            .position(|p| p.id == *s)
            .or_else(|| {
                let l = s.trim().to_lowercase();
                enc.combatants.iter().position(|p| p.id.to_lowercase() == l)
            })
            .map(|i| CombatantId(i as u16))
            .ok_or_else(|| err(field, format!("no combatant {s:?}; ids: {}", ids()))),
        _ => Err(err(
            field,
            "expected a combatant id (a string) or its list index (an integer)",
        )),
    }
}

/// A weapon or spell by name (case-insensitive, the first of that name) or index.
fn named_index(
    v: &Value,
    field: &str,
    names: &[&str],
    what: &str,
    whose: &str,
) -> Result<usize, StructuredError> {
    match v {
        Value::Number(x) => match x.as_u64() {
            Some(i) if (i as usize) < names.len() => Ok(i as usize),
            _ => Err(err(
                field,
                format!(
                    "no {what} index {x}: {whose} are {} (indices 0..{})",
                    listing(names.iter().copied()),
                    names.len()
                ),
            )),
        },
        Value::String(s) => {
            let l = s.trim().to_lowercase();
            names
                .iter()
                .position(|n| n.to_lowercase() == l)
                .ok_or_else(|| {
                    err(
                        field,
                        format!(
                            "no {what} {s:?}; {whose}: {}",
                            listing(names.iter().copied())
                        ),
                    )
                })
        }
        _ => Err(err(
            field,
            format!("expected a {what} name (a string) or its index (an integer)"),
        )),
    }
}

/// A square `[row, col]`.
fn square(v: &Value, field: &str) -> Result<Cell, StructuredError> {
    let bad = || err(field, "expected a square [row, col] (two integers)");
    let Value::Array(xs) = v else {
        return Err(bad());
    };
    if xs.len() != 2 {
        return Err(bad());
    }
    let coord = |x: &Value| {
        x.as_i64()
            .and_then(|n| i32::try_from(n).ok())
            .ok_or_else(bad)
    };
    Ok(Cell::new(coord(&xs[0])?, coord(&xs[1])?))
}

/// The trigger names, in [`ReadyTrigger`] order.
const EVENTS: [&str; 4] = [
    "enemy_enters_reach",
    "enemy_within",
    "enemy_attacks",
    "ally_acts",
];

fn trigger(enc: &Encounter, v: &Value, field: &str) -> Result<ReadyTrigger, StructuredError> {
    let Value::Object(o) = v else {
        return Err(err(field, "expected a trigger {\"event\": …}"));
    };
    if let Some(k) = o
        .keys()
        .find(|k| !["event", "by", "within_ft"].contains(&k.as_str()))
    {
        return Err(err(
            join(field, k),
            "unknown field; fields: event, by, within_ft",
        ));
    }
    let ev_f = join(field, "event");
    let ev = str_of(
        o.get("event").ok_or_else(|| err(&ev_f, "missing"))?,
        &ev_f,
        "a trigger event",
    )?;
    let by = match o.get("by").filter(|x| !x.is_null()) {
        Some(x) => Some(combatant(enc, x, &join(field, "by"))?),
        None => None,
    };
    let ft_f = join(field, "within_ft");
    let ft = o.get("within_ft").filter(|x| !x.is_null());
    let l = ev.trim().to_lowercase();
    if l != "enemy_within" && ft.is_some() {
        return Err(err(ft_f, "within_ft goes with the event enemy_within only"));
    }
    Ok(match l.as_str() {
        "enemy_enters_reach" => ReadyTrigger::EnemyEntersReach { by },
        "enemy_within" => {
            let ft = ft
                .ok_or_else(|| err(&ft_f, "missing: enemy_within needs a distance in feet"))?
                .as_u64()
                .and_then(|n| u16::try_from(n).ok())
                .ok_or_else(|| err(&ft_f, "expected a distance in feet (5 to 120)"))?;
            ReadyTrigger::EnemyWithin { ft, by }
        }
        "enemy_attacks" => ReadyTrigger::EnemyAttacks { by },
        "ally_acts" => ReadyTrigger::AllyActs { by },
        _ => {
            return Err(err(
                ev_f,
                format!("no trigger event {ev:?}; events: {}", EVENTS.join(", ")),
            ))
        }
    })
}

/// The structured JSON form of `a`, an action of `actor` in `enc`: names where they are
/// unambiguous (a combatant's id; a weapon or spell name that no other entry of the actor's
/// shares, case-insensitively), else indices; fields at their defaults left out. For every
/// action, `action_from_value(enc, actor, &to_json(enc, actor, a), "") == Ok(a)` (tested).
pub fn to_json(enc: &Encounter, actor: CombatantId, a: &Action) -> Value {
    let mut o = Map::new();
    o.insert("kind".into(), json!(a.kind.name()));
    let who = |c: CombatantId| match enc.combatants.get(c.0 as usize) {
        Some(p) => json!(p.id),
        None => json!(c.0),
    };
    let spec = enc.combatants.get(actor.0 as usize).map(|p| &p.spec);
    if let Some(t) = a.target {
        o.insert("target".into(), who(t));
    }
    if let Some(d) = a.destination {
        o.insert("destination".into(), json!([d.row, d.col]));
    }
    if let Some(w) = a.weapon {
        o.insert(
            "weapon".into(),
            spec.map_or_else(|| json!(w), |s| weapon_value(s, w)),
        );
    }
    if let Some(m) = a.maneuver {
        o.insert("maneuver".into(), json!(m.name()));
    }
    if let Some(i) = a.spell {
        o.insert(
            "spell".into(),
            spec.map_or_else(|| json!(i), |s| spell_value(s, i)),
        );
    }
    if let Some(p) = a.target_pos {
        o.insert("target_pos".into(), json!([p.row, p.col]));
    }
    if a.defensively {
        o.insert("defensively".into(), json!(true));
    }
    if !a.metamagic.is_empty() {
        o.insert(
            "metamagic".into(),
            Value::Array(a.metamagic.iter().map(|m| json!(m.name())).collect()),
        );
    }
    if let Some(m) = a.aid_mode {
        o.insert("aid_mode".into(), json!(m.name()));
    }
    if let Some(f) = a.ally {
        o.insert("ally".into(), who(f));
    }
    if let Some(d) = a.direction {
        o.insert("direction".into(), json!(d.name()));
    }
    if let Some(r) = &a.readied {
        o.insert("readied".into(), to_json(enc, actor, r));
    }
    if let Some(t) = a.trigger {
        let mut x = Map::new();
        x.insert("event".into(), json!(t.name()));
        if let Some(b) = t.by() {
            x.insert("by".into(), who(b));
        }
        if let ReadyTrigger::EnemyWithin { ft, .. } = t {
            x.insert("within_ft".into(), json!(ft));
        }
        o.insert("trigger".into(), Value::Object(x));
    }
    Value::Object(o)
}

/// Whether entry `i` of `names` is the first of its name (case-insensitive).
fn first_of_name(names: &[&str], i: usize) -> bool {
    names.get(i).is_some_and(|n| {
        names
            .iter()
            .position(|x| x.to_lowercase() == n.to_lowercase())
            == Some(i)
    })
}

/// How [`to_json`] writes weapon `w` of `spec`: its name when it is the first of that name;
/// else its weapon id (`short_sword_off_hand`) when that is no weapon's name and no other
/// weapon's id; else its index.
fn weapon_value(spec: &crate::content::combatant::CombatantSpec, w: usize) -> Value {
    let names: Vec<&str> = spec.attacks.iter().map(|x| x.name.as_str()).collect();
    if first_of_name(&names, w) {
        return json!(names[w]);
    }
    let Some(id) = spec.attacks.get(w).map(|x| x.weapon_id().to_lowercase()) else {
        return json!(w);
    };
    let unique = !names.iter().any(|n| n.to_lowercase() == id)
        && spec
            .attacks
            .iter()
            .position(|x| x.weapon_id().to_lowercase() == id)
            == Some(w);
    if unique {
        json!(spec.attacks[w].weapon_id())
    } else {
        json!(w)
    }
}

/// How [`to_json`] writes spell `i` of `spec`'s spellbook: its name when it is the first of
/// that name, else its index.
fn spell_value(spec: &crate::content::combatant::CombatantSpec, i: usize) -> Value {
    let names: Vec<&str> = spec
        .spellbook()
        .iter()
        .map(|c| c.spell.name.as_str())
        .collect();
    if first_of_name(&names, i) {
        json!(names[i])
    } else {
        json!(i)
    }
}

/// The enum of a schema property: `names`, then the other values [`to_json`] may write
/// (`extra`, each once); typed `string` when all are strings.
fn name_enum(names: Vec<&str>, extra: Vec<Value>, description: &str) -> Value {
    let mut values: Vec<Value> = names.into_iter().map(|n| json!(n)).collect();
    for v in extra {
        if !values.contains(&v) {
            values.push(v);
        }
    }
    if values.iter().all(Value::is_string) {
        json!({"type": "string", "enum": values, "description": description})
    } else {
        json!({"enum": values, "description": description})
    }
}

/// The action of an exact label at the pending decision of `ep`: a legal action's label
/// ([`Episode::legal_actions`]) first, else the label of any id of the action space (id
/// order; the labels of [`crate::actions::legal::label`], a reaction's of
/// [`crate::actions::legal::reaction_label`]), so that a label of an action that is not
/// legal now (for [`crate::actions::explain`], or a later action of a turn plan) resolves
/// too. Leading and trailing spaces are ignored. `None` when no decision is pending or no
/// label matches.
pub fn resolve_label(ep: &Episode, label: &str) -> Option<Action> {
    let label = label.trim();
    let d = ep.decision()?;
    if let Some(l) = ep.legal_actions().into_iter().find(|l| l.label == label) {
        return Some(l.action);
    }
    (0..ep.action_space_size())
        .filter_map(|id| ep.action_from_id(id))
        .find(|a| crate::actions::legal::reaction_label(ep, d, a) == label)
}

/// The labels a [`resolve_label`] error lists: the legal actions' labels now.
pub fn legal_labels(ep: &Episode) -> Vec<String> {
    ep.legal_actions().into_iter().map(|l| l.label).collect()
}

/// Names in first-appearance order, each once (case-insensitively: the parser's match).
fn unique<'a>(it: impl IntoIterator<Item = &'a str>) -> Vec<&'a str> {
    let mut v: Vec<&str> = Vec::new();
    for s in it {
        if !v.iter().any(|x| x.to_lowercase() == s.to_lowercase()) {
            v.push(s);
        }
    }
    v
}

/// The `properties` of a structured action's schema; `nested`: with `readied` (one level,
/// inlined: no `$ref`) and `trigger`.
fn action_properties(enc: &Encounter, nested: bool) -> Map<String, Value> {
    let ids: Vec<&str> = enc.combatants.iter().map(|p| p.id.as_str()).collect();
    let weapons = unique(
        enc.combatants
            .iter()
            .flat_map(|p| p.spec.attacks.iter().map(|a| a.name.as_str())),
    );
    let spells = unique(
        enc.combatants
            .iter()
            .flat_map(|p| p.spec.spellbook().iter().map(|c| c.spell.name.as_str())),
    );
    let kinds: Vec<&str> = ActionKind::ALL.iter().map(|k| k.name()).collect();
    let side = enc.grid.rows.max(enc.grid.cols).max(1) - 1;
    let square = |what: &str| {
        json!({
            "type": "array",
            "description": what,
            "items": {"type": "integer", "minimum": 0, "maximum": side},
            "minItems": 2,
            "maxItems": 2,
        })
    };
    let combatant = |what: &str| json!({"type": "string", "enum": ids, "description": what});
    let mut p = Map::new();
    p.insert(
        "kind".into(),
        json!({"type": "string", "enum": kinds, "description": "the action kind"}),
    );
    p.insert(
        "target".into(),
        combatant("the target combatant's id (or the creature to delay after)"),
    );
    p.insert(
        "destination".into(),
        square("the destination square [row, col]"),
    );
    // Names, then what `to_json` writes for a second entry of a name (a weapon id, or an
    // index): constants of one enum, no `anyOf`.
    let weapon_extra: Vec<Value> = enc
        .combatants
        .iter()
        .flat_map(|p| (0..p.spec.attacks.len()).map(|w| weapon_value(&p.spec, w)))
        .filter(|v| {
            !v.as_str()
                .is_some_and(|s| weapons.iter().any(|w| w.to_lowercase() == s.to_lowercase()))
        })
        .collect();
    let spell_extra: Vec<Value> = enc
        .combatants
        .iter()
        .flat_map(|p| (0..p.spec.spellbook().len()).map(|i| spell_value(&p.spec, i)))
        .filter(|v| {
            !v.as_str()
                .is_some_and(|s| spells.iter().any(|w| w.to_lowercase() == s.to_lowercase()))
        })
        .collect();
    if !weapons.is_empty() {
        p.insert(
            "weapon".into(),
            name_enum(
                weapons.clone(),
                weapon_extra,
                "a weapon of the actor's, by name (the second of two of a name by its weapon id)",
            ),
        );
    }
    p.insert(
        "maneuver".into(),
        json!({"type": "string", "enum": Maneuver::ALL.iter().map(|m| m.name()).collect::<Vec<_>>(),
               "description": "the combat maneuver (kind maneuver)"}),
    );
    if !spells.is_empty() {
        p.insert(
            "spell".into(),
            name_enum(
                spells.clone(),
                spell_extra,
                "a spell of the actor's, by name",
            ),
        );
        p.insert(
            "target_pos".into(),
            square(
                "an area spell's square [row, col] (its top-left corner is the point of origin)",
            ),
        );
        p.insert(
            "defensively".into(),
            json!({"type": "boolean", "description": "cast defensively"}),
        );
        p.insert(
            "metamagic".into(),
            json!({"type": "array", "items": {"type": "string",
                   "enum": Metamagic::ALL.iter().map(|m| m.name()).collect::<Vec<_>>()},
                   "description": "metamagic feats applied to this cast"}),
        );
    }
    p.insert(
        "aid_mode".into(),
        json!({"type": "string", "enum": ["attack", "ac"], "description": "aid_another: which bonus"}),
    );
    p.insert(
        "ally".into(),
        combatant("aid_another: the ally aided (target is the opponent)"),
    );
    p.insert(
        "direction".into(),
        json!({"type": "string", "enum": Direction::ALL.iter().map(|d| d.name()).collect::<Vec<_>>(),
               "description": "bull rush: the direction the target is pushed"}),
    );
    if nested {
        let mut inner = Map::new();
        inner.insert("type".into(), json!("object"));
        inner.insert(
            "description".into(),
            json!("ready: the action readied (attack, maneuver, move or 5foot_step)"),
        );
        inner.insert(
            "properties".into(),
            Value::Object(action_properties(enc, false)),
        );
        inner.insert("required".into(), json!(["kind"]));
        inner.insert("additionalProperties".into(), json!(false));
        p.insert("readied".into(), Value::Object(inner));
        p.insert(
            "trigger".into(),
            json!({
                "type": "object",
                "description": "ready: what triggers the readied action",
                "properties": {
                    "event": {"type": "string", "enum": EVENTS},
                    "by": combatant("only this creature triggers it"),
                    "within_ft": {"type": "integer", "minimum": 5, "maximum": 120, "multipleOf": 5,
                                  "description": "enemy_within only: the distance in feet"},
                },
                "required": ["event"],
                "additionalProperties": false,
            }),
        );
    }
    p
}

/// The JSON Schema (draft 2020-12) of one structured action in `enc`: an object with
/// `kind` required, `additionalProperties: false`, its combatant ids, weapon names, spell
/// names (and indices: see the module doc), kind and maneuver names as enums (`weapon`,
/// `spell`, `target_pos`, `defensively`
/// and `metamagic` only when some combatant has weapons / spells), `readied` inlined one
/// level (without its own `readied` and `trigger`).
pub fn action_json_schema(enc: &Encounter) -> Value {
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "pf1e structured action",
        "type": "object",
        "properties": Value::Object(action_properties(enc, true)),
        "required": ["kind"],
        "additionalProperties": false,
    })
}

/// The JSON Schema (draft 2020-12) of a whole-turn plan in `enc`: `{"plan": [action, ...]}`
/// with at least one action of [`action_json_schema`]'s shape.
pub fn plan_json_schema(enc: &Encounter) -> Value {
    let mut item = action_json_schema(enc);
    if let Value::Object(o) = &mut item {
        o.remove("$schema");
        o.remove("title");
    }
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "pf1e turn plan",
        "type": "object",
        "properties": {"plan": {"type": "array", "minItems": 1, "items": item}},
        "required": ["plan"],
        "additionalProperties": false,
    })
}
