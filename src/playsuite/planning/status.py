"""Where a campaign stands, read from its results tree alone (``playsuite status``).

A campaign of thousands of jobs is followed without Snakemake (whose own view needs the
configuration, a DAG and a lock-free working directory): this module reads what the jobs leave
in ``results/`` and counts, per stage and preset, the episodes that are done, running and failed,
with the reasons of the failures.

- **play**: an episode folder with a final ``meta.json`` status is done (a crash or a timeout
  is the game's outcome); a non-final one (``model_error``, ``harness_error``) or a damaged
  ``meta.json`` is failed, with its error. The tokens of every recorded episode, done or failed
  (``meta.json``'s ``usage``: both were paid for), are summed per preset: what a hosted
  model's campaign has cost so far. A staging folder (an episode being recorded) is
  running while a play job of its run is alive, else failed (its job was killed).
- **judge:{name}**: a judgement ``ok`` is done; any other status is failed, with its error.
  Played episodes without a judgement are running while a judge job of their run is alive.

A job is alive while its cost record (playsuite.records.costs) says ``running`` and its heartbeat
is fresh (the record is rewritten every ``HEARTBEAT_S``). A record that stopped beating, or whose
attempt ended ``failed``/``terminated``, and whose shard has no manifest, is a failed job, with
that reason. Runs without cost records (``playsuite play``) fall back to the staging folder's own
modification time.
"""

from __future__ import annotations

import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playsuite.config import schema_default
from playsuite.files import read_json
from playsuite.harness.costs import HEARTBEAT_S
from playsuite.harness.recorder import staging_episode
from playsuite.planning import paths
from playsuite.records.base import RecordError
from playsuite.records.costs import RUNNING, read_cost_record
from playsuite.records.episode import EpisodeError, read_meta
from playsuite.runtimes.base import is_final_status

#: A cost record not rewritten for this long belongs to a job that is gone.
STALE_AFTER_S = 4 * HEARTBEAT_S
#: Longest error text kept in a reason (the first line of it).
REASON_CHARS = 160
#: The usage sums the table shows (``--json`` has them all).
USAGE_SHOWN = ("prompt_tokens", "completion_tokens")


@dataclass
class Tally:
    """One stage of one preset: episode counts, and why the failed ones failed."""

    done: int = 0
    running: int = 0
    failed: int = 0
    #: reason -> number of failed episodes (or job attempts) with it
    reasons: Counter[str] = field(default_factory=Counter)
    #: reason -> the first episode or shard found with it, to look at
    examples: dict[str, str] = field(default_factory=dict)
    #: done episodes by their status (ok, crashed, timeout, ...)
    outcomes: Counter[str] = field(default_factory=Counter)
    jobs_running: int = 0
    #: the recorded episodes' ``usage`` summed (tokens, requests, retries); empty for baselines
    usage: Counter[str] = field(default_factory=Counter)

    def add_usage(self, usage: Any) -> None:
        """Add one ``meta.json``'s ``usage`` (null for a baseline; absent before format 3)."""
        if isinstance(usage, dict):
            self.usage.update({k: v for k, v in usage.items() if isinstance(v, int)})

    def fail(self, reason: str, where: str, *, episode: bool = True) -> None:
        self.failed += int(episode)
        self.reasons[reason] += 1
        self.examples.setdefault(reason, where)

    def as_dict(self) -> dict[str, Any]:
        return {
            "done": self.done,
            "running": self.running,
            "failed": self.failed,
            "jobs_running": self.jobs_running,
            "outcomes": dict(sorted(self.outcomes.items())),
            "usage": dict(sorted(self.usage.items())),
            "reasons": [
                {"reason": r, "count": n, "example": self.examples[r]}
                for r, n in self.reasons.most_common()
            ],
        }


def _reason(status: str, error: Any) -> str:
    first = str(error or "").strip().splitlines()
    text = f"{status}: {first[0]}" if first else status
    return text[:REASON_CHARS]


