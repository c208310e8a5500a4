//! Dice: notation parsing (`NdM`, `NdM+K`, `NdM-K`, `K`, sums like `1d6+1d4+2`) and dice
//! sources (seeded ChaCha8 for real runs, scripted for tests).
//!
//! Every die in the engine goes through the [`Dice`] trait so tests can script rolls.
//! `rand` 0.8.5 and `rand_chacha` 0.3.1 are pinned: see [`RNG_VERSION`].
//!
//! Source: CRB — Getting Started: Dice ("2d4+2 … roll two four-sided dice and add 2"); the
//! notation is the one used throughout the SRD stat blocks.

use rand::{Rng, SeedableRng};
use serde::{Deserialize, Serialize};

/// The RNG stack stamped into reports and transcripts: a different `rand` yields different rolls.
pub const RNG_VERSION: &str = "ChaCha8Rng (rand_chacha 0.3.1, rand 0.8.5)";

/// Largest dice count accepted in one term (`1000d6` is the most).
pub const MAX_DICE_COUNT: u32 = 1000;
/// Largest number of faces accepted for a die (`1d1000` is the most).
pub const MAX_DICE_SIDES: u32 = 1000;
/// Largest absolute value of a flat term (`+100000` is the most).
pub const MAX_FLAT: i32 = 100_000;
/// Largest absolute value the whole expression may reach (min and max), so every total fits
/// comfortably in an `i32`.
pub const MAX_EXPR_MAGNITUDE: i64 = 1_000_000_000;

/// A source of die rolls.
pub trait Dice {
    /// Roll one die with `sides` faces: a value in `1..=sides`. `sides` is at least 1.
    fn roll(&mut self, sides: u32) -> u32;
}

/// Error for bad dice notation; names the text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("invalid dice notation `{text}`: {reason}")]
pub struct DiceError {
    /// The notation as given.
    pub text: String,
    /// What is wrong with it.
    pub reason: String,
}

/// One term of a dice expression.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum Term {
    /// `count` dice of `sides` faces, added (`negative` = subtracted).
    Dice {
        /// Number of dice (1..=1000 when parsed).
        count: u32,
        /// Faces per die (1..=1000 when parsed).
        sides: u32,
        /// Subtracted rather than added (`1d8-1d4`).
        negative: bool,
    },
    /// A constant (may be negative).
    Flat(i32),
}

/// A parsed dice expression.
///
/// Parsing canonicalizes: the dice terms in order of appearance, then at most one [`Term::Flat`]
/// holding the sum of every constant (omitted when it is 0, unless there are no dice at all).
/// So `"2 + 1d6 + 1"` parses to `[1d6, +3]` and displays as `1d6+3`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DiceExpr {
    /// Dice terms in order of appearance, then the constant.
    pub terms: Vec<Term>,
}

/// A rolled expression: the total and each die face in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Roll {
    /// Sum of every term (negative dice subtracted), saturated to `i32`.
    pub total: i32,
    /// Every face rolled, in order of the terms then of the dice within a term.
    pub faces: Vec<u32>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Token<'a> {
    /// A number literal: its value (saturated at [`NUM_CAP`]) and its digits as written.
    Num(u64, &'a str),
    D,
    Plus,
    Minus,
}

/// Cap on any number literal while tokenizing: past this it is an overflow anyway (errors
/// quote the digits as written, never this cap).
const NUM_CAP: u64 = 1 << 40;

fn tokenize(s: &str) -> Result<Vec<Token<'_>>, String> {
    let mut out = Vec::new();
    let mut chars = s.char_indices().peekable();
    while let Some(&(start, ch)) = chars.peek() {
        match ch {
            c if c.is_whitespace() => {
                chars.next();
            }
            '0'..='9' => {
                let mut v: u64 = 0;
                let mut end = start;
                while let Some(&(i, d)) = chars.peek() {
                    let Some(dv) = d.to_digit(10) else { break };
                    v = v
                        .saturating_mul(10)
                        .saturating_add(u64::from(dv))
                        .min(NUM_CAP);
                    end = i + 1;
                    chars.next();
                }
                out.push(Token::Num(v, &s[start..end]));
            }
            'd' | 'D' => {
                chars.next();
                out.push(Token::D);
            }
            '+' => {
                chars.next();
                out.push(Token::Plus);
            }
            '-' => {
                chars.next();
                out.push(Token::Minus);
            }
            other => return Err(format!("unexpected character `{other}`")),
        }
    }
    Ok(out)
}

