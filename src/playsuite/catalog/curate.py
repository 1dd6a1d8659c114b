"""Curation steps the workflow runs one after another, and the files that pass between them.

Each function here is one rule's work: screen metadata, triage archives, decide the archive and
launch stages, and turn the kept games into catalog entries (DESIGN.md "Catalog entry"). The
per-game decision file (``decisions.tsv``) is the single record the funnel, the exclusion list and
the curated table are all derived from.
"""

from __future__ import annotations

import csv
import json
import os
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from playsuite.analysis.tables import write_table
from playsuite.archives.extract import Limits
from playsuite.archives.triage import scan_archive
from playsuite.catalog.debian_index import runtime_options
from playsuite.catalog.filters import (
    ArchiveFacts,
    Decision,
    FilterSettings,
    ManualExclusion,
    archive_exclusion,
    launch_exclusion,
    load_manual_exclusions,
    screen,
    stage_descriptions,
)
from playsuite.catalog.funnel import (
    exclusions_table,
    funnel_table,
    genre_distribution,
    plot_genre_distribution,
    technical_exclusions_table,
)
from playsuite.catalog.genre_labels import (
    label_games,
    needs_classifier,
    read_labels,
    write_labels,
)
from playsuite.catalog.genre_llm import endpoint_classifier
from playsuite.catalog.genres import load_taxonomy
from playsuite.catalog.harm import (
    harm_table,
    load_harm_categories,
    make_validator,
    screen_harm,
    validator_client,
    write_candidates,
)
from playsuite.catalog.ingest import RawGame, read_dump, read_records, write_records
from playsuite.catalog.registry import ingest_indexes, is_registry, registry_triage
from playsuite.catalog.technical import TextCheck, check_text_exclusions, write_checks
from playsuite.catalog.technical import system_prompt as technical_system_prompt
from playsuite.corpus import GameEntry, write_corpus_tsv
from playsuite.files import atomic_open, read_json
from playsuite.registry import load_registry

DECISION_COLUMNS = ("id", "source", "stage", "reason")


def is_url(location: str) -> bool:
    return location.startswith(("http://", "https://"))


def resolve_archive(location: str, mirror: str | None) -> str:
    """Where an archive is: a URL as given, an absolute path as given, else below the mirror."""
    if not location:
        raise ValueError("no archive location")
    if is_url(location) or os.path.isabs(location):
        return location
    if not mirror:
        raise ValueError(f"archive {location!r} is relative but the corpus has no mirror")
    return str(Path(mirror) / location)


def package_of(game: RawGame, mirror: str | None) -> str:
    """The corpus ``package`` of a game: a registry's package name, else its archive."""
    return game.source_id if is_registry(game) else resolve_archive(game.archive, mirror)


def write_decisions(decisions: Iterable[Decision], path: str | Path) -> None:
    with atomic_open(path) as fh:
        writer = csv.writer(fh, delimiter="\t", lineterminator="\n")
        writer.writerow(DECISION_COLUMNS)
        for d in decisions:
            reason = d.reason.replace("\t", " ").replace("\n", " ")
            writer.writerow([d.id, d.source, d.stage, reason])


def read_decisions(path: str | Path) -> dict[str, Decision]:
    with open(path, encoding="utf-8", newline="") as fh:
        return {
            row["id"]: Decision(row["id"], row["source"], row["stage"] or "", row["reason"] or "")
            for row in csv.DictReader(fh, delimiter="\t")
        }


def screen_all(
    games: Sequence[RawGame], settings: FilterSettings, manual: dict[str, ManualExclusion]
) -> list[Decision]:
    """Metadata and technical stages for every game."""
    return [screen(game, settings, manual) for game in games]


