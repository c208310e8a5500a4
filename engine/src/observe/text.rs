//! The text rendering of a decision for a language model (issue 13, P8): what a model reads.
//!
//! [`render`] (or [`Episode::text_observation`]) writes, in this order and compactly (a
//! model's context is the budget):
//! 1. a header: the round, who decides, the kind of decision (turn action, attack of
//!    opportunity, readied trigger, step up) with what it offers, and the decider's budget;
//! 2. the initiative order (by letter);
//! 3. the map as a character grid, rows and columns numbered (0-based, the engine's
//!    `(row, col)`: row = line from the top, col = character from the left; one square is
//!    5 ft), and its legend: each terrain character present with its type and its rules
//!    (impassable, difficult ×cost, blocks sight, cover +N) from the map's own legend;
//!    combatants by letter (**uppercase: the viewer's side, lowercase: the others**; a
//!    multi-square creature fills its footprint; the dead and absent are not drawn; a
//!    conscious creature shows over an unconscious one whose square it crosses); the
//!    squares threatened by the viewer's enemies (`*`, or the first of `!+x` not used by the
//!    terrain); persistent spell areas (`%`, or the first of `&$=` free). Priority on a
//!    square: combatant > spell area > threat > terrain; walls and other impassable squares
//!    keep their terrain character. When the map has elevation, a second grid gives the
//!    levels of the rows that have some (digits, `.` = 0; the rows not listed are all 0);
//! 4. one status line per combatant (letter, id, side, life state, size when not Medium,
//!    hp/hp_max, AC/touch/flat-footed, position, reach in feet, conditions with rounds left
//!    in parentheses, what it wields with ammunition left, spell effects on it, spells by level with casts left and
//!    slots left per level, and the states that matter: readied, delayed, grappling…);
//! 5. the results of the last step (kind, `ok` or the reason code and its detail);
//! 6. the legal actions, one per line, `[id] label`: ids are the action-space ids and the
//!    labels are exactly [`crate::episode::LegalAction::label`] — what a model writes back.
//!
//! Languages ([`Lang`]): English and French. Every fixed word (headers, legend, life states,
//! condition names) is translated; the French condition names are those of the French
//! Pathfinder rules (Black Book Éditions: `prone` → `à terre`, `shaken` → `secoué`…). Data
//! stays as it is in both languages: combatant ids, side names, weapon and spell names,
//! terrain type names (they come from the data files), reason codes and action labels.
//!
//! Combatant letters are assigned in combatant list order, skipping letters whose either
//! case is a terrain character of the map (so `C` pillar and a combatant never collide);
//! after the letters come the digits 1–9; a 36th combatant and beyond get `?` (still listed
//! by id in the status lines).
//!
//! **Compact mode and a token budget** ([`TextOptions`], [`render_opts`]): [`TextMode::Compact`]
//! folds the legal actions whose labels differ only by a trailing square into one line per
//! label (`move to (row,col): 1: 1,3-8 | 2: 1-8`), losslessly — every legal action is still
//! written and reachable by its exact label; a budget in tokens (estimated from characters)
//! steps full → compact → compact without the map grids, never dropping a legal action
//! (docs/text-observation.md).
//!
//! Deterministic: the same episode renders to the same text (no hash-map order anywhere).
use crate::actions::{ActionResult, CombatantId};
use crate::episode::{DecisionKind, Episode, LegalAction};
use crate::observe::observation::{CombatantObs, Observation};
use std::collections::BTreeMap;
use std::fmt::Write as _;

/// The language of a text observation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Lang {
    /// English (`en`, the default).
    #[default]
    En,
    /// French (`fr`).
    Fr,
}

impl Lang {
    /// Every language, in order.
    pub const ALL: [Lang; 2] = [Lang::En, Lang::Fr];

    /// The code (`en`, `fr`).
    pub fn code(self) -> &'static str {
        match self {
            Lang::En => "en",
            Lang::Fr => "fr",
        }
    }
}

/// Error of [`Lang::from_str`]: the code is not a supported language.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown language `{0}`: expected `en` or `fr`")]
pub struct UnknownLang(pub String);

impl std::str::FromStr for Lang {
    type Err = UnknownLang;

    /// `en` or `fr` (exactly, lowercase).
    fn from_str(s: &str) -> Result<Lang, UnknownLang> {
        match s {
            "en" => Ok(Lang::En),
            "fr" => Ok(Lang::Fr),
            other => Err(UnknownLang(other.to_string())),
        }
    }
}

/// The fixed words of one language.
struct Words {
    round: &'static str,
    surprise: &'static str,
    decides: &'static str,
    over: &'static str,
    winner: &'static str,
    draw: &'static str,
    turn_action: &'static str,
    aoo: &'static str,
    provoked_by: &'static str,
    weapons: &'static str,
    stand_still: &'static str,
    readied_trigger: &'static str,
    triggered_by: &'static str,
    readied: &'static str,
    step_up: &'static str,
    stepped_away: &'static str,
    budget: &'static str,
    standard: &'static str,
    move_: &'static str,
    swift: &'static str,
    full_round: &'static str,
    five_foot_step: &'static str,
    none: &'static str,
    initiative: &'static str,
    map: &'static str,
    map_note: &'static str,
    legend: &'static str,
    impassable: &'static str,
    difficult: &'static str,
    blocks_sight: &'static str,
    cover: &'static str,
    threatened: &'static str,
    spell_area: &'static str,
    caster: &'static str,
    rounds_left: &'static str,
    concealment: &'static str,
    elevation: &'static str,
    combatants: &'static str,
    letters_note: &'static str,
    hp: &'static str,
    ac: &'static str,
    at: &'static str,
    reach: &'static str,
    wields: &'static str,
    ammo: &'static str,
    broken: &'static str,
    dropped: &'static str,
    destroyed: &'static str,
    sheathed: &'static str,
    conditions: &'static str,
    effects: &'static str,
    spells: &'static str,
    at_will: &'static str,
    slots: &'static str,
    conscious: &'static str,
    disabled: &'static str,
    dying: &'static str,
    stable: &'static str,
    dead: &'static str,
    absent: &'static str,
    grappling: &'static str,
    delayed: &'static str,
    casting: &'static str,
    holding: &'static str,
    images: &'static str,
    summoned: &'static str,
    toggles: &'static str,
    results: &'static str,
    ok: &'static str,
    refused: &'static str,
    actions: &'static str,
    actions_compact: &'static str,
    map_omitted: &'static str,
}

