//! Encounter difficulty for the GM's report: the XP of each side, the encounter's CR and its
//! difficulty for the party's average party level (APL).
//!
//! Sources (CRB — Gamemastering: Building an Adventure / Designing Encounters; Table 12-1:
//! Encounter Design, Table 12-2: Experience Point Awards — the chapter is not in the SRD copy
//! of `/work/shared/srd`, the figures are the CRB's):
//! - **XP per CR** ([`xp_of_cr`]): 1/8 → 50, 1/6 → 65, 1/4 → 100, 1/3 → 135, 1/2 → 200,
//!   1 → 400, 2 → 600, 3 → 800, then doubling every two CRs (4 → 1,200, 5 → 1,600 …).
//! - **APL**: the average level of the player characters, rounded to the nearest whole
//!   number; +1 for a party of six or more, −1 for three or fewer.
//! - **Encounter CR** ([`cr_of_xp`]): the highest CR whose XP award is at most the
//!   encounter's total XP (the CRB adds creatures' XP and reads the CR back from the table).
//! - **Difficulty** (Table 12-1): encounter CR = APL − 1 easy, APL average, APL + 1
//!   challenging, APL + 2 hard, APL + 3 epic. Beyond the table the report says "below easy"
//!   (CR ≤ APL − 2) or "beyond epic" (CR ≥ APL + 4) — the project's words, not the CRB's.
//!
//! The **party** is the first side (deployment order) with a player character
//! (`"player_character": true`); its enemies are every other side. Summoned creatures'
//! reserved slots count for nothing. A combatant without `xp` in its file adds nothing and is
//! counted in [`SideXp::unknown`]; without a party (no player character) there is no APL
//! and no difficulty, only each side's XP and CR.

use pf1e_engine::Encounter;
use serde::Serialize;

/// The CRs of Table 12-2, as written, with their XP awards.
const XP_TABLE: &[(&str, i64)] = &[
    ("1/8", 50),
    ("1/6", 65),
    ("1/4", 100),
    ("1/3", 135),
    ("1/2", 200),
    ("1", 400),
    ("2", 600),
    ("3", 800),
    ("4", 1_200),
    ("5", 1_600),
    ("6", 2_400),
    ("7", 3_200),
    ("8", 4_800),
    ("9", 6_400),
    ("10", 9_600),
    ("11", 12_800),
    ("12", 19_200),
    ("13", 25_600),
    ("14", 38_400),
    ("15", 51_200),
    ("16", 76_800),
    ("17", 102_400),
    ("18", 153_600),
    ("19", 204_800),
    ("20", 307_200),
    ("21", 409_600),
    ("22", 614_400),
    ("23", 819_200),
    ("24", 1_228_800),
    ("25", 1_638_400),
];

/// The XP award of a creature of challenge rating `cr` (`"1/3"`, `"5"`), CRB Table 12-2;
/// `None` for a CR the table does not list.
pub fn xp_of_cr(cr: &str) -> Option<i64> {
    XP_TABLE
        .iter()
        .find(|(c, _)| *c == cr.trim())
        .map(|&(_, xp)| xp)
}

/// The CR of an encounter worth `xp` XP: the highest CR of Table 12-2 whose award is at most
/// `xp`; `None` below 50 XP (less than a CR 1/8 creature).
pub fn cr_of_xp(xp: i64) -> Option<&'static str> {
    XP_TABLE
        .iter()
        .rev()
        .find(|&&(_, award)| award <= xp)
        .map(|&(cr, _)| cr)
}

/// A CR as a number for comparisons with an APL: fractions below 1 count as 0 (CRB Table
/// 12-1 works in whole CRs; a CR 1/2 encounter is "easy" or less for any APL ≥ 1).
fn cr_number(cr: &str) -> i64 {
    cr.parse::<i64>().unwrap_or(0)
}

/// The difficulty of an encounter for a party (CRB Table 12-1), from `encounter CR − APL`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Difficulty {
    /// CR ≤ APL − 2 (not in the table: the project's word).
    BelowEasy,
    /// CR = APL − 1.
    Easy,
    /// CR = APL.
    Average,
    /// CR = APL + 1.
    Challenging,
    /// CR = APL + 2.
    Hard,
    /// CR = APL + 3.
    Epic,
    /// CR ≥ APL + 4 (not in the table: the project's word).
    BeyondEpic,
}

