"""Analysis time at paper scale on synthetic scores (target: <= 30 s on a 2-core machine).

5,734 games x 14 presets x 2 conditions (k=0, k=3), 10,000 game-level bootstrap resamples,
leaderboard stability at 4 subset sizes with 1,000 subsets each. Times every statistic that the
paper's main tables and figures need, plus writing the tables and figures, and prints seconds.

    .venv/bin/python benchmarks/analysis_paper_scale.py
"""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

from playsuite.analysis import figures
from playsuite.analysis.ablations import Ablation, ablation_scores
from playsuite.analysis.bootstrap import BootstrapSpec
from playsuite.analysis.genres import genre_model_means, genre_rank_agreement, genre_table
from playsuite.analysis.history import history_curves
from playsuite.analysis.main_results import display_columns, main_results
from playsuite.analysis.outputs import write_stat_table
from playsuite.analysis.stability import stability
from playsuite.testing.synthetic_scores import SyntheticSpec, paper_presets, synthetic_scores

K0, K3 = "k0-hz0.33-base", "k3-hz0.33-base"
GAMES, PRESETS, RESAMPLES = 5734, 14, 10_000
SIZES, SUBSETS = (50, 200, 500, 2000), 1000


def main() -> None:
    timings: list[tuple[str, float]] = []

    def timed(name, fn, *args, **kwargs):
        t0 = time.perf_counter()
        out = fn(*args, **kwargs)
        timings.append((name, time.perf_counter() - t0))
        return out

    spec = SyntheticSpec(
        presets=paper_presets(PRESETS),
        conditions=[K0, K3],
        corpora={"itch": GAMES},
        condition_effects={K3: 0.2},
        genre_effects={"Puzzle": 0.5},
    )
    scores = timed("synthetic scores", synthetic_scores, spec)
    boot = BootstrapSpec(resamples=RESAMPLES, seed=0)
    t_all = time.perf_counter()
    main_t = timed("Table 2 (3 statistics x 14 presets, CIs)", main_results, scores, K3, K0, boot)
    genres = timed("Tables 3/11 (genres, CIs)", genre_table, scores, K3, K0, 60, boot)
    timed("genre ranking Spearman", genre_rank_agreement, scores, K0, 60)
    means = timed("genre heatmap means", genre_model_means, scores, "itch", K0)
    ab = Ablation("history", "history", "History", (K0, K3), None, "*", "*", None, 0)
    sub, _ = timed("ablation subset", ablation_scores, scores, ab, None)
    curves = timed("history curves (CIs)", history_curves, sub, ab, boot)
    stab = timed(
        f"stability ({len(SIZES)} sizes x {SUBSETS} subsets)",
        stability,
        scores,
        K0,
        SIZES,
        SUBSETS,
        3,
        0,
    )
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)

        def write_all():
            show = display_columns(main_t)
            write_stat_table(main_t, d / "m.csv", d / "m.md", d / "m.tex", show=show, bold=show[2:])
            write_stat_table(genres, d / "g.csv", d / "g.md", d / "g.tex")
            for name, fig in (
                ("stability", figures.stability_figure(stab)),
                ("history", figures.history_figure(curves, "History")),
                ("heatmap", figures.genre_heatmap(means, "itch")),
            ):
                figures.save_figure(fig, d / f"{name}.pdf", d / f"{name}.png")

        timed("write tables and 3 figures (PDF+PNG)", write_all)
    total = time.perf_counter() - t_all
    print(
        f"analysis at paper scale: {GAMES} games x {PRESETS} presets x 2 conditions "
        f"({len(scores)} episodes), {RESAMPLES} bootstrap resamples"
    )
    for name, secs in timings:
        print(f"  {name:<45} {secs:7.2f} s")
    print(f"  {'total (excluding data generation)':<45} {total:7.2f} s   (target <= 30 s)")


if __name__ == "__main__":
    main()