@dataclass(frozen=True)
class TriageSettings:
    trusted_rating_count: int = 50
    limits: Limits = field(default_factory=Limits)

    @classmethod
    def from_config(cls, data: dict[str, Any] | None) -> TriageSettings:
        data = data or {}
        mib = 1 << 20
        defaults = Limits()
        limits = Limits(
            max_entry_bytes=int(data.get("max_entry_mb", defaults.max_entry_bytes // mib) * mib),
            max_total_bytes=int(data.get("max_total_mb", defaults.max_total_bytes // mib) * mib),
            max_ratio=float(data.get("max_ratio", defaults.max_ratio)),
            max_entries=int(data.get("max_entries", defaults.max_entries)),
        )
        return cls(int(data.get("trusted_rating_count", 50)), limits)


def triage_game(
    game: RawGame,
    archive: str | Path,
    settings: TriageSettings,
    manual: dict[str, ManualExclusion],
) -> dict[str, Any]:
    """Scan one archive and decide the archive stages; one line of ``triage.jsonl``."""
    platform = {"web": "web", "linux": "native", "python": "python"}.get(game.build)
    report = scan_archive(
        archive,
        platform=platform,
        entry=game.start or None,
        rating_count=game.rating_count,
        trusted_rating_count=settings.trusted_rating_count,
        limits=settings.limits,
    )
    facts = ArchiveFacts(
        report.risk, report.policy, [s.to_dict() for s in report.signals], report.names
    )
    decision = archive_exclusion(game, facts, manual)
    out = report.to_dict(with_names=True)
    out.update(id=game.id, stage=decision.stage, reason=decision.reason)
    return out


def read_jsonl(path: str | Path) -> list[dict[str, Any]]:
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def write_jsonl(rows: Iterable[dict[str, Any]], path: str | Path) -> None:
    with atomic_open(path) as fh:
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")


def game_entry_point(game: RawGame, triage: dict[str, Any], launch: dict[str, Any] | None) -> str:
    """How to start the game: the dump's ``start``, else what the launch check found, else the
    archive's only Linux executable; ``""`` when none is known."""
    if launch and launch.get("entry"):  # the dump's start, or what the launch check found
        return str(launch["entry"])
    if game.start:
        return game.start
    executables = triage.get("executables") or []
    return executables[0] if len(executables) == 1 else ""


def final_decisions(
    games: Sequence[RawGame],
    screened: dict[str, Decision],
    triage: dict[str, dict[str, Any]],
    launch: dict[str, dict[str, Any]] | None,
    manual: dict[str, ManualExclusion],
) -> dict[str, Decision]:
    """Every game's decision after all stages. ``launch`` is ``None`` when no launch validation
    was run (the launch stage is then skipped, not passed silently: the funnel says so)."""
    out: dict[str, Decision] = {}
    for game in games:
        decision = screened[game.id]
        if decision.kept:
            if game.id not in triage:
                raise ValueError(f"{game.id}: passed screening but has no triage result")
            row = triage[game.id]
            decision = Decision(game.id, game.source, row["stage"], row["reason"])
        if decision.kept:
            result = None if launch is None else launch.get(game.id)
            if launch is not None and result is None:
                raise ValueError(f"{game.id}: no launch-validation result")
            decision = launch_exclusion(game, result, manual)
            # PyPI, npm: the entry is in the wheel / the package, found by the launch check
            known = result is not None or game.source not in ("pypi", "npm")
            if decision.kept and known and not game_entry_point(game, triage[game.id], result):
                decision = Decision(game.id, game.source, "launch", "no entry point known")
        out[game.id] = decision
    return out


def catalog_entry(
    game: RawGame,
    package: str,
    genre: str | None,
    triage: dict[str, Any],
    launch: dict[str, Any] | None,
) -> GameEntry:
    """The curated corpus row of a kept game. The triage risk and policy travel in ``options``
    so that the harness can apply the policy (extra logging for ``monitor``)."""
    options: dict[str, Any] = {
        "triage": {"risk": triage["risk"], "policy": triage["policy"]},
        **runtime_options(game),
    }
    if game.url:
        options["url"] = game.url
    return GameEntry(
        id=game.id,
        title=game.title,
        author=game.author,
        source=game.source,
        package=package,
        version=game.version or None,
        runtime=game.runtime,
        entry=game_entry_point(game, triage, launch),
        args=tuple((launch or {}).get("args") or ()),  # a PyPI game's found entry may need some
        tags=tuple(game.tags),
        genre=genre,
        description=game.description,
        controls=game.controls,
        rating=game.rating,
        rating_count=game.rating_count,
        screen=game.screen or None,
        options=options,
    )


# ---------------------------------------------------------------------------------------------
# one function per workflow step (the scripts under workflow/scripts/ only call these)


def step_ingest(
    dumps: dict[str, str],
    out: str | Path,
    indexes: dict[str, str] | None = None,
    debtag_genres: str | None = None,
    snapshot: str | Path | None = None,
    excerpt: str | Path | None = None,
    pypi: dict[str, Any] | None = None,
    npm: dict[str, Any] | None = None,
) -> None:
    """All sources of a corpus into one normalised ``records.jsonl``; ids unique across sources.
    ``indexes`` are registry sources (``{"debian": "apt" | Packages file, "pypi": ...,
    "npm": ...}``, and ``pypi``, ``npm`` the PyPI and npm ingests' settings); with ``snapshot``
    the sources read are pinned there (playsuite.catalog.registry)."""

    games: list[RawGame] = []
    for source, path in dumps.items():
        games.extend(read_dump(path, source))
    if snapshot is not None:
        target = excerpt or Path(snapshot).with_suffix(".Packages")
        found = ingest_indexes(indexes or {}, debtag_genres, snapshot, target, dumps, pypi, npm)
        games.extend(found)
    elif indexes:
        raise ValueError("registry indexes need a snapshot path")
    ids = [g.id for g in games]
    if len(set(ids)) != len(ids):
        raise ValueError("duplicate game ids across sources")
    write_records(games, out)


def step_screen(
    records: str | Path,
    exclusions: str | None,
    filters: dict[str, Any] | None,
    out: str | Path,
    validator: dict[str, Any] | None = None,
    out_checks: str | Path | None = None,
) -> None:
    """Metadata and technical stages; with ``validator`` (``catalog.technical_validator``) a
    model checks each exclusion that rests on a text detector (playsuite.catalog.technical),
    and ``out_checks`` lists the checks (header only without a validator)."""
    games = read_records(records)
    manual = load_manual_exclusions(exclusions)
    unknown = sorted(set(manual) - {g.id for g in games})
    if unknown:
        raise ValueError(f"exclusion list names games not in the dumps: {', '.join(unknown)}")
    settings = FilterSettings.from_config(filters)
    decisions = screen_all(games, settings, manual)
    checks: list[TextCheck] = []
    if validator:
        with validator_client(validator) as client:
            check = make_validator(client, validator, system=technical_system_prompt())
            decisions, checks = check_text_exclusions(games, decisions, settings, manual, check)
    write_decisions(decisions, out)
    if out_checks is not None:
        write_checks(checks, out_checks)


def candidates(
    records: str | Path, screened: str | Path, mirror: str | None
) -> list[tuple[str, str]]:
    """``(id, archive location)`` of every dump game that passed screening, in record order
    (registry games have no archive: :func:`registry_candidates`)."""

    decisions = read_decisions(screened)
    out = []
    for game in read_records(records):
        if decisions[game.id].kept and not is_registry(game):
            try:
                out.append((game.id, resolve_archive(game.archive, mirror)))
            except ValueError as exc:
                raise ValueError(f"{game.id}: {exc}") from None
    return out


def registry_candidates(records: str | Path, screened: str | Path) -> list[str]:
    """Ids of the registry games that passed screening, in record order."""
    decisions = read_decisions(screened)
    return [g.id for g in read_records(records) if is_registry(g) and decisions[g.id].kept]


def step_triage(
    records: str | Path,
    archives: dict[str, str],
    triage_config: dict[str, Any] | None,
    exclusions: str | None,
    out: str | Path,
    threads: int = 1,
    packages: Sequence[str] = (),
) -> None:
    """Scan every candidate archive (``threads`` at a time: zlib and file reads release the
    GIL) and write one line per game, in candidate order; then one unscanned line per registry
    candidate (``packages``: ids)."""
    settings = TriageSettings.from_config(triage_config)
    manual = load_manual_exclusions(exclusions)
    games = {g.id: g for g in read_records(records)}
    with ThreadPoolExecutor(max_workers=max(1, threads)) as pool:
        rows = pool.map(
            lambda item: triage_game(games[item[0]], item[1], settings, manual), archives.items()
        )
        registry = (registry_triage(games[game_id], manual) for game_id in packages)
        write_jsonl([*rows, *registry], out)


def triage_survivors(triage: str | Path) -> list[str]:
    return [row["id"] for row in read_jsonl(triage) if not row["stage"]]


def step_decide(
    records: str | Path,
    screened: str | Path,
    triage: str | Path,
    launch_files: dict[str, str] | None,
    exclusions: str | None,
    mirror: str | None,
    filters: dict[str, Any] | None,
    out: dict[str, str],
) -> None:
    """Final decisions, exclusion list, funnel table and the kept games (``kept.jsonl``)."""

    games = read_records(records)
    manual = load_manual_exclusions(exclusions)
    triaged = {row["id"]: row for row in read_jsonl(triage)}
    launch = None
    if launch_files is not None:
        launch = {game_id: read_json(path) for game_id, path in launch_files.items()}
    decisions = final_decisions(games, read_decisions(screened), triaged, launch, manual)
    write_decisions(decisions.values(), out["decisions"])
    write_table(exclusions_table(games, decisions), out["exclusions"])
    funnel = funnel_table(
        games,
        decisions,
        skipped=() if launch is not None else ("launch",),
        descriptions=stage_descriptions(FilterSettings.from_config(filters)),
    )
    write_table(
        funnel,
        out["funnel_csv"],
        out["funnel_md"],
        out["funnel_tex"],
        caption="Curation funnel: games excluded at each stage and remaining, per source.",
    )
    write_table(
        technical_exclusions_table(games, decisions),
        out["technical_csv"],
        out["technical_md"],
        caption="Technical exclusions: games excluded for each reason, per source.",
    )
    kept = []
    for game in games:
        if decisions[game.id].kept:
            row = triaged[game.id]
            kept.append(
                {
                    "game": game.to_dict(),
                    "package": package_of(game, mirror),
                    "triage": {k: row[k] for k in ("risk", "policy", "executables")},
                    "launch": None if launch is None else launch[game.id],
                }
            )
    write_jsonl(kept, out["kept"])


def step_table(
    kept: str | Path,
    genre_labels: str | Path,
    genres_config: str | Path,
    out_games: str | Path,
    out_distribution: str | Path,
    out_figures: list[str],
    corpus: str,
) -> None:
    """The curated corpus table, the genre distribution and Figure 8."""

    taxonomy = load_taxonomy(genres_config)
    labels = read_labels(genre_labels)
    entries = []
    sources = {}
    for row in read_jsonl(kept):
        game = RawGame.from_dict(row["game"])
        label = labels.get(game.id)
        if label is None:
            raise ValueError(f"{game.id}: no genre label")
        entries.append(
            catalog_entry(game, row["package"], label.genre, row["triage"], row["launch"])
        )
        sources[game.id] = game.source
    write_corpus_tsv(entries, out_games)
    table = genre_distribution({e.id: e.genre for e in entries}, sources, order=taxonomy.names)
    write_table(table, out_distribution)
    for path in out_figures:
        plot_genre_distribution(table, path, title=f"Genres of the curated {corpus} corpus")


def step_genres(
    kept: str | Path,
    genres_config: str | Path,
    llm: dict[str, Any] | None,
    out: str | Path,
) -> None:
    """Genre label of every kept game: the tag rule, else the LLM classifier of its source.

    ``llm`` is the ``catalog.genre_llm`` block: per source (``pyweek``, ``itch``) an endpoint,
    either a running server's socket (``uds``, ``model``) or a hosted OpenAI-compatible API
    (``base_url``, ``api_key_env``, ``model``), optional ``temperature``, ``max_tokens``,
    ``extra_body``. Only endpoints some game needs are opened.
    """
    taxonomy = load_taxonomy(genres_config)
    games = [RawGame.from_dict(row["game"]) for row in read_jsonl(kept)]
    needed = {g.source for g in games if needs_classifier(g, taxonomy)}
    endpoints = {s: e for s, e in (llm or {}).items() if e and s in needed}
    classifiers = load_registry().classifiers if endpoints else {}
    with ExitStack() as stack:
        chosen = {}
        for source, endpoint in endpoints.items():
            client, classifier = endpoint_classifier(endpoint, taxonomy, classifiers)
            stack.callback(client.close)
            chosen[source] = classifier
        write_labels(label_games(games, taxonomy, chosen), out)


def step_harm(
    kept: str | Path,
    categories_config: str | Path,
    validator: dict[str, Any] | None,
    out_candidates: str | Path,
    out_csv: str | Path,
    out_md: str | Path,
) -> None:
    """Table 4: harm-category candidates of the kept itch.io games by tag and keyword matching,
    each checked by the configured model (``catalog.harm.validator``; none: left unvalidated).
    """
    categories = load_harm_categories(categories_config)
    games = [RawGame.from_dict(row["game"]) for row in read_jsonl(kept)]
    if not validator:
        rows = screen_harm(games, categories)
    else:
        with validator_client(validator) as client:
            rows = screen_harm(games, categories, make_validator(client, validator))
    write_candidates(rows, out_candidates)
    table = harm_table(rows, categories, validated=bool(validator))
    write_table(
        table,
        out_csv,
        out_md,
        caption="Harm categories of the curated itch.io games: tag and keyword candidates and "
        "the games the model confirmed.",
    )
