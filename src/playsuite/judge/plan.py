"""Which judge jobs the workflow runs: shards of episodes per judge (used by rules/judge.smk).

Kept out of the Snakefile so the rules stay declarative and the planning is testable. The plan
is derived lazily from the play stage's targets (``play_targets()`` in rules/common.smk): an
episode target ``results/runs/{corpus}/{preset}/{condition}/{game}[/meta.json]`` is judged by
every configured judge, and by the ``state`` judge too when the game declares probes. Episodes
are cut into shards of ``judge.shard_size`` games in game-id order.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from functools import cached_property
from typing import Any

from playsuite.catalog.corpus import GameEntry, load_corpus
from playsuite.judge.run import workflow_settings

EPISODE_TARGET = re.compile(
    r"^results/runs/(?P<corpus>[^/]+)/(?P<preset>[^/]+)/(?P<condition>[^/]+)/(?P<game>[^/]+)"
    r"(?:/meta\.json)?/?$"
)
Unit = tuple[str, str, str, str, str]  # judge, corpus, preset, condition, shard


class JudgePlan:
    """Judge shards for the episodes the play stage makes."""

    def __init__(
        self, config: dict[str, Any], registry: Any, play_targets: Callable[[], Iterable[str]]
    ) -> None:
        self.config = config
        self.registry = registry
        self.settings = workflow_settings(config)
        self._play_targets = play_targets
        self._tables: dict[str, list[GameEntry]] = {}

    def games(self, corpus: str) -> list[GameEntry]:
        if corpus not in self._tables:
            self._tables[corpus] = load_corpus(self.config["corpora"][corpus]["table"])
        return self._tables[corpus]

    @cached_property
    def units(self) -> dict[Unit, list[str]]:
        """``{(judge, corpus, preset, condition, shard): [game ids]}``."""
        episodes: dict[tuple[str, str, str], set[str]] = {}
        for path in self._play_targets():
            match = EPISODE_TARGET.match(str(path))
            if match:
                key = (match["corpus"], match["preset"], match["condition"])
                episodes.setdefault(key, set()).add(match["game"])
        probes = {
            (corpus, g.id)
            for corpus in {k[0] for k in episodes}
            for g in self.games(corpus)
            if g.probes
        }
        judges = list(self.config["judges"])
        if self.settings["state_where_probes"] and probes and "state" not in judges:
            judges.append("state")
        size = int(self.settings["shard_size"])
        out: dict[Unit, list[str]] = {}
        for judge in judges:
            for (corpus, preset, condition), games in sorted(episodes.items()):
                if judge == "state":
                    games = {g for g in games if (corpus, g) in probes}
                ordered = sorted(games)
                for i in range(0, len(ordered), size):
                    out[(judge, corpus, preset, condition, f"s{i // size:04d}")] = ordered[
                        i : i + size
                    ]
        return out

    # -- what the rules ask ---------------------------------------------------------------------

    def scores_targets(self) -> list[str]:
        return sorted({f"results/scores/{unit[0]}.tsv" for unit in self.units})

    def episodes(self, wc: Any) -> list[str]:
        base = f"results/runs/{wc.corpus}/{wc.preset}/{wc.condition}"
        games = self.units[(wc.judge, wc.corpus, wc.preset, wc.condition, wc.shard)]
        return [f"{base}/{game}" for game in games]

    def episode_metas(self, wc: Any) -> list[str]:
        return [f"{d}/meta.json" for d in self.episodes(wc)]

    def manifests(self, wc: Any) -> list[str]:
        return [
            f"results/judgements/{j}/{c}/{p}/{cond}/shards/{s}.tsv"
            for (j, c, p, cond, s) in self.units
            if j == wc.judge
        ]

    def resource(self, name: str, default: Any) -> Callable[[Any], Any]:
        """A resource of a judge shard job: the judge preset's for Video-LLM judges."""

        def get(wc: Any) -> Any:
            preset = self.registry.judge(wc.judge)
            if name == "gpu":
                return preset.gpus
            return preset.resources.get(name, default) if preset.needs_server else default

        return get

    def genres(self, wc: Any) -> dict[str, str]:
        corpora = sorted({u[1] for u in self.units if u[0] == wc.judge})
        return {f"{c}/{g.id}": g.genre or "" for c in corpora for g in self.games(c)}

    def catalogs(self) -> dict[str, str]:
        return {c: spec["table"] for c, spec in self.config["corpora"].items()}
