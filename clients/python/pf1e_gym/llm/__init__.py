"""Language-model agents and strategies for pf1e-gym (optional extra ``llm``:
``pip install 'pf1e-gym[llm]'``, which brings ``openai``, ``jsonschema`` and ``pyyaml``).

- :class:`ChatModel` (:mod:`pf1e_gym.llm.chat`): one OpenAI-compatible chat endpoint (vLLM,
  llama.cpp, Ollama, hosted APIs) with structured output when the server supports it, plain
  text otherwise, timeouts and transport retries, counters.
- :class:`LLMAgent` (:mod:`pf1e_gym.llm.agent`): the model plays a side decision by decision,
  from the server's text observation; refused answers are sent back with the reason (Explain)
  and retried, then a documented fallback action; everything counted (:class:`AgentStats`).
- :func:`run_eval` / the ``pf1e-llm-eval`` console script (:mod:`pf1e_gym.llm.eval`): N fights
  against the default policy, a scorecard (win rate with its 95 % Wilson interval, refusals by
  reason, retries, fallbacks, tokens, latency) and per-fight JSONL transcripts.
- :func:`compile_strategy`, :func:`evaluate_strategies` (:mod:`pf1e_gym.llm.strategy`): a
  strategy in words → a tactics spec the engine plays, and strategies compared over many fights.
- :func:`action_tools` (:mod:`pf1e_gym.llm.tools`): one OpenAI function per action kind,
  generated from the spec (``LLMAgent(answer="tools")``).
- :func:`play_multi` (:mod:`pf1e_gym.llm.multi`): several agents in one fight.
- :func:`narrate`, :func:`check_numbers` (:mod:`pf1e_gym.llm.narrate`): the balance report in
  words, every number checked against the statistics.
- :mod:`pf1e_gym.llm.rl`: an environment for TRL's GRPOTrainer (extra ``llm-rl``).
- Prompt templates: files under ``pf1e_gym/llm/prompts/`` (:mod:`pf1e_gym.llm.templates`).

docs/llm-agents.md has the MCP server (:mod:`pf1e_gym.mcp_server`), the recipes and the
scorecard's axes.
"""

from pf1e_gym.llm.agent import (
    ANSWER_MODES,
    FALLBACKS,
    AgentStats,
    FightResult,
    LLMAgent,
    render_fallback_text,
)
from pf1e_gym.llm.chat import FORMAT_LEVELS, ChatModel, ChatReply, ChatStats, ModelUnavailable
from pf1e_gym.llm.eval import Scorecard, run_eval, run_eval_multi, scorecard
from pf1e_gym.llm.multi import MultiFightResult, play_multi
from pf1e_gym.llm.narrate import Narration, check_numbers, narrate, template_report
from pf1e_gym.llm.stats import band_3sigma, percentile, two_proportion_z, wilson_interval
from pf1e_gym.llm.strategy import (
    StrategyError,
    compile_strategy,
    evaluate_strategies,
    load_tactics_yaml,
    strategy_sweep_spec,
)
from pf1e_gym.llm.tools import action_tools

__all__ = [
    "ANSWER_MODES",
    "FALLBACKS",
    "FORMAT_LEVELS",
    "AgentStats",
    "ChatModel",
    "ChatReply",
    "ChatStats",
    "FightResult",
    "LLMAgent",
    "ModelUnavailable",
    "MultiFightResult",
    "Narration",
    "Scorecard",
    "StrategyError",
    "action_tools",
    "band_3sigma",
    "check_numbers",
    "compile_strategy",
    "evaluate_strategies",
    "load_tactics_yaml",
    "narrate",
    "percentile",
    "play_multi",
    "render_fallback_text",
    "run_eval",
    "run_eval_multi",
    "scorecard",
    "strategy_sweep_spec",
    "template_report",
    "two_proportion_z",
    "wilson_interval",
]
