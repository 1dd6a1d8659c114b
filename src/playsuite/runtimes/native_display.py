"""Two hazards of driving a native game's X window from outside, and how the runtime meets them.

A game may replace its window while it runs (SDL 1.2 makes a new one when it changes video mode;
a launcher hands over to the game), and a game stopped with SIGSTOP while it holds an X server
grab (GTK takes them for moments) leaves the server answering no other client, so the next
capture would wait forever. docs/runtimes.md, "Native", describes both.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from playsuite.runtimes.base import GameFailure, RunStatus
from playsuite.runtimes.xdisplay import Window, XClient

#: How long the server may take to answer a stopped game's display before the game is let run
#: on, how long it then runs at most, and how many times before it counts as hung.
GRAB_PROBE_S = 1.0
GRAB_RELEASE_S = 2.0
MAX_GRAB_RELEASES = 10


def follow_window(x: XClient, window: Window, before: set[int], window_class: str) -> Window:
    """The game's window now: ``window`` as it is, else its replacement, the largest window that
    appeared since the launch (not in ``before``) and matches ``window_class`` (a regex). None
    left while the game runs: it lost its window, a crash for the episode."""
    current = x.refresh(window)
    if current is not None:
        return current
    pattern = re.compile(window_class, re.I)
    new = [
        w
        for w in x.windows()  # largest first
        if w.id not in before and pattern.search(" ".join(w.wm_class))
    ]
    if not new:
        raise GameFailure(RunStatus.CRASHED, "the game's window is gone")
    return new[0]


def release_server_grab(x: XClient, resume: Callable[[], None], halt: Callable[[], None]) -> int:
    """Make sure the X server answers with the game stopped; how many times the game had to run
    on (``resume``, then ``halt`` again: the runtime's own stop and resume, so its clock hides
    the stops as usual) to let go of a grab. Those milliseconds of play are not in the episode's
    game time. A game that never lets go is hung (``timeout``)."""
    releases = 0
    probe = x.start_round_trip()
    probe.join(GRAB_PROBE_S)
    for _ in range(MAX_GRAB_RELEASES):
        if not probe.is_alive():
            return releases
        releases += 1
        resume()
        probe.join(GRAB_RELEASE_S)
        halt()
        if not probe.is_alive():  # answered: check again now that it is stopped
            probe = x.start_round_trip()
            probe.join(GRAB_PROBE_S)
    if probe.is_alive():
        raise GameFailure(RunStatus.TIMEOUT, "the game holds the X server and never lets go")
    return releases
