//! The replay viewer (`pf1e-sim --replay-html`, `pf1e-sim replay TRANSCRIPT`): the page it
//! writes embeds the episode step by step (checked against an independent engine run), bad
//! transcripts exit 2 naming the file and the field, and the page, loaded in headless
//! Chromium at its last step, draws what the episode ended with (tokens, hp, log, winner) —
//! with a screenshot in `target/test-artifacts/`.
//!
//! Chromium: `/usr/bin/chromium` (Debian's package; `scripts/install_chromium.sh`) or
//! `$PF1E_CHROMIUM`. Without it the browser tests skip, unless `PF1E_REQUIRE_CHROMIUM=1`
//! (CI), where they fail.

mod common;

use pf1e_engine::{CombatantId, Episode};
use pf1e_env_server::montecarlo::play_one;
use pf1e_env_server::proto;
use pf1e_env_server::replay;
use pf1e_env_server::scenarios::ScenarioStore;
use pf1e_env_server::service::{EnvironmentService, ServiceConfig};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_pf1e-sim");
const SEED: u64 = 7;

fn data(rel: &str) -> String {
    format!("{}/{rel}", common::DATA_DIR)
}

/// A fresh empty scratch directory for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("pf1e-replay-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Where test artefacts go: `<target>/test-artifacts`.
fn artifacts() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"));
    let dir = target.join("test-artifacts");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn sim(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("run pf1e-sim")
}

/// `pf1e-sim` on the bundled scenario's encounter (the sample arena, 3 goblins vs 2 orcs),
/// one combat of seed [`SEED`], its page written to `out`.
fn write_arena_page(out: &Path) -> Output {
    let (g, o) = (data("monsters/goblin.json"), data("monsters/orc.json"));
    let seed = SEED.to_string();
    sim(&[
        "--map",
        &data("maps/sample_arena.yaml"),
        "--side",
        "players",
        &g,
        &g,
        &g,
        "--side",
        "monsters",
        &o,
        &o,
        "--runs",
        "1",
        "--seed",
        &seed,
        "--replay-html",
        &out.display().to_string(),
    ])
}

/// The episode embedded in a page.
fn embedded(page: &str) -> Value {
    let open = r#"<script type="application/json" id="replay-data">"#;
    let start = page.find(open).expect("the data tag") + open.len();
    let end = start + page[start..].find("</script>").expect("its end");
    serde_json::from_str(&page[start..end]).expect("the embedded document is JSON")
}

/// The same combat, played by the engine directly: the bundled scenario `sample_arena`.
fn arena_episode() -> Episode {
    let enc = ScenarioStore::new(common::DATA_DIR)
        .named("sample_arena", "scenario")
        .unwrap();
    play_one(enc, SEED).0
}

