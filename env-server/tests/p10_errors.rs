//! P10 error paths over real gRPC, each a finding of the break-it review: bytes that are not
//! the message, a bad Session item, a reply over the size limit inside a stream, a stream at
//! shutdown.
mod common;

use common::{start, start_with, DATA_DIR};
use pf1e_env_server::proto;
use pf1e_env_server::service::ServiceConfig;
use prost::Message;
use tokio_stream::StreamExt;
use tonic::codec::{Codec, DecodeBuf, Decoder, EncodeBuf, Encoder};

/// Sends raw bytes as the request message, decodes the reply as `R`.
#[derive(Default)]
struct RawCodec<R>(std::marker::PhantomData<R>);

struct RawEncoder;
struct ProstDecoder<R>(std::marker::PhantomData<R>);

impl Encoder for RawEncoder {
    type Item = Vec<u8>;
    type Error = tonic::Status;
    fn encode(&mut self, item: Vec<u8>, buf: &mut EncodeBuf<'_>) -> Result<(), tonic::Status> {
        use prost::bytes::BufMut;
        buf.put_slice(&item);
        Ok(())
    }
}

impl<R: Message + Default> Decoder for ProstDecoder<R> {
    type Item = R;
    type Error = tonic::Status;
    fn decode(&mut self, buf: &mut DecodeBuf<'_>) -> Result<Option<R>, tonic::Status> {
        R::decode(buf)
            .map(Some)
            .map_err(|e| tonic::Status::internal(e.to_string()))
    }
}

impl<R: Message + Default + Send + 'static> Codec for RawCodec<R> {
    type Encode = Vec<u8>;
    type Decode = R;
    type Encoder = RawEncoder;
    type Decoder = ProstDecoder<R>;
    fn encoder(&mut self) -> RawEncoder {
        RawEncoder
    }
    fn decoder(&mut self) -> ProstDecoder<R> {
        ProstDecoder(std::marker::PhantomData)
    }
}

/// Bytes that are not a protobuf message: field 2, length-delimited, claiming 100 bytes.
const GARBAGE: &[u8] = &[0x08, 0x07, 0x12, 100, 1, 2, 3];

/// Finding: "malformed protobuf/framing comes back as INTERNAL (reserved for server bugs)".
#[tokio::test]
async fn a_malformed_unary_request_is_invalid_argument() {
    let t = start().await;
    let mut grpc = tonic::client::Grpc::new(t.channel.clone());
    grpc.ready().await.unwrap();
    let r = grpc
        .unary::<_, proto::EpisodeState, _>(
            tonic::Request::new(GARBAGE.to_vec()),
            "/pf1e.env.v1.Environment/Step".parse().unwrap(),
            RawCodec::<proto::EpisodeState>::default(),
        )
        .await;
    let e = r.unwrap_err();
    assert_eq!(e.code(), tonic::Code::InvalidArgument, "{e:?}");
    assert!(e.message().starts_with("malformed request"), "{e:?}");
    assert_eq!(
        e.metadata().get("pf1e-reason").unwrap().to_str().unwrap(),
        "malformed"
    );
    // The server goes on serving on the same channel.
    let mut c = t.client.clone();
    c.stats(proto::StatsRequest {}).await.unwrap();
}

fn echo(id: u64, payload: &[u8]) -> Vec<u8> {
    proto::SessionRequest {
        request_id: id,
        kind: Some(proto::session_request::Kind::Echo(proto::EchoRequest {
            payload: payload.to_vec(),
        })),
        ..Default::default()
    }
    .encode_to_vec()
}

/// Finding: "a garbage item in a Session stream ends the stream with status OK and drops
/// every later item".
#[tokio::test]
async fn a_garbage_session_item_is_answered_inline_and_the_stream_goes_on() {
    use proto::session_response::Kind as A;
    let t = start().await;
    let mut grpc = tonic::client::Grpc::new(t.channel.clone());
    grpc.ready().await.unwrap();
    let items = vec![echo(1, b"a"), GARBAGE.to_vec(), echo(3, b"c")];
    let mut responses = grpc
        .streaming::<_, Vec<u8>, proto::SessionResponse, _>(
            tonic::Request::new(tokio_stream::iter(items)),
            "/pf1e.env.v1.Environment/Session".parse().unwrap(),
            RawCodec::<proto::SessionResponse>::default(),
        )
        .await
        .unwrap()
        .into_inner();
    let mut got = Vec::new();
    while let Some(r) = responses.next().await {
        got.push(r.expect("the stream ends with OK after its input"));
    }
    assert_eq!(got.len(), 3, "{got:?}");
    assert!(matches!(&got[0].kind, Some(A::Echo(e)) if e.payload == b"a"));
    match &got[1].kind {
        Some(A::Error(e)) => {
            assert_eq!(e.code, tonic::Code::InvalidArgument as i32);
            assert_eq!(e.reason, "malformed");
            assert!(e.message.contains("not a SessionRequest"), "{e:?}");
        }
        other => panic!("{other:?}"),
    }
    // Field 1 of the garbage could still be read.
    assert_eq!(got[1].request_id, 7);
    assert!(matches!(&got[2].kind, Some(A::Echo(e)) if e.payload == b"c"));
}

