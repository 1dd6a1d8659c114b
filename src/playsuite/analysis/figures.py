"""Matplotlib figures for the paper, written as PDF and PNG at paper size.

Sizes are the paper's column widths (3.3 in single, 6.9 in double) with 8 pt text, so a figure is
readable when placed at 100 %. Every writer takes tidy tables produced by the statistics modules
and never computes statistics itself.
"""

from __future__ import annotations

import os
import textwrap
from typing import Any

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from matplotlib.ticker import NullLocator

from playsuite.analysis.history import ALL_MODELS
from playsuite.files import atomic_path

SINGLE = 3.3
DOUBLE = 6.9
FAMILY_COLOURS = {"VLM": "#1f77b4", "CUA": "#d62728", "VLA": "#2ca02c", "baseline": "#7f7f7f"}

STYLE = {
    "font.size": 8,
    "axes.titlesize": 8,
    "axes.labelsize": 8,
    "legend.fontsize": 7,
    "xtick.labelsize": 7,
    "ytick.labelsize": 7,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "pdf.fonttype": 42,
    "savefig.dpi": 200,
}


#: Resolution of the PNG copies (the PDFs are vector graphics).
PNG_DPI = 200


def save_figure(fig: plt.Figure, pdf: str | os.PathLike[str], png: str | os.PathLike[str]) -> None:
    """Write both formats atomically, then free the figure."""
    fig.tight_layout()
    with atomic_path(pdf, suffix=".pdf") as tmp:
        fig.savefig(tmp, format="pdf")
    with atomic_path(png, suffix=".png") as tmp:
        fig.savefig(tmp, format="png", dpi=PNG_DPI)  # explicit: rc settings may be out of scope
    plt.close(fig)


def _empty(ax: plt.Axes, text: str) -> None:
    ax.text(
        0.5,
        0.5,
        text,
        ha="center",
        va="center",
        transform=ax.transAxes,
        fontsize=7,
        color="#555555",
        wrap=True,
    )
    ax.set_xticks([])
    ax.set_yticks([])
    for spine in ax.spines.values():
        spine.set_visible(False)


def _panels(n: int, width: float = DOUBLE, height: float = 2.3) -> tuple[plt.Figure, list]:
    n = max(n, 1)
    with plt.rc_context(STYLE):
        fig, axes = plt.subplots(1, n, figsize=(width, height), squeeze=False)
    return fig, list(axes[0])


def _model_line(ax: plt.Axes, x: Any, y: Any, first: bool) -> None:
    """One model's faint line behind the mean; only the first is labelled in the legend."""
    ax.plot(
        x,
        y,
        color="#888888",
        alpha=0.6,
        lw=0.8,
        marker=".",
        ms=2,
        label="individual models" if first else None,
    )


def _mean_band(ax: plt.Axes, x: Any, mean: Any, low: Any, high: Any, colour: str, tag: str) -> None:
    """The all-models mean as a bold line over its shaded 95 % interval."""
    ax.fill_between(x, low, high, color=colour, alpha=0.15, lw=0)
    ax.plot(x, mean, color=colour, lw=2, marker="o", ms=3, label=f"mean (95 % CI){tag}")


def _suptitle(fig: plt.Figure, title: str) -> None:
    """The figure's title, wrapped onto as many lines as the figure's width needs.

    An ablation title grows with the conditions that were never run, and a one-corpus figure is a
    single column wide: unwrapped, the title ran past both edges. ``save_figure``'s tight layout
    then keeps the lines above the panels.
    """
    text = fig.suptitle(title, fontsize=STYLE["axes.titlesize"] + 1)
    renderer = fig.canvas.get_renderer()
    room = 0.96 * fig.bbox.width
    for columns in range(len(title), 9, -1):
        text.set_text(textwrap.fill(title, columns, break_long_words=False))
        if text.get_window_extent(renderer).width <= room:
            return


