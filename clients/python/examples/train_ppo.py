#!/usr/bin/env python3
"""Train sb3-contrib's MaskablePPO on the batched SB3 adapter, playing the goblins of
``sample_arena`` (side ``players``) against the default-policy orcs.

    python clients/python/examples/train_ppo.py --out runs/ppo            # the shipped recipe
    python clients/python/examples/train_ppo.py --smoke --out /tmp/smoke  # CI: a few 1000 steps

Without ``--address`` it starts a server on a free loopback port (:func:`pf1e_gym.launch_server`:
``$PF1E_SERVER_BIN``, the wheel's bundled server, ``pf1e-env-server`` on PATH, else the
checkout's ``target/release`` or ``target/debug``) with ``--data-dir`` (default: the repo's
``data/``) and stops it at the end.

**Progress, logs, checkpoints.** A progress bar (env steps, steps/s, the last validation win
rate; on a terminal, ``--no-progress`` to hide it); TensorBoard logs in ``OUT/tb``
(``tensorboard --logdir OUT/tb``: SB3's rollout and train figures, the validation and default
win rates; ``--no-tensorboard`` to skip); every ``--checkpoint-every`` env steps a checkpoint
in ``OUT/checkpoint/`` (the model with its optimizer state, the best policy so far, the
curve and the clocks; written whole, then renamed: a run killed while writing keeps the
previous one). ``--resume`` continues a killed or stopped run from its last checkpoint, to
the same ``--timesteps`` (the training envs start new episodes: the resumed run is not the
bit-for-bit continuation of the uninterrupted one); without ``--resume`` an ``--out`` that
holds a checkpoint is refused rather than overwritten.

Reward: the shaped reward (damage and kill terms, potential-based) with
``RewardOptions.round_discount`` (per combat round, when the server has
``capabilities.round_discount``) and the learner's gamma = 1: padding a turn with actions that
change nothing cannot earn anything.

Every ``--eval-every`` env steps the greedy policy (masked argmax) plays ``--eval-episodes``
held-out validation episodes (seeds ``--eval-seed`` + k) and is compared with the default
policy on the same seeds; the best of these policies is kept (``--keep best``, else the last).
At the end the kept policy plays ``--final-episodes`` held-out test episodes (seeds
``--test-seed`` + k, the leaderboard's default seeds), against the default policy on the same
seeds. Training episodes are seeded ``--seed`` + slot, then with 63-bit draws: they meet
neither set (a collision has a probability of about 1e-13). Written to ``--out``:

- ``curve.csv``: ``env_steps, wall_s, win_rate, episodes`` (``wall_s``: training time,
  evaluations excluded);
- ``curve.png``: win rate vs env steps and vs wall time, the default policy as a line;
- ``model.zip`` (the SB3 checkpoint), ``policy.npz`` (:mod:`pf1e_gym.numpy_policy`: the actor's
  weights and the observation layout; no torch needed to play it);
- ``summary.json``: the figures (steps and wall time to pass the default policy, steps/s,
  final win rates, the host; ``resumed_at_env_steps``: the checkpoints a run resumed from);
- ``tb/`` (TensorBoard event files) and ``checkpoint/`` (``model.zip``, ``best.pt``,
  ``state.json``).
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import json
import os
import pathlib
import platform
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from typing import Any

import numpy as np

REPO = pathlib.Path(__file__).resolve().parents[3]


@contextlib.contextmanager
def server(address: str | None, data_dir: str) -> Iterator[str]:
    """``address``, or a server started here (yields its ``host:port``; stopped at the end)."""
    if address:
        yield address
        return
    import pf1e_gym

    try:
        local = pf1e_gym.launch_server(data_dir=data_dir)
    except (pf1e_gym.ServerNotFoundError, pf1e_gym.ServerStartError) as e:
        sys.exit(f"no server: pass --address, or {e}")
    with local:
        yield local.address


def host_cpu() -> str:
    """``lscpu``'s model name and max clock (or ``platform.processor()``)."""
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=False).stdout
    except OSError:
        return platform.processor() or "unknown CPU"
    info = dict(
        (k.strip(), v.strip()) for k, _, v in (ln.partition(":") for ln in out.splitlines())
    )
    model = info.get("Model name", platform.processor() or "unknown CPU")
    mhz = info.get("CPU max MHz") or info.get("CPU MHz")
    if not mhz:  # lscpu of some VMs has no clock: /proc/cpuinfo's "cpu MHz"
        with contextlib.suppress(OSError):
            for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
                if line.startswith("cpu MHz"):
                    mhz = line.partition(":")[2].strip()
                    break
    cores = info.get("CPU(s)", "?")
    return f"{model}, {cores} CPUs" + (f", {float(mhz) / 1000:.2f} GHz" if mhz else "")


