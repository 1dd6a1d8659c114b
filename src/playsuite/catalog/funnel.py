"""The curation funnel (count per stage, per source), the exclusion list and the genre figure.

The funnel is computed from the per-game decisions, never counted separately, so its numbers and
the exclusion list (one row, one reason per excluded game) always agree.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

import pandas as pd

from playsuite.catalog.filters import STAGES, Decision
from playsuite.catalog.ingest import RawGame
from playsuite.corpus import SOURCE_LABELS
from playsuite.files import atomic_path
from playsuite.records.funnel import (
    KEPT,
    STAGE,
    TOTAL_REMAINING,
    excluded_column,
    remaining_column,
)

UNCLASSIFIED = "Unclassified"


def _label(source: str) -> str:
    return SOURCE_LABELS.get(source, source)


def funnel_table(
    games: Sequence[RawGame],
    decisions: dict[str, Decision],
    skipped: Iterable[str] = (),
    descriptions: dict[str, str] | None = None,
) -> pd.DataFrame:
    """One row per stage (after an ``ingested`` row): games excluded there and remaining after it,
    per source and in total. Stages in ``skipped`` were not run and are marked so."""
    skipped = set(skipped)
    descriptions = descriptions or {}
    sources = [s for s in SOURCE_LABELS if any(g.source == s for g in games)]
    sources += sorted({g.source for g in games} - set(sources))
    missing = [g.id for g in games if g.id not in decisions]
    if missing:
        raise ValueError(f"no decision for {len(missing)} games, e.g. {missing[0]}")
    remaining = {s: sum(1 for g in games if g.source == s) for s in sources}
    rows = [
        {STAGE: "ingested", KEPT: "all games in the dumps"}
        | {excluded_column(_label(s)): 0 for s in sources}
        | {remaining_column(_label(s)): remaining[s] for s in sources}
        | {TOTAL_REMAINING: sum(remaining.values())}
    ]
    for item in STAGES:
        if not set(item.sources) & set(sources):
            continue  # a stage of another source (the sample funnel has no Debian rows)
        row: dict[str, object] = {
            STAGE: item.name,
            KEPT: descriptions.get(item.name, item.description)
            + (" (not run)" if item.name in skipped else ""),
        }
        for s in sources:
            out = sum(1 for g in games if g.source == s and decisions[g.id].stage == item.name)
            remaining[s] -= out
            row[excluded_column(_label(s))] = out
        for s in sources:
            row[remaining_column(_label(s))] = remaining[s]
        row[TOTAL_REMAINING] = sum(remaining.values())
        rows.append(row)
    kept = sum(1 for g in games if decisions[g.id].kept)
    if kept != rows[-1][TOTAL_REMAINING]:
        raise AssertionError("funnel does not add up")  # decisions with an unknown stage
    return pd.DataFrame(rows)


def exclusions_table(games: Sequence[RawGame], decisions: dict[str, Decision]) -> pd.DataFrame:
    """Every excluded game with the stage it left at and the reason."""
    order = {s.name: i for i, s in enumerate(STAGES)}
    rows = [
        {
            "id": g.id,
            "source": g.source,
            "title": g.title,
            "stage": decisions[g.id].stage,
            "reason": decisions[g.id].reason,
        }
        for g in games
        if not decisions[g.id].kept
    ]
    rows.sort(key=lambda r: (order[r["stage"]], r["source"], r["id"]))
    return pd.DataFrame(rows, columns=["id", "source", "title", "stage", "reason"])


#: Table 5's rows: the technical stages, with the paper's reason wording, in its order
TECHNICAL_REASONS: dict[str, str] = {
    "construct_runtime": "Construct runtime freeze failure",
    "drag_only": "Dragging is the only listed control",
    "multiplayer_only": "Requires multiple players",
    "not_a_game": "Not an interactive game",
    "gamepad_required": "Gamepad required",
}


def technical_exclusions_table(
    games: Sequence[RawGame], decisions: dict[str, Decision]
) -> pd.DataFrame:
    """Table 5: games excluded at each technical stage (detector or hand-kept list), per source
    and in total, from the same decisions as the funnel."""
    sources = [s for s in SOURCE_LABELS if any(g.source == s for g in games)]
    sources += sorted({g.source for g in games} - set(sources))
    rows = []
    for stage_name, reason in TECHNICAL_REASONS.items():
        row: dict[str, object] = {"reason": reason, "stage": stage_name}
        for s in sources:
            row[_label(s)] = sum(
                1 for g in games if g.source == s and decisions[g.id].stage == stage_name
            )
        row["games"] = sum(int(row[_label(s)]) for s in sources)  # type: ignore[call-overload]
        rows.append(row)
    return pd.DataFrame(rows, columns=["reason", "stage", *map(_label, sources), "games"])


def genre_distribution(
    genres: dict[str, str | None], sources: dict[str, str], order: Sequence[str]
) -> pd.DataFrame:
    """Games per canonical genre and source (taxonomy order; unclassified games last)."""
    labels = list(order)
    if any(not g for g in genres.values()):
        labels.append(UNCLASSIFIED)
    present = [s for s in SOURCE_LABELS if s in sources.values()]
    present += sorted(set(sources.values()) - set(present))
    table = pd.DataFrame(0, index=labels, columns=present, dtype=int)
    for game_id, genre in genres.items():
        label = genre or UNCLASSIFIED
        if label not in table.index:
            raise ValueError(f"{game_id}: genre {genre!r} is not in the taxonomy")
        table.loc[label, sources[game_id]] += 1
    table["total"] = table.sum(axis=1)
    table.index.name = "genre"
    return table.reset_index()


def plot_genre_distribution(table: pd.DataFrame, path: str | Path, title: str = "") -> None:
    """Figure 8: horizontal bars of games per genre, stacked by source."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    sources = [c for c in table.columns if c not in ("genre", "total")]
    data = table.iloc[::-1]
    fig, ax = plt.subplots(figsize=(6.0, 0.35 * len(data) + 1.6))
    left = [0] * len(data)
    for source in sources:
        values = data[source].tolist()
        ax.barh(data["genre"], values, left=left, label=SOURCE_LABELS.get(source, source))
        left = [a + b for a, b in zip(left, values, strict=True)]
    for y, total in enumerate(data["total"].tolist()):
        ax.text(total, y, f" {total}", va="center", fontsize=8)
    ax.set_xlabel("games")
    ax.set_xlim(0, max(max(left, default=0) * 1.15, 1))
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    if title:
        fig.suptitle(title)
    ax.legend(frameon=False, loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=len(sources))
    ax.spines[["top", "right"]].set_visible(False)
    fig.tight_layout()
    path = Path(path)
    with atomic_path(path, suffix=path.suffix) as tmp:
        fig.savefig(tmp, format=path.suffix.lstrip("."), dpi=150)
    plt.close(fig)