def history_figure(curves: pd.DataFrame, title: str) -> plt.Figure:
    """Figure 15: one panel per corpus; faint per-model lines, bold mean with CI band."""
    with plt.rc_context(STYLE):
        corpora = sorted(curves["corpus"].unique()) if not curves.empty else []
        fig, axes = _panels(len(corpora), DOUBLE if len(corpora) > 1 else SINGLE)
        if not corpora:
            _empty(axes[0], "no games played under every history condition")
        for ax, corpus in zip(axes, corpora, strict=False):
            sub = curves[curves["corpus"] == corpus]
            models = sub[sub["model"] != ALL_MODELS]
            for i, (_, g) in enumerate(models.groupby("model")):
                g = g.sort_values("history_k")
                _model_line(ax, g["history_k"], g["mean"], first=i == 0)
            m = sub[sub["model"] == ALL_MODELS].sort_values("history_k")
            _mean_band(ax, m["history_k"], m["mean"], m["low"], m["high"], "#1f77b4", "")
            ax.set_xticks(sorted(m["history_k"].unique()))
            ax.set_xlabel("history length k (frames)")
            ax.set_ylabel("mean progress level")
            ax.set_title(f"{corpus} ({int(sub['games'].iloc[0])} games)")
            ax.legend(frameon=False, loc="best")
        _suptitle(fig, title)
    return fig


def rate_figure(summary: pd.DataFrame, per_model: pd.DataFrame, title: str) -> plt.Figure:
    """Figure 13: means by rate and history; per-model gaps at two rates with Pearson r."""
    with plt.rc_context(STYLE):
        corpora = sorted(summary["corpus"].unique()) if not summary.empty else []
        fig, axes = _panels(2 * max(len(corpora), 1), DOUBLE, 2.4)
        if not corpora:
            _empty(axes[0], "no games played under every action-rate condition")
            _empty(axes[1], "")
        for i, corpus in enumerate(corpora):
            ax, ax2 = axes[2 * i], axes[2 * i + 1]
            s = summary[summary["corpus"] == corpus].reset_index(drop=True)
            xs = np.arange(len(s))
            for j, (stat, colour) in enumerate((("without", "#aaaaaa"), ("with", "#1f77b4"))):
                y = s[stat].to_numpy()
                err = np.vstack([y - s[f"{stat} low"], s[f"{stat} high"] - y])
                ax.bar(
                    xs + (j - 0.5) * 0.38,
                    y,
                    0.36,
                    yerr=err,
                    color=colour,
                    capsize=2,
                    label="no history" if stat == "without" else "with history",
                )
            ax.set_xticks(xs, [f"{hz:g} Hz" for hz in s["hz"]])
            ax.set_ylabel("mean progress level")
            ax.set_title(corpus)
            ax.legend(frameon=False, loc="upper center", bbox_to_anchor=(0.5, -0.12), ncol=2)
            for _, row in s[~s["reference"]].iterrows():
                ax.annotate(
                    f"Δgap {row['change']:+.2f} [{row['change low']:+.2f}, "
                    f"{row['change high']:+.2f}]",
                    (0.02, 0.97),
                    xycoords="axes fraction",
                    va="top",
                    fontsize=6,
                )
            pm = per_model[per_model["corpus"] == corpus].pivot(
                index="model", columns="hz", values="gap"
            )
            rates = list(s["hz"])
            if len(rates) >= 2:
                ax2.axhline(0, color="#cccccc", lw=0.5)
                ax2.axvline(0, color="#cccccc", lw=0.5)
                ax2.scatter(pm[rates[0]], pm[rates[1]], s=12, color="#1f77b4")
                for model, row in pm.iterrows():
                    ax2.annotate(str(model), (row[rates[0]], row[rates[1]]), fontsize=5)
                ax2.set_xlabel(f"history gain at {rates[0]:g} Hz")
                ax2.set_ylabel(f"history gain at {rates[1]:g} Hz")
                r = s[~s["reference"]].iloc[0]
                label = (
                    "r undefined (< 3 models)"
                    if pd.isna(r["pearson r"])
                    else (
                        f"r = {r['pearson r']:.2f} [{r['pearson r low']:.2f}, "
                        f"{r['pearson r high']:.2f}]"
                    )
                )
                ax2.set_title(label)
        _suptitle(fig, title)
    return fig