static EN: Words = Words {
    round: "Round",
    surprise: "surprise round",
    decides: "decides",
    over: "Combat over",
    winner: "winner",
    draw: "draw",
    turn_action: "turn action",
    aoo: "attack of opportunity",
    provoked_by: "provoked by",
    weapons: "weapons",
    stand_still: "stand still possible",
    readied_trigger: "readied action triggered",
    triggered_by: "by",
    readied: "readied",
    step_up: "step up",
    stepped_away: "stepped away",
    budget: "Budget",
    standard: "standard",
    move_: "move",
    swift: "swift",
    full_round: "full-round",
    five_foot_step: "5-foot step",
    none: "none",
    initiative: "Initiative",
    map: "Map",
    map_note: "rows top to bottom, cols left to right, 0-based (row, col); 1 square = 5 ft",
    legend: "Legend",
    impassable: "impassable",
    difficult: "difficult",
    blocks_sight: "blocks sight",
    cover: "cover",
    threatened: "square threatened by your enemies",
    spell_area: "spell area",
    caster: "caster",
    rounds_left: "rounds left",
    concealment: "concealment",
    elevation: "Elevation (levels; . and rows not listed = 0)",
    combatants: "Combatants",
    letters_note: "UPPERCASE = your side, lowercase = others; (n) = rounds left",
    hp: "hp",
    ac: "AC/touch/flat",
    at: "at",
    reach: "reach",
    wields: "wields",
    ammo: "ammo",
    broken: "broken",
    dropped: "dropped",
    destroyed: "destroyed",
    sheathed: "sheathed",
    conditions: "conditions",
    effects: "effects",
    spells: "spells",
    at_will: "at will",
    slots: "slots left",
    conscious: "conscious",
    disabled: "disabled",
    dying: "dying",
    stable: "stable",
    dead: "dead",
    absent: "absent",
    grappling: "grappling",
    delayed: "delayed",
    casting: "casting",
    holding: "holding the charge of",
    images: "mirror images",
    summoned: "summoned by",
    toggles: "on",
    results: "Last results",
    ok: "ok",
    refused: "refused",
    actions: "Legal actions ([id] label; answer with an id or the exact label)",
    actions_compact: "Legal actions ([id] label; answer with the exact label; `LABEL (row,col): 1: 2,4-6 | 3: 5` = LABEL (1,2), (1,4) to (1,6), (3,5))",
    map_omitted: "Map omitted (token budget): positions are in the combatant lines",
};

static FR: Words = Words {
    round: "Round",
    surprise: "round de surprise",
    decides: "décide",
    over: "Combat terminé",
    winner: "vainqueur",
    draw: "match nul",
    turn_action: "action du tour",
    aoo: "attaque d'opportunité",
    provoked_by: "provoquée par",
    weapons: "armes",
    stand_still: "pas de côté bloquant (stand still) possible",
    readied_trigger: "action préparée déclenchée",
    triggered_by: "par",
    readied: "préparée",
    step_up: "pas de poursuite (step up)",
    stepped_away: "s'est éloigné d'un pas",
    budget: "Actions restantes",
    standard: "simple",
    move_: "mouvement",
    swift: "rapide",
    full_round: "complexe",
    five_foot_step: "pas de placement de 5 ft",
    none: "aucune",
    initiative: "Initiative",
    map: "Carte",
    map_note: "lignes de haut en bas, colonnes de gauche à droite, à partir de 0 (ligne, colonne) ; 1 case = 5 ft",
    legend: "Légende",
    impassable: "infranchissable",
    difficult: "difficile",
    blocks_sight: "bloque la vue",
    cover: "abri",
    threatened: "case menacée par vos ennemis",
    spell_area: "zone de sort",
    caster: "lanceur",
    rounds_left: "rounds restants",
    concealment: "camouflage",
    elevation: "Altitude (niveaux ; . et lignes absentes = 0)",
    combatants: "Combattants",
    letters_note: "MAJUSCULES = votre camp, minuscules = les autres ; (n) = rounds restants",
    hp: "pv",
    ac: "CA/contact/dépourvu",
    at: "en",
    reach: "allonge",
    wields: "armes",
    ammo: "munitions",
    broken: "brisée",
    dropped: "lâchée",
    destroyed: "détruite",
    sheathed: "rengainée",
    conditions: "états",
    effects: "effets",
    spells: "sorts",
    at_will: "à volonté",
    slots: "emplacements restants",
    conscious: "conscient",
    disabled: "hors de combat",
    dying: "mourant",
    stable: "stabilisé",
    dead: "mort",
    absent: "absent",
    grappling: "lutte avec",
    delayed: "action retardée",
    casting: "incante",
    holding: "garde la charge de",
    images: "images miroir",
    summoned: "convoqué par",
    toggles: "actif",
    results: "Derniers résultats",
    ok: "ok",
    refused: "refusée",
    actions: "Actions légales ([id] libellé ; répondez par un id ou le libellé exact)",
    actions_compact: "Actions légales ([id] libellé ; répondez par le libellé exact ; `LIBELLÉ (row,col): 1: 2,4-6 | 3: 5` = LIBELLÉ (1,2), (1,4) à (1,6), (3,5))",
    map_omitted: "Carte omise (budget de tokens) : les positions sont dans les lignes des combattants",
};