fn parse_expr(s: &str) -> Result<DiceExpr, String> {
    let tokens = tokenize(s)?;
    if tokens.is_empty() {
        return Err("empty expression".into());
    }
    let mut dice_terms = Vec::new();
    let mut flat: i64 = 0;
    let mut lo: i64 = 0;
    let mut hi: i64 = 0;
    let mut i = 0;
    let mut first = true;
    while i < tokens.len() {
        // Sign: mandatory between terms, optional before the first.
        let mut negative = false;
        match tokens[i] {
            Token::Plus | Token::Minus => {
                negative = tokens[i] == Token::Minus;
                i += 1;
            }
            _ if !first => return Err("expected `+` or `-` between terms".into()),
            _ => {}
        }
        first = false;
        // Term: `N`, `NdM` or `dM`.
        let count = match tokens.get(i) {
            Some(Token::Num(n, text)) => {
                i += 1;
                Some((*n, *text))
            }
            Some(Token::D) => None,
            Some(_) => return Err("two signs in a row".into()),
            None => return Err("expression ends with a sign".into()),
        };
        if tokens.get(i) == Some(&Token::D) {
            i += 1;
            let (sides, sides_text) = match tokens.get(i) {
                Some(Token::Num(n, text)) => {
                    i += 1;
                    (*n, *text)
                }
                _ => return Err("`d` must be followed by the number of sides".into()),
            };
            let (count, count_text) = count.unwrap_or((1, "1"));
            if negative && dice_terms.is_empty() {
                return Err(format!(
                    "negative dice count -{count_text}: the number of dice must be in \
                     1..={MAX_DICE_COUNT} (only a later term may subtract dice, as in `1d8-1d4`)"
                ));
            }
            if !(1..=u64::from(MAX_DICE_COUNT)).contains(&count) {
                return Err(format!(
                    "dice count {count_text} is out of range: must be in 1..={MAX_DICE_COUNT}"
                ));
            }
            if !(1..=u64::from(MAX_DICE_SIDES)).contains(&sides) {
                return Err(format!(
                    "number of sides {sides_text} is out of range: must be in 1..={MAX_DICE_SIDES}"
                ));
            }
            // Both fit in u32 after the checks above.
            let (c, m) = (count as i64, sides as i64);
            if negative {
                lo -= c * m;
                hi -= c;
            } else {
                lo += c;
                hi += c * m;
            }
            dice_terms.push(Term::Dice {
                count: count as u32,
                sides: sides as u32,
                negative,
            });
        } else {
            let (k, k_text) = count.unwrap_or((0, "0"));
            if k > MAX_FLAT as u64 {
                let sign = if negative { "-" } else { "" };
                return Err(format!(
                    "constant {sign}{k_text} is out of range: must be in -{MAX_FLAT}..={MAX_FLAT}"
                ));
            }
            let k = if negative { -(k as i64) } else { k as i64 };
            flat += k;
            lo += k;
            hi += k;
        }
        if lo.abs() > MAX_EXPR_MAGNITUDE || hi.abs() > MAX_EXPR_MAGNITUDE {
            return Err(format!(
                "overflow: the expression's range exceeds -{MAX_EXPR_MAGNITUDE}..={MAX_EXPR_MAGNITUDE}"
            ));
        }
        if matches!(tokens.get(i), Some(Token::Num(..)) | Some(Token::D)) {
            return Err("expected `+` or `-` between terms".into());
        }
    }
    let mut terms = dice_terms;
    if flat != 0 || terms.is_empty() {
        // |flat| ≤ MAX_EXPR_MAGNITUDE < i32::MAX by the check above.
        terms.push(Term::Flat(flat as i32));
    }
    Ok(DiceExpr { terms })
}

impl std::str::FromStr for DiceExpr {
    type Err = DiceError;
    /// Parse dice notation (CRB — Getting Started: Dice): `NdM`, `dM` (= `1dM`), `NdM+K`,
    /// `NdM-K`, `K`, `-K` and sums such as `1d6+1d4+2`; whitespace between tokens is ignored.
    /// Limits: 1 ≤ N ≤ [`MAX_DICE_COUNT`], 1 ≤ M ≤ [`MAX_DICE_SIDES`], |K| ≤ [`MAX_FLAT`].
    /// The first dice term must add dice: `-1d6` (a negative dice count) and `2-1d4` are
    /// errors; a later term may subtract (`1d8-1d4`). Errors quote numbers as written and
    /// state the allowed range (`dice count 99999999999999999999 is out of range: must be in
    /// 1..=1000`).
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse_expr(s).map_err(|reason| DiceError {
            text: s.to_string(),
            reason,
        })
    }
}