#[test]
fn the_page_embeds_every_step_of_the_combat() {
    let dir = scratch("embed");
    let out = dir.join("arena.html");
    let o = write_arena_page(&out);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(String::from_utf8_lossy(&o.stderr).contains("wrote"));
    let page = std::fs::read_to_string(&out).unwrap();
    // Self-contained: no external script, style, image or font.
    for bad in ["<script src", "<link", "https://", "url(", "@import"] {
        assert!(!page.contains(bad), "the page refers to {bad}");
    }
    let doc = embedded(&page);
    assert_eq!(doc["format"], "pf1e-replay");
    let ep = arena_episode();
    let log = doc["log"].as_array().unwrap();
    let messages: Vec<&str> = log.iter().map(|l| l["message"].as_str().unwrap()).collect();
    let expected: Vec<&str> = ep.transcript().iter().map(|l| l.message.as_str()).collect();
    assert_eq!(
        messages, expected,
        "the page's log is the combat's transcript"
    );
    assert!(
        messages.iter().any(|m| m.contains("d20=")),
        "rolls in the log"
    );
    let frames = doc["frames"].as_array().unwrap();
    assert!(frames.len() > 5, "a step per unit of resolution");
    // The frames' lines tile the log, in order, and only frame 0 has none.
    let mut at = 0;
    for (k, f) in frames.iter().enumerate() {
        let (a, b) = (
            f["lines"][0].as_u64().unwrap(),
            f["lines"][1].as_u64().unwrap(),
        );
        assert_eq!(a, at, "frame {k} starts where the previous ended");
        assert!(k == 0 || b > a, "frame {k} adds lines");
        at = b;
    }
    assert_eq!(at as usize, log.len());
    // Start: every combatant at full hp on its start square; end: the engine's final state.
    let units = doc["units"].as_array().unwrap();
    assert_eq!(units.len(), ep.encounter().combatants.len());
    let (first, last) = (&frames[0], frames.last().unwrap());
    for (i, u) in units.iter().enumerate() {
        let id = CombatantId(i as u16);
        let start = ep.encounter().combatants[i].start;
        assert_eq!(first["units"][i]["hp"], u["hp_max"]);
        assert_eq!(
            first["units"][i]["pos"],
            serde_json::json!([start.row, start.col])
        );
        assert_eq!(last["units"][i]["hp"], ep.hp(id), "final hp of {}", u["id"]);
        let p = ep.position(id);
        assert_eq!(last["units"][i]["pos"], serde_json::json!([p.row, p.col]));
    }
    let outcome = ep.outcome().unwrap();
    assert_eq!(
        doc["outcome"]["winner"].as_str(),
        outcome.winner.as_deref(),
        "the winner"
    );
    // A step shows its lines with what followed them silently: after a `move` line, the
    // mover stands at the end of its path (unless something interrupted the walk).
    let (mut moves, mut at_end) = (0, 0);
    for f in &frames[1..] {
        let (a, b) = (
            f["lines"][0].as_u64().unwrap() as usize,
            f["lines"][1].as_u64().unwrap() as usize,
        );
        let Some(actor) = f["actor"].as_u64() else {
            continue;
        };
        for l in &log[a..b] {
            let m = l["message"].as_str().unwrap();
            if !m.starts_with("move (") || !m.contains("->(") {
                continue;
            }
            moves += 1;
            let end = m.rsplit("->(").next().unwrap();
            let end: Vec<i64> = end
                .trim_end_matches(|c: char| c != ')')
                .trim_end_matches(')')
                .split(',')
                .map(|x| x.trim().parse().unwrap())
                .collect();
            if f["units"][actor as usize]["pos"] == serde_json::json!(end) {
                at_end += 1;
            }
        }
    }
    assert!(moves > 0, "the combat has moves");
    assert!(
        2 * at_end > moves,
        "{at_end} of {moves} moves end where their path does"
    );
    // Threatened squares: once the fight is joined, some frame has some for each side.
    for side in 0..2 {
        assert!(frames
            .iter()
            .any(|f| !f["threatened"][side].as_array().unwrap().is_empty()));
    }
    // Deterministic: the same command writes the same page.
    let again = dir.join("again.html");
    assert!(write_arena_page(&again).status.success());
    assert_eq!(std::fs::read_to_string(&again).unwrap(), page);
}

/// Play the bundled scenario with `players` controlled (attack when possible, else move,
/// take every attack of opportunity) and export its transcript document.
fn exported_transcript(seed: u64) -> String {
    use proto::ActionKind as K;
    let svc = EnvironmentService::new(ServiceConfig::new(common::DATA_DIR));
    let mut s = svc
        .reset_blocking(&common::reset_req("sample_arena", seed, &["players"]))
        .unwrap();
    let id = s.episode_id.clone();
    let mut steps = 0;
    while !(s.terminated || s.truncated) {
        steps += 1;
        assert!(steps < 500, "the episode ends");
        let d = s.decision.as_ref().unwrap();
        let of = |k: K| {
            s.legal_actions
                .iter()
                .find(|l| l.action.as_ref().is_some_and(|a| a.kind == k as i32))
                .map(|l| l.id)
        };
        let pick = of(K::AttackOfOpportunity)
            .or_else(|| of(K::FullAttack))
            .or_else(|| of(K::Attack))
            .or_else(|| of(K::Move))
            .or_else(|| of(K::EndTurn))
            .or_else(|| of(K::Decline))
            .unwrap();
        s = svc
            .step_blocking(&proto::StepRequest {
                episode_id: id.clone(),
                decision_id: d.decision_id,
                action_ids: vec![pick],
                ..Default::default()
            })
            .unwrap();
    }
    svc.export_transcript_blocking(&proto::ExportTranscriptRequest {
        episode_id: id,
        json_only: true,
    })
    .unwrap()
    .transcript_json
}

