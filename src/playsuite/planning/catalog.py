"""Input functions of the catalog rules (rules/catalog.smk), kept out of the Snakefile.

Which archives a corpus needs depends on the metadata screen, and which launch results it needs
depends on triage: both are read from checkpoint outputs. Snakemake's ``checkpoints`` and
``storage`` objects are handed in by the rules file, so this module stays importable and testable
without a running workflow.
"""

from __future__ import annotations

import os
from types import SimpleNamespace
from typing import Any

from playsuite.catalog.curate import (
    candidates,
    is_url,
    registry_candidates,
    triage_survivors,
)
from playsuite.catalog.debian_index import LIVE_INDEX
from playsuite.catalog.ingest import REGISTRY_SOURCES
from playsuite.planning import paths

SOURCES = ("itch", "pyweek")


class CatalogInputs:
    """Bound to one workflow's configuration; each method is an input or params function."""

    def __init__(self, config: dict[str, Any], checkpoints: Any, storage: Any) -> None:
        self.catalog = config.get("catalog") or {}
        self.corpora = self.catalog.get("corpora") or {}
        self.checkpoints = checkpoints
        self.storage = storage
        self._archive_maps: dict[tuple[str, str, int], dict[str, str]] = {}
        self._versions: dict[tuple[str, int], dict[str, str]] = {}

    def corpus(self, wildcards: Any) -> dict[str, Any]:
        try:
            return self.corpora[wildcards.corpus]
        except KeyError:
            raise ValueError(
                f"no catalog corpus {wildcards.corpus!r} in config['catalog']"
            ) from None

    def dumps(self, wildcards: Any) -> dict[str, str]:
        """Input files of the ingest: the dumps, and registry indexes given as files (a live
        index, ``apt``, is no file: :meth:`indexes`)."""
        corpus = self.corpus(wildcards)
        files = {s: corpus[s] for s in SOURCES if corpus.get(s)}
        return files | {
            s: corpus[s] for s in REGISTRY_SOURCES if corpus.get(s) not in (None, LIVE_INDEX)
        }

    def indexes(self, wildcards: Any) -> dict[str, str]:
        """Registry sources of the corpus: ``{"debian": "apt" | Packages file}``."""
        corpus = self.corpus(wildcards)
        return {s: corpus[s] for s in REGISTRY_SOURCES if corpus.get(s)}

    def exclusions(self, wildcards: Any) -> list[str]:
        path = self.corpus(wildcards).get("exclusions")
        return [path] if path else []

    def mirror(self, wildcards: Any) -> str | None:
        return self.corpus(wildcards).get("mirror")

    def launch_configured(self, wildcards: Any) -> bool:
        return bool(self.corpus(wildcards).get("launch_results"))

    def candidates(self, wildcards: Any) -> list[tuple[str, str]]:
        screen = self.checkpoints.catalog_screen.get(corpus=wildcards.corpus).output[0]
        records = paths.catalog_file(wildcards.corpus, "records.jsonl")
        return candidates(records, screen, self.mirror(wildcards))

    def candidate_ids(self, wildcards: Any) -> list[str]:
        return [game_id for game_id, _ in self.candidates(wildcards)]

    def registry_ids(self, wildcards: Any) -> list[str]:
        """Screened-in registry games: triaged without an archive to scan."""
        screen = self.checkpoints.catalog_screen.get(corpus=wildcards.corpus).output[0]
        return registry_candidates(paths.catalog_file(wildcards.corpus, "records.jsonl"), screen)

    def package_of(self, wildcards: Any) -> str:
        """A registry game's package name (its id without the source prefix is not enough:
        ``xgalaga++`` is ``debian-xgalagaplusplus``), read from the records."""
        from playsuite.catalog.ingest import read_records

        records = paths.catalog_file(wildcards.corpus, "records.jsonl")
        for game in read_records(records):
            if game.id == wildcards.game:
                return game.source_id
        raise ValueError(f"{wildcards.game} is not in {records}")

    def version_of(self, wildcards: Any) -> str:
        """A game's version in the records (a params value: a new release of a registry
        package is checked again when Snakemake's params trigger sees it)."""
        from playsuite.catalog.ingest import read_records

        records = paths.catalog_file(wildcards.corpus, "records.jsonl")
        versions = self._versions.setdefault(
            (records, os.stat(records).st_mtime_ns),
            {g.id: g.version or "" for g in read_records(records)},
        )
        return versions.get(wildcards.game, "")

    def conformance(self, wildcards: Any) -> bool:
        """Whether the corpus's launch jobs run the whole runtime contract (``check:``)."""
        return self.corpus(wildcards).get("check", "launch") == "conformance"

    def pypi_lookups(self, wildcards: Any) -> int:
        """The corpus's ``pypi_lookups``, else the catalog's."""
        corpus = self.corpus(wildcards)
        return int(corpus.get("pypi_lookups", self.catalog.get("pypi_lookups", 40)))

    def npm_lookups(self, wildcards: Any) -> int:
        """The corpus's ``npm_lookups``, else the catalog's."""
        corpus = self.corpus(wildcards)
        return int(corpus.get("npm_lookups", self.catalog.get("npm_lookups", 40)))

    def archives(self, wildcards: Any) -> list[Any]:
        """Archives of the screened-in games: local paths, or URLs fetched by Snakemake storage
        (the snakemake-storage-plugin-http provider)."""
        return [
            self.storage.http(location) if is_url(location) else location
            for _, location in self.candidates(wildcards)
        ]

    def archive_of(self, wildcards: Any) -> Any:
        """The archive of one screened-in game (rule catalog_launch), fetched like the others.

        One job per candidate calls this: the candidate list is read once per corpus and
        screen file (re-read when the checkpoint output changes), not once per game.
        """
        screen = self.checkpoints.catalog_screen.get(corpus=wildcards.corpus).output[0]
        key = (wildcards.corpus, screen, os.stat(screen).st_mtime_ns)
        if key not in self._archive_maps:
            self._archive_maps[key] = dict(self.candidates(wildcards))
        location = self._archive_maps[key].get(wildcards.game)
        if location is None and wildcards.game in self.registry_ids(wildcards):
            return []  # a registry package: fetched by name in the job (params.package)
        if location is None:
            raise ValueError(
                f"{wildcards.game} did not pass the metadata screen of corpus {wildcards.corpus}"
            )
        return self.storage.http(location) if is_url(location) else location

    def launch_results(self, wildcards: Any) -> dict[str, str]:
        """One launch-validation result per game that passed triage (docs/catalog.md)."""
        template = self.corpus(wildcards).get("launch_results")
        if not template:
            return {}
        if "{game}" not in template:
            template = template.rstrip("/") + "/{game}.json"
        triage = self.checkpoints.catalog_triage.get(corpus=wildcards.corpus).output[0]
        return {game: template.format(game=game) for game in triage_survivors(triage)}

    def launch_files(self, wildcards: Any) -> list[str]:
        return list(self.launch_results(wildcards).values())

    def survey_launch_files(self, wildcards: Any) -> list[str]:
        """The check results of a registry's survey corpus (rule survey_table)."""
        corpus = paths.SURVEY_CORPUS.format(source=wildcards.source)
        return self.launch_files(SimpleNamespace(corpus=corpus))

    def launch_ids(self, wildcards: Any) -> list[str]:
        return list(self.launch_results(wildcards))