fn words(lang: Lang) -> &'static Words {
    match lang {
        Lang::En => &EN,
        Lang::Fr => &FR,
    }
}

/// A condition's name in `lang`: the engine's SRD name in English; the French rules' term
/// in French (unknown names stay as they are).
pub fn condition_name(name: &str, lang: Lang) -> &str {
    if lang == Lang::En {
        return name;
    }
    match name {
        "asleep" => "endormi",
        "bane" => "imprécation",
        "bleeding" => "hémorragie",
        "blinded" => "aveuglé",
        "blurred" => "flou",
        "charging" => "en charge",
        "confused" => "confus",
        "cowering" => "recroquevillé",
        "dazed" => "hébété",
        "dazzled" => "ébloui",
        "deafened" => "sourd",
        "disabled" => "hors de combat",
        "displaced" => "déplacé",
        "entangled" => "enchevêtré",
        "exhausted" => "épuisé",
        "fascinated" => "fasciné",
        "fatigued" => "fatigué",
        "flat_footed" => "pris au dépourvu",
        "frightened" => "effrayé",
        "grappled" => "agrippé",
        "helpless" => "sans défense",
        "invisible" => "invisible",
        "nauseated" => "nauséeux",
        "panicked" => "paniqué",
        "paralyzed" => "paralysé",
        "pinned" => "immobilisé",
        "prone" => "à terre",
        "shaken" => "secoué",
        "sickened" => "fiévreux",
        "staggered" => "chancelant",
        "stunned" => "étourdi",
        "unconscious" => "inconscient",
        other => other,
    }
}

/// The letters of the combatants (list order) for `obs`: see the module documentation.
fn letters(obs: &Observation, terrain: &[char], viewer_side: Option<&str>) -> Vec<char> {
    let mut pool = ('A'..='Z')
        .filter(|l| !terrain.contains(l) && !terrain.contains(&l.to_ascii_lowercase()))
        .chain(('1'..='9').filter(|d| !terrain.contains(d)));
    obs.combatants
        .iter()
        .map(|c| match pool.next() {
            Some(l) if Some(c.side.as_str()) == viewer_side => l,
            Some(l) => l.to_ascii_lowercase(),
            None => '?',
        })
        .collect()
}

/// The first candidate not used by the terrain (else the first).
fn marker(candidates: &[char], terrain: &[char]) -> char {
    candidates
        .iter()
        .copied()
        .find(|c| !terrain.contains(c))
        .unwrap_or(candidates[0])
}

/// The marker of threatened squares for a map whose terrain characters are `terrain`.
pub fn threat_marker(terrain: &[char]) -> char {
    marker(&['*', '!', '+', 'x'], terrain)
}

/// The marker of spell-area squares for a map whose terrain characters are `terrain`.
pub fn area_marker(terrain: &[char]) -> char {
    marker(&['%', '&', '$', '='], terrain)
}

/// Render the pending decision of `ep` (or its end) for `viewer` (the decision's actor when
/// `None`) in `lang`, with `results` as the last step's results (empty: no line). See the
/// module documentation for the content. Builds the observation and the legal actions; a
/// caller that already has both uses [`render_with`].
pub fn render(
    ep: &Episode,
    viewer: Option<CombatantId>,
    lang: Lang,
    results: &[ActionResult],
) -> String {
    let obs = ep.observation(viewer);
    let legal = ep.legal_actions();
    render_with(ep, &obs, &legal, lang, results)
}

/// [`render`] from an observation (`ep.observation(viewer)`) and the legal actions
/// (`ep.legal_actions()`) already built.
pub fn render_with(
    ep: &Episode,
    obs: &Observation,
    legal: &[LegalAction],
    lang: Lang,
    results: &[ActionResult],
) -> String {
    render_detail(ep, obs, legal, lang, results, Detail::Full)
}

/// How much a text observation says ([`TextOptions::mode`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum TextMode {
    /// Everything, every legal action on its own line (`full`, the default).
    #[default]
    Full,
    /// The same sections, but the legal actions that differ only by their square are folded
    /// into one line per label (`compact`): `move to (row,col): 1: 1,3-8 | 2: 1-8` stands for
    /// `move to (1,1)`, `move to (1,3)` … `move to (1,8)`, `move to (2,1)` … `move to (2,8)`.
    /// Lossless: every legal action is still written, and its exact label (what the server's
    /// `action_labels` take) is the group's label with the square. When folding saves nothing
    /// (its header is longer) the list is the full one: compact is never longer than full.
    Compact,
}

impl TextMode {
    /// Every mode, in order of detail.
    pub const ALL: [TextMode; 2] = [TextMode::Full, TextMode::Compact];

    /// The name (`full`, `compact`).
    pub fn name(self) -> &'static str {
        match self {
            TextMode::Full => "full",
            TextMode::Compact => "compact",
        }
    }
}

/// Error of [`TextMode::from_str`]: not a text mode.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("unknown text mode `{0}`: expected `full` or `compact`")]
pub struct UnknownTextMode(pub String);

impl std::str::FromStr for TextMode {
    type Err = UnknownTextMode;

    /// `full` or `compact` (exactly, lowercase).
    fn from_str(s: &str) -> Result<TextMode, UnknownTextMode> {
        match s {
            "full" => Ok(TextMode::Full),
            "compact" => Ok(TextMode::Compact),
            other => Err(UnknownTextMode(other.to_string())),
        }
    }
}

/// Default [`TextOptions::chars_per_token`]: the usual rule of thumb for English BPE
/// vocabularies.
pub const DEFAULT_CHARS_PER_TOKEN: f32 = 4.0;

