"""Leaderboard: several players of one side, each against the default policy on the SAME seeds.

    pf1e-leaderboard --episodes 1000 --seed 1000000 --agent data/agents/sample_arena_ppo.npz \\
        --png leaderboard.png

Entries (each plays side ``--side`` of ``--scenario`` against the server's default policy):

- ``random``: uniform over the legal actions (the action mask), seeded;
- ``scripted``: :mod:`pf1e_gym.scripted` (shoot, fight, close in, end the turn);
- ``default policy``: no controlled combatant, the server plays both sides (the baseline);
- every ``--agent PATH``: a ``.npz`` policy (:mod:`pf1e_gym.numpy_policy`, numpy only) or a
  Stable-Baselines3 / sb3-contrib ``.zip`` checkpoint (needs torch), greedy (masked argmax).

Episode *k* of every entry has seed ``--seed + k``, so the entries meet the same dice where they
make the same choices, and the comparison with the default policy is **paired**: for each
entry, ``b`` = seeds the entry won and the default policy lost, ``c`` = the opposite; the exact
McNemar test (a two-sided binomial test of ``b`` among ``b + c`` discordant seeds at 1/2) gives
the p-value. Win rates come with a 95 % Wilson score interval.

All episodes of an entry are played together, one ``StepBatch`` call per decision step (the
columnar batches of :class:`~pf1e_gym.vector.Pf1eVectorEnv`).
"""

from __future__ import annotations

import argparse
import math
import os
import pathlib
import sys
import time
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

import grpc
import numpy as np

from pf1e_gym import __version__, stats
from pf1e_gym._proto.pf1e.env.v1 import environment_pb2 as pb
from pf1e_gym.client import BatchItemError, Pf1eClient, ServerUnavailableError, reset_request
from pf1e_gym.server import ServerNotFoundError, ServerStartError, default_address

#: z of a two-sided 95 % interval (the 0.975 quantile of the standard normal).
Z95 = 1.959963984540054

#: ``act(planes (k, P, R, C), features (k, N, F), masks (k, n) int8) -> actions (k,)``.
TensorPolicy = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]
#: ``choose(state: pb.EpisodeState) -> action id`` (JSON observation and typed legal actions).
StatePolicy = Callable[[pb.EpisodeState], int]


def wilson_interval(wins: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a binomial proportion ``wins / n`` (``(0, 1)`` when n = 0):
    :func:`pf1e_gym.stats.wilson_interval`, with ``wins`` checked.

    Raises:
        ValueError: ``wins`` outside ``[0, n]``.
    """
    if n > 0 and not 0 <= wins <= n:
        raise ValueError(f"wins = {wins} outside [0, n = {n}]")
    return stats.wilson_interval(wins, n, z)


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value of ``b`` vs ``c`` discordant pairs:
    ``min(1, 2·P[X <= min(b, c)])``, X ~ Binomial(b + c, 1/2) (1.0 when b = c = 0)."""
    if b < 0 or c < 0:
        raise ValueError("discordant counts must be >= 0")
    n = b + c
    if n == 0:
        return 1.0
    k = min(b, c)
    # Exact integer arithmetic, then one division (n is at most a few thousand).
    tail = sum(math.comb(n, i) for i in range(k + 1))
    p: float = min(1.0, 2.0 * tail / 2**n)
    return p


@dataclass
class EntryResult:
    """One entry's episodes: ``won[k]``, ``draw[k]``, ``rounds[k]`` of seed ``seeds[k]``."""

    name: str
    seeds: np.ndarray
    won: np.ndarray
    draw: np.ndarray
    rounds: np.ndarray
    wall_s: float = 0.0
    decisions: int = 0
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def n(self) -> int:
        return len(self.seeds)

    @property
    def wins(self) -> int:
        return int(self.won.sum())

    @property
    def win_rate(self) -> float:
        return self.wins / self.n if self.n else 0.0

    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.wins, self.n)


