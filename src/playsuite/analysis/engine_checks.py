"""The engine-check table: tiny random-weight models played and judged through the real engine.

Engine checks (``engine.checks``, playsuite.planning) exercise vLLM end to end: model loading, the
serve command line, requests, parsers, the judge's constrained decoding. Their models have random
weights, so their levels mean nothing about playing games; what this table reports is whether
the path worked: how the episodes ended, how many steps were played, how often the answer could
not be parsed (``invalid`` actions, run as no-ops), how long the model took per request, and
whether the judge produced schema-valid judgements. It never enters the paper's tables, which
are computed from scores tables that engine checks are not part of.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import pandas as pd

from playsuite.analysis.tables import to_markdown
from playsuite.records.episode import EpisodeError, read_meta
from playsuite.records.manifest import read_judge_manifest, read_manifest

COLUMNS = (
    "corpus",
    "preset",
    "condition",
    "episodes",
    "episode_statuses",
    "steps",
    "invalid_rate",
    "model_latency_s",
    "judge",
    "judged",
    "judge_statuses",
    "mean_level",
    "levels",
)
TITLE = "Engine checks: random-weight models, not results"
EXPLANATION = (
    "Tiny models with random weights, played and judged through the real inference engine "
    "(vLLM) to show that the path works end to end. Their answers are noise: unparseable "
    "answers become `invalid` actions (run as no-ops), and their levels say nothing about any "
    "model. They are in none of the paper's tables, figures or statistics."
)


def _counts(values: Iterable[str]) -> str:
    """``"crashed:1 ok:7"``: each value with its count, in name order."""
    return " ".join(f"{k}:{n}" for k, n in sorted(Counter(values).items()))


def _run_of(episode_dir: str) -> tuple[str, str, str]:
    corpus, preset, condition = Path(episode_dir).parts[-4:-1]
    return corpus, preset, condition


def engine_check_table(
    play_manifests: Iterable[str | os.PathLike[str]],
    judge: str,
    judge_manifests: Iterable[str | os.PathLike[str]],
) -> pd.DataFrame:
    """One row per engine-check run (corpus, preset, condition) with its judge's outcome.

    ``invalid_rate`` is invalid steps over steps, ``model_latency_s`` the mean seconds a model
    request took (``model_s`` over steps of the episodes' ``meta.json``; empty if not recorded),
    ``judged`` the judgements with a level, ``levels`` their distribution (``level:count``).
    """
    episodes: dict[tuple[str, str, str], list[dict]] = {}
    for manifest in play_manifests:
        for row in read_manifest(manifest):
            try:
                meta: Mapping[str, Any] = read_meta(row.episode_dir)
            except EpisodeError:  # absent or damaged: the manifest's figures stand alone
                meta = {}
            episodes.setdefault(_run_of(row.episode_dir), []).append(
                {
                    "status": row.status,
                    "steps": row.steps,
                    "invalid": meta.get("invalid_steps", round(row.invalid_rate * row.steps)),
                    "model_s": meta.get("model_s"),
                }
            )
    judged: dict[tuple[str, str, str], list[dict[str, str]]] = {}
    for manifest in judge_manifests:
        for jrow in read_judge_manifest(manifest):
            judged.setdefault(_run_of(jrow["episode_dir"]), []).append(jrow)
    rows = []
    for run, eps in sorted(episodes.items()):
        steps = sum(e["steps"] for e in eps)
        timed = [e for e in eps if e["model_s"] is not None]
        timed_steps = sum(e["steps"] for e in timed)
        judgements = judged.get(run, [])
        levels = [int(j["level"]) for j in judgements if j["status"] == "ok" and j["level"] != ""]
        rows.append(
            {
                "corpus": run[0],
                "preset": run[1],
                "condition": run[2],
                "episodes": len(eps),
                "episode_statuses": _counts(e["status"] for e in eps),
                "steps": steps,
                "invalid_rate": sum(e["invalid"] for e in eps) / steps if steps else float("nan"),
                "model_latency_s": (
                    sum(float(e["model_s"]) for e in timed) / timed_steps
                    if timed_steps
                    else float("nan")
                ),
                "judge": judge,
                "judged": len(levels),
                "judge_statuses": _counts(j["status"] for j in judgements) or "not judged",
                "mean_level": sum(levels) / len(levels) if levels else float("nan"),
                "levels": _counts(str(level) for level in levels),
            }
        )
    return pd.DataFrame(rows, columns=list(COLUMNS))


def engine_check_markdown(table: pd.DataFrame, heading: str = "#") -> str:
    """The table under its title and explanation (``heading``: ``#`` alone, ``##`` in a report)."""
    body = to_markdown(table, digits=3) if not table.empty else "(no engine checks ran)\n"
    return f"{heading} {TITLE}\n\n{EXPLANATION}\n\n{body}"
