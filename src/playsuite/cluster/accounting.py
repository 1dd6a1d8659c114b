"""Job cost from Slurm's accounting (``sacct``) where it is on, the runner's own timing otherwise.

A play job's cost record (harness/node.py, one TSV row per attempt) holds the runner's wall time
and the preset's GPUs per replica, plus the Slurm job id when it ran under Slurm. The cost figure
should count what the cluster actually allocated: the whole job (start-up included) and the GPUs
Slurm granted. :func:`resolve_costs` replaces ``wall_s`` and ``gpus`` with sacct's ``ElapsedRaw``
and the ``gres/gpu`` count of ``AllocTRES`` for every record whose job sacct knows, and says where
each number came from in a ``cost_source`` column (``sacct`` or ``runner``). Without accounting
(sacct missing, failing or hanging) every record keeps the runner's numbers.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

import pandas as pd

from playsuite.processes import probe

SACCT_TIMEOUT_S = 30.0
_GPU_TRES = re.compile(r"(?:^|,)gres/gpu(?::[^=,]+)?=(\d+)")


@dataclass(frozen=True)
class SlurmJob:
    job_id: str
    elapsed_s: float
    gpus: int
    state: str


def gpus_of_tres(tres: str) -> int:
    """GPUs in an AllocTRES string (``billing=1,cpu=1,gres/gpu=2,...``); typed entries
    (``gres/gpu:a100=2``) repeat the untyped total, so the untyped one wins when both appear."""
    untyped = re.search(r"(?:^|,)gres/gpu=(\d+)", tres)
    if untyped:
        return int(untyped.group(1))
    return sum(int(n) for n in _GPU_TRES.findall(tres))


def parse_sacct(text: str) -> dict[str, SlurmJob]:
    """Rows of ``sacct -X -n -P --format=JobIDRaw,ElapsedRaw,AllocTRES,State``."""
    jobs = {}
    for line in text.splitlines():
        parts = line.strip().split("|")
        if len(parts) < 4 or not parts[0]:
            continue
        job_id, elapsed, tres, state = parts[:4]
        try:
            seconds = float(elapsed)
        except ValueError:
            continue
        jobs[job_id] = SlurmJob(job_id, seconds, gpus_of_tres(tres), state.split()[0])
    return jobs


def sacct_jobs(job_ids: Iterable[str], timeout_s: float = SACCT_TIMEOUT_S) -> dict[str, SlurmJob]:
    """Accounting records of ``job_ids``; empty when accounting is off or unreachable."""
    ids = sorted({str(j) for j in job_ids if str(j).strip()})
    if not ids:
        return {}
    cmd = [
        "sacct", "-X", "-n", "-P", "-j", ",".join(ids),
        "--format=JobIDRaw,ElapsedRaw,AllocTRES,State",
    ]  # fmt: skip
    done = probe(cmd, timeout_s=timeout_s)
    if done is None or done.returncode != 0:
        return {}
    return parse_sacct(done.stdout)


def resolve_costs(costs: pd.DataFrame, jobs: dict[str, SlurmJob] | None = None) -> pd.DataFrame:
    """Cost records with wall time and GPUs from sacct where it knows the job (see module doc).

    ``jobs`` defaults to asking sacct about the records' ``slurm_job_id`` values. Jobs sacct
    reports as still running keep the runner's numbers (their elapsed time is not final).
    """
    out = costs.copy()
    out["cost_source"] = "runner"
    if "slurm_job_id" not in out.columns or out.empty:
        return out
    ids = out["slurm_job_id"].fillna("").astype(str).str.replace(r"\.0$", "", regex=True)
    out["slurm_job_id"] = ids
    if jobs is None:
        jobs = sacct_jobs(ids)
    for idx, job_id in ids.items():
        job = jobs.get(job_id)
        if job is None or job.state in ("RUNNING", "PENDING", "REQUEUED", "SUSPENDED"):
            continue
        out.at[idx, "wall_s"] = job.elapsed_s
        out.at[idx, "gpus"] = job.gpus
        out.at[idx, "cost_source"] = "sacct"
    return out