def _seed_list(seeds: Sequence[int] | int, episodes: int | None = None) -> list[int]:
    if isinstance(seeds, int):
        if episodes is None or episodes < 1:
            raise ValueError("episodes must be >= 1")
        return [seeds + k for k in range(episodes)]
    return [int(s) for s in seeds]


def play_default(
    client: Pf1eClient,
    seeds: Sequence[int],
    scenario: str | pb.Scenario = "sample_arena",
    side: str = "players",
    name: str = "default policy",
) -> EntryResult:
    """The baseline: no controlled combatant (the server's default policy plays every side);
    one ``StepBatch`` of resets per ``max_batch_items`` seeds; the episodes are closed after."""
    seeds = list(seeds)
    t0 = time.perf_counter()
    limit = int(client.get_spec(scenario).max_batch_items) or 1024
    winners: list[str] = []
    rounds: list[int] = []
    for lo in range(0, len(seeds), limit):
        resets = [
            reset_request(scenario, s, (), observation=pb.ObservationOptions(json=False))
            for s in seeds[lo : lo + limit]
        ]
        try:
            chunks = client.batch([], resets, max_items=limit)
        except BatchItemError as e:
            raise RuntimeError(f"reset refused: {e.message}") from None
        ids = []
        for chunk in chunks:
            for st in chunk.states:
                ids.append(st.episode_id)
                winners.append(st.outcome.winner)
                rounds.append(int(st.outcome.rounds))
        client.batch(close_episode_ids=ids, max_items=limit)
    w = np.array(winners, dtype=object)
    return EntryResult(
        name,
        np.asarray(seeds, dtype=np.int64),
        w == side,
        w == "",
        np.asarray(rounds, dtype=np.int64),
        time.perf_counter() - t0,
    )


def play(
    client: Pf1eClient,
    seeds: Sequence[int],
    policy: TensorPolicy | StatePolicy,
    *,
    scenario: str | pb.Scenario = "sample_arena",
    side: str = "players",
    name: str = "agent",
    states: bool = False,
    reward: pb.RewardOptions | None = None,
) -> EntryResult:
    """Play one episode per seed, side ``side`` chosen by ``policy``, all episodes stepped
    together (one ``StepBatch`` per step; only the episodes still running are stepped).

    ``states=False``: ``policy`` is a :data:`TensorPolicy` (columnar tensor batches);
    ``states=True``: a :data:`StatePolicy`, called once per decision with the full
    ``EpisodeState`` (JSON observation and typed legal actions; slower)."""
    from pf1e_gym.vector import Pf1eVectorEnv

    seeds = list(seeds)
    n = len(seeds)
    t0 = time.perf_counter()
    venv = Pf1eVectorEnv(
        n,
        client=client,
        scenario=scenario,
        controlled_sides=[side],
        observation="json" if states else "tensor",
    )
    if states:
        opts = venv._reset_extra["observation"]
        opts.legal_actions = True
    if reward is not None:
        venv._reset_extra["reward"] = reward
    won = np.zeros(n, dtype=np.bool_)
    draw = np.zeros(n, dtype=np.bool_)
    rounds = np.zeros(n, dtype=np.int64)
    decisions = 0
    try:
        slots = np.arange(n)
        rows = venv._call([], [(i, s) for i, s in enumerate(seeds)])
        venv._store(slots, rows, slots)
        current = [rows.state(j) for j in range(n)] if states else None
        for j in np.flatnonzero(venv._actor < 0):  # over before any decision of ours
            st = rows.state(int(j))
            won[j] = st.outcome.winner == side
            draw[j] = st.outcome.winner == ""
            rounds[j] = st.outcome.rounds
        active = np.flatnonzero(venv._actor >= 0)
        while len(active):
            if states:
                assert current is not None
                state_policy = cast(StatePolicy, policy)
                acts = np.array([state_policy(current[i]) for i in active], dtype=np.int64)
            else:
                tensor_policy = cast(TensorPolicy, policy)
                acts = np.asarray(
                    tensor_policy(
                        venv._planes[active], venv._features[active], venv._masks[active]
                    ),
                    dtype=np.int64,
                ).reshape(len(active))
            decisions += len(active)
            steps = list(
                zip(
                    [venv._episode_ids[i] for i in active],
                    venv._decision_ids[active].tolist(),
                    acts.tolist(),
                    strict=True,
                )
            )
            rows = venv._call(steps, [])  # type: ignore[arg-type]
            venv._store(active, rows, np.zeros(0, dtype=np.int64))
            over = rows.actor < 0
            for j in np.flatnonzero(over):
                st = rows.state(int(j))
                i = active[j]
                won[i] = st.outcome.winner == side
                draw[i] = st.outcome.winner == ""
                rounds[i] = st.outcome.rounds
            if states:
                assert current is not None
                for j in np.flatnonzero(~over):
                    current[active[j]] = rows.state(int(j))
            active = active[~over]
    finally:
        venv.close()
    return EntryResult(
        name,
        np.asarray(seeds, dtype=np.int64),
        won,
        draw,
        rounds,
        time.perf_counter() - t0,
        decisions,
    )


