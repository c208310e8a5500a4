//! Balance reports of a Monte Carlo batch — the GM's report: a text report in English (the
//! default) or in French with French typography ([`Typo`]), a JSON document, and the aligned
//! transcript table of the first combat.
//!
//! Text layout (English):
//!
//! ```text
//! === Balance report ===
//! Map: Caster hall
//! players: 4 combatants
//! monsters: 3 combatants
//! 1,000 combats simulated (seed 1, cap 100 rounds)
//! Encounter: monsters 3,200 XP (CR 7) = 3,200 XP, CR 7; for players (APL 4, average level 3.75 of 4 characters): epic (CR = APL +3)
//! Wins players: 93.2% (932) — 3σ band: [90.8%, 95.6%]
//! Wins monsters: 6.8% (68) — 3σ band: [4.4%, 9.2%]
//! Draws: 0.0% (0)
//! Mean rounds: 9.7
//! Total party kill (players all unconscious or dead at the end): 6.8% (68) — Wilson 3σ: [4.7%, 9.8%]
//! All of players dead: …
//! ```
//!
//! then the mean attrition per combatant, the knocked-out and dead rates per combatant with
//! their Wilson 3σ intervals ([`fate_table`]), per side that won some combats the resources
//! its combatants had left at the end of those (hit points, spell slots, counted uses,
//! ammunition: mean, 10th percentile / median / 90th percentile, of the maximum —
//! [`resources_table`]), and a last line naming the RNG stack
//! ([`pf1e_engine::dice::RNG_VERSION`]) and the engine version. The encounter line (XP, CR,
//! APL and CRB difficulty) is [`crate::difficulty`]'s; "knocked out" is defined at
//! [`crate::montecarlo::EndState`], the total party kill at
//! [`crate::montecarlo::PartySummary`].
//!
//! Column widths are display widths ([`unicode_width`]): accented letters count 1, CJK 2.

use crate::difficulty::EncounterDifficulty;
use crate::montecarlo::{BatchResult, CombatantSummary, PartySummary, ResourcesLeft};
use pf1e_engine::episode::LogLine;
use serde::Serialize;
use unicode_width::UnicodeWidthStr;

/// Version of the engine crate stamped into reports (the workspace version shared by
/// `pf1e-engine` and this crate).
pub const ENGINE_VERSION: &str = pf1e_engine::VERSION;

/// Language of the text report and transcript headers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, clap::ValueEnum)]
pub enum Lang {
    /// English (the default).
    #[default]
    En,
    /// French (the seed's language), with French typography (see [`Typo`]).
    Fr,
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

/// A proportion as a percentage with one decimal, English typography: `0.962` → `96.2%`.
pub fn percent(p: f64) -> String {
    format!("{:.1}%", p * 100.0)
}

/// No-break space (U+00A0): French typography puts one before `:` and inside « ».
pub const NBSP: char = '\u{a0}';
/// Narrow no-break space (U+202F): French typography puts one before `;`, `!`, `?` and `%`,
/// and between thousands.
pub const NNBSP: char = '\u{202f}';

/// Typography and words of a language for the text reports.
///
/// - English: `Map: X`, `55.6%`, `[50.9%, 60.3%]`, `1,000`.
/// - French (Imprimerie nationale's rules): `Carte\u{a0}: X` (no-break space before the
///   colon), `55,6\u{202f}%` (decimal comma, narrow no-break space before `%`),
///   `[50,9\u{202f}% ; 60,3\u{202f}%]` (an interval of decimal-comma numbers is separated by a
///   semicolon, itself after a narrow no-break space), `1\u{202f}000`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Typo(pub Lang);

impl Typo {
    /// Whether French.
    pub fn fr(self) -> bool {
        self.0 == Lang::Fr
    }

    /// `en` or `fr`, as the language asks.
    pub fn pick<'a>(self, en: &'a str, fr: &'a str) -> &'a str {
        if self.fr() {
            fr
        } else {
            en
        }
    }

    /// `label: value` with the language's colon.
    pub fn field(self, label: &str, value: impl std::fmt::Display) -> String {
        if self.fr() {
            format!("{label}{NBSP}: {value}")
        } else {
            format!("{label}: {value}")
        }
    }

    /// `x` with `decimals` decimals and the language's decimal separator.
    pub fn num(self, x: f64, decimals: usize) -> String {
        let s = format!("{x:.decimals$}");
        if self.fr() {
            s.replace('.', ",")
        } else {
            s
        }
    }

