//! Guards run on YAML text before `serde_yaml` reads it.
//!
//! `serde_yaml` ignores an explicit tag on a value it reads as a string or a number
//! (`name: !!binary aGk=` reads as the string `aGk=`, `move_cost: !!str 2` as 2), so a tag
//! never changes what a file means, silently. The data formats use none: every map, scenario
//! and sweep spec YAML is checked by [`find_explicit_tag`] first, and a tag is an error
//! naming its field.
//!
//! The scan uses a second YAML parser, `saphyr-parser` (pure Rust, an event stream with the
//! tags and no recursion). Where it cannot parse the text, the scan stops there and
//! `serde_yaml`'s own error reports the text (a simplification: a tag after a point where
//! only `saphyr-parser` fails is not seen).

use saphyr_parser::{Event, Parser, Tag};

/// An explicit tag found in YAML text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExplicitTag {
    /// Dotted path of the tagged node (`legend.T.move_cost`, `sides.players[0]`); `<root>`
    /// for the document itself; a tagged mapping key is named by its mapping's path with
    /// ` (a key)` appended.
    pub path: String,
    /// The tag: `!!binary` for the core schema, `!foo` for a local tag, a `%TAG` handle or
    /// verbatim tag expanded (`tag:example.com,2000:x`).
    pub tag: String,
}

enum Frame {
    /// A mapping: the key being read (`None` before the first), and whether the next node
    /// is a key.
    Map { key: Option<String>, want_key: bool },
    /// A sequence: the index of the next item.
    Seq { next: usize },
}

/// Appends mapping key `k` to the dotted field path `out`: `.k` for a plain key (Unicode
/// letters and digits, `_`, `-`), `["k"]` (quoted and escaped as Rust's `{:?}` writes a string) for any
/// other, so a legend key such as `.` reads
/// `legend["."].move_cost`, not `legend...move_cost`.
pub(crate) fn push_key(out: &mut String, k: &str) {
    let plain = !k.is_empty()
        && k.chars()
            .all(|c| c.is_alphanumeric() || c == '_' || c == '-');
    if plain {
        if !out.is_empty() {
            out.push('.');
        }
        out.push_str(k);
    } else {
        out.push('[');
        // Rust's string escapes (`\n`, `\u{1b}`, `\u{200b}`), as the CLI's control escapes.
        out.push_str(&format!("{k:?}"));
        out.push(']');
    }
}

/// `parent` followed by mapping key `k`, as [`push_key`] writes it: every loader names a
/// field by a key the author chose (a legend character, a marker, a side, a combatant) this
/// way, so the tag scan and the other checks spell one field one way.
pub fn field_path(parent: &str, k: &str) -> String {
    let mut out = parent.to_string();
    push_key(&mut out, k);
    out
}

/// `reason` (a serde_yaml message) without the raw dotted path serde_yaml writes before it —
/// the field's, or its parent's for an unknown field — which [`serde_path`] already names.
pub fn strip_raw_path<'a>(path: &serde_path_to_error::Path, reason: &'a str) -> &'a str {
    let raw = path.to_string();
    match reason.split_once(": ") {
        Some((head, rest)) if !head.is_empty() && raw.starts_with(head) => rest,
        _ => reason,
    }
}

/// The path of a `serde_path_to_error` error after `parent`, keys written as [`push_key`]
/// does (`[i]` for a sequence item, `[?]` where serde gave no segment, as the tag scan
/// names a key it has no text for). Empty when both are.
pub fn serde_path(parent: &str, path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut out = parent.to_string();
    for segment in path {
        match segment {
            Segment::Seq { index } => out.push_str(&format!("[{index}]")),
            Segment::Map { key } => push_key(&mut out, key),
            Segment::Enum { variant } => push_key(&mut out, variant),
            Segment::Unknown => out.push_str("[?]"),
        }
    }
    out
}

fn path_of(stack: &[Frame], key_of_top: bool) -> String {
    let mut out = String::new();
    for (i, f) in stack.iter().enumerate() {
        let last = i + 1 == stack.len();
        match f {
            Frame::Map { key, want_key } => {
                if last && (key_of_top || *want_key) {
                    if out.is_empty() {
                        out.push_str("<root>");
                    }
                    out.push_str(" (a key)");
                    return out;
                }
                match key {
                    Some(k) => push_key(&mut out, k),
                    // An alias or a collection used as a key: no text to name it by.
                    None => out.push_str("[?]"),
                }
            }
            Frame::Seq { next } => {
                out.push_str(&format!("[{next}]"));
            }
        }
    }
    if out.is_empty() {
        "<root>".into()
    } else {
        out
    }
}

