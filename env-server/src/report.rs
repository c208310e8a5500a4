//! Balance reports of a Monte Carlo batch: the seed's French text report (English on request),
//! a JSON document, and the aligned transcript table of the first combat.
//!
//! Text layout (French, the default):
//!
//! ```text
//! === Rapport d'équilibrage ===
//! Carte : Arène d'essai
//! players : 3 combatants
//! monsters : 2 combatants
//! 1000 combats simulés (seed 1, plafond 100 rounds)
//! Victoires players : 96.2% (962) — bande 3σ : [94.4%, 98.0%]
//! Victoires monsters : 3.6% (36) — bande 3σ : [1.8%, 5.4%]
//! Nuls : 0.2% (2)
//! Rounds moyens : 6.6
//! ```
//!
//! then the mean attrition per combatant as an aligned table and a last line naming the RNG
//! stack ([`pf1e_engine::dice::RNG_VERSION`]) and the engine version.
//!
//! Column widths are display widths ([`unicode_width`]): accented letters count 1, CJK 2.

use crate::montecarlo::{BatchResult, CombatantSummary};
use pf1e_engine::episode::LogLine;
use serde::Serialize;
use unicode_width::UnicodeWidthStr;

/// Version of the engine crate stamped into reports (the workspace version shared by
/// `pf1e-engine` and this crate).
pub const ENGINE_VERSION: &str = pf1e_engine::VERSION;

/// Language of the text report and transcript headers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Lang {
    /// French (the seed's language, default).
    #[default]
    Fr,
    /// English.
    En,
}

/// Horizontal alignment of a table column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Align {
    /// Pad on the right.
    Left,
    /// Pad on the left (numbers).
    Right,
}

/// Whether `c` is escaped by [`escape_controls`].
fn needs_escape(c: char) -> bool {
    c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

/// `text` with every control character (C0, DEL and C1, incl. ESC, BEL, CR, LF, tab and the
/// 8-bit CSI U+009B) and every Unicode bidirectional embedding, override or isolate
/// (U+202A–U+202E, U+2066–U+2069) written as its Rust escape (`\u{1b}`, `\u{7}`, `\n`,
/// `\t`, `\u{202e}`), so that a string from a spec, a data file, a request or a path cannot
/// drive the terminal showing a text report (colours, cursor moves, bell, title changes) or
/// reorder what it shows. Borrowed when there is nothing to escape.
pub fn escape_controls(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.chars().any(needs_escape) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if needs_escape(c) {
            out.extend(c.escape_default());
        } else {
            out.push(c);
        }
    }
    std::borrow::Cow::Owned(out)
}

/// Pad `text` with spaces to `width` display columns (no-op if already as wide or wider).
pub fn pad(text: &str, width: usize, align: Align) -> String {
    let fill = width.saturating_sub(text.width());
    let spaces = " ".repeat(fill);
    match align {
        Align::Left => format!("{text}{spaces}"),
        Align::Right => format!("{spaces}{text}"),
    }
}

/// One line of a table: cells aligned in columns, or a raw line printed as is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TableLine {
    /// A row with one cell per column.
    Row(Vec<String>),
    /// A raw line, printed untouched at its position; it does not affect column widths.
    Raw(String),
}

/// Gutter between table columns.
const GUTTER: &str = "  ";

/// Render an aligned table: a header row, a separator of dashes as wide as each column, then
/// the lines. Widths are the maximum display width of each column over the header and the
/// rows. The last column is not padded (no trailing spaces). Each line ends with `\n`.
///
/// `headers` and `aligns` have one entry per column; rows with fewer cells are padded with
/// empty cells, extra cells are ignored.
pub fn render_table(headers: &[&str], aligns: &[Align], lines: &[TableLine]) -> String {
    let ncol = headers.len();
    let mut widths: Vec<usize> = headers.iter().map(|h| h.width()).collect();
    for line in lines {
        if let TableLine::Row(cells) = line {
            for (w, c) in widths.iter_mut().zip(cells) {
                *w = (*w).max(c.width());
            }
        }
    }
    let render_row = |cells: &[&str]| -> String {
        let mut out = String::new();
        for (i, &width) in widths.iter().enumerate() {
            let cell = cells.get(i).copied().unwrap_or("");
            let align = aligns.get(i).copied().unwrap_or(Align::Left);
            if i > 0 {
                out.push_str(GUTTER);
            }
            if i + 1 == ncol && align == Align::Left {
                out.push_str(cell);
            } else {
                out.push_str(&pad(cell, width, align));
            }
        }
        let trimmed = out.trim_end_matches(' ').len();
        // Only padding can be trimmed: a last cell never ends with added spaces, but an empty
        // last cell leaves the gutter behind.
        if cells
            .get(ncol.saturating_sub(1))
            .is_none_or(|c| c.is_empty())
        {
            out.truncate(trimmed);
        }
        out.push('\n');
        out
    };
    let mut out = render_row(headers);
    let dashes: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
    out.push_str(&render_row(
        &dashes.iter().map(String::as_str).collect::<Vec<_>>(),
    ));
    for line in lines {
        match line {
            TableLine::Row(cells) => {
                out.push_str(&render_row(
                    &cells.iter().map(String::as_str).collect::<Vec<_>>(),
                ));
            }
            TableLine::Raw(text) => {
                out.push_str(text);
                out.push('\n');
            }
        }
    }
    out
}