/// The accepted range of [`TextOptions::chars_per_token`] (a byte-level vocabulary is 1
/// character per token at best; no tokenizer averages 16).
pub const CHARS_PER_TOKEN_RANGE: std::ops::RangeInclusive<f32> = 0.5..=16.0;

/// What a text observation holds: its language, its detail, and an optional budget.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TextOptions {
    /// The language of the fixed words.
    pub lang: Lang,
    /// The detail asked for.
    pub mode: TextMode,
    /// A budget in **tokens** of the model's tokenizer (`None`: none). The text's tokens are
    /// estimated as characters / [`TextOptions::chars_per_token`]; when the text of `mode` is
    /// over the budget, the renderer steps down: `full` → `compact` → `compact` without the map
    /// grids (the squares stay in the combatant lines). The legal actions are never dropped,
    /// so a decision with more actions than the budget can hold comes back over it (the
    /// smallest rendering): a budget is a target, not a truncation.
    pub token_budget: Option<u32>,
    /// Characters per token of the model's tokenizer, for the budget (default
    /// [`DEFAULT_CHARS_PER_TOKEN`]; 1.0 for a byte-level vocabulary). A client that knows the
    /// model's tokenizer measures it on a rendered text and passes it here.
    pub chars_per_token: f32,
}

impl Default for TextOptions {
    fn default() -> TextOptions {
        TextOptions {
            lang: Lang::En,
            mode: TextMode::Full,
            token_budget: None,
            chars_per_token: DEFAULT_CHARS_PER_TOKEN,
        }
    }
}

impl TextOptions {
    /// Options of `lang`, full detail, no budget.
    pub fn lang(lang: Lang) -> TextOptions {
        TextOptions {
            lang,
            ..TextOptions::default()
        }
    }

    /// The estimated tokens of `text` under these options (characters / chars per token,
    /// rounded up).
    pub fn estimate_tokens(&self, text: &str) -> u32 {
        let cpt = if CHARS_PER_TOKEN_RANGE.contains(&self.chars_per_token) {
            self.chars_per_token
        } else {
            DEFAULT_CHARS_PER_TOKEN
        };
        (text.chars().count() as f32 / cpt).ceil() as u32
    }
}

/// The internal levels of detail, most detailed first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Detail {
    Full,
    Compact,
    NoMap,
}

/// [`render_with`] under `opts`: the mode's rendering, stepped down while it is over the
/// token budget (see [`TextOptions::token_budget`]).
pub fn render_opts(
    ep: &Episode,
    obs: &Observation,
    legal: &[LegalAction],
    opts: &TextOptions,
    results: &[ActionResult],
) -> String {
    let first = match opts.mode {
        TextMode::Full => Detail::Full,
        TextMode::Compact => Detail::Compact,
    };
    let levels = [Detail::Full, Detail::Compact, Detail::NoMap];
    let mut text = String::new();
    for detail in levels.into_iter().filter(|&d| d >= first) {
        text = render_detail(ep, obs, legal, opts.lang, results, detail);
        match opts.token_budget {
            Some(b) if opts.estimate_tokens(&text) > b => continue,
            _ => break,
        }
    }
    text
}