SMOKE = {
    "timesteps": 4096,
    "num_envs": 8,
    "n_steps": 64,
    "batch_size": 256,
    "eval_every": 2048,
    "eval_episodes": 16,
    "final_episodes": 16,
    "n_epochs": 2,
}


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--address", help="server host:port (default: start one here)")
    p.add_argument("--data-dir", default=str(REPO / "data"), help="data dir of a started server")
    p.add_argument("--scenario", default="sample_arena")
    p.add_argument("--side", default="players")
    p.add_argument("--timesteps", type=int, default=600_000, help="env steps to train")
    p.add_argument("--num-envs", type=int, default=64, help="episodes stepped together")
    p.add_argument("--seed", type=int, default=0, help="seed of torch, SB3 and the envs")
    p.add_argument("--eval-every", type=int, default=50_000, help="env steps between evals")
    p.add_argument("--eval-episodes", type=int, default=300, help="held-out episodes per eval")
    p.add_argument("--final-episodes", type=int, default=1000, help="held-out episodes at the end")
    p.add_argument("--eval-seed", type=int, default=2_000_000, help="first validation seed")
    p.add_argument("--test-seed", type=int, default=1_000_000, help="first test seed")
    p.add_argument("--keep", choices=("best", "last"), default="best", help="policy exported")
    p.add_argument("--lr-schedule", choices=("constant", "linear"), default="constant")
    p.add_argument("--out", default="runs/ppo", help="output directory")
    p.add_argument("--net", default="64,64", help="hidden layer sizes of actor and critic")
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--n-steps", type=int, default=128, help="rollout length per env")
    p.add_argument("--batch-size", type=int, default=1024)
    p.add_argument("--n-epochs", type=int, default=4)
    p.add_argument("--gamma", type=float, default=1.0, help="learner's discount (1: see docs)")
    p.add_argument("--gae-lambda", type=float, default=0.95)
    p.add_argument("--ent-coef", type=float, default=0.01)
    p.add_argument("--round-discount", type=float, default=0.95, help="RewardOptions g")
    p.add_argument("--damage-weight", type=float, default=1.0)
    p.add_argument("--kill-weight", type=float, default=0.1)
    p.add_argument("--torch-threads", type=int, default=1)
    p.add_argument(
        "--checkpoint-every",
        type=int,
        help="env steps between checkpoints (default: --eval-every)",
    )
    p.add_argument(
        "--resume", action="store_true", help="continue from OUT/checkpoint (a killed run)"
    )
    p.add_argument(
        "--progress",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="progress bar (default: on a terminal)",
    )
    p.add_argument(
        "--tensorboard",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="TensorBoard logs in OUT/tb (tensorboardX)",
    )
    p.add_argument(
        "--smoke",
        action="store_true",
        help="CI: 4096 steps, 8 envs, tiny evals (options given explicitly still apply)",
    )
    p.add_argument(
        "--backend",
        choices=("grpc", "native"),
        default="grpc",
        help="training envs over the server (grpc) or in process (native: pf1e_gym.native; "
        "the evaluations still use the server)",
    )
    args = p.parse_args(argv)
    if args.smoke:
        for name, value in SMOKE.items():
            if getattr(args, name) == p.get_default(name):
                setattr(args, name, value)
    if args.checkpoint_every is None:
        args.checkpoint_every = args.eval_every
    for name in (
        "timesteps",
        "num_envs",
        "eval_every",
        "eval_episodes",
        "final_episodes",
        "checkpoint_every",
    ):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be >= 1")
    if not 0 < args.round_discount <= 1:
        p.error("--round-discount must be in (0, 1]")
    return args


def _write_atomic(path: pathlib.Path, write: Any) -> None:
    """``write(tmp_path)``, then rename over ``path``: a kill leaves the old file or the new."""
    tmp = path.with_name(path.name + ".tmp")
    write(tmp)
    os.replace(tmp, path)