#[test]
fn a_transcript_document_replays_into_a_page_next_to_it() {
    let dir = scratch("transcript");
    let json = exported_transcript(11);
    let file = dir.join("episode.json");
    std::fs::write(&file, &json).unwrap();
    let o = sim(&[
        "replay",
        &file.display().to_string(),
        "--data-dir",
        common::DATA_DIR,
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let page = std::fs::read_to_string(dir.join("episode.html")).expect("written next to it");
    let doc = embedded(&page);
    let original: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(doc["log"], original["transcript"]);
    assert_eq!(doc["outcome"]["winner"], original["outcome"]["winner"]);
    assert_eq!(doc["seed"], 11);
    let units = doc["units"].as_array().unwrap();
    for u in units {
        let controlled = original["controlled"]
            .as_array()
            .unwrap()
            .contains(&u["id"]);
        assert_eq!(u["external"], controlled, "{}", u["id"]);
    }
    assert!(units.iter().any(|u| u["external"] == true));
}

#[test]
fn bad_transcripts_exit_2_naming_the_file_and_the_field() {
    let dir = scratch("bad");
    let run = |file: &Path| {
        let o = sim(&[
            "replay",
            &file.display().to_string(),
            "--data-dir",
            common::DATA_DIR,
        ]);
        assert_eq!(o.status.code(), Some(2), "{o:?}");
        let err = String::from_utf8_lossy(&o.stderr).into_owned();
        assert!(err.starts_with("pf1e-sim: error: "), "{err}");
        assert!(err.contains(&file.display().to_string()), "{err}");
        err
    };
    let missing = dir.join("missing.json");
    assert!(run(&missing).contains("cannot read"));
    let garbled = dir.join("garbled.json");
    std::fs::write(&garbled, "{\"format\": \"pf1e-transcript\", ").unwrap();
    assert!(run(&garbled).contains("not a transcript document"));
    let json = exported_transcript(11);
    let mut doc: Value = serde_json::from_str(&json).unwrap();
    doc["format"] = "something-else".into();
    let other = dir.join("other.json");
    std::fs::write(&other, doc.to_string()).unwrap();
    assert!(run(&other).contains("format:"));
    let mut doc: Value = serde_json::from_str(&json).unwrap();
    doc["seed"] = Value::Null;
    let seedless = dir.join("seedless.json");
    std::fs::write(&seedless, doc.to_string()).unwrap();
    assert!(run(&seedless).contains("seed: is required"));
    let mut doc: Value = serde_json::from_str(&json).unwrap();
    doc["history"][0]["results"][0]["ok"] = (!doc["history"][0]["results"][0]["ok"]
        .as_bool()
        .unwrap_or(true))
    .into();
    let changed = dir.join("changed.json");
    std::fs::write(&changed, doc.to_string()).unwrap();
    assert!(run(&changed).contains("history[0]"), "names the entry");
    // No page is written for a bad document.
    assert!(!dir.join("changed.html").exists());
    // An output folder that does not exist: exit 2 before playing.
    let o = write_arena_page(&dir.join("no/such/dir/x.html"));
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--replay-html"));
}

/// The Chromium binary, or `None` (skip) — a failure when `PF1E_REQUIRE_CHROMIUM=1`.
fn chromium() -> Option<PathBuf> {
    let candidates = [
        std::env::var_os("PF1E_CHROMIUM").map(PathBuf::from),
        Some(PathBuf::from("/usr/bin/chromium")),
        Some(PathBuf::from("/usr/bin/chromium-browser")),
    ];
    if let Some(p) = candidates.into_iter().flatten().find(|p| p.is_file()) {
        return Some(p);
    }
    if std::env::var("PF1E_REQUIRE_CHROMIUM").as_deref() == Ok("1") {
        panic!(
            "PF1E_REQUIRE_CHROMIUM=1 but no chromium (/usr/bin/chromium or $PF1E_CHROMIUM): \
             run scripts/install_chromium.sh"
        );
    }
    eprintln!("skipped: no chromium (scripts/install_chromium.sh installs it)");
    None
}

/// Run headless Chromium with `args` on `url`, stdout to `stdout_file`; killed after 120 s.
fn headless(chromium: &Path, profile: &Path, args: &[String], url: &str, stdout_file: &Path) {
    let mut cmd = Command::new(chromium);
    cmd.args([
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        "--hide-scrollbars",
    ])
    .arg(format!("--user-data-dir={}", profile.display()))
    .args(args)
    .arg(url)
    .stdin(Stdio::null())
    .stdout(std::fs::File::create(stdout_file).unwrap())
    .stderr(Stdio::null());
    let mut child = cmd.spawn().expect("start chromium");
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            assert!(status.success(), "chromium {args:?}: {status}");
            return;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium {args:?} did not finish within 120 s");
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// The value of attribute `name` in the start tag `tag` (`<div class="unit" data-hp="3">`).
fn attr<'a>(tag: &'a str, name: &str) -> Option<&'a str> {
    let key = format!(" {name}=\"");
    let start = tag.find(&key)? + key.len();
    Some(&tag[start..start + tag[start..].find('"')?])
}

/// Every start tag of `html` that begins with `prefix` (`<div class="unit`).
fn tags<'a>(html: &'a str, prefix: &str) -> Vec<&'a str> {
    html.match_indices(prefix)
        .map(|(i, _)| &html[i..i + html[i..].find('>').unwrap()])
        .collect()
}

