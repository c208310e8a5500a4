//! Snapshot bytes as the server sends them (`SnapshotResponse.snapshot`): the engine's
//! snapshot of the episode with the rest of the session a continuation needs, authenticated
//! with HMAC-SHA256 under the server's snapshot key.
//!
//! ```text
//! "PF1S" (4 bytes) | version (1 byte, 1) | HMAC-SHA256 tag (32 bytes) | body
//! body = n (u32, little-endian) | session part (n bytes of JSON) | Episode::snapshot (JSON)
//! tag  = HMAC-SHA256(key, "pf1e-snapshot" | version | body)
//! ```
//! The key is `--snapshot-key-file`'s, else random per server instance (snapshots then
//! restore only on the instance that took them). A snapshot whose tag does not verify is
//! refused before anything in it is parsed; the engine still checks every invariant of a
//! verified one (`Episode::restore`), so a leaked key cannot produce an impossible state.
use super::ServiceError;
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};
use sha2::Sha256;

const MAGIC: &[u8; 4] = b"PF1S";
const VERSION: u8 = 1;
const TAG_LEN: usize = 32;
const HEADER_LEN: usize = MAGIC.len() + 1 + TAG_LEN;

/// What the session adds to the engine's state (see `Session`).
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub(super) struct SessionPart {
    /// Successful Steps so far.
    pub(super) steps: u64,
    /// Interrupted steps: (decision id, request fields, results reported).
    pub(super) open_steps: Vec<(u64, Vec<String>, usize)>,
    /// The seed of the episode's dice when it started from a Reset (transcripts).
    pub(super) seed: Option<u64>,
    /// The reward bookkeeping (`RewardTracker`), as JSON.
    pub(super) reward: serde_json::Value,
    /// The last deciding combatant (index).
    pub(super) viewer: Option<u16>,
}

fn mac(key: &[u8], body: &[u8]) -> Hmac<Sha256> {
    let mut m = <Hmac<Sha256> as Mac>::new_from_slice(key).expect("HMAC takes keys of any size");
    m.update(b"pf1e-snapshot");
    m.update(&[VERSION]);
    m.update(body);
    m
}

/// Seal a session part and the engine's snapshot bytes (JSON) into snapshot bytes.
///
/// # Errors
/// INTERNAL if the session part does not serialize (a server bug).
pub(super) fn seal(
    key: &[u8],
    session: &SessionPart,
    engine: &[u8],
) -> Result<Vec<u8>, ServiceError> {
    let part = serde_json::to_vec(session)
        .map_err(|e| ServiceError::Internal(format!("snapshot serialization: {e}")))?;
    let n = u32::try_from(part.len())
        .map_err(|_| ServiceError::Internal("snapshot session part over 4 GiB".into()))?;
    let mut body = Vec::with_capacity(4 + part.len() + engine.len());
    body.extend_from_slice(&n.to_le_bytes());
    body.extend_from_slice(&part);
    body.extend_from_slice(engine);
    let tag = mac(key, &body).finalize().into_bytes();
    let mut out = Vec::with_capacity(HEADER_LEN + body.len());
    out.extend_from_slice(MAGIC);
    out.push(VERSION);
    out.extend_from_slice(&tag);
    out.extend_from_slice(&body);
    Ok(out)
}

/// Verify snapshot bytes and split them into the session part and the engine's bytes.
///
/// # Errors
/// INVALID_ARGUMENT (field `snapshot`): not snapshot bytes of this server's format, or a tag
/// that does not verify under this server's key (tampered, or taken by another server
/// instance without a shared `--snapshot-key-file`).
pub(super) fn open<'a>(
    key: &[u8],
    bytes: &'a [u8],
) -> Result<(SessionPart, &'a [u8]), ServiceError> {
    let bad = |why: &str| ServiceError::invalid("snapshot", why.to_string());
    if bytes.len() < HEADER_LEN || &bytes[..4] != MAGIC {
        return Err(bad(
            "not snapshot bytes of this server (they start with \"PF1S\"; use the bytes Snapshot returned, unchanged)",
        ));
    }
    if bytes[4] != VERSION {
        return Err(bad(&format!(
            "snapshot envelope version {} (this server reads version {VERSION})",
            bytes[4]
        )));
    }
    let (tag, body) = bytes[5..].split_at(TAG_LEN);
    if mac(key, body).verify_slice(tag).is_err() {
        return Err(bad(
            "the snapshot's signature does not verify: it was changed, or taken by another server instance (start the servers with the same --snapshot-key-file to restore across instances)",
        ));
    }
    // Verified: the server wrote these bytes (with this key), so the layout holds; still
    // checked, as is everything the engine reads.
    let n = body
        .get(..4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize)
        .filter(|&n| n <= body.len() - 4)
        .ok_or_else(|| bad("malformed snapshot body"))?;
    let session: SessionPart = serde_json::from_slice(&body[4..4 + n])
        .map_err(|e| bad(&format!("malformed snapshot session part: {e}")))?;
    Ok((session, &body[4 + n..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn part() -> SessionPart {
        SessionPart {
            steps: 3,
            open_steps: vec![(4, vec!["actions[0]".into()], 0)],
            seed: Some(9),
            reward: serde_json::json!({"x": 1}),
            viewer: Some(1),
        }
    }

    #[test]
    fn seal_then_open_round_trips() {
        let key = b"k".repeat(32);
        let sealed = seal(&key, &part(), br#"{"format":8,"a":[1,2]}"#).unwrap();
        let (p, engine) = open(&key, &sealed).unwrap();
        assert_eq!(p, part());
        assert_eq!(engine, br#"{"format":8,"a":[1,2]}"#);
    }

    #[test]
    fn any_changed_byte_or_another_key_is_refused() {
        let key = b"k".repeat(32);
        let sealed = seal(&key, &part(), br#"{"hp":6}"#).unwrap();
        for i in 0..sealed.len() {
            let mut t = sealed.clone();
            t[i] ^= 0x01;
            let e = open(&key, &t).unwrap_err();
            assert!(
                matches!(e, ServiceError::InvalidArgument { .. }),
                "byte {i}"
            );
        }
        assert!(open(b"another key", &sealed).is_err());
        assert!(open(&key, b"{}").is_err());
        assert!(open(&key, &sealed[..HEADER_LEN - 1]).is_err());
    }
}
