//! Generated protobuf/gRPC code for package `pf1e.env.v1`.