/// The text of the first element whose start tag begins with `prefix` (no child elements).
fn text_of<'a>(html: &'a str, prefix: &str) -> &'a str {
    let at = html.find(prefix).expect("the element");
    let start = at + html[at..].find('>').unwrap() + 1;
    &html[start..start + html[start..].find('<').unwrap()]
}

#[test]
fn chromium_draws_the_last_step_of_the_recorded_combat() {
    let Some(chromium) = chromium() else {
        return;
    };
    let dir = scratch("chromium");
    let page_path = dir.join("replay.html");
    let o = write_arena_page(&page_path);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let doc = embedded(&std::fs::read_to_string(&page_path).unwrap());
    let ep = arena_episode();
    let url = format!("file://{}#step=end", page_path.display());

    let dom_file = dir.join("dom.html");
    headless(
        &chromium,
        &dir.join("profile-dom"),
        &[
            "--dump-dom".to_string(),
            "--virtual-time-budget=5000".to_string(),
        ],
        &url,
        &dom_file,
    );
    let dom = std::fs::read_to_string(&dom_file).unwrap();
    let steps = doc["frames"].as_array().unwrap().len() - 1;
    let body = tags(&dom, "<body")[0];
    assert_eq!(attr(body, "data-step"), Some(steps.to_string().as_str()));
    // One token per combatant on the map.
    let tokens = tags(&dom, "<g class=\"token");
    assert_eq!(tokens.len(), ep.encounter().combatants.len(), "tokens");
    // The hp shown are the episode's final hp, on the map and in the panel.
    for (i, p) in ep.encounter().combatants.iter().enumerate() {
        let hp = ep.hp(CombatantId(i as u16)).to_string();
        let token = tokens
            .iter()
            .find(|t| attr(t, "data-index") == Some(i.to_string().as_str()))
            .unwrap_or_else(|| panic!("the token of {}", p.id));
        assert_eq!(
            attr(token, "data-hp"),
            Some(hp.as_str()),
            "token of {}",
            p.id
        );
        // Its label, as the document gives it, on the token and in the panel (the legend).
        let label = doc["units"][i]["label"].as_str().unwrap();
        assert_eq!(attr(token, "data-label"), Some(label), "label of {}", p.id);
        assert!(text_of(
            &dom[dom
                .find(&format!("<g class=\"token\" data-id=\"{}\"", p.id))
                .unwrap()..],
            "<text"
        )
        .contains(label));
        let id = doc["units"][i]["id"].as_str().unwrap();
        let row = tags(&dom, "<div class=\"unit")
            .into_iter()
            .find(|t| attr(t, "data-id") == Some(id))
            .unwrap_or_else(|| panic!("the panel row of {id}"));
        assert_eq!(attr(row, "data-hp"), Some(hp.as_str()), "panel of {id}");
        assert_eq!(attr(row, "data-label"), Some(label), "panel of {id}");
    }
    // The whole log is shown: one entry per transcript line, none hidden.
    let entries = tags(&dom, "<div class=\"entry");
    assert_eq!(entries.len(), ep.transcript().len(), "log entries");
    assert!(entries.iter().all(|e| !e.contains(" hidden")));
    let log = tags(&dom, "<div id=\"log\"")[0];
    assert_eq!(
        attr(log, "data-shown"),
        Some(ep.transcript().len().to_string().as_str())
    );
    // The winner.
    let winner = ep.outcome().unwrap().winner.clone().unwrap();
    let w = tags(&dom, "<span id=\"winner\"")[0];
    assert_eq!(attr(w, "data-winner"), Some(winner.as_str()));
    assert!(
        text_of(&dom, "<span id=\"winner\"").starts_with(&format!("{winner} win in")),
        "the winner is shown"
    );

    // At step 0 nothing has happened: the log is empty, everyone at full hp.
    let dom0_file = dir.join("dom0.html");
    headless(
        &chromium,
        &dir.join("profile-dom0"),
        &[
            "--dump-dom".to_string(),
            "--virtual-time-budget=5000".to_string(),
        ],
        &format!("file://{}#step=0", page_path.display()),
        &dom0_file,
    );
    let dom0 = std::fs::read_to_string(&dom0_file).unwrap();
    let shown0 = tags(&dom0, "<div id=\"log\"")[0];
    assert_eq!(attr(shown0, "data-shown"), Some("0"));
    assert_eq!(text_of(&dom0, "<span id=\"winner\""), "");

    // Screenshot, kept as a test artefact.
    let png = artifacts().join("replay.png");
    let _ = std::fs::remove_file(&png);
    headless(
        &chromium,
        &dir.join("profile-shot"),
        &[
            format!("--screenshot={}", png.display()),
            "--window-size=1200,900".to_string(),
            "--virtual-time-budget=5000".to_string(),
        ],
        &url,
        &dir.join("shot.out"),
    );
    let bytes = std::fs::read(&png).expect("the screenshot");
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "a PNG");
    let (w, h) = (
        u32::from_be_bytes(bytes[16..20].try_into().unwrap()),
        u32::from_be_bytes(bytes[20..24].try_into().unwrap()),
    );
    assert_eq!((w, h), (1200, 900));
    assert!(
        bytes.len() > 20_000,
        "a non-trivial picture ({} bytes)",
        bytes.len()
    );
    std::fs::copy(&page_path, artifacts().join("replay.html")).unwrap();
}

