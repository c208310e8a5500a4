//! Spellcasting (CRB — Magic): casting a spell of a caster's spellbook, its targets, attack,
//! spell resistance, saving throws and effects.

/// The behaviours a spell's `special` effect may name, each implemented here.
pub const SPECIALS: [&str; 5] = [
    "haste",
    "slow",
    "enlarge_person",
    "reduce_person",
    "invisibility",
];