def random_policy(seed: int = 0) -> TensorPolicy:
    """Uniform over each row's legal actions, from ``numpy.random.default_rng(seed)``."""
    rng = np.random.default_rng(seed)

    def act(planes: np.ndarray, features: np.ndarray, masks: np.ndarray) -> np.ndarray:
        # The argmax of uniform keys on the legal entries is uniform over them.
        keys = rng.random(masks.shape) * (masks > 0)
        picks: np.ndarray = keys.argmax(axis=1)
        return picks

    return act


def sb3_policy(path: str | os.PathLike[str], spec: pb.Spec | None = None) -> TensorPolicy:
    """A Stable-Baselines3 / sb3-contrib checkpoint (``.zip``), greedy; the observation is the
    flat concat(planes, features) of :class:`~pf1e_gym.sb3.Pf1eSB3VecEnv` (``flatten=True``).
    Raises ``ValueError`` when ``spec`` is given and its observation size or action space
    differs from the checkpoint's."""
    try:
        from sb3_contrib import MaskablePPO
    except ImportError as e:  # pragma: no cover - depends on the install
        raise RuntimeError(f"{path}: an SB3 checkpoint needs sb3-contrib and torch ({e})") from e
    model = MaskablePPO.load(str(path), device="cpu")
    if spec is not None:
        schema = spec.observation_schema
        size = int(np.prod(schema.plane_shape)) + int(np.prod(schema.feature_shape))
        got_obs = tuple(model.observation_space.shape or ())
        got_n = int(getattr(model.action_space, "n", -1))
        if got_obs != (size,) or got_n != int(spec.action_space_size):
            raise ValueError(
                f"{path}: observation {got_obs} / Discrete({got_n}) differ from the scenario's "
                f"({size},) / Discrete({spec.action_space_size}): trained for another scenario"
            )

    def act(planes: np.ndarray, features: np.ndarray, masks: np.ndarray) -> np.ndarray:
        k = len(masks)
        obs = np.concatenate([planes.reshape(k, -1), features.reshape(k, -1)], axis=1)
        a, _ = model.predict(obs, action_masks=masks.astype(bool), deterministic=True)
        return np.asarray(a)

    return act


def agent_policy(path: str | os.PathLike[str], spec: pb.Spec | None = None) -> TensorPolicy:
    """The policy saved at ``path``: ``.npz`` (numpy, checked against ``spec`` when given) or
    an SB3 ``.zip``. Raises ``ValueError`` for another suffix."""
    p = pathlib.Path(path)
    if p.suffix == ".npz":
        from pf1e_gym.numpy_policy import NumpyPolicy

        pol = NumpyPolicy.load(p)
        if spec is not None:
            pol.check_spec(spec)
        return pol.tensor_policy()
    if p.suffix == ".zip":
        return sb3_policy(p, spec)
    raise ValueError(f"--agent {path}: expected a .npz (numpy policy) or .zip (SB3 checkpoint)")


