"""Planted-values check at the paper's size: Table 2's published values, planted into synthetic
scores of 5,630 itch.io + 104 PyWeek games, recovered by the real main table, game bootstrap and
reproduction report. Prints every cell (published, measured, 95 % interval, inside), how many
published values fall inside their interval, the median interval width per corpus, and seconds.
A value the report flags outside here would mean the pipeline distorts what it measures.

    .venv/bin/python benchmarks/analysis_reference_planted.py [--resamples 10000] [--seeds 3]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from playsuite.analysis.bootstrap import BootstrapSpec
from playsuite.analysis.main_results import main_results
from playsuite.analysis.reference import load_reference, main_cells, reproduction_table
from playsuite.testing.synthetic_scores import SyntheticSpec, plant_table2, synthetic_scores

K0, K3 = "k0-hz0.33-base", "k3-hz0.33-base"
PAPER = Path(__file__).resolve().parents[1] / "config" / "reference" / "paper.yaml"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--resamples", type=int, default=10_000)
    parser.add_argument("--seeds", type=int, default=3, help="independent synthetic data sets")
    args = parser.parse_args()
    published = {k: v for k, v in load_reference(PAPER).items() if k.startswith("table2/")}
    presets = sorted({k.split("/")[2] for k in published})
    for seed in range(args.seeds):
        t0 = time.perf_counter()
        spec = SyntheticSpec(
            presets={p: ("VLM", 0.0) for p in presets},
            conditions=(K0, K3),
            corpora={"itch": 5630, "pyweek": 104},
            planted=plant_table2(published, K3, K0),
            failure_rate=0.03,
            seed=seed,
        )
        scores = synthetic_scores(spec)
        table = main_results(scores, K3, K0, BootstrapSpec(resamples=args.resamples, seed=seed))
        report = reproduction_table(published, main_cells(table))
        seconds = time.perf_counter() - t0
        if seed == 0:
            for _, r in report.iterrows():
                print(
                    f"{r['cell']:45s} {r['published']:7.3f} {r['measured']:7.3f} "
                    f"[{r['low']:7.3f}, {r['high']:7.3f}] {r['inside']}"
                )
        inside = int((report["inside"] == "yes").sum())
        means = report[~report["cell"].str.endswith("partial_k0")]
        corpus = means["cell"].str.split("/").str[1]
        med = (means["high"] - means["low"]).groupby(corpus).median().round(3).to_dict()
        worst = (means["measured"] - means["published"]).abs().groupby(corpus).max()
        print(
            f"seed {seed}: {inside}/{len(report)} published values inside their interval; "
            f"mean cells: median interval width {med}, largest |measured - published| "
            f"{worst.round(4).to_dict()}; {seconds:.1f} s"
        )


if __name__ == "__main__":
    main()