/// Render a transcript as the seed's three-column table (`Round`, `Combattant`/`Combatant`,
/// `Message`) under the title `=== Déroulé du premier combat ===` (French) or
/// `=== Transcript of the first combat ===` (English). Lines without a round (initiative,
/// end of combat) are printed raw at their position; nothing is reordered or truncated.
pub fn render_transcript(lines: &[LogLine], lang: Lang) -> String {
    let (title, actor) = match lang {
        Lang::Fr => ("=== Déroulé du premier combat ===", "Combattant"),
        Lang::En => ("=== Transcript of the first combat ===", "Combatant"),
    };
    let rows: Vec<TableLine> = lines
        .iter()
        .map(|l| match l.round {
            Some(r) => TableLine::Row(vec![
                r.to_string(),
                l.actor.clone().unwrap_or_default(),
                l.message.clone(),
            ]),
            None => TableLine::Raw(l.message.clone()),
        })
        .collect();
    let mut out = format!("{title}\n");
    out.push_str(&render_table(
        &["Round", actor, "Message"],
        &[Align::Right, Align::Left, Align::Left],
        &rows,
    ));
    out
}

/// A proportion as a percentage with one decimal: `0.962` → `96.2%`.
pub fn percent(p: f64) -> String {
    format!("{:.1}%", p * 100.0)
}

/// Render the text balance report (see the module documentation for the layout). Every line
/// ends with `\n`.
pub fn render_text(result: &BatchResult, lang: Lang) -> String {
    let fr = lang == Lang::Fr;
    let mut out = String::new();
    let mut line = |s: String| {
        out.push_str(&s);
        out.push('\n');
    };
    line(if fr {
        "=== Rapport d'équilibrage ===".into()
    } else {
        "=== Balance report ===".into()
    });
    line(if fr {
        format!("Carte : {}", escape_controls(&result.map_name))
    } else {
        format!("Map : {}", escape_controls(&result.map_name))
    });
    for side in &result.sides {
        let plural = if side.combatants == 1 { "" } else { "s" };
        let tactics = match (&side.tactics, fr) {
            (None, _) => String::new(),
            (Some(t), true) => format!(", tactique « {} »", escape_controls(t)),
            (Some(t), false) => format!(", tactics \"{}\"", escape_controls(t)),
        };
        line(format!(
            "{} : {} combatant{plural}{tactics}",
            escape_controls(&side.name),
            side.combatants
        ));
    }
    let smd = match (result.simple_monster_death, fr) {
        (false, _) => "",
        (true, true) => ", mort simplifiée des monstres",
        (true, false) => ", simple monster death",
    };
    line(if fr {
        format!(
            "{} combats simulés (seed {}, plafond {} rounds{smd})",
            result.runs, result.seed, result.round_cap
        )
    } else {
        format!(
            "{} combats simulated (seed {}, cap {} rounds{smd})",
            result.runs, result.seed, result.round_cap
        )
    });
    for side in &result.sides {
        let w = &side.wins;
        let band = format!(
            "[{}, {}]",
            percent(w.band_3sigma[0]),
            percent(w.band_3sigma[1])
        );
        line(if fr {
            format!(
                "Victoires {} : {} ({}) — bande 3σ : {band}",
                escape_controls(&side.name),
                percent(w.rate),
                w.count
            )
        } else {
            format!(
                "Wins {} : {} ({}) — 3σ band : {band}",
                escape_controls(&side.name),
                percent(w.rate),
                w.count
            )
        });
    }
    line(format!(
        "{} : {} ({})",
        if fr { "Nuls" } else { "Draws" },
        percent(result.draws.rate),
        result.draws.count
    ));
    line(format!(
        "{} : {:.1}",
        if fr { "Rounds moyens" } else { "Mean rounds" },
        result.mean_rounds
    ));
    line(String::new());
    line(if fr {
        "Attrition moyenne par combattant (touches, critiques, dégâts infligés, dégâts subis) :"
            .into()
    } else {
        "Mean attrition per combatant (hits, crits, damage dealt, damage taken) :".into()
    });
    out.push_str(&attrition_table(&result.combatants, lang));
    out.push('\n');
    out.push_str(&format!(
        "RNG : {} — {} pf1e-engine {}\n",
        pf1e_engine::dice::RNG_VERSION,
        if fr { "moteur" } else { "engine" },
        ENGINE_VERSION
    ));
    out
}

