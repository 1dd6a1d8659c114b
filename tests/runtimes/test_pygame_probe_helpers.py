"""Probe helpers of the pygame host: state held in local variables of running calls."""

from __future__ import annotations

from playsuite.actions import Key
from playsuite.runtimes.factory import make_runtime
from tests.runtimes.conftest import fixture_game

# The probe game runs its loop at module level: its running "call" is the code object <module>.
PROBES = {
    "score": "local('<module>', 'score')",
    "calls": "len(frames('<module>'))",
    "absent": "local('no_such_function')",
    "nothing": "frames('no_such_function')",
}


def test_local_and_frames_read_running_calls(acquired, run_options) -> None:
    game = fixture_game("probe_game", probes=PROBES)
    with make_runtime(game, run_options(acquired(game))) as rt:
        first = rt.start().probes
        assert first == {"score": 0, "calls": 1, "absent": None, "nothing": "[]"}
        rt.act([Key(("space",))], 0.5)
        assert rt.probes()["score"] == 1  # read live, not a copy taken at start
