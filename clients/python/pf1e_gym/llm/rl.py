"""pf1e-gym as an environment for reinforcement learning of language models, through TRL's
environment interface (``GRPOTrainer(environment_factory=...)``; extra ``llm-rl``:
``pip install 'pf1e-gym[llm-rl]'`` brings ``trl``, ``transformers``, ``datasets``).

**Why TRL.** A user who trains a language model with RL on an environment reaches for TRL's
``GRPOTrainer`` first (the trainer of the Hugging Face stack, the one that runs on one CPU or
GPU without a cluster). Its environment interface is a class whose public methods are the
model's **tools** (function calls parsed from the model's chat template during generation), a
``reset()`` that returns the text appended to the prompt, and a ``get_reward()`` that scores the
rollout from the environment's state. :class:`Pf1eTRLEnv` is that class: one instance per
rollout plays one fight (one episode of ``pf1e-env-server``), the model being one side.

- ``reset(**example)``: a new episode (``seed`` from the example's ``seed`` column, else
  the instance's next seed); returns the first decision's text observation (compact by
  default: every legal action still written, docs/text-observation.md);
- ``act(label)``: the model's tool — one legal action by its exact label; returns the results
  and the next decision (or the end of the fight). A label that is not legal is refused
  (counted, the decision stays);
- ``get_reward()``: the fight's outcome with the existing shaping: the sum of the rewards the
  server reported for the side (``RewardOptions``: the potential-based damage and kill terms
  when ``shaped``, plus +1 / -1 / 0 at the end), minus ``illegal_penalty`` per refused label.
  A fight the rollout did not finish gets no terminal term (its shaped part only).

**The others map onto the same pieces.** ``verifiers``' ``MultiTurnEnv``: ``setup_state`` =
``reset`` (the text as the first user message), ``env_response`` = parse the model's label and
``act`` it, ``is_completed`` = the episode is over, the rubric's reward = ``get_reward``.
Hugging Face **OpenEnv** standardises environments as MCP tools: ``pf1e-mcp``
(:mod:`pf1e_gym.mcp_server`) is that server — ``start_fight`` is the reset, ``act`` the step,
``result`` the reward's outcome. The label/``act`` surface is the same everywhere.

:func:`tiny_tool_model` builds, offline, a random-weight Qwen3-architecture causal LM and a
byte-level tokenizer with TRL's Qwen3 chat template (tool calling included): enough to run
``GRPOTrainer`` end to end on CPU (``tests/test_llm_rl.py``). Its weights are random: its tool
calls, when it makes any, are noise. It proves the plumbing, not learning.
"""

from __future__ import annotations

import itertools
from typing import Any

import grpc

from pf1e_gym._codec import result_code_name
from pf1e_gym._proto.pf1e.env.v1 import environment_pb2 as pb
from pf1e_gym.client import Pf1eClient


