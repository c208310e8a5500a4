"""Prompt templates: text files under ``pf1e_gym/llm/prompts/<lang>/``, read with
:mod:`importlib.resources` and filled with :class:`string.Template` (``$name`` placeholders;
``$$`` is a literal ``$``).

Files and their placeholders (the same in every language, ``en`` and ``fr``):

=====================  ==========================================================================
``system.txt``         ``$side`` — the agent's side
``decision.txt``       ``$decision_id``, ``$round``, ``$actor`` (combatant id), ``$decision_kind``
                       (``turn_action``, ``attack_of_opportunity``…), ``$observation`` (the
                       server's text rendering), ``$answer_instructions`` (one of ``answer_*``)
``retry.txt``          ``$reason`` (why the previous answer was refused), ``$answer_instructions``
``answer_label.txt``   none (answer mode ``label``)
``answer_id.txt``      none (answer mode ``id``)
``answer_action.txt``  ``$schema`` (``Spec.action_json_schema``; answer mode ``action``)
``answer_plan.txt``    ``$schema`` (``Spec.plan_json_schema``; answer mode ``plan``)
``answer_tools.txt``   none (answer mode ``tools``: the functions go in the request's ``tools``)
``strategy_system.txt`` ``$schema`` (``Spec.tactics_json_schema``)
``strategy.txt``       ``$scenario``, ``$side``, ``$combatants`` (one ``id, name, side`` line
                       each), ``$text`` (the strategy in words)
``strategy_retry.txt`` ``$errors`` (the validation errors, one per line)
=====================  ==========================================================================

A directory given as ``prompt_dir`` (to :class:`~pf1e_gym.llm.LLMAgent`,
:func:`~pf1e_gym.llm.compile_strategy`) overrides these: ``<prompt_dir>/<lang>/<name>`` is used
where it exists, the packaged file otherwise.
"""

from __future__ import annotations

import os
import string
from importlib import resources

LANGS = ("en", "fr")
"""Languages of the packaged prompts (and of the server's text observation)."""

NAMES = (
    "system.txt",
    "decision.txt",
    "retry.txt",
    "answer_label.txt",
    "answer_id.txt",
    "answer_action.txt",
    "answer_plan.txt",
    "answer_tools.txt",
    "strategy_system.txt",
    "strategy.txt",
    "strategy_retry.txt",
)


def check_lang(lang: str) -> str:
    """``lang`` if it is one of :data:`LANGS`, else ``ValueError`` naming it."""
    if lang not in LANGS:
        raise ValueError(f"lang: {lang!r} is not one of {list(LANGS)}")
    return lang


def load(name: str, lang: str = "en", prompt_dir: str | os.PathLike[str] | None = None) -> str:
    """The text of prompt file ``name`` (one of :data:`NAMES`) in ``lang``."""
    check_lang(lang)
    if name not in NAMES:
        raise ValueError(f"unknown prompt {name!r}: one of {list(NAMES)}")
    if prompt_dir is not None:
        path = os.path.join(os.fspath(prompt_dir), lang, name)
        if os.path.isfile(path):
            with open(path, encoding="utf-8") as f:
                return f.read()
    return (resources.files("pf1e_gym.llm") / "prompts" / lang / name).read_text("utf-8")


def render(
    name: str,
    lang: str = "en",
    prompt_dir: str | os.PathLike[str] | None = None,
    **values: object,
) -> str:
    """Prompt ``name`` in ``lang`` with its placeholders filled (``KeyError`` for a missing
    one), trailing whitespace stripped."""
    return string.Template(load(name, lang, prompt_dir)).substitute(values).rstrip()
