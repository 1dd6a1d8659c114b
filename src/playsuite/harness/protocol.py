"""How an episode treats the game's clock and its end: the GameWorld protocol options.

PlaySuite's own protocol pauses the game while the model thinks, stops at a game-time cap and
lets a game over stand. GameWorld (../shared/papers/gameworld.txt) plays differently, and each of
its choices is a setting here (``play.*`` in the config; ``+play.*=...`` in a condition name):

* ``action_budget``: the episode is this many agent steps long (GameWorld: 100) and has no
  game-time cap, instead of PlaySuite's 300 s of game time;
* ``reset_on_fail``: a game over (the row's ``game_over`` probe turning true after a step)
  relaunches the game and the episode plays on in a new *attempt* until its budget is spent;
  task progress keeps the best attempt (playsuite.judge.tasks);
* ``realtime`` (GameWorld-RT): the game's clock keeps running while the model thinks. The loop
  measures each step's inference latency and plays that much game time with no new input before
  the step's actions apply, rounded to whole video frames so the video stays game time.

The defaults (all off) are the schema's (``config/schemas/config.schema.json``, ``play``);
a condition's setting overrides the run's for its episodes, and ``meta.json`` records the
protocol each episode was played with.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any

from playsuite.config import Condition, ConfigError, schema_default

#: The probe whose true value is the game's terminal failure (a corpus row declares it).
GAME_OVER_PROBE = "game_over"
#: The protocol's settings, by their name under ``play`` (the config) and ``play.`` (a condition).
SETTINGS = ("action_budget", "reset_on_fail", "realtime")


@dataclass(frozen=True)
class PlayProtocol:
    """The protocol options of one episode (module docstring)."""

    action_budget: int | None
    reset_on_fail: bool
    realtime: bool

    @classmethod
    def from_schema(cls, **overrides: Any) -> PlayProtocol:
        """The schema's defaults (the paused PlaySuite protocol), ``overrides`` on top."""
        unknown = set(overrides) - {f.name for f in fields(cls)}
        if unknown:
            raise TypeError(f"unknown protocol settings: {', '.join(sorted(unknown))}")
        values = {name: schema_default("config", "play", name) for name in SETTINGS}
        return cls(**{**values, **overrides})

    def for_condition(self, condition: Condition) -> PlayProtocol:
        """This (the run's) protocol with the condition's ``play.*`` settings applied."""
        values = {name: getattr(self, name) for name in SETTINGS}
        for name in SETTINGS:
            value = condition.get(f"play.{name}")
            if value is not None:
                values[name] = value
        return PlayProtocol(**values)

    @property
    def paused(self) -> bool:
        """True for PlaySuite's own protocol: nothing here changes how the episode plays."""
        return self.action_budget is None and not self.reset_on_fail and not self.realtime

    def as_dict(self) -> dict[str, Any]:
        """What ``meta.json`` records as ``protocol``."""
        return {name: getattr(self, name) for name in SETTINGS}


#: What an episode recorded before ``meta.json`` had ``protocol`` was played with (a fact about
#: old episodes, not a default: the defaults are the schema's).
BEFORE_PROTOCOLS = PlayProtocol(action_budget=None, reset_on_fail=False, realtime=False)


def check_condition_protocol(condition: Condition) -> None:
    """Refuse a condition whose protocol settings contradict each other or the run's.

    ``play.steps`` caps an episode that also has a game-time cap; ``play.action_budget`` is the
    episode's whole length with no such cap: a condition may set one of them, not both. (A
    condition's budget does replace the run's ``play.steps``.)
    """
    if condition.get("play.action_budget") is not None and condition.get("play.steps") is not None:
        raise ConfigError(
            f"condition {condition.name!r}: set play.action_budget (GameWorld's length: N steps, "
            "no game-time cap) or play.steps (a step cap beside the game-time cap), not both"
        )


def game_over(probes: dict[str, Any] | None) -> bool:
    """True when the probes say the game is over: the ``game_over`` probe is true or a nonzero
    number (a probe that failed reads ``None``: not over)."""
    value = (probes or {}).get(GAME_OVER_PROBE)
    if isinstance(value, bool):
        return value
    return isinstance(value, int | float) and value != 0
