//! TLS settings of the server: rustls with the ring provider, TLS 1.2 and 1.3, ALPN `h2`,
//! optionally requiring verified client certificates (mTLS).
use std::sync::Arc;
use tokio_rustls::rustls;
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};

/// The server's TLS configuration from PEM text: `cert_pem` (the certificate chain, leaf
/// first), `key_pem` (its private key: PKCS#8, PKCS#1 or SEC1), and `client_ca_pem` (when
/// given, clients must present a certificate issued by one of these CAs).
///
/// # Errors
/// A message naming the part at fault (`certificate`, `key`, `client CA`) and why.
pub fn server_config(
    cert_pem: &[u8],
    key_pem: &[u8],
    client_ca_pem: Option<&[u8]>,
) -> Result<Arc<rustls::ServerConfig>, String> {
    let certs: Vec<CertificateDer<'static>> = CertificateDer::pem_slice_iter(cert_pem)
        .collect::<Result<_, _>>()
        .map_err(|e| format!("certificate: not valid PEM: {e}"))?;
    if certs.is_empty() {
        return Err("certificate: no CERTIFICATE block in the PEM".into());
    }
    let key = PrivateKeyDer::from_pem_slice(key_pem)
        .map_err(|e| format!("key: no usable private key in the PEM: {e}"))?;
    // AES-128-GCM first, whatever the client prefers (rustls clients list AES-256 first): as
    // safe, and measurably cheaper on large StepBatch responses.
    let mut provider = rustls::crypto::ring::default_provider();
    provider.cipher_suites.sort_by_key(|s| {
        use rustls::CipherSuite as C;
        match s.suite() {
            C::TLS13_AES_128_GCM_SHA256 => 0,
            C::TLS13_AES_256_GCM_SHA384 => 1,
            C::TLS13_CHACHA20_POLY1305_SHA256 => 2,
            C::TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256
            | C::TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256 => 3,
            _ => 4,
        }
    });
    let provider = Arc::new(provider);
    let builder = rustls::ServerConfig::builder_with_provider(provider.clone())
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS versions: {e}"))?;
    let builder = match client_ca_pem {
        None => builder.with_no_client_auth(),
        Some(pem) => {
            let mut roots = rustls::RootCertStore::empty();
            let mut n = 0;
            for c in CertificateDer::pem_slice_iter(pem) {
                let c = c.map_err(|e| format!("client CA: not valid PEM: {e}"))?;
                roots
                    .add(c)
                    .map_err(|e| format!("client CA: unusable certificate: {e}"))?;
                n += 1;
            }
            if n == 0 {
                return Err("client CA: no CERTIFICATE block in the PEM".into());
            }
            let verifier = rustls::server::WebPkiClientVerifier::builder_with_provider(
                Arc::new(roots),
                provider,
            )
            .build()
            .map_err(|e| format!("client CA: {e}"))?;
            builder.with_client_cert_verifier(verifier)
        }
    };
    let mut config = builder
        .with_single_cert(certs, key)
        .map_err(|e| format!("certificate/key: {e}"))?;
    config.alpn_protocols = vec![b"h2".to_vec()];
    config.ignore_client_order = true;
    Ok(Arc::new(config))
}

/// [`server_config`] from PEM files.
///
/// # Errors
/// A message naming the file and the problem.
pub fn server_config_from_files(
    cert: &std::path::Path,
    key: &std::path::Path,
    client_ca: Option<&std::path::Path>,
) -> Result<Arc<rustls::ServerConfig>, String> {
    // PEM files: 1 MiB at most (a chain of certificates is a few KiB), read through a
    // bounded reader (`--tls-cert /dev/zero` must not exhaust memory).
    let read = |what: &str, p: &std::path::Path| {
        pf1e_engine::content::read_text_bounded(p, 1 << 20)
            .map(String::into_bytes)
            .map_err(|e| format!("{what} {}: {e}", p.display()))
    };
    let c = read("--tls-cert", cert)?;
    let k = read("--tls-key", key)?;
    let ca = client_ca.map(|p| read("--tls-client-ca", p)).transpose()?;
    server_config(&c, &k, ca.as_deref())
}
