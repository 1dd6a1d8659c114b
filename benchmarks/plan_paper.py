"""How long `snakemake -n` takes to plan the whole paper, and how much memory it needs.

Writes a synthetic catalog of the paper's size (benchmarks/paper_catalog.py: 5,630 itch.io + 104
PyWeek games), points config/paper.yaml at it with a second config file, and dry-runs the
workflow as a user would, printing wall time, CPU time, peak memory and the job counts. Target
(issue 8): <= 60 s and <= 2 GB on a 2-core machine; a naive one-job-per-game DAG took 337 s and
3.0 GB for 224K jobs.

    .venv/bin/python benchmarks/plan_paper.py [--shard-size 64] [--keep DIR]

The dry run uses `--replace-workflow-config` (as profiles/slurm does) so that the embedded
default's corpus is not merged into the paper's, and runs in the repository (it writes nothing
but Snakemake's metadata folder). On a busy machine wall time includes waiting for the CPU: CPU
time is the machine-independent figure.
"""

from __future__ import annotations

import argparse
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from paper_catalog import PAPER_COUNTS, write_paper_catalog

REPO = Path(__file__).resolve().parents[1]
TARGET_S = 60.0
TARGET_GB = 2.0


def plan(folder: Path, shard_size: int | None) -> dict[str, object]:
    tables = write_paper_catalog(folder)
    override: dict[str, object] = {"corpora": {c: {"table": str(p)} for c, p in tables.items()}}
    if shard_size is not None:
        paper = yaml.safe_load((REPO / "config" / "paper.yaml").read_text())
        override["play"] = {**paper["play"], "shard_size": shard_size}
    override_path = folder / "override.yaml"
    override_path.write_text(yaml.safe_dump(override))
    cmd = [
        str(Path(sys.executable).with_name("snakemake")),
        "-n",
        "--workflow-profile",
        "none",
        "--replace-workflow-config",
        "--configfile",
        "config/paper.yaml",
        str(override_path),
    ]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        sys.exit(f"snakemake -n failed:\n{done.stderr[-4000:]}")
    stats = done.stdout.split("Job stats:", 1)[-1].split("\n\n", 1)[0]
    counts = dict(re.findall(r"^(\w+)\s+(\d+)$", stats, flags=re.M))
    return {
        "wall_s": wall,
        "cpu_s": (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
        "peak_gb": after.ru_maxrss / 1024**2,  # KiB on Linux
        "counts": counts,
        "output_mb": len(done.stdout) / 1e6,
    }


def local_rules() -> set[str]:
    """Rules that run on the submit host, never as an sbatch job: the Snakefile's ``localrules:``
    block and every rule marked ``localrule: True``."""
    names: set[str] = set()
    block = re.search(r"(?ms)^localrules:\n(.*?)^\S", (REPO / "Snakefile").read_text())
    if block:
        names |= set(re.findall(r"(\w+),", block.group(1)))
    for path in (REPO / "rules").glob("*.smk"):
        for name, body in re.findall(r"(?ms)^rule (\w+):\n(.*?)(?=^\S|\Z)", path.read_text()):
            if "localrule: True" in body:
                names.add(name)
    return names


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shard-size", type=int, help="override play.shard_size of paper.yaml")
    ap.add_argument("--keep", type=Path, help="write the synthetic catalog here and keep it")
    args = ap.parse_args()
    if args.keep:
        args.keep.mkdir(parents=True, exist_ok=True)
        result = plan(args.keep, args.shard_size)
    else:
        with tempfile.TemporaryDirectory(prefix="plan-paper-") as tmp:
            result = plan(Path(tmp), args.shard_size)
    counts = result["counts"]
    assert isinstance(counts, dict)
    games = sum(PAPER_COUNTS.values())
    print(f"paper plan: {games} games ({', '.join(f'{c} {n}' for c, n in PAPER_COUNTS.items())})")
    for rule, n in counts.items():
        if rule != "total":
            print(f"  {rule:<22} {n:>7}")
    print(f"  {'total jobs':<22} {counts.get('total', '?'):>7}")
    local = local_rules()
    queued = sum(int(n) for rule, n in counts.items() if rule != "total" and rule not in local)
    print(f"  {'of which sbatch jobs':<22} {queued:>7}  (the rest run on the submit host)")
    wall, cpu, peak = result["wall_s"], result["cpu_s"], result["peak_gb"]
    print(f"snakemake -n: wall {wall:.1f} s, CPU {cpu:.1f} s, peak memory {peak:.2f} GB")
    print(f"  (dry-run listing {result['output_mb']:.0f} MB of text)")
    ok = cpu <= TARGET_S and peak <= TARGET_GB
    verdict = "meets" if ok else "MISSES"
    print(f"target <= {TARGET_S:.0f} s and <= {TARGET_GB:.0f} GB (CPU time): {verdict}")


if __name__ == "__main__":
    main()
