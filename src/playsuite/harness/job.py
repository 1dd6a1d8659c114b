"""What one play job is asked to do: a shard of games for one preset and condition.

A :class:`ShardJob` is plain data, built by the command line (``playsuite play``,
``playsuite play-shard``) and sent to every worker process; it answers the per-game questions
(episode folder, video rate, limits, the settings an episode records) the same way everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from playsuite.config import Condition
from playsuite.corpus import GameEntry
from playsuite.harness.costs import HEARTBEAT_S
from playsuite.harness.episode import EpisodeLimits, episode_seed, episode_settings
from playsuite.harness.protocol import PlayProtocol
from playsuite.inference.job_server import ServerSettings
from playsuite.locks import lock_path_for
from playsuite.records.episode import ModelRecord
from playsuite.registry import Preset

#: Video frame rate per runtime: pygame games are recorded at the paper's 30 fps; browser and
#: native games at 10 fps of game time (screenshots are the expensive part there).
DEFAULT_VIDEO_FPS = {"pygame": 30.0, "browser": 10.0, "native": 10.0}


def apply_condition(
    preset: Preset, condition: Condition, steps: int | None
) -> tuple[Preset, int | None]:
    """The preset and the action budget a condition's episodes are played with.

    A condition's further settings (playsuite.config.Condition) override the run's: its
    ``sampling.*`` the preset's sampling block (so the model server and every request use
    them), its ``preset.*`` the preset's fields (``history_frames``), its ``play.steps`` the
    job's ``--steps``. Applied once here, before a job starts,
    so every worker and the episode's ``meta.json`` see the same values.
    """
    sampling = condition.overrides("sampling")
    if sampling:
        preset = replace(preset, sampling={**preset.sampling, **sampling})
    fields = condition.overrides("preset")  # fields of the registry preset itself
    if fields:
        preset = replace(preset, **fields)
    budget = condition.get("play.steps")
    return preset, (int(budget) if budget is not None else steps)


def condition_clock_rate(condition: Condition, run_rate: float) -> float:
    """The native games' clock rate a condition's episodes are played at: its
    ``play.native_clock_rate`` when it sets one (an ablation asking whether a faster clock
    changes the outcome), else the run's."""
    rate = condition.get("play.native_clock_rate")
    return float(rate) if rate is not None else run_rate


@dataclass
class ShardJob:
    corpus: str
    preset: Preset
    condition: Condition
    games: list[GameEntry]
    runs_dir: Path  # results/runs/{corpus}/{preset}/{condition}
    games_dir: Path  # results/games (acquired games)
    workers: int = 8
    limits_by_runtime: dict[str, EpisodeLimits] = field(default_factory=dict)
    video_fps: dict[str, float] = field(default_factory=lambda: dict(DEFAULT_VIDEO_FPS))
    base_seed: int = 0
    server: ServerSettings = field(default_factory=ServerSettings.from_schema)
    log_dir: Path | None = None
    costs_path: Path | None = None  # one TSV row per job attempt (docs/analysis.md)
    shard: str = ""
    live: bool = True  # rich progress view when stderr is a terminal
    single_episode_dir: Path | None = None  # `playsuite play --out DIR`: a one-game job
    sandbox: str = "bwrap"  # "bwrap" here; "apptainer" on clusters without user namespaces
    apptainer_image: str | None = None  # containers/game-sandbox.sif for the apptainer backend
    native_clock_rate: float = 1.0  # play.native_clock_rate: native games' game s per wall s
    lock_wait_s: float = 0.0  # play.lock_wait_s: wait this long for a shard another job holds
    min_free_mb: float = 0.0  # play.min_free_mb: free space needed in runs_dir (0: unchecked)
    cost_heartbeat_s: float = HEARTBEAT_S  # how often a running attempt's cost record is updated
    #: What the job's model server serves (JobServer.model_record), set once it is ready and
    #: recorded in every episode's meta.json; None for a baseline (no server).
    served_model: ModelRecord | None = None
    #: How the episodes treat the clock and a game over (the run's play.* with the condition's
    #: over them; playsuite.harness.protocol).
    protocol: PlayProtocol = field(default_factory=PlayProtocol.from_schema)

    def episode_dir(self, game_id: str) -> Path:
        if self.single_episode_dir is not None:
            return self.single_episode_dir
        return self.runs_dir / game_id

    def lock_path(self, manifest_path: Path | None) -> Path:
        """The shard's lock file: beside its manifest; for `playsuite play`, beside the episode."""
        if manifest_path is not None:
            return lock_path_for(manifest_path)
        if self.single_episode_dir is not None:
            out = self.single_episode_dir
            return out.parent / f".{out.name}.lock"
        return self.runs_dir / f".{self.shard or 'shard'}.lock"

    def fps_for(self, game: GameEntry) -> float:
        return self.video_fps.get(game.runtime, 10.0)

    def limits_for(self, game: GameEntry) -> EpisodeLimits:
        return self.limits_by_runtime.get(game.runtime, EpisodeLimits())

    def settings_for(self, game: GameEntry) -> dict[str, Any]:
        """The settings this job plays ``game`` with, as its ``meta.json`` would record them."""
        return episode_settings(
            corpus=self.corpus,
            game_id=game.id,
            preset=self.preset.name,
            condition=self.condition.name,
            seed=episode_seed(self.base_seed, self.corpus, game.id, self.condition.name),
            video_fps=self.fps_for(game),
            limits=self.limits_for(game),
            protocol=self.protocol,
        )
