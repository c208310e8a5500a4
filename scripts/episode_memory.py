"""Live episodes per GiB: the server's resident memory per open episode (its session
included) and the bytes the server accounts to it (Stats.episode_memory_bytes), for two
bundled scenarios, 4,000 episodes each, lean observations.

Usage: python scripts/episode_memory.py [SERVER_BINARY]  (default target/release/pf1e-env-server)
"""

import pathlib
import re
import subprocess
import sys
import time

REPO = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "clients" / "python"))
from pf1e_gym import Pf1eClient, pb

binp = (
    sys.argv[1]
    if len(sys.argv) > 1
    else str(REPO / "target" / "release" / "pf1e-env-server")
)
p = subprocess.Popen(
    [
        binp,
        "--addr",
        "127.0.0.1:0",
        "--data-dir",
        str(REPO / "data"),
        "--max-episodes",
        "20000",
        "--max-episodes-per-client",
        "20000",
    ],
    stderr=subprocess.PIPE,
    text=True,
)
addr = None
for line in p.stderr:
    m = re.search(r"listening on (\S+)", line)
    if m:
        addr = m.group(1)
        break


def rss():
    for l in pathlib.Path(f"/proc/{p.pid}/status").read_text().splitlines():
        if l.startswith("VmRSS:"):
            return int(l.split()[1]) * 1024


c = Pf1eClient(addr, timeout=120)
for scen in ["sample_arena", "skirmish_4v4"]:
    c.reset(scen, seed=0, controlled_sides=["players"])  # warm
    time.sleep(0.5)
    r0 = rss()
    s0 = c.stub.Stats(pb.StatsRequest())
    n = 4000
    for k in range(n // 500):
        c.stub.ResetBatch(
            pb.ResetBatchRequest(
                resets=[
                    pb.ResetRequest(
                        scenario=pb.Scenario(named=scen),
                        seed=k * 500 + i,
                        controlled=pb.Controlled(sides=["players"]),
                        observation=pb.ObservationOptions(
                            json=False, legal_actions=False, typed=False
                        ),
                    )
                    for i in range(500)
                ]
            )
        )
    time.sleep(0.5)
    r1 = rss()
    s1 = c.stub.Stats(pb.StatsRequest())
    per = (r1 - r0) / n
    acc = (s1.episode_memory_bytes - s0.episode_memory_bytes) / n
    print(
        f"{scen}: RSS +{(r1 - r0) / 2**20:.1f} MiB for {n} episodes = {per / 1024:.1f} KiB/episode "
        f"({2**30 / per:,.0f} episodes per GiB); accounted {acc / 1024:.1f} KiB/episode"
    )
p.terminate()
p.wait()