def prompting_figure(effects: pd.DataFrame, title: str) -> plt.Figure:
    """Figure 14: per model and variant, the change against the standard prompt with CIs."""
    with plt.rc_context(STYLE):
        corpora = sorted(effects["corpus"].unique()) if not effects.empty else []
        fig, axes = _panels(len(corpora), DOUBLE if len(corpora) > 1 else SINGLE, 2.6)
        if not corpora:
            _empty(axes[0], "no games played under every prompting condition")
        for ax, corpus in zip(axes, corpora, strict=False):
            sub = effects[effects["corpus"] == corpus]
            models = list(dict.fromkeys(sub["model"]))
            variants = list(dict.fromkeys(sub["variant"]))
            ys = np.arange(len(models))
            for j, variant in enumerate(variants):
                v = sub[sub["variant"] == variant].set_index("model").reindex(models)
                off = (j - (len(variants) - 1) / 2) * 0.25
                err = np.vstack([v["delta"] - v["low"], v["high"] - v["delta"]])
                ax.errorbar(v["delta"], ys + off, xerr=err, fmt="o", ms=3, capsize=2, label=variant)
            ax.axvline(0, color="#888888", lw=0.6)
            ax.set_yticks(ys, models)
            ax.invert_yaxis()
            ax.set_xlabel(f"Δ mean progress vs {sub['reference'].iloc[0]}")
            ax.set_title(corpus)
            ax.legend(frameon=False)
        _suptitle(fig, title)
    return fig


def axis_figure(effects: pd.DataFrame, title: str) -> plt.Figure:
    """Any ablation (playsuite.analysis.axis_effects): per corpus, mean progress per value
    (faint per-model lines, bold pooled mean with CI band; one line per crossed value) above
    the pooled difference from the reference value with its paired CI (dots: each model)."""
    with plt.rc_context(STYLE):
        corpora = sorted(effects["corpus"].unique()) if not effects.empty else []
        n = max(len(corpora), 1)
        width = DOUBLE if n > 1 else SINGLE
        fig, grid = plt.subplots(2, n, figsize=(width, 4.2), squeeze=False, sharex="col")
        if not corpora:
            _empty(grid[0][0], "no games played under every value of the ablation")
            _empty(grid[1][0], "")
        for col, corpus in enumerate(corpora):
            top, bottom = grid[0][col], grid[1][col]
            sub = effects[effects["corpus"] == corpus]
            values = list(dict.fromkeys(sub["value"]))
            pos = {v: i for i, v in enumerate(values)}
            for c, (cross, part) in enumerate(sub.groupby("cross", sort=False)):
                tag = f" ({cross})" if cross else ""
                models = part[part["model"] != ALL_MODELS]
                for i, (_, g) in enumerate(models.groupby("model")):
                    _model_line(top, g["value"].map(pos), g["mean"], first=i == 0 and c == 0)
                m = part[part["model"] == ALL_MODELS]
                colour = f"C{c}"
                xs = m["value"].map(pos)
                _mean_band(top, xs, m["mean"], m["mean low"], m["mean high"], colour, tag)
                d = m[m["delta"].notna()]
                err = np.vstack([d["delta"] - d["delta low"], d["delta high"] - d["delta"]])
                off = (c - (sub["cross"].nunique() - 1) / 2) * 0.1
                bottom.errorbar(
                    d["value"].map(pos) + off,
                    d["delta"],
                    yerr=err,
                    fmt="o",
                    ms=3,
                    capsize=2,
                    color=colour,
                    label=f"all models{tag}",
                )
                dm = models[models["delta"].notna()]
                bottom.scatter(
                    dm["value"].map(pos) + off + 0.06,  # beside the pooled bar
                    dm["delta"],
                    s=4,
                    color="#888888",
                    alpha=0.6,
                    lw=0,
                )
            bottom.axhline(0, color="#888888", lw=0.6)
            reference = sub.loc[sub["delta"].isna() & (sub["model"] == ALL_MODELS), "value"]
            ref = reference.iloc[0] if len(reference) else "reference"
            top.set_ylabel("mean progress level")
            top.set_title(f"{corpus} ({int(sub['games'].iloc[0])} games)")
            top.legend(frameon=False, loc="best")
            bottom.set_ylabel(f"Δ vs {ref} (paired)")
            bottom.set_xticks(range(len(values)), values)
            bottom.set_xlabel(str(sub["axis"].iloc[0]))
        _suptitle(fig, title)
    return fig