class Checkpoint:
    """``OUT/checkpoint/``: ``model.zip`` (SB3, optimizer state included), ``best.pt`` (the
    best validation policy's parameters), ``state.json`` (curve rows, best, clocks), written
    in that order, ``state.json`` last: it names the model's env steps, so a checkpoint whose
    ``state.json`` is there is whole."""

    def __init__(self, out: pathlib.Path) -> None:
        self.dir = out / "checkpoint"
        self.state_path = self.dir / "state.json"

    def exists(self) -> bool:
        return self.state_path.is_file()

    def save(self, model: Any, state: dict[str, Any], best_params: Any) -> None:
        import torch

        self.dir.mkdir(parents=True, exist_ok=True)

        def save_model(tmp: pathlib.Path) -> None:
            with open(tmp, "wb") as f:  # a file object: SB3 adds no ".zip" to it
                model.save(f)

        _write_atomic(self.dir / "model.zip", save_model)
        if best_params is not None:
            _write_atomic(self.dir / "best.pt", lambda t: torch.save(best_params, t))
        _write_atomic(self.state_path, lambda t: t.write_text(json.dumps(state, indent=1)))

    def load_state(self) -> dict[str, Any]:
        state: dict[str, Any] = json.loads(self.state_path.read_text())
        return state

    def load_best(self) -> Any:
        import torch

        path = self.dir / "best.pt"
        return torch.load(path, weights_only=False) if path.is_file() else None


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    # SIGTERM (kill, a CI timeout) unwinds like Ctrl-C, so that the server started here is
    # stopped by its context manager instead of being left running.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
    from stable_baselines3.common.logger import Logger

    from pf1e_gym import Pf1eClient
    from pf1e_gym import leaderboard as lb
    from pf1e_gym.numpy_policy import export_sb3
    from pf1e_gym.sb3 import Pf1eSB3VecEnv

    torch.set_num_threads(args.torch_threads)
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    checkpoint = Checkpoint(out)
    if checkpoint.exists() and not args.resume:
        sys.exit(
            f"{out}: holds a checkpoint of an earlier run: pass --resume to continue it, or "
            "choose another --out"
        )
    eval_seeds = list(range(args.eval_seed, args.eval_seed + args.eval_episodes))
    final_seeds = list(range(args.test_seed, args.test_seed + args.final_episodes))
    if set(eval_seeds) & set(final_seeds):
        sys.exit("--eval-seed and --test-seed ranges overlap: the test would not be held out")

    with server(args.address, args.data_dir) as address:
        client = Pf1eClient(address, timeout=300.0)
        spec = client.get_spec(args.scenario)
        caps = spec.capabilities
        reward: dict[str, Any] = {
            "shaped": True,
            "damage_weight": args.damage_weight,
            "kill_weight": args.kill_weight,
        }
        if caps.round_discount:
            reward["round_discount"] = args.round_discount
        else:
            print("note: the server has no round_discount; undiscounted shaped reward (gamma 1)")
        env = Pf1eSB3VecEnv(
            args.num_envs,
            address,
            args.scenario,
            (args.side,),
            reward=reward,
            seed=args.seed,
            backend=args.backend,
            **({"data_dir": args.data_dir} if args.backend == "native" else {}),
        )
        baseline = lb.play_default(client, eval_seeds, args.scenario, args.side)
        print(f"default policy on {len(eval_seeds)} held-out seeds: {baseline.win_rate:.3f}")

        net = [int(x) for x in args.net.split(",") if x]
        hyper: dict[str, Any] = {
            "learning_rate": (
                (lambda progress: args.lr * progress) if args.lr_schedule == "linear" else args.lr
            ),
            "n_steps": args.n_steps,
            "batch_size": args.batch_size,
            "n_epochs": args.n_epochs,
            "gamma": args.gamma,
            "gae_lambda": args.gae_lambda,
            "ent_coef": args.ent_coef,
        }
        rows: list[dict[str, Any]] = []
        best: dict[str, Any] = {"win_rate": -1.0, "params": None, "env_steps": 0}
        clock = {"train": 0.0, "since": time.perf_counter()}
        resumed_at: list[int] = []
        if args.resume and checkpoint.exists():
            state = checkpoint.load_state()
            model = MaskablePPO.load(
                checkpoint.dir / "model.zip", env=env, device="cpu", custom_objects=hyper
            )
            rows = state["rows"]
            best.update(state["best"], params=checkpoint.load_best())
            clock["train"] = state["train_s"]
            resumed_at = [*state.get("resumed_at", []), int(model.num_timesteps)]
            print(f"resuming {out} at env step {model.num_timesteps}", flush=True)
        else:
            if args.resume:
                print(f"note: {out} has no checkpoint; starting a new run")
            model = MaskablePPO(
                "MlpPolicy",
                env,
                policy_kwargs={"net_arch": {"pi": net, "vf": net}},
                seed=args.seed,
                device="cpu",
                verbose=0,
                **hyper,
            )
        formats: list[Any] = []
        if args.tensorboard:
            formats.append(tensorboard_writer(out / "tb"))
        model.set_logger(Logger(str(out), formats))
        bar = progress_bar(args.progress, args.timesteps, int(model.num_timesteps))

        def greedy(planes: np.ndarray, features: np.ndarray, masks: np.ndarray) -> np.ndarray:
            k = len(masks)
            obs = np.concatenate([planes.reshape(k, -1), features.reshape(k, -1)], axis=1)
            a, _ = model.predict(obs, action_masks=masks.astype(bool), deterministic=True)
            return np.asarray(a)

        def evaluate(steps: int) -> None:
            clock["train"] += time.perf_counter() - clock["since"]
            r = lb.play(client, eval_seeds, greedy, scenario=args.scenario, side=args.side)
            rows.append(
                {
                    "env_steps": steps,
                    "wall_s": round(clock["train"], 2),
                    "win_rate": r.win_rate,
                    "episodes": r.n,
                }
            )
            line = (
                f"steps {steps:>8}  train {clock['train']:7.1f} s  win rate {r.win_rate:.3f} "
                f"(default {baseline.win_rate:.3f})  eval {r.wall_s:.1f} s"
            )
            (bar.write if bar is not None else print)(line)
            if bar is not None:
                bar.set_postfix(win_rate=f"{r.win_rate:.3f}", refresh=False)
            model.logger.record("eval/win_rate", r.win_rate)
            model.logger.record("eval/default_win_rate", baseline.win_rate)
            model.logger.dump(steps)
            if r.win_rate > best["win_rate"]:
                best.update(win_rate=r.win_rate, params=model.get_parameters(), env_steps=steps)
            clock["since"] = time.perf_counter()

        def save_checkpoint(steps: int) -> None:
            spent = clock["train"] + time.perf_counter() - clock["since"]
            state = {
                "env_steps": steps,
                "rows": rows,
                "best": {k: v for k, v in best.items() if k != "params"},
                "train_s": round(spent, 3),
                "resumed_at": resumed_at,
                "args": {k: v for k, v in vars(args).items() if k != "address"},
            }
            checkpoint.save(model, state, best["params"])

        class Callbacks(BaseCallback):
            def __init__(self, start: int) -> None:
                super().__init__()
                done = [r["env_steps"] for r in rows]
                last_eval = max(done) if done else 0
                self.next_eval = last_eval + args.eval_every
                self.next_checkpoint = start + args.checkpoint_every
                self.last = start

            def _on_step(self) -> bool:
                steps = self.num_timesteps
                if bar is not None:
                    bar.update(steps - self.last)
                self.last = steps
                if steps >= self.next_eval:
                    evaluate(steps)
                    self.next_eval += args.eval_every
                if steps >= self.next_checkpoint:
                    save_checkpoint(steps)
                    self.next_checkpoint += args.checkpoint_every
                return True

        if not rows:
            evaluate(0)
        start = int(model.num_timesteps)
        try:
            model.learn(
                total_timesteps=max(0, args.timesteps - start),
                callback=Callbacks(start),
                reset_num_timesteps=not resumed_at,
            )
        finally:
            if bar is not None:
                bar.close()
        steps = int(model.num_timesteps)
        if not rows or rows[-1]["env_steps"] != steps:
            evaluate(steps)
        save_checkpoint(steps)
        train_s = rows[-1]["wall_s"]
        env.close()

        if args.keep == "best" and best["params"] is not None:
            model.set_parameters(best["params"])
        model.save(out / "model.zip")
        training = {
            "algorithm": "sb3-contrib MaskablePPO (MlpPolicy)",
            "env_steps": steps,
            "train_wall_s": train_s,
            "kept": args.keep,
            "kept_env_steps": best["env_steps"] if args.keep == "best" else steps,
            "reward": reward,
            "args": {k: v for k, v in vars(args).items() if k not in ("address",)},
        }
        policy = export_sb3(model, spec, args.side, training)
        policy.save(out / "policy.npz")

        final_base = lb.play_default(client, final_seeds, args.scenario, args.side)
        final = lb.play(
            client, final_seeds, policy.tensor_policy(), scenario=args.scenario, side=args.side
        )
        cmp = lb.compare(final, final_base)
        client.close()

    passed = next((r for r in rows if r["win_rate"] > baseline.win_rate), None)
    summary = {
        "env_steps": steps,
        "train_wall_s": train_s,
        "steps_per_s": round(steps / train_s, 1) if train_s else None,
        "default_win_rate_eval": baseline.win_rate,
        "eval_episodes": len(eval_seeds),
        "passed_default_at_env_steps": passed["env_steps"] if passed else None,
        "passed_default_at_wall_s": passed["wall_s"] if passed else None,
        "kept": args.keep,
        "kept_env_steps": best["env_steps"] if args.keep == "best" else steps,
        "kept_eval_win_rate": best["win_rate"] if args.keep == "best" else rows[-1]["win_rate"],
        "test_seeds": [final_seeds[0], final_seeds[-1]],
        "final_episodes": len(final_seeds),
        "final_win_rate": final.win_rate,
        "final_win_interval": final.interval(),
        "final_default_win_rate": final_base.win_rate,
        "final_default_interval": final_base.interval(),
        "final_mcnemar": {"b": cmp.b, "c": cmp.c, "p": cmp.p_value},
        "resumed_at_env_steps": resumed_at,
        "host": host_cpu(),
        "load_avg": os.getloadavg(),
        "reward": reward,
    }
    with open(out / "curve.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=["env_steps", "wall_s", "win_rate", "episodes"])
        w.writeheader()
        w.writerows(rows)
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    plot_curve(rows, baseline.win_rate, out / "curve.png", summary)
    print(json.dumps(summary, indent=2))
    return 0


def progress_bar(enabled: bool | None, total: int, done: int) -> Any:
    """A tqdm bar over env steps (``None`` when disabled; ``enabled=None``: on a terminal)."""
    if enabled is False:
        return None
    from tqdm import tqdm

    bar = tqdm(
        total=total,
        initial=min(done, total),
        unit="step",
        unit_scale=True,
        dynamic_ncols=True,
        disable=None if enabled is None else False,
        desc="MaskablePPO",
    )
    return None if bar.disable else bar


def tensorboard_writer(folder: pathlib.Path) -> Any:
    """An SB3 logger output (a ``KVWriter``) writing TensorBoard event files with tensorboardX
    (SB3's own ``tensorboard`` format needs the ``tensorboard`` package, tensorboardX does
    not): every number the logger records (``rollout/ep_rew_mean``, ``train/loss``…, and the
    ``eval/`` win rates), at the env step of the dump."""
    from stable_baselines3.common.logger import KVWriter
    from tensorboardX import SummaryWriter

    class TensorBoardWriter(KVWriter):
        def __init__(self) -> None:
            self.writer = SummaryWriter(str(folder))

        def write(
            self, key_values: dict[str, Any], key_excluded: dict[str, Any], step: int = 0
        ) -> None:
            for key, value in key_values.items():
                excluded = key_excluded.get(key) or ()
                if "tensorboard" in excluded or isinstance(value, str | bool):
                    continue
                if isinstance(value, int | float | np.integer | np.floating):
                    self.writer.add_scalar(key, float(value), step)
            self.writer.flush()

        def close(self) -> None:
            self.writer.close()

    return TensorBoardWriter()


def plot_curve(
    rows: list[dict[str, Any]], default: float, path: pathlib.Path, summary: dict[str, Any]
) -> None:
    """Win rate vs env steps and vs training wall time, the default policy as a line."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    steps = np.array([r["env_steps"] for r in rows])
    wall = np.array([r["wall_s"] for r in rows]) / 60.0
    rate = np.array([r["win_rate"] for r in rows]) * 100
    fig, axes = plt.subplots(1, 2, figsize=(9, 3.4), dpi=90, sharey=True)
    for ax, x, label in (
        (axes[0], steps, "env steps"),
        (axes[1], wall, "training wall time (min)"),
    ):
        ax.plot(x, rate, marker="o", label="MaskablePPO (greedy)")
        ax.axhline(100 * default, color="gray", linestyle="--", label="default policy")
        ax.set_xlabel(label)
        ax.grid(alpha=0.3)
    axes[0].set_ylabel(f"win rate (%), {rows[0]['episodes']} held-out seeds")
    axes[0].legend(loc="lower right")
    axes[0].set_ylim(0, 100)
    fig.suptitle(f"sample_arena, goblins vs default-policy orcs — {summary['host']}", fontsize=9)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


if __name__ == "__main__":
    sys.exit(main())
