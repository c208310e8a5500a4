//! Content: the data formats and their loaders — combatant stat blocks (JSON), maps (YAML),
//! encounters built from them, and the feat registry. Names are checked at load; errors name
//! the file and the field.

pub mod combatant;
pub mod encounter;
pub mod feats;
pub mod map;
pub mod spells;
pub mod yaml;

use std::path::Path;

/// Why [`read_text_bounded`] failed.
#[derive(Debug, thiserror::Error)]
pub enum ReadError {
    /// The file could not be opened or read.
    #[error("cannot read: {0}")]
    Io(#[from] std::io::Error),
    /// The file holds more than the limit (in bytes).
    #[error("the file is more than {0} bytes (the limit)")]
    TooLong(usize),
    /// The file is not UTF-8 text.
    #[error("the file is not UTF-8 text")]
    NotUtf8,
}

/// Read the text file `path` of at most `max` bytes through `Read::take(max + 1)`: a bigger
/// file, or an endless one (`/dev/zero`), is refused after `max + 1` bytes, never read whole.
///
/// # Errors
/// [`ReadError`]: unreadable, longer than `max` bytes, not UTF-8.
pub fn read_text_bounded(path: &Path, max: usize) -> Result<String, ReadError> {
    use std::io::Read;
    let f = std::fs::File::open(path)?;
    let mut buf = Vec::new();
    f.take(max as u64 + 1).read_to_end(&mut buf)?;
    if buf.len() > max {
        return Err(ReadError::TooLong(max));
    }
    String::from_utf8(buf).map_err(|_| ReadError::NotUtf8)
}