/// The attrition table: id, side, mean hits, crits (two decimals), damage dealt and taken
/// (one decimal, hit points).
pub fn attrition_table(combatants: &[CombatantSummary], lang: Lang) -> String {
    let headers: [&str; 6] = match lang {
        Lang::Fr => [
            "Combattant",
            "Camp",
            "Touches",
            "Critiques",
            "Dégâts infligés",
            "Dégâts subis",
        ],
        Lang::En => [
            "Combatant",
            "Side",
            "Hits",
            "Crits",
            "Damage dealt",
            "Damage taken",
        ],
    };
    let rows: Vec<TableLine> = combatants
        .iter()
        .map(|c| {
            TableLine::Row(vec![
                escape_controls(&c.id).into_owned(),
                escape_controls(&c.side).into_owned(),
                format!("{:.2}", c.mean_hits),
                format!("{:.2}", c.mean_crits),
                format!("{:.1}", c.mean_damage_dealt),
                format!("{:.1}", c.mean_damage_taken),
            ])
        })
        .collect();
    render_table(
        &headers,
        &[
            Align::Left,
            Align::Left,
            Align::Right,
            Align::Right,
            Align::Right,
            Align::Right,
        ],
        &rows,
    )
}

/// Win statistics of one side in the JSON report. Rates and bands are proportions in `[0, 1]`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JsonSide {
    /// Side name.
    pub name: String,
    /// Number of combatants of the side.
    pub combatants: usize,
    /// Combats won.
    pub wins: u64,
    /// `wins / runs`.
    pub rate: f64,
    /// `σ = √(p(1−p)/n)`.
    pub sigma: f64,
    /// `[p − 3σ, p + 3σ]` clamped to `[0, 1]`.
    pub band_3sigma: [f64; 2],
    /// Wilson score interval at `z = 3`.
    pub wilson_3sigma: [f64; 2],
    /// The tactics spec the side played (absent: the default policy).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tactics: Option<String>,
}

/// The JSON report (`--format json`): everything the text report shows, unrounded.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct JsonReport {
    /// Map name.
    pub map: String,
    /// Number of combats.
    pub runs: u32,
    /// Base seed (run `i` used `seed + i`).
    pub seed: u64,
    /// Round cap per combat.
    pub round_cap: u32,
    /// `--simple-monster-death`.
    pub simple_monster_death: bool,
    /// Per side, in deployment order.
    pub sides: Vec<JsonSide>,
    /// Combats without a winner.
    pub draws: u64,
    /// `draws / runs`.
    pub draw_rate: f64,
    /// Draws caused by the round cap.
    pub truncated: u64,
    /// Mean rounds per combat.
    pub mean_rounds: f64,
    /// Mean attrition per combatant (hit points for damage).
    pub combatants: Vec<CombatantSummary>,
    /// The RNG stack ([`pf1e_engine::dice::RNG_VERSION`]).
    pub rng: String,
    /// [`ENGINE_VERSION`].
    pub engine_version: String,
    /// The first combat's transcript, when requested.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub transcript: Option<Vec<LogLine>>,
}

impl JsonReport {
    /// Build the JSON report of a batch; the transcript of the first combat is included when
    /// `with_transcript`.
    pub fn new(result: &BatchResult, with_transcript: bool) -> JsonReport {
        JsonReport {
            map: result.map_name.clone(),
            runs: result.runs,
            seed: result.seed,
            round_cap: result.round_cap,
            simple_monster_death: result.simple_monster_death,
            sides: result
                .sides
                .iter()
                .map(|s| JsonSide {
                    name: s.name.clone(),
                    combatants: s.combatants,
                    wins: s.wins.count,
                    rate: s.wins.rate,
                    sigma: s.wins.sigma,
                    band_3sigma: s.wins.band_3sigma,
                    wilson_3sigma: s.wins.wilson_3sigma,
                    tactics: s.tactics.clone(),
                })
                .collect(),
            draws: result.draws.count,
            draw_rate: result.draws.rate,
            truncated: result.truncated,
            mean_rounds: result.mean_rounds,
            combatants: result.combatants.clone(),
            rng: pf1e_engine::dice::RNG_VERSION.to_string(),
            engine_version: ENGINE_VERSION.to_string(),
            transcript: with_transcript.then(|| result.first_transcript.clone()),
        }
    }
}