/// Finding: "one reply over the size limit kills the whole stream and its episodes (unary
/// refuses the same request cleanly)".
#[tokio::test]
async fn a_stream_reply_over_the_limit_is_an_inline_error() {
    use proto::session_request::Kind as Q;
    use proto::session_response::Kind as A;
    let mut config = ServiceConfig::new(DATA_DIR);
    config.max_message_bytes = 4096;
    let t = start_with(config).await;
    let mut c = t.client.clone();
    let mut reset = common::reset_req("skirmish_4v4", 1, &["players"]);
    reset.observation = Some(proto::ObservationOptions {
        json: Some(true),
        tensors: true,
        ..Default::default()
    });
    let items = vec![
        proto::SessionRequest {
            request_id: 1,
            kind: Some(Q::Reset(reset)),
            ..Default::default()
        },
        proto::SessionRequest {
            request_id: 2,
            kind: Some(Q::Echo(proto::EchoRequest { payload: vec![2] })),
            ..Default::default()
        },
    ];
    let mut responses = c
        .session(tokio_stream::iter(items))
        .await
        .unwrap()
        .into_inner();
    let first = responses.next().await.unwrap().unwrap();
    match &first.kind {
        Some(A::Error(e)) => {
            assert_eq!(e.code, tonic::Code::OutOfRange as i32, "{e:?}");
            assert!(e.message.contains("--max-message-bytes"), "{e:?}");
            assert!(e.message.contains("was closed"), "{e:?}");
        }
        other => panic!("{other:?}"),
    }
    // The stream goes on, and the episode the refused reply would have named is gone.
    let second = responses.next().await.unwrap().unwrap();
    assert!(
        matches!(&second.kind, Some(A::Echo(e)) if e.payload == [2]),
        "{second:?}"
    );
    assert!(responses.next().await.is_none());
    assert_eq!(common::live(&mut c).await, 0);
}

/// Finding: "a stream ends with OK on SIGTERM (Evaluate correctly says UNAVAILABLE)".
#[tokio::test]
async fn a_stream_ends_with_unavailable_on_shutdown() {
    use proto::session_request::Kind as Q;
    let mut t = start().await;
    let (tx, rx) = tokio::sync::mpsc::channel(4);
    let mut responses = t
        .client
        .session(tokio_stream::wrappers::ReceiverStream::new(rx))
        .await
        .unwrap()
        .into_inner();
    tx.send(proto::SessionRequest {
        request_id: 1,
        kind: Some(Q::Echo(proto::EchoRequest { payload: vec![1] })),
        ..Default::default()
    })
    .await
    .unwrap();
    responses.next().await.unwrap().unwrap();
    let _ = t.shutdown.take().unwrap().send(());
    let end = tokio::time::timeout(std::time::Duration::from_secs(10), responses.next())
        .await
        .expect("the stream ends promptly");
    match end {
        Some(Err(st)) => assert_eq!(st.code(), tonic::Code::Unavailable, "{st:?}"),
        other => panic!("expected UNAVAILABLE, got {other:?}"),
    }
    drop(tx);
}

/// Finding: "`--max-batch-items 4096` cannot be used with the default 16 MiB messages (~1,000
/// is the real limit, undocumented)": a batch reply over the limit says how many items fit,
/// and creates nothing.
#[tokio::test]
async fn a_batch_over_the_message_limit_says_how_many_items_fit() {
    let mut config = ServiceConfig::new(DATA_DIR);
    config.max_message_bytes = 256 << 10;
    let t = start_with(config).await;
    let mut c = t.client.clone();
    let resets: Vec<_> = (0..100)
        .map(|s| common::reset_req("sample_arena", s, &["players"]))
        .collect();
    let e = c
        .reset_batch(proto::ResetBatchRequest { resets })
        .await
        .unwrap_err();
    assert_eq!(e.code(), tonic::Code::OutOfRange, "{e:?}");
    let m = e.message();
    let fit: usize = m
        .split("about ")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no item estimate in {m:?}"));
    assert!((2..100).contains(&fit), "{m}");
    assert_eq!(common::live(&mut c).await, 0);
    // That many do fit (9 in 10 of them: items differ a little in size).
    let fit = fit * 9 / 10;
    let resets: Vec<_> = (0..fit as u64)
        .map(|s| common::reset_req("sample_arena", s, &["players"]))
        .collect();
    let ok = c
        .reset_batch(proto::ResetBatchRequest { resets })
        .await
        .unwrap()
        .into_inner();
    assert_eq!(ok.items.len(), fit);
}

