"""The balance report in words (the seed's Phase 3): a language model writes the French and
English report of a Monte Carlo run (or a sweep) from its statistics, and **every number in the
text is checked against the statistics**.

::

    pf1e-sim --map … --side … --runs 1000 --seed 1 --format json > stats.json
    pf1e-llm-eval narrate stats.json --lang fr,en --out out/report   # --base-url/--model

Per language :func:`narrate` asks the model (:class:`~pf1e_gym.llm.chat.ChatModel`, JSON
answer ``{"report": TEXT}``) for a report, then :func:`check_numbers` validates it:

- every number written in the text (``55.6``, ``55,6 %``, ``1 000``, ``4.79``…; digits inside
  identifiers of the statistics such as ``goblin-3`` are not numbers) must be **a value of the
  statistics** — any numeric field, at the precision written (``0.605`` is ``60.5 %``,
  ``60 %`` or ``0.61``; rounding to the decimals shown, a percentage of a rate in [0, 1]),
  or the length of one of its lists (two sides, five combatants);
- the text must cite at least ``min_numbers`` of them (a report that says nothing measurable
  is no report) and name every side.

A rejected draft is sent back with the offending numbers and retried ``retries`` times; then
the **template report** (:func:`template_report`, every number taken from the statistics) is
used instead. The result says which: ``source`` is ``"model"`` (with the model's name) or
``"template"`` (with the rejected drafts' reasons). Nothing unchecked is ever presented as the
report.
"""

from __future__ import annotations

import dataclasses
import json
import math
import re
from collections.abc import Iterable
from typing import Any

from pf1e_gym.llm.chat import ChatModel, ModelUnavailable

LANGS = ("fr", "en")

_SYSTEM = {
    "en": (
        "You write the balance report of a tabletop combat encounter (Pathfinder 1st edition) "
        "for a game master, from Monte Carlo statistics given as JSON. Write 3 to 6 short "
        "paragraphs in English: who wins how often (with the 3-sigma band), how long fights "
        "last, which combatants deal and take the most damage, and what that means for the "
        "encounter's difficulty. Use only numbers that are in the statistics (a rate may be "
        'written as a percentage). Answer with JSON: {"report": "<the text>"}.'
    ),
    "fr": (
        "Vous rédigez le rapport d'équilibrage d'une rencontre de combat (Pathfinder première "
        "édition) pour un meneur de jeu, à partir de statistiques Monte Carlo en JSON. Écrivez "
        "3 à 6 courts paragraphes en français : qui gagne et à quelle fréquence (avec la bande "
        "3 sigma), la durée des combats, les combattants qui infligent et subissent le plus de "
        "dégâts, et ce que cela dit de la difficulté de la rencontre. N'utilisez que des "
        "nombres présents dans les statistiques (un taux peut s'écrire en pourcentage). "
        'Répondez en JSON : {"report": "<le texte>"}.'
    ),
}

_RETRY = {
    "en": "The report was rejected: {why}. Write it again using only numbers of the statistics.",
    "fr": "Le rapport a été refusé : {why}. Réécrivez-le en n'utilisant que des nombres des "
    "statistiques.",
}

_SCHEMA = {
    "type": "object",
    "properties": {"report": {"type": "string", "minLength": 1, "maxLength": 6000}},
    "required": ["report"],
    "additionalProperties": False,
}

# A number as written in English or French text: 1,000 / 1 000 / 1 000 (thin spaces), 55.6 /
# 55,6, optionally signed, optionally followed by %.
_NUMBER = re.compile(
    r"(?<![\w.,])[-\u2212]?\d{1,3}(?:(?:[ \u00a0\u202f]\d{3})+|(?:,\d{3})+)(?:[.,]\d+)?(?!\d)"
    r"\s*%?"
    r"|(?<![\w.,])[-\u2212]?\d+(?:[.,]\d+)?(?!\d)\s*%?"
)


@dataclasses.dataclass
class NumberCheck:
    """What :func:`check_numbers` found: ``numbers`` (each number written, as text),
    ``unknown`` (those that are not in the statistics), ``sides_missing`` (sides the text does
    not name); ``ok`` when nothing is wrong and at least ``min_numbers`` numbers are cited."""

    numbers: list[str]
    unknown: list[str]
    sides_missing: list[str]
    min_numbers: int

    @property
    def ok(self) -> bool:
        return not self.unknown and not self.sides_missing and len(self.numbers) >= self.min_numbers

    def why(self) -> str:
        parts = []
        if self.unknown:
            parts.append(
                "numbers not in the statistics: " + ", ".join(repr(u) for u in self.unknown[:10])
            )
        if self.sides_missing:
            parts.append("sides not named: " + ", ".join(self.sides_missing))
        if len(self.numbers) < self.min_numbers:
            parts.append(
                f"only {len(self.numbers)} number(s) of the statistics cited (at least "
                f"{self.min_numbers})"
            )
        return "; ".join(parts) or "ok"


