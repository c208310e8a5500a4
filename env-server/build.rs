//! Compiles `proto/pf1e/env/v1/*.proto` (the wire contract) into Rust with tonic-prost-build,
//! using the protoc shipped by `protoc-bin-vendored` (no system protoc needed), and writes the
//! encoded file descriptor set used by server reflection.
use std::path::PathBuf;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let protoc = protoc_bin_vendored::protoc_bin_path()?;
    // prost-build runs the protoc named by PROTOC.
    std::env::set_var("PROTOC", protoc);

    let manifest = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR")?);
    let proto_root = manifest.join("..").join("proto");
    let proto = proto_root.join("pf1e/env/v1/environment.proto");
    let out_dir = PathBuf::from(std::env::var("OUT_DIR")?);

    println!("cargo:rerun-if-changed={}", proto.display());
    tonic_prost_build::configure()
        .file_descriptor_set_path(out_dir.join("pf1e_env_v1_descriptor.bin"))
        .build_server(true)
        .build_client(true)
        // Bytes that do not decode: INVALID_ARGUMENT, or an inline error of the Session
        // stream (see src/codec.rs).
        .codec_path("crate::codec::LenientCodec")
        .compile_protos(&[proto], &[proto_root])?;
    Ok(())
}
