//! Every spell of the registry (`data/spells/`) is cast at least once: a caster knowing only
//! that spell, with slots of every level, facing a foe with an ally beside it, casts it at
//! the first legal target of its action-space blocks (a creature, the caster, or a square)
//! and the cast resolves (its line in the transcript; the episode goes on or ends cleanly).

mod common;

use common::*;
use pf1e_engine::{ActionKind, Status};
use serde_json::json;

#[test]
fn every_spell_file_is_cast_at_least_once() {
    let reg = registry();
    let mut cast = 0;
    let mut not_castable = Vec::new();
    for (key, spell) in reg.iter() {
        if key.starts_with("test_") {
            continue;
        }
        let mut v = caster(
            "mage",
            5,
            &[spell.name.as_str()],
            json!({
                "1": 9, "2": 9, "3": 9, "4": 9, "5": 9, "6": 9, "7": 9, "8": 9, "9": 9
            }),
        );
        v["caster_class"] = json!("cleric");
        let enc = encounter(
            &room(9, 16),
            vec![
                unit("a", "mage", v, (4, 2)),
                unit("a", "ally", creature("ally"), (4, 3)),
                unit("b", "foe", creature("foe"), (4, 6)),
            ],
        );
        let n = enc.combatants.len();
        let mut ep = pf1e_engine::Episode::with_dice(
            enc,
            pf1e_engine::DiceSource::seeded(1),
            &vec![pf1e_engine::Controller::External; n],
        );
        // Advance to the mage's turn (others end theirs).
        let mage = cid(&ep, "mage");
        loop {
            match ep.advance() {
                Status::Decision(d) if d.actor == mage && !d.kind.is_reaction() => break,
                Status::Decision(d) => {
                    let a = if d.kind.is_reaction() {
                        pf1e_engine::Action::new(ActionKind::Decline)
                    } else {
                        pf1e_engine::Action::new(ActionKind::EndTurn)
                    };
                    ep.submit(d.decision_id, &[a]).unwrap();
                }
                Status::Terminal(o) => panic!("{key}: ended before the cast: {o:?}"),
            }
        }
        let legal = ep.legal_actions();
        // Prefer the foe, then the caster, then any square.
        let foe = cid(&ep, "foe");
        let pick = legal
            .iter()
            .filter(|l| l.action.kind == ActionKind::CastSpell)
            .min_by_key(|l| match (l.action.target, l.action.target_pos) {
                (Some(t), _) if t == foe => 0,
                (Some(t), _) if t == mage => 1,
                (Some(_), _) => 2,
                (None, Some(_)) => 3,
                _ => 4,
            });
        let Some(l) = pick else {
            // Only a casting time of 1 minute or more may be never castable in combat.
            assert_eq!(
                spell.cast_time,
                pf1e_engine::content::spells::CastTime::Long,
                "{key}: no legal cast"
            );
            not_castable.push(key.clone());
            continue;
        };
        let d = ep.decision().cloned().unwrap();
        let r = ep
            .submit(d.decision_id, std::slice::from_ref(&l.action))
            .unwrap();
        assert!(r[0].ok, "{key}: {:?} refused: {r:?}", l.action);
        // Resolve every reaction it provoked (declined), then the spell's effect.
        while let Some(d) = ep.decision().cloned() {
            if !d.kind.is_reaction() {
                break;
            }
            ep.submit(
                d.decision_id,
                &[pf1e_engine::Action::new(ActionKind::Decline)],
            )
            .unwrap();
        }
        let l = log(&ep);
        assert!(
            l.contains(&format!("casts {}", spell.name)),
            "{key}: no cast line\n{l}"
        );
        cast += 1;
    }
    assert!(
        cast >= 108,
        "{cast} spells cast; not castable: {not_castable:?}"
    );
}