/// Render the JSON report, pretty-printed, ending with `\n`.
pub fn render_json(result: &BatchResult, with_transcript: bool) -> String {
    let mut s = serde_json::to_string_pretty(&JsonReport::new(result, with_transcript))
        .expect("the JSON report only holds serializable plain data");
    s.push('\n');
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::montecarlo::{SideSummary, WinRate};

    #[test]
    fn control_characters_are_escaped() {
        assert!(matches!(
            escape_controls("Arène d'essai"),
            std::borrow::Cow::Borrowed(_)
        ));
        assert_eq!(
            escape_controls("a\u{1b}[31mb\u{7}\tc\r\nd\u{9b}2J\u{7f}"),
            "a\\u{1b}[31mb\\u{7}\\tc\\r\\nd\\u{9b}2J\\u{7f}"
        );
        // Bidirectional overrides and isolates cannot reorder what a terminal shows.
        assert_eq!(
            escape_controls("x\u{202e}y\u{2066}z"),
            "x\\u{202e}y\\u{2066}z"
        );
    }

    fn log(round: Option<u32>, actor: Option<&str>, message: &str) -> LogLine {
        LogLine {
            round,
            actor: actor.map(str::to_string),
            message: message.to_string(),
        }
    }

    fn sample() -> BatchResult {
        BatchResult {
            map_name: "Arène d'essai".into(),
            runs: 1000,
            seed: 1,
            round_cap: 100,
            simple_monster_death: false,
            sides: vec![
                SideSummary {
                    name: "players".into(),
                    combatants: 3,
                    wins: WinRate::new(962, 1000),
                    tactics: None,
                },
                SideSummary {
                    name: "monsters".into(),
                    combatants: 2,
                    wins: WinRate::new(36, 1000),
                    tactics: None,
                },
            ],
            draws: WinRate::new(2, 1000),
            truncated: 2,
            mean_rounds: 6.6,
            combatants: vec![
                CombatantSummary {
                    id: "goblin".into(),
                    side: "players".into(),
                    mean_attacks: 5.0,
                    mean_hits: 2.345,
                    mean_crits: 0.125,
                    mean_damage_dealt: 9.87,
                    mean_damage_taken: 3.0,
                },
                CombatantSummary {
                    id: "orc-2".into(),
                    side: "monsters".into(),
                    mean_attacks: 4.0,
                    mean_hits: 1.0,
                    mean_crits: 0.0,
                    mean_damage_dealt: 12.0,
                    mean_damage_taken: 14.25,
                },
            ],
            first_transcript: vec![
                log(None, None, "initiative: orc d20=19+0=19"),
                log(Some(1), Some("orc"), "move (1,15)->(2,14)"),
            ],
            records: vec![],
        }
    }

    #[test]
    fn french_report_matches_seed_layout() {
        let text = render_text(&sample(), Lang::Fr);
        let expected_head = "=== Rapport d'équilibrage ===\n\
            Carte : Arène d'essai\n\
            players : 3 combatants\n\
            monsters : 2 combatants\n\
            1000 combats simulés (seed 1, plafond 100 rounds)\n\
            Victoires players : 96.2% (962) — bande 3σ : [94.4%, 98.0%]\n\
            Victoires monsters : 3.6% (36) — bande 3σ : [1.8%, 5.4%]\n\
            Nuls : 0.2% (2)\n\
            Rounds moyens : 6.6\n\n\
            Attrition moyenne par combattant (touches, critiques, dégâts infligés, dégâts subis) :\n";
        assert!(text.starts_with(expected_head), "{text}");
        let table = "\
Combattant  Camp      Touches  Critiques  Dégâts infligés  Dégâts subis
----------  --------  -------  ---------  ---------------  ------------
goblin      players      2.35       0.12              9.9           3.0
orc-2       monsters     1.00       0.00             12.0          14.2
";
        assert!(text.contains(table), "{text}");
        assert!(text.ends_with(&format!(
            "\nRNG : {} — moteur pf1e-engine {}\n",
            pf1e_engine::dice::RNG_VERSION,
            ENGINE_VERSION
        )));
    }

    #[test]
    fn english_report() {
        let mut r = sample();
        r.simple_monster_death = true;
        let text = render_text(&r, Lang::En);
        for needle in [
            "=== Balance report ===\n",
            "Map : Arène d'essai\n",
            "1000 combats simulated (seed 1, cap 100 rounds, simple monster death)\n",
            "Wins players : 96.2% (962) — 3σ band : [94.4%, 98.0%]\n",
            "Draws : 0.2% (2)\n",
            "Mean rounds : 6.6\n",
            "Mean attrition per combatant (hits, crits, damage dealt, damage taken) :\n",
            "Combatant  Side      Hits  Crits  Damage dealt  Damage taken\n",
            "— engine pf1e-engine",
        ] {
            assert!(text.contains(needle), "missing {needle:?} in\n{text}");
        }
        assert!(!text.contains("Victoires"));
    }

    #[test]
    fn transcript_table_aligns_accents_and_cjk() {
        let lines = vec![
            log(None, None, "initiative: orc d20=19+0=19"),
            log(Some(1), Some("orc"), "move (1,15)->(3,10)"),
            log(Some(1), Some("gobelin-été"), "arc court vs orc -> RATÉ"),
            log(Some(12), Some("哥布林"), "攻击"),
            log(Some(2), None, "sans acteur"),
            log(None, None, "battle over: players win in 12 rounds"),
        ];
        let text = render_transcript(&lines, Lang::Fr);
        let expected = "\
=== Déroulé du premier combat ===
Round  Combattant   Message
-----  -----------  ------------------------
initiative: orc d20=19+0=19
    1  orc          move (1,15)->(3,10)
    1  gobelin-été  arc court vs orc -> RATÉ
   12  哥布林       攻击
    2               sans acteur
battle over: players win in 12 rounds
";
        assert_eq!(text, expected);
        // Every table row places the message at the same display column.
        for l in lines.iter().filter(|l| l.round.is_some()) {
            let row = text
                .lines()
                .find(|r| r.ends_with(&l.message) && r.starts_with(' '))
                .unwrap();
            let prefix = row.strip_suffix(l.message.as_str()).unwrap();
            assert_eq!(prefix.width(), "Round  Combattant   ".width(), "{row}");
        }
    }

    #[test]
    fn transcript_english_title_and_header() {
        let text = render_transcript(&[log(Some(1), Some("a"), "m")], Lang::En);
        assert_eq!(
            text,
            "=== Transcript of the first combat ===\n\
             Round  Combatant  Message\n\
             -----  ---------  -------\n    \
             1  a          m\n"
        );
    }

    #[test]
    fn empty_transcript_has_header_only() {
        let text = render_transcript(&[], Lang::Fr);
        assert_eq!(
            text,
            "=== Déroulé du premier combat ===\nRound  Combattant  Message\n-----  ----------  -------\n"
        );
    }

    #[test]
    fn pad_uses_display_width() {
        assert_eq!(pad("é", 3, Align::Left), "é  ");
        assert_eq!(pad("日本", 5, Align::Right), " 日本");
        assert_eq!(pad("long", 2, Align::Left), "long");
    }

    #[test]
    fn json_report_has_everything() {
        let r = sample();
        let v: serde_json::Value = serde_json::from_str(&render_json(&r, false)).unwrap();
        assert_eq!(v["map"], "Arène d'essai");
        assert_eq!(v["runs"], 1000);
        assert_eq!(v["sides"][0]["wins"], 962);
        assert_eq!(v["sides"][1]["name"], "monsters");
        assert_eq!(v["draws"], 2);
        assert!((v["sides"][0]["sigma"].as_f64().unwrap() - 0.006046).abs() < 1e-5);
        assert_eq!(v["sides"][0]["band_3sigma"].as_array().unwrap().len(), 2);
        assert_eq!(v["sides"][0]["wilson_3sigma"].as_array().unwrap().len(), 2);
        assert_eq!(v["combatants"][1]["id"], "orc-2");
        assert_eq!(v["rng"], pf1e_engine::dice::RNG_VERSION);
        assert!(v.get("transcript").is_none());
        let v: serde_json::Value = serde_json::from_str(&render_json(&r, true)).unwrap();
        assert_eq!(v["transcript"][1]["actor"], "orc");
        assert_eq!(v["transcript"][0]["round"], serde_json::Value::Null);
    }
}