def _runs(root: Path) -> list[tuple[str, str, str, Path]]:
    """``(corpus, preset, condition, folder)`` of every run folder under ``root`` (the layout of
    results/runs and results/judgements/{judge})."""
    return [
        (c.name, p.name, k.name, k)
        for c in sorted(root.iterdir() if root.is_dir() else [])
        if c.is_dir()
        for p in sorted(c.iterdir())
        if p.is_dir()
        for k in sorted(p.iterdir())
        if k.is_dir()
    ]


@dataclass
class _Jobs:
    """The latest attempt of each shard of one run, from its cost records."""

    alive: int = 0
    failed: dict[str, str] = field(default_factory=dict)  # shard -> why its last attempt ended
    recorded: bool = False  # the run has cost records at all


def _jobs(folder: Path, now: float, stale_after_s: float) -> _Jobs:
    jobs = _Jobs()
    latest: dict[str, tuple[tuple[int, str], Path]] = {}
    for record in sorted(folder.glob("*.tsv")) if folder.is_dir() else []:
        # {shard}.{start time}-{pid}.tsv (playsuite.harness.costs.CostRecord)
        shard, _, attempt = record.stem.partition(".")
        started, _, pid = attempt.partition("-")
        if not started.isdigit():
            continue
        order = (int(started), pid)
        if shard not in latest or order > latest[shard][0]:
            latest[shard] = (order, record)
    for shard, (_, record) in latest.items():
        jobs.recorded = True
        try:
            status = str(read_cost_record(record)["status"].iloc[-1])
        except (RecordError, OSError, IndexError) as exc:
            jobs.failed[shard] = f"unreadable cost record: {exc}"
            continue
        if status == RUNNING and now - record.stat().st_mtime <= stale_after_s:
            jobs.alive += 1
        elif status == RUNNING:
            jobs.failed[shard] = "job killed (its cost record stopped beating)"
        elif status != "ok":
            jobs.failed[shard] = f"job attempt ended {status}"
    return jobs


def _play(results: Path, out: dict, now: float, stale_after_s: float) -> dict:
    """Play tallies; returns the played episodes by run, for the judge stage."""
    played: dict[tuple[str, str, str], set[str]] = {}
    for corpus, preset, condition, folder in _runs(results / "runs"):
        tally = out.setdefault(("play", preset), Tally())
        jobs = _jobs(results / "costs" / corpus / preset / condition, now, stale_after_s)
        tally.jobs_running += jobs.alive
        finished = played.setdefault((corpus, preset, condition), set())
        for child in sorted(folder.iterdir()):
            # staging folders are counted below, once the finished episodes are known
            if child.name.startswith(".") or not (child / "meta.json").is_file():
                continue
            try:
                meta = read_meta(child)
            except EpisodeError as exc:
                tally.fail(f"corrupt meta.json: {exc}"[:REASON_CHARS], str(child))
                continue
            tally.add_usage(meta.get("usage"))
            status = str(meta.get("status"))
            if is_final_status(status):
                tally.done += 1
                tally.outcomes[status] += 1
                finished.add(child.name)
            else:
                tally.fail(_reason(status, meta.get("error")), str(child))
        for child in sorted(folder.iterdir()):
            game = staging_episode(child.name)
            if game is None or game in finished:
                continue
            fresh = now - child.stat().st_mtime <= stale_after_s
            if jobs.alive or (not jobs.recorded and fresh):
                tally.running += 1
            else:
                tally.fail("recording abandoned (its play job is gone)", str(child))
        shards = folder / "shards"
        for shard, why in sorted(jobs.failed.items()):
            if not (shards / f"{shard}.tsv").is_file():
                tally.fail(why, f"{folder}/shards/{shard}", episode=False)
    return played


