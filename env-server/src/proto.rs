//! Generated protobuf/gRPC code for package `pf1e.env.v1` (from `proto/pf1e/env/v1/`), built
//! by `build.rs` with tonic-prost-build.
//!
//! - [`environment_server`]: the service trait and server wrapper.
//! - [`environment_client`]: the client (used by the tests and Rust callers).
#![allow(missing_docs, clippy::all, clippy::pedantic)]

tonic::include_proto!("pf1e.env.v1");

/// Encoded `FileDescriptorSet` of `pf1e.env.v1`, for gRPC server reflection.
pub const FILE_DESCRIPTOR_SET: &[u8] =
    tonic::include_file_descriptor_set!("pf1e_env_v1_descriptor");