impl Difficulty {
    /// The difficulty of an encounter of CR `cr` for a party of APL `apl`.
    pub fn of(cr: i64, apl: i64) -> Difficulty {
        match cr - apl {
            d if d <= -2 => Difficulty::BelowEasy,
            -1 => Difficulty::Easy,
            0 => Difficulty::Average,
            1 => Difficulty::Challenging,
            2 => Difficulty::Hard,
            3 => Difficulty::Epic,
            _ => Difficulty::BeyondEpic,
        }
    }

    /// The English word (CRB Table 12-1).
    pub fn english(self) -> &'static str {
        match self {
            Difficulty::BelowEasy => "below easy",
            Difficulty::Easy => "easy",
            Difficulty::Average => "average",
            Difficulty::Challenging => "challenging",
            Difficulty::Hard => "hard",
            Difficulty::Epic => "epic",
            Difficulty::BeyondEpic => "beyond epic",
        }
    }

    /// The French word (the French edition's « facile, moyenne, difficile, très difficile,
    /// épique » for easy … epic).
    pub fn french(self) -> &'static str {
        match self {
            Difficulty::BelowEasy => "en dessous de facile",
            Difficulty::Easy => "facile",
            Difficulty::Average => "moyenne",
            Difficulty::Challenging => "difficile",
            Difficulty::Hard => "très difficile",
            Difficulty::Epic => "épique",
            Difficulty::BeyondEpic => "au-delà d'épique",
        }
    }
}

/// The XP and CR of one side.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SideXp {
    /// Side name.
    pub side: String,
    /// Sum of the `xp` of its combatants (summon slots excluded).
    pub xp: i64,
    /// The CR of that much XP ([`cr_of_xp`]); `None` below 50 XP.
    pub cr: Option<String>,
    /// Combatants without `xp` in their file (they add nothing).
    pub unknown: usize,
}

/// The party and its APL.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PartyLevel {
    /// The party's side (the first with a player character).
    pub side: String,
    /// Its combatants (summon slots excluded).
    pub members: usize,
    /// Mean of their `level`.
    pub average_level: f64,
    /// Average party level: the mean rounded to nearest, +1 for 6 or more members, −1 for 3
    /// or fewer (CRB — Gamemastering).
    pub apl: i64,
}

/// The encounter's XP, CR and difficulty.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct EncounterDifficulty {
    /// Every side, in deployment order.
    pub sides: Vec<SideXp>,
    /// The party, when a side has a player character.
    pub party: Option<PartyLevel>,
    /// The XP of the party's enemies (every other side), when there is a party.
    pub enemy_xp: Option<i64>,
    /// The encounter's CR from `enemy_xp`.
    pub cr: Option<String>,
    /// The difficulty of that CR for the APL.
    pub difficulty: Option<Difficulty>,
}

/// The party's side of `encounter`: the first side with a player character.
pub fn party_side(encounter: &Encounter) -> Option<&str> {
    encounter
        .sides
        .iter()
        .find(|s| {
            encounter
                .combatants
                .iter()
                .any(|c| &c.side == *s && c.summoned_by.is_none() && c.spec.player_character)
        })
        .map(String::as_str)
}

