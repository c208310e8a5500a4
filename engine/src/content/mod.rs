//! Content: the data formats and their loaders — combatant stat blocks (JSON), maps (YAML),
//! encounters built from them, and the feat registry. Names are checked at load; errors name
//! the file and the field.

pub mod combatant;
pub mod encounter;
pub mod feats;
pub mod map;
pub mod spells;
