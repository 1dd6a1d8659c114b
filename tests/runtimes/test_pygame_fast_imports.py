"""The pygame host's import hook (pygame_host.FastImports): faster start, same game.

Played in the real sandbox on the probe fixture game; probes look into the game's process.
"""

from __future__ import annotations

from playsuite.actions import Wait
from playsuite.runtimes.factory import make_runtime
from tests.runtimes.conftest import fixture_game

#: Evaluated in order at every pause, inside the game's process.
PROBES = {
    "numpy_at_start": "'numpy' in modules",
    "pkg_resources": "'pkg_resources' in modules",
    # a solarwolf-style sweep: hasattr on every loaded module must not run deferred bodies
    "sweep": "len([m for m in list(modules.values()) if hasattr(m, 'load_game_resources')])",
    "numpy_after_sweep": "'numpy' in modules",
    # first use of surfarray runs its body (and imports numpy, seeded on import)
    "shape": "str(pygame.surfarray.array3d(pygame.display.get_surface()).shape)",
    "draw": "int(modules['numpy'].random.randint(10**9))",
    "game_can_import": "__import__('pkg_resources').__name__",
}


def _first_probes(acquired, run_options, **options: object) -> dict:
    game = fixture_game("probe_game", probes=PROBES, options=options)
    with make_runtime(game, run_options(acquired(game), seed=3)) as rt:
        first = rt.start().probes
        rt.act([Wait()], 0.1)
        return first


def test_numpy_and_pkg_resources_load_only_when_used(acquired, run_options) -> None:
    lazy = _first_probes(acquired, run_options)
    assert not any(k.endswith(".error") for k in lazy), lazy
    # pygame started and its display found its icon without either module
    assert lazy["numpy_at_start"] is False and lazy["pkg_resources"] is False
    assert lazy["sweep"] == 0 and lazy["numpy_after_sweep"] is False
    assert lazy["shape"] == "(320, 240, 3)"  # surfarray works once used
    assert lazy["game_can_import"] == "pkg_resources"

    eager = _first_probes(acquired, run_options, lazy_imports=False)
    assert eager["numpy_at_start"] is True
    # numpy seeded at its import draws what numpy seeded at start draws
    assert lazy["draw"] == eager["draw"]
