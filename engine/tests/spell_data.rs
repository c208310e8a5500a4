//! The spell registry `data/spells/`: every file loads, names its source and license, and is
//! in the file its key names.

use pf1e_engine::content::spells::SpellRegistry;
use std::path::PathBuf;

fn data_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data")
}

#[test]
fn every_spell_file_loads_with_source_and_license() {
    let reg = SpellRegistry::load_dir(&data_dir().join("spells")).expect("registry loads");
    assert!(!reg.is_empty());
    for (key, s) in reg.iter() {
        assert!(
            s.source.starts_with("PF1e SRD"),
            "{key}: source {}",
            s.source
        );
        assert_eq!(s.license.as_deref(), Some("OGL-1.0a"), "{key}");
        assert!(!s.summary.is_empty(), "{key}: summary");
    }
}