/// The rendering at one level of detail.
fn render_detail(
    ep: &Episode,
    obs: &Observation,
    legal: &[LegalAction],
    lang: Lang,
    results: &[ActionResult],
    detail: Detail,
) -> String {
    let w = words(lang);
    let enc = ep.encounter();
    let map = &enc.map;
    let terrain_chars: Vec<char> = map.legend.keys().copied().collect();
    let viewer = obs.acting_index.map(usize::from);
    let viewer_side = viewer
        .and_then(|v| obs.combatants.get(v))
        .map(|c| c.side.as_str());
    let letter = letters(obs, &terrain_chars, viewer_side);
    let name_of = |c: CombatantId| -> String {
        let i = usize::from(c.0);
        match (obs.combatants.get(i), letter.get(i)) {
            (Some(x), Some(l)) => format!("{l} {}", x.id),
            _ => "?".to_string(),
        }
    };
    let mut out = String::with_capacity(4096);

    // 1. Header.
    let surprise = if obs.surprise_round {
        format!(" ({})", w.surprise)
    } else {
        String::new()
    };
    match (ep.decision(), ep.outcome()) {
        (Some(d), _) => {
            let what = match &d.kind {
                DecisionKind::TurnAction => w.turn_action.to_string(),
                DecisionKind::AttackOfOpportunity {
                    provoker,
                    provocation,
                    weapons,
                    stand_still,
                } => {
                    let spec = &enc.combatants[usize::from(d.actor.0)].spec;
                    let ws: Vec<&str> = weapons
                        .iter()
                        .filter_map(|&k| spec.attacks.get(k).map(|a| a.name.as_str()))
                        .collect();
                    let mut s = format!(
                        "{} ({} {}: {}; {}: {})",
                        w.aoo,
                        w.provoked_by,
                        name_of(*provoker),
                        provocation.name(),
                        w.weapons,
                        ws.join(", ")
                    );
                    if *stand_still {
                        let _ = write!(s, "; {}", w.stand_still);
                    }
                    s
                }
                DecisionKind::ReadiedTrigger {
                    trigger_by,
                    trigger,
                    readied,
                } => format!(
                    "{} ({}: {} {}; {}: {})",
                    w.readied_trigger,
                    trigger.name(),
                    w.triggered_by,
                    name_of(*trigger_by),
                    w.readied,
                    crate::actions::legal::label(ep, d.actor, readied)
                ),
                DecisionKind::StepUp { foe, .. } => {
                    format!("{} ({} {})", w.step_up, name_of(*foe), w.stepped_away)
                }
            };
            let _ = writeln!(
                out,
                "{} {}{surprise}. {} {}: {what}.",
                w.round,
                obs.round,
                name_of(d.actor),
                w.decides
            );
            let b = &d.budget;
            let parts: Vec<&str> = [
                (b.standard, w.standard),
                (b.move_action, w.move_),
                (b.swift, w.swift),
                (b.full_round, w.full_round),
                (b.five_foot_step, w.five_foot_step),
            ]
            .into_iter()
            .filter_map(|(on, name)| on.then_some(name))
            .collect();
            let parts = if parts.is_empty() {
                w.none.to_string()
            } else {
                parts.join(", ")
            };
            let _ = writeln!(out, "{}: {parts}.", w.budget);
        }
        (None, Some(o)) => {
            let who = o.winner.as_deref().unwrap_or(w.draw);
            let _ = writeln!(
                out,
                "{} {}. {} ({}: {who}).",
                w.round, o.rounds, w.over, w.winner
            );
        }
        (None, None) => {
            let _ = writeln!(out, "{} {}{surprise}.", w.round, obs.round);
        }
    }

    // 2. Initiative order.
    let index_of: BTreeMap<&str, usize> = obs
        .combatants
        .iter()
        .enumerate()
        .map(|(i, c)| (c.id.as_str(), i))
        .collect();
    if !obs.initiative_order.is_empty() {
        let order: Vec<String> = obs
            .initiative_order
            .iter()
            .map(|id| {
                index_of
                    .get(id.as_str())
                    .map_or('?', |&i| letter[i])
                    .to_string()
            })
            .collect();
        let _ = writeln!(out, "{}: {}", w.initiative, order.join(" "));
    }

    // 3. Map.
    let rows = map.rows as usize;
    let cols = map.cols as usize;
    let threat = threat_marker(&terrain_chars);
    let area = area_marker(&terrain_chars);
    let mut grid: Vec<Vec<char>> = map.terrain.clone();
    let passable = |ch: char| map.legend.get(&ch).is_some_and(|t| t.move_cost.is_some());
    for (r, row) in obs.threatened.iter().enumerate() {
        for (c, &t) in row.iter().enumerate() {
            if t && passable(map.terrain[r][c]) {
                grid[r][c] = threat;
            }
        }
    }
    for a in &obs.spell_areas {
        for cell in &a.cells {
            if let Some(x) = cell_mut(&mut grid, cell.row, cell.col) {
                if passable(map.terrain[cell.row as usize][cell.col as usize]) {
                    *x = area;
                }
            }
        }
    }
    // The unconscious first, so that a creature moving through their squares shows on top.
    let mut drawn: Vec<usize> = (0..obs.combatants.len())
        .filter(|&i| !(obs.combatants[i].dead || obs.combatants[i].absent))
        .collect();
    drawn.sort_by_key(|&i| (obs.combatants[i].active, i));
    for i in drawn {
        let c = &obs.combatants[i];
        for cell in &c.occupied_cells {
            if let Some(x) = cell_mut(&mut grid, cell.row, cell.col) {
                *x = letter[i];
            }
        }
    }
    if detail == Detail::NoMap {
        let _ = writeln!(out, "{}.", w.map_omitted);
    } else {
        let _ = writeln!(out, "{} ({}):", w.map, w.map_note);
        write_grid(&mut out, &grid, rows, cols);
    }
    // Legend: the terrain characters present, then the markers present.
    let mut present: Vec<char> = map.terrain.iter().flatten().copied().collect();
    present.sort_unstable();
    present.dedup();
    let mut legend: Vec<String> = Vec::new();
    for ch in present {
        let Some(t) = map.legend.get(&ch) else {
            continue;
        };
        let mut rules: Vec<String> = Vec::new();
        match t.move_cost {
            None => rules.push(w.impassable.to_string()),
            Some(k) if k >= 2 => rules.push(format!("{} x{k}", w.difficult)),
            Some(_) => {}
        }
        if t.blocks_los {
            rules.push(w.blocks_sight.to_string());
        }
        let cover = t.effective_cover_bonus();
        if cover > 0 && !t.blocks_los {
            rules.push(format!("{} +{cover}", w.cover));
        }
        if rules.is_empty() {
            legend.push(format!("{ch} {}", t.kind));
        } else {
            legend.push(format!("{ch} {} ({})", t.kind, rules.join(", ")));
        }
    }
    if grid.iter().flatten().any(|&c| c == threat) {
        legend.push(format!("{threat} {}", w.threatened));
    }
    if grid.iter().flatten().any(|&c| c == area) {
        legend.push(format!("{area} {}", w.spell_area));
    }
    if detail != Detail::NoMap {
        let _ = writeln!(out, "{}: {}", w.legend, legend.join("; "));
    }
    for a in &obs.spell_areas {
        let caster = index_of.get(a.caster.as_str()).map_or_else(
            || a.caster.clone(),
            |&i| format!("{} {}", letter[i], a.caster),
        );
        let mut s = format!(
            "{area} {} ({} {caster}; {} {}",
            a.spell, w.caster, a.rounds_left, w.rounds_left
        );
        if let Some(cond) = &a.condition {
            let _ = write!(s, "; {}", condition_name(cond, lang));
        }
        if a.concealment {
            let _ = write!(s, "; {}", w.concealment);
        }
        s.push(')');
        let _ = writeln!(out, "{s}");
    }
    if detail != Detail::NoMap && map.elevation.iter().flatten().any(|&e| e != 0) {
        // Only the rows with some elevation, under the column numbers.
        let elev: Vec<(usize, Vec<char>)> = map
            .elevation
            .iter()
            .enumerate()
            .filter(|(_, row)| row.iter().any(|&e| e != 0))
            .map(|(r, row)| {
                let line = row
                    .iter()
                    .map(|&e| match e {
                        0 => '.',
                        1..=9 => char::from(b'0' + e as u8),
                        _ => '+',
                    })
                    .collect();
                (r, line)
            })
            .collect();
        let _ = writeln!(out, "{}:", w.elevation);
        write_grid_rows(&mut out, &elev, rows, cols);
    }

    // 4. Combatants.
    let _ = writeln!(out, "{} ({}):", w.combatants, w.letters_note);
    for (i, c) in obs.combatants.iter().enumerate() {
        status_line(&mut out, w, lang, letter[i], c, &index_of, &letter, ep);
    }

    // 5. Last results.
    if !results.is_empty() {
        let rs: Vec<String> = results
            .iter()
            .map(|r| match (&r.reason, r.code()) {
                (Some(x), Some(code)) => {
                    let d = x.detail();
                    if d.is_empty() {
                        format!("{} {} {code}", r.kind.name(), w.refused)
                    } else {
                        format!("{} {} {code} ({d})", r.kind.name(), w.refused)
                    }
                }
                (None, Some(note)) => format!("{} {} ({note})", r.kind.name(), w.ok),
                _ => format!("{} {}", r.kind.name(), w.ok),
            })
            .collect();
        let _ = writeln!(out, "{}: {}", w.results, rs.join("; "));
    }

    // 6. Legal actions.
    if !legal.is_empty() {
        let mut full = format!("{}:\n", w.actions);
        for l in legal {
            let _ = writeln!(full, "[{}] {}", l.id, l.label);
        }
        if detail != Detail::Full && folds(legal) {
            // The folded list under its longer header, unless it saves nothing.
            let mut folded = format!("{}:\n", w.actions_compact);
            write_folded(&mut folded, legal);
            if folded.chars().count() < full.chars().count() {
                full = folded;
            }
        }
        out.push_str(&full);
    }
    out
}