/// The page of the bundled scenario `name`, seed `seed` (every combatant on the default
/// policy), written to `dir/<name>-<seed>.html`, and its document.
fn scenario_page(dir: &Path, name: &str, seed: u64) -> (PathBuf, Value) {
    let enc = ScenarioStore::new(common::DATA_DIR)
        .named(name, "scenario")
        .unwrap();
    let (doc, _) = replay::record(
        enc,
        seed,
        &[],
        &[],
        format!("{name}, seed {seed}"),
        &mut pf1e_engine::WorkBudget::unlimited(),
    )
    .unwrap();
    let path = dir.join(format!("{name}-{seed}.html"));
    std::fs::write(&path, replay::render_html(&doc)).unwrap();
    (path, serde_json::to_value(&doc).unwrap())
}

/// The DOM of `page` at `url_tail` (`step=3&threat=none`) after `js` ran on load (a probe
/// script added to a copy of the page; it writes what it finds into `document.body.dataset`),
/// in a 1200×900 window.
fn probe(chromium: &Path, dir: &Path, page: &Path, url_tail: &str, js: &str) -> String {
    let html = std::fs::read_to_string(page).unwrap();
    let script = format!("<script>addEventListener(\"load\", () => {{ {js} }});</script></body>");
    let n = std::fs::read_dir(dir).unwrap().count();
    let probed = dir.join(format!("probe-{n}.html"));
    std::fs::write(&probed, html.replacen("</body>", &script, 1)).unwrap();
    let out = dir.join(format!("probe-{n}.out"));
    headless(
        chromium,
        &dir.join(format!("profile-probe-{n}")),
        &[
            "--dump-dom".to_string(),
            "--window-size=1200,900".to_string(),
            "--virtual-time-budget=5000".to_string(),
        ],
        &format!("file://{}#{url_tail}", probed.display()),
        &out,
    );
    std::fs::read_to_string(&out).unwrap()
}

/// Where the map is on the page at 1200×900 at `url_tail`: `(left, top, css pixels per
/// square)`, measured by the browser (the map's box), and the DOM.
fn map_box(
    chromium: &Path,
    dir: &Path,
    page: &Path,
    url_tail: &str,
    cols: f64,
) -> (f64, f64, f64, String) {
    let dom = probe(
        chromium,
        dir,
        page,
        url_tail,
        r#"const r = document.getElementById("map").getBoundingClientRect();
  document.body.dataset.probe = [r.left, r.top, r.width].join(",");"#,
    );
    let body = tags(&dom, "<body")[0];
    let v: Vec<f64> = attr(body, "data-probe")
        .expect("the probe ran")
        .split(',')
        .map(|x| x.parse().unwrap())
        .collect();
    (v[0], v[1], v[2] / cols, dom)
}

/// A 1200×900 screenshot of `page` at `url_tail`, kept as `target/test-artifacts/<name>`, decoded
/// to RGB(A) rows: `(width, channels, pixels)`.
fn screenshot(
    chromium: &Path,
    dir: &Path,
    page: &Path,
    url_tail: &str,
    name: &str,
) -> (usize, usize, Vec<u8>) {
    let png_path = artifacts().join(name);
    let _ = std::fs::remove_file(&png_path);
    headless(
        chromium,
        &dir.join(format!("profile-shot-{name}")),
        &[
            format!("--screenshot={}", png_path.display()),
            "--window-size=1200,900".to_string(),
            "--virtual-time-budget=5000".to_string(),
        ],
        &format!("file://{}#{url_tail}", page.display()),
        &dir.join(format!("shot-{name}.out")),
    );
    let decoder = png::Decoder::new(std::io::BufReader::new(
        std::fs::File::open(&png_path).expect("the screenshot"),
    ));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!((info.width, info.height), (1200, 900));
    let channels = info.color_type.samples();
    buf.truncate(info.buffer_size());
    (info.width as usize, channels, buf)
}