@dataclass
class Comparison:
    """Paired comparison of an entry with the baseline on the same seeds."""

    b: int  # entry won, baseline lost
    c: int  # entry lost, baseline won
    p_value: float


def compare(entry: EntryResult, baseline: EntryResult) -> Comparison:
    """McNemar's exact test on the seeds both played (they must be the same seeds)."""
    if not np.array_equal(entry.seeds, baseline.seeds):
        raise ValueError(f"{entry.name} and {baseline.name} played different seeds")
    b = int((entry.won & ~baseline.won).sum())
    c = int((~entry.won & baseline.won).sum())
    return Comparison(b, c, mcnemar_exact(b, c))


def table(results: Sequence[EntryResult], baseline: EntryResult) -> str:
    """The leaderboard as text, best win rate first."""
    head = (
        f"{'entry':<28} {'win rate':>8}  {'95% Wilson':>15} {'draws':>6} {'rounds':>6}  "
        f"{'vs default: +won/-lost':>22} {'McNemar p':>10}"
    )
    lines = [head, "-" * len(head)]
    for r in sorted(results, key=lambda r: -r.win_rate):
        lo, hi = r.interval()
        if r is baseline:
            cmp_txt, p_txt = "(baseline)", ""
        else:
            c = compare(r, baseline)
            cmp_txt, p_txt = f"+{c.b} / -{c.c}", f"{c.p_value:.2g}"
        lines.append(
            f"{r.name:<28} {100 * r.win_rate:7.1f}%  [{100 * lo:5.1f}, {100 * hi:5.1f}]% "
            f"{int(r.draw.sum()):>6} {r.rounds.mean():6.2f}  {cmp_txt:>22} {p_txt:>10}"
        )
    return "\n".join(lines)