/// A label that ends with a square, ` (row,col)`: its prefix and the square.
fn split_cell(label: &str) -> Option<(&str, (i64, i64))> {
    let inner = label.strip_suffix(')')?;
    let open = inner.rfind(" (")?;
    let (r, c) = inner[open + 2..].split_once(',')?;
    let (r, c) = (r.parse().ok()?, c.parse().ok()?);
    Some((&label[..open], (r, c)))
}

/// Fewer actions than this with one prefix are listed one per line (a fold saves nothing).
const FOLD_MIN: usize = 3;

/// Whether some label of `legal` would be folded (else the compact list is the full one,
/// under the full header).
fn folds(legal: &[LegalAction]) -> bool {
    let mut count: BTreeMap<&str, usize> = BTreeMap::new();
    for l in legal {
        if let Some((prefix, _)) = split_cell(&l.label) {
            *count.entry(prefix).or_default() += 1;
        }
    }
    count.values().any(|&n| n >= FOLD_MIN)
}

/// The legal actions in id order, those with the same label but for a trailing square folded
/// into one line at the place of the first: `PREFIX (row,col): R: C1,C2-C3 | R2: C4` (rows
/// ascending, column runs as ranges).
fn write_folded(out: &mut String, legal: &[LegalAction]) {
    let mut groups: BTreeMap<&str, Vec<(i64, i64)>> = BTreeMap::new();
    for l in legal {
        if let Some((prefix, cell)) = split_cell(&l.label) {
            groups.entry(prefix).or_default().push(cell);
        }
    }
    let mut written: Vec<&str> = Vec::new();
    for l in legal {
        let folded = split_cell(&l.label)
            .map(|(p, _)| p)
            .filter(|p| groups.get(p).is_some_and(|g| g.len() >= FOLD_MIN));
        match folded {
            None => {
                let _ = writeln!(out, "[{}] {}", l.id, l.label);
            }
            Some(prefix) if written.contains(&prefix) => {}
            Some(prefix) => {
                written.push(prefix);
                let mut cells = groups[prefix].clone();
                cells.sort_unstable();
                cells.dedup();
                let _ = writeln!(out, "{prefix} (row,col): {}", fold_cells(&cells));
            }
        }
    }
}

/// Sorted squares as `R: C1,C2-C3 | R2: C4`.
fn fold_cells(cells: &[(i64, i64)]) -> String {
    let mut rows: Vec<String> = Vec::new();
    let mut i = 0;
    while i < cells.len() {
        let r = cells[i].0;
        let mut runs: Vec<String> = Vec::new();
        while i < cells.len() && cells[i].0 == r {
            let start = cells[i].1;
            let mut end = start;
            while i + 1 < cells.len() && cells[i + 1].0 == r && cells[i + 1].1 == end + 1 {
                i += 1;
                end += 1;
            }
            runs.push(if end == start {
                start.to_string()
            } else {
                format!("{start}-{end}")
            });
            i += 1;
        }
        rows.push(format!("{r}: {}", runs.join(",")));
    }
    rows.join(" | ")
}

fn cell_mut(grid: &mut [Vec<char>], row: i32, col: i32) -> Option<&mut char> {
    let r = usize::try_from(row).ok()?;
    let c = usize::try_from(col).ok()?;
    grid.get_mut(r)?.get_mut(c)
}

/// A grid with its column numbers above (one line per digit: hundreds, tens, units, the
/// higher ones only when needed) and its row numbers on the left.
fn write_grid(out: &mut String, grid: &[Vec<char>], rows: usize, cols: usize) {
    let numbered: Vec<(usize, Vec<char>)> = grid.iter().cloned().enumerate().collect();
    write_grid_rows(out, &numbered, rows, cols);
}