/// The RGB of the pixel at CSS pixel `(x, y)` of a screenshot (device scale 1).
fn pixel(px: &[u8], w: usize, ch: usize, x: f64, y: f64) -> [u8; 3] {
    let at = (y.round() as usize * w + x.round() as usize) * ch;
    [px[at], px[at + 1], px[at + 2]]
}

/// The colour `#rrggbb` as numbers.
fn rgb(hex: &str) -> [u8; 3] {
    let h = hex.trim_start_matches('#');
    let c = |i: usize| u8::from_str_radix(&h[i..i + 2], 16).unwrap();
    [c(0), c(2), c(4)]
}

/// The fill of the first `<circle` of the token of unit `index` in `dom` (its side colour).
fn token_fill(dom: &str, index: usize) -> String {
    let at = dom
        .find(&format!("data-index=\"{index}\""))
        .expect("the token");
    let circle = &dom[at + dom[at..].find("<circle").unwrap()..];
    attr(circle, "fill").unwrap().to_string()
}

/// The scenario and seed of an overlap: in the 4-vs-4 skirmish, seed 13, the orc stands on
/// the square of the dead wolf-2 (listed after it: its token was drawn above, as dead
/// witch_1 hid cleric_3 in the issue).
const OVERLAP: (&str, u64) = ("skirmish_4v4", 13);

/// A fight with spells: the casters' scenario, seed 3 (fireball, color spray, web…).
const CASTERS: (&str, u64) = ("casters", 3);

/// A dead combatant's token is drawn under a living one on the same square, not over it
/// (issue 31: cleric_3 at full hp hidden under a dead token's cross). The screenshot's pixel
/// beside the label, inside the living token's disc, is the living token's side colour.
#[test]
fn chromium_draws_the_living_above_the_dead_on_a_shared_square() {
    let Some(chromium) = chromium() else {
        return;
    };
    let dir = scratch("overlap");
    let (page, doc) = scenario_page(&dir, OVERLAP.0, OVERLAP.1);
    let units = doc["units"].as_array().unwrap();
    let frames = doc["frames"].as_array().unwrap();
    // The first step where a living combatant shares its square with a dead one of another
    // side listed after it.
    let (step, living, dead) = frames
        .iter()
        .enumerate()
        .find_map(|(k, f)| {
            let us = f["units"].as_array().unwrap();
            (0..us.len()).find_map(|i| {
                (i + 1..us.len())
                    .find(|&j| {
                        us[i]["life"] == "healthy"
                            && us[j]["life"] == "dead"
                            && us[i]["pos"] == us[j]["pos"]
                            && units[i]["side"] != units[j]["side"]
                            && units[i]["footprint"] == 1
                    })
                    .map(|j| (k, i, j))
            })
        })
        .expect("a living combatant on a dead one's square");
    let tail = format!("step={step}");
    let (left, top, sq, dom) =
        map_box(&chromium, &dir, &page, &tail, doc["cols"].as_f64().unwrap());
    let body = tags(&dom, "<body")[0];
    assert_eq!(attr(body, "data-step"), Some(step.to_string().as_str()));
    let (w, ch, px) = screenshot(&chromium, &dir, &page, &tail, "replay-overlap.png");
    let pos = &frames[step]["units"][living]["pos"];
    let (r, c) = (pos[0].as_f64().unwrap(), pos[1].as_f64().unwrap());
    // Inside the disc (radius 0.41 of a square), left of the label.
    let (x, y) = (left + (c + 0.22) * sq, top + (r + 0.5) * sq);
    let got = pixel(&px, w, ch, x, y);
    let want = rgb(&token_fill(&dom, living));
    let near = got.iter().zip(want).all(|(a, b)| a.abs_diff(b) <= 12);
    assert!(
        near,
        "step {step}: the square of {} (living) and {} (dead) shows {got:?}, not the living \
         token's {want:?}",
        units[living]["id"], units[dead]["id"]
    );
}