def stability_figure(table: pd.DataFrame) -> plt.Figure:
    """Figure 5: Spearman rho, top-1 and top-k recovery against the number of games."""
    with plt.rc_context(STYLE):
        fig, axes = _panels(3, DOUBLE, 2.2)
        if table.empty:
            for ax in axes:
                _empty(ax, "corpus too small for any configured subset size")
            return fig
        top = int(table["top"].iloc[0])
        for corpus, g in table.groupby("corpus"):
            g = g.sort_values("n")
            line = axes[0].plot(g["n"], g["spearman median"], marker="o", ms=3, label=corpus)[0]
            axes[0].fill_between(
                g["n"],
                g["spearman p05"],
                g["spearman p95"],
                alpha=0.2,
                color=line.get_color(),
                lw=0,
            )
            for ax, stem in ((axes[1], "top1"), (axes[2], "topk")):
                ax.plot(g["n"], g[f"{stem} share"], marker="o", ms=3, color=line.get_color())
                ax.fill_between(
                    g["n"],
                    g[f"{stem} low"],
                    g[f"{stem} high"],
                    alpha=0.2,
                    color=line.get_color(),
                    lw=0,
                )
        labels = ("median Spearman ρ (5–95 %)", "top-1 recovered", f"top-{top} set recovered")
        columns = ("spearman median", "top1 share", "topk share")
        for ax, label, col in zip(axes, labels, columns, strict=True):
            if not table[col].notna().any():
                ax.cla()
                _empty(ax, f"{label}: undefined\n(needs more presets or games)")
                continue
            ax.set_xscale("log")
            sizes = sorted(table["n"].unique())
            ax.set_xticks(sizes, [str(int(n)) for n in sizes])
            ax.xaxis.set_minor_locator(NullLocator())
            ax.set_xlabel("games in subset")
            ax.set_ylabel(label)
            if col != "spearman median":
                ax.set_ylim(-0.02, 1.02)
        axes[0].legend(frameon=False)
    return fig


def genre_heatmap(means: pd.DataFrame, title: str, counts: pd.Series | None = None) -> plt.Figure:
    """Figures 11-12: presets x genres mean progress; every column is labelled with its n
    (``counts``: games with a valid run per genre), genres below the table cut included."""
    with plt.rc_context(STYLE):
        h = 1.4 + 0.2 * max(len(means.index), 1)
        fig, axes = _panels(1, DOUBLE, h)
        ax = axes[0]
        if means.empty:
            _empty(ax, "no valid evaluations")
            return fig
        im = ax.imshow(means.to_numpy(dtype=float), aspect="auto", cmap="viridis", vmin=0)
        labels = [
            f"{g}\n(n={int(counts.get(g, 0))})" if counts is not None else str(g)
            for g in means.columns
        ]
        ax.set_xticks(range(means.shape[1]), labels, rotation=45, ha="right")
        ax.set_yticks(range(means.shape[0]), list(means.index))
        for (i, j), v in np.ndenumerate(means.to_numpy(dtype=float)):
            if not np.isnan(v):
                ax.text(
                    j,
                    i,
                    f"{v:.2f}",
                    ha="center",
                    va="center",
                    fontsize=5,
                    color="white" if v < np.nanmax(means.to_numpy(dtype=float)) / 2 else "black",
                )
        fig.colorbar(im, ax=ax, label="mean progress level", fraction=0.03)
        ax.set_title(title)
    return fig


