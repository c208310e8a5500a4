#!/usr/bin/env python3
"""Train sb3-contrib's MaskablePPO on the batched SB3 adapter, playing the goblins of
``sample_arena`` (side ``players``) against the default-policy orcs.

    python clients/python/examples/train_ppo.py --out runs/ppo            # the shipped recipe
    python clients/python/examples/train_ppo.py --smoke --out /tmp/smoke  # CI: a few 1000 steps

Without ``--address`` it starts ``$PF1E_SERVER_BIN`` (else ``target/release/pf1e-env-server``,
else ``target/debug/…``) on a free loopback port with ``--data-dir`` (default: the repo's
``data/``) and stops it at the end.

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
  final win rates, the host).
"""

from __future__ import annotations

import argparse
import contextlib
import csv
import json
import os
import pathlib
import platform
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import numpy as np

REPO = pathlib.Path(__file__).resolve().parents[3]


@contextlib.contextmanager
def server(address: str | None, data_dir: str) -> Iterator[str]:
    """``address``, or a server started here (yields its ``host:port``)."""
    if address:
        yield address
        return
    candidates = [os.environ.get("PF1E_SERVER_BIN")] + [
        str(REPO / "target" / kind / "pf1e-env-server") for kind in ("release", "debug")
    ]
    binary = next((c for c in candidates if c and pathlib.Path(c).is_file()), None)
    if binary is None:
        sys.exit(
            "no server: pass --address, set PF1E_SERVER_BIN, or "
            "`cargo build --release -p pf1e-env-server`"
        )
    proc = subprocess.Popen(
        [binary, "--addr", "127.0.0.1:0", "--data-dir", data_dir],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env=dict(os.environ, RUST_LOG=os.environ.get("RUST_LOG", "warn")),
    )
    found: list[str] = []
    ready = threading.Event()

    def drain() -> None:
        assert proc.stderr is not None
        for line in proc.stderr:
            m = re.search(r"listening on (\S+)", line)
            if m and not found:
                found.append(m.group(1))
                ready.set()
        ready.set()

    threading.Thread(target=drain, daemon=True).start()
    ready.wait(60)
    try:
        if not found:
            sys.exit(f"{binary} did not start")
        yield found[0]
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


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


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--address", help="server host:port (default: start $PF1E_SERVER_BIN)")
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
    p.add_argument("--smoke", action="store_true", help="CI: 4096 steps, 8 envs, tiny evals")
    args = p.parse_args(argv)
    if args.smoke:
        args.timesteps, args.num_envs, args.n_steps, args.batch_size = 4096, 8, 64, 256
        args.eval_every, args.eval_episodes, args.final_episodes = 2048, 16, 16
        args.n_epochs = 2
    for name in ("timesteps", "num_envs", "eval_every", "eval_episodes", "final_episodes"):
        if getattr(args, name) < 1:
            p.error(f"--{name.replace('_', '-')} must be >= 1")
    if not 0 < args.round_discount <= 1:
        p.error("--round-discount must be in (0, 1]")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    # SIGTERM (kill, a CI timeout) unwinds like Ctrl-C, so that the server started here is
    # stopped by its context manager instead of being left running.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback

    from pf1e_gym import Pf1eClient
    from pf1e_gym import leaderboard as lb
    from pf1e_gym.numpy_policy import export_sb3
    from pf1e_gym.sb3 import Pf1eSB3VecEnv

    torch.set_num_threads(args.torch_threads)
    out = pathlib.Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
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
        )
        baseline = lb.play_default(client, eval_seeds, args.scenario, args.side)
        print(f"default policy on {len(eval_seeds)} held-out seeds: {baseline.win_rate:.3f}")

        net = [int(x) for x in args.net.split(",") if x]
        model = MaskablePPO(
            "MlpPolicy",
            env,
            learning_rate=(
                (lambda progress: args.lr * progress) if args.lr_schedule == "linear" else args.lr
            ),
            n_steps=args.n_steps,
            batch_size=args.batch_size,
            n_epochs=args.n_epochs,
            gamma=args.gamma,
            gae_lambda=args.gae_lambda,
            ent_coef=args.ent_coef,
            policy_kwargs={"net_arch": {"pi": net, "vf": net}},
            seed=args.seed,
            device="cpu",
            verbose=0,
        )

        def greedy(planes: np.ndarray, features: np.ndarray, masks: np.ndarray) -> np.ndarray:
            k = len(masks)
            obs = np.concatenate([planes.reshape(k, -1), features.reshape(k, -1)], axis=1)
            a, _ = model.predict(obs, action_masks=masks.astype(bool), deterministic=True)
            return np.asarray(a)

        rows: list[dict[str, Any]] = []
        best: dict[str, Any] = {"win_rate": -1.0, "params": None, "env_steps": 0}
        clock = {"train": 0.0, "since": time.perf_counter()}

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
            print(
                f"steps {steps:>8}  train {clock['train']:7.1f} s  win rate {r.win_rate:.3f} "
                f"(default {baseline.win_rate:.3f})  eval {r.wall_s:.1f} s",
                flush=True,
            )
            if r.win_rate > best["win_rate"]:
                best.update(win_rate=r.win_rate, params=model.get_parameters(), env_steps=steps)
            clock["since"] = time.perf_counter()

        class Eval(BaseCallback):
            def __init__(self) -> None:
                super().__init__()
                self.next = args.eval_every

            def _on_step(self) -> bool:
                if self.num_timesteps >= self.next:
                    evaluate(self.num_timesteps)
                    self.next += args.eval_every
                return True

        evaluate(0)
        model.learn(total_timesteps=args.timesteps, callback=Eval())
        steps = int(model.num_timesteps)
        if not rows or rows[-1]["env_steps"] != steps:
            evaluate(steps)
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
