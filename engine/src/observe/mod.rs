//! What a controller sees: the observation snapshot (seed key names, JSON) and the
//! fixed-shape tensor observation for RL.

pub mod observation;
pub mod tensor;