/// The document carries what the viewer draws beyond positions and hp: labels unique and
/// prefix-free, each combatant's own threatened squares (within its side's, and together
/// its side's), its conditions and spell effects, and the spell areas — each at the step of
/// its transcript line, which names its spell and its number of squares.
#[test]
fn the_document_carries_labels_threats_effects_and_areas() {
    let dir = scratch("doc-areas");
    let (_, doc) = scenario_page(&dir, CASTERS.0, CASTERS.1);
    let units = doc["units"].as_array().unwrap();
    let labels: Vec<&str> = units.iter().map(|u| u["label"].as_str().unwrap()).collect();
    for (i, a) in labels.iter().enumerate() {
        for (j, b) in labels.iter().enumerate() {
            assert!(i == j || !b.starts_with(a), "label {a} starts {b}");
        }
    }
    let log = doc["log"].as_array().unwrap();
    let (mut areas, mut effects) = (0, 0);
    for f in doc["frames"].as_array().unwrap() {
        for (side, sq) in f["threatened"].as_array().unwrap().iter().enumerate() {
            let mut union: Vec<u64> = units
                .iter()
                .enumerate()
                .filter(|(_, u)| u["side"] == side)
                .flat_map(|(i, _)| f["units"][i]["threatens"].as_array().unwrap().clone())
                .map(|v| v.as_u64().unwrap())
                .collect();
            union.sort();
            union.dedup();
            let side_sq: Vec<u64> = sq
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_u64().unwrap())
                .collect();
            assert_eq!(union, side_sq, "a side threatens what its members threaten");
        }
        for u in f["units"].as_array().unwrap() {
            let fx = u["effects"].as_array().unwrap();
            effects += fx.len();
            let conds: Vec<&Value> = fx.iter().filter(|e| e["kind"] == "condition").collect();
            assert_eq!(conds.len(), u["conditions"].as_array().unwrap().len());
        }
        let (a, b) = (
            f["lines"][0].as_u64().unwrap(),
            f["lines"][1].as_u64().unwrap(),
        );
        for area in f["areas"].as_array().unwrap() {
            areas += 1;
            let line = area["line"].as_u64().unwrap();
            assert!(a <= line && line < b, "the area's line is the step's");
            let msg = log[line as usize]["message"].as_str().unwrap();
            let n = area["cells"].as_array().unwrap().len();
            assert_eq!(
                msg,
                &format!(
                    "{}: {n} squares{}",
                    area["spell"].as_str().unwrap(),
                    &msg[msg.find(" squares").unwrap() + 8..]
                ),
                "the line names the area's spell and size"
            );
            let caster = &units[area["caster"].as_u64().unwrap() as usize]["id"];
            assert_eq!(&log[line as usize]["actor"], caster);
        }
    }
    // Every area line of the transcript has its area.
    let lines = log
        .iter()
        .filter(|l| {
            let m = l["message"].as_str().unwrap();
            m.contains(" squares, affects ")
        })
        .count();
    assert_eq!(areas, lines, "one area per area line");
    assert!(areas > 0, "the casters cast areas");
    assert!(effects > 0, "and effects show");
}