def plot(results: Sequence[EntryResult], path: str | os.PathLike[str], title: str = "") -> None:
    """A bar chart of the win rates with their 95 % Wilson intervals (matplotlib, Agg)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rs = sorted(results, key=lambda r: -r.win_rate)
    rates = np.array([100 * r.win_rate for r in rs])
    ivs = np.array([r.interval() for r in rs]) * 100
    err = np.maximum(0.0, np.stack([rates - ivs[:, 0], ivs[:, 1] - rates]))
    fig, ax = plt.subplots(figsize=(7, 3.6), dpi=100)
    colors = ["tab:gray" if r.name == "default policy" else "tab:blue" for r in rs]
    ax.bar(range(len(rs)), rates, yerr=err, capsize=6, color=colors)
    ax.set_xticks(range(len(rs)), [r.name for r in rs], rotation=10)
    ax.set_ylabel("win rate (%) with 95% Wilson interval")
    ax.set_ylim(0, 100)
    for k, v in enumerate(rates):
        ax.text(k, v + 3, f"{v:.1f}%", ha="center")
    ax.set_title(title or f"{rs[0].n} held-out seeds, each entry vs the default policy")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def run(
    client: Pf1eClient,
    seeds: Sequence[int],
    *,
    scenario: str = "sample_arena",
    side: str = "players",
    entries: Sequence[str] = ("random", "scripted", "default"),
    agents: Sequence[str] = (),
    rng_seed: int = 0,
) -> tuple[list[EntryResult], EntryResult]:
    """Play every entry on ``seeds``; returns (results, the default-policy result)."""
    spec = client.get_spec(scenario)
    results: list[EntryResult] = []
    baseline = play_default(client, seeds, scenario, side)
    for e in entries:
        if e == "random":
            results.append(
                play(
                    client,
                    seeds,
                    random_policy(rng_seed),
                    scenario=scenario,
                    side=side,
                    name="random",
                )
            )
        elif e == "scripted":
            from pf1e_gym.scripted import TensorScripted

            results.append(
                play(
                    client,
                    seeds,
                    TensorScripted.from_client(client, scenario),
                    scenario=scenario,
                    side=side,
                    name="scripted",
                )
            )
        elif e == "default":
            results.append(baseline)
        else:
            raise ValueError(f"unknown entry {e!r} (random, scripted, default)")
    for path in agents:
        pol = agent_policy(path, spec)
        results.append(
            play(client, seeds, pol, scenario=scenario, side=side, name=pathlib.Path(path).name)
        )
    return results, baseline


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="pf1e-leaderboard",
        description="Random, scripted, default policy and saved agents, each against the "
        "default policy on the same held-out seeds.",
    )
    p.add_argument(
        "--address",
        help="server host:port (default: $PF1E_ADDRESS, else a local server: one listening on "
        "127.0.0.1:50051, else one started here and stopped at the end)",
    )
    p.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    p.add_argument("--scenario", default="sample_arena", help="bundled scenario name")
    p.add_argument("--side", default="players", help="side played by the entries")
    p.add_argument("--episodes", type=int, default=1000, help="episodes per entry (>= 1)")
    p.add_argument(
        "--seed", type=int, default=1_000_000, help="seed of episode 1 (episode k: seed + k)"
    )
    p.add_argument(
        "--entries",
        default="random,scripted,default",
        help="comma-separated built-in entries among random, scripted, default",
    )
    p.add_argument(
        "--agent", action="append", default=[], help="a saved policy (.npz or SB3 .zip); repeat"
    )
    p.add_argument("--png", help="write a bar chart of the win rates here")
    args = p.parse_args(argv)
    if args.episodes < 1:
        p.error("--episodes must be >= 1")
    entries = [e.strip() for e in args.entries.split(",") if e.strip()]
    for e in entries:
        if e not in ("random", "scripted", "default"):
            p.error(f"--entries: unknown entry {e!r} (random, scripted, default)")
    for a in args.agent:
        if not pathlib.Path(a).is_file():
            p.error(f"--agent {a}: no such file")
        if pathlib.Path(a).suffix not in (".npz", ".zip"):
            p.error(f"--agent {a}: expected a .npz or .zip file")
    if not 0 <= args.seed <= 2**64 - args.episodes:
        p.error(f"--seed {args.seed}: the seeds {args.seed}.. must lie in [0, 2^64)")
    if not entries and not args.agent:
        p.error("nothing to play: --entries is empty and no --agent")
    if args.png and not pathlib.Path(args.png).resolve().parent.is_dir():
        p.error(f"--png {args.png}: no such directory")
    seeds = _seed_list(args.seed, args.episodes)
    try:
        address = args.address or default_address()
    except (ServerNotFoundError, ServerStartError) as e:
        sys.exit(f"pf1e-leaderboard: {e}")
    client = Pf1eClient(address, timeout=300.0)
    t0 = time.perf_counter()
    try:
        # Bad arguments are told before any episode is played (exit 2, naming the flag).
        try:
            spec = client.get_spec(args.scenario)
        except grpc.RpcError as e:
            if e.code() in (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.INVALID_ARGUMENT):
                p.error(f"--scenario {args.scenario}: {e.details()}")
            if isinstance(e, ServerUnavailableError):
                sys.exit(f"pf1e-leaderboard: {e}")
            sys.exit(f"pf1e-leaderboard: server {address}: {e.code().name}: {e.details()}")
        sides = sorted({c.side for c in spec.combatants})
        if args.side not in sides:
            p.error(f"--side {args.side}: not a side of {args.scenario} ({', '.join(sides)})")
        for a in args.agent:
            try:
                agent_policy(a, spec)
            except (ValueError, OSError, KeyError, RuntimeError, zipfile.BadZipFile) as e:
                p.error(f"--agent {a}: {e}")
        results, baseline = run(
            client,
            seeds,
            scenario=args.scenario,
            side=args.side,
            entries=entries,
            agents=args.agent,
        )
    finally:
        client.close()
    print(
        f"{args.scenario}: side {args.side} vs the default policy, {args.episodes} seeds "
        f"{args.seed}..{args.seed + args.episodes - 1} (the same for every entry)"
    )
    print(table(results, baseline))
    print(f"({time.perf_counter() - t0:.1f} s)")
    if args.png:
        plot(results, args.png)
        print(f"wrote {args.png}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
