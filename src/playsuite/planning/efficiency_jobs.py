"""The jobs of Figure 10's rules: the launch test, the worker sweep's throughput, the judge's
throughput and the figure itself (rules efficiency_*; docs/analysis.md "Benchmark outputs").

As in playsuite.planning.analysis_jobs, each function is a workflow script's body, so the
script only unpacks Snakemake's objects. Each table is also printed to standard error, which the
script points at the rule's log, so a run's log shows what was measured.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from playsuite.analysis.cost import read_cost_records
from playsuite.files import write_text_atomic


def launch_test_job(
    catalog: str, games: Sequence[str], games_dir: str, fixed_wait_s: float, output: str
) -> None:
    """Figure 10a: the launch overhead of each launcher on ``games`` of the corpus table
    ``catalog`` (acquired under ``games_dir``), as a TSV."""
    import pandas as pd

    from playsuite.corpus import find_game, load_corpus
    from playsuite.runtimes.launchtest import COLUMNS, launch_test

    corpus = load_corpus(catalog)
    chosen = [find_game(corpus, g) for g in games]
    files = {g.id: Path(games_dir) / g.id / "files" for g in chosen}
    rows = launch_test(chosen, files, float(fixed_wait_s))
    table = pd.DataFrame(rows, columns=list(COLUMNS))
    print(table.groupby("launcher")["launch_s"].describe(), file=sys.stderr)
    write_text_atomic(output, table.to_csv(sep="\t", index=False))


def concurrency_job(
    workers: Sequence[int], manifests: Sequence[str], costs: Sequence[str], output: str
) -> None:
    """Figure 10b: the throughput of the same games played with each worker count sharing one
    model server; ``manifests`` and ``costs`` (folders of cost records) follow ``workers``."""
    from playsuite.analysis.efficiency import throughput_table
    from playsuite.records.manifest import read_manifest

    runs = []
    for count, manifest, folder in zip(workers, manifests, costs, strict=True):
        statuses = [row.status for row in read_manifest(manifest)]
        runs.append((int(count), statuses, read_cost_records(folder)))
    table = throughput_table(runs)
    print(table.to_string(index=False), file=sys.stderr)
    write_text_atomic(output, table.to_csv(sep="\t", index=False))


def judge_throughput_job(costs: str, manifests: Sequence[str], output: str) -> None:
    """Figure 10c: judge throughput per setting, from the judge jobs' cost records under
    ``costs`` and their shard manifests."""
    from playsuite.analysis.efficiency import judge_throughput, manifest_unit

    records = read_cost_records(costs)
    table = judge_throughput(records, {manifest_unit(path): path for path in manifests})
    print(table.to_string(index=False), file=sys.stderr)
    write_text_atomic(output, table.to_csv(sep="\t", index=False))


def efficiency_job(benchmarks: str, pdf: str, png: str) -> None:
    """Figure 10: launch overhead, play throughput and judge throughput from the benchmark
    TSVs under ``benchmarks``; a measurement that is missing is named in the log."""
    from playsuite.analysis.efficiency import read_benchmarks
    from playsuite.analysis.figures import efficiency_figure, save_figure

    bench = read_benchmarks(benchmarks)
    for name, table in bench.items():
        print(f"{name}: {'missing' if table is None else f'{len(table)} rows'}", file=sys.stderr)
    save_figure(efficiency_figure(bench), pdf, png)
