"""The job of rule realtime_table: latency against progress under the real-time protocol
(playsuite.analysis.realtime; docs/analysis.md "Real time: latency against progress").

As in playsuite.planning.analysis_jobs, the function is the workflow script's body, so the script
only unpacks Snakemake's objects; the table is printed to standard error, the rule's log.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping

import pandas as pd

from playsuite.analysis.realtime import episode_latencies, realtime_table
from playsuite.analysis.tables import to_markdown
from playsuite.files import write_text_atomic


def _read_tsv(path: str) -> pd.DataFrame:
    """A table rule task_tables wrote (pandas, tab-separated); empty when it holds no row."""
    try:
        return pd.read_csv(path, sep="\t")
    except pd.errors.EmptyDataError:
        return pd.DataFrame()


#: What the Markdown table leaves out (the bounds stay in the TSV).
_BOUNDS = (" low", " high")


def realtime_job(task_runs: str, tasks: str, runs: str, out: Mapping[str, str]) -> None:
    """The real-time table (``out["tsv"]``, ``out["md"]``) from the task runs and the SR/PG
    table of rule task_tables and the episodes under ``runs``."""
    run_rows = _read_tsv(task_runs)
    keys = ["corpus", "preset", "condition", "game"]
    found = run_rows[keys].drop_duplicates() if not run_rows.empty else pd.DataFrame(columns=keys)
    episodes = found.itertuples(index=False, name=None)
    latencies = episode_latencies(episodes, runs)
    table = realtime_table(latencies, _read_tsv(tasks))
    write_text_atomic(out["tsv"], table.to_csv(sep="\t", index=False))
    show = [c for c in table.columns if not c.endswith(_BOUNDS)]
    text = to_markdown(table[show]) if not table.empty else "(no real-time condition played)\n"
    write_text_atomic(out["md"], text)
    print(
        f"{int(latencies['realtime'].sum())} real-time episodes of {len(latencies)} -> "
        f"{out['tsv']}\n{text}",
        file=sys.stderr,
    )