/// [`write_grid`] of some rows only (`(row number, squares)`), numbered as in a grid of
/// `rows` rows.
fn write_grid_rows(out: &mut String, grid: &[(usize, Vec<char>)], rows: usize, cols: usize) {
    let rw = rows.saturating_sub(1).to_string().len();
    let cw = cols.saturating_sub(1).to_string().len();
    for p in (0..cw).rev() {
        let div = 10usize.pow(p as u32);
        let mut line = " ".repeat(rw + 1);
        for c in 0..cols {
            if p > 0 && c % div != 0 {
                line.push(' ');
            } else {
                line.push(char::from(b'0' + ((c / div) % 10) as u8));
            }
        }
        let _ = writeln!(out, "{}", line.trim_end());
    }
    for (r, row) in grid {
        let line: String = row.iter().collect();
        let _ = writeln!(out, "{r:>rw$} {line}");
    }
}

/// A size category's name in `lang` (the engine's `Small`, `Large`…).
fn size_name(size: &str, lang: Lang) -> String {
    match lang {
        Lang::En => size.to_lowercase(),
        Lang::Fr => match size {
            "Fine" => "infime",
            "Diminutive" => "minuscule",
            "Tiny" => "très petit",
            "Small" => "petit",
            "Medium" => "moyen",
            "Large" => "grand",
            "Huge" => "très grand",
            "Gargantuan" => "gigantesque",
            "Colossal" => "colossal",
            other => other,
        }
        .to_string(),
    }
}

/// One combatant's status line.
#[allow(clippy::too_many_arguments)]
fn status_line(
    out: &mut String,
    w: &Words,
    lang: Lang,
    letter: char,
    c: &CombatantObs,
    index_of: &BTreeMap<&str, usize>,
    letters: &[char],
    ep: &Episode,
) {
    let by_id = |id: &str| -> String {
        index_of
            .get(id)
            .map_or_else(|| id.to_string(), |&i| format!("{} {id}", letters[i]))
    };
    let state = if c.absent {
        w.absent
    } else if c.dead {
        w.dead
    } else if c.dying {
        w.dying
    } else if c.stabilized {
        w.stable
    } else if c.disabled {
        w.disabled
    } else {
        w.conscious
    };
    let mut s = format!("{letter} {} [{}] {state}", c.id, c.side);
    // Medium is the default size: only the others are said.
    if c.size != "Medium" {
        let _ = write!(s, " {}", size_name(&c.size, lang));
    }
    if c.absent {
        let _ = writeln!(out, "{s}");
        return;
    }
    let _ = write!(
        s,
        "; {} {}/{}; {} {}/{}/{}; {} ({},{})",
        w.hp,
        c.hp,
        c.hp_max,
        w.ac,
        c.ac.total,
        c.ac.touch,
        c.ac.flat_footed,
        w.at,
        c.pos.row,
        c.pos.col
    );
    let usable = |a: &&crate::observe::observation::AttackObs| {
        !(a.weapon_dropped || a.weapon_destroyed || a.weapon_sheathed)
    };
    let reach = c
        .attacks
        .iter()
        .filter(usable)
        .filter_map(|a| a.reach_ft)
        .max()
        .unwrap_or(c.natural_reach_ft);
    let _ = write!(s, "; {} {reach} ft", w.reach);
    // Conditions (ordered by name: a BTreeMap), life-state ones already said.
    let conds: Vec<String> = c
        .conditions
        .iter()
        .filter(|(n, _)| !(c.disabled && n.as_str() == "disabled"))
        .map(|(n, r)| {
            let n = condition_name(n, lang);
            match r {
                Some(k) => format!("{n} ({k})"),
                None => n.to_string(),
            }
        })
        .collect();
    if !conds.is_empty() {
        let _ = write!(s, "; {}: {}", w.conditions, conds.join(", "));
    }
    if !c.attacks.is_empty() {
        let ws: Vec<String> = c
            .attacks
            .iter()
            .map(|a| {
                let mut x = a.name.clone();
                if a.count > 1 {
                    let _ = write!(x, " x{}", a.count);
                }
                let mut notes: Vec<String> = Vec::new();
                if let Some(n) = a.ammunition_left {
                    notes.push(format!("{} {n}", w.ammo));
                }
                if a.weapon_destroyed {
                    notes.push(w.destroyed.to_string());
                } else if a.weapon_dropped {
                    match a.dropped_at {
                        Some(p) => notes.push(format!("{} ({},{})", w.dropped, p.row, p.col)),
                        None => notes.push(w.dropped.to_string()),
                    }
                } else if a.weapon_sheathed {
                    notes.push(w.sheathed.to_string());
                }
                if a.weapon_broken && !a.weapon_destroyed {
                    notes.push(w.broken.to_string());
                }
                if !notes.is_empty() {
                    let _ = write!(x, " ({})", notes.join(", "));
                }
                x
            })
            .collect();
        let _ = write!(s, "; {}: {}", w.wields, ws.join(", "));
    }
    if !c.active_buffs.is_empty() {
        let bs: Vec<String> = c
            .active_buffs
            .iter()
            .map(|(n, r)| format!("{n} ({r})"))
            .collect();
        let _ = write!(s, "; {}: {}", w.effects, bs.join(", "));
    }
    if !c.spells.is_empty() {
        let mut by_level: BTreeMap<u8, Vec<String>> = BTreeMap::new();
        for sp in &c.spells {
            let uses = match sp.uses_left {
                None => w.at_will.to_string(),
                Some(n) => n.to_string(),
            };
            by_level
                .entry(sp.level)
                .or_default()
                .push(format!("{} ({uses})", sp.name));
        }
        let levels: Vec<String> = by_level
            .into_iter()
            .map(|(l, names)| format!("L{l} {}", names.join(", ")))
            .collect();
        let _ = write!(s, "; {}: {}", w.spells, levels.join(" | "));
        if !c.spell_slots_left.is_empty() {
            let mut slots: Vec<(u32, u32)> = c
                .spell_slots_left
                .iter()
                .filter_map(|(l, n)| l.parse().ok().map(|l: u32| (l, *n)))
                .collect();
            slots.sort_unstable();
            let slots: Vec<String> = slots.iter().map(|(l, n)| format!("L{l} {n}")).collect();
            let _ = write!(s, "; {}: {}", w.slots, slots.join(", "));
        }
    }
    // The states that matter for a decision.
    let mut toggles: Vec<&str> = Vec::new();
    if c.power_attack {
        toggles.push("power attack");
    }
    if c.deadly_aim {
        toggles.push("deadly aim");
    }
    if c.combat_expertise {
        toggles.push("combat expertise");
    }
    if c.total_defense {
        toggles.push("total defense");
    }
    if c.fight_defensively {
        toggles.push("fight defensively");
    }
    if c.cast_defensively {
        toggles.push("cast defensively");
    }
    if !toggles.is_empty() {
        let _ = write!(s, "; {}: {}", w.toggles, toggles.join(", "));
    }
    if let Some(g) = &c.grappled_with {
        let _ = write!(s, "; {} {}", w.grappling, by_id(g));
    }
    if let Some(r) = &c.readied {
        let label = crate::actions::legal::label(ep, CombatantId(c.index), &r.action);
        let _ = write!(s, "; {}: {label} ({})", w.readied, r.trigger.name());
    }
    if c.delayed {
        let _ = write!(s, "; {}", w.delayed);
    }
    if let Some(pc) = &c.pending_cast {
        let _ = write!(s, "; {} {}", w.casting, pc.spell_name);
    }
    if let Some(h) = &c.held_charge {
        let _ = write!(s, "; {} {h}", w.holding);
    }
    if c.mirror_images > 0 {
        let _ = write!(s, "; {} {}", w.images, c.mirror_images);
    }
    if let Some(by) = &c.summoned_by {
        let _ = write!(
            s,
            "; {} {} ({} {})",
            w.summoned,
            by_id(by),
            c.summon_rounds_left,
            w.rounds_left
        );
    }
    let _ = writeln!(out, "{s}");
}

