"""The corpus games as Gymnasium environments: ``gymnasium.make("playsuite/<game>-v0")``.

Importing this module registers one id per game of the configured local corpus (the table that
``config.yaml`` names under ``corpora.local``); :func:`register_corpus` registers another table.
Registering only reads the table: nothing is fetched or started until ``gymnasium.make``, which
acquires the game into ``games_dir`` if needed (the workflow's acquisition, idempotent) and
builds a :class:`~playsuite.runtimes.env.GameEnv` with the standard action space of
:mod:`playsuite.actions.gym_space`.

Gymnasium 1.x loads no plugins by itself, so either import this module first or name it in
the id: ``gymnasium.make("playsuite.harness.gym_registry:playsuite/funnyboat-v0")``.

Native games run on the wall clock and browser games on Chromium's scheduling (a busy machine
changes which frames a page renders: seen in CI), so their ids are registered
``nondeterministic``; pygame games replay exactly under a seed.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path
from typing import Any

import gymnasium as gym

from playsuite.config import ConfigError, config_dir, load_yaml, workflow_path
from playsuite.corpus import GameEntry, load_corpus
from playsuite.runtimes.acquire import acquire
from playsuite.runtimes.browser_worker import WorkerBrowser
from playsuite.runtimes.env import GameEnv
from playsuite.runtimes.resources import needs_browser

NAMESPACE = "playsuite"
VERSION = 0
ENTRY_POINT = f"{__name__}:make_env"
#: The probe whose increase is the reward, when a game declares it.
REWARD_PROBE = "score"


def env_id(game_id: str) -> str:
    return f"{NAMESPACE}/{game_id}-v{VERSION}"


def repo_root() -> Path:
    """Where relative paths of the configuration resolve: the checkout holding ``config/``, or
    the working directory under an installed wheel (whose configuration sits in the package)."""
    return workflow_path(".")


def default_table() -> Path:
    """The local corpus's table, as ``config.yaml`` names it."""
    config = load_yaml(config_dir() / "config.yaml") or {}
    try:
        table = Path(config["corpora"]["local"]["table"])
    except (KeyError, TypeError):
        raise ConfigError("config.yaml names no corpora.local.table") from None
    return workflow_path(table)


def default_games_dir() -> Path:
    """Where acquired games live: ``$PLAYSUITE_GAMES_DIR``, else the workflow's results/games."""
    env = os.environ.get("PLAYSUITE_GAMES_DIR")
    return Path(env) if env else repo_root() / "results" / "games"


def register_corpus(
    table: str | os.PathLike[str] | None = None,
    *,
    base_dir: str | os.PathLike[str] | None = None,
) -> list[str]:
    """Register an env id for every game of ``table`` (default: :func:`default_table`) and
    return the ids. ``base_dir`` resolves the folders of ``local`` games (default: the
    repository). Registering the same game again with the same row is a no-op."""
    path = Path(table) if table is not None else default_table()
    base = str(Path(base_dir) if base_dir is not None else repo_root())
    ids = []
    for game in load_corpus(path):
        kwargs = {"game": game.to_dict(), "base_dir": base}
        ident = env_id(game.id)
        existing = gym.registry.get(ident)
        if existing is None or existing.kwargs != kwargs:
            gym.register(
                id=ident,
                entry_point=ENTRY_POINT,
                nondeterministic=game.runtime != "pygame",
                kwargs=kwargs,
            )
        ids.append(ident)
    return ids


class _SharedBrowser:
    """One Chromium for the browser envs of this process, closed with the last of them.

    Playwright's synchronous API drives one browser per thread, so two envs that each started
    their own could not be open at once (``check_env`` opens a second one; so do vector envs).
    """

    def __init__(self) -> None:
        self.browser: WorkerBrowser | None = None
        self.users = 0

    def take(self) -> WorkerBrowser:
        if self.browser is None:
            self.browser = WorkerBrowser()  # Chromium starts with the first game
        self.users += 1
        return self.browser

    def release(self) -> None:
        self.users -= 1
        if self.users == 0 and self.browser is not None:
            self.browser.close()
            self.browser = None


_BROWSER = _SharedBrowser()


def make_env(
    game: dict[str, Any],
    *,
    base_dir: str | os.PathLike[str],
    games_dir: str | os.PathLike[str] | None = None,
    step_seconds: float = 1.0,
    render_mode: str | None = "rgb_array",
    **options: Any,
) -> GameEnv:
    """The entry point of every registered id: acquire the game, then build its env.

    ``options`` are :class:`~playsuite.runtimes.base.RuntimeOptions` fields (``video_fps``,
    ``display``, ``launch_timeout_s``, ``browser``...) or ``workdir``. A browser game given no
    ``browser`` plays in a Chromium shared by this process's envs (stopped with the last one).
    """
    if render_mode not in (None, "rgb_array"):
        raise ValueError(f"render_mode {render_mode!r}: only 'rgb_array' is supported")
    entry = GameEntry.from_dict(game)
    acquired = acquire(entry, games_dir or default_games_dir(), base_dir=base_dir)
    on_close = None
    if needs_browser(entry) and options.get("browser") is None:
        options["browser"], on_close = _BROWSER.take(), _BROWSER.release
    try:
        return GameEnv(
            entry,
            acquired.files,
            step_seconds=step_seconds,
            standard_actions=True,
            reward_probe=REWARD_PROBE if REWARD_PROBE in entry.probes else None,
            on_close=on_close,
            **options,
        )
    except BaseException:
        if on_close is not None:
            on_close()
        raise


def _register_default() -> None:
    try:
        register_corpus()
    except (ConfigError, OSError) as exc:  # e.g. an install without config/: register by hand
        warnings.warn(f"playsuite: no Gymnasium ids registered ({exc})", stacklevel=2)


_register_default()