class Pf1eTRLEnv:
    """One side of a scenario, one fight per rollout, for TRL's ``environment_factory``.

    Args:
        scenario: a bundled scenario name.
        side: the side the model plays.
        address: the env server (default ``$PF1E_ADDRESS``).
        seed: the first seed; each ``reset`` without a ``seed`` column takes the next.
        lang, text_mode, token_budget: the text observation (see
            :class:`~pf1e_gym.llm.LLMAgent`).
        shaped: the damage and kill shaping terms (``RewardOptions.shaped``).
        illegal_penalty: subtracted from the reward per refused label.
        client: a :class:`~pf1e_gym.client.Pf1eClient` to use (default: one of its own).
    """

    def __init__(
        self,
        scenario: str = "mirror_duel",
        side: str = "west",
        *,
        address: str | None = None,
        seed: int = 0,
        lang: str = "en",
        text_mode: str = "compact",
        token_budget: int | None = None,
        shaped: bool = True,
        illegal_penalty: float = 0.05,
        client: Pf1eClient | None = None,
    ) -> None:
        self.scenario = scenario
        self.side = side
        self.lang = lang
        self.text_mode = text_mode
        self.token_budget = token_budget
        self.shaped = shaped
        self.illegal_penalty = illegal_penalty
        self._client = client or Pf1eClient(address)
        self._seeds = itertools.count(seed)
        self.state: pb.EpisodeState | None = None
        self.reward_sum = 0.0
        self.illegal = 0
        self.steps = 0
        self.resets = 0

    # TRL calls reset() before each rollout; its string goes into the prompt.
    def reset(self, **kwargs: Any) -> str:
        """Start a new fight and return its first decision as text."""
        self._close()
        seed = int(kwargs["seed"]) if kwargs.get("seed") is not None else next(self._seeds)
        self.state = self._client.reset(
            self.scenario,
            seed,
            controlled_sides=[self.side],
            observation=pb.ObservationOptions(
                json=False,
                typed=True,
                legal_actions=True,
                text=True,
                lang=self.lang,
                text_mode=self.text_mode,
                text_token_budget=self.token_budget or 0,
            ),
            reward=pb.RewardOptions(shaped=self.shaped),
        )
        self.reward_sum = self._reward_of(self.state)
        self.illegal = 0
        self.steps = 0
        self.resets += 1
        return self.state.observation.text

    def act(self, label: str) -> str:
        """Take one legal action of the pending decision by its exact label.

        Args:
            label: the exact label of a legal action, as listed, e.g. "attack orc-2 with
                falchion" or "move to (3,4)".

        Returns:
            The results of the action and the next decision, or the end of the fight.
        """
        s = self.state
        if s is None:
            return "No fight: the environment was not reset."
        if s.terminated or s.truncated:
            return "The fight is over."
        try:
            new = self._client.step(s.episode_id, s.decision.decision_id, action_labels=[label])
        except grpc.RpcError as e:
            if e.code() != grpc.StatusCode.INVALID_ARGUMENT:
                raise
            self.illegal += 1
            return f"Refused: {e.details()}. Answer with the exact label of a legal action."
        self.steps += 1
        self.state = new
        self.reward_sum += self._reward_of(new)
        refused = [r for r in new.results if not r.ok]
        head = ""
        if refused and len(refused) == len(new.results):
            self.illegal += 1
            r = refused[0]
            head = f"Refused: {result_code_name(r.code)} {r.detail}\n"
        if new.terminated or new.truncated:
            return head + f"The fight is over: winner {new.outcome.winner or 'none'}."
        return head + new.observation.text

    def get_reward(self) -> float:
        """The rollout's reward (see the module docs)."""
        return self.reward_sum - self.illegal_penalty * self.illegal

    def _reward_of(self, state: pb.EpisodeState) -> float:
        if state.reward_side == self.side:
            return float(state.reward)
        for r in getattr(state, "rewards", ()):
            if getattr(r, "side", None) == self.side:
                return float(r.reward)
        return 0.0

    def _close(self) -> None:
        s = self.state
        if s is not None and not (s.terminated or s.truncated):
            try:
                self._client.close_episode(s.episode_id)
            except grpc.RpcError:
                pass
        self.state = None


def tiny_tool_model(seed: int = 0, *, hidden: int = 64, layers: int = 2) -> tuple[Any, Any]:
    """A random-weight Qwen3-architecture causal LM and its tokenizer, built offline from a
    config (nothing downloaded): byte-level BPE without merges (256 byte tokens, one token per
    byte) plus the Qwen chat specials (``<|im_start|>``, ``<|im_end|>``, ``<tool_call>``…),
    TRL's Qwen3 chat template (tool calling), left padding. Returns ``(model, tokenizer)``."""
    import importlib.resources

    import torch
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast, Qwen3Config, Qwen3ForCausalLM

    byte_chars = pre_tokenizers.ByteLevel.alphabet()
    specials = [
        "<|endoftext|>",
        "<|im_start|>",
        "<|im_end|>",
        "<tool_call>",
        "</tool_call>",
        "<tool_response>",
        "</tool_response>",
        "<think>",
        "</think>",
    ]
    vocab = {ch: i for i, ch in enumerate(sorted(byte_chars))}
    for sp in specials:
        vocab[sp] = len(vocab)
    tok = Tokenizer(models.BPE(vocab=vocab, merges=[]))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)
    tok.decoder = decoders.ByteLevel()
    template = (importlib.resources.files("trl") / "chat_templates" / "qwen3.jinja").read_text(
        encoding="utf-8"
    )
    tokenizer = PreTrainedTokenizerFast(  # type: ignore[no-untyped-call]
        tokenizer_object=tok,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        additional_special_tokens=specials[1:],
        padding_side="left",
    )
    tokenizer.chat_template = template
    torch.manual_seed(seed)
    config = Qwen3Config(
        vocab_size=len(vocab),
        hidden_size=hidden,
        intermediate_size=2 * hidden,
        num_hidden_layers=layers,
        num_attention_heads=4,
        num_key_value_heads=2,
        head_dim=hidden // 4,
        max_position_embeddings=16384,
        eos_token_id=vocab["<|im_end|>"],
        pad_token_id=vocab["<|endoftext|>"],
        bos_token_id=None,
        tie_word_embeddings=True,
    )
    model = Qwen3ForCausalLM(config)
    model.generation_config.eos_token_id = vocab["<|im_end|>"]
    model.generation_config.pad_token_id = vocab["<|endoftext|>"]
    return model, tokenizer
