//! What a controller sees: the observation snapshot (seed key names, JSON) and the
//! fixed-shape tensor observation for RL, and the text rendering of a decision for a
//! language model.

pub mod observation;
pub mod tensor;
pub mod text;