fn clamp_i32(v: i64) -> i32 {
    v.clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32
}

impl DiceExpr {
    /// Roll every term (dice in order of appearance) and sum. Negative dice terms subtract.
    /// A hand-built term with 0 sides rolls nothing and adds nothing.
    pub fn roll(&self, dice: &mut dyn Dice) -> Roll {
        let mut total: i64 = 0;
        let mut faces = Vec::new();
        for term in &self.terms {
            match *term {
                Term::Dice {
                    count,
                    sides,
                    negative,
                } => {
                    if sides == 0 {
                        continue;
                    }
                    for _ in 0..count {
                        let f = dice.roll(sides);
                        faces.push(f);
                        if negative {
                            total -= i64::from(f);
                        } else {
                            total += i64::from(f);
                        }
                    }
                }
                Term::Flat(k) => total += i64::from(k),
            }
        }
        Roll {
            total: clamp_i32(total),
            faces,
        }
    }

    /// Sum of the flat terms.
    pub fn flat(&self) -> i32 {
        clamp_i32(
            self.terms
                .iter()
                .map(|t| match t {
                    Term::Flat(k) => i64::from(*k),
                    Term::Dice { .. } => 0,
                })
                .sum(),
        )
    }

    fn bounds(&self) -> (i64, i64, f64) {
        let (mut lo, mut hi, mut mean) = (0i64, 0i64, 0f64);
        for term in &self.terms {
            match *term {
                Term::Dice {
                    count,
                    sides,
                    negative,
                } => {
                    if sides == 0 {
                        continue;
                    }
                    let (c, m) = (i64::from(count), i64::from(sides));
                    let avg = c as f64 * (m as f64 + 1.0) / 2.0;
                    if negative {
                        lo -= c * m;
                        hi -= c;
                        mean -= avg;
                    } else {
                        lo += c;
                        hi += c * m;
                        mean += avg;
                    }
                }
                Term::Flat(k) => {
                    lo += i64::from(k);
                    hi += i64::from(k);
                    mean += f64::from(k);
                }
            }
        }
        (lo, hi, mean)
    }

    /// Minimum total (every added die shows 1, every subtracted die shows its maximum).
    pub fn min(&self) -> i32 {
        clamp_i32(self.bounds().0)
    }

    /// Maximum total (every added die shows its maximum, every subtracted die shows 1).
    pub fn max(&self) -> i32 {
        clamp_i32(self.bounds().1)
    }

    /// Expected total: each `NdM` contributes `N·(M+1)/2` (e.g. `2d4+3` → 8.0).
    pub fn mean(&self) -> f64 {
        self.bounds().2
    }
}

impl std::fmt::Display for DiceExpr {
    /// Canonical notation: dice terms in order, then the summed constant, e.g. `2d4+3`,
    /// `1d6+1d4+2`, `1d4-1`, `5`, `1d8-1d4`.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut first = true;
        for term in &self.terms {
            if let Term::Dice {
                count,
                sides,
                negative,
            } = term
            {
                if *negative {
                    f.write_str("-")?;
                } else if !first {
                    f.write_str("+")?;
                }
                write!(f, "{count}d{sides}")?;
                first = false;
            }
        }
        let k = self.flat();
        if first {
            write!(f, "{k}")
        } else if k > 0 {
            write!(f, "+{k}")
        } else if k < 0 {
            write!(f, "{k}")
        } else {
            Ok(())
        }
    }
}

/// A dice source as it stood at an episode's start (what a restore replays the history on),
/// kept small: a seeded source by its seed, stream and word position (64 bytes, not the
/// generator with its block buffer, about 300), any other one boxed.
#[derive(Debug, Clone)]
pub(crate) enum StartDice {
    Seeded {
        seed: [u8; 32],
        stream: u64,
        word_pos: u128,
    },
    Other(Box<DiceSource>),
}

impl StartDice {
    /// The start of `dice`.
    pub(crate) fn of(dice: &DiceSource) -> StartDice {
        match dice {
            DiceSource::Seeded(rng) => StartDice::Seeded {
                seed: rng.get_seed(),
                stream: rng.get_stream(),
                word_pos: rng.get_word_pos(),
            },
            other => StartDice::Other(Box::new(other.clone())),
        }
    }

