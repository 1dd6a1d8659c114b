"""Which judge jobs the workflow runs: shards of episodes per judge (used by rules/judge.smk).

Kept out of the Snakefile so the rules stay declarative and the planning is testable. The plan
is derived lazily from the play stage's targets (``play_targets()`` in rules/common.smk), which
come in two forms:

- a play shard manifest ``results/runs/{corpus}/{preset}/{condition}/shards/{shard}.tsv``: the
  judge shard is the same shard (same games, same key); its episodes are read from the manifest's
  ``episode_dir`` column when the job runs, so the plan needs no game list;
- an episode ``results/runs/{corpus}/{preset}/{condition}/{game}[/meta.json]``: episodes are cut
  into shards of ``judge.shard_size`` games in game-id order.

Every configured judge judges every episode; the ``state`` judge is added when a game of a
played corpus declares probes, and judges only such games.

Engine checks (``engine.checks``, playsuite.planning) come as targets of their own: only the check
judge judges them, none of the configured judges does, and no scores table collects them (the
engine-check table reads their manifests), so they never reach the paper's statistics. Their
jobs always start the real engine: ``judge.server_argv`` (a stand-in) does not apply to them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from playsuite.corpus import GameEntry, load_corpus
from playsuite.judge.run import workflow_settings
from playsuite.planning import paths
from playsuite.planning.paths import EpisodeKey

Unit = tuple[str, str, str, str, str]  # judge, corpus, preset, condition, shard


@dataclass(frozen=True)
class UnitSpec:
    """A judge shard's inputs: a play manifest (episodes read at run time) or episode dirs."""

    play_manifest: str | None = None
    episodes: tuple[str, ...] = ()

    @property
    def inputs(self) -> list[str]:
        if self.play_manifest:
            return [self.play_manifest]
        return [f"{d}/meta.json" for d in self.episodes]


class JudgePlan:
    """Judge shards for the episodes the play stage makes."""

    def __init__(
        self,
        config: dict[str, Any],
        registry: Any,
        play_targets: Callable[[], Iterable[str]],
        check_judge: str = "",
        check_targets: Callable[[], Iterable[str]] = tuple,
    ) -> None:
        self.config = config
        self.registry = registry
        self.settings = workflow_settings(config)
        self._play_targets = play_targets
        self.check_judge = check_judge
        self._check_targets = check_targets
        self._tables: dict[str, list[GameEntry]] = {}

    def games(self, corpus: str) -> list[GameEntry]:
        if corpus not in self._tables:
            self._tables[corpus] = load_corpus(self.config["corpora"][corpus]["table"])
        return self._tables[corpus]

    @cached_property
    def probe_games(self) -> set[tuple[str, str]]:
        """(corpus, game) of every configured game that declares probes."""
        return {(c, g.id) for c in self.config["corpora"] for g in self.games(c) if g.probes}

    @cached_property
    def units(self) -> dict[Unit, UnitSpec]:
        """``{(judge, corpus, preset, condition, shard): UnitSpec}``, engine checks included."""
        manifests, episodes = _parse_targets(self._play_targets())
        played = {k[0] for k in manifests} | {k[0] for k in episodes}
        judges = list(self.config["judges"])
        probes = {pg for pg in self.probe_games if pg[0] in played}
        if self.settings["state_where_probes"] and probes and "state" not in judges:
            judges.append("state")
        out: dict[Unit, UnitSpec] = {}
        for judge in judges:
            out.update(self._judge_units(judge, manifests, episodes, probes))
        out.update(self.check_units)
        return out

    @cached_property
    def check_units(self) -> dict[Unit, UnitSpec]:
        """The check judge's units over the engine checks' episodes (empty without checks)."""
        if not self.check_judge:
            return {}
        manifests, episodes = _parse_targets(self._check_targets())
        return self._judge_units(self.check_judge, manifests, episodes, set())

    def _judge_units(
        self,
        judge: str,
        manifests: dict[tuple[str, str, str, str], str],
        episodes: dict[tuple[str, str, str], set[str]],
        probes: set[tuple[str, str]],
    ) -> dict[Unit, UnitSpec]:
        size = int(self.settings["shard_size"])
        out: dict[Unit, UnitSpec] = {}
        for (corpus, preset, condition, shard), manifest in sorted(manifests.items()):
            out[(judge, corpus, preset, condition, shard)] = UnitSpec(play_manifest=manifest)
        for (corpus, preset, condition), games in sorted(episodes.items()):
            if judge == "state":
                games = {g for g in games if (corpus, g) in probes}
            ordered = sorted(games)
            for i in range(0, len(ordered), size):
                chunk = ordered[i : i + size]
                dirs = tuple(EpisodeKey(corpus, preset, condition, g).dir for g in chunk)
                out[(judge, corpus, preset, condition, f"e{i // size:04d}")] = UnitSpec(
                    episodes=dirs
                )
        return out

    # -- what the rules ask ---------------------------------------------------------------------

    def scores_targets(self) -> list[str]:
        """Scores tables of the judges of the paper's runs (engine checks have none)."""
        return sorted({paths.scores(u[0]) for u in self.units if u not in self.check_units})

    def spec(self, wc: Any) -> UnitSpec:
        return self.units[(wc.judge, wc.corpus, wc.preset, wc.condition, wc.shard)]

    def inputs(self, wc: Any) -> list[str]:
        return self.spec(wc).inputs

    def episodes(self, wc: Any) -> list[str]:
        return list(self.spec(wc).episodes)

    def play_manifest(self, wc: Any) -> str:
        return self.spec(wc).play_manifest or ""

    def manifests(self, wc: Any) -> list[str]:
        """Judge manifests a scores table collects: the judge's units, engine checks excluded."""
        return [
            _manifest(unit)
            for unit in self.units
            if unit[0] == wc.judge and unit not in self.check_units
        ]

    def check_manifests(self) -> list[str]:
        """Judge manifests of the engine checks (input of the engine-check table)."""
        return [_manifest(unit) for unit in self.check_units]

    def server_argv(self, wc: Any) -> list[str]:
        """``judge.server_argv`` of a judge shard job; none for engine checks (the real engine)."""
        unit = (wc.judge, wc.corpus, wc.preset, wc.condition, wc.shard)
        if unit in self.check_units:
            return []
        return list(self.settings["server_argv"] or [])

    def episode_server_argv(self, wc: Any) -> list[str]:
        """``judge.server_argv`` of one episode's judge job (rule judge_episode); none for the
        check judge, which always starts the real engine."""
        if self.check_judge and wc.judge == self.check_judge:
            return []
        return list(self.settings["server_argv"] or [])

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


def _manifest(unit: Unit) -> str:
    return paths.judge_manifest(*unit)


def _parse_targets(
    targets: Iterable[str],
) -> tuple[dict[tuple[str, str, str, str], str], dict[tuple[str, str, str], set[str]]]:
    """Play manifests ``{(corpus, preset, condition, shard): path}`` and episode targets
    ``{(corpus, preset, condition): games}`` among play-stage targets."""
    manifests: dict[tuple[str, str, str, str], str] = {}
    episodes: dict[tuple[str, str, str], set[str]] = {}
    for path in targets:
        path = str(path)
        if (shard := paths.parse_play_manifest(path)) is not None:
            manifests[(*shard.run, shard.shard)] = path
        elif (episode := EpisodeKey.parse(path)) is not None:
            key3 = (episode.corpus, episode.preset, episode.condition)
            episodes.setdefault(key3, set()).add(episode.game)
    return manifests, episodes
