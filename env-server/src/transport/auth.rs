//! Bearer-token authentication and per-client request rates.
//!
//! The token file (`--tokens FILE`) is YAML, a list of entries:
//! ```yaml
//! - name: alice                 # the client's name (its episodes' owner), unique
//!   token_sha256: 9f86d0…       # hex SHA-256 of the token (or `token: <the token>`)
//!   max_episodes: 64            # optional quotas; unset ones are the server's client quotas
//!   max_evaluations: 1
//!   max_memory_bytes: 1073741824
//!   requests_per_second: 200    # optional request rate (0 or unset: unlimited)
//!   burst: 400                  # optional, default max(1, requests_per_second)
//! ```
//! A call of the Environment service must carry `authorization: Bearer <token>`; its
//! SHA-256 is compared (in constant time) with every entry's. Health and reflection are not
//! authenticated.
use super::ConnInfo;
use crate::service::{EnvironmentService, Owner, Principal, Quotas, RateLimit};
use serde::Deserialize;
use sha2::{Digest, Sha256};
use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::Instant;
use subtle::ConstantTimeEq;

/// Largest token file read, in bytes.
pub const MAX_TOKEN_FILE_BYTES: usize = 1 << 20;

/// Shortest plain `token:` accepted in a token file, in bytes.
pub const MIN_TOKEN_LEN: usize = 16;

/// A token bucket: `rate` requests per second on average, `burst` at once.
#[derive(Debug)]
pub struct TokenBucket {
    rate: f64,
    burst: f64,
    tokens: f64,
    last: Instant,
}

impl TokenBucket {
    /// A full bucket.
    pub fn new(rate: f64, burst: f64) -> Self {
        TokenBucket {
            rate,
            burst,
            tokens: burst,
            last: Instant::now(),
        }
    }

    /// Take one request's token if there is one.
    pub fn try_take(&mut self) -> bool {
        let now = Instant::now();
        let dt = now.duration_since(self.last).as_secs_f64();
        self.last = now;
        self.tokens = (self.tokens + dt * self.rate).min(self.burst);
        if self.tokens >= 1.0 {
            self.tokens -= 1.0;
            true
        } else {
            false
        }
    }
}

/// One token of the file.
#[derive(Debug)]
pub struct TokenEntry {
    /// The client's name.
    pub name: Arc<str>,
    digest: [u8; 32],
    /// Its quotas.
    pub quotas: Arc<Quotas>,
    bucket: Option<Arc<Mutex<TokenBucket>>>,
}

/// The tokens of a token file.
#[derive(Debug)]
pub struct TokenTable {
    entries: Vec<TokenEntry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawEntry {
    name: String,
    #[serde(default)]
    token: Option<String>,
    #[serde(default)]
    token_sha256: Option<String>,
    #[serde(default)]
    max_episodes: Option<usize>,
    #[serde(default)]
    max_evaluations: Option<usize>,
    #[serde(default)]
    max_memory_bytes: Option<u64>,
    #[serde(default)]
    requests_per_second: Option<f64>,
    #[serde(default)]
    burst: Option<f64>,
}

fn hex32(s: &str) -> Option<[u8; 32]> {
    let b = s.trim().as_bytes();
    if b.len() != 64 {
        return None;
    }
    let mut out = [0u8; 32];
    for (i, pair) in b.chunks(2).enumerate() {
        let d = |c: u8| (c as char).to_digit(16);
        out[i] = (d(pair[0])? * 16 + d(pair[1])?) as u8;
    }
    Some(out)
}

impl TokenTable {
    /// Read a token file; `defaults` are the quotas of entries that set none.
    ///
    /// # Errors
    /// A message naming the file, the entry (index and name) and the field at fault.
    pub fn load(path: &Path, defaults: &Quotas) -> Result<TokenTable, String> {
        let text = pf1e_engine::content::read_text_bounded(path, MAX_TOKEN_FILE_BYTES)
            .map_err(|e| format!("tokens file {}: {e}", path.display()))?;
        Self::parse(&text, defaults).map_err(|e| format!("tokens file {}: {e}", path.display()))
    }