/// The XP, CR and difficulty of `encounter` (see the module documentation).
pub fn assess(encounter: &Encounter) -> EncounterDifficulty {
    let deployed = || {
        encounter
            .combatants
            .iter()
            .filter(|c| c.summoned_by.is_none())
    };
    let sides: Vec<SideXp> = encounter
        .sides
        .iter()
        .map(|s| {
            let members: Vec<_> = deployed().filter(|c| &c.side == s).collect();
            let xp = members.iter().filter_map(|c| c.spec.xp).sum::<i64>();
            SideXp {
                side: s.clone(),
                xp,
                cr: cr_of_xp(xp).map(str::to_string),
                unknown: members.iter().filter(|c| c.spec.xp.is_none()).count(),
            }
        })
        .collect();
    let party = party_side(encounter).map(|side| {
        let levels: Vec<i32> = deployed()
            .filter(|c| c.side == side)
            .map(|c| c.spec.level)
            .collect();
        let members = levels.len();
        let average_level = levels.iter().map(|&l| f64::from(l)).sum::<f64>() / members as f64;
        let adjust = if members >= 6 {
            1
        } else if members <= 3 {
            -1
        } else {
            0
        };
        PartyLevel {
            side: side.to_string(),
            members,
            average_level,
            apl: average_level.round() as i64 + adjust,
        }
    });
    let enemy_xp = party.as_ref().map(|p| {
        sides
            .iter()
            .filter(|s| s.side != p.side)
            .map(|s| s.xp)
            .sum::<i64>()
    });
    let cr = enemy_xp.and_then(cr_of_xp);
    let difficulty = match (&party, cr) {
        (Some(p), Some(cr)) => Some(Difficulty::of(cr_number(cr), p.apl)),
        _ => None,
    };
    EncounterDifficulty {
        sides,
        party,
        enemy_xp,
        cr: cr.map(str::to_string),
        difficulty,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// CRB Table 12-2: Experience Point Awards (total XP column).
    #[test]
    fn xp_award_table_12_2() {
        assert_eq!(xp_of_cr("1/3"), Some(135));
        assert_eq!(xp_of_cr("1/2"), Some(200));
        assert_eq!(xp_of_cr("3"), Some(800));
        assert_eq!(xp_of_cr("5"), Some(1_600));
        assert_eq!(xp_of_cr("12"), Some(19_200));
        assert_eq!(xp_of_cr("26"), None);
        // Every CR from 2 on doubles every two steps.
        for w in XP_TABLE[6..].windows(3) {
            assert_eq!(w[2].1, 2 * w[0].1, "{:?}", w);
        }
    }

    /// CRB — Gamemastering: the encounter's CR is read back from its total XP.
    #[test]
    fn encounter_cr_from_total_xp() {
        assert_eq!(cr_of_xp(3_200), Some("7"));
        assert_eq!(cr_of_xp(3_199), Some("6"));
        assert_eq!(cr_of_xp(1_000), Some("3"));
        assert_eq!(cr_of_xp(49), None);
        assert_eq!(cr_of_xp(50), Some("1/8"));
    }

    /// CRB Table 12-1: Encounter Design.
    #[test]
    fn difficulty_table_12_1() {
        assert_eq!(Difficulty::of(3, 4), Difficulty::Easy);
        assert_eq!(Difficulty::of(4, 4), Difficulty::Average);
        assert_eq!(Difficulty::of(5, 4), Difficulty::Challenging);
        assert_eq!(Difficulty::of(6, 4), Difficulty::Hard);
        assert_eq!(Difficulty::of(7, 4), Difficulty::Epic);
        assert_eq!(Difficulty::of(8, 4), Difficulty::BeyondEpic);
        assert_eq!(Difficulty::of(1, 4), Difficulty::BelowEasy);
    }

    fn encounter(scenario: &str) -> Encounter {
        let data = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../data");
        let store = crate::scenarios::ScenarioStore::new(data);
        (*store.named(scenario, "scenario").unwrap()).clone()
    }

    /// The casters scenario: 4 PCs (levels 3, 5, 4, 3: mean 3.75 → APL 4) against a green hag
    /// (CR 5, 1,600 XP) and two ogres (CR 3, 800 XP each): 3,200 XP, CR 7, epic.
    #[test]
    fn casters_is_an_epic_cr_7_encounter_for_apl_4() {
        let d = assess(&encounter("casters"));
        let p = d.party.as_ref().unwrap();
        assert_eq!((p.side.as_str(), p.members, p.apl), ("players", 4, 4));
        assert!((p.average_level - 3.75).abs() < 1e-12);
        assert_eq!(d.enemy_xp, Some(3_200));
        assert_eq!(d.cr.as_deref(), Some("7"));
        assert_eq!(d.difficulty, Some(Difficulty::Epic));
        assert_eq!(d.sides[1].xp, 3_200);
        assert_eq!(d.sides[1].unknown, 0);
    }

    /// No player character: each side's XP and CR, no APL.
    #[test]
    fn goblins_against_orcs_have_no_party() {
        let d = assess(&encounter("sample_arena"));
        assert!(d.party.is_none() && d.difficulty.is_none() && d.cr.is_none());
        assert_eq!(d.sides[0].xp, 3 * 135);
        assert_eq!(d.sides[0].cr.as_deref(), Some("1"));
        assert_eq!(d.sides[1].xp, 2 * 135);
    }
}