def cost_figure(table: pd.DataFrame) -> plt.Figure:
    """Figure 16: GPU-hours per 1,000 scored games against mean progress."""
    with plt.rc_context(STYLE):
        fig, axes = _panels(1, SINGLE, 2.6)
        ax = axes[0]
        t = table.dropna(subset=["gpu_hours_per_1k", "mean_progress"]) if not table.empty else table
        if t.empty:
            _empty(ax, "no cost records or no scored games")
            return fig
        sizes = t["params_b"].fillna(1.0).astype(float)
        for fam, g in t.groupby("family"):
            ax.scatter(
                g["gpu_hours_per_1k"],
                g["mean_progress"],
                s=10 + 4 * sizes[g.index],
                color=FAMILY_COLOURS.get(fam, "#000000"),
                alpha=0.8,
                label=fam,
                edgecolors="none",
            )
        for _, row in t.iterrows():
            ax.annotate(
                row["preset"],
                (row["gpu_hours_per_1k"], row["mean_progress"]),
                fontsize=5,
                xytext=(2, 2),
                textcoords="offset points",
            )
        if (t["gpu_hours_per_1k"] > 0).all():
            ax.set_xscale("log")
        ax.set_xlabel("GPU-hours per 1,000 scored games")
        ax.set_ylabel("mean progress level")
        ax.legend(frameon=False, markerscale=0.6)
    return fig


def efficiency_figure(bench: dict[str, pd.DataFrame | None]) -> plt.Figure:
    """Figure 10: (a) launch overhead per launcher, (b) play throughput against workers,
    (c) judge throughput per setting (or against concurrency, for a benchmark's table)."""
    with plt.rc_context(STYLE):
        fig, axes = _panels(3, DOUBLE, 2.2)
        launch, thr, judge = bench["launch.tsv"], bench["throughput.tsv"], bench["judge.tsv"]
        if launch is None or launch.empty:
            _empty(axes[0], "launch overhead: no measurements\n(results/benchmarks/launch.tsv)")
        else:
            ok = launch[launch["status"] != "failed"] if "status" in launch else launch
            by = "launcher" if "launcher" in ok else "runtime"
            groups = [g for g in ("fixed", "polling", "reuse") if g in set(ok[by])] or sorted(
                ok[by].unique()
            )
            axes[0].boxplot(
                [ok.loc[ok[by] == g, "launch_s"].dropna() for g in groups], tick_labels=groups
            )
            axes[0].set_ylabel("overhead before first frame (s)")
        if thr is None or thr.empty:
            _empty(axes[1], "play throughput: no measurements\n(results/benchmarks/throughput.tsv)")
        else:
            col, label = "episodes_per_hour", "episodes per hour"
            if "evaluations_per_gpu_hour" in thr and thr["evaluations_per_gpu_hour"].notna().any():
                col, label = "evaluations_per_gpu_hour", "evaluations per GPU-hour"
            t = thr.groupby("workers")[col].mean()
            axes[1].plot(t.index, t.to_numpy(), marker="o", ms=3)
            axes[1].set_xticks(list(t.index))
            axes[1].set_xlabel("game workers")
            axes[1].set_ylabel(label)
        if judge is None or judge.empty:
            _empty(axes[2], "judge throughput: no measurements\n(results/benchmarks/judge.tsv)")
        elif "setting" in judge:
            col, label = "videos_per_hour", "videos judged per hour"
            if "videos_per_gpu_hour" in judge and judge["videos_per_gpu_hour"].notna().any():
                col, label = "videos_per_gpu_hour", "videos judged per GPU-hour"
            j = judge.groupby("setting", sort=False)[col].mean()
            axes[2].barh(range(len(j)), j.to_numpy())
            axes[2].set_yticks(range(len(j)), [s.replace(", ", "\n") for s in j.index])
            axes[2].set_xlabel(label)
        else:
            j = judge.groupby("concurrency")["videos_per_hour"].mean()
            axes[2].plot(j.index, j.to_numpy(), marker="o", ms=3)
            axes[2].set_xlabel("concurrent judge requests")
            axes[2].set_ylabel("videos judged per hour")
    return fig