    /// An integer with thousands separators (`,` in English, a narrow no-break space in
    /// French).
    pub fn int(self, n: impl Into<i128>) -> String {
        let n: i128 = n.into();
        let digits = n.unsigned_abs().to_string();
        let sep = if self.fr() { NNBSP } else { ',' };
        let mut out = String::new();
        for (i, c) in digits.chars().enumerate() {
            if i > 0 && (digits.len() - i).is_multiple_of(3) {
                out.push(sep);
            }
            out.push(c);
        }
        if n < 0 {
            format!("-{out}")
        } else {
            out
        }
    }

    /// A proportion as a percentage with one decimal: `96.2%` / `96,2 %`.
    pub fn pct(self, p: f64) -> String {
        if self.fr() {
            format!("{}{NNBSP}%", self.num(p * 100.0, 1))
        } else {
            percent(p)
        }
    }

    /// An interval of proportions: `[94.4%, 98.0%]` / `[94,4 % ; 98,0 %]`.
    pub fn interval(self, [lo, hi]: [f64; 2]) -> String {
        if self.fr() {
            format!("[{}{NNBSP}; {}]", self.pct(lo), self.pct(hi))
        } else {
            format!("[{}, {}]", self.pct(lo), self.pct(hi))
        }
    }

    /// Quoted text: `"x"` / `«\u{a0}x\u{a0}»`.
    pub fn quote(self, text: &str) -> String {
        if self.fr() {
            format!("«{NBSP}{text}{NBSP}»")
        } else {
            format!("\"{text}\"")
        }
    }
}

/// Render the text balance report (see the module documentation for the layout). Every line
/// ends with `\n`.
pub fn render_text(result: &BatchResult, lang: Lang) -> String {
    let t = Typo(lang);
    let fr = t.fr();
    let mut out = String::new();
    let mut line = |s: String| {
        out.push_str(&s);
        out.push('\n');
    };
    line(
        t.pick("=== Balance report ===", "=== Rapport d'équilibrage ===")
            .into(),
    );
    line(t.field(t.pick("Map", "Carte"), escape_controls(&result.map_name)));
    for side in &result.sides {
        let noun = match (side.combatants == 1, fr) {
            (true, false) => "combatant",
            (false, false) => "combatants",
            (true, true) => "combattant",
            (false, true) => "combattants",
        };
        let tactics = match &side.tactics {
            None => String::new(),
            Some(x) => format!(
                ", {} {}",
                t.pick("tactics", "tactique"),
                t.quote(&escape_controls(x))
            ),
        };
        line(t.field(
            &escape_controls(&side.name),
            format!("{} {noun}{tactics}", side.combatants),
        ));
    }
    let smd = if result.simple_monster_death {
        t.pick(", simple monster death", ", mort simplifiée des monstres")
    } else {
        ""
    };
    line(if fr {
        format!(
            "{} combats simulés (graine {}, plafond de {} rounds{smd})",
            t.int(result.runs),
            result.seed,
            t.int(result.round_cap)
        )
    } else {
        format!(
            "{} combats simulated (seed {}, cap {} rounds{smd})",
            t.int(result.runs),
            result.seed,
            t.int(result.round_cap)
        )
    });
    line(encounter_line(result, t));
    for side in &result.sides {
        let w = &side.wins;
        line(format!(
            "{} — {}",
            t.field(
                &format!(
                    "{} {}",
                    t.pick("Wins", "Victoires"),
                    escape_controls(&side.name)
                ),
                format!("{} ({})", t.pct(w.rate), t.int(w.count))
            ),
            t.field(t.pick("3σ band", "bande 3σ"), t.interval(w.band_3sigma))
        ));
    }
    line(t.field(
        t.pick("Draws", "Nuls"),
        format!(
            "{} ({})",
            t.pct(result.draws.rate),
            t.int(result.draws.count)
        ),
    ));
    line(t.field(
        t.pick("Mean rounds", "Rounds moyens"),
        t.num(result.mean_rounds, 1),
    ));
    if let Some(p) = &result.party {
        let name = escape_controls(&p.side);
        for (rate, en, fr_label) in [
            (
                &p.tpk,
                format!("Total party kill ({name} all unconscious or dead at the end)"),
                format!("Groupe entièrement hors de combat ({name} tous inconscients ou morts à la fin)"),
            ),
            (
                &p.all_dead,
                format!("All of {name} dead"),
                format!("Tous les {name} morts"),
            ),
        ] {
            line(format!(
                "{} — {}",
                t.field(
                    t.pick(&en, &fr_label),
                    format!("{} ({})", t.pct(rate.rate), t.int(rate.count))
                ),
                t.field("Wilson 3σ", t.interval(rate.wilson_3sigma))
            ));
        }
    }
    line(String::new());
    out.push_str(&heading(
        t,
        t.pick(
            "Mean attrition per combatant (hits, crits, damage dealt, damage taken)",
            "Attrition moyenne par combattant (touches, critiques, dégâts infligés, dégâts subis)",
        ),
    ));
    out.push_str(&attrition_table(&result.combatants, lang));
    out.push('\n');
    out.push_str(&heading(
        t,
        t.pick(
            "Knocked out (unconscious or dead at some point) and dead at the end, with Wilson 3σ intervals",
            "Hors de combat (inconscient ou mort à un moment) et mort à la fin, avec intervalles de Wilson 3σ",
        ),
    ));
    out.push_str(&fate_table(&result.combatants, lang));
    for side in result.sides.iter().filter(|s| s.wins.count > 0) {
        out.push('\n');
        let head = if fr {
            format!(
                "Ressources restantes à la fin des {} combats gagnés par {} (moyenne, puis 10e centile / médiane / 90e centile, sur le maximum)",
                t.int(side.wins.count),
                escape_controls(&side.name)
            )
        } else {
            format!(
                "Resources left at the end of the {} combats won by {} (mean, then 10th percentile / median / 90th percentile, of the maximum)",
                t.int(side.wins.count),
                escape_controls(&side.name)
            )
        };
        out.push_str(&heading(t, &head));
        out.push_str(&resources_table(&side.resources_when_won, lang));
    }
    out.push('\n');
    out.push_str(&t.field(
        t.pick("RNG", "Générateur aléatoire"),
        format!(
            "{} — {} pf1e-engine {}\n",
            pf1e_engine::dice::RNG_VERSION,
            t.pick("engine", "moteur"),
            ENGINE_VERSION
        ),
    ));
    out
}

/// A heading line: `text:` with the language's colon, ending with `\n`.
fn heading(t: Typo, text: &str) -> String {
    let mut s = t.field(text, "");
    s.truncate(s.trim_end_matches(' ').len());
    s.push('\n');
    s
}

/// The encounter line: each side's XP and CR, and for a party the APL and the difficulty
/// (CRB Tables 12-1 and 12-2; see [`crate::difficulty`]).
fn encounter_line(result: &BatchResult, t: Typo) -> String {
    let d = &result.difficulty;
    let cr = |c: &Option<String>| {
        match c {
            Some(c) => format!("CR {c}"),
            None => t.pick("below CR 1/8", "sous FP 1/8").to_string(),
        }
        .replace("CR ", t.pick("CR ", "FP "))
    };
    let side_text = |s: &crate::difficulty::SideXp| {
        let unknown = match (s.unknown, t.fr()) {
            (0, _) => String::new(),
            (k, false) => format!(", {k} without xp"),
            (k, true) => format!(", {k} sans PX"),
        };
        format!(
            "{} {} {} ({}{unknown})",
            escape_controls(&s.side),
            t.int(s.xp),
            t.pick("XP", "PX"),
            cr(&s.cr)
        )
    };
    let label = t.pick("Encounter", "Rencontre");
    match (&d.party, d.enemy_xp, d.difficulty) {
        (Some(p), Some(xp), Some(diff)) => {
            let enemies: Vec<String> = d
                .sides
                .iter()
                .filter(|s| s.side != p.side)
                .map(side_text)
                .collect();
            if t.fr() {
                t.field(
                    label,
                    format!(
                        "{} = {} PX, {}{NNBSP}; pour {} (NGM {}, niveau moyen {} sur {} personnages){NBSP}: {} (FP = NGM {:+})",
                        enemies.join(" + "),
                        t.int(xp),
                        cr(&d.cr),
                        escape_controls(&p.side),
                        p.apl,
                        t.num(p.average_level, 2),
                        p.members,
                        diff.french(),
                        cr_offset(d, p.apl)
                    ),
                )
            } else {
                t.field(
                    label,
                    format!(
                        "{} = {} XP, {}; for {} (APL {}, average level {} of {} characters): {} (CR = APL {:+})",
                        enemies.join(" + "),
                        t.int(xp),
                        cr(&d.cr),
                        escape_controls(&p.side),
                        p.apl,
                        t.num(p.average_level, 2),
                        p.members,
                        diff.english(),
                        cr_offset(d, p.apl)
                    ),
                )
            }
        }
        (Some(p), _, _) => {
            // A party, but opponents without XP (player characters on both sides, creatures
            // without `xp`): the APL, no CR of the encounter, so no difficulty.
            let sides: Vec<String> = d.sides.iter().map(side_text).collect();
            let why = if t.fr() {
                format!(
                    "{} : NGM {}, mais les adversaires n'ont pas de PX, donc ni FP de la rencontre ni difficulté",
                    escape_controls(&p.side),
                    p.apl
                )
                .replacen(" :", &format!("{NBSP}:"), 1)
            } else {
                format!(
                    "{}: APL {}, but the opponents have no XP, so no encounter CR nor difficulty",
                    escape_controls(&p.side),
                    p.apl
                )
            };
            t.field(label, format!("{} ({why})", sides.join(", ")))
        }
        _ => {
            let sides: Vec<String> = d.sides.iter().map(side_text).collect();
            let none = t.pick(
                "no player character, so no APL nor difficulty",
                "aucun personnage joueur, donc ni NGM ni difficulté",
            );
            t.field(label, format!("{} ({none})", sides.join(", ")))
        }
    }
}

/// `encounter CR − APL` (fractional CRs count as 0).
fn cr_offset(d: &crate::difficulty::EncounterDifficulty, apl: i64) -> i64 {
    d.cr.as_deref().map_or(0, |c| c.parse::<i64>().unwrap_or(0)) - apl
}

/// The knocked-out / dead table: per deployed combatant, the rate, count and Wilson 3σ
/// interval of each.
pub fn fate_table(combatants: &[CombatantSummary], lang: Lang) -> String {
    let t = Typo(lang);
    let headers: [&str; 6] = if t.fr() {
        [
            "Combattant",
            "Camp",
            "Hors de combat",
            "Wilson 3σ",
            "Mort",
            "Wilson 3σ",
        ]
    } else {
        [
            "Combatant",
            "Side",
            "Knocked out",
            "Wilson 3σ",
            "Dead",
            "Wilson 3σ",
        ]
    };
    let rows: Vec<TableLine> = combatants
        .iter()
        .filter(|c| !c.summon_slot)
        .map(|c| {
            TableLine::Row(vec![
                escape_controls(&c.id).into_owned(),
                escape_controls(&c.side).into_owned(),
                t.pct(c.knocked_out.rate),
                t.interval(c.knocked_out.wilson_3sigma),
                t.pct(c.dead.rate),
                t.interval(c.dead.wilson_3sigma),
            ])
        })
        .collect();
    render_table(
        &headers,
        &[
            Align::Left,
            Align::Left,
            Align::Right,
            Align::Left,
            Align::Right,
            Align::Left,
        ],
        &rows,
    )
}

/// The resources table of one side's wins: hit points, spell slots, counted uses and
/// ammunition left, each `mean (p10/p50/p90) / max`; `—` for a resource it never had.
pub fn resources_table(rows: &[crate::montecarlo::ResourcesLeft], lang: Lang) -> String {
    let t = Typo(lang);
    let headers: [&str; 5] = if t.fr() {
        [
            "Combattant",
            "Points de vie",
            "Emplacements de sorts",
            "Utilisations (sorts préparés, pouvoirs)",
            "Munitions",
        ]
    } else {
        [
            "Combatant",
            "Hit points",
            "Spell slots",
            "Uses (prepared spells, spell-like)",
            "Ammunition",
        ]
    };
    let cell = |d: &crate::montecarlo::Distribution, max: i64| {
        if max == 0 {
            "—".to_string()
        } else {
            format!(
                "{} ({}/{}/{}) / {}",
                t.num(d.mean, 1),
                d.p10,
                d.p50,
                d.p90,
                t.int(max)
            )
        }
    };
    let lines: Vec<TableLine> = rows
        .iter()
        .map(|r| {
            TableLine::Row(vec![
                escape_controls(&r.id).into_owned(),
                cell(&r.hp, i64::from(r.hp_max)),
                cell(&r.spell_slots, i64::from(r.spell_slots_max)),
                cell(&r.uses, i64::from(r.uses_max)),
                cell(&r.ammo, i64::from(r.ammo_max)),
            ])
        })
        .collect();
    render_table(
        &headers,
        &[
            Align::Left,
            Align::Right,
            Align::Right,
            Align::Right,
            Align::Right,
        ],
        &lines,
    )
}

/// The attrition table: id, side, mean hits, crits (two decimals), damage dealt and taken
/// (one decimal, hit points).
pub fn attrition_table(combatants: &[CombatantSummary], lang: Lang) -> String {
    let t = Typo(lang);
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
                t.num(c.mean_hits, 2),
                t.num(c.mean_crits, 2),
                t.num(c.mean_damage_dealt, 1),
                t.num(c.mean_damage_taken, 1),
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
    /// What its combatants had left at the end of the combats it won (hit points, spell
    /// slots, counted uses, ammunition: mean and percentiles, with the maximum).
    pub resources_when_won: Vec<ResourcesLeft>,
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
    /// Mean attrition per combatant (hit points for damage), with the knocked-out and dead
    /// rates (count, rate, σ, 3σ band, Wilson 3σ interval).
    pub combatants: Vec<CombatantSummary>,
    /// The party's total-party-kill and all-dead rates (absent without a player character).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub party: Option<PartySummary>,
    /// XP and CR per side, the party's APL, the encounter's CR and difficulty.
    pub encounter: EncounterDifficulty,
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
                    resources_when_won: s.resources_when_won.clone(),
                })
                .collect(),
            draws: result.draws.count,
            draw_rate: result.draws.rate,
            truncated: result.truncated,
            mean_rounds: result.mean_rounds,
            combatants: result.combatants.clone(),
            party: result.party.clone(),
            encounter: result.difficulty.clone(),
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
    use crate::montecarlo::{Distribution, SideSummary, WinRate};

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
                    resources_when_won: vec![ResourcesLeft {
                        id: "goblin".into(),
                        runs: 962,
                        hp_max: 6,
                        hp: Distribution::of(vec![1, 2, 6, 6]),
                        spell_slots_max: 0,
                        spell_slots: Distribution::of(vec![]),
                        uses_max: 0,
                        uses: Distribution::of(vec![]),
                        ammo_max: 20,
                        ammo: Distribution::of(vec![18, 19, 20, 17]),
                    }],
                },
                SideSummary {
                    name: "monsters".into(),
                    combatants: 2,
                    wins: WinRate::new(36, 1000),
                    tactics: None,
                    resources_when_won: vec![],
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
                    knocked_out: WinRate::new(250, 1000),
                    dead: WinRate::new(100, 1000),
                    summon_slot: false,
                },
                CombatantSummary {
                    id: "orc-2".into(),
                    side: "monsters".into(),
                    mean_attacks: 4.0,
                    mean_hits: 1.0,
                    mean_crits: 0.0,
                    mean_damage_dealt: 12.0,
                    mean_damage_taken: 14.25,
                    knocked_out: WinRate::new(900, 1000),
                    dead: WinRate::new(0, 1000),
                    summon_slot: false,
                },
            ],
            party: Some(PartySummary {
                side: "players".into(),
                members: 3,
                tpk: WinRate::new(38, 1000),
                all_dead: WinRate::new(5, 1000),
            }),
            difficulty: crate::difficulty::EncounterDifficulty {
                sides: vec![
                    crate::difficulty::SideXp {
                        side: "players".into(),
                        xp: 1200,
                        cr: Some("4".into()),
                        unknown: 0,
                    },
                    crate::difficulty::SideXp {
                        side: "monsters".into(),
                        xp: 1600,
                        cr: Some("5".into()),
                        unknown: 1,
                    },
                ],
                party: Some(crate::difficulty::PartyLevel {
                    side: "players".into(),
                    members: 3,
                    average_level: 4.0,
                    apl: 3,
                }),
                enemy_xp: Some(1600),
                cr: Some("5".into()),
                difficulty: Some(crate::difficulty::Difficulty::Hard),
            },
            first_transcript: vec![
                log(None, None, "initiative: orc d20=19+0=19"),
                log(Some(1), Some("orc"), "move (1,15)->(2,14)"),
            ],
            records: vec![],
        }
    }

    /// The French report: the seed's layout, every fixed word French, French typography
    /// (no-break space before `:`, narrow no-break space before `%` and `;`, decimal comma).
    #[test]
    fn french_report_matches_seed_layout() {
        let text = render_text(&sample(), Lang::Fr);
        let expected_head = "=== Rapport d'équilibrage ===\n\
            Carte\u{a0}: Arène d'essai\n\
            players\u{a0}: 3 combattants\n\
            monsters\u{a0}: 2 combattants\n\
            1\u{202f}000 combats simulés (graine 1, plafond de 100 rounds)\n\
            Rencontre\u{a0}: monsters 1\u{202f}600 PX (FP 5, 1 sans PX) = 1\u{202f}600 PX, FP 5\u{202f}; \
            pour players (NGM 3, niveau moyen 4,00 sur 3 personnages)\u{a0}: très difficile (FP = NGM +2)\n\
            Victoires players\u{a0}: 96,2\u{202f}% (962) — bande 3σ\u{a0}: [94,4\u{202f}%\u{202f}; 98,0\u{202f}%]\n\
            Victoires monsters\u{a0}: 3,6\u{202f}% (36) — bande 3σ\u{a0}: [1,8\u{202f}%\u{202f}; 5,4\u{202f}%]\n\
            Nuls\u{a0}: 0,2\u{202f}% (2)\n\
            Rounds moyens\u{a0}: 6,6\n\
            Groupe entièrement hors de combat (players tous inconscients ou morts à la fin)\u{a0}: 3,8\u{202f}% (38) — Wilson 3σ\u{a0}: [";
        assert!(text.starts_with(expected_head), "{text}");
        let table = "\
Combattant  Camp      Touches  Critiques  Dégâts infligés  Dégâts subis
----------  --------  -------  ---------  ---------------  ------------
goblin      players      2,35       0,12              9,9           3,0
orc-2       monsters     1,00       0,00             12,0          14,2
";
        assert!(text.contains(table), "{text}");
        assert!(
            text.contains("goblin      players           25,0\u{202f}%  [21,"),
            "{text}"
        );
        assert!(text.contains("Ressources restantes à la fin des 962 combats gagnés par players"));
        assert!(text.contains("goblin      3,8 (1/2/6) / 6"), "{text}");
        assert!(text.ends_with(&format!(
            "\nGénérateur aléatoire\u{a0}: {} — moteur pf1e-engine {}\n",
            pf1e_engine::dice::RNG_VERSION,
            ENGINE_VERSION
        )));
        assert_french_typography(&text);
    }

    /// No English word of the English report's fixed text, no ASCII space before `:` `;`
    /// `%`, no decimal point.
    fn assert_french_typography(text: &str) {
        for (i, l) in text.lines().enumerate() {
            for bad in [" :", " ;", " %", "%,", " !", " ?"] {
                assert!(!l.contains(bad), "line {i} has {bad:?}: {l:?}");
            }
            for (k, c) in l.char_indices() {
                if matches!(c, ':' | ';' | '%') && k > 0 {
                    let before = l[..k].chars().next_back().unwrap();
                    assert!(
                        before == '\u{a0}'
                            || before == '\u{202f}'
                            || c == ':' && !before.is_whitespace() && l[k..].starts_with("://"),
                        "line {i}: {c} not after a no-break space: {l:?}"
                    );
                }
            }
            let digits: Vec<char> = l.chars().collect();
            for w in digits.windows(3) {
                assert!(
                    !(w[0].is_ascii_digit() && w[1] == '.' && w[2].is_ascii_digit())
                        || l.contains("ChaCha8Rng"),
                    "line {i} has a decimal point: {l:?}"
                );
            }
        }
        for english in [
            "Balance",
            "Map",
            "Wins",
            "Draws",
            "Mean",
            "combatants",
            "simulated",
            "seed",
            "Side",
            "Hits",
            "Damage",
            "Knocked",
            "Dead",
            "Resources",
            "Hit points",
            "engine",
            "Encounter",
            "party",
        ] {
            let l = text
                .lines()
                .find(|l| l.contains(english) && !l.contains("ChaCha8Rng"));
            assert!(
                l.is_none(),
                "English {english:?} in the French report: {l:?}"
            );
        }
    }

    #[test]
    fn english_report() {
        let mut r = sample();
        r.simple_monster_death = true;
        let text = render_text(&r, Lang::En);
        for needle in [
            "=== Balance report ===\n",
            "Map: Arène d'essai\n",
            "players: 3 combatants\n",
            "1,000 combats simulated (seed 1, cap 100 rounds, simple monster death)\n",
            "Encounter: monsters 1,600 XP (CR 5, 1 without xp) = 1,600 XP, CR 5; for players (APL 3, average level 4.00 of 3 characters): hard (CR = APL +2)\n",
            "Wins players: 96.2% (962) — 3σ band: [94.4%, 98.0%]\n",
            "Draws: 0.2% (2)\n",
            "Mean rounds: 6.6\n",
            "Total party kill (players all unconscious or dead at the end): 3.8% (38) — Wilson 3σ: [",
            "All of players dead: 0.5% (5) — Wilson 3σ: [",
            "Mean attrition per combatant (hits, crits, damage dealt, damage taken):\n",
            "Combatant  Side      Hits  Crits  Damage dealt  Damage taken\n",
            "Knocked out (unconscious or dead at some point) and dead at the end, with Wilson 3σ intervals:\n",
            "Resources left at the end of the 962 combats won by players (mean, then 10th percentile / median / 90th percentile, of the maximum):\n",
            "Combatant       Hit points  Spell slots  Uses (prepared spells, spell-like)            Ammunition\n",
            "goblin     3.8 (1/2/6) / 6            —                                   —  18.5 (17/18/20) / 20\n",
            "RNG: ",
            "— engine pf1e-engine",
        ] {
            assert!(text.contains(needle), "missing {needle:?} in\n{text}");
        }
        assert!(!text.contains("Victoires"));
        assert!(!text.contains(" :"), "{text}");
        assert!(
            !text.contains('\u{a0}') && !text.contains('\u{202f}'),
            "{text}"
        );
        // A party whose opponents have no XP: the APL, no difficulty (not "no player
        // character").
        let mut pvp = r.clone();
        pvp.difficulty.enemy_xp = Some(0);
        pvp.difficulty.cr = None;
        pvp.difficulty.difficulty = None;
        let text = render_text(&pvp, Lang::En);
        assert!(
            text.contains("but the opponents have no XP, so no encounter CR nor difficulty)\n")
                && !text.contains("no player character"),
            "{text}"
        );
        let text = render_text(&pvp, Lang::Fr);
        assert!(
            text.contains("\u{a0}: NGM ") && text.contains("ni FP de la rencontre ni difficulté)"),
            "{text}"
        );
        // Without a player character: each side's XP and CR, no APL.
        r.party = None;
        r.difficulty.party = None;
        r.difficulty.difficulty = None;
        let text = render_text(&r, Lang::En);
        assert!(text.contains("Encounter: players 1,200 XP (CR 4), monsters 1,600 XP (CR 5, 1 without xp) (no player character, so no APL nor difficulty)\n"), "{text}");
        assert!(!text.contains("Total party kill"));
    }

    /// Nearest-rank percentiles.
    #[test]
    fn distribution_percentiles() {
        let d = Distribution::of((1..=10).rev().collect());
        assert_eq!((d.min, d.p10, d.p50, d.p90, d.max), (1, 1, 5, 9, 10));
        assert!((d.mean - 5.5).abs() < 1e-12);
        let d = Distribution::of(vec![7]);
        assert_eq!((d.min, d.p10, d.p50, d.p90, d.max), (7, 7, 7, 7, 7));
        assert_eq!(Distribution::of(vec![]).max, 0);
    }

    #[test]
    fn typography_of_numbers() {
        let (en, fr) = (Typo(Lang::En), Typo(Lang::Fr));
        assert_eq!(en.int(1_234_567u32), "1,234,567");
        assert_eq!(fr.int(1_234_567u32), "1\u{202f}234\u{202f}567");
        assert_eq!(en.int(-1000i32), "-1,000");
        assert_eq!(en.int(999u32), "999");
        assert_eq!(fr.pct(0.5), "50,0\u{202f}%");
        assert_eq!(
            fr.interval([0.1, 0.2]),
            "[10,0\u{202f}%\u{202f}; 20,0\u{202f}%]"
        );
        assert_eq!(fr.quote("x"), "«\u{a0}x\u{a0}»");
        assert_eq!(fr.field("a", 1), "a\u{a0}: 1");
        assert_eq!(en.field("a", 1), "a: 1");
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
