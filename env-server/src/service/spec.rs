//! GetSpec: what a client needs to know before its first Reset — the scenario's map, sides
//! and combatants, the action space (size and blocks), the observation schema (tensor shapes,
//! plane names and divisors, the terrain planes, the exact bounds of every feature and plane),
//! the reward components, the capabilities and
//! limits of this server — and [`rules_data_version`], the short hash of a built encounter.
use super::{EnvironmentService, ServiceError};
use crate::proto;
use pf1e_engine::Encounter;

/// What `Spec.mask_polarity` says.
pub const MASK_POLARITY: &str = "1 = legal";
/// The wire protocol package.
pub const PROTOCOL: &str = "pf1e.env.v1";

impl EnvironmentService {
    /// GetSpec, synchronously.
    ///
    /// # Errors
    /// [`ServiceError::Scenario`] when the scenario cannot be resolved.
    pub fn get_spec_blocking(
        &self,
        req: &proto::GetSpecRequest,
    ) -> Result<proto::Spec, ServiceError> {
        let (name, enc) = self.inner.scenarios.resolve(
            super::convert::scenario_source(req.scenario.as_ref()).as_ref(),
            "scenario",
        )?;
        Ok(spec(&name, &enc, self.inner.config.max_batch_items))
    }
}

/// Short hash (FNV-1a 64, 16 hex digits) of the built encounter's JSON.
pub fn rules_data_version(enc: &Encounter) -> String {
    fnv1a64_hex(&serde_json::to_vec(enc).unwrap_or_default())
}

