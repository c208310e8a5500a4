"""A fight from an installed pf1e-gym wheel, in a clean virtualenv with no Rust toolchain.

Run by scripts/wheel_smoke.sh with the venv's python and a PATH without cargo. Checks, and
exits non-zero at the first failure:

1. no ``cargo`` / ``rustc`` on PATH, and ``pf1e_gym`` imported from the venv's site-packages
   (not from a checkout);
2. the wheel's contents: the native extension, the bundled binaries
   (``_bundled.server_command()`` / ``sim_command()``), the bundled data (``data_dir()``), the
   type-stub and prompt files of the package;
3. the engine in process: ``pf1e_gym.native.VectorEnv`` plays 8 sample-arena episodes to the
   end with random legal actions;
4. the bundled server: started from ``server_command()`` on 127.0.0.1:0, a ``Pf1eEnv`` plays
   one episode over gRPC to the end, and its observations equal the native ``Env``'s;
5. the console scripts: ``pf1e-sim`` runs a 20-combat Monte Carlo of the sample arena from
   the bundled data (JSON report), ``pf1e-env-server --help`` answers.
"""

from __future__ import annotations

import json
import os
import pathlib
import re
import shutil
import subprocess
import sys
import sysconfig
import threading

import numpy as np


def check(cond: object, what: str) -> None:
    if not cond:
        sys.exit(f"wheel smoke: FAILED: {what}")
    print(f"ok: {what}")


def main() -> int:
    check(
        shutil.which("cargo") is None and shutil.which("rustc") is None,
        "no cargo/rustc on PATH",
    )
    import pf1e_gym
    from pf1e_gym import _bundled

    site = pathlib.Path(sysconfig.get_paths()["purelib"]).resolve()
    pkg = pathlib.Path(pf1e_gym.__file__).resolve().parent
    check(pkg.parent == site, f"pf1e_gym imported from the venv ({pkg})")
    check(list(pkg.glob("_native*.so")), "the native extension is in the package")
    server, sim, data = (
        _bundled.server_command(),
        _bundled.sim_command(),
        _bundled.data_dir(),
    )
    check(server is not None and sim is not None, f"bundled binaries: {server}, {sim}")
    check(
        data is not None and pathlib.Path(data).resolve().is_relative_to(pkg),
        f"data: {data}",
    )
    check(
        (pathlib.Path(data) / "scenarios" / "sample_arena.yaml").is_file(),
        "bundled scenarios",
    )
    check(list(pkg.glob("_proto/**/*.pyi")), "the stubs' .pyi files")
    check(list(pkg.glob("llm/prompts/*/*.txt")), "the LLM prompt files")
    check((pkg / "py.typed").is_file(), "py.typed")

    from pf1e_gym import native

    env = native.VectorEnv(8, autoreset_mode="next_step")
    obs, _ = env.reset(seed=0)
    rng = np.random.default_rng(0)
    ended = steps = 0
    while ended < 8 and steps < 5000:
        acts = np.array(
            [
                int(rng.choice(np.flatnonzero(m))) if m.any() else 0
                for m in obs["action_mask"]
            ]
        )
        obs, _, term, trunc, _ = env.step(acts)
        ended += int(np.sum(term | trunc))
        steps += 1
    check(ended >= 8, f"native: 8 episodes played to the end in {steps} steps")

    proc = subprocess.Popen(
        [*server, "--addr", "127.0.0.1:0", "--data-dir", data],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        address = None
        assert proc.stderr is not None
        for line in proc.stderr:
            m = re.search(r"listening on (\S+)", line)
            if m:
                address = m.group(1)
                break
        check(address, f"the bundled server listens ({address})")
        threading.Thread(
            target=lambda: [None for _ in proc.stderr], daemon=True
        ).start()
        g = pf1e_gym.Pf1eEnv(address)
        n = native.Env()
        (og, _), (on, _) = g.reset(seed=5), n.reset(seed=5)
        done, same, turns = False, True, 0
        while not done:
            same &= all(np.array_equal(og[k], on[k]) for k in og)
            a = int(rng.choice(np.flatnonzero(og["action_mask"])))
            og, _, tg, ug, _ = g.step(a)
            on, *_ = n.step(a)
            done = tg or ug
            turns += 1
        check(same, f"gRPC (bundled server) and native agree over a {turns}-step fight")
        g.close()
    finally:
        proc.terminate()
        proc.wait(timeout=30)

    bindir = pathlib.Path(sys.executable).parent
    d = pathlib.Path(data)
    out = subprocess.run(
        [
            str(bindir / "pf1e-sim"),
            "--map",
            str(d / "maps" / "sample_arena.yaml"),
            "--side",
            "players",
            *[str(d / "monsters" / "goblin.json")] * 3,
            "--side",
            "monsters",
            *[str(d / "monsters" / "orc.json")] * 2,
            "--runs",
            "20",
            "--format",
            "json",
            "--threads",
            "1",
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    check(
        out.returncode == 0,
        f"pf1e-sim ran (exit {out.returncode}: {out.stderr[-300:]})",
    )
    report = json.loads(out.stdout)
    check(report, "pf1e-sim printed a JSON report")
    help_out = subprocess.run(
        [str(bindir / "pf1e-env-server"), "--help"],
        capture_output=True,
        text=True,
        check=False,
    )
    check(
        help_out.returncode == 0 and "--addr" in help_out.stdout,
        "pf1e-env-server --help",
    )
    print("wheel smoke: all checks passed")
    return 0


if __name__ == "__main__":
    os.environ.pop("PF1E_DATA_DIR", None)
    sys.exit(main())
