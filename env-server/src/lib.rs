//! # pf1e-env-server
//!
//! The gRPC environment service over [`pf1e_engine`] episodes, and Monte Carlo evaluation
//! (used by the `pf1e-sim` CLI).
#![forbid(unsafe_code)]

pub mod codec;
pub mod difficulty;
pub mod heatmap;
pub mod montecarlo;
pub mod proto;
pub mod replay;
pub mod report;
pub mod scenarios;
pub mod server;
pub mod service;
pub mod sweep;
pub mod transport;