/// In Chromium: a spell area is drawn at the step it is cast (one orange square per square,
/// coloured on the screenshot, its spell named under the map), and the tokens and the
/// panel carry the labels.
#[test]
fn chromium_draws_the_spell_area_of_a_step_and_the_labels() {
    let Some(chromium) = chromium() else {
        return;
    };
    let dir = scratch("areas");
    let (page, doc) = scenario_page(&dir, CASTERS.0, CASTERS.1);
    let units = doc["units"].as_array().unwrap();
    let frames = doc["frames"].as_array().unwrap();
    let cols = doc["cols"].as_u64().unwrap();
    let step = frames
        .iter()
        .position(|f| !f["areas"].as_array().unwrap().is_empty())
        .expect("a step with a spell area");
    let f = &frames[step];
    let area = &f["areas"][0];
    let cells: Vec<u64> = area["cells"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    let tail = format!("step={step}&threat=none");
    let (left, top, sq, dom) = map_box(&chromium, &dir, &page, &tail, cols as f64);
    let drawn = tags(&dom, "<rect class=\"area-sq");
    let all: usize = f["areas"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["cells"].as_array().unwrap().len())
        .sum();
    assert_eq!(
        drawn.len(),
        all,
        "one square drawn per square of the step's areas"
    );
    let spell = area["spell"].as_str().unwrap();
    assert!(
        text_of(&dom, "<div id=\"areas-info\"").contains("Spell areas: ")
            && dom.contains(&format!("<b>{spell}</b>")),
        "the area is named under the map"
    );
    // On the screenshot: each of its squares free of tokens and of lasting areas is orange.
    let (w, ch, px) = screenshot(&chromium, &dir, &page, &tail, "replay-area.png");
    let occupied = |cell: u64| {
        let (r, c) = ((cell / cols) as i64, (cell % cols) as i64);
        f["units"]
            .as_array()
            .unwrap()
            .iter()
            .enumerate()
            .any(|(i, u)| {
                let fp = units[i]["footprint"].as_i64().unwrap();
                let (ur, uc) = (u["pos"][0].as_i64().unwrap(), u["pos"][1].as_i64().unwrap());
                (ur..ur + fp).contains(&r) && (uc..uc + fp).contains(&c)
            })
            || f["zones"].as_array().unwrap().iter().any(|z| {
                z["cells"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|v| v.as_u64() == Some(cell))
            })
    };
    let free: Vec<u64> = cells.iter().copied().filter(|&c| !occupied(c)).collect();
    assert!(!free.is_empty(), "some square of the area is free");
    for cell in free {
        let (r, c) = ((cell / cols) as f64, (cell % cols) as f64);
        let got = pixel(&px, w, ch, left + (c + 0.25) * sq, top + (r + 0.25) * sq);
        assert!(
            got[0] as i32 > got[2] as i32 + 50 && got[0] as i32 > got[1] as i32 + 25,
            "square ({r}, {c}) of {spell} at step {step} is not orange: {got:?}"
        );
    }
    // Labels on the tokens and in the panel.
    for (i, u) in units.iter().enumerate() {
        let token = tags(&dom, "<g class=\"token")
            .into_iter()
            .find(|t| attr(t, "data-index") == Some(i.to_string().as_str()))
            .unwrap();
        assert_eq!(attr(token, "data-label"), u["label"].as_str());
        assert!(tags(&dom, "<div class=\"unit")
            .iter()
            .any(|t| attr(t, "data-label") == u["label"].as_str()));
    }
}

/// In Chromium: a click on a token selects its combatant and shows the squares it alone
/// threatens (the document's `threatens`), and the keys step: ← → one step, Home, End, Space
/// play / pause.
#[test]
fn chromium_shows_a_selected_combatants_threats_and_steps_by_key() {
    let Some(chromium) = chromium() else {
        return;
    };
    let dir = scratch("select");
    let (page, doc) = scenario_page(&dir, CASTERS.0, CASTERS.1);
    let units = doc["units"].as_array().unwrap();
    let frames = doc["frames"].as_array().unwrap();
    // A step and a combatant threatening squares, not all of its side's.
    let (step, who) = frames
        .iter()
        .enumerate()
        .find_map(|(k, f)| {
            (0..units.len())
                .find(|&i| {
                    let own = f["units"][i]["threatens"].as_array().unwrap().len();
                    let side = units[i]["side"].as_u64().unwrap() as usize;
                    own > 0 && own < f["threatened"][side].as_array().unwrap().len()
                })
                .map(|i| (k, i))
        })
        .expect("a combatant threatening part of its side's squares");
    let f = &frames[step];
    let tail = format!("step={step}");
    // A click on its token shows the squares it threatens, its own only; then the keys.
    let js = format!(
        r#"const b = document.body, t = document.getElementById("threat-layer");
  document.querySelector('g.token[data-index="{who}"]').dispatchEvent(new MouseEvent("click"));
  b.dataset.sel = t.dataset.unit + "," + t.dataset.squares + "," + t.querySelectorAll("rect").length;
  const seen = [];
  for (const k of ["Home", "ArrowRight", "ArrowRight", "ArrowLeft", "End", "ArrowLeft", " ", " "]) {{
    document.dispatchEvent(new KeyboardEvent("keydown", {{ key: k, bubbles: true }}));
    seen.push(b.dataset.step + ":" + document.getElementById("play").textContent);
  }}
  b.dataset.keys = seen.join(",");"#
    );
    let dom = probe(&chromium, &dir, &page, &tail, &js);
    let body = tags(&dom, "<body")[0];
    let n = f["units"][who]["threatens"].as_array().unwrap().len();
    assert_eq!(
        attr(body, "data-sel"),
        Some(format!("{},{n},{n}", units[who]["id"].as_str().unwrap()).as_str()),
        "the selected combatant's threatened squares"
    );
    let last = frames.len() - 1;
    let keys = format!(
        "0:play,1:play,2:play,1:play,{last}:play,{}:play,{}:pause,{}:play",
        last - 1,
        last - 1,
        last - 1
    );
    assert_eq!(attr(body, "data-keys"), Some(keys.as_str()), "the keys");
}