    /// The dice source again, in the state it had.
    pub(crate) fn source(&self) -> DiceSource {
        match self {
            StartDice::Seeded {
                seed,
                stream,
                word_pos,
            } => {
                let mut rng = rand_chacha::ChaCha8Rng::from_seed(*seed);
                rng.set_stream(*stream);
                rng.set_word_pos(*word_pos);
                DiceSource::Seeded(rng)
            }
            StartDice::Other(d) => (**d).clone(),
        }
    }

    /// Whether it is a plain seeded source ([`DiceSource::is_seeded`]).
    pub(crate) fn is_seeded(&self) -> bool {
        matches!(self, StartDice::Seeded { .. })
    }
}

/// The per-episode dice source: seeded ChaCha8, or a script for tests. `Clone` and
/// serializable so an episode snapshot includes its RNG state.
///
/// The seeded variant is stored inline (not boxed) on purpose: one per episode, cloned with it.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum DiceSource {
    /// `ChaCha8Rng` (see [`RNG_VERSION`]); each die is `rng.gen_range(1..=sides)`.
    Seeded(rand_chacha::ChaCha8Rng),
    /// Scripted faces (tests).
    Scripted(ScriptedDice),
    /// Seeded, and every face rolled is recorded (to turn a seeded combat into a scripted
    /// golden test: record once, then replay the faces with [`DiceSource::Scripted`]).
    Recording {
        rng: rand_chacha::ChaCha8Rng,
        faces: Vec<u32>,
    },
}

impl DiceSource {
    /// `ChaCha8Rng::seed_from_u64(seed)`.
    pub fn seeded(seed: u64) -> Self {
        DiceSource::Seeded(rand_chacha::ChaCha8Rng::seed_from_u64(seed))
    }

    /// A recording seeded source (see [`DiceSource::Recording`]).
    pub fn recording(seed: u64) -> Self {
        DiceSource::Recording {
            rng: rand_chacha::ChaCha8Rng::seed_from_u64(seed),
            faces: Vec::new(),
        }
    }

    /// Whether this is a plain seeded source ([`DiceSource::Seeded`]): neither scripted nor
    /// recording.
    pub fn is_seeded(&self) -> bool {
        matches!(self, DiceSource::Seeded(_))
    }

    /// The faces recorded so far (empty unless recording).
    pub fn recorded(&self) -> &[u32] {
        match self {
            DiceSource::Recording { faces, .. } => faces,
            _ => &[],
        }
    }

    /// The same source, lenient when scripted (see [`ScriptedDice::lenient`]).
    pub(crate) fn lenient(mut self) -> Self {
        if let DiceSource::Scripted(s) = &mut self {
            s.lenient = true;
        }
        self
    }

    /// Whether a lenient script was rolled past its end or mis-scripted.
    pub(crate) fn overrun(&self) -> bool {
        matches!(self, DiceSource::Scripted(s) if s.overrun)
    }

    /// A scripted source returning `faces` in order (see [`ScriptedDice`]).
    pub fn scripted(faces: impl IntoIterator<Item = u32>) -> Self {
        DiceSource::Scripted(ScriptedDice::new(faces))
    }
}

impl Dice for DiceSource {
    /// Seeded: `rng.gen_range(1..=sides)` (rand 0.8 `Rng`); a `sides` of 0 is treated as 1.
    /// Scripted: the next scripted face (panics if the script is exhausted or mis-scripted).
    fn roll(&mut self, sides: u32) -> u32 {
        match self {
            DiceSource::Seeded(rng) => rng.gen_range(1..=sides.max(1)),
            DiceSource::Scripted(s) => s.roll(sides),
            DiceSource::Recording { rng, faces } => {
                let f = rng.gen_range(1..=sides.max(1));
                faces.push(f);
                f
            }
        }
    }
}

/// Scripted rolls for golden tests: returns the given faces in order.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ScriptedDice {
    /// Faces still to be returned, front first.
    pub rolls: std::collections::VecDeque<u32>,
    /// Lenient (never serialized): a die rolled past the script, or a face that cannot come
    /// up, gives 1 and sets `overrun` instead of panicking — for replaying client data
    /// ([`crate::episode::Episode::restore`]).
    #[serde(skip)]
    pub(crate) lenient: bool,
    /// A lenient script was rolled past its end or mis-scripted.
    #[serde(skip)]
    pub(crate) overrun: bool,
}

