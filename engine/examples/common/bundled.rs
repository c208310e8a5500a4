//! The two encounters the engine's figure examples play (`timing`, `explain_figures`): the
//! sample arena (3 goblins vs 2 orcs, `data/scenarios/sample_arena.yaml`) or the casters'
//! scenario (cleric 3, wizard 5, sorcerer 4, druid 3 vs a green hag and two ogres on
//! `caster_hall`, `data/scenarios/casters.yaml`), built from the bundled data files.
use pf1e_engine::content::combatant::CombatantSpec;
use pf1e_engine::content::map::MapSpec;
use pf1e_engine::{Encounter, RulesOptions};
use std::path::Path;
use std::sync::Arc;

/// The casters' scenario when `casters`, else the sample arena (panics on broken data: an
/// example).
pub fn encounter(casters: bool) -> Arc<Encounter> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let map_name = if casters {
        "caster_hall"
    } else {
        "sample_arena"
    };
    let map = MapSpec::load(&root.join(format!("data/maps/{map_name}.yaml"))).unwrap();
    let m = |n: &str| {
        let p = root.join(format!("data/monsters/{n}.json"));
        let p = if p.exists() {
            p
        } else {
            root.join(format!("data/pcs/{n}.json"))
        };
        (n.to_string(), CombatantSpec::load(&p).unwrap())
    };
    let sides = if casters {
        vec![
            (
                "players".into(),
                vec![m("cleric_3"), m("wizard_5"), m("sorcerer_4"), m("druid_3")],
            ),
            (
                "monsters".into(),
                vec![m("green_hag"), m("ogre"), m("ogre")],
            ),
        ]
    } else {
        vec![
            (
                "players".into(),
                vec![m("goblin"), m("goblin"), m("goblin")],
            ),
            ("monsters".into(), vec![m("orc"), m("orc")]),
        ]
    };
    Arc::new(Encounter::build(map, sides, RulesOptions::default()).unwrap())
}
