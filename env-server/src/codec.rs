//! The protobuf codec of the Environment service: prost's, except for what it does with bytes
//! that are not the expected message.
//!
//! - A unary request (or a client-streamed message) whose bytes do not decode fails with
//!   INVALID_ARGUMENT (`malformed request: …`, trailer `pf1e-reason: malformed`): the client
//!   sent them, so it is not a server failure (prost's codec says INTERNAL, as gRPC's
//!   status-code table suggests; this project keeps INTERNAL for server bugs).
//! - An item of the Session stream that does not decode is not an error of the stream: it
//!   becomes a `SessionRequest` with `malformed` set (and `request_id` when field 1 could
//!   still be read), which the stream answers inline with INVALID_ARGUMENT before going on to
//!   the next item. Its bytes are consumed, so the framing of later items is intact.
//!
//! Framing errors before the codec (an invalid compressed-flag byte, a message over the size
//! limit) are tonic's and keep its codes (INTERNAL for a bad compressed flag, as the gRPC
//! compression spec requires; RESOURCE_EXHAUSTED / OUT_OF_RANGE for sizes); they end the
//! call.
use crate::proto;
use prost::bytes::Buf;
use prost::Message;
use std::any::Any;
use std::marker::PhantomData;
use tonic::codec::{BufferSettings, Codec, DecodeBuf, Decoder, EncodeBuf, Encoder};
use tonic::Status;

/// The codec named in `build.rs` (`codec_path`) for every generated method, server and
/// client side: encode `T`, decode `U` (see the module documentation).
#[derive(Debug, Clone)]
pub struct LenientCodec<T, U> {
    _pd: PhantomData<(T, U)>,
}

impl<T, U> Default for LenientCodec<T, U> {
    fn default() -> Self {
        LenientCodec { _pd: PhantomData }
    }
}

impl<T, U> Codec for LenientCodec<T, U>
where
    T: Message + Send + 'static,
    U: Message + Default + Send + 'static,
{
    type Encode = T;
    type Decode = U;
    type Encoder = ProtoEncoder<T>;
    type Decoder = LenientDecoder<U>;

    fn encoder(&mut self) -> Self::Encoder {
        ProtoEncoder(PhantomData)
    }

    fn decoder(&mut self) -> Self::Decoder {
        LenientDecoder(PhantomData)
    }
}

/// Encodes `T` with prost.
#[derive(Debug, Clone, Default)]
pub struct ProtoEncoder<T>(PhantomData<T>);

impl<T: Message> Encoder for ProtoEncoder<T> {
    type Item = T;
    type Error = Status;

    fn encode(&mut self, item: T, buf: &mut EncodeBuf<'_>) -> Result<(), Status> {
        // EncodeBuf grows as needed: encoding cannot run out of space.
        item.encode(buf)
            .map_err(|e| Status::internal(format!("encoding the reply: {e}")))
    }

    fn buffer_settings(&self) -> BufferSettings {
        BufferSettings::default()
    }
}

/// Decodes `U` with prost; see the module documentation for bytes that do not decode.
#[derive(Debug, Clone, Default)]
pub struct LenientDecoder<U>(PhantomData<U>);

/// The request id of a malformed SessionRequest when its bytes start with field 1 (as every
/// encoder writes it), else 0: what the inline answer is sent under.
fn leading_request_id(mut bytes: &[u8]) -> u64 {
    use prost::encoding::{decode_key, decode_varint, WireType};
    match decode_key(&mut bytes) {
        Ok((1, WireType::Varint)) => decode_varint(&mut bytes).unwrap_or(0),
        _ => 0,
    }
}

impl<U: Message + Default + 'static> Decoder for LenientDecoder<U> {
    type Item = U;
    type Error = Status;

    fn decode(&mut self, buf: &mut DecodeBuf<'_>) -> Result<Option<U>, Status> {
        // Zero-copy: the frame's bytes are split off the receive buffer, and consumed whether
        // they decode or not.
        let bytes = buf.copy_to_bytes(buf.remaining());
        match U::decode(bytes.clone()) {
            Ok(m) => Ok(Some(m)),
            Err(e) => {
                let why = e.to_string();
                let mut item: Box<dyn Any> = Box::new(U::default());
                if let Some(r) = item.downcast_mut::<proto::SessionRequest>() {
                    r.request_id = leading_request_id(&bytes);
                    r.malformed = if why.is_empty() {
                        "the bytes are not a SessionRequest".into()
                    } else {
                        why
                    };
                    return Ok(Some(*item.downcast::<U>().expect("the same type")));
                }
                let mut st = Status::invalid_argument(format!(
                    "malformed request: the bytes are not a {}: {why}",
                    std::any::type_name::<U>()
                        .rsplit("::")
                        .next()
                        .unwrap_or("message")
                ));
                st.metadata_mut().insert(
                    "pf1e-reason",
                    tonic::metadata::MetadataValue::from_static("malformed"),
                );
                Err(st)
            }
        }
    }

    fn buffer_settings(&self) -> BufferSettings {
        BufferSettings::default()
    }
}