/// Break-it review: silent sockets held every connection slot until the idle timeout (30 min).
#[tokio::test]
async fn a_silent_connection_is_closed_after_the_first_request_timeout() {
    use tokio::io::AsyncReadExt;
    let mut tc = pf1e_env_server::transport::TransportConfig::new(None);
    tc.first_request_timeout = std::time::Duration::from_millis(500);
    let t = common::start_transport(ServiceConfig::new(DATA_DIR), tc).await;
    let mut silent = tokio::net::TcpStream::connect(t.addr).await.unwrap();
    let t0 = std::time::Instant::now();
    let mut buf = [0u8; 64];
    // The server closes it (EOF, or a reset after its SETTINGS frame).
    let closed = tokio::time::timeout(std::time::Duration::from_secs(5), async {
        loop {
            match silent.read(&mut buf).await {
                Ok(0) | Err(_) => return,
                Ok(_) => {}
            }
        }
    })
    .await;
    assert!(closed.is_ok(), "a silent connection stays open");
    assert!(t0.elapsed() >= std::time::Duration::from_millis(400));
    // A real client after the same delay is served.
    let ch = common::connect_plain(t.addr).await;
    let mut c = pf1e_env_server::proto::environment_client::EnvironmentClient::new(ch);
    tokio::time::sleep(std::time::Duration::from_millis(700)).await;
    c.stats(proto::StatsRequest {}).await.unwrap();
}

/// Break-it review: the items of one Session stream were not counted against the client's
/// request rate; they are, one request each, answered inline beyond it.
#[tokio::test]
async fn session_items_count_against_the_request_rate() {
    use proto::session_response::Kind as A;
    let mut tc = pf1e_env_server::transport::TransportConfig::new(None);
    tc.anonymous_requests_per_second = 2.0;
    let t = common::start_transport(ServiceConfig::new(DATA_DIR), tc).await;
    let ch = common::connect_plain(t.addr).await;
    let mut c = pf1e_env_server::proto::environment_client::EnvironmentClient::new(ch);
    let items: Vec<_> = (1..=20)
        .map(|i| proto::SessionRequest {
            request_id: i,
            kind: Some(proto::session_request::Kind::Echo(proto::EchoRequest {
                payload: vec![1],
            })),
            ..Default::default()
        })
        .collect();
    let mut responses = c
        .session(tokio_stream::iter(items))
        .await
        .unwrap()
        .into_inner();
    let (mut ok, mut limited) = (0, 0);
    while let Some(r) = responses.next().await {
        match r.unwrap().kind {
            Some(A::Echo(_)) => ok += 1,
            Some(A::Error(e)) => {
                assert_eq!(e.code, tonic::Code::ResourceExhausted as i32);
                assert_eq!(e.reason, "rate");
                limited += 1;
            }
            other => panic!("{other:?}"),
        }
    }
    assert_eq!(ok + limited, 20);
    assert!(limited >= 15, "{ok} answered, {limited} limited");
}

/// Break-it review: Session streams buffered replies without a bound; a client has at most
/// `max_streams_per_client` streams (each buffering at most 1 MiB of unread replies).
#[tokio::test]
async fn session_streams_per_client_are_bounded() {
    let mut config = ServiceConfig::new(DATA_DIR);
    config.max_streams_per_client = 3;
    let t = start_with(config).await;
    let mut c = t.client.clone();
    let mut open = Vec::new();
    for _ in 0..3 {
        let (tx, rx) = tokio::sync::mpsc::channel::<proto::SessionRequest>(1);
        let s = c
            .session(tokio_stream::wrappers::ReceiverStream::new(rx))
            .await
            .unwrap();
        open.push((tx, s));
    }
    let (_tx, rx) = tokio::sync::mpsc::channel::<proto::SessionRequest>(1);
    let e = c
        .session(tokio_stream::wrappers::ReceiverStream::new(rx))
        .await
        .unwrap_err();
    assert_eq!(e.code(), tonic::Code::ResourceExhausted, "{e:?}");
    assert!(e.message().contains("quota 3"), "{e:?}");
    // One ends: another may open.
    drop(open.pop());
    let mut opened = false;
    for _ in 0..100 {
        let (_tx2, rx) = tokio::sync::mpsc::channel::<proto::SessionRequest>(1);
        if c.session(tokio_stream::wrappers::ReceiverStream::new(rx))
            .await
            .is_ok()
        {
            opened = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(20)).await;
    }
    assert!(opened);
}

/// Break-it review: ListScenarios quoted the server's absolute data path in a broken
/// scenario's error.
#[tokio::test]
async fn list_scenarios_never_quotes_the_servers_path() {
    let dir = std::env::temp_dir().join(format!("pf1e-p10-list-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    for sub in ["maps", "monsters", "pcs", "scenarios", "spells"] {
        std::fs::create_dir_all(dir.join(sub)).unwrap();
    }
    std::fs::write(dir.join("scenarios/broken.yaml"), "sides: 3\n").unwrap();
    let t = start_with(ServiceConfig::new(&dir)).await;
    let mut c = t.client.clone();
    let list = c
        .list_scenarios(proto::ListScenariosRequest {})
        .await
        .unwrap()
        .into_inner();
    let broken = list
        .scenarios
        .iter()
        .find(|s| s.name == "broken")
        .expect("listed");
    assert!(!broken.error.is_empty());
    let root = dir.display().to_string();
    assert!(!broken.error.contains(&root), "{}", broken.error);
    assert!(broken.error.contains("<data>"), "{}", broken.error);
    let _ = std::fs::remove_dir_all(&dir);
}
