"""WorkerResources: which runtime gets a browser, an X display and a Mesa cache, and reuse."""

from __future__ import annotations

from pathlib import Path

import pytest

from playsuite.corpus import GameEntry
from playsuite.runtimes.base import RuntimeOptions
from playsuite.runtimes.resources import WorkerResources


def _game(runtime: str, **options: object) -> GameEntry:
    return GameEntry.from_dict(
        {
            "id": f"g-{runtime}",
            "title": "g",
            "source": "local",
            "package": "tests/fixtures/x",
            "runtime": runtime,
            "entry": "main.py",
            "options": options,
        }
    )


def _options(tmp_path: Path, **fields: object) -> RuntimeOptions:
    return RuntimeOptions(workdir=tmp_path / "run", game_dir=tmp_path / "files", **fields)  # type: ignore[arg-type]


def test_a_plain_pygame_game_gets_nothing_shared(tmp_path: Path) -> None:
    with WorkerResources(tmp_path / "w", apptainer_image="img.sif") as resources:
        options = resources.options_for(_game("pygame"), _options(tmp_path))
    assert options.browser is None and options.display is None and options.mesa_cache is None
    assert options.apptainer_image == "img.sif"  # the worker's sandbox image reaches every game


def test_browser_games_share_one_browser_in_the_workers_sandbox(tmp_path: Path) -> None:
    resources = WorkerResources(tmp_path / "w", sandbox="apptainer", apptainer_image="img.sif")
    first = resources.options_for(_game("browser"), _options(tmp_path, sandbox="apptainer"))
    second = resources.options_for(_game("browser"), _options(tmp_path))
    assert first.browser is not None and first.browser is second.browser
    assert first.browser.sandbox == "apptainer" and first.browser.image == "img.sif"
    assert first.display is None and first.mesa_cache is None
    resources.close()
    resources.close()  # idempotent
    assert resources.options_for(_game("browser"), _options(tmp_path)).browser is not first.browser


@pytest.mark.games
@pytest.mark.parametrize("game", [_game("native"), _game("pygame", opengl=True)])
def test_native_and_opengl_games_share_a_display_and_a_mesa_cache(
    tmp_path: Path, game: GameEntry
) -> None:
    with WorkerResources(tmp_path / "w") as resources:
        first = resources.options_for(game, _options(tmp_path))
        again = resources.options_for(game, _options(tmp_path))
        assert first.display is not None and first.display == again.display
        assert first.mesa_cache == tmp_path / "w" / "mesa-cache" == again.mesa_cache
        assert first.browser is None
        display = resources.display()
        assert display.is_alive()
    assert not display.is_alive()  # closed with the worker