impl Episode {
    /// The text rendering of the pending decision for `viewer` in `lang`, with the last
    /// step's `results` ([`render`]).
    pub fn text_observation(
        &self,
        viewer: Option<CombatantId>,
        lang: Lang,
        results: &[ActionResult],
    ) -> String {
        render(self, viewer, lang, results)
    }

    /// [`Episode::text_observation`] under `opts` ([`render_opts`]).
    pub fn text_observation_with(
        &self,
        viewer: Option<CombatantId>,
        opts: &TextOptions,
        results: &[ActionResult],
    ) -> String {
        let obs = self.observation(viewer);
        let legal = self.legal_actions();
        render_opts(self, &obs, &legal, opts, results)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lang_parses_en_and_fr_and_names_a_bad_value() {
        assert_eq!("en".parse::<Lang>(), Ok(Lang::En));
        assert_eq!("fr".parse::<Lang>(), Ok(Lang::Fr));
        let e = "xx".parse::<Lang>().unwrap_err();
        assert!(e.to_string().contains("`xx`"), "{e}");
        assert!("EN".parse::<Lang>().is_err());
        for l in Lang::ALL {
            assert_eq!(l.code().parse::<Lang>(), Ok(l));
        }
    }

    #[test]
    fn markers_avoid_terrain_characters() {
        assert_eq!(threat_marker(&['#', '.']), '*');
        assert_eq!(threat_marker(&['*', '!']), '+');
        assert_eq!(area_marker(&['%']), '&');
    }

    #[test]
    fn grid_numbers_rows_and_columns() {
        let g = vec![vec!['.'; 12]; 2];
        let mut out = String::new();
        write_grid(&mut out, &g, 2, 12);
        assert_eq!(
            out,
            "  0         1\n  012345678901\n0 ............\n1 ............\n"
        );
    }

    #[test]
    fn labels_ending_with_a_square_split() {
        assert_eq!(split_cell("move to (1,3)"), Some(("move to", (1, 3))));
        assert_eq!(
            split_cell("cast_spell entangle at (12,40)"),
            Some(("cast_spell entangle at", (12, 40)))
        );
        assert_eq!(split_cell("5foot_step to (1,3) (step up after orc)"), None);
        assert_eq!(split_cell("end_turn"), None);
        assert_eq!(split_cell("ready: attack orc (x)"), None);
    }

    #[test]
    fn squares_fold_into_row_runs() {
        let cells = [(1, 1), (1, 3), (1, 4), (1, 5), (2, 1), (2, 2), (4, 9)];
        assert_eq!(fold_cells(&cells), "1: 1,3-5 | 2: 1-2 | 4: 9");
    }

    #[test]
    fn text_modes_parse_and_name_a_bad_value() {
        for m in TextMode::ALL {
            assert_eq!(m.name().parse::<TextMode>(), Ok(m));
        }
        let e = "short".parse::<TextMode>().unwrap_err();
        assert!(e.to_string().contains("`short`"), "{e}");
    }

    #[test]
    fn token_estimate_rounds_up_and_ignores_a_bad_ratio() {
        let o = TextOptions::default();
        assert_eq!(o.estimate_tokens("abcde"), 2);
        let bytes = TextOptions {
            chars_per_token: 1.0,
            ..o
        };
        assert_eq!(bytes.estimate_tokens("abcde"), 5);
        let bad = TextOptions {
            chars_per_token: f32::NAN,
            ..o
        };
        assert_eq!(bad.estimate_tokens("abcde"), 2);
    }

    #[test]
    fn every_condition_has_a_french_name() {
        for c in crate::effects::conditions::Condition::ALL {
            let n = c.name();
            // `invisible` is the same word in both languages.
            if n != "invisible" {
                assert_ne!(condition_name(n, Lang::Fr), n, "{n}");
            }
            assert_eq!(condition_name(n, Lang::En), n);
        }
    }
}