@dataclasses.dataclass
class Narration:
    """One language's report: ``text``, ``source`` (``"model"`` or ``"template"``), the
    ``model`` name when the model wrote it, ``attempts`` (model calls), and ``rejected`` (the
    reasons of each rejected draft, in order)."""

    lang: str
    text: str
    source: str
    model: str | None
    attempts: int
    rejected: list[str]

    def markdown(self) -> str:
        """The report with a header saying who wrote it and how it was checked."""
        if self.source == "model":
            head = {
                "en": f"_Written by the model `{self.model}`; every number checked against "
                "the statistics._",
                "fr": f"_Rédigé par le modèle `{self.model}` ; chaque nombre vérifié dans les "
                "statistiques._",
            }[self.lang]
        else:
            why = f" ({len(self.rejected)} draft(s) rejected)" if self.rejected else ""
            head = {
                "en": f"_Template report (numbers from the statistics){why}._",
                "fr": f"_Rapport gabarit (nombres tirés des statistiques){why}._",
            }[self.lang]
        return f"{head}\n\n{self.text.strip()}\n"


def _leaves(x: Any) -> Iterable[Any]:
    if isinstance(x, dict):
        for v in x.values():
            yield from _leaves(v)
    elif isinstance(x, list):
        yield len(x)
        for v in x:
            yield from _leaves(v)
    else:
        yield x


def _strings(x: Any) -> Iterable[str]:
    if isinstance(x, dict):
        for k, v in x.items():
            yield str(k)
            yield from _strings(v)
    elif isinstance(x, list):
        for v in x:
            yield from _strings(v)
    elif isinstance(x, str):
        yield x


def stat_values(stats: Any) -> list[float]:
    """Every number of the statistics (finite ints and floats, list lengths)."""
    out = []
    for v in _leaves(stats):
        if isinstance(v, bool):
            continue
        if isinstance(v, int | float) and math.isfinite(v):
            out.append(float(v))
    return out


def _parse_number(tok: str) -> tuple[float, int, bool] | None:
    """(value, decimals written, is a percentage) of a matched number."""
    t = tok.strip()
    pct = t.endswith("%")
    t = t.rstrip("%").strip().replace("\u2212", "-")
    t = re.sub(r"[ \u00a0\u202f]", "", t)
    # 1,000 (thousands) vs 55,6 (French decimal): a comma followed by exactly 3 digits and
    # nothing else is a thousands separator only when the number has no other separator.
    if re.fullmatch(r"-?\d{1,3}(,\d{3})+", t):
        t = t.replace(",", "")
    t = t.replace(",", ".")
    try:
        value = float(t)
    except ValueError:
        return None
    decimals = len(t.split(".", 1)[1]) if "." in t else 0
    return value, decimals, pct


def _matches(value: float, decimals: int, pct: bool, stats: list[float]) -> bool:
    tol = 0.5 * 10 ** (-decimals) + 1e-9
    for v in stats:
        candidates = [v * 100] if pct else [v, v * 100] if 0 <= abs(v) <= 1 else [v]
        if pct and abs(v) > 1:
            candidates.append(v)  # a rate already in percent
        for c in candidates:
            if abs(c - value) <= tol:
                return True
    return False


def check_numbers(text: str, stats: Any, *, min_numbers: int = 3) -> NumberCheck:
    """Check every number of ``text`` against ``stats`` (see the module docs)."""
    values = stat_values(stats)
    # Identifiers of the statistics (combatant ids, names, map) are not numbers.
    masked = text
    for s in sorted(set(_strings(stats)), key=len, reverse=True):
        if any(ch.isdigit() for ch in s) and len(s) > 1:
            masked = masked.replace(s, " ")
    # The conventional "3 sigma" (also with the Greek letter) of a band is a name, not a number.
    masked = re.sub(r"\b3[\s-]?(?:\u03c3|sigma)", " ", masked)
    numbers: list[str] = []
    unknown: list[str] = []
    for m in _NUMBER.finditer(masked):
        tok = m.group().strip()
        parsed = _parse_number(tok)
        if parsed is None:
            continue
        numbers.append(tok)
        if not _matches(*parsed, values):
            unknown.append(tok)
    sides = [s.get("name") for s in stats.get("sides", []) if isinstance(s, dict)]
    missing = [s for s in sides if isinstance(s, str) and s not in text]
    return NumberCheck(numbers, unknown, missing, min_numbers)


def _pct(x: float, lang: str) -> str:
    s = f"{100 * x:.1f}"
    return (s.replace(".", ",") + "\u00a0%") if lang == "fr" else s + "%"


def _num(x: float, lang: str, d: int = 1) -> str:
    s = f"{x:.{d}f}"
    return s.replace(".", ",") if lang == "fr" else s