impl ScriptedDice {
    /// A script returning `faces` in order.
    pub fn new(faces: impl IntoIterator<Item = u32>) -> Self {
        ScriptedDice {
            rolls: faces.into_iter().collect(),
            lenient: false,
            overrun: false,
        }
    }

    /// How many scripted faces are left.
    pub fn remaining(&self) -> usize {
        self.rolls.len()
    }
}

impl Dice for ScriptedDice {
    /// Pops the next face. Test-only machinery: panics with a clear message when the script is
    /// exhausted or when the scripted face is 0 or exceeds `sides` (a mis-scripted test).
    fn roll(&mut self, sides: u32) -> u32 {
        let face = self.rolls.pop_front();
        let bad = face.is_none_or(|f| f == 0 || f > sides.max(1));
        if bad && self.lenient {
            self.overrun = true;
            return 1;
        }
        let Some(face) = face else {
            panic!("ScriptedDice exhausted: a d{sides} was rolled but no scripted face is left");
        };
        if bad {
            panic!("ScriptedDice mis-scripted: face {face} cannot come up on a d{sides}");
        }
        face
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> DiceExpr {
        s.parse().unwrap_or_else(|e| panic!("{e}"))
    }

    // CRB — Getting Started: Dice: "NdM+K" notation.
    #[test]
    fn parse_basic_notation() {
        assert_eq!(
            p("2d4+3").terms,
            vec![
                Term::Dice {
                    count: 2,
                    sides: 4,
                    negative: false
                },
                Term::Flat(3)
            ]
        );
        assert_eq!(
            p("1d4-1").terms,
            vec![
                Term::Dice {
                    count: 1,
                    sides: 4,
                    negative: false
                },
                Term::Flat(-1)
            ]
        );
        assert_eq!(p("5").terms, vec![Term::Flat(5)]);
        assert_eq!(p("-3").terms, vec![Term::Flat(-3)]);
        assert_eq!(p("0").terms, vec![Term::Flat(0)]);
        assert_eq!(p("d6"), p("1d6"));
        assert_eq!(p("1D6"), p("1d6"));
    }

    // CRB — Getting Started: Dice: sums of several dice terms.
    #[test]
    fn parse_sums_and_whitespace() {
        let e = p(" 1d6 + 1d4 +2 ");
        assert_eq!(e.to_string(), "1d6+1d4+2");
        assert_eq!(p("2+1d6+1").to_string(), "1d6+3");
        assert_eq!(p("1d8-1d4").to_string(), "1d8-1d4");
        assert!("-1d4".parse::<DiceExpr>().is_err());
        assert_eq!(p("+2").to_string(), "2");
        assert_eq!(p("1d6+1-1").to_string(), "1d6");
    }

    // CRB — Getting Started: Dice: canonical display round-trips.
    #[test]
    fn display_canonical_round_trip() {
        for s in [
            "2d4+3",
            "1d6+1d4+2",
            "1d4-1",
            "5",
            "-5",
            "0",
            "3d6",
            "1d6-1d4+7",
        ] {
            assert_eq!(p(s).to_string(), s);
            assert_eq!(p(&p(s).to_string()), p(s));
        }
    }

    // Malformed notation is an error, never a panic.
    #[test]
    fn parse_errors() {
        for bad in [
            "",
            "   ",
            "0d6",
            "1d0",
            "abc",
            "1d",
            "d",
            "1d6+",
            "+",
            "1d6++2",
            "1d6 2",
            "2d6d6",
            "1d6*2",
            "1.5d6",
            "1001d6",
            "1d1001",
            "100001",
            "-100001",
            "99999999999999999999",
            "1d6-",
            "--1",
            "1 2",
        ] {
            let err = bad.parse::<DiceExpr>().expect_err(bad);
            assert_eq!(err.text, bad);
            assert!(!err.reason.is_empty());
        }
        assert!("1000d1000".parse::<DiceExpr>().is_ok());
        assert!("100000".parse::<DiceExpr>().is_ok());
        assert!("-100000".parse::<DiceExpr>().is_ok());
        let e = "1001d6".parse::<DiceExpr>().unwrap_err();
        assert!(e.reason.contains("1..=1000"), "{}", e.reason);
        assert!(e.to_string().contains("1001d6"));
        // Whole-expression overflow: many maximal terms.
        let huge = vec!["1000d1000"; 2000].join("+");
        assert!(huge.parse::<DiceExpr>().is_err());
    }

    #[test]
    fn min_max_mean_flat() {
        let e = p("2d4+3");
        assert_eq!((e.min(), e.max(), e.flat()), (5, 11, 3));
        assert!((e.mean() - 8.0).abs() < 1e-9);
        let e = p("1d6-1d4+2");
        assert_eq!((e.min(), e.max()), (-1, 7));
        assert!((e.mean() - 3.0).abs() < 1e-9);
        let e = p("7");
        assert_eq!((e.min(), e.max(), e.flat()), (7, 7, 7));
    }

    #[test]
    fn roll_records_faces_in_order_and_subtracts_negative_dice() {
        let e = p("1d6+1d4+2");
        let mut d = ScriptedDice::new([5, 3]);
        assert_eq!(
            e.roll(&mut d),
            Roll {
                total: 10,
                faces: vec![5, 3]
            }
        );
        assert_eq!(d.remaining(), 0);
        let e = p("2d8-1d4");
        let mut d = DiceSource::scripted([8, 7, 4]);
        assert_eq!(
            e.roll(&mut d),
            Roll {
                total: 11,
                faces: vec![8, 7, 4]
            }
        );
        assert_eq!(p("3").roll(&mut ScriptedDice::default()).total, 3);
    }

    #[test]
    #[should_panic(expected = "exhausted")]
    fn scripted_exhausted_panics_clearly() {
        let mut d = ScriptedDice::new([3]);
        d.roll(6);
        d.roll(6);
    }

    #[test]
    #[should_panic(expected = "mis-scripted")]
    fn scripted_face_too_large_panics_clearly() {
        ScriptedDice::new([7]).roll(6);
    }

    #[test]
    #[should_panic(expected = "mis-scripted")]
    fn scripted_zero_face_panics_clearly() {
        ScriptedDice::new([0]).roll(6);
    }

    // Determinism: one seeded ChaCha8 per episode; same seed → same rolls.
    #[test]
    fn seeded_is_deterministic_and_clone_resumes() {
        let mut a = DiceSource::seeded(42);
        let mut b = DiceSource::seeded(42);
        let ra: Vec<u32> = (0..100).map(|_| a.roll(20)).collect();
        let rb: Vec<u32> = (0..100).map(|_| b.roll(20)).collect();
        assert_eq!(ra, rb);
        let mut c = a.clone();
        assert_eq!(a.roll(20), c.roll(20));
        let json = serde_json::to_string(&a).unwrap();
        let mut d: DiceSource = serde_json::from_str(&json).unwrap();
        assert_eq!(a.roll(100), d.roll(100));
        let mut other = DiceSource::seeded(43);
        let ro: Vec<u32> = (0..100).map(|_| other.roll(20)).collect();
        assert_ne!(ra, ro);
    }

    // Pinned golden sequence: an accidental `rand`/`rand_chacha` upgrade changes it.
    #[test]
    fn seeded_golden_sequence_seed_1() {
        let mut d = DiceSource::seeded(1);
        let got: Vec<u32> = (0..10).map(|_| d.roll(20)).collect();
        assert_eq!(got, GOLDEN_SEED1_D20, "{RNG_VERSION}");
    }
    const GOLDEN_SEED1_D20: [u32; 10] = [9, 2, 5, 5, 19, 15, 10, 15, 4, 18];

    // Uniformity: each face of 60,000 d6 within 3σ of 10,000 (σ = √(n·p·(1−p)) ≈ 91.3).
    #[test]
    fn seeded_d6_uniform_within_3_sigma() {
        let mut d = DiceSource::seeded(7);
        let n = 60_000u32;
        let mut counts = [0u32; 6];
        for _ in 0..n {
            let f = d.roll(6);
            assert!((1..=6).contains(&f));
            counts[(f - 1) as usize] += 1;
        }
        let expected = f64::from(n) / 6.0;
        let sigma = (f64::from(n) * (1.0 / 6.0) * (5.0 / 6.0)).sqrt();
        for (face, &c) in counts.iter().enumerate() {
            assert!(
                (f64::from(c) - expected).abs() <= 3.0 * sigma,
                "face {} came up {c} times",
                face + 1
            );
        }
    }

    #[test]
    fn seeded_zero_sides_does_not_panic() {
        assert_eq!(DiceSource::seeded(3).roll(0), 1);
        assert_eq!(DiceSource::seeded(3).roll(1), 1);
    }
}