def _judge(results: Path, judge_costs: Path, played: dict, out: dict, now: float, stale: float):
    root = results / Path(paths.JUDGEMENTS).name
    for judge_dir in sorted(root.iterdir() if root.is_dir() else []):
        judge = judge_dir.name
        for corpus, preset, condition, folder in _runs(judge_dir):
            tally = out.setdefault((f"judge:{judge}", preset), Tally())
            jobs = _jobs(judge_costs / judge / corpus / preset / condition, now, stale)
            tally.jobs_running += jobs.alive
            judged = set()
            for file in sorted(folder.glob("*.json")):
                judged.add(file.stem)
                try:
                    obj = read_json(file)
                    status = str(obj["status"])
                except (OSError, ValueError, KeyError, TypeError) as exc:
                    tally.fail(f"unreadable judgement: {exc}"[:REASON_CHARS], str(file))
                    continue
                if status == "ok":
                    tally.done += 1
                else:
                    tally.fail(_reason(status, obj.get("error")), str(file))
            if jobs.alive:
                tally.running += len(played.get((corpus, preset, condition), set()) - judged)
            shards = folder / "shards"
            for shard, why in sorted(jobs.failed.items()):
                if not (shards / f"{shard}.tsv").is_file():
                    tally.fail(why, f"{folder}/shards/{shard}", episode=False)


def default_judge_costs(results: Path) -> Path:
    """``analysis.judge_costs``'s default folder, under ``results`` instead of ``results/``."""
    default = Path(schema_default("config", "analysis", "judge_costs"))
    return results / default.relative_to(paths.RESULTS)


def campaign_status(
    results: str | Path = paths.RESULTS,
    *,
    judge_costs: str | Path | None = None,
    now: float | None = None,
    stale_after_s: float = STALE_AFTER_S,
) -> dict[tuple[str, str], Tally]:
    """``(stage, preset) -> Tally`` for the results tree ``results`` (stages: ``play``, then
    ``judge:{name}`` per judge), sorted by stage and preset."""
    root = Path(results)
    if not root.is_dir():
        raise FileNotFoundError(f"no results folder at {root}")
    now = time.time() if now is None else now
    costs = Path(judge_costs) if judge_costs else default_judge_costs(root)
    out: dict[tuple[str, str], Tally] = {}
    played = _play(root, out, now, stale_after_s)
    _judge(root, costs, played, out, now, stale_after_s)
    return dict(sorted(out.items(), key=lambda kv: (kv[0][0] != "play", kv[0])))


def render(status: dict[tuple[str, str], Tally], reasons: int = 5) -> str:
    """The table of :func:`campaign_status`, then each stage's and preset's failure reasons
    (the ``reasons`` most frequent, with an example to open)."""
    if not status:
        return "nothing played or judged yet\n"
    head: tuple[str, ...] = ("stage", "preset", "done", "running", "failed", "jobs running")
    rows = [
        (stage, preset, str(t.done), str(t.running), str(t.failed), str(t.jobs_running))
        for (stage, preset), t in status.items()
    ]
    if any(t.usage for t in status.values()):  # a model's tokens: what its play has cost
        head = (*head, "prompt tokens", "completion tokens")
        rows = [
            (*row, *(f"{t.usage[k]:,}" if t.usage else "" for k in USAGE_SHOWN))
            for row, t in zip(rows, status.values(), strict=True)
        ]
    widths = [max(len(r[i]) for r in [head, *rows]) for i in range(len(head))]
    lines = [
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in [head, *rows]
    ]
    for (stage, preset), tally in status.items():
        if not tally.reasons:
            continue
        lines.append(f"\n{stage} {preset}: failures")
        for reason, count in tally.reasons.most_common(reasons):
            lines.append(f"  {count:>5}  {reason}")
            lines.append(f"         e.g. {tally.examples[reason]}")
        if len(tally.reasons) > reasons:
            lines.append(f"  ({len(tally.reasons) - reasons} more reasons: --reasons N)")
    return "\n".join(lines) + "\n"
