"""Planning cost of the per-episode alternative: one job per episode, grouped with a service job.

Issue 15 asks whether Snakemake's group jobs, with the model server as a ``service()`` job, could
carry the paper's campaign (one job per episode, grouped per shard onto one node and one server)
within 60 s of planning. A group is formed after the DAG is built, so the DAG still holds one
job per episode. This writes a minimal Snakefile of that shape (a server per shard of 64
episodes, each episode a job of the shard's group; nothing else) and dry-runs it for a few
episode counts, printing CPU time and peak memory, so the cost per episode can be set against
the paper's ~180K play episodes (and as many judge jobs).

    .venv/bin/python benchmarks/plan_group_jobs.py [--episodes 5000 10000 20000]
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

SNAKEFILE = """\
N = int(config["episodes"])
SHARD = 64


rule all:
    input:
        [f"runs/{i // SHARD:04d}/{i}/meta.json" for i in range(N)],


rule server:
    output:
        service("servers/{shard}.sock"),
    group:
        "play"
    shell:
        "true"


rule episode:
    input:
        "servers/{shard}.sock",
    output:
        "runs/{shard}/{i}/meta.json",
    group:
        "play"
    shell:
        "true"
"""
PAPER_EPISODES = 181_760  # 2,840 play shards x 64 games (benchmarks/plan_paper.py)


def plan(folder: Path, episodes: int) -> tuple[float, float, float]:
    """Wall s, CPU s and peak GB of ``snakemake -n`` over ``episodes`` grouped episode jobs."""
    (folder / "Snakefile").write_text(SNAKEFILE)
    cmd = [str(Path(sys.executable).with_name("snakemake")), "-n", "--quiet", "rules"]
    cmd += ["--cores", "65", "--config", f"episodes={episodes}"]  # a group runs at once
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(cmd, cwd=folder, capture_output=True, text=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"snakemake -n failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, after.ru_maxrss / 1024**2


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--episodes", type=int, nargs="+", default=[5000, 10000, 20000])
    args = ap.parse_args()
    cpus = []
    for n in args.episodes:
        with tempfile.TemporaryDirectory(prefix="plan-groups-") as tmp:
            wall, cpu, peak = plan(Path(tmp), n)
        cpus.append(cpu)
        print(f"{n:>7} episode jobs: wall {wall:.1f} s, CPU {cpu:.1f} s, peak {peak:.2f} GB")
    # the slope between the smallest and largest run: Snakemake's start-up cost left out
    first, last = args.episodes[0], args.episodes[-1]
    per = (cpus[-1] - cpus[0]) / (last - first) if last > first else cpus[-1] / last
    print(
        f"at {per * 1e3:.2f} ms CPU per episode job, the paper's {PAPER_EPISODES:,} play "
        f"episodes alone would take >= {per * PAPER_EPISODES:.0f} s to plan (judging doubles it)"
    )


if __name__ == "__main__":
    main()