/// A node of the top frame is complete: a mapping moves from key to value or value to key,
/// a sequence to its next item.
fn node_done(stack: &mut [Frame], scalar_key: Option<&str>) {
    match stack.last_mut() {
        Some(Frame::Map { key, want_key }) => {
            if *want_key {
                *key = scalar_key.map(str::to_string);
            }
            *want_key = !*want_key;
        }
        Some(Frame::Seq { next }) => *next += 1,
        None => {}
    }
}

/// A tag as the author wrote it: `!!str` for the core schema (saphyr-parser's `Display`
/// gives `tag:yaml.org,2002:!str`), `!local`, otherwise the expanded handle and the suffix.
fn tag_text(tag: &Tag) -> String {
    if tag.is_yaml_core_schema() {
        format!("!!{}", tag.suffix)
    } else {
        format!("{}{}", tag.handle, tag.suffix)
    }
}

/// The first explicit tag (`!!binary`, `!!str`, `!custom`…) on any node of `text`, with its
/// path, or `None` when there is none (or where the text stops being YAML `saphyr-parser`
/// reads; see the module doc). Linear in the text's length.
pub fn find_explicit_tag(text: &str) -> Option<ExplicitTag> {
    let mut stack: Vec<Frame> = Vec::new();
    for item in Parser::new_from_str(text) {
        let Ok((event, _span)) = item else {
            return None;
        };
        let is_key = matches!(stack.last(), Some(Frame::Map { want_key: true, .. }));
        let found = |tag: &Tag, stack: &[Frame]| ExplicitTag {
            path: path_of(stack, is_key),
            tag: tag_text(tag),
        };
        match event {
            Event::Scalar(value, _, _, tag) => {
                if let Some(t) = tag {
                    return Some(found(&t, &stack));
                }
                node_done(&mut stack, Some(&value));
            }
            Event::SequenceStart(_, tag) => {
                if let Some(t) = tag {
                    return Some(found(&t, &stack));
                }
                stack.push(Frame::Seq { next: 0 });
            }
            Event::MappingStart(_, tag) => {
                if let Some(t) = tag {
                    return Some(found(&t, &stack));
                }
                stack.push(Frame::Map {
                    key: None,
                    want_key: true,
                });
            }
            Event::SequenceEnd | Event::MappingEnd => {
                stack.pop();
                node_done(&mut stack, None);
            }
            Event::Alias(_) => node_done(&mut stack, None),
            Event::StreamEnd => break,
            Event::Nothing | Event::StreamStart | Event::DocumentStart(_) | Event::DocumentEnd => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tag(text: &str) -> Option<(String, String)> {
        find_explicit_tag(text).map(|t| (t.path, t.tag))
    }

    #[test]
    fn finds_tags_with_their_path() {
        assert_eq!(
            tag("name: x\nlegend:\n  T: {type: a, move_cost: 2}\n"),
            None
        );
        let (p, t) = tag("name: !!binary aGk=\n").unwrap();
        assert_eq!(p, "name");
        assert_eq!(t, "!!binary");
        let (p, _) = tag("legend:\n  T: {type: a, move_cost: !!str 2}\n").unwrap();
        assert_eq!(p, "legend.T.move_cost");
        let (p, t) = tag("sides:\n  players: [orc, !goblin x]\n").unwrap();
        assert_eq!((p.as_str(), t.as_str()), ("sides.players[1]", "!goblin"));
        let (p, _) = tag("a:\n  - b\n  - !!map {c: 1}\n").unwrap();
        assert_eq!(p, "a[1]");
        let (p, _) = tag("!!map {a: 1}\n").unwrap();
        assert_eq!(p, "<root>");
        let (p, _) = tag("a:\n  !!str k: 1\n").unwrap();
        assert_eq!(p, "a (a key)");
        // A `!` inside a plain, quoted or block scalar is text, not a tag.
        assert_eq!(tag("name: Hello!\nt: \"!x\"\nb: |\n  !!..\n  ..\n"), None);
    }
}