    /// Parse a token file's text (see [`TokenTable::load`]).
    ///
    /// # Errors
    /// A message naming the entry (index and name) and the field at fault.
    pub fn parse(text: &str, defaults: &Quotas) -> Result<TokenTable, String> {
        if let Some(t) = pf1e_engine::content::yaml::find_explicit_tag(text) {
            return Err(format!(
                "{}: explicit YAML tags are not accepted (tag {})",
                t.path, t.tag
            ));
        }
        let de = serde_yaml::Deserializer::from_str(text);
        let raw: Vec<RawEntry> = serde_path_to_error::deserialize(de).map_err(|e| {
            let path = e.path().to_string();
            let inner = e.into_inner();
            if path == "." {
                format!("expected a list of token entries: {inner}")
            } else {
                format!("entry {path}: {inner}")
            }
        })?;
        if raw.is_empty() {
            return Err("no token entries (an empty file would lock every client out)".into());
        }
        let mut entries: Vec<TokenEntry> = Vec::with_capacity(raw.len());
        for (i, r) in raw.into_iter().enumerate() {
            let at =
                |field: &str, why: &str| format!("entry {i} ({:?}): field {field}: {why}", r.name);
            if r.name.trim().is_empty() {
                return Err(at("name", "must not be empty"));
            }
            if r.name.len() > 128 || r.name.chars().any(char::is_control) {
                return Err(at("name", "at most 128 bytes, no control characters"));
            }
            if matches!(r.name.as_str(), "connection" | "local") {
                return Err(at(
                    "name",
                    "`connection` and `local` are reserved (Stats.client names anonymous and in-process clients so)",
                ));
            }
            if entries.iter().any(|e| *e.name == *r.name) {
                return Err(at(
                    "name",
                    "used by an earlier entry (names must be unique)",
                ));
            }
            let digest = match (&r.token, &r.token_sha256) {
                (Some(_), Some(_)) => {
                    return Err(at("token", "give either token or token_sha256, not both"))
                }
                (None, None) => return Err(at("token_sha256", "missing (or give token)")),
                (Some(t), None) => {
                    // A bearer token travels in an HTTP header: visible ASCII only.
                    if !t.bytes().all(|b| b.is_ascii_graphic()) {
                        return Err(at(
                            "token",
                            "visible ASCII characters only (no spaces or control characters: it is sent in an HTTP header)",
                        ));
                    }
                    if t.len() < MIN_TOKEN_LEN {
                        return Err(at(
                            "token",
                            &format!("too short ({} bytes; at least {MIN_TOKEN_LEN})", t.len()),
                        ));
                    }
                    Sha256::digest(t.as_bytes()).into()
                }
                (None, Some(h)) => hex32(h)
                    .ok_or_else(|| at("token_sha256", "must be 64 hex digits (a SHA-256)"))?,
            };
            if entries.iter().any(|e| e.digest == digest) {
                return Err(at("token", "same token as an earlier entry"));
            }
            let rps = r.requests_per_second.unwrap_or(0.0);
            if !rps.is_finite() || rps < 0.0 {
                return Err(at("requests_per_second", "must be a number >= 0"));
            }
            let burst = r.burst.unwrap_or(rps.max(1.0));
            if !burst.is_finite() || burst < 1.0 {
                return Err(at("burst", "must be a number >= 1"));
            }
            for (field, v) in [
                ("max_episodes", r.max_episodes),
                ("max_evaluations", r.max_evaluations),
            ] {
                if v == Some(0) {
                    return Err(at(field, "must be at least 1"));
                }
            }
            if r.max_memory_bytes == Some(0) {
                return Err(at("max_memory_bytes", "must be at least 1"));
            }
            entries.push(TokenEntry {
                name: r.name.as_str().into(),
                digest,
                quotas: Arc::new(Quotas {
                    max_episodes: r.max_episodes.unwrap_or(defaults.max_episodes),
                    max_evaluations: r.max_evaluations.unwrap_or(defaults.max_evaluations),
                    max_memory_bytes: r.max_memory_bytes.unwrap_or(defaults.max_memory_bytes),
                }),
                bucket: (rps > 0.0).then(|| Arc::new(Mutex::new(TokenBucket::new(rps, burst)))),
            });
        }
        Ok(TokenTable { entries })
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether there are none (never, for a loaded table).
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// The entry whose token is `token`: its SHA-256 compared in constant time with every
    /// entry's (all are compared, whichever matches).
    pub fn find(&self, token: &[u8]) -> Option<&TokenEntry> {
        let d: [u8; 32] = Sha256::digest(token).into();
        let mut found = None;
        for e in &self.entries {
            if bool::from(e.digest.ct_eq(&d)) {
                found = Some(e);
            }
        }
        found
    }
}

/// The message of every authentication failure (no hint about what was wrong).
pub const UNAUTHENTICATED_MESSAGE: &str = "missing or invalid credentials";

/// The interceptor of the Environment service: authenticates (with a token table), attaches
/// the [`Principal`], enforces the client's request rate (RESOURCE_EXHAUSTED with metadata
/// `pf1e-reason: rate`).
#[derive(Clone)]
pub struct Authenticator {
    tokens: Option<Arc<TokenTable>>,
    svc: EnvironmentService,
    /// The quotas of anonymous clients (`svc.config().client_quotas`).
    anonymous: Arc<Quotas>,
}

impl Authenticator {
    /// The interceptor of `svc`'s Environment service; `tokens`: the token file's, if any.
    pub fn new(tokens: Option<Arc<TokenTable>>, svc: EnvironmentService) -> Self {
        let anonymous = Arc::new(svc.config().client_quotas.clone());
        Authenticator {
            tokens,
            svc,
            anonymous,
        }
    }
}

fn rate_limited(svc: &EnvironmentService) -> tonic::Status {
    svc.transport_counters()
        .requests_rate_limited
        .fetch_add(1, Ordering::Relaxed);
    let mut s = tonic::Status::resource_exhausted("request rate limit exceeded; retry later");
    s.metadata_mut().insert(
        "pf1e-reason",
        tonic::metadata::MetadataValue::from_static("rate"),
    );
    s
}

fn take(bucket: &Mutex<TokenBucket>) -> bool {
    bucket.lock().unwrap_or_else(|p| p.into_inner()).try_take()
}

impl RateLimit for Mutex<TokenBucket> {
    fn try_take(&self) -> bool {
        take(self)
    }
}

impl tonic::service::Interceptor for Authenticator {
    fn call(&mut self, mut req: tonic::Request<()>) -> Result<tonic::Request<()>, tonic::Status> {
        let principal = match &self.tokens {
            Some(table) => {
                let token = req
                    .metadata()
                    .get("authorization")
                    .and_then(|v| v.to_str().ok())
                    .and_then(|v| {
                        let (scheme, rest) = v.split_once(' ')?;
                        scheme.eq_ignore_ascii_case("bearer").then(|| rest.trim())
                    });
                let Some(entry) = token.and_then(|t| table.find(t.as_bytes())) else {
                    return Err(tonic::Status::unauthenticated(UNAUTHENTICATED_MESSAGE));
                };
                if let Some(b) = &entry.bucket {
                    if !take(b) {
                        return Err(rate_limited(&self.svc));
                    }
                }
                Principal {
                    owner: Owner::Token(entry.name.clone()),
                    quotas: entry.quotas.clone(),
                    rate: entry.bucket.clone().map(|b| b as Arc<dyn RateLimit>),
                }
            }
            None => {
                let Some(info) = req.extensions().get::<ConnInfo>() else {
                    // Not from our accept loop (cannot happen in `serve`): in-process rules.
                    return Ok(req);
                };
                if let Some(b) = &info.bucket {
                    if !take(b) {
                        return Err(rate_limited(&self.svc));
                    }
                }
                Principal {
                    owner: Owner::Connection(info.number),
                    quotas: self.anonymous.clone(),
                    rate: info.bucket.clone().map(|b| b as Arc<dyn RateLimit>),
                }
            }
        };
        // The connection has made a request (its first-request timeout no longer applies).
        if let Some(info) = req.extensions().get::<ConnInfo>() {
            info.requested
                .store(true, std::sync::atomic::Ordering::Relaxed);
        }
        req.extensions_mut().insert(principal);
        Ok(req)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q() -> Quotas {
        Quotas {
            max_episodes: 5,
            max_evaluations: 1,
            max_memory_bytes: 100,
        }
    }

    #[test]
    fn parses_digests_tokens_and_quotas() {
        let hex: String = Sha256::digest(b"alice-secret-token-1")
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let t = TokenTable::parse(
            &format!(
                "- name: alice\n  token_sha256: {hex}\n  max_episodes: 2\n- name: bob\n  token: bob-secret-token-22\n  requests_per_second: 5\n"
            ),
            &q(),
        )
        .unwrap();
        assert_eq!(t.len(), 2);
        let a = t.find(b"alice-secret-token-1").unwrap();
        assert_eq!(&*a.name, "alice");
        assert_eq!(a.quotas.max_episodes, 2);
        assert_eq!(a.quotas.max_memory_bytes, 100);
        assert_eq!(&*t.find(b"bob-secret-token-22").unwrap().name, "bob");
        assert!(t.find(b"bob-secret-token-2").is_none());
    }

    #[test]
    fn errors_name_the_entry_and_field() {
        let e = |text: &str| TokenTable::parse(text, &q()).unwrap_err();
        let m = e("- name: a\n  token_sha256: abc\n");
        assert!(
            m.contains("entry 0 (\"a\")") && m.contains("token_sha256"),
            "{m}"
        );
        let m = e("- name: a\n  token: aaaaaaaaaaaaaaaaaaaa\n- name: b\n  token: short\n");
        assert!(
            m.contains("entry 1 (\"b\")") && m.contains("field token"),
            "{m}"
        );
        let m = e("- name: a\n  token: aaaaaaaaaaaaaaaaaaaa\n  max_episodes: lots\n");
        assert!(m.contains("[0].max_episodes"), "{m}");
        let m = e("- name: a\n  token: aaaaaaaaaaaaaaaaaaaa\n  colour: red\n");
        assert!(m.contains("colour"), "{m}");
        let m = e(
            "- name: a\n  token: aaaaaaaaaaaaaaaaaaaa\n- name: a\n  token: bbbbbbbbbbbbbbbbbbbbb\n",
        );
        assert!(m.contains("entry 1") && m.contains("unique"), "{m}");
        let m = e("- name: a\n  token: aaaaaaaaaaaaaaaaaaaa\n  requests_per_second: -1\n");
        assert!(m.contains("requests_per_second"), "{m}");
        assert!(e("[]").contains("no token entries"));
    }

    #[test]
    fn bucket_allows_burst_then_rate() {
        let mut b = TokenBucket::new(1.0, 3.0);
        assert!(b.try_take() && b.try_take() && b.try_take());
        assert!(!b.try_take());
    }

    /// Break-it review: a token file of /dev/zero exhausted memory; tokens with spaces, reserved
    /// names and explicit YAML tags were accepted.
    #[test]
    fn token_files_are_read_bounded_and_strictly() {
        let t0 = Instant::now();
        let e = TokenTable::load(Path::new("/dev/zero"), &q()).unwrap_err();
        assert!(e.contains("/dev/zero"), "{e}");
        assert!(t0.elapsed().as_secs() < 5);
        let e = |text: &str| TokenTable::parse(text, &q()).unwrap_err();
        assert!(e("- {name: a, token: \"abcdefgh ijklmnopq\"}").contains("visible ASCII"));
        assert!(e("- {name: connection, token: abcdefghijklmnopq}").contains("reserved"));
        assert!(e("- {name: local, token: abcdefghijklmnopq}").contains("reserved"));
        assert!(e("- {name: a, token: !!binary YWJjZGVmZ2hpamtsbW5vcHE=}").contains("tag"));
    }
}
