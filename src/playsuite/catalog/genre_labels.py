"""Genre labels of the kept games: from tags by the Table 6 rule, else from the LLM classifier.

One label per game records how it was obtained (``tags`` | ``llm`` | ``none``), so the genre figure
can be traced back: a game left ``none`` (no genre tag and no classifier configured, or a
classifier that failed) is shown as "Unclassified", never guessed.
"""

from __future__ import annotations

import csv
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from playsuite.catalog.genres import Taxonomy
from playsuite.catalog.ingest import RawGame
from playsuite.files import atomic_open

COLUMNS = ("id", "genre", "method", "confidence", "reasoning")


@dataclass(frozen=True)
class GenreLabel:
    id: str
    genre: str | None
    method: str  # tags | llm | none
    confidence: str | None = None  # the classifier's own: high | medium | low
    reasoning: str = ""


#: classifies one game into exactly one canonical genre (raises on failure)
Classifier = Callable[[RawGame], GenreLabel]


def needs_classifier(game: RawGame, taxonomy: Taxonomy) -> bool:
    """PyWeek games have no platform tags; itch.io games may carry no genre tag."""
    return game.source == "pyweek" or taxonomy.classify(game.tags) is None


def label_games(
    games: Iterable[RawGame],
    taxonomy: Taxonomy,
    classifier: Classifier | Mapping[str, Classifier] | None = None,
) -> list[GenreLabel]:
    """One label per game. ``classifier`` is one classifier for every source, or one per source
    (the paper labels PyWeek and untagged itch.io games with different models); a game whose
    source has none is left unclassified with that reason."""
    labels = []
    for game in games:
        if not needs_classifier(game, taxonomy):
            labels.append(GenreLabel(game.id, taxonomy.classify(game.tags), "tags"))
            continue
        chosen = classifier.get(game.source) if isinstance(classifier, Mapping) else classifier
        if chosen is None:
            reason = f"no classifier configured for {game.source}"
            labels.append(GenreLabel(game.id, None, "none", reasoning=reason))
            continue
        try:
            labels.append(chosen(game))
        except Exception as exc:  # recorded, not fatal: one bad answer must not stop curation
            labels.append(GenreLabel(game.id, None, "none", reasoning=f"classifier failed: {exc}"))
    return labels


def write_labels(labels: Iterable[GenreLabel], path: str | Path) -> None:
    with atomic_open(path) as fh:
        writer = csv.writer(fh, delimiter="\t", lineterminator="\n")
        writer.writerow(COLUMNS)
        for label in labels:
            writer.writerow(
                [
                    label.id,
                    label.genre or "",
                    label.method,
                    label.confidence or "",
                    " ".join(label.reasoning.split()),
                ]
            )


def read_labels(path: str | Path) -> dict[str, GenreLabel]:
    with open(path, encoding="utf-8", newline="") as fh:
        return {
            row["id"]: GenreLabel(
                row["id"],
                row["genre"] or None,
                row["method"],
                row["confidence"] or None,
                row["reasoning"] or "",
            )
            for row in csv.DictReader(fh, delimiter="\t")
        }