def template_report(stats: dict[str, Any], lang: str) -> str:
    """The report written from a template (``lang`` ``fr`` or ``en``): every number comes from
    ``stats`` (a ``pf1e-sim --format json`` document), so it passes :func:`check_numbers`."""
    fr = lang == "fr"
    lines = []
    runs = stats.get("runs")
    seed = stats.get("seed")
    where = stats.get("map", "")
    lines.append(
        (f"Sur {runs} combats simulés (seed {seed}) sur la carte {where} :")
        if fr
        else (f"Over {runs} simulated combats (seed {seed}) on the map {where}:")
    )
    for s in stats.get("sides", []):
        band = s.get("band_3sigma") or [s.get("rate", 0.0), s.get("rate", 0.0)]
        lines.append(
            (
                f"- {s['name']} ({s.get('combatants')} combattants) gagne {_pct(s['rate'], lang)} "
                f"des combats ({s['wins']}), bande 3\u03c3 [{_pct(band[0], lang)}, "
                f"{_pct(band[1], lang)}]."
            )
            if fr
            else (
                f"- {s['name']} ({s.get('combatants')} combatants) wins {_pct(s['rate'], lang)} "
                f"of the combats ({s['wins']}), 3\u03c3 band [{_pct(band[0], lang)}, "
                f"{_pct(band[1], lang)}]."
            )
        )
    if "draws" in stats:
        lines.append(
            (f"- Nuls : {stats['draws']} ({_pct(stats.get('draw_rate', 0.0), lang)}).")
            if fr
            else (f"- Draws: {stats['draws']} ({_pct(stats.get('draw_rate', 0.0), lang)}).")
        )
    if "mean_rounds" in stats:
        lines.append(
            (f"- Un combat dure en moyenne {_num(stats['mean_rounds'], lang, 2)} rounds.")
            if fr
            else (f"- A combat lasts {_num(stats['mean_rounds'], lang, 2)} rounds on average.")
        )
    cs = [c for c in stats.get("combatants", []) if isinstance(c, dict)]
    if cs:
        dealt = max(cs, key=lambda c: c.get("mean_damage_dealt", 0.0))
        taken = max(cs, key=lambda c: c.get("mean_damage_taken", 0.0))
        lines.append(
            (
                f"- {dealt['id']} inflige le plus de dégâts "
                f"({_num(dealt['mean_damage_dealt'], lang, 2)} "
                f"par combat) ; {taken['id']} en subit le plus "
                f"({_num(taken['mean_damage_taken'], lang, 2)})."
            )
            if fr
            else (
                f"- {dealt['id']} deals the most damage "
                f"({_num(dealt['mean_damage_dealt'], lang, 2)} "
                f"per combat); {taken['id']} takes the most "
                f"({_num(taken['mean_damage_taken'], lang, 2)})."
            )
        )
    return "\n".join(lines)


def narrate(
    stats: dict[str, Any],
    model: ChatModel | None,
    *,
    langs: Iterable[str] = LANGS,
    retries: int = 2,
    min_numbers: int = 3,
) -> list[Narration]:
    """The report in each of ``langs`` (see the module docs). ``model`` ``None``: the template
    report alone. A model that cannot be reached counts as rejected (the template is used)."""
    out = []
    for lang in langs:
        if lang not in LANGS:
            raise ValueError(f"langs: {lang!r} is not one of {list(LANGS)}")
        rejected: list[str] = []
        attempts = 0
        text = None
        if model is not None:
            messages: list[dict[str, Any]] = [
                {"role": "system", "content": _SYSTEM[lang]},
                {"role": "user", "content": json.dumps(stats, ensure_ascii=False)},
            ]
            for _ in range(retries + 1):
                attempts += 1
                try:
                    reply = model.complete(messages, _SCHEMA, name="pf1e_report")
                except ModelUnavailable as e:
                    rejected.append(f"model unavailable: {e}")
                    break
                draft = _report_of(reply.content)
                if draft is None:
                    why = 'the reply is not {"report": "..."}'
                else:
                    check = check_numbers(draft, stats, min_numbers=min_numbers)
                    if check.ok:
                        text = draft
                        break
                    why = check.why()
                rejected.append(why)
                messages.append({"role": "assistant", "content": reply.content})
                messages.append({"role": "user", "content": _RETRY[lang].format(why=why)})
        if text is not None:
            out.append(
                Narration(lang, text, "model", model.model if model else None, attempts, rejected)
            )
        else:
            out.append(
                Narration(lang, template_report(stats, lang), "template", None, attempts, rejected)
            )
    return out


def _report_of(content: str) -> str | None:
    try:
        value = json.loads(content)
    except ValueError:
        return None
    report = value.get("report") if isinstance(value, dict) else None
    if isinstance(report, str) and report.strip():
        return report
    return None