/// FNV-1a 64 of `bytes`, as 16 hex digits.
pub(super) fn fnv1a64_hex(bytes: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// The spec of an encounter.
fn spec(name: &str, enc: &Encounter, max_batch_items: usize) -> proto::Spec {
    use pf1e_engine::observe::tensor::{
        FEATURES, FEATURE_BOUNDS, FEATURE_NAMES, PLANES, PLANE_NAMES, WEAPON_SLOTS,
    };
    let plane_bounds = pf1e_engine::observe::tensor::plane_bounds(enc);
    let space = pf1e_engine::actions::space::ActionSpace::of(enc);
    let action_space_size = space.size();
    proto::Spec {
        scenario: name.to_string(),
        map: Some(proto::MapInfo {
            name: enc.map.name.clone(),
            rows: enc.map.rows,
            cols: enc.map.cols,
            square_size_ft: enc.map.square_size_ft,
        }),
        sides: enc.sides.clone(),
        combatants: enc
            .combatants
            .iter()
            .enumerate()
            .map(|(i, p)| combatant_info(i, p))
            .collect(),
        action_space_size,
        rng_version: pf1e_engine::dice::RNG_VERSION.to_string(),
        engine_version: pf1e_engine::VERSION.to_string(),
        round_cap: enc.options.round_cap,
        simple_monster_death: enc.options.simple_monster_death,
        mask_polarity: MASK_POLARITY.to_string(),
        protocol: PROTOCOL.to_string(),
        observation_schema: Some(proto::ObservationSchema {
            plane_names: PLANE_NAMES.iter().map(|s| s.to_string()).collect(),
            plane_shape: vec![PLANES as u32, enc.map.rows as u32, enc.map.cols as u32],
            feature_names: FEATURE_NAMES.iter().map(|s| s.to_string()).collect(),
            feature_shape: vec![enc.combatants.len() as u32, FEATURES as u32],
            plane_divisors: pf1e_engine::observe::tensor::PLANE_DIVISORS
                .iter()
                .map(|&d| u32::from(d))
                .collect(),
            terrain_plane_count: pf1e_engine::observe::tensor::TERRAIN_PLANES as u32,
            terrain_planes: pf1e_engine::observe::tensor::terrain_planes_u8(enc),
            feature_low: FEATURE_BOUNDS.iter().map(|b| b.0).collect(),
            feature_high: FEATURE_BOUNDS.iter().map(|b| b.1).collect(),
            plane_low: plane_bounds.iter().map(|b| b.0).collect(),
            plane_high: plane_bounds.iter().map(|b| b.1).collect(),
            weapon_slots: WEAPON_SLOTS as u32,
        }),
        action_blocks: space
            .blocks()
            .iter()
            .enumerate()
            .map(|(i, &(name, first_id, size))| {
                let ax = space.block_axes(i).unwrap_or_default();
                proto::ActionBlock {
                    name: name.to_string(),
                    first_id,
                    size,
                    axes: ax.axes.iter().map(|a| a.to_string()).collect(),
                    axis_sizes: ax.sizes,
                    last_axis_values: ax.last_axis_values.iter().map(|v| v.to_string()).collect(),
                }
            })
            .collect(),
        reward_components: REWARD_COMPONENTS.iter().map(|s| s.to_string()).collect(),
        capabilities: Some(proto::Capabilities {
            json_observation: true,
            tensor_observation: true,
            snapshots: true,
            batch: true,
            stream: true,
            validate: true,
            shaped_rewards: true,
            evaluate: true,
            columnar_batch: true,
            batch_close: true,
            columnar_decisions: true,
            compact_columns: true,
            columnar_decision_kinds: true,
            transcripts: true,
            text_observation: true,
            explain: true,
            structured_actions: true,
            tactics: true,
            round_discount: true,
            action_block_axes: true,
            feature_bounds: true,
            episode_ownership: true,
            work_budget: true,
            authenticated_snapshots: true,
            text_languages: pf1e_engine::observe::text::Lang::ALL
                .iter()
                .map(|l| l.code().to_string())
                .collect(),
            text_modes: pf1e_engine::observe::text::TextMode::ALL
                .iter()
                .map(|m| m.name().to_string())
                .collect(),
        }),
        rules_data_version: rules_data_version(enc),
        max_batch_items: u32::try_from(max_batch_items).unwrap_or(u32::MAX),
        action_json_schema: pf1e_engine::actions::structured::action_json_schema(enc).to_string(),
        plan_json_schema: pf1e_engine::actions::structured::plan_json_schema(enc).to_string(),
        tactics_json_schema: pf1e_engine::tactics_json_schema().to_string(),
    }
}

/// The static description of combatant `i` (the spec's, a transcript's `controlled`).
pub(super) fn combatant_info(
    i: usize,
    p: &pf1e_engine::content::encounter::Placed,
) -> proto::CombatantInfo {
    proto::CombatantInfo {
        index: i as u32,
        id: p.id.clone(),
        name: p.spec.name.clone(),
        side: p.side.clone(),
        player_character: p.spec.player_character,
        size: format!("{:?}", p.spec.size),
        spells: spellbook_info(&p.spec),
        summon_slot: p.summoned_by.is_some(),
        summoned_by: p.summoned_by.map(|(c, _)| c as u32),
        summoned_by_spell: p.summoned_by.map(|(_, s)| s as u32),
    }
}

/// `CamelCase` (a `Debug` name) → `snake_case`, as the JSON observation's spell keys read.
fn snake(x: String) -> String {
    let mut o = String::new();
    for (i, ch) in x.chars().enumerate() {
        if ch.is_ascii_uppercase() && i > 0 {
            o.push('_');
        }
        o.push(ch.to_ascii_lowercase());
    }
    o
}

/// The static spellbook of a combatant (`CombatantInfo.spells`): what decodes the spell part
/// of a `cast_spell` / `cast_spell_at` id offline. The same values as the observation's
/// `spells` (index, name, level, targeting, area…), less what changes in play (uses left).
fn spellbook_info(spec: &pf1e_engine::content::combatant::CombatantSpec) -> Vec<proto::SpellInfo> {
    use pf1e_engine::content::combatant::SpellUses;
    use pf1e_engine::content::spells::SpellRange;
    spec.spellbook()
        .iter()
        .enumerate()
        .map(|(i, cs)| {
            let sp = &cs.spell;
            proto::SpellInfo {
                index: i as u32,
                name: sp.name.clone(),
                level: u32::from(cs.level),
                targeting: snake(format!("{:?}", sp.targeting)),
                area: sp.area.map(|a| proto::SpellArea {
                    shape: snake(format!("{:?}", a.shape)),
                    size_ft: a.size_ft,
                    origin: snake(format!("{:?}", a.origin)),
                    affects: snake(format!("{:?}", a.affects)),
                }),
                range: match sp.range {
                    SpellRange::Feet(_) => "feet".into(),
                    r => snake(format!("{r:?}")),
                },
                // Touch: the caster's reach, which the episode knows (the observation's
                // `range_ft`); 0 here.
                range_ft: u32::try_from(sp.range.feet(cs.caster_level)).unwrap_or(0),
                cast_time: sp.cast_time.name().to_string(),
                attack: snake(format!("{:?}", sp.attack)),
                spell_like: cs.spell_like,
                dc: cs.dc,
                caster_level: cs.caster_level,
                uses: match cs.uses {
                    SpellUses::Slot => "slot",
                    SpellUses::Counted(_) => "counted",
                    SpellUses::Unlimited => "unlimited",
                }
                .to_string(),
            }
        })
        .collect()
}

/// What `Spec.reward_components` lists.
pub const REWARD_COMPONENTS: [&str; 3] = ["sparse", "damage", "kill"];
